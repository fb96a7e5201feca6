"""What the sparse learners share with the linear learners trained on a loss: the
``loss`` parameter and its per-loss kernels (``olearn.linear._loss``), and
``predict_proba`` for the logistic loss (``olearn.linear._proba``)."""
from ..linear._loss import LossModel  # noqa: F401
from ..linear._proba import LogisticProba, _proba  # noqa: F401
