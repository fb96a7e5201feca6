"""Estimator layer: the lean base of every online model (see :mod:`olearn.protocol`).

:class:`OnlineLearner` holds what every family shares and nothing else: the
scikit-learn contract, ``fit``/``partial_fit``/``predict_learn``, the one-example
protocol (``learn_one``, ``predict_one``, ``predict_proba_one``, ``predict_learn_one``),
atomic batch calls, the divergence check, state export and import, widening, and the
the state made explicit for mixing (``explicit_state``).  It knows no linear
algebra: a model's scores come from its scorer hook (``batch_scores``); the linear
decision ``w.x + b``, ``coef_`` and ``intercept_`` live with the linear family
(:class:`olearn.linear._linear.LinearDecision`), a model over a feature map with
:class:`olearn.feature_map.FeatureMapModel`.

A model class declares, through the public extension points of
:mod:`olearn.protocol` (what the base and every reader call; by default they answer
round 2's private names, ``_slots``, ``_kernels``, ``_kernel_params``,
``_check_params``, which the learners of round 2 still set):

* ``slots``: its state, as :class:`Slot` records (name, axes over classes ``"K"`` and
  weights ``"d"``, initial value); the first slot with a ``"K"`` axis gives the number of
  class rows, the first with a ``"d"`` axis the width.  From the slots the base class
  allocates, grows (new classes, new dict features), converts (binary to multiclass),
  saves and loads the state: no learner writes that; ``init_state`` fills what a
  constant cannot (random initial weights);
* ``kernels``: its compiled entry points by task (``driver.BINARY``,
  ``driver.MULTICLASS``, ``driver.REGRESSION``, made by ``declare``), each taking
  ``(X, y, sw, state, params, seen, scores, pred)`` and returning the number of updates;
* ``kernel_params()``: its hyper-parameters by the declared names (a dict), and
  ``check_params()`` to validate them (once per call);
* ``batch_scores(X)``: the (n, K) scores of validated rows from the current model,
  changing nothing (``decision_function``, ``predict`` and ``predict_one`` use it).

Every learner takes ``fit_intercept`` and ``intercept_scaling`` (a constant feature of
value ``c = intercept_scaling`` is weight column 0; it takes part in norms and
updates like any other feature; a linear model's ``coef_`` excludes it and
``intercept_`` is ``c`` times its weight: ``c = 1`` is the seed texts' convention,
LIBLINEAR's ``intercept_scaling`` is the same device; the PA, OGD and COCOB classifiers
default to ``c = 0.1``, so that on normalised sparse rows the constant does not weigh as
much as the whole row in ``||x||^2``: see docs/guide/linear.md), ``epochs`` (passes of
``fit``), ``shuffle`` (default True: ``fit`` visits the rows in a random order each
epoch, as scikit-learn's SGD does; ``partial_fit``, ``predict_learn`` and the
one-example methods always keep the stream's order) and ``random_state`` (seeds that
order; None gives a fresh order each ``fit``).

The parts, one module each:

* ``_validation``: the checkers of hyper-parameters and of a batch;
* ``_state``: the slots, allocation, growth, binary-to-multiclass conversion;
* ``_labels``: the online class map of classifiers (``classes_``, ``seen_``);
* ``_rows``: a batch's canonical rows, one example's reused row buffer;
* here: the protocol's calls, the divergence check, ``export_state``/``from_state``.

A learner whose scores or weights become non-finite raises :class:`DivergenceError`
naming the row (the model is then unusable: call ``fit`` to start afresh).
"""
from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np
from ._estimator import (ClassifierMixin, Estimator, RegressorMixin, check_is_fitted)

from ._compiled import entry_point as _entry_point
from ._compiled.driver import (BINARY, MULTICLASS, REGRESSION,  # noqa: F401 (re-exported)
                               UNLABELLED)
from ._compiled.declare import pack_params
from ._compiled.finite import HIGH_WEIGHT
from ._compiled.finite import extreme_row as _extreme_row
from ._labels import LabelMixin, unique_labels
from ._links import LOGISTIC_PROBAS, logistic_one, logistic_proba
from ._locking import locked
from ._params import check_common
from .protocol import Progressive, Saves
from ._river import weight as _weight
from ._rows import OneRow, kernel_rows, run_chunks
from ._state import Slot, StateMixin
from ._validation import (MAX_CONSTANT, MAX_TARGET, as_floats, check_number, check_weight,
                          validate_batch, validate_X)
from ._validation import check_random_state as _rng
from ._vocabulary import check_values

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ._typing import Label, Matrix, Row, State, Vector

_L = TypeVar("_L", bound="OnlineLearner")

__all__ = ["OnlineLearner", "OnlineClassifier", "OnlineRegressor", "OnlineUnlabelled",
           "Slot", "DivergenceError"]

_unique = unique_labels  # former name


#: batch calls copy a model up to this size, to put it back if the call diverges
SNAPSHOT_BYTES = 32 * 2**20
#: a score beyond this magnitude marks a model as near overflow: its one-example calls
#: copy the state they change from then on (``OnlineLearner._learn_example``)
HOT = 1e100


class DivergenceError(ValueError):
    """The model's scores or weights became non-finite (NaN or infinity).

    Where, as fields: ``row``, the 0-based index of the row, counted in what ``where``
    names: ``"batch"`` (the rows of the call that raised), ``"X"`` (``fit``'s rows, for a
    shuffled pass) or ``"stream"`` (a one-example call: the examples the model learned
    before this one); both None when no row is known.  ``learner``: the class name of
    the model that diverged (a wrapper's member, say).  The message is made from them
    (or given, without a row)."""

    _PLACES = {"batch": "row {} of this batch", "X": "row {} of X (shuffled pass)",
               "stream": "example {} of the stream"}

    def __init__(self, message: str | None = None, row: Any = None, where: Any = None,
                 learner: str | None = None, note: str = "") -> None:
        self.row, self.where, self.learner, self.note = row, where, learner, note
        if message is None:
            place = self._PLACES[where].format(row + 1 if where == "stream" else row)
            message = (f"{learner} diverged at {place}: the weights became non-finite (try "
                       "a smaller step, a stronger regularisation or scaled features; call "
                       f"fit() to start afresh){note}")
        super().__init__(message)

    def __reduce__(self):
        return type(self), (str(self), self.row, self.where, self.learner, self.note)

    def moved(self, rows: int) -> DivergenceError:
        """The same error for a batch of which the raising call's rows were a part,
        after ``rows`` rows (a wrapper that passes its batch on in pieces)."""
        if self.row is None or self.where != "batch":
            return self
        return DivergenceError(None, self.row + rows, "batch", self.learner, self.note)


