"""Estimator layer: what every supervised online learner shares.

A learner class declares

* ``_slots``: its state, as :class:`Slot` records (name, axes over classes ``"K"`` and
  weights ``"d"``, initial value).  ``W`` (K, d) comes first for linear learners.
  From the slots the base class allocates, grows (new classes, new dict features),
  converts (binary to multiclass), saves and loads the state: no learner writes that;
* ``_kernels``: its compiled entry points by task (``driver.BINARY``,
  ``driver.MULTICLASS``, ``driver.REGRESSION``), each a two-line ``@njit(cache=True)``
  function calling :func:`olearn._compiled.driver.online_pass` with its update rule;
* ``_kernel_params()``: its hyper-parameters as a tuple of floats, and
  ``_check_params()`` to validate them (once per call).

Conventions (documented in ARCHITECTURE.md): weights start at zero; with
``fit_intercept`` a constant feature 1 is column 0 of ``W`` (it takes part in norms and
updates like any other feature); ``coef_`` excludes it and ``intercept_`` is its weight.

Labels: two classes are kept sorted in ``classes_`` and mapped to -1/+1
(``classes_[1]`` is +1, the side of positive decision values).  Every binary rule is
symmetric under (y, w) -> (-y, -w), so when a second label arrives that sorts before
the first, negating the signed state gives exactly the model learned with that order.
A third label switches the model to K weight rows (``W[0] = -w/2``, ``W[1] = +w/2``,
which keeps every margin; later classes start at zero).  So: the first two labels are
kept sorted, and the labels new in a later call are appended to ``classes_``, sorted
among themselves (one example at a time, that is the order they first appear; ``fit``
sees every label at once and sorts them all, scikit-learn's convention).  Labels given
up front with
``classes=`` keep the given order.  Only classes already seen take part in predictions
and max-score updates.
"""
import math
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._rows import kernel_rows
from ._compiled.driver import BINARY, MULTICLASS, REGRESSION


class Slot(NamedTuple):
    """One state array of a learner.

    ``axes``: ``"K"`` (class rows), ``"d"`` (weights, intercept included) or an int.
    ``fill``: initial value, a float or the name of a hyper-parameter.
    ``eye``: for two trailing ``"d"`` axes, ``fill`` on the diagonal and 0 elsewhere.
    ``signed``: linear in the weights (flips with the binary label sign, halves into
    the two first class rows when the model becomes multiclass).
    """
    name: str
    axes: tuple
    fill: object = 0.0
    eye: bool = False
    signed: bool = False


