"""What the reductions over binary models share (:class:`PerLabel`): one clone of
``base`` per label in ``models_``, saved and loaded under ``m<j>.`` of the model file,
widened together, their updates summed."""
from __future__ import annotations

import numpy as np

from .._estimator import estimator_kind
from .._nested import export_model, import_model
from .._validation import check_choice, check_saved_array
from . import _threshold as cutting
from ._base import MultilabelModel

#: the binary labels every member is told of up front (a member that has met only
#: negatives learns as one that was told both)
BINARY = np.array([0, 1])


#: the binary model of each label when ``base`` is None: PA-II (Crammer et al. 2006) with
#: ``C = 0.012`` and an intercept feature of 1, chosen on the five standard sets of
#: ``benchmarks/multilabel.md`` (a small C: most labels are rare, and a large step on
#: each of their few positives over-predicts them)
DEFAULT_BASE = {"variant": "PA-II", "C": 0.012, "intercept_scaling": 1.0}


def default_base():
    """A fresh default binary model (:data:`DEFAULT_BASE`)."""
    from ..linear.pa import PAClassifier
    return PAClassifier(**DEFAULT_BASE)


class PerLabel(MultilabelModel):
    """A multilabel reduction holding one binary ``base`` clone per label."""

    _order_attr = "classes_"

    def check_params(self):
        base = self._base()
        if not (hasattr(base, "clone") and hasattr(base, "predict_learn")):
            raise TypeError(f"{type(self).__name__}: base must be an olearn classifier, got "
                            f"{base!r:.80}")
        if estimator_kind(base) != "classifier" or getattr(base, "target", "label") != "label":
            raise ValueError(f"{type(self).__name__}: base must be a classifier of one "
                             f"label, got {type(base).__name__}")
        check_choice("threshold", self.threshold, cutting.THRESHOLDS)
        cutting.check_cuts(self.cuts)

    def _check(self):
        self.check_params()

    def start(self):
        self.models_ = []
        if self.threshold != "fixed":
            self.cut_counts_ = cutting.fresh(self.threshold, 0,
                                             len(cutting.check_cuts(self.cuts)))

    # ------------------------------------------------------------ the calibrated cut
    def _register(self, b):
        super()._register(b)
        if len(b.new) and self.threshold != "fixed":
            self.cut_counts_ = cutting.grow(self.cut_counts_, self.threshold, b.new)

    def _late(self, n, first, fitted):
        """(n, L): where a label is not predictable in a batch of n rows: up to the row
        that makes it known (``first``), or, a label known before the batch whose
        model has learned nothing yet (``fitted`` False: declared by ``classes``), up to
        the batch's first row, which its model learns first."""
        f = np.where(first >= 0, first, np.where(fitted, -1, 0))
        return np.arange(n)[:, None] <= f[None, :]

    def _fitted_labels(self):
        """(L,) in ``classes_`` order: whether each label's model has learned a row."""
        return np.array([m.__sklearn_is_fitted__() for m in self.models_], dtype=bool)

    def _cut(self, pred, scores, Y, sample_weight, late):
        """The rows' predictions and scores under the calibrated cut (learned from
        them, :mod:`olearn.multilabel._threshold`); ``threshold="fixed"``: as given."""
        if self.threshold == "fixed":
            return pred, scores
        w = np.ones(Y.shape[0]) if sample_weight is None else sample_weight
        T, self.cut_counts_ = cutting.learn(self.threshold, self.cut_counts_,
                                            cutting.check_cuts(self.cuts), scores, Y, w,
                                            late)
        return cutting.apply(scores, T, late)

    def _cut_example(self, out, scores, y, first, fitted, sample_weight):
        """One example's answers under the calibrated cut, learned from its pre-update
        ``scores`` (``threshold="fixed"``: ``out`` as given)."""
        if self.threshold == "fixed":
            return out
        late = self._late(1, first, fitted)
        return self._cut(out[None, :], np.where(late, 0.0, scores[None, :]), y[None, :],
                         None if sample_weight == 1.0 else np.array([sample_weight]),
                         late)[0][0]

    def _cut_now(self, pred, scores, fitted):
        """Predictions and scores of the current cut (nothing learned)."""
        if self.threshold == "fixed":
            return pred, scores
        T = cutting.current(self.threshold, self.cut_counts_,
                            cutting.check_cuts(self.cuts), scores.shape[1])
        return cutting.apply(scores, T[None, :], ~np.broadcast_to(fitted, scores.shape))

    @property
    def thresholds_(self):
        """(L,): each label's cut now (0.0 for ``threshold="fixed"``)."""
        self._fitted()
        L = len(self.models_)
        if self.threshold == "fixed":
            return np.zeros(L)
        return cutting.current(self.threshold, self.cut_counts_,
                               cutting.check_cuts(self.cuts), L)

    def _base(self):
        return default_base() if self.base is None else self.base

    def held_learners(self):
        return list(self.__dict__.get("models_", [self._base()]))

    def fresh(self):
        return self._base().clone()

    # ------------------------------------------------------------ state
    def own_state(self):
        arrays = {}
        if self.threshold != "fixed":
            arrays["cuts"] = self.cut_counts_
        return {"models": [export_model(m, f"m{j}.", arrays)
                           for j, m in enumerate(self.models_)]}, arrays

    def load_own_state(self, meta, arrays):
        info = meta.get("models")
        n = len(self.__dict__.get("classes_", ()))
        if not isinstance(info, list) or len(info) != n:
            raise ValueError(f"models: {n} saved models expected (one a label)")
        if self.threshold != "fixed":
            K = len(cutting.check_cuts(self.cuts))
            self.cut_counts_ = check_saved_array(
                "cuts", arrays.get("cuts"), (K,) if self.threshold == "calibrated" else
                (n, 3, K), np.float64)
        self.models_ = [import_model(i, f"m{j}.", arrays, like=self._base())
                        for j, i in enumerate(info)]

    def widen(self, n_features):
        """Take ``n_features`` columns from now on (every member widens)."""
        if not self._started():
            return None
        for m in self.models_:
            if m.__sklearn_is_fitted__():
                m.widen(n_features + self._extra_columns(m))
        if "n_features_in_" in self.__dict__:
            self.n_features_in_ = max(self.n_features_in_, int(n_features))
        return self.__dict__.get("n_features_in_")

    def _extra_columns(self, model):
        return 0


def score_one(model, x):
    """A fitted binary model's score of one example (an array or a dict)."""
    if isinstance(x, dict):
        return float(np.asarray(model._scores_one(x)).ravel()[0])
    return float(model.decision_function(np.asarray(x, dtype=np.float64)[None, :])[0])


def member_pass(model, X, y, sample_weight, start):
    """``model`` learns rows ``start:`` of ``X`` with 0/1 labels ``y``; returns the (n,)
    pre-update predictions and scores (zeros before ``start``)."""
    n = X.shape[0]
    pred, scores = np.zeros(n, dtype=np.int8), np.zeros(n)
    if start >= n:
        return pred, scores
    sw = None if sample_weight is None else sample_weight[start:]
    p, s = model.predict_learn(X[start:], y[start:], return_scores="both",
                               sample_weight=sw, classes=BINARY)
    pred[start:], scores[start:] = p, s
    return pred, scores
