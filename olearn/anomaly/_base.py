"""What every olearn anomaly detector shares: scikit-learn's outlier-detector kind, the
one-row and batch scores through the compiled scorer, and the calls written once from a
model's ``_predict_rows`` (-1 an outlier, +1 an inlier) and its progressive scores;
``_ThresholdDetector``: the calls of a detector whose score is flagged above a
``threshold_`` (Half-Space Trees, LODA)."""
import numpy as np

from .._locking import locked
from .._rows import kernel_rows, score_rows
from ..base import OnlineUnlabelled


class _Detector(OnlineUnlabelled):
    """Base of the detectors of ``olearn.anomaly`` (not a family base: the calls only)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "outlier_detector"
        return tags

    def _row_scores(self, row, n):
        """One row's scores by the declared score on the one-row buffer, through the
        compiled scorer's entry point (the base's path builds a scipy matrix per row)."""
        return self._scorer_row_scores(row, n)

    def batch_scores(self, X):
        """The rows' scores by the declared score over the current state, which is only
        read: the scratch slots (``mix="reset"``, which a score fills and clears) are
        copies of their own."""
        scores = np.empty((X.shape[0], 1))
        arrays = [np.zeros(a.shape) if slot.mix == "reset" else a
                  for slot, a in zip(self.slots, self._state_tuple())]
        score_rows(self.kernels.scorer, kernel_rows(X, False), tuple(arrays), scores)
        return scores

    @locked
    def score_many(self, X):
        """``score_one`` of each row of ``X`` in one compiled call: the anomaly scores
        (higher = more anomalous, River's side), changing nothing; an array for an array
        or sparse matrix, a Series on its index for a DataFrame (River's mini-batch
        form, the base's)."""
        if hasattr(X, "columns"):
            return super().score_many(X)
        return self._scores(X)[:, 0].copy()

    @locked
    def predict(self, X):
        """+1 for an inlier, -1 for an outlier (the model's rule on its scores)."""
        return self._predict_rows(self._scores(X))

    @locked
    def fit_predict(self, X, y=None, sample_weight=None):
        """``fit(X)``, then ``predict(X)``."""
        return self.fit(X, sample_weight=sample_weight).predict(X)

    @locked
    def score_learn(self, X, sample_weight=None):
        """The progressive anomaly scores: each row's score from the model before that
        row (higher = more anomalous), the model learning the rows in order, in one
        compiled pass."""
        return self.predict_learn(X, return_scores=True, sample_weight=sample_weight)[:, 0]


class _ThresholdDetector(_Detector):
    """A detector whose score (higher = more anomalous, 0 before it can score) flags a
    row above ``threshold_`` (a property of the model)."""

    def _predict_rows(self, scores):
        return np.where(scores[:, 0] > self.threshold_, -1, 1)

    def _score_from_scores(self, scores):
        return 0.0 if scores is None else float(scores[0])

    def _predict_from_scores(self, scores):
        return 1 if scores is None else (-1 if scores[0] > self.threshold_ else 1)

    @locked
    def score_samples(self, X):
        """Minus each row's anomaly score (scikit-learn's convention: lower = more
        abnormal)."""
        return -self._scores(X)[:, 0]

    @locked
    def decision_function(self, X):
        """``threshold_ - score``: negative for an outlier."""
        return self.threshold_ - self._scores(X)[:, 0]
