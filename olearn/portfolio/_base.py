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
from .._validation import check_number
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
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

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

    def _kernel_params(self):
        return ()

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m)}

    # ------------------------------------------------------------ protocol
    def _ensure_state(self, m):
        if getattr(self, "state_", None) is None:
            if self._hindsight:
                raise ValueError(f"{type(self).__name__} is a hindsight benchmark: call "
                                 f"fit(relatives) first (backtest does)")
            self._check_params()
            self.state_ = self._new_state(m)
            self.n_assets_ = m
            self.t_ = 0
        elif m != self.n_assets_:
            raise ValueError(f"relatives have {m} assets, the strategy holds "
                             f"{self.n_assets_}")

    def _learn(self, X, B):
        """Run the kernel over the validated rows ``X``, writing the decisions to ``B``."""
        self._ensure_state(X.shape[1])
        self._kernel(X, B, self.state_["b"], *[self.state_[k] for k in self._slots],
                     *self._kernel_params())
        self.t_ += X.shape[0]

    @locked
    def predict_one(self, n_assets=None):
        """The portfolio for the coming period (a copy), decided before its relatives
        are seen.  A strategy that has seen nothing yet needs ``n_assets`` and answers
        its starting portfolio (uniform)."""
        if getattr(self, "state_", None) is None:
            if n_assets is None:
                raise ValueError("the number of assets is not known yet: call "
                                 "predict_one(n_assets=m) or learn_one first")
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
    def _export(self):
        if getattr(self, "state_", None) is None:
            return {}, {}
        return {"t_": int(self.t_), "n_assets_": int(self.n_assets_)}, \
            {k: np.array(v) for k, v in self.state_.items()}

    @classmethod
    def _import(cls, params, fitted, arrays):
        model = cls(**params)
        if fitted:
            model.t_ = int(fitted["t_"])
            model.n_assets_ = int(fitted["n_assets_"])
            model.state_ = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
            expected = {"b", *cls._slots}
            if set(model.state_) != expected:
                raise ValueError(f"state arrays {sorted(model.state_)} are not "
                                 f"{sorted(expected)}")
        return model


class WindowReversion(Strategy):
    """What OLMAR and RMR share: the threshold ``epsilon`` on the predicted return, a
    ``window`` of past periods, and their state after ``b``: the window's rows (ones at
    the start; ``_slots[0]`` names them) and the period counter ``count``."""

    def _check_params(self):
        check_number("epsilon", self.epsilon, low=0)
        check_window(self.window)

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m), self._slots[0]: np.ones((self.window, m)),
                "count": np.zeros(1, dtype=np.int64)}

    def _kernel_params(self):
        return float(self.epsilon), int(self.window)
