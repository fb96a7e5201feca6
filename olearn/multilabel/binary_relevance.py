"""Binary relevance: one binary model per label (the reduction of Tsoumakas and Katakis,
"Multi-Label Classification: An Overview", IJDWM 3(3), 2007, section 3.1).

Label j's model learns the stream of (x, 1 if j is relevant else 0) from the row that
makes j known, and is told both binary labels up front (``classes=[0, 1]``), so that
``BinaryRelevance(base)`` over an indicator matrix is exactly L separate binary passes
of ``base`` over its columns.  A batch runs each member's compiled pass over the rows in
turn (the members are independent, so the order of members does not matter).
"""
import numpy as np

from ._base import masked, _pick
from ._members import BINARY, PerLabel, member_pass


class BinaryRelevance(PerLabel):
    """One binary ``base`` model per label (``models_``, in ``classes_`` order).

    Parameters
    ----------
    base : an olearn binary classifier (cloned once per label), e.g. ``olearn.make("pa1")``;
        None: PA-II with C = 0.012 and ``intercept_scaling=1`` (``_members.DEFAULT_BASE``).
    """

    def __init__(self, base=None):
        self.base = base

    def add_labels(self, new, first):
        for j in new:
            self.models_.insert(int(j), self.fresh())

    def learn_rows(self, X, Y, sample_weight, first, return_scores):
        n, L = Y.shape
        pred, scores = np.zeros((n, L), dtype=np.int8), np.zeros((n, L))
        for j, m in enumerate(self.models_):
            pred[:, j], scores[:, j] = member_pass(m, X, Y[:, j], sample_weight,
                                                   max(int(first[j]), 0))
        return _pick(*masked(pred, scores, first), return_scores)

    def predict_rows(self, X, return_scores=False):
        n, L = X.shape[0], len(self.models_)
        pred, scores = np.zeros((n, L), dtype=np.int8), np.zeros((n, L))
        for j, m in enumerate(self.models_):
            if m.__sklearn_is_fitted__():
                scores[:, j] = m.decision_function(X)
                pred[:, j] = m.predict(X)
        return scores if return_scores else pred

    def learn_example(self, x, y, sample_weight, first):
        out = np.zeros(len(self.models_), dtype=np.int8)
        for j, m in enumerate(self.models_):
            if not m.__sklearn_is_fitted__():  # (told both labels, as a batch's member)
                p = 0
                row = np.asarray(x, dtype=np.float64)[None, :] if not isinstance(x, dict) \
                    else None
                if row is not None:
                    m.partial_fit(row, np.array([y[j]]), classes=BINARY,
                                  sample_weight=None if sample_weight == 1.0 else
                                  np.array([sample_weight]))
                else:
                    m.learn_one(x, int(y[j]), sample_weight)
            else:
                p = m.predict_learn_one(x, int(y[j]), sample_weight)
            out[j] = int(p or 0)
        return out

    def predict_example(self, x):
        return np.array([int(m.predict_one(x) or 0) if m.__sklearn_is_fitted__() else 0
                         for m in self.models_], dtype=np.int8)
