"""``predict_proba`` for the sparse classifiers trained with the logistic loss."""
import numpy as np
from sklearn.utils.metaestimators import available_if

from ..linear.ogd import _proba


def _logistic(model):
    return getattr(model, "loss", "logistic") == "logistic"


class LogisticProba:
    """Sigmoid (binary) or softmax over the seen classes (multiclass) of the scores."""

    @available_if(_logistic)
    def predict_proba(self, X):
        """Class probabilities (logistic loss only)."""
        return _proba(self, self.decision_function(X))

    @available_if(_logistic)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))
