"""Binary relevance: one binary model per label (the reduction of Tsoumakas and Katakis,
"Multi-Label Classification: An Overview", IJDWM 3(3), 2007, section 3.1).

Label j's model learns the stream of (x, 1 if j is relevant else 0) from the row that
makes j known, and is told both binary labels up front (``classes=[0, 1]``), so that
``BinaryRelevance(base)`` over an indicator matrix is exactly L separate binary passes
of ``base`` over its columns.  A batch runs each member's compiled pass over the rows in
turn (the members are independent, so the order of members does not matter).

``threshold="calibrated"`` or ``"scut"`` cuts the members' scores where the progressive
example-based F1 (one cut for all labels) or each label's F1 (one a label) of the rows
before was best (:mod:`olearn.multilabel._threshold`), in place of each member's own
prediction; the members learn as they would without it.
"""
import numpy as np

from ._base import masked, _pick
from ._members import BINARY, PerLabel, member_pass, score_one


class BinaryRelevance(PerLabel):
    """One binary ``base`` model per label (``models_``, in ``classes_`` order).

    Parameters
    ----------
    base : an olearn binary classifier (cloned once per label), e.g. ``olearn.make("pa1")``;
        None: PA-II with C = 0.012 and ``intercept_scaling=1`` (``_members.DEFAULT_BASE``).
    threshold : "fixed" (each member's prediction), "calibrated" (one cut of the scores
        for all labels, the best progressive example-based F1) or "scut" (a cut a label,
        its best progressive F1; Yang 2001); see :mod:`olearn.multilabel._threshold`.
    cuts : list of floats or None, the candidate cuts (None: 41 from -1 to 1).
    """

    def __init__(self, base=None, threshold="fixed", cuts=None):
        self.base, self.threshold, self.cuts = base, threshold, cuts

    def add_labels(self, new, first):
        for j in new:
            self.models_.insert(int(j), self.fresh())

    def learn_rows(self, X, Y, sample_weight, first, return_scores):
        n, L = Y.shape
        pred, scores = np.zeros((n, L), dtype=np.int8), np.zeros((n, L))
        late = self._late(n, first, self._fitted_labels())
        for j, m in enumerate(self.models_):
            pred[:, j], scores[:, j] = member_pass(m, X, Y[:, j], sample_weight,
                                                   max(int(first[j]), 0))
        pred, scores = masked(pred, scores, first)
        return _pick(*self._cut(pred, scores, Y, sample_weight, late), return_scores)

    def predict_rows(self, X, return_scores=False):
        n, L = X.shape[0], len(self.models_)
        pred, scores = np.zeros((n, L), dtype=np.int8), np.zeros((n, L))
        fitted = np.zeros(L, dtype=bool)
        for j, m in enumerate(self.models_):
            if m.__sklearn_is_fitted__():
                fitted[j] = True
                scores[:, j] = m.decision_function(X)
                pred[:, j] = m.predict(X)
        pred, scores = self._cut_now(pred, scores, fitted)
        return scores if return_scores else pred

    def learn_example(self, x, y, sample_weight, first):
        if self.threshold != "fixed":
            fitted = self._fitted_labels()
            scores = np.array([score_one(m, x) if f else 0.0
                               for m, f in zip(self.models_, fitted)])
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
        if self.threshold != "fixed":  # (scores and fitted exist only then)
            out = self._cut_example(out, scores, y, first, fitted, sample_weight)
        return out

    def predict_example(self, x):
        if self.threshold != "fixed":
            fitted = np.array([m.__sklearn_is_fitted__() for m in self.models_])
            scores = np.array([score_one(m, x) if f else 0.0
                               for m, f in zip(self.models_, fitted)])
            return self._cut_now(None, scores[None, :], fitted)[0][0]
        return np.array([int(m.predict_one(x) or 0) if m.__sklearn_is_fitted__() else 0
                         for m in self.models_], dtype=np.int8)
