"""What every portfolio strategy shares: parameters, state, the online protocol,
validation of price relatives, and save/load.

A strategy's state is a dict of named arrays, ``state_["b"]`` the portfolio for the
coming period.  Its compiled kernel (one ``@njit(cache=True)`` loop per strategy
family, in the strategy's own file) takes the relatives ``X`` (periods x assets), an
output ``B`` for the portfolios it decided, the state arrays in ``_slots`` order and
the scalar parameters; for each period it writes ``B[t] = b`` and then learns from
``X[t]``, updating the state in place.  ``learn_one(x)`` runs the same kernel on one
row and ``backtest`` on the whole matrix, so the two agree exactly.
"""
import inspect

import numpy as np

from .._params import store_params  # noqa: F401  (re-exported for the strategy files)
from .._validation import check_number, check_saved_array
from .._locking import locked
from ..protocol import Saves


def check_window(window):
    """A strategy's ``window`` of past periods: an integer >= 2."""
    if not isinstance(window, int) or isinstance(window, bool) or window < 2:
        raise ValueError(f"window must be an integer >= 2, got {window!r}")


def check_relatives(X, name="relatives", min_assets=2):
    """``X`` as a C-contiguous float64 (periods x assets) matrix of finite, positive
    price relatives; raises ValueError naming what is wrong."""
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric matrix ({exc})") from None
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (periods x assets) matrix, got {X.ndim}-D")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has no periods")
    if X.shape[1] < min_assets:
        raise ValueError(f"{name} has {X.shape[1]} asset(s): portfolio selection needs at "
                         f"least {min_assets}")
    if X.size and X.min() > 0 and X.max() < np.inf:   # (NaN fails the first test)
        return X
    bad = ~(np.isfinite(X) & (X > 0))
    if bad.any():
        t, i = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite and positive: period {t + 1}, asset "
                         f"{i + 1} is {X[t, i]!r}")
    return X


