"""What the reductions over binary models share (:class:`PerLabel`): one clone of
``base`` per label in ``models_``, saved and loaded under ``m<j>.`` of the model file,
widened together, their updates summed."""
from __future__ import annotations

import numpy as np

from .._estimator import estimator_kind
from .._nested import export_model, import_model
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

    def _check(self):
        self.check_params()

    def start(self):
        self.models_ = []

    def _base(self):
        return default_base() if self.base is None else self.base

    def held_learners(self):
        return list(self.__dict__.get("models_", [self._base()]))

    def fresh(self):
        return self._base().clone()

    # ------------------------------------------------------------ state
    def own_state(self):
        arrays = {}
        return {"models": [export_model(m, f"m{j}.", arrays)
                           for j, m in enumerate(self.models_)]}, arrays

    def load_own_state(self, meta, arrays):
        info = meta.get("models")
        n = len(self.__dict__.get("classes_", ()))
        if not isinstance(info, list) or len(info) != n:
            raise ValueError(f"models: {n} saved models expected (one a label)")
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
