"""``predict_proba`` for the sparse classifiers trained with the logistic loss: the
linear learners' mixin (``olearn.linear._proba``)."""
from ..linear._proba import LogisticProba, _proba  # noqa: F401