class OnlineLearner(BaseEstimator):
    """Base class: the online protocol, the scikit-learn contract, one-at-a-time input."""

    _slots = (Slot("W", ("K", "d"), 0.0, signed=True),)
    _kernels = {}

    # ------------------------------------------------------------ to override
    def _kernel_params(self):
        return ()

    def _check_params(self):
        pass

    # ------------------------------------------------------------ state
    def _fill(self, slot):
        return float(getattr(self, slot.fill)) if isinstance(slot.fill, str) else slot.fill

    def _alloc(self, slot, K, d):
        shape = tuple(K if a == "K" else d if a == "d" else a for a in slot.axes)
        if slot.eye:
            arr = np.zeros(shape)
            diag = np.arange(d)
            arr[..., diag, diag] = self._fill(slot)
            return arr
        return np.full(shape, self._fill(slot), dtype=np.float64)

    def _new_state(self, K, d):
        self.__dict__.pop("_one_cache", None)
        self.state_ = {s.name: self._alloc(s, K, d) for s in self._slots}

    def _resize_state(self, K, d):
        """Grow the class rows to ``K`` and the weight axes to ``d``, keeping what is learned."""
        self.__dict__.pop("_one_cache", None)
        for s in self._slots:
            old = self.state_[s.name]
            new = self._alloc(s, K, d)
            new[tuple(slice(0, n) for n in old.shape)] = old
            self.state_[s.name] = new

    @property
    def _d(self):
        return self.state_["W"].shape[-1] if "W" in self.state_ else self._slot_d()

    def _slot_d(self):
        s = self._slots[0]
        return self.state_[s.name].shape[s.axes.index("d")]

    def _n_weights(self, n_features):
        return n_features + int(self.fit_intercept)

    # ------------------------------------------------------------ task plumbing
    def _task(self):
        return REGRESSION

    def _kernel_labels(self, y):
        return y

    def _seen(self):
        return np.zeros(1, dtype=np.uint8)

    def _run(self, X, y, sample_weight):
        """One compiled pass over a validated batch; returns (scores, pred)."""
        rows = kernel_rows(X, self.fit_intercept)
        n = X.shape[0]
        sw = np.ones(n) if sample_weight is None else sample_weight
        W = self.state_[self._slots[0].name]
        scores = np.empty((n, W.shape[0]), dtype=np.float64)
        pred = np.zeros(n, dtype=np.int64)
        state = tuple(self.state_[s.name] for s in self._slots)
        params = tuple(float(p) for p in self._kernel_params())
        kernel = self._kernels[self._task()]
        self.n_updates_ += int(kernel(rows, y, sw, state, params, self._seen(), scores, pred))
        self.t_ += n
        return scores, pred

    # ------------------------------------------------------------ validation
    def _validate_X(self, X, reset):
        return validate_data(self, X, reset=reset, accept_sparse="csr", dtype=np.float64,
                             order="C")

    def _validate(self, X, y, sample_weight, reset):
        X = self._validate_X(X, reset)
        y = column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
        if X.shape[0] == 0:
            raise ValueError("Found array with 0 sample(s): need at least one row")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            if sample_weight.ndim == 0:
                sample_weight = np.full(X.shape[0], float(sample_weight))
            if sample_weight.shape != (X.shape[0],):
                raise ValueError(f"sample_weight has shape {sample_weight.shape}, expected "
                                 f"({X.shape[0]},)")
            if not np.all(np.isfinite(sample_weight)) or np.any(sample_weight < 0):
                raise ValueError("sample_weight must be finite and non-negative")
        return X, y, sample_weight

    def _is_fresh(self):
        return not hasattr(self, "state_")

    def _start(self, n_features):
        self.t_ = 0
        self.n_updates_ = 0
        self.vocabulary_ = None
        self._new_state(1, self._n_weights(n_features))

    def _reset(self):
        for name in ("state_", "classes_", "seen_", "n_features_in_", "t_", "n_updates_",
                     "vocabulary_", "_class_index", "_classes_given"):
            self.__dict__.pop(name, None)

    # ------------------------------------------------------------ public API
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue learning from a batch, one row at a time, in order."""
        self._partial(X, y, classes, sample_weight)
        return self

    def predict_learn(self, X, y, return_scores=False):
        """The online protocol in one compiled pass.

        Returns, for each row in order, the prediction (or with ``return_scores`` the
        decision value) made before that row's update, and leaves the model updated.
        """
        scores, pred = self._partial(X, y, None, None)
        return self._progressive_output(scores, pred, return_scores)

    def _partial(self, X, y, classes, sample_weight):
        self._check_params()
        fresh = self._is_fresh()
        X, y, sample_weight = self._validate(X, y, sample_weight, reset=fresh)
        if fresh:
            self._start(X.shape[1])
        elif self.vocabulary_ is not None and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the model has "
                             f"{self.n_features_in_}")
        yk = self._kernel_labels(self._prepare_labels(y, classes))
        return self._run(X, yk, sample_weight)

    def fit(self, X, y, sample_weight=None):
        """Start afresh, then ``epochs`` passes over the data (shuffled if ``shuffle``)."""
        self._reset()
        self._check_params()
        X, y, sample_weight = self._validate(X, y, sample_weight, reset=True)
        if sample_weight is not None and not np.any(sample_weight):
            raise ValueError("Sample weights must contain at least one non-zero number.")
        classes = self._fit_classes(y)
        rng = np.random.default_rng(self.random_state)
        for _ in range(max(1, int(self.epochs))):
            if self.shuffle:
                order = rng.permutation(X.shape[0])
                Xe, ye = X[order], y[order]
                swe = None if sample_weight is None else sample_weight[order]
            else:
                Xe, ye, swe = X, y, sample_weight
            self._partial(Xe, ye, classes, swe)
        return self

    def _fit_classes(self, y):
        return None

    def _prepare_labels(self, y, classes):
        return self._check_targets(y)

    def _check_targets(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity")
        return y

    def _decision(self, X):
        """Scores ``w.x + b`` of the current model (one column per class if multiclass)."""
        check_is_fitted(self, "state_")
        X = self._validate_X(X, reset=False)
        W = self._predict_weights()
        nf = X.shape[1]
        scores = X @ W[:, int(self.fit_intercept):int(self.fit_intercept) + nf].T
        scores = np.asarray(scores)
        if self.fit_intercept:
            scores = scores + W[:, 0]
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _predict_weights(self):
        """The weights used to predict (averaging learners override this)."""
        return self.state_["W"]

    @property
    def coef_(self):
        check_is_fitted(self, "state_")
        W = self._predict_weights()
        i = int(self.fit_intercept)
        return W[:, i:i + self.n_features_in_].copy()

    @property
    def intercept_(self):
        check_is_fitted(self, "state_")
        W = self._predict_weights()
        return W[:, 0].copy() if self.fit_intercept else np.zeros(W.shape[0])

    # ------------------------------------------------------------ one at a time
    def _row_lists(self, x, grow):
        """Feature columns and values of one example (dict or 1-D array) as Python lists."""
        if isinstance(x, dict):
            if self._is_fresh():
                from .io.dicts import Vocabulary
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
                        self._resize_state(self.state_[self._slots[0].name].shape[0],
                                           max(need, 2 * self._d))
            try:
                finite = math.isfinite(sum(vals))
            except (TypeError, OverflowError):
                finite = False
            if not finite:
                for c, v in zip(cols, vals):
                    if isinstance(v, (str, bytes)) or not math.isfinite(v):
                        raise ValueError(f"feature {c!r} has value {v!r}: x contains NaN, "
                                         "infinity or a non-number")
            return cols, vals
        x = np.asarray(x, dtype=np.float64).ravel()
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
        """One example as the kernel's CSR triple in a reused buffer, and its length.

        Columns are sorted (so that sums run in the same order as for a batch) and
        shifted past the intercept column."""
        cols, vals = self._row_lists(x, grow)
        b = int(self.fit_intercept)
        n = len(cols) + b
        buf = self.__dict__.get("_row_buf")
        if buf is None or buf[1].shape[0] < n:
            cap = max(64, 2 * n)
            buf = self._row_buf = (np.zeros(2, np.int32), np.zeros(cap, np.int32),
                                   np.zeros(cap))
        indptr, indices, data = buf
        if b:
            indices[0] = 0
            data[0] = 1.0
        if cols:
            ordered = sorted(cols)
            if ordered != cols:
                vals = [vals[i] for i in sorted(range(len(cols)), key=cols.__getitem__)]
                cols = ordered
            indices[b:n] = cols
            data[b:n] = vals
            if b:
                indices[1:n] += 1
        indptr[1] = n
        return buf, n

    def __setattr__(self, name, value):
        if not name.endswith("_") and not name.startswith("_"):
            self.__dict__.pop("_one_cache", None)  # a hyper-parameter changed
        object.__setattr__(self, name, value)

    def _one_call(self):
        """The kernel and its constant arguments for one-row calls, cached between calls;
        dropped whenever the state arrays are replaced or a hyper-parameter is set."""
        cached = self.__dict__.get("_one_cache")
        if cached is None:
            self._check_params()
            task = self._task()
            state = tuple(self.state_[s.name] for s in self._slots)
            cached = (task, state, tuple(float(p) for p in self._kernel_params()),
                      self._kernels[task], self._seen(), np.empty((1, state[0].shape[0])),
                      np.zeros(1, dtype=np.int64), np.ones(1), np.empty(1))
            self._one_cache = cached
        return cached

    def _one_label(self, y):
        return self._check_targets(np.array([y]))[0]

    def learn_one(self, x, y, sample_weight=1.0):
        """Learn from one example ``x`` (a dict ``{name: value}`` or a 1-D array)."""
        row, _ = self._one_row(x, grow=True)
        label = self._one_label(y)
        if not sample_weight >= 0:
            raise ValueError("sample_weight must be finite and non-negative")
        task, state, params, kernel, seen, scores, pred, sw, yk = self._one_call()
        yk[0] = label
        sw[0] = sample_weight
        fitted = self.__dict__  # counters: skip __setattr__ on the per-example path
        fitted["n_updates_"] += kernel(row, yk, sw, state, params, seen, scores, pred)
        fitted["t_"] += 1
        return self

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_one_cache", None)
        state.pop("_row_buf", None)
        return state

    def _scores_one(self, x):
        if self._is_fresh():
            return None
        (_, indices, data), n = self._one_row(x, grow=False)
        return self._predict_weights()[:, indices[:n]] @ data[:n]

    def predict_one(self, x):
        """Prediction for one example (dict or 1-D array) from the current model."""
        return self._predict_from_scores(self._scores_one(x))

    # ------------------------------------------------------------ persistence
    def save(self, path):
        """Write the model to ``path`` (arrays + JSON metadata, no pickle; atomic)."""
        from .persistence import save
        save(self, path)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class OnlineClassifier(ClassifierMixin, OnlineLearner):
    """Binary and multiclass classification: label bookkeeping on top of the base."""

    def _task(self):
        return MULTICLASS if self.state_["W"].shape[0] > 1 else BINARY

    def _check_targets(self, y):
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity")
        if y.dtype.kind == "f" and np.any(y != np.floor(y)):
            raise ValueError("Unknown label type: continuous (class labels cannot be "
                             "non-integer numbers; use a regressor)")
        if y.dtype.kind == "O":
            for v in y:
                if isinstance(v, float) and not np.isfinite(v):
                    raise ValueError("y contains NaN or infinity")
        return y

    def _prepare_labels(self, y, classes):
        """Register new labels and return each row's class index."""
        if len(y) == 1 and classes is None and y[0] in self.__dict__.get("_class_index", ()):
            i = self._class_index[y[0]]  # one known label
            if self._task() == BINARY:
                self.seen_[i] = 1
            return np.array([i], dtype=np.int64)
        if (len(self.__dict__.get("classes_", ())) == 2 and y.dtype.kind in "biuf"
                and self.classes_.dtype.kind in "biuf"):
            positive = y == self.classes_[1]  # two known numeric labels: no sorting
            n_pos, n_neg = np.count_nonzero(positive), np.count_nonzero(y == self.classes_[0])
            if n_pos + n_neg == len(y):
                if self._task() == BINARY:
                    self.seen_[0] |= n_neg > 0
                    self.seen_[1] |= n_pos > 0
                return positive.astype(np.int64)
        if not hasattr(self, "classes_"):
            y = self._check_targets(y)
            self.classes_ = np.asarray(y[:0])
            self._class_index = {}
            self._classes_given = False
            self.seen_ = np.zeros(0, dtype=np.uint8)
            if classes is not None:
                given = list(np.asarray(classes).ravel())
                if len(set(given)) != len(given):
                    raise ValueError("classes contains repeated labels")
                self._classes_given = True
                self._add_classes(given, np.asarray(classes).ravel())
        uniq, inverse = _unique(y)
        new = [i for i, u in enumerate(uniq) if u not in self._class_index]
        if new:
            self._check_targets(uniq[new])
            self._add_classes([uniq[i] for i in new], uniq)
        lut = np.array([self._class_index[u] for u in uniq], dtype=np.int64)
        if self._task() == BINARY:
            self.seen_[lut] = 1  # (multiclass passes mark labels row by row)
        return lut[inverse]

    def _add_classes(self, new, like):
        old_n = len(self.classes_)
        labels = list(self.classes_) + list(new)
        flip = False
        if (old_n < 2 and len(labels) >= 2 and not self._classes_given
                and _sorts_before(labels[1], labels[0])):  # the first two labels sorted
            labels[0], labels[1] = labels[1], labels[0]
            flip = old_n == 1
        kinds = {np.asarray(like).dtype.kind, self.classes_.dtype.kind} if old_n else \
            {np.asarray(like).dtype.kind}
        if kinds <= set("biuf") or kinds <= set("U") or kinds <= set("S"):
            dtype = np.result_type(np.asarray(like).dtype, self.classes_.dtype)
        else:
            dtype = object  # numbers and strings together: keep each label as given
        try:
            self.classes_ = np.array(labels, dtype=dtype)
        except (TypeError, ValueError):
            self.classes_ = np.array(labels, dtype=object)
        self._class_index = {c: i for i, c in enumerate(labels)}
        self.__dict__.pop("_one_cache", None)
        n = len(labels)
        self.seen_ = np.concatenate([self.seen_, np.zeros(n - len(self.seen_), np.uint8)])
        if flip:
            self.seen_[:2] = self.seen_[1::-1].copy()
            for s in self._slots:
                if s.signed:
                    self.state_[s.name] *= -1.0
        if n > 2 and self.state_[self._slots[0].name].shape[0] == 1:
            self._to_multiclass(old_n, n)
        elif n > 2:
            self._resize_state(n, self._d)

    def _to_multiclass(self, old_n, n):
        """Binary (one weight row) to K rows: ``-w/2`` and ``+w/2`` keep every margin."""
        d = self._d
        for s in self._slots:
            old = self.state_[s.name]
            if "K" not in s.axes:
                continue
            new = self._alloc(s, n, d)
            if s.signed:
                new[0] = -0.5 * old[0]
                if old_n == 2:
                    new[1] = 0.5 * old[0]
            else:
                new[0] = old[0]
                if old_n == 2:
                    new[1] = old[0]
            self.state_[s.name] = new

    def _one_label(self, y):
        index = self.__dict__.get("_class_index")
        try:
            i = index[y] if index is not None and y in index else None
        except TypeError:
            raise ValueError(f"label {y!r} is not hashable") from None
        if i is None:
            i = int(self._prepare_labels(np.array([y]), None)[0])
        elif self._task() == BINARY:
            self.seen_[i] = 1
        return 2.0 * i - 1.0 if self._task() == BINARY else float(i)

    def _kernel_labels(self, yi):
        if self._task() == BINARY:
            return 2.0 * yi - 1.0
        return yi.astype(np.float64)

    def _seen(self):
        return self.seen_ if self._task() == MULTICLASS else np.zeros(1, dtype=np.uint8)

    def _progressive_output(self, scores, pred, return_scores):
        if return_scores:
            return scores[:, 0].copy() if scores.shape[1] == 1 else scores
        pred = np.minimum(pred, len(self.classes_) - 1)
        return self.classes_[pred]

    def decision_function(self, X):
        """Scores ``w.x + b``: shape (n,) for two classes (> 0 means ``classes_[1]``),
        (n, K) for K > 2 classes."""
        return self._decision(X)

    def predict(self, X):
        """Predicted labels (among the classes seen so far)."""
        scores = self.decision_function(X)
        return self.classes_[self._class_of(scores.reshape(scores.shape[0], -1))]

    def _class_of(self, scores):
        """Class indices of a (n, K) score array: sign for binary, masked arg-max else."""
        if self._task() == BINARY:
            return np.minimum((scores[:, 0] > 0).astype(np.int64), len(self.classes_) - 1)
        s = scores.copy()
        s[:, self.seen_ == 0] = -np.inf
        return np.argmax(s, axis=1)

    def _predict_from_scores(self, scores):
        if scores is None:
            raise ValueError("the model has not seen any example yet")
        if scores.shape[0] == 1:
            return self.classes_[min(int(scores[0] > 0), len(self.classes_) - 1)]
        return self.classes_[self._class_of(scores.reshape(1, -1))[0]]

    def _fit_classes(self, y):
        return _unique(self._check_targets(y))[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class OnlineRegressor(RegressorMixin, OnlineLearner):
    """Regression: one weight row, targets as floats."""

    def _task(self):
        return REGRESSION

    def _progressive_output(self, scores, pred, return_scores):
        return scores[:, 0].copy()

    def predict(self, X):
        """Predicted targets ``w.x + b``."""
        return self._decision(X)

    def _predict_from_scores(self, scores):
        if scores is None:
            return 0.0
        return float(np.asarray(scores).ravel()[0])

    @property
    def coef_(self):
        return OnlineLearner.coef_.fget(self)[0]

    @property
    def intercept_(self):
        return OnlineLearner.intercept_.fget(self)


def _unique(y):
    """Sorted unique labels and the inverse map; falls back to first-seen order for
    labels that cannot be sorted together (mixed types).  One or two numeric labels
    (the common binary case) take two linear passes instead of a sort."""
    if y.dtype.kind in "biuf" and len(y):
        lo, hi = y.min(), y.max()
        if lo == hi:
            return y[:1].copy(), np.zeros(len(y), dtype=np.int64)
        upper = y == hi
        if np.count_nonzero(upper) + np.count_nonzero(y == lo) == len(y):
            return np.array([lo, hi], dtype=y.dtype), upper.astype(np.int64)
    try:
        return np.unique(y, return_inverse=True)
    except TypeError:
        index = {}
        inverse = np.empty(len(y), dtype=np.int64)
        for i, v in enumerate(y):
            inverse[i] = index.setdefault(v, len(index))
        return np.array(list(index), dtype=object), inverse


def _sorts_before(a, b):
    try:
        return bool(a < b)
    except TypeError:
        return False