class _OneCall:
    """The kernel and its constant arguments for one-example calls (rebuilt whenever the
    state arrays are replaced or a hyper-parameter is set)."""
    __slots__ = ("task", "kernel", "entry", "state", "params", "seen", "scores", "out",
                 "pred", "sw", "y", "K", "scorer", "pout", "views", "rest")

    def __init__(self, task, kernel, state, params, seen, K):
        self.task, self.kernel, self.entry = task, kernel, None
        self.state, self.params, self.seen = state, params, seen
        self.K = K
        self.scores = np.zeros((1, self.K))
        self.out = self.scores[0]
        self.pred = np.zeros(1, dtype=np.int64)
        self.sw = np.ones(1)
        self.y = np.zeros(1)
        self.scorer = None  # a learner's compiled one-row scorer, once resolved
        self.pout = np.zeros(self.K)  # its output: predict_one's scores
        # y, sw, out, pred as memoryviews: a Python float or int in and out, about 20-45
        # ns less per access than indexing the arrays (several accesses per example)
        self.views = tuple(map(memoryview, (self.y, self.sw, self.out, self.pred)))
        # the arguments after the row: ``(entry or _first)(row, *rest)`` runs the kernel
        self.rest = (self.y, self.sw, state, params, seen, self.scores, self.pred)

    def _first(self, row, *rest):
        """The first call: through numba's dispatcher (compiling or loading the
        kernel), then ``entry`` becomes the compiled function it picked."""
        args = (row,) + rest
        n = self.kernel(*args)
        self.entry = _entry_point(self.kernel, args)
        return n


