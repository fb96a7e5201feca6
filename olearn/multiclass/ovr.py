"""One-vs-rest: K binary learners, "class k versus the rest", composed through the model
protocol.

For each class k a clone of the base learner (``clone``: its class and parameters) learns
the binary problem ``y == k`` (label +1 for the rows of class k, -1 for every other row),
and the prediction is the class whose binary model scores highest (Rifkin and Klautau,
"In Defense of One-Vs-All Classification", JMLR 5, 2004).  Unlike the native multiclass
rules (one max-score update per row) every binary model may update on every row.

Protocol only.  The class models are ordinary models (``estimators_[k]``), driven only
through the calls of :mod:`olearn.protocol`: ``predict_learn(X, y_k, return_scores=True,
classes=[-1, 1])`` for a batch (the pre-update scores of the rows and the updates, one
compiled pass of the learner's own binary rule), ``predict_learn_one(x, y_k,
return_scores=True)`` for one example, ``decision_function`` to predict, ``widen``,
``set_params`` (a ``base__C=`` reaches every class model before its next call) and
``export_state``/``from_state`` through :mod:`olearn._nested` to save.  So any binary
classifier that offers the protocol can be the base: a linear rule, a kernel expansion,
a network.  The classes are declared to each class model (``classes=[-1, 1]``), so the
binary labels never swap sides.

Classes.  The labels follow :class:`olearn.base.OnlineClassifier` (two labels sorted,
later ones appended; ``classes=`` keeps its order), with one model per class from the
first label on, even for two classes: when a second label sorting first arrives, the
two models swap places.  Classes discovered in the stream (River's one-vs-rest) take part
from their first row: class k's model is created at the first row of class k, learns it
(as a +1), and from then on learns from every row; before it, its score is recorded as 0
and it is no candidate of the arg-max.  Classes declared up front
(``partial_fit(..., classes=)``, and ``fit``, which declares the labels of its ``y``) take
part from row 1, as in scikit-learn's one-vs-rest.  The progressive prediction of a row
is the arg-max of the pre-update scores over the classes seen before that row (lowest
index on ties).  So the model equals K separate binary learners, the k-th trained on
``y == k`` from the first row of class k on (discovered) or from row 1 (declared), and
it does not depend on how the stream is cut into batches.  Declaring the classes is worth
it where they are known: on news20 (one pass, rows L2-normalised, chunks of 100, three
random orders) PA-I one-vs-rest errs 0.2161 on average with the classes declared, 0.2179
discovering them; scikit-learn's one-vs-rest PA-I, 0.2161 (``benchmarks/core.md``,
section 5c).  ``n_updates_`` counts binary updates (up to K per row).

Sample weights are passed to every class model; ``fit`` runs the base's ``epochs``
passes, shuffled when its ``shuffle`` (one order per epoch, from its ``random_state``,
shared by the classes).  Dict examples go through this model's vocabulary: the class
models see integer columns (``{column: value}``), so their columns agree; their width
grows by doubling ahead of the vocabulary (``widen``).
"""
import contextlib

import numpy as np
import scipy.sparse as sp

from .._estimator import ClassifierMixin, check_is_fitted, clone, is_classifier
from .._estimator import widen as _widen_model
from .._labels import LabelMixin, unique_labels
from .._locking import locked
from .._nested import export_model, import_model
from .._internals import internals
from .._validation import as_floats, check_weight, validate_batch
from .._vocabulary import check_values
from .._compiled.driver import MULTICLASS
from ..base import DivergenceError, fit_passes
from ..protocol import Model
from .._river import weight
from ..wrapper import Wrapper

#: the binary labels every class model is declared with: -1 (the rest), +1 (its class)
SIDES = np.array([-1, 1])


def _two_as_one(scores):
    """(n, K) scores as the classifier returns them: for two classes the scikit-learn
    convention ``score_1 - score_0``, one class its one column, else unchanged."""
    if scores.shape[-1] == 2:
        return scores[..., 1] - scores[..., 0]
    return scores[..., 0].copy() if scores.shape[-1] == 1 else scores


