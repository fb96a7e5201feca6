"""What every olearn anomaly detector shares: scikit-learn's outlier-detector kind, the
one-row scores through the compiled scorer, and the calls written once from a model's
``_predict_rows`` (-1 an outlier, +1 an inlier) and its progressive scores."""
from .._locking import locked
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