class OnlineLearner(Progressive, Saves, StateMixin, Estimator):
    """The lean protocol base (:class:`olearn.protocol.Model`): the online protocol, the
    scikit-learn contract, one-at-a-time input; no linear algebra."""

    # ------------------------------------------------------------ extension points
    # The public names are what the base (and any reader: a wrapper, olearn.mix) calls;
    # by default they answer round 2's private names, which the learners of round 2
    # still set.  A new model sets the public ones (olearn.protocol).
    _kernels: dict[str, Any] = {}

    #: what the model learns from (``olearn.protocol.TARGETS``): read by validation,
    #: the one-example calls, persistence (through them), the tags and the generic checks
    target = "value"

    #: the number of scores a row gets: None, the class rows (``"K"``, 1 for binary and
    #: regression); or the name of a hyper-parameter that sizes a slot axis (a k-means
    #: model's ``"n_clusters"``: one score per centre)
    outputs: str | None = None

    def _n_outputs(self):
        """The width of a row's scores (``outputs``)."""
        if self.outputs is None:
            return self._n_rows
        return self._axis_param(self.outputs)

    def _kernel_params(self):
        return ()

    def _check_params(self):
        pass

    @property
    def kernels(self) -> Any:
        """The compiled entry points by task (``declare(...)``; see ``olearn.protocol``)."""
        return self._kernels

    def kernel_params(self) -> Any:
        """The hyper-parameters the compiled rules read, ``{declared name: number}``
        (override; ``declare(..., params=NAMES)`` names them).  Checked against the
        declaration once per call (``_packed_params``)."""
        return self._kernel_params()

    def check_params(self) -> None:
        """Validate the hyper-parameters, once per call (override; raise ValueError);
        then the state's layout against them (``check_layout``: a parameter that shapes
        the state, set on a fitted model, is refused until ``fit``).  The common
        parameters are checked first, from their one table (``olearn._params.COMMON``)."""
        check_common(self)
        self._check_params()
        self._constant()
        self.check_layout()

    def batch_scores(self, X: Matrix) -> NDArray[Any]:
        """The (n, K) scores of validated rows ``X`` (a C-contiguous float64 array or a
        canonical CSR matrix of the model's columns, without the constant feature) from
        the current model, changing nothing; K = 1 for binary and regression.  The
        scorer hook of ``decision_function``, ``predict`` and ``predict_one`` (override:
        a linear model gets it from ``LinearDecision``, a feature-map model from
        ``FeatureMapModel``)."""
        raise NotImplementedError(
            f"{type(self).__name__} declares no scorer: define batch_scores(X) (see "
            "olearn.protocol), or derive from a family base (a linear rule: "
            "LinearModel; a model over a feature map: olearn.feature_map.FeatureMapModel)")

    def _packed_params(self):
        """``kernel_params()`` as the kernels take them: a declared learner's named tuple,
        checked against its declaration's names (``Kernels.pack``), once per call."""
        return pack_params(self, self.kernels, self.kernel_params())

    def _state_changed(self):
        self.__dict__.pop("_one_cache", None)

    def __setattr__(self, name, value):
        if not name.endswith("_") and not name.startswith("_"):
            d = self.__dict__  # a hyper-parameter changed: drop what was derived from it
            d.pop("_one_cache", None)
            d.pop("_row_buf", None)
            d.pop("_layout_ok", None)
        object.__setattr__(self, name, value)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_one_cache", None)
        state.pop("_row_buf", None)
        state.pop("_lock", None)  # (a copy gets its own: olearn._locking)
        return state

    def _n_weights(self, n_features):
        return n_features + int(self.fit_intercept)

    def _constant(self):
        """The value of the constant feature that carries the intercept (0 without one):
        ``intercept_scaling``, checked here (once per call)."""
        if not self.fit_intercept:
            return 0.0
        c = getattr(self, "intercept_scaling", 1.0)
        return check_number("intercept_scaling", c, low=0.0, low_open=True, high=MAX_CONSTANT)

    # ------------------------------------------------------------ task plumbing
    def _task(self):
        return REGRESSION

    def _kernel_labels(self, y):
        return y

    def _seen(self):
        return np.zeros(1, dtype=np.uint8)

    def _pass_arrays(self, X, sample_weight):
        """What a compiled pass over a validated batch takes and fills: the kernel's rows,
        the sample weights, and the (n, K) scores and (n,) predictions to write."""
        n = X.shape[0]
        return (kernel_rows(X, self.fit_intercept, self._constant()),
                np.ones(n) if sample_weight is None else sample_weight,
                np.empty((n, self._n_outputs()), dtype=np.float64),
                np.zeros(n, dtype=np.int64))

    def _run(self, X, y, sample_weight, order=None):
        """One compiled pass over a validated batch; returns (scores, pred)."""
        rows, sw, scores, pred = self._pass_arrays(X, sample_weight)
        params = self._packed_params()
        kernel = self.kernels[self._task()]
        state, seen = self._state_tuple(), self._seen()
        self.n_updates_ += run_chunks(
            rows, lambda part, lo, hi: kernel(part, y[lo:hi], sw[lo:hi], state, params, seen,
                                              scores[lo:hi], pred[lo:hi]), scores)
        self.t_ += X.shape[0]
        self._check_finite(scores, order)
        return scores, pred

    # ------------------------------------------------------------ divergence
    def _diverged(self, row, where):
        """The :class:`DivergenceError` of 0-based row ``row`` of ``where`` ("batch",
        "X" or "stream": see the class)."""
        left = (" (this model is too big to copy before every call: it is left diverged)"
                if self.__dict__.get("_in_atomic") == "uncopied" else "")
        return DivergenceError(None, row, where, type(self).__name__, left)

    def _check_finite(self, scores, order=None):
        """The one divergence check of a batch: every pre-update score finite (O(n K)),
        and the learner's own cheap test of the weights after the pass
        (``_weights_finite``, O(1) for the linear learners).  The error names the row in
        its fields (the command line reads them)."""
        if not np.isfinite(scores).all():
            i = int(np.argmin(np.isfinite(scores).all(axis=1)))
        elif not self._weights_finite():
            i = scores.shape[0] - 1
        else:
            return
        raise self._diverged(i, "batch") if order is None else \
            self._diverged(int(order[i]), "X")

    def _weights_finite(self):
        """Whether every state array is finite, after a batch (O(size of the model), as
        the batch's snapshot; a learner may override it with a cheaper test)."""
        return all(np.isfinite(a).all() for a in self.state_.values())

    # ------------------------------------------------------------ validation
    def _validate_X(self, X, reset):
        if not reset:
            self.check_layout()  # (rows of a fitted model: its state must fit them)
        return validate_X(self, X, reset)

    def _validate(self, X, y, sample_weight, reset):
        if self.target == "none":  # rows alone: y is never read (scikit-learn's y=None)
            X = self._validate_X(X, reset)
            y = np.zeros(X.shape[0])
            return validate_batch(self, X, y, sample_weight, False)
        return validate_batch(self, X, y, sample_weight, reset)

    def _is_fresh(self):
        return not hasattr(self, "state_")

    def __sklearn_is_fitted__(self) -> bool:
        """Whether the model has learned (the protocol's, and scikit-learn's, question)."""
        return not self._is_fresh()

    def _start(self, n_features):
        self.t_ = 0
        self.n_updates_ = 0
        self.vocabulary_ = None
        self.__dict__.pop("_row_buf", None)
        self._new_state(1, self._n_weights(n_features))

    @locked
    def widen(self, n_features: int) -> int | None:
        """Take ``n_features`` columns from now on, if more than now (a stream whose
        width grows: ``read_libsvm`` on standard input without ``n_features``): the new
        columns' weights start as a fresh model's, what was learned is kept.  Returns
        the model's width, None before it has learned."""
        return self._widen(n_features)

    def _widen(self, n_features):
        """``widen``'s work (round 2's name, which subclasses override)."""
        if self._is_fresh():
            return None
        if n_features > self.n_features_in_ and self.vocabulary_ is None:
            self.n_features_in_ = int(n_features)
            need = self._n_weights(self.n_features_in_)
            if need > self._d:
                self._resize_state(self._n_rows, need)
            self.__dict__.pop("_row_buf", None)
        return self.n_features_in_

    def _reset(self):
        for name in ("state_", "classes_", "seen_", "n_features_in_", "t_", "n_updates_",
                     "vocabulary_", "_class_index", "_classes_given", "_classes_fixed",
                     "_one_cache", "_made_as", "_layout_ok", "_hot",
                     "_row_buf"):
            self.__dict__.pop(name, None)

    # ------------------------------------------------------------ public API
    @locked
    def partial_fit(self: _L, X: Matrix, y: Vector, classes: Vector | None = None,
                    sample_weight: Vector | None = None) -> _L:
        """Continue learning from a batch, one row at a time, in order.  ``classes``
        (classifiers): every label the model may meet; a later unknown label is an
        error."""
        with self._atomic():
            self._partial(X, y, classes, sample_weight)
        return self

    def _progressive(self, X, y, classes, sample_weight, return_scores):
        """``predict_learn``'s pass (``olearn.protocol.Progressive``): one compiled pass,
        atomic; the (n, K) pre-update scores and predicted class indices."""
        with self._atomic():
            return self._partial(X, y, classes, sample_weight)

    def _partial(self, X, y, classes, sample_weight, order=None, contract=True):
        self.check_params()
        fresh = self._is_fresh()
        X, y, sample_weight = self._validate(X, y, sample_weight, reset=fresh)
        if fresh:
            self._start(X.shape[1])
        elif self.vocabulary_ is not None and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the model has "
                             f"{self.n_features_in_}")
        yk = self._kernel_labels(self._prepare_labels(y, classes, contract))
        return self._run(X, yk, sample_weight, order)

    @contextlib.contextmanager
    def _atomic(self):
        """A batch call that fails leaves the model as it was.  Bad input (X, labels,
        weights) is refused before anything changes.  For a divergence, the fitted
        attributes are copied before the call (O(size of the model)) and put back, when
        the state is at most ``SNAPSHOT_BYTES``; a bigger model is not copied on every
        call (at 2^24 weights that would cost more than the pass) and is left diverged,
        which the error says.  One-example calls are atomic on their own, without a copy
        on their common path (``_learn_example``)."""
        d = self.__dict__
        if d.get("_in_atomic"):
            yield
            return
        state = d.get("state_")
        if state is not None and sum(a.nbytes for a in state.values()) > SNAPSHOT_BYTES:
            d["_in_atomic"] = "uncopied"
            try:
                yield
            finally:
                d.pop("_in_atomic", None)
            return
        saved = {k: _copied(v) for k, v in d.items()
                 if k not in ("_one_cache", "_row_buf")}
        d["_in_atomic"] = True
        try:
            yield
        except BaseException:
            for k in [k for k in d if k not in saved]:  # (never without its _lock)
                del d[k]
            d.update(saved)
            raise
        finally:
            d.pop("_in_atomic", None)

    @locked
    def fit(self: _L, X: Matrix, y: Vector, sample_weight: Vector | None = None) -> _L:
        """Start afresh, then ``epochs`` passes over the data, each in a random order
        seeded by ``random_state`` when ``shuffle`` (the default), else in order."""
        with self._atomic():
            self._reset()
            self.check_params()
            X, y, sample_weight = self._validate(X, y, sample_weight, reset=True)
            if sample_weight is not None and not np.any(sample_weight):
                raise ValueError("Sample weights must contain at least one non-zero number.")
            classes = self._fit_classes(y)
            names = self.__dict__.get("feature_names_in_")  # (a DataFrame's columns)
            fit_passes(X, y, sample_weight, self.epochs, self.shuffle, self.random_state,
                       lambda X, y, sw, order: self._partial(X, y, classes, sw, order,
                                                             contract=False))
            if names is not None:  # the passes see arrays: keep the names validated above,
                self.feature_names_in_ = names  # as scikit-learn's fit keeps them
        return self

    def _fit_classes(self, y):
        return None

    def _prepare_labels(self, y, classes, contract=True):
        return self._check_targets(y)

    def _check_targets(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.abs(y) <= MAX_TARGET):
            raise ValueError("y contains NaN or infinity" if not np.all(np.isfinite(y)) else
                             f"y contains targets beyond +-{MAX_TARGET:g}: scale the targets")
        return y

    def _decision(self, X):
        """Scores of the current model through the scorer hook ``batch_scores``: (n,)
        for one score row, else (n, K)."""
        check_is_fitted(self, "state_")
        X = self._validate_X(X, reset=False)
        scores = np.asarray(self.batch_scores(X))
        return scores[:, 0] if scores.shape[1] == 1 else scores

    # ------------------------------------------------------------ one at a time
    def _row_lists(self, x, grow):
        """Feature columns and values of one example (dict or 1-D array) as Python
        lists, starting the model on its first example and growing the vocabulary and
        the state for new dict features when ``grow``.  The general path: a later dict
        example whose features are all known takes ``OneRow.put_known`` instead."""
        if isinstance(x, dict):
            check_values(x)  # values first: a bad example changes nothing
            if self._is_fresh():
                from ._vocabulary import Vocabulary
                self._start(0)
                self.vocabulary_ = Vocabulary()
                self.n_features_in_ = 0
            if self.vocabulary_ is None:
                cols, vals = list(x), list(x.values())
                try:
                    integral = isinstance(sum(cols), (int, np.integer))
                except TypeError:
                    integral = False
                if not integral:
                    raise ValueError("this model was trained on arrays: dict keys must be "
                                     "integer column indices")
                if cols and (min(cols) < 0 or max(cols) >= self.n_features_in_):
                    raise ValueError(f"dict key out of range 0..{self.n_features_in_ - 1}")
            else:
                cols, vals = self.vocabulary_._columns(x, grow)
                if grow and len(self.vocabulary_) > self.n_features_in_:
                    self.n_features_in_ = len(self.vocabulary_)
                    need = self._n_weights(self.n_features_in_)
                    if need > self._d:
                        self._resize_state(self._n_rows, max(need, 2 * self._d))
            return cols, vals
        x = as_floats("x", x).ravel()
        if self._is_fresh():
            self._start(x.shape[0])
            self.n_features_in_ = x.shape[0]
        if self.vocabulary_ is not None or x.shape[0] != self.n_features_in_:
            raise ValueError(f"x has {x.shape[0]} features, but the model expects "
                             f"{'a dict' if self.vocabulary_ is not None else self.n_features_in_}")
        if not np.isfinite(x).all():
            raise ValueError("x contains NaN or infinity")
        idx = np.flatnonzero(x)
        return idx.tolist(), x[idx].tolist()

    def _one_row(self, x, grow):
        """One example as the kernel's CSR triple in a reused buffer, and its length:
        ``((indptr, indices, data), n)``, columns shifted past the intercept column."""
        buf = self.__dict__.get("_row_buf")
        if buf is not None:
            n = self._put_known(buf, x, not grow)
            if n >= 0:
                return buf.row, n
        cols, vals = self._row_lists(x, grow)
        buf = self.__dict__.get("_row_buf")
        if buf is None:
            vocabulary = self.vocabulary_
            buf = self._row_buf = OneRow(int(self.fit_intercept),
                                         None if vocabulary is None else vocabulary._index,
                                         constant=self._constant())
        return buf.row, buf.put(cols, vals)

    def _put_known(self, buf, x, remember):
        """Write ``x`` into the row buffer ``buf`` when it adds nothing to the model (a
        dict of known names, or an array of the model's width) and holds finite
        numbers; returns its length, or -1 (the general path then writes it or names
        what is wrong)."""
        if type(x) is dict:
            if buf.last is x and buf.copy == x:  # predict_one(x) then learn_one(x)
                return buf.n
            return buf.put_known(x, remember)
        if (type(x) is np.ndarray and buf.index is None and x.dtype == np.float64 and
                x.ndim == 1 and x.flags.c_contiguous and
                x.shape[0] == self.n_features_in_ and self.vocabulary_ is None):
            return buf.put_dense(x)  # (an array model's example: one compiled call)
        return -1

    def _one_call(self):
        call = self.__dict__.get("_one_cache")
        if call is None:
            self.check_params()
            self.check_layout()  # (also where an override of check_params skips it)
            task = self._task()
            call = self._one_cache = _OneCall(
                task, self.kernels[task], self._state_tuple(),
                self._packed_params(), self._seen(), self._n_outputs())
        return call

    def _one_label(self, y):
        return self._check_targets(np.array([y]))[0]

    def _learn_row(self, row, y, sample_weight):
        """The kernel on one prepared row with label ``y``; returns the call (its
        ``out``, ``pred``).  The weight is checked before the label is registered."""
        if sample_weight != 1.0:
            sample_weight = check_weight(sample_weight)
        label = self._one_label(y)
        call = self.__dict__.get("_one_cache") or self._one_call()
        y_, sw_, out_, _ = call.views
        y_[0] = label
        sw_[0] = sample_weight
        n = (call.entry or call._first)(row, *call.rest)
        fitted = self.__dict__  # counters: skip __setattr__ on the per-example path
        if not (math.isfinite(out_[0]) if call.K == 1 else
                all(map(math.isfinite, out_.tolist()))):  # (the kernel did not update)
            raise self._diverged(fitted["t_"], "stream")
        fitted["n_updates_"] += n
        fitted["t_"] += 1
        return call

    def _learn_example(self, x, y, sample_weight):
        """One example learned atomically (``learn_one``, ``predict_learn_one``): a call
        that raises leaves the model as it was, adaptive statistics included.

        Nothing is copied on the common path: the attributes are kept by reference (a
        dict of about 20 names), which puts back what the example added (a fresh start,
        new features of the vocabulary, a new class and the arrays grown for them).  The
        arrays that the kernel changes in place are copied only for an extreme example
        (``olearn._compiled.finite``: a value beyond 1e30 or below 1e-30, a weight above
        1e6), the examples that can overflow the state while the score stays finite or
        make a rule raise mid-update, and after it the whole state is checked; and for
        every example of a model that has been near overflow (``_hot``: a score beyond
        ``HOT``, an extreme example or a failed call since ``fit``).  An ordinary
        example of any other model cannot make a score or the state non-finite: the
        kernel would first score it, change its round's bookkeeping and work vectors,
        and find the score non-finite, which needs weights near 1e278."""
        if sample_weight != 1.0:
            sample_weight = check_weight(sample_weight)  # (before anything can change)
        d = self.__dict__
        buf = d.get("_row_buf")
        if buf is not None and "_hot" not in d and self._label_known(y):
            # the common case, known names (or an array) and a known label: nothing can
            # join the model (no name, no class, no array grown): nothing to keep
            if self._put_known(buf, x, False) >= 0 and _ordinary(buf, sample_weight):
                try:
                    return self._learn_ordinary(buf.row, y, sample_weight)
                except BaseException:
                    d["_hot"] = True  # (as the general path marks a failed call)
                    raise
        kept = d.copy()
        state = kept.get("state_")
        arrays = None if state is None else state.copy()
        vocabulary = kept.get("vocabulary_")
        known = 0 if vocabulary is None else len(vocabulary)
        copies = None
        try:
            row, _ = self._one_row(x, grow=True)
            if "_hot" not in d and _ordinary(d["_row_buf"], sample_weight):
                return self._learn_ordinary(row, y, sample_weight)
            copies = {k: (a, a.copy()) for k, a in d["state_"].items()}
            seen = d.get("seen_")
            if seen is not None:
                copies[None] = (seen, seen.copy())
            call = self._learn_row(row, y, sample_weight)
            if not self._all_finite():
                raise self._diverged(d["t_"] - 1, "stream")
            d["_hot"] = True
            return call
        except BaseException:
            self._put_back(kept, arrays, known, copies)
            if "state_" in d:
                d["_hot"] = True
            raise

    def _learn_ordinary(self, row, y, sample_weight):
        """``_learn_row`` of an ordinary example (:func:`_ordinary`) on a model that is
        not hot; the model becomes hot when the row's score passes ``HOT``."""
        call = self._learn_row(row, y, sample_weight)
        out = call.views[2]
        if (abs(out[0]) if call.K == 1 else max(map(abs, out.tolist()))) > HOT:
            self.__dict__["_hot"] = True
        return call

    def _all_finite(self):
        """Every state array finite (after an extreme example: O(size of the model))."""
        return all(np.isfinite(a).all() for a in self.state_.values()
                   if a.dtype.kind == "f")

    def _put_back(self, kept, arrays, known, copies):
        """The attributes as ``kept``, the state's arrays the objects of ``arrays``, with
        the contents of ``copies`` (``{slot: (array, copy)}``, ``None``: ``seen_``) put
        back into the arrays copied; the vocabulary cut back to ``known`` names."""
        d = self.__dict__
        d.clear()
        d.update(kept)
        if arrays is not None:
            # an array copied before the kernel: its contents back (the call may have
            # changed it in place and then replaced it: a lazy state settled before the
            # arrays grew for a new class)
            for k, (a, copy) in (copies or {}).items():
                if a is (kept.get("seen_") if k is None else arrays.get(k)):
                    np.copyto(a, copy)
            kept["state_"].clear()
            kept["state_"].update(arrays)
        vocabulary = kept.get("vocabulary_")
        if vocabulary is not None and len(vocabulary) > known:
            vocabulary._truncate(known)
            d.pop("_row_buf", None)

    @locked
    def learn_one(self: _L, x: Row, y: Label, sample_weight: float = 1.0,
                  w: float | None = None) -> _L:
        """Learn from one example ``x`` (a dict ``{name: value}`` or a 1-D array);
        ``w`` is River's name of ``sample_weight``."""
        if w is not None:
            sample_weight = _weight(sample_weight, w)
        self._check_one_label(y)  # (before the example can grow the model)
        self._learn_example(x, y, sample_weight)
        return self

    def _check_one_label(self, y):
        """Raise on a label the model cannot take, before anything changes."""
        self._one_label(y)

    def _label_known(self, y):
        """Whether learning label ``y`` adds nothing to the model (a target without
        classes adds nothing; a classifier answers whether ``y`` is a known class)."""
        return True

    def _scores_one(self, x):
        """The current model's scores of one example, (K,) (possibly a buffer reused by
        the next call); None before any example."""
        if self._is_fresh():
            return None
        if "_layout_ok" not in self.__dict__:  # (dropped when a hyper-parameter is set)
            self.check_layout()
            self.__dict__["_layout_ok"] = True
        row, n = self._one_row(x, grow=False)
        return self._row_scores(row, n)

    def _row_scores(self, row, n):
        """Scores of the one-row CSR triple ``row`` of length ``n`` (the constant
        feature first with ``fit_intercept``): ``batch_scores`` of that row as a one-row
        matrix (a family with a faster one-row path overrides this)."""
        return np.asarray(self.batch_scores(self._row_matrix(row, n)))[0]

    def _scorer_row_scores(self, row, n):
        """Scores of one row by the declared score on the one-row buffer, through the
        compiled scorer's entry point (no scipy matrix per row), reading the state only
        (a scratch slot the score fills is zeros again after): the fast ``_row_scores``
        of a family whose declared score needs no more than the state."""
        call = self.__dict__.get("_one_cache") or self._one_call()
        if call.scorer is None:
            from ._compiled import entry_point as _entry_point
            kernel = self.kernels.scorer
            args = (row, call.state, call.pout[None])
            kernel(*args)
            call.scorer = (_entry_point(kernel, args), args[2])
        else:
            call.scorer[0](row, call.state, call.scorer[1])
        return call.pout

    def _row_matrix(self, row, n):
        """The one-row CSR triple as a 1-row CSR matrix of the model's columns."""
        import scipy.sparse as sp
        _, indices, data = row
        b = int(self.fit_intercept)
        return sp.csr_matrix((data[b:n].copy(), indices[b:n] - b, np.array([0, n - b])),
                             shape=(1, self.n_features_in_))

    @locked
    def predict_one(self, x: Row) -> Label:
        """Prediction for one example (dict or 1-D array) from the current model: a
        classifier answers None until it knows a class, a regressor 0.0."""
        return self._predict_from_scores(self._scores_one(x))

    # ------------------------------------------------------------ persistence
    def explicit_state(self) -> dict[str, NDArray[Any]]:
        """The state with its lazy parts made explicit (a scale folded into the weights,
        averaged weights formed, owed shrinks settled), name -> array, copied: what
        ``olearn.mix`` combines slot by slot by each slot's declared rule.  A family with
        a lazy state defines ``_explicit_state`` (on a private copy here)."""
        if self._is_fresh():
            raise ValueError(f"{type(self).__name__} is not fitted: no state to make "
                             "explicit")
        import copy
        model = copy.deepcopy(self)
        explicit = getattr(model, "_explicit_state", None)
        state = explicit() if explicit is not None else model.state_
        return {k: np.array(v) for k, v in state.items()}

    def export_state(self) -> State:
        """The fitted model as (JSON-able metadata, named arrays): what ``save`` writes
        and ``from_state`` reads back (``olearn.persistence``).  A model whose
        parameters that shape the state were set since it learned is refused, as every
        call but ``fit`` refuses it (``check_layout``): saved, it would load as a model of
        the new layout over the old arrays."""
        self.check_layout()
        meta = {"n_features_in_": int(self.n_features_in_), "t_": int(self.t_),
                "n_updates_": int(self.n_updates_)}
        if self.vocabulary_ is not None:
            meta["vocabulary"] = self.vocabulary_.to_list()
        return meta, self._export_state(self._n_weights(self.n_features_in_))

    def _export(self):  # round 2's name
        return self.export_state()

    @classmethod
    def from_state(cls: type[_L], params: dict[str, Any], meta: dict[str, Any],
                   arrays: dict[str, NDArray[Any]]) -> _L:
        """A model from ``export_state``'s output (and the hyper-parameters), every part
        checked: the parameters as ``fit`` checks them, the counters and the vocabulary,
        the labels, then each state array against its slot's declaration."""
        if not isinstance(params, dict) or not isinstance(meta, dict):
            raise ValueError("parameters and metadata must be JSON objects")
        model = cls(**params)
        model.check_params()
        model._constant()
        n_features = _count(meta, "n_features_in_")
        model.t_ = _count(meta, "t_")
        model.n_updates_ = _count(meta, "n_updates_")
        model.n_features_in_ = n_features
        model.vocabulary_ = None
        if "vocabulary" in meta:
            from ._vocabulary import Vocabulary
            names = meta["vocabulary"]
            if not isinstance(names, list) or len(names) != n_features or not all(
                    type(n) in (str, int, float, bool) for n in names):
                raise ValueError(f"the vocabulary must list {n_features} feature names")
            model.vocabulary_ = Vocabulary.from_list(names)
        model._import_labels(meta, arrays)
        model._import_state(arrays, model._expected_rows(), model._n_weights(n_features))
        known = {k for k in arrays if k.startswith("state/")} | set(model._label_arrays())
        if set(arrays) - known:
            raise ValueError(f"unknown arrays {sorted(set(arrays) - known)}")
        return model

    @classmethod
    def _import(cls, params, meta, arrays):  # round 2's name
        return cls.from_state(params, meta, arrays)

    # hooks of the classifiers' label map (a regressor has none)
    def _import_labels(self, meta, arrays):
        pass

    def _label_arrays(self):
        return ()

    def _expected_rows(self):
        """Number of class rows the state must have (1: binary or regression)."""
        return 1

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def fit_passes(X: Any, y: Any, sample_weight: Any, epochs: int, shuffle: bool,
               random_state: Any, run: Callable[..., object]) -> None:
    """``fit``'s passes over validated rows: ``epochs`` calls ``run(X, y, sample_weight,
    order)``, each over the rows in a fresh random order from ``random_state`` when
    ``shuffle`` (``order``: the permutation, which a divergence's row is mapped
    through), else in order (``order`` None)."""
    rng = _rng(random_state) if shuffle else None
    for _ in range(max(1, int(epochs))):
        if rng is None:
            run(X, y, sample_weight, None)
        else:
            order = rng.permutation(X.shape[0])
            run(X[order], y[order], None if sample_weight is None else sample_weight[order],
                order)


