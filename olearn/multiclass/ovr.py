"""One-vs-rest: K binary learners, "class k versus the rest", in one compiled pass.

For each class k a copy of the base learner learns the binary problem ``y == k``
(label +1 for the rows of class k, -1 for every other row), and the prediction is
the class whose binary model scores highest (Rifkin and Klautau, "In Defense of
One-Vs-All Classification", JMLR 5, 2004).  Unlike the native multiclass rules
(one max-score update per row) every binary model may update on every row.

Layout.  The K models are blocks of the same arrays: each state slot of the base
learner (its binary shape, class axis of size 1) gets a leading class axis, so ``W``
is ``(K, 1, d)``; class k's model is the tuple of views ``slot[k]``.  One compiled
loop scores each row with class k's model, records that pre-update score, applies
the base's own binary update rule to class k's block with label +-1, for every k,
then records the arg-max over the classes seen so far as the progressive prediction
(the rows of class k are a +1 for block k and a -1 for every other block).

Compiled code.  The pass is :func:`olearn._compiled.driver.ovr_pass` over the base's
declared binary rule, score and end-of-pass step: ``base.kernels.reduction("ovr")``,
an entry point generated from the base's declaration like its own
(``olearn._compiled.declare``), disk-cached, so later processes load it.

Classes.  The labels follow :class:`olearn.base.OnlineClassifier` (two labels sorted,
later ones appended; ``classes=`` keeps its order), with one model per class from the
first label on, even for two classes: when a second label sorting first arrives, the
two blocks swap places instead of being negated.  Classes discovered in the stream (River's
one-vs-rest) take part from their first row: class k's model stays at the base's initial
state until the first row of class k, which it learns from (as a +1), and from then on
it learns from every row.  Classes declared up front (``partial_fit(..., classes=)``, and
``fit``, which declares the labels of its ``y``) take part from row 1, as in
scikit-learn's one-vs-rest: class k's model learns the rows before its first one as
-1s, and it is a candidate of the arg-max from the start.  So the model equals K
separate binary learners, the k-th trained on ``y == k`` from the first row of class k
on (discovered) or from row 1 (declared), and it does not depend on how the stream is
cut into batches.  Declaring the classes is worth it where they are known: on news20
(one pass, rows L2-normalised, chunks of 100, three random orders) PA-I one-vs-rest errs
0.2161 on average with the classes declared, 0.2179 discovering them; scikit-learn's
one-vs-rest PA-I, 0.2161 (``benchmarks/core.md``, section 5c).  ``n_updates_`` counts
binary updates (up to K per row).

Sample weights, intercept, epochs and shuffling are the base learner's.  A learner that
fixes its state layout from its first input (a full or diagonal covariance from the
width) gets the same layout here: a prototype copy of the base receives the first input
and is started as the binary learner would be; its slots define the blocks.
"""
import copy

import numpy as np
from .._estimator import check_is_fitted, clone

from ..base import OnlineClassifier, OnlineLearner, Slot
from ..linear import LinearDecision
from .._compiled.declare import OVR, Kernels
from .._nested import SavesNested, nested
from .._compiled.driver import BINARY, MULTICLASS
from .._locking import locked


# ---------------------------------------------------------------- estimator
def _block_axes(axes):
    """A slot's axes in one-vs-rest layout: a leading class axis, then the binary shape."""
    return ("K",) + tuple(1 if a == "K" else a for a in axes)


