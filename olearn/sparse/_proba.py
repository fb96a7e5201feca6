"""What the sparse learners share with the linear learners trained on a loss: the
``loss`` parameter and its per-loss kernels (``olearn.linear.LossModel``), and
``predict_proba`` for the logistic loss (``olearn.linear.LogisticProba``)."""
from ..linear import LogisticProba, LossModel  # noqa: F401