def check_work_vectors(model: _L, *names: str) -> _L:
    """A loaded model's work vectors (slots a score fills with a row and clears after)
    must hold zeros: the kernels add a row into them and read the sums; returns it."""
    for name in names:
        if model.state_[name].any():
            raise ValueError(f"state array {name} (a work vector) must hold zeros")
    return model


def _ordinary(buf, sw):
    """Whether the example in the row buffer ``buf`` and its weight ``sw`` are ordinary:
    written by the compiled dense writer (which writes no extreme value) with a weight
    that is not extreme, or checked by ``extreme_row``."""
    return buf.plain and sw <= HIGH_WEIGHT or not _extreme(buf.indptr, buf.data, sw)


def _extreme(indptr, data, sw):
    """``extreme_row`` through its compiled entry point (a dispatch through numba's
    dispatcher cost about as much as the check)."""
    global _EXTREME
    if _EXTREME is None:
        args = (indptr, data, float(sw))
        _extreme_row(*args)
        _EXTREME = _entry_point(_extreme_row, args)
    return _EXTREME(indptr, data, float(sw))


_EXTREME = None


def _copied(v):
    """A value of the model's ``__dict__`` as a snapshot keeps it: arrays, the state
    dict and the label map copied; other values are replaced, never mutated, in place."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, dict):
        return {k: (a.copy() if isinstance(a, np.ndarray) else a) for k, a in v.items()}
    if hasattr(v, "_snapshot"):
        return v._snapshot()
    return v


def _count(meta, key):
    """A saved counter: a non-negative int."""
    v = meta.get(key)
    if type(v) is not int or v < 0:
        raise ValueError(f"{key} must be a non-negative integer, got {v!r}")
    return v


class OnlineClassifier(LabelMixin, ClassifierMixin, OnlineLearner):
    """Binary and multiclass classification: label bookkeeping on top of the base."""

    target = "label"
    _capabilities = {"probabilistic": True}   # (the logistic link of the margin at least)

    def _progressive_output(self, scores, pred, return_scores):
        if return_scores:
            return scores[:, 0].copy() if scores.shape[1] == 1 else scores
        pred = np.minimum(pred, len(self.classes_) - 1)
        return self.classes_[pred]

    @locked
    def decision_function(self, X: Matrix) -> NDArray[Any]:
        """The model's scores: shape (n,) for two classes (> 0 means ``classes_[1]``),
        (n, K) for K > 2 classes (``w.x + b`` for a linear model)."""
        return self._decision(X)

    @locked
    def predict(self, X: Matrix) -> NDArray[Any]:
        """Predicted labels (among the classes seen so far)."""
        scores = self.decision_function(X)
        return self.classes_[self._class_of(scores.reshape(scores.shape[0], -1))]

    def _predict_from_scores(self, scores):
        classes = self.__dict__.get("classes_")
        if scores is None or classes is None or not len(classes):
            return None
        if scores.shape[0] == 1:  # (a Python float's comparison: 0.4 us less a call)
            return classes[1 if scores.item(0) > 0 and len(classes) > 1 else 0]
        return classes[self._class_of(scores.reshape(1, -1))[0]]

    @locked
    def predict_learn_one(self, x: Row, y: Label, sample_weight: float = 1.0,
                          return_scores: bool = False, w: float | None = None) -> Any:
        """Learn from one example and return the prediction made just before (what
        ``predict_one(x)`` answered), in one compiled call; with ``return_scores`` the
        scores instead (as ``predict_learn``'s: a float for two classes)."""
        if w is not None:
            sample_weight = _weight(sample_weight, w)
        self._check_one_label(y)
        classes = self.__dict__.get("classes_")
        known = 0 if classes is None else len(classes)
        before = classes[0] if known == 1 else None  # type: ignore[index]
        call = self._learn_example(x, y, sample_weight)
        if return_scores:
            return float(call.out[0]) if call.K == 1 else call.out.copy()
        if known < 2:
            return before
        classes = self.classes_
        return classes[min(call.views[3][0], len(classes) - 1)]

    @locked
    def predict_proba(self, X: Matrix) -> NDArray[Any]:
        """Probabilities of ``classes_``, (n, K), through the logistic link of the
        margin, as River's ``PAClassifier`` and ``Perceptron`` give them: the sigmoid of
        the score for two classes, the softmax of the scores over the classes seen for
        more.  For a learner of the logistic loss (OGD, FTRL, ... with
        ``loss="logistic"``) that is the model the loss fits; for a margin learner
        (perceptron, PA, ...) it is a link of its margin, monotone in the score, so the
        most probable class is ``predict``'s.  (The Gaussian-margin learners and the
        networks give their own.)"""
        return logistic_proba(self, self.decision_function(X))

    @locked
    def predict_log_proba(self, X: Matrix) -> NDArray[Any]:
        """``log(predict_proba(X))``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    @locked
    def predict_proba_one(self, x: Row) -> dict[Any, float]:
        """``{label: probability}`` for one example, as ``predict_proba`` gives them
        ({} before any class is known).  Where ``predict_proba`` is the logistic link
        of the scores, the one row's scores go through it in plain Python (no per-call
        setup, no matrix)."""
        d = self.__dict__
        classes = d.get("classes_")
        if classes is None or not len(classes) or self._is_fresh():
            return {}
        cls = type(self)
        link = _ONE_ROW_LINK.get(cls)
        if link is None:  # (once per class: whether predict_proba is the logistic link)
            link = _ONE_ROW_LINK[cls] = cls.predict_proba in LOGISTIC_PROBAS
        if not link:
            return self._proba_one(x, classes)
        if "_layout_ok" not in d:  # (as _scores_one, inlined: the per-call cost counts)
            self.check_layout()
            d["_layout_ok"] = True
        scores = self._row_scores(*self._one_row(x, False))
        if len(scores) == 1 and len(classes) == 2:
            v = scores.item(0)
            if v >= 0.0:
                p = 1.0 / (1.0 + math.exp(-v))
            else:
                v = math.exp(v)
                p = v / (1.0 + v)
            c0, c1 = classes.tolist()
            return {c0: 1.0 - p, c1: p}
        return logistic_one(scores, classes, d.get("seen_"))

    def _proba_one(self, x, classes):
        """``predict_proba_one``'s answer for a fitted model whose probabilities are
        not the logistic link: ``predict_proba`` of the one row (a family with a faster
        one-row path overrides this)."""
        p = self.predict_proba(self._one_matrix(x))[0]
        return dict(zip(classes.tolist(), p.tolist()))

    def _one_matrix(self, x):
        """One example as a 1-row matrix of the model's columns (unknown features dropped)."""
        if type(x) is not dict:
            return as_floats("x", x).reshape(1, -1)
        return self._row_matrix(*self._one_row(x, grow=False))

    # ------------------------------------------------------------ persistence
    def export_state(self) -> State:
        meta, arrays = super().export_state()
        labels, label_arrays = self._export_labels()
        meta.update(labels)
        arrays.update(label_arrays)
        return meta, arrays

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