@nested
class OneVsRest(SavesNested, LinearDecision, OnlineClassifier):
    """One-vs-rest over any binary olearn classifier, in one compiled pass per batch.

    Parameters
    ----------
    base : an olearn classifier (for instance ``olearn.make("pa1")``); its
        hyper-parameters, ``fit_intercept``, ``epochs``, ``shuffle`` and
        ``random_state`` are used; it is never fitted itself.

    ``coef_`` is ``(K, n_features)``: row k is class k's binary model (two rows for
    two classes); ``decision_function`` gives the K binary scores, or for two classes
    their difference (scikit-learn's binary convention).
    """
    _tags = {"multiclass": "ovr", "wrapper": True}

    def _instance_tags(self):
        from .._tags import tags
        return {"linear": isinstance(self.base, OnlineLearner) and tags(self.base).linear}

    def __init__(self, base=None):
        self.base = base

    # -------------------------------------------------------- the base's settings
    def _base(self):
        """``base``, checked: the hyper-parameters."""
        if not isinstance(self.base, OnlineClassifier) or isinstance(self.base, OneVsRest):
            raise ValueError(f"base must be a binary olearn classifier (e.g. "
                             f"olearn.make('pa1')), got {self.base!r}")
        return self.base

    # A learner may fix its state layout from its first input (a full or diagonal
    # covariance from the width, say).  A prototype, a copy of ``base``, receives the
    # same first input as this model (the first batch, or the first example) and is
    # started as a binary learner would be; its slots then define the class blocks.
    # Its hyper-parameters follow ``base`` (synchronised in ``_check_params``).
    def _layout(self):
        """The prototype binary learner once learning started, else ``base``."""
        proto = self.__dict__.get("_proto")
        return self._base() if proto is None else proto

    def _new_proto(self):
        self._proto = clone(self._base())
        return self._proto

    def _validate_X(self, X, reset):
        X = super()._validate_X(X, reset)
        if reset:
            self._new_proto()._validate_X(X, reset=True)
        return X

    def _row_lists(self, x, grow):
        if self._is_fresh():
            self._new_proto()._row_lists(x, grow=False)
        return super()._row_lists(x, grow)

    def _start(self, n_features):
        proto = self.__dict__.get("_proto")
        if proto is None:
            proto = self._new_proto()
        if proto._is_fresh():
            proto._start(n_features)
        super()._start(n_features)

    def _reset(self):
        super()._reset()
        self.__dict__.pop("_proto", None)

    def _import_state(self, arrays, K, d):
        """A saved model: the prototype takes its layout (a full or diagonal covariance,
        say) from class 0's block, as it took it from the first input, then the blocks
        are checked against the slots it defines."""
        first = {k: v[0] for k, v in arrays.items()
                 if k.startswith("state/") and getattr(v, "ndim", 0) and len(v)}
        self._new_proto()._import_state(first, 1, d)
        super()._import_state(arrays, K, d)

    fit_intercept = property(lambda self: self._base().fit_intercept)
    intercept_scaling = property(lambda self: getattr(self._base(), "intercept_scaling", 1.0))
    epochs = property(lambda self: self._base().epochs)
    shuffle = property(lambda self: self._base().shuffle)
    random_state = property(lambda self: self._base().random_state)

    @property
    def _slots(self):
        return tuple(Slot(s.name, _block_axes(s.axes), s.fill, s.eye, False)
                     for s in self._layout().slots)

    @property
    def _kernels(self):
        return {MULTICLASS: self._binary_entry()}

    def _binary_entry(self):
        kernels = self._layout().kernels
        if not isinstance(kernels, Kernels) or BINARY not in kernels:
            raise ValueError(f"{type(self.base).__name__} has no declared binary rule: "
                             "OneVsRest needs a binary olearn classifier")
        return kernels.reduction(OVR)

    def set_params(self, **params):
        self.__dict__.pop("_one_cache", None)  # base__C=... changes the kernel's params
        return super().set_params(**params)

    def _synced(self):
        """The prototype (or base) with the hyper-parameters ``base`` has now."""
        base = self._base()
        proto = self.__dict__.get("_proto")
        if proto is None:
            return base
        params = base.get_params(deep=False)
        if proto.get_params(deep=False) != params:
            proto.set_params(**params)
            proto.check_params()  # a parameter that shapes the state must not change
        return proto

    def _check_params(self):
        self._base().check_params()
        self._synced()
        self._binary_entry()
        self._prime_blocks()

    def _state_changed(self):
        super()._state_changed()
        self._prime_blocks()

    def _prime_blocks(self):
        """A base whose compiled score reads values it writes into its own state before
        a call (``_prime``: the sparse learners' hyper-parameters, OFS's seed) gets
        them written into every class block, as K separate binary learners would."""
        prime = getattr(self._layout(), "_prime", None)
        state = self.__dict__.get("state_")
        if prime is not None and state is not None:
            for k in range(state[self.slots[0].name].shape[0]):
                prime({name: arr[k] for name, arr in state.items()})

    def _kernel_params(self):
        return self._synced()._packed_params()

    def _fill(self, slot):
        return self._layout()._fill(slot)

    # -------------------------------------------------------- classes = blocks
    def _task(self):
        return MULTICLASS

    def _add_classes(self, new, like):
        before = list(self.classes_)
        super()._add_classes(new, like)  # labels and seen_; no slot is signed here
        if self._classes_given:
            self.seen_[:] = 1  # declared classes learn from row 1
        n = len(self.classes_)
        lead = self.slots[0].name
        if self.state_[lead].shape[0] < n:
            self._resize_state(n, self._d)
        if len(before) == 1 and self._class_index[before[0]] == 1:
            # the second label sorts first: the first label's block moves to row 1
            for name, arr in self.state_.items():
                self.state_[name] = np.ascontiguousarray(arr[[1, 0] + list(range(2, n))])
            self.__dict__.pop("_one_cache", None)  # (the base swapped seen_ already)

    def _to_multiclass(self, old_n, n):
        self._resize_state(n, self._d)

    # -------------------------------------------------------- prediction
    @locked
    def decision_function(self, X):
        """The K binary scores, (n, K); for two classes the scikit-learn convention,
        (n,) ``score_1 - score_0`` (> 0 means ``classes_[1]``, the arg-max)."""
        return self._two_as_one(self._decision(X))

    def _progressive_output(self, scores, pred, return_scores):
        if return_scores:
            return self._two_as_one(scores)
        return super()._progressive_output(scores, pred, return_scores)

    @staticmethod
    def _two_as_one(scores):
        if scores.ndim == 2 and scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores[:, 0].copy() if scores.ndim == 2 and scores.shape[1] == 1 else scores

    def _class_of(self, scores):
        if scores.shape[1] == 1 and len(self.classes_) == 2:  # score_1 - score_0
            if not self.seen_.all():
                return np.full(scores.shape[0], int(np.argmax(self.seen_)))
            return (scores[:, 0] > 0).astype(np.int64)
        return super()._class_of(scores)

    def _class_model(self, k):
        """Class ``k``'s binary model, sharing this model's arrays (for prediction)."""
        m = copy.copy(self._synced())  # the hyper-parameters base has now
        m.__dict__.pop("_one_cache", None)
        m.state_ = {name: arr[k] for name, arr in self.state_.items()}
        for attr in ("t_", "n_updates_", "n_features_in_", "vocabulary_"):
            setattr(m, attr, getattr(self, attr, None))
        return m

    def _overrides(self, name):
        """Whether the base has its own prediction step ``name`` (NDAG clips the input,
        say): then each class model runs it, else one product with the stacked weights."""
        return getattr(type(self._layout()), name) is not getattr(OnlineClassifier, name)

    def _decision(self, X):
        if not self._overrides("_decision"):
            return super()._decision(X)
        check_is_fitted(self, "state_")
        X = self._validate_X(X, reset=False)
        K = self.state_[self.slots[0].name].shape[0]
        cols = [np.ravel(self._class_model(k)._decision(X)) for k in range(K)]
        return cols[0] if K == 1 else np.column_stack(cols)

    def _scores_one(self, x):
        if self._is_fresh() or not self._overrides("_scores_one"):
            return super()._scores_one(x)
        K = self.state_[self.slots[0].name].shape[0]
        return np.array([np.ravel(self._class_model(k)._scores_one(x))[0] for k in range(K)])

    def _predict_weights(self):
        if type(self._layout())._predict_weights is LinearDecision._predict_weights:
            return self.state_["W"][:, 0, :]
        K = self.state_[self.slots[0].name].shape[0]
        return np.stack([self._class_model(k)._predict_weights()[0] for k in range(K)])
