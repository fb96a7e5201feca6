"""``predict_proba`` of the classifiers trained with a loss: the sigmoid of the score
(binary) or the softmax over the classes seen (multiclass).  With the logistic loss
that is the model the loss fits; with another (hinge, squared hinge, ...) it is the
logistic link of the margin, as every margin classifier's (``OnlineClassifier``).  One
mixin for every such learner (OGD, COCOB, NDAG, the sparse learners), public as
``olearn.linear.LogisticProba`` and ``olearn.linear.logistic_proba``."""
import numpy as np

from .._links import LOGISTIC_PROBAS, logistic_proba
from .._locking import locked


_proba = logistic_proba  # former name


class LogisticProba:
    """Sigmoid (binary) or softmax over the seen classes (multiclass) of the scores."""

    _capabilities = {"probabilistic": True}

    @locked
    def predict_proba(self, X):
        """Class probabilities: the sigmoid of the score (two classes), the softmax over
        the classes seen (more).  With ``loss="logistic"`` the model the loss fits;
        with another loss the logistic link of the margin (as River's ``PAClassifier``)."""
        return logistic_proba(self, self.decision_function(X))

    @locked
    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


LOGISTIC_PROBAS.add(LogisticProba.predict_proba)  # (before any class derives from it)