LOGISTIC_PROBAS.add(OnlineClassifier.predict_proba)
#: class -> whether its ``predict_proba`` is the logistic link of its scores (then
#: ``predict_proba_one`` takes the one-row path), filled on first use: a cache, not a
#: declaration a model writes (a model declares nothing private)
_ONE_ROW_LINK: dict[type, bool] = {}  # (the fast one-example link)


class OnlineRegressor(RegressorMixin, OnlineLearner):
    """Regression: one weight row, targets as floats."""

    def _task(self):
        return REGRESSION

    def _progressive_output(self, scores, pred, return_scores):
        return scores[:, 0].copy()

    @locked
    def predict(self, X: Matrix) -> NDArray[Any]:
        """Predicted targets (the model's score)."""
        return self._decision(X)

    def _predict_from_scores(self, scores):
        if scores is None:
            return 0.0
        return float(scores[0])

    @locked
    def predict_learn_one(self, x: Row, y: Label, sample_weight: float = 1.0,
                          return_scores: bool = False, w: float | None = None) -> Any:
        """Learn from one example and return the prediction made just before (what
        ``predict_one(x)`` answered: the score), in one compiled call."""
        if w is not None:
            sample_weight = _weight(sample_weight, w)
        self._check_one_label(y)
        return float(self._learn_example(x, y, sample_weight).out[0])

    def _one_label(self, y):
        y = float(y)
        if not abs(y) <= MAX_TARGET:
            raise ValueError("y contains NaN or infinity" if not math.isfinite(y) else
                             f"y beyond +-{MAX_TARGET:g}: scale the targets")
        return y


