"""The wrapper base: :class:`Wrapper`, for models that hold models.

A wrapper (``Scaled``, ``OnDrift``, ``OzaBagging``, ...) names the parameters that hold
models in ``members`` (parameter -> fitted attribute) and writes only its own logic:

``learn_rows(X, y, sample_weight, classes, return_scores)``
    validated rows (CSR or C-contiguous float64, ``y`` 1-D, ``sample_weight`` None or
    one weight per row), learned in order; returns each row's pre-update prediction
    (with ``return_scores`` its scores; ``"both"``: the pair ``(predictions, scores)``).
``predict_rows(X, return_scores=False)``
    predictions (or scores) of validated rows, changing nothing.
``learn_example(x, y, sample_weight)``, ``predict_example(x)``
    the one-example calls (``x`` a dict or a 1-D array, its values checked finite).
and where it needs them ``check_params()`` (its own parameters), ``start()`` (its own
statistics, at first use), ``own_state()`` / ``load_own_state(meta, arrays)`` (them in
a model file), ``make_members(param, value)`` (the clones a parameter gives).

The base gives the rest: the members cloned at first use (``value.clone()``; a list
parameter gives a list of clones), the protocol's calls (``fit``, ``partial_fit``,
``predict_learn``, ``predict``, ``decision_function``, ``score``, ``learn_one``,
``predict_one``, ``predict_learn_one``, ``widen``), each locked (:mod:`olearn._locking`:
the wrapper's lock before its members'), validation (the rows before any member sees
them, the example's values, the weights), the fitted check, the task and the tags taken
from the members, ``classes_`` (the labels learned, or the single member's),
``n_updates_`` (the members' updates summed), ``t_`` (rows learned), ``rng_`` (a numpy
``Generator`` from a ``random_state`` parameter, saved with the model), River's hooks,
refusal to mix (``NotMixable``) and nested save and load: every member's own state
under a prefix of the file, checked to be of its parameter's class on load
(:mod:`olearn._nested`).  A subclass defined in a module of olearn's model packages is
registered for loading when its class is made (``__init_subclass__``); no table names
it.  A batch call that fails puts the wrapper's own attributes back (each member's own
call is atomic).
"""
from __future__ import annotations

import copy

import numpy as np

from ._estimator import Estimator, available_if, estimator_kind
from ._estimator import widen as _widen
from ._locking import locked
from ._nested import SavesNested, export_model, import_model, register
from ._river import weight
from ._validation import as_floats, check_weight, validate_batch, validate_X
from .protocol import Progressive

__all__ = ["Wrapper", "learn_repeated", "vote"]


