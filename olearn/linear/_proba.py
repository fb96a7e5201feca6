"""``predict_proba`` of the classifiers trained with a loss: the sigmoid of the score
(binary) or the softmax over the classes seen (multiclass).  With the logistic loss
that is the model the loss fits; with another (hinge, squared hinge, ...) it is the
logistic link of the margin, as every margin classifier's (``OnlineClassifier``).  One
mixin for every such learner (OGD, COCOB, NDAG, the sparse learners), public as
``olearn.linear.LogisticProba`` and ``olearn.linear.logistic_proba``."""
import numpy as np
from .._locking import locked


def logistic_proba(model, scores):
    """Probabilities from decision values: binary sigmoid or masked softmax."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        p = np.empty(scores.shape[0])
        pos = scores >= 0
        p[pos] = 1.0 / (1.0 + np.exp(-scores[pos]))
        e = np.exp(scores[~pos])
        p[~pos] = e / (1.0 + e)
        if len(model.classes_) == 1:
            return np.ones((scores.shape[0], 1))
        return np.column_stack([1.0 - p, p])
    s = np.where(model.seen_.astype(bool), scores, -np.inf)
    s = np.exp(s - s.max(axis=1, keepdims=True))
    return s / s.sum(axis=1, keepdims=True)


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


def _register():
    from ..base import _LOGISTIC_PROBAS
    _LOGISTIC_PROBAS.add(LogisticProba.predict_proba)


_register()  # (before any class deriving from LogisticProba is made)