def _ovr_proba(scores, seen):
    """``sigmoid`` of each class's score, zero for the classes not seen, normalised."""
    p = np.where(seen[None, :], 0.5 * (1.0 + np.tanh(0.5 * scores)), 0.0)
    total = p.sum(axis=1, keepdims=True)
    return np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / scores.shape[1])


def _masked_argmax(scores, mask):
    """Row-wise arg-max of ``scores`` over the columns flagged in ``mask`` (lowest index
    on ties; 0 where none is flagged)."""
    return np.argmax(np.where(mask, scores, -np.inf), axis=-1)


class OneVsRest(LabelMixin, ClassifierMixin, Wrapper):
    """One-vs-rest over any binary olearn classifier (one clone per class).

    Parameters
    ----------
    base : a binary classifier offering the model protocol (for instance
        ``olearn.make("pa1")``); its parameters (and ``epochs``, ``shuffle``,
        ``random_state`` for ``fit``) are used; it is never fitted itself.

    Attributes
    ----------
    estimators_ : list of the K class models, in the order of ``classes_``.
    coef_, intercept_ : a linear base's, stacked: ``(K, n_features)`` and ``(K,)`` (two
        rows for two classes).  ``decision_function`` gives the K binary scores, or for
        two classes their difference (scikit-learn's binary convention).
    """
    _capabilities = {"multiclass": "ovr"}
    members = {"base": "estimators_"}  # (one per class, made at the class's first row)

    def _instance_tags(self):
        from .._tags import tags
        return {"linear": isinstance(self.base, Model) and tags(self.base).linear}

    def __init__(self, base=None):
        self.base = base

    # -------------------------------------------------------- the base
    def _base(self):
        """``base``, checked: a binary classifier offering the protocol."""
        base = self.base
        if not isinstance(base, Model) or isinstance(base, OneVsRest) or \
                not is_classifier(base):
            raise ValueError(f"base must be a binary olearn classifier (e.g. "
                             f"olearn.make('pa1')), got {base!r}")
        return base

    def set_params(self, **params):
        self.__dict__.pop("_params_seen", None)  # base__C=...: the class models follow
        return super().set_params(**params)

    def _sync(self):
        """Every class model with the parameters ``base`` has now (a ``set_params``
        between calls reaches the next call)."""
        params = self._base().get_params(deep=False)
        if _same_params(params, self.__dict__.get("_params_seen")):
            return
        for m in self.estimators_:
            if m is not None and not _same_params(m.get_params(deep=False), params):
                m.set_params(**params)
        self._params_seen = params

    def _new_model(self):
        return clone(self._base())

    # -------------------------------------------------------- label map hooks
    # (LabelMixin: classes_, seen_; the class models are the "rows" it grows)
    def _task(self):
        return MULTICLASS  # seen_ is marked row by row here, never a sign flip

    _n_rows = property(lambda self: len(self.__dict__.get("estimators_", ())))
    _d = 0

    def _state_changed(self):
        pass

    def _negate_signed(self):
        pass  # (the two class models swap places in _add_classes)

    def _resize_state(self, K, d):
        pass

    def _to_multiclass(self, old_n, n):
        pass

    def _add_classes(self, new, like):
        before = list(self.classes_)
        super()._add_classes(new, like)  # labels and seen_
        models = self.estimators_
        models.extend([None] * (len(self.classes_) - len(models)))
        if self._classes_given:
            self.seen_[:] = 1  # declared classes learn from row 1
        if len(before) == 1 and self._class_index[before[0]] == 1:
            models[0], models[1] = models[1], models[0]  # the second label sorts first

    def _expected_rows(self):
        return len(self.classes_)

    # -------------------------------------------------------- fitted state
    def _is_fresh(self):
        return "estimators_" not in self.__dict__

    def _start(self, n_features, vocabulary=None):
        self.estimators_ = []
        self.t_ = 0
        self.n_features_in_ = int(n_features)
        self.vocabulary_ = vocabulary
        self._width = int(n_features)  # the class models' width (ahead for dicts)

    def _reset(self):
        for name in ("estimators_", "classes_", "seen_", "n_features_in_", "t_",
                     "vocabulary_", "_width", "_class_index", "_classes_given",
                     "_classes_fixed", "_params_seen"):
            self.__dict__.pop(name, None)

    @contextlib.contextmanager
    def _atomic(self):
        """A batch call that fails (bad input, a parameter, a divergence) leaves the
        model as it was: its fitted attributes are kept before the call, the class
        models as copies of their exported state (``export_state``: a copy of their
        arrays, half ``pickle``'s cost and a sixth of ``copy.deepcopy``'s on news20's
        20 classes), and put back (``from_state``)."""
        d = self.__dict__
        keep = [k for k in d if k not in ("_lock", "base")]  # (the fitted attributes)
        saved = {k: (d[k].copy() if isinstance(d[k], np.ndarray) else d[k]) for k in keep
                 if k != "estimators_"}  # (the others are replaced, never changed)
        models = [None if m is None else _kept(m) for m in d.get("estimators_", ())]
        try:
            yield
        except BaseException:
            for k in [k for k in d if k not in ("_lock", "base") and k not in saved]:
                del d[k]
            d.update(saved)
            if "estimators_" in keep:
                d["estimators_"] = [None if m is None else _restored(*m) for m in models]
            raise

    def _members_X(self, X):
        """A validated batch at the class models' width (wider than this model's after
        dict examples: the columns they have not met are zeros)."""
        extra = self._width - X.shape[1]
        if extra <= 0:
            return X
        if sp.issparse(X):
            return sp.csr_matrix((X.data, X.indices, X.indptr),
                                 shape=(X.shape[0], self._width))
        return np.hstack([X, np.zeros((X.shape[0], extra))])

    # -------------------------------------------------------- batches
    @locked
    def fit(self, X, y, sample_weight=None):
        """Start afresh, then the base's ``epochs`` passes, each in a random order
        seeded by its ``random_state`` when its ``shuffle`` (one order for every
        class), else in order; the labels of ``y`` are declared (row 1 on)."""
        base = self._base()
        with self._atomic():
            self._reset()
            X, y, sample_weight = validate_batch(self, X, y, sample_weight, reset=True)
            if sample_weight is not None and not np.any(sample_weight):
                raise ValueError("Sample weights must contain at least one non-zero number.")
            self._start(X.shape[1])
            classes = unique_labels(self._check_targets(y))[0]
            params = base.get_params(deep=False)
            fit_passes(X, y, sample_weight, params.get("epochs", 1),
                       params.get("shuffle", False), params.get("random_state"),
                       lambda X, y, sw, order: self._pass(X, y, classes, sw, order,
                                                          contract=False))
        return self

    @locked
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue learning from a batch, in order.  ``classes``: every label the
        model may meet (declared: each class model learns from row 1)."""
        with self._atomic():
            self._partial(X, y, classes, sample_weight)
        return self

    def _progressive(self, X, y, classes, sample_weight, return_scores):
        """``predict_learn``'s pass (``olearn.protocol.Progressive``): each row's
        prediction is the arg-max over the classes seen before it; its scores, for two
        classes, ``score_1 - score_0``."""
        with self._atomic():
            return self._partial(X, y, classes, sample_weight)

    def _progressive_output(self, scores, pred, return_scores):
        if return_scores:
            return _two_as_one(scores)
        return self.classes_[np.minimum(pred, len(self.classes_) - 1)]

    def _partial(self, X, y, classes, sample_weight):
        self._base()
        fresh = self._is_fresh()
        X, y, sample_weight = validate_batch(self, X, y, sample_weight, reset=fresh)
        if fresh:
            self._start(X.shape[1])
        return self._pass(X, y, classes, sample_weight)

    def _pass(self, X, y, classes, sample_weight, order=None, contract=True):
        """Every class model over a validated batch; returns the (n, K) pre-update
        scores (0 where a class takes no part yet) and the progressive arg-max."""
        self._sync()
        yi = self._prepare_labels(y, classes, contract)  # (marks no row seen)
        n, K = X.shape[0], len(self.classes_)
        seen = self.seen_.astype(bool)  # the classes seen before this batch, or declared
        first = np.full(K, n)
        present, at = np.unique(yi, return_index=True)
        first[present] = at
        start = np.where(seen, 0, first)
        Xm = self._members_X(X)
        scores = np.zeros((n, K))
        failed = None
        for k in range(K):
            s = int(start[k])
            if s >= n:
                continue
            m = self.estimators_[k]
            if m is None:
                m = self.estimators_[k] = self._new_model()
            yk = np.where(yi[s:] == k, 1, -1)
            try:
                scores[s:, k] = m.predict_learn(
                    _tail(Xm, s), yk, return_scores=True, classes=SIDES,
                    sample_weight=None if sample_weight is None else sample_weight[s:])
            except DivergenceError as e:
                row = s + (e.row if e.row is not None else n - 1 - s)
                failed = row if failed is None else min(failed, row)
        if failed is not None:
            raise DivergenceError(None, int(order[failed]) if order is not None else failed,
                                "X" if order is not None else "batch", type(self).__name__)
        mask = seen[None, :] | (first[None, :] < np.arange(n)[:, None])
        pred = _masked_argmax(scores, mask)
        self.seen_[present] = 1
        self.t_ += n
        return scores, pred

    # -------------------------------------------------------- prediction
    @locked
    def decision_function(self, X):
        """The K binary scores, (n, K); for two classes the scikit-learn convention,
        (n,) ``score_1 - score_0`` (> 0 means ``classes_[1]``, the arg-max)."""
        return _two_as_one(self._scores(X))

    def _scores(self, X):
        check_is_fitted(self, "estimators_")
        X = self._members_X(self._validate_X(X, reset=False))
        self._sync()
        return np.column_stack([np.ravel(m.decision_function(X)) for m in self.estimators_])

    @locked
    def predict(self, X):
        """Predicted labels: the arg-max over the classes seen so far."""
        scores = self._scores(X)  # (not fitted: NotFittedError, before classes_ is read)
        return self.classes_[self._class_of(scores)]

    def _class_of(self, scores):
        return _masked_argmax(scores, self.seen_.astype(bool)[None, :])

    @locked
    def predict_proba(self, X):
        """Probabilities of ``classes_``, (n, K): each class model's score through the
        logistic link, ``sigmoid(s_k)``, normalised over the classes seen (as
        scikit-learn's ``OneVsRestClassifier``); monotone in the scores, so the most
        probable class is ``predict``'s."""
        return _ovr_proba(self._scores(X), self.seen_.astype(bool))

    @property
    def coef_(self):
        """A linear base's weights, one row per class (``(K, n_features)``)."""
        check_is_fitted(self, "estimators_")
        return np.vstack([m.coef_[:, :self.n_features_in_] for m in self.estimators_])

    @property
    def intercept_(self):
        check_is_fitted(self, "estimators_")
        return np.concatenate([np.ravel(m.intercept_) for m in self.estimators_])

    # -------------------------------------------------------- one at a time
    def _member_row(self, x, grow):
        """One example as the class models take it: a dict through this model's
        vocabulary as ``{column: value}``, a 1-D array as given (the model starts on its
        first example)."""
        if isinstance(x, dict):
            check_values(x)  # values first: a bad example changes nothing
            if self._is_fresh():
                if not grow:
                    return None
                from .._vocabulary import Vocabulary
                self._start(0, Vocabulary())
            if self.vocabulary_ is None:
                return x  # integer columns of a model trained on arrays (checked there)
            cols, vals = self.vocabulary_.columns(x, grow)
            n = len(self.vocabulary_)
            if n > self.n_features_in_:
                self.n_features_in_ = n
                if n > self._width:
                    self._width = max(n, 2 * self._width)
                    for m in self.estimators_:
                        if m is not None:
                            _widen_model(m, self._width)
            return dict(zip(cols, vals))
        x = as_floats("x", x).ravel()
        if self._is_fresh():
            if not grow:
                return None
            self._start(x.shape[0])
        if self.vocabulary_ is not None or x.shape[0] != self.n_features_in_:
            raise ValueError(f"x has {x.shape[0]} features, but the model expects "
                             f"{'a dict' if self.vocabulary_ is not None else self.n_features_in_}")
        if not np.isfinite(x).all():
            raise ValueError("x contains NaN or infinity")
        return x

    def _row_matrix(self, xm):
        """The member form of one example as a one-row batch of the class models' width."""
        if isinstance(xm, dict):
            return sp.csr_matrix((np.array(list(xm.values()), dtype=np.float64),
                                  np.array(list(xm), dtype=np.int64), [0, len(xm)]),
                                 shape=(1, self._width))
        return xm.reshape(1, -1)

    @locked
    def predict_learn_one(self, x, y, sample_weight=1.0, return_scores=False, w=None):
        """Learn from one example and return the prediction made just before (with
        ``return_scores`` the scores, as ``predict_learn``'s; ``w``: River's
        ``sample_weight``)."""
        sample_weight = weight(sample_weight, w)
        self._base()
        self._check_one_label(y)
        if sample_weight != 1.0:
            sample_weight = check_weight(sample_weight)
        xm = self._member_row(x, grow=True)
        if "_params_seen" not in self.__dict__:
            self._sync()
        known = self._n_classes()
        before = self.classes_[0] if known == 1 else None
        yi = int(self._one_label(y))  # (marks no row seen)
        K = len(self.classes_)
        seen = self.seen_.astype(bool)
        scores = np.zeros(K)
        for k in range(K):
            if not (seen[k] or k == yi):
                continue
            m = self.estimators_[k]
            yk = 1 if k == yi else -1
            try:
                if m is None:  # a new class model: declared labels, started at the width
                    m = self.estimators_[k] = self._new_model()
                    scores[k] = m.predict_learn(self._row_matrix(xm), np.array([yk]),
                                                return_scores=True, classes=SIDES,
                                                sample_weight=np.array([sample_weight]))[0]
                else:
                    scores[k] = m.predict_learn_one(xm, yk, sample_weight,
                                                    return_scores=True)
            except DivergenceError:
                raise DivergenceError(None, self.t_, "stream", type(self).__name__) from None
        self.seen_[yi] = 1
        self.t_ += 1
        if return_scores:
            out = _two_as_one(scores)
            return float(out) if np.ndim(out) == 0 else out
        if known < 2:
            return before
        return self.classes_[int(_masked_argmax(scores, seen))]

    @locked
    def predict_one(self, x):
        """Prediction for one example from the current model (None before any class)."""
        if self._is_fresh() or not self._n_classes():
            return None
        xm = self._member_row(x, grow=False)
        if "_params_seen" not in self.__dict__:
            self._sync()
        row = self._row_matrix(xm)
        scores = np.array([float(np.ravel(m.decision_function(row))[0])
                           for m in self.estimators_])
        return self.classes_[int(_masked_argmax(scores, self.seen_.astype(bool)))]

    @locked
    def predict_proba_one(self, x):
        """``{label: probability}`` of one example ({} before any class), as
        ``predict_proba``'s."""
        if self._is_fresh() or not self._n_classes():
            return {}
        xm = self._member_row(x, grow=False)
        if "_params_seen" not in self.__dict__:
            self._sync()
        row = self._row_matrix(xm)
        scores = np.array([[float(np.ravel(m.decision_function(row))[0])
                            for m in self.estimators_]])
        p = _ovr_proba(scores, self.seen_.astype(bool))[0]
        return dict(zip(self.classes_.tolist(), p.tolist()))

    # -------------------------------------------------------- widening, state
    @locked
    def widen(self, n_features):
        """Take ``n_features`` columns from now on (arrays: every class model widens);
        returns the width, None before learning."""
        if self._is_fresh():
            return None
        if self.vocabulary_ is None and n_features > self.n_features_in_:
            self.n_features_in_ = self._width = int(n_features)
            for m in self.estimators_:
                if m is not None:
                    _widen_model(m, self._width)
        return self.n_features_in_

    _widen = widen  # round 2's name

    def export_state(self):
        """(metadata, arrays): the label map, the counters, the vocabulary, and each
        class model's own ``export_state`` under the prefix ``m<k>.``."""
        check_is_fitted(self, "estimators_")
        arrays = {}
        meta = {"n_features_in_": int(self.n_features_in_), "t_": int(self.t_),
                "width": int(self._width),
                "members": [export_model(m, f"m{k}.", arrays)
                            for k, m in enumerate(self.estimators_)]}
        if self.vocabulary_ is not None:
            meta["vocabulary"] = self.vocabulary_.to_list()
        labels, label_arrays = self._export_labels()
        meta.update(labels)
        arrays.update(label_arrays)
        return meta, arrays

    @classmethod
    def from_state(cls, params, meta, arrays):
        """The model ``export_state`` described, every part checked: the base, the
        label map, one class model per class, each of the base's class and at the width."""
        if not isinstance(params, dict) or not isinstance(meta, dict):
            raise ValueError("parameters and metadata must be JSON objects")
        if "members" not in meta:  # round 2's OneVsRest kept one block of state for all
            from .._state import StateLayoutError  # classes, not a model per class
            raise StateLayoutError("one state block for every class, where this "
                                   "OneVsRest keeps one model per class")
        model = cls(**params)
        inner = internals(model)
        inner.check_base()
        counts = {k: meta.get(k) for k in ("n_features_in_", "t_", "width")}
        for k, v in counts.items():
            if type(v) is not int or v < 0:
                raise ValueError(f"{k} must be a non-negative integer, got {v!r}")
        vocabulary = None
        if "vocabulary" in meta:
            from .._vocabulary import Vocabulary
            names = meta["vocabulary"]
            if not isinstance(names, list) or len(names) != counts["n_features_in_"]:
                raise ValueError(f"the vocabulary must list {counts['n_features_in_']} "
                                 "feature names")
            vocabulary = Vocabulary.from_list(names)
        inner.start(counts["n_features_in_"], vocabulary)
        inner.width, model.t_ = counts["width"], counts["t_"]
        width = inner.width
        if width < model.n_features_in_ or \
                (vocabulary is None and width != model.n_features_in_):
            raise ValueError(f"width {width} does not fit "
                             f"{model.n_features_in_} features")
        inner.import_labels(meta, arrays)
        members = meta.get("members")
        if not isinstance(members, list) or len(members) != inner.n_classes() or \
                not all(isinstance(info, dict) and info.get("fitted") for info in members):
            raise ValueError("members must hold one fitted class model per class")
        model.estimators_ = [import_model(info, f"m{k}.", arrays, like=model.base)
                             for k, info in enumerate(members)]
        for k, m in enumerate(model.estimators_):
            if m.n_features_in_ != width:
                raise ValueError(f"class model {k} has {m.n_features_in_} features, the "
                                 f"model {width}")
        prefixes = tuple(f"m{k}." for k in range(len(members)))
        unknown = [k for k in arrays if k != "seen_" and not k.startswith(prefixes)]
        if unknown:
            raise ValueError(f"unknown arrays {sorted(unknown)}")
        return model


def _kept(model):
    """``model``'s exported state with its arrays copied, and what rebuilds it."""
    meta, arrays = model.export_state()
    return type(model), model.get_params(deep=False), meta, {k: np.array(a, copy=True)
                                                             for k, a in arrays.items()}


def _restored(cls, params, meta, arrays):
    return cls.from_state(params, meta, arrays)


def _tail(X, s):
    """The rows of ``X`` from row ``s`` on, without copying them (a CSR matrix over the
    same arrays; its canonical format known when ``X``'s is)."""
    if s == 0 or not sp.issparse(X):
        return X[s:] if s else X
    p = X.indptr[s]
    tail = sp.csr_matrix((X.data[p:], X.indices[p:], X.indptr[s:] - p),
                         shape=(X.shape[0] - s, X.shape[1]))
    if X.has_canonical_format:
        tail.has_canonical_format = True
    return tail


def _same_params(a, b):
    """Whether two parameter dicts agree (values compared by ``==``, arrays by identity)."""
    if a is None or b is None or a.keys() != b.keys():
        return False
    for k in a:
        try:
            if not (a[k] is b[k] or bool(a[k] == b[k])):
                return False
        except (TypeError, ValueError):
            return False
    return True