class OnlineUnlabelled(OnlineLearner):
    """Models that learn from rows alone (``target = "none"``: clustering,
    decomposition, anomaly detection): the calls of the protocol without ``y``.

    Not a family base: it only says that there is no target.  Everything else is the
    base's, read from the declarations: the state from ``slots`` (an axis may be a
    hyper-parameter's name, ``("n_clusters", "d")``), the pass from ``kernels``
    (``declare(..., unlabelled=rule)``: the driver's ``UNLABELLED`` task, ``y`` zeros and
    unread), dense, CSR and dict rows (the vocabulary grows), atomic batches,
    ``export_state``/``from_state`` with every array checked against its slot,
    widening, ``olearn.mix`` by the slots' rules, the tags.  A model gives ``outputs``
    (the parameter that sizes a row's scores, else one score), ``batch_scores(X)``, and
    says what its scores mean: ``_predict_from_scores`` (``predict_one``'s answer from a
    row's scores), ``_score_from_scores`` (``score_one``'s), ``_progressive_output``
    (``predict_learn``'s).  ``y`` where scikit-learn passes one (``fit(X, y)`` in a
    pipeline) is ignored, as scikit-learn's clusterers and transformers do.
    """

    target = "none"
    fit_intercept = False  # (a row is its features: no constant column)

    @property
    def _supervised(self):  # River: an unsupervised model (learn_one(x))
        return False

    def _task(self):
        return UNLABELLED

    def _one_label(self, y):
        return 0.0

    def _check_one_label(self, y):
        pass

    def _estimator_kind(self):
        return None

    def __sklearn_tags__(self):
        """scikit-learn's tags: no target; a transformer where the model transforms,
        a clusterer where it clusters (``fit_predict``)."""
        from sklearn.utils import TransformerTags
        tags = super().__sklearn_tags__()
        if hasattr(self, "fit_predict"):
            tags.estimator_type = "clusterer"
        if hasattr(self, "transform"):
            tags.transformer_tags = TransformerTags()
        return tags

    @locked
    def fit(self: _L, X: Matrix, y: Any = None, sample_weight: Vector | None = None) -> _L:
        """Start afresh, then ``epochs`` passes over the rows of ``X`` (in a random order
        seeded by ``random_state`` when ``shuffle``); ``y`` is ignored."""
        return super().fit(X, None, sample_weight)  # type: ignore[arg-type]  # (no y)

    @locked
    def partial_fit(self: _L, X: Matrix, y: Any = None,  # type: ignore[override]
                    sample_weight: Vector | None = None) -> _L:  # (no y, no classes)
        """Continue learning from the rows of ``X``, in order; ``y`` is ignored."""
        with self._atomic():
            self._partial(X, None, None, sample_weight)
        return self

    @locked
    def predict_learn(self, X: Matrix, y: Any = None,  # type: ignore[override]
                      return_scores: bool | str = False,
                      sample_weight: Vector | None = None) -> Any:  # (no y, no classes)
        """The online protocol over a batch: each row's answer (or, with
        ``return_scores``, its scores; ``"both"``: the pair) from the model before that
        row, the model learning the rows in order."""
        scores, pred = self._progressive(X, None, None, sample_weight, return_scores)
        if isinstance(return_scores, str) and return_scores == "both":
            return (self._progressive_output(scores, pred, False),
                    self._progressive_output(scores, pred, True))
        return self._progressive_output(scores, pred, return_scores)

    def _progressive_output(self, scores, pred, return_scores):
        return scores if return_scores else self._predict_rows(scores)

    def _predict_rows(self, scores):
        """The answers of rows from their (n, outputs) scores (override)."""
        return scores

    def _predict_from_scores(self, scores):
        return None if scores is None else self._predict_rows(scores.reshape(1, -1))[0]

    def _score_from_scores(self, scores):
        """``score_one``'s number from a row's scores (override)."""
        return None if scores is None else float(scores[0])

    @locked
    def learn_one(self: _L, x: Row, y: Any = None, sample_weight: float = 1.0,
                  w: float | None = None) -> _L:
        """Learn from one row ``x`` (a dict ``{name: value}``, the vocabulary growing, or
        a 1-D array); ``w`` is River's name of ``sample_weight``."""
        if w is not None:
            sample_weight = _weight(sample_weight, w)
        self._learn_example(x, None, sample_weight)
        return self

    @locked
    def predict_learn_one(self, x: Row, sample_weight: float = 1.0,
                          return_scores: bool = False, w: float | None = None) -> Any:
        """Learn from one row and return the answer (or scores) of the model before it,
        in one compiled call."""
        if w is not None:
            sample_weight = _weight(sample_weight, w)
        out = self._learn_example(x, None, sample_weight).out.copy()
        return out if return_scores else self._predict_from_scores(out)

    @locked
    def score_one(self, x: Row) -> float | None:
        """The current model's score of one row (None before any row)."""
        return self._score_from_scores(self._scores_one(x))

    def score_many(self, X: Any) -> Any:
        """``score_one`` of each row of DataFrame ``X``: a Series on its index (River's
        mini-batch API, :mod:`olearn._many`; ``learn_many(X)`` learns them)."""
        from ._many import score_many
        return score_many(self, X)

    def _scores(self, X):
        """The (n, outputs) scores of the rows of ``X`` from the current model."""
        check_is_fitted(self, "state_")
        X = self._validate_X(X, reset=False)
        return np.asarray(self.batch_scores(X))