class Strategy(Saves):
    """Base of the online portfolio strategies (not a supervised learner).

    Subclasses set ``_kernel`` (the compiled loop), ``_slots`` (the state arrays it
    takes after ``b``, in order), ``_new_state(m)``, ``_kernel_params()`` and
    ``_check_params()``.
    """

    #: hindsight benchmarks (BCRP, best stock) must ``fit`` the whole matrix first
    _hindsight = False
    _slots = ()

    # ------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls):
        names = cls.__dict__.get("_param_names_")    # (per class: inspect takes ~10 us)
        if names is None:
            names = tuple(p for p in inspect.signature(cls.__init__).parameters
                          if p != "self")
            cls._param_names_ = names
        return names

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        names = self._param_names()
        for k, v in params.items():
            if k not in names:
                raise ValueError(f"{type(self).__name__} has no parameter {k!r}")
            setattr(self, k, v)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _check_params(self):
        pass

    def check_params(self):
        """Raise ValueError for a parameter out of its range (what the first ``fit``
        would raise); returns the strategy."""
        self._check_params()
        return self

    def _kernel_params(self):
        return ()

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m)}

    # ------------------------------------------------------------ protocol
    #: state arrays that must stay portfolios (non-negative, summing to 1 along the
    #: last axis) and arrays that the parameters alone determine
    _simplex = ("b",)
    _fixed = ()
    #: parameters that are sizes of the state (checked against a file's arrays, and
    #: refused when changed on a fitted strategy, before any state is allocated for them)
    _size_params = ()

    def _ensure_state(self, m):
        if getattr(self, "state_", None) is None:
            if self._hindsight:
                raise ValueError(f"{type(self).__name__} is a hindsight benchmark: call "
                                 f"fit(relatives) first (backtest does)")
            self._check_params()
            self.state_ = _allocated(self, m)
            self.n_assets_ = m
            self.t_ = 0
            self._made_sizes = {p: getattr(self, p) for p in self._size_params}
        elif m != self.n_assets_:
            raise ValueError(f"relatives have {m} assets, the strategy holds "
                             f"{self.n_assets_}")
        else:
            self._check_layout()

    def _layout(self):
        """``{name: (shape, dtype)}`` of the state the parameters give for the strategy's
        assets (from a fresh state, kept while the parameters stay the same)."""
        key = (repr(sorted(self.get_params().items())), self.n_assets_)
        cached = self.__dict__.get("_layout_cache")
        if cached is None or cached[0] != key:
            self._check_params()
            fresh = _allocated(self, self.n_assets_)
            cached = self.__dict__["_layout_cache"] = (
                key, {k: (v.shape, v.dtype) for k, v in fresh.items()}, fresh)
        return cached[1], cached[2]

    def _check_layout(self):
        """Before the compiled loop: the parameters valid and the state arrays the shapes
        they give (a ``window`` set on a fitted strategy would index the old history);
        refused, naming the parameter, until it is set back or a fresh strategy made."""
        self._check_params()
        made = self.__dict__.get("_made_sizes")
        for p in self._size_params:
            if made is not None and getattr(self, p) != made.get(p):
                raise ValueError(f"{type(self).__name__}: {p} changed from {made.get(p)!r} "
                                 f"to {getattr(self, p)!r} after learning started, which "
                                 "changes the state's size; set it back, or make a fresh "
                                 "strategy")
        layout, _ = self._layout()
        state = self.state_
        for name, (shape, dtype) in layout.items():
            v = state.get(name)
            if v is None or v.shape != shape or v.dtype != dtype:
                raise ValueError(
                    f"{type(self).__name__}: its state {name!r} does not fit the parameters "
                    f"({self.get_params()}): a parameter that shapes the state (window, "
                    "n_samples ...) changed after learning started; set it back, or make "
                    "a fresh strategy")

    def _learn(self, X, B, check=True):
        """Run the kernel over the validated rows ``X``, writing the decisions to ``B``;
        ``check=False`` leaves the check that ``B`` is finite to the caller (``backtest``
        makes it in its accounting pass)."""
        self._ensure_state(X.shape[1])
        state = self.state_
        try:
            self._kernel(X, B, state["b"], *[state[k] for k in self._slots],
                         *self._kernel_params())
        except ZeroDivisionError:
            raise ValueError(f"{type(self).__name__}: its state became degenerate (a "
                             "division by zero): make a fresh strategy") from None
        self.t_ += X.shape[0]
        if not np.isfinite(state["b"]).all() or (check and not np.isfinite(B).all()):
            self._not_finite()

    def _not_finite(self):
        raise ValueError(f"{type(self).__name__}: its portfolios became non-finite "
                         "(price relatives too extreme?): make a fresh strategy")

    @locked
    def predict_one(self, n_assets=None):
        """The portfolio for the coming period (a copy), decided before its relatives
        are seen.  A strategy that has seen nothing yet needs ``n_assets`` and answers
        its starting portfolio (uniform)."""
        if getattr(self, "state_", None) is None:
            if n_assets is None:
                raise ValueError("the number of assets is not known yet: call "
                                 "predict_one(n_assets=m) or learn_one first")
            if isinstance(n_assets, bool) or not isinstance(n_assets, (int, np.integer)) \
                    or n_assets < 1:
                raise ValueError(f"n_assets must be a positive integer, got {n_assets!r}")
            self._ensure_state(int(n_assets))
        return self.state_["b"].copy()

    @locked
    def learn_one(self, x):
        """Learn one period's price relatives ``x`` (one per asset, positive)."""
        X = check_relatives(np.asarray(x, dtype=np.float64).reshape(1, -1), "x",
                            min_assets=1)
        B = np.empty_like(X)
        self._learn(X, B)
        return self

    # ------------------------------------------------------------ persistence
    def export_state(self):
        if getattr(self, "state_", None) is None:
            return {}, {}
        return {"t_": int(self.t_), "n_assets_": int(self.n_assets_)}, \
            {k: np.array(v) for k, v in self.state_.items()}

    @classmethod
    def from_state(cls, params, fitted, arrays):
        """A strategy from a file, every part checked before a compiled loop may see it:
        the parameters, the counters, each array's dtype and shape against a fresh
        state's for those parameters (a window within its history), finite values,
        portfolios on the simplex, counters non-negative, arrays the parameters fix
        equal to theirs."""
        if not isinstance(params, dict) or not isinstance(fitted, dict):
            raise ValueError("parameters and metadata must be JSON objects")
        model = cls(**params)
        model._check_params()
        if not fitted:
            if arrays:
                raise ValueError("an unfitted strategy holds no arrays")
            return model
        t, m = fitted.get("t_"), fitted.get("n_assets_")
        for name, v in (("t_", t), ("n_assets_", m)):
            if type(v) is not int or v < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
        b = arrays.get("b")
        if not isinstance(b, np.ndarray) or b.shape != (m,) or m < 1:
            raise ValueError(f"the portfolio b must hold n_assets_ = {m} weights")
        expected = {"b", *cls._slots}
        if set(arrays) != expected:
            raise ValueError(f"state arrays {sorted(arrays)} are not {sorted(expected)}")
        total = sum(np.size(v) for v in arrays.values())
        for p in cls._size_params:
            if getattr(model, p) > total:  # (before a state is allocated for it)
                raise ValueError(f"{p}={getattr(model, p)!r} does not fit the saved state")
        model.n_assets_, model.t_ = m, t
        model._made_sizes = {p: getattr(model, p) for p in cls._size_params}
        model.state_ = dict(arrays)
        layout, fresh = model._layout()
        for name, (shape, dtype) in layout.items():
            v = model.state_[name] = check_saved_array(name, arrays[name], shape, dtype)
            if name in cls._fixed and not np.array_equal(v, fresh[name]):
                raise ValueError(f"state array {name} is not the one the parameters give")
            if name in cls._simplex and v.size and (
                    (v < 0).any() or not np.allclose(v.sum(axis=-1), 1.0, atol=1e-6)):
                raise ValueError(f"state array {name} is not a portfolio (weights "
                                 "non-negative, summing to 1)")
        return model


def _allocated(strategy, m):
    """A fresh state for ``m`` assets; one line when it cannot be allocated."""
    try:
        return strategy._new_state(m)
    except MemoryError:
        raise ValueError(f"{type(strategy).__name__}: a state for {m} assets and these "
                         "parameters does not fit in memory") from None


class WindowReversion(Strategy):
    """What OLMAR and RMR share: the threshold ``epsilon`` on the predicted return, a
    ``window`` of past periods, and their state after ``b``: the window's rows (ones at
    the start; ``_slots[0]`` names them) and the period counter ``count``."""

    _size_params = ("window",)

    def _check_params(self):
        check_number("epsilon", self.epsilon, low=0)
        check_window(self.window)

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m), self._slots[0]: np.ones((self.window, m)),
                "count": np.zeros(1, dtype=np.int64)}

    def _kernel_params(self):
        return float(self.epsilon), int(self.window)