class Wrapper(Progressive, SavesNested, Estimator):
    """Base of the models that hold models (see the module docstring)."""

    #: parameter -> fitted attribute of the models it holds (cloned at first use)
    members = {"learner": "model_"}
    #: whether ``classes_`` is the labels the wrapper learned (sorted), or (False) its one
    #: learner's, in that learner's order
    own_labels = True
    #: whether a classifier's ``predict_rows`` gives scores (``decision_function``)
    gives_scores = True
    #: whether the wrapper's own statistics take a row before it is predicted (``Scaled``:
    #: River's learn-then-transform), so that ``predict_learn``'s prediction of a row is
    #: ``predict_learn_one``'s, not ``predict``'s before the row
    row_first = False
    _capabilities = {"wrapper": True}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        register(cls)

    # ------------------------------------------------------------ what a subclass writes
    def learn_rows(self, X, y, sample_weight, classes, return_scores):
        raise NotImplementedError(f"{type(self).__name__} learns no batch")

    def predict_rows(self, X, return_scores=False):
        raise NotImplementedError(f"{type(self).__name__} predicts no batch")

    def learn_example(self, x, y, sample_weight):
        raise NotImplementedError(f"{type(self).__name__} learns no single example")

    def predict_example(self, x):
        raise NotImplementedError(f"{type(self).__name__} predicts no single example")

    def check_params(self):
        """Check the wrapper's own parameters (raise ValueError)."""

    def start(self):
        """Make the wrapper's own statistics (at first use, after the members)."""

    def own_state(self):
        """The wrapper's own statistics for a model file: (JSON-able meta, arrays)."""
        return {}, {}

    def load_own_state(self, meta, arrays):
        """Set the statistics ``own_state`` gave, checked (raise ValueError)."""

    def make_members(self, param, value):
        """The fitted member(s) parameter ``param`` (holding ``value``) gives."""
        if isinstance(value, (list, tuple)):
            return [m.clone() for m in value]
        return value.clone()

    # ------------------------------------------------------------ the members
    def held_learners(self):
        """The learners the wrapper holds now (its fitted members, else its parameters),
        flattened; detectors and other held models left out."""
        d = self.__dict__
        out = []
        for param, attr in self.members.items():
            value = d.get(attr, getattr(self, param, None))
            for m in value if isinstance(value, (list, tuple)) else [value]:
                if hasattr(m, "predict_learn"):
                    out.append(m)
        return out

    def _check(self):
        for param in self.members:
            value = getattr(self, param, None)
            many = value if isinstance(value, (list, tuple)) else [value]
            if not many or any(not (hasattr(m, "clone") and hasattr(m, "get_params"))
                               for m in many):
                what = "a list of olearn learners (or models)" if isinstance(
                    value, list) else "an olearn learner (or model)"
                raise TypeError(f"{type(self).__name__}: {param} must be {what}, got "
                                f"{value!r:.80}")
        kinds = {estimator_kind(m) for m in self.held_learners()}
        if len(kinds) > 1:
            raise ValueError(f"{type(self).__name__}: its learners must be all classifiers "
                             "or all regressors")
        self.check_params()

    def _started(self):
        return "t_" in self.__dict__

    def _begin(self):
        """The members cloned and the statistics made, at first use (the parameters
        checked then; a batch call checks them each time)."""
        if self._started():
            return
        self._check()
        for param, attr in self.members.items():
            setattr(self, attr, self.make_members(param, getattr(self, param)))
        if "random_state" in self._get_param_names():
            from ._validation import check_random_state
            self.rng_ = copy.deepcopy(check_random_state(self.random_state))
        self.start()
        self.t_ = 0

    def _forget(self):
        """Drop what was learned: every attribute but the parameters, the lock and what
        scikit-learn's callbacks set around ``fit`` (``_skl_callbacks``,
        ``_parent_callback_ctx``)."""
        keep = set(self._get_param_names()) | {"_lock"}
        for name in [k for k in self.__dict__ if k not in keep
                     and not k.startswith(("_skl", "_parent_callback"))]:
            del self.__dict__[name]

    def __sklearn_is_fitted__(self):
        """Whether the wrapper has learned (the protocol's question)."""
        return self._started()

    def _fitted(self):
        if not self._started():
            from sklearn.exceptions import NotFittedError
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet: "
                                 "it has learned nothing")

    def _estimator_kind(self):
        try:
            learners = self.held_learners()
        except Exception:
            return None
        return estimator_kind(learners[0]) if learners else None

    def _instance_tags(self):
        from ._tags import tags
        own = [tags(m) for m in self.held_learners() if hasattr(m, "_estimator_kind")]
        return {"sparse_input": all(t.sparse_input for t in own),
                "one_example": all(t.one_example for t in own) and
                type(self).learn_example is not Wrapper.learn_example}

    def __sklearn_tags__(self):
        from ._tags import tags
        out = super().__sklearn_tags__()
        out.input_tags.sparse = tags(self).sparse_input
        return out

    @property
    def classes_(self):
        """The labels: those learned (``own_labels``), else the one member's."""
        d = self.__dict__
        if "classes_" in d or self.own_labels:
            if "classes_" not in d:
                raise AttributeError("classes_: no label learned yet")
            return d["classes_"]
        learners = self.held_learners()
        if len(learners) != 1:
            raise AttributeError("classes_")
        return learners[0].classes_

    @classes_.setter
    def classes_(self, value):
        self.__dict__["classes_"] = value

    @classes_.deleter
    def classes_(self):
        self.__dict__.pop("classes_", None)

    def _note_labels(self, y, classes=None):
        if not self.own_labels or self._estimator_kind() != "classifier":
            return
        known = self.__dict__.get("classes_")
        parts = [np.unique(y)] + ([] if known is None else [known]) + \
            ([] if classes is None else [np.asarray(classes)])
        self.__dict__["classes_"] = parts[0] if len(parts) == 1 else \
            np.unique(np.concatenate(parts))

    @property
    def n_updates_(self):
        """The members' updates, summed."""
        return int(sum(getattr(m, "n_updates_", 0) for m in self.held_learners()
                       if m.__sklearn_is_fitted__()))

    # ------------------------------------------------------------ batches
    def _kept(self):
        """The wrapper's own attributes, copied (what a failed call puts back)."""
        out = {}
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                v = v.copy()
            elif isinstance(v, (list, dict, set)):
                v = type(v)(v)
            elif isinstance(v, np.random.Generator):
                v = copy.deepcopy(v)
            out[k] = v
        return out

    def _atomically(self, run, x=None, sample_weight=None):
        """``run()``, the wrapper as it was if it raises: its own attributes copied
        before; the models it holds copied too when ``x`` (an example or a batch) or
        ``sample_weight`` is extreme (``extreme_input``), the input that can make a
        member fail after others learned (each member's own call is atomic)."""
        kept = whole_copy(self) if extreme_input(x, sample_weight) else self._kept()
        try:
            return run()
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(kept)
            raise

    def _learn(self, X, y, classes, sample_weight, return_scores):
        self._check()

        def run():
            nonlocal X, y, sample_weight
            X, y, sample_weight = validate_batch(self, X, y, sample_weight,
                                                 reset=not self._started())
            self._begin()
            self._note_labels(y, classes)
            out = self.learn_rows(X, y, sample_weight, classes, return_scores)
            self.t_ += X.shape[0]
            return out
        return self._atomically(run, X, sample_weight)

    def _progressive(self, X, y, classes, sample_weight, return_scores):
        out = self._learn(X, y, classes, sample_weight, return_scores)
        if isinstance(return_scores, str) and return_scores == "both":
            return out[1], out[0]
        return out, out

    def _progressive_output(self, scores, pred, return_scores):
        return scores if return_scores else pred

    def _validate_X(self, X, reset):
        return validate_X(self, X, reset)

    @locked
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Go on learning from a batch, in order."""
        self._learn(X, y, classes, sample_weight, False)
        return self

    @locked
    def fit(self, X, y, sample_weight=None):
        """Start afresh, then learn the rows (the labels of ``y`` declared); with an
        ``epochs`` parameter that many passes, shuffled by ``shuffle``."""
        self._check()
        X, y, sample_weight = validate_batch(self, X, y, sample_weight, reset=True)
        if sample_weight is not None and not np.any(sample_weight):
            raise ValueError("Sample weights must contain at least one non-zero number.")
        width = X.shape[1]
        self._forget()
        self.n_features_in_ = width
        classes = np.unique(y) if self._estimator_kind() == "classifier" else None
        self._begin()
        self._note_labels(y, classes)
        self.fit_rows(X, y, sample_weight, classes)
        return self

    def fit_rows(self, X, y, sample_weight, classes):
        """``fit``'s learning of validated rows, after the reset: ``learn_rows`` over
        them, ``epochs`` times (a parameter's; else once), in an order shuffled by
        ``random_state`` when ``shuffle``."""
        from .base import fit_passes

        def one(X, y, sw, order):
            self.learn_rows(X, y, sw, classes, False)
            self.t_ += X.shape[0]
        fit_passes(X, y, sample_weight, getattr(self, "epochs", 1),
                   getattr(self, "shuffle", False), getattr(self, "random_state", None),
                   one)

    @locked
    def predict(self, X):
        """Predictions of the rows, changing nothing."""
        self._fitted()
        return self.predict_rows(self._validate_X(X, reset=False))

    @available_if(lambda self: self.gives_scores and self._estimator_kind() == "classifier")
    @locked
    def decision_function(self, X):
        """Scores of the rows (a classifier's), changing nothing."""
        self._fitted()
        return self.predict_rows(self._validate_X(X, reset=False), return_scores=True)

    @locked
    def score(self, X, y, sample_weight=None):
        """Accuracy (classifiers) or R^2 (regressors) of ``predict``."""
        if self._estimator_kind() == "classifier":
            from sklearn.metrics import accuracy_score as metric
        else:
            from sklearn.metrics import r2_score as metric
        return metric(y, self.predict(X), sample_weight=sample_weight)

    @locked
    def widen(self, n_features):
        """Take ``n_features`` columns from now on (every learner held widens); the
        width, None before learning."""
        if not self._started():
            return None
        widths = [_widen(m, n_features) for m in self.held_learners()
                  if m.__sklearn_is_fitted__()]
        width = max([w for w in widths if w is not None] +
                    [self.__dict__.get("n_features_in_", 0)])
        if "n_features_in_" in self.__dict__:
            self.n_features_in_ = max(self.n_features_in_, width)
        return width or None

    _widen = widen  # round 2's name

    # ------------------------------------------------------------ one example
    def _checked_one(self, x):
        if isinstance(x, dict):
            from ._vocabulary import check_values
            check_values(x)
        else:
            x = as_floats("x", x).ravel()
            if not np.isfinite(x).all():
                raise ValueError("x contains NaN or infinity")
        return x

    @locked
    def predict_learn_one(self, x, y, sample_weight=1.0, w=None):
        """``predict_one(x)``'s answer, then ``learn_one(x, y)`` (``w``: River's name of
        the weight)."""
        sample_weight = weight(sample_weight, w)
        if sample_weight != 1.0:
            sample_weight = check_weight(sample_weight)
        x = self._checked_one(x)

        def run():
            self._begin()
            out = self.learn_example(x, y, sample_weight)
            self._note_labels(np.array([y]))
            self.t_ += 1
            return out
        return self._atomically(run, x, sample_weight)

    @locked
    def learn_one(self, x, y, sample_weight=1.0, w=None):
        """Learn one example (a dict ``{feature: value}`` or a 1-D array)."""
        self.predict_learn_one(x, y, sample_weight, w=w)
        return self

    @locked
    def predict_one(self, x):
        """The prediction of one example (None, or 0.0 for a regressor, before any)."""
        x = self._checked_one(x)
        if not self._started():
            return None if self._estimator_kind() == "classifier" else 0.0
        return self.predict_example(x)

    @available_if(lambda self: self._estimator_kind() == "classifier")
    @locked
    def predict_proba_one(self, x):
        """``{label: probability}`` of one example ({} before any), from
        ``predict_proba_example``; River's convention where a wrapper has no
        probabilities: ``NotImplementedError``."""
        x = self._checked_one(x)
        if not self._started() or "classes_" not in self.__dict__ and self.own_labels:
            return {}
        return self.predict_proba_example(x)

    def predict_proba_example(self, x):
        """A wrapper's probabilities of one validated example, ``{label: p}``; none
        by default (``NotImplementedError``, which River's tools take as "no
        probabilities")."""
        raise NotImplementedError(f"{type(self).__name__} gives no class probabilities")

    # ------------------------------------------------------------ state
    def export_state(self):
        """(meta, arrays): ``t_``, the members' own states (a list's under ``m<j>.``, a
        single model's under its attribute's name) and ``own_state()``; before learning
        only ``{"t_": None}``."""
        if not self._started():
            self._check()
            return {"t_": None}, {}
        arrays = {}
        meta = {"t_": int(self.t_)}
        if "n_features_in_" in self.__dict__:
            meta["n_features_in_"] = int(self.n_features_in_)
        for attr in self.members.values():
            key, value = attr.rstrip("_"), self.__dict__[attr]
            meta[key] = [export_model(m, f"m{j}.", arrays) for j, m in enumerate(value)] \
                if isinstance(value, list) else export_model(value, f"{key}.", arrays)
        if "rng_" in self.__dict__:
            meta["rng"] = self.rng_.bit_generator.state
        if self.own_labels and "classes_" in self.__dict__:
            arrays["classes_"] = np.asarray(self.classes_)
        own_meta, own_arrays = self.own_state()
        meta.update(own_meta)
        arrays.update(own_arrays)
        return meta, arrays

    @classmethod
    def from_state(cls, params, meta, arrays):
        """The wrapper ``export_state`` described, every part checked."""
        model = cls(**params)
        if "t_" in meta and meta["t_"] is None:  # (saved before it learned)
            model._check()
            return model
        model._begin()
        for param, attr in model.members.items():
            key, like, fresh = attr.rstrip("_"), getattr(model, param), model.__dict__[attr]
            info = meta[key]
            if isinstance(fresh, list):
                if not isinstance(info, list) or len(info) != len(fresh):
                    raise ValueError(f"{key}: {len(fresh)} saved models expected")
                likes = like if isinstance(like, (list, tuple)) else [like] * len(fresh)
                value = [import_model(i, f"m{j}.", arrays, like=lk)
                         for j, (i, lk) in enumerate(zip(info, likes))]
            else:
                value = import_model(info, f"{key}.", arrays, like=like)
            setattr(model, attr, value)
        for key in ("t_", "n_features_in_"):
            if key in meta:
                if type(meta[key]) is not int or meta[key] < 0:
                    raise ValueError(f"{key} must be a non-negative integer")
                setattr(model, key, meta[key])
        if "rng" in meta:
            try:
                model.rng_.bit_generator.state = meta["rng"]
            except Exception:
                raise ValueError("damaged random generator state") from None
        if "classes_" in arrays:
            model.classes_ = np.asarray(arrays["classes_"])
        model.load_own_state(meta, arrays)
        return model


def extreme_input(x: object, sample_weight: object = None) -> bool:
    """Whether an example (a dict or an array), a batch (an array or a sparse matrix)
    or its weights hold a value that can overflow a model's state while its scores stay
    finite (``olearn._compiled.finite``'s bounds: beyond 1e30, a non-zero below 1e-30, a
    weight above 1e6); False for input that validation will refuse anyway."""
    from ._compiled.finite import HIGH, HIGH_WEIGHT, LOW
    try:
        if sample_weight is not None and np.max(np.asarray(sample_weight, dtype=np.float64),
                                                initial=0.0) > HIGH_WEIGHT:
            return True
        if x is None:
            return False
        if isinstance(x, dict):
            x = list(x.values())
        a = np.abs(np.asarray(getattr(x, "data", x), dtype=np.float64))
        return bool(np.any((a > HIGH) | ((a < LOW) & (a != 0.0))))
    except (TypeError, ValueError, OverflowError):
        return False


def whole_copy(model: object) -> dict:
    """A copy of ``model``'s attributes, the models it holds copied whole (its lock
    kept as it is): what a failed call puts back."""
    return {k: (v if k == "_lock" else copy.deepcopy(v)) for k, v in model.__dict__.items()}


def learn_repeated(model, X, y, counts, sample_weight=None, classes=None):
    """``model`` learns each row ``i`` of a validated batch ``counts[i]`` times in a row,
    in order (Oza and Russell's online bagging: the example presented k times); returns
    each row's prediction made before that row (a row learned 0 times: the model as it
    then is) and the mask of the rows before which the model had learned nothing (its
    prediction there is meaningless: ``predict_one`` says None or 0.0).  Calls: one
    ``predict_learn`` per run of repeated rows, one ``predict`` per run of skipped ones."""
    n = X.shape[0]
    counts = np.asarray(counts, dtype=np.int64)
    fresh = ~(model.__sklearn_is_fitted__() | ((np.cumsum(counts) - counts) > 0))
    out = np.zeros(n, dtype=y.dtype if estimator_kind(model) == "classifier" else np.float64)
    learn = counts > 0
    edges = np.flatnonzero(np.diff(learn.astype(np.int8))) + 1
    for a, b in zip(np.r_[0, edges], np.r_[edges, n]):
        if learn[a]:
            rows = np.repeat(np.arange(a, b), counts[a:b])
            first = np.r_[0, np.cumsum(counts[a:b])[:-1]]
            kw = {} if sample_weight is None else {"sample_weight": sample_weight[rows]}
            if classes is not None:
                kw["classes"] = classes
            out[a:b] = np.asarray(model.predict_learn(X[rows], y[rows], **kw))[first]
        elif model.__sklearn_is_fitted__():
            out[a:b] = model.predict(X[a:b])
    return out, fresh


def vote_shares(model, outs, fresh):
    """The members' votes as probabilities, (n, K) over ``model.classes_``: each
    label's share of the votes of the members that have learned (uniform where none
    has); ``vote``'s label is the arg-max (the lowest label on ties)."""
    classes = model.classes_
    n, M = outs.shape
    labels = np.where(fresh, classes[0], outs)
    idx = np.minimum(np.searchsorted(classes, labels), len(classes) - 1)
    share = np.zeros((n, len(classes)))
    np.add.at(share, (np.repeat(np.arange(n), M), idx.ravel()),
              (~fresh).ravel().astype(np.float64))
    total = share.sum(axis=1, keepdims=True)
    return np.where(total > 0, share / np.where(total > 0, total, 1.0), 1.0 / len(classes))


def vote(model, outs, fresh, return_scores=False):
    """The members' outputs ``outs``, (n, M), combined, leaving out the ``fresh`` ones
    (members that had learned nothing): a classifier's majority vote (the label with the
    most votes, the lowest on ties; scores: the vote shares, for two classes the second's
    minus the first's) over ``model.classes_``, a regressor's mean (a fresh member's
    0.0 counted, as its ``predict_one`` says).  ``return_scores`` as ``predict_learn``'s."""
    if isinstance(return_scores, str) and return_scores == "both":
        return vote(model, outs, fresh, False), vote(model, outs, fresh, True)
    if model._estimator_kind() != "classifier":
        return np.where(fresh, 0.0, outs).astype(np.float64).mean(axis=1)
    classes = model.classes_
    n, M = outs.shape
    labels = np.where(fresh, classes[0], outs)  # (a fresh member's entry: any label)
    idx = np.minimum(np.searchsorted(classes, labels), len(classes) - 1)
    share = np.zeros((n, len(classes)))
    np.add.at(share, (np.repeat(np.arange(n), M), idx.ravel()),
              (~fresh).ravel().astype(np.float64) / M)
    if return_scores:
        return share[:, 1] - share[:, 0] if share.shape[1] == 2 else \
            (share[:, 0] if share.shape[1] == 1 else share)
    return classes[share.argmax(axis=1)]
