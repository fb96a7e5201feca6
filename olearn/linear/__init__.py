"""First-order linear learners: Perceptron, Passive-Aggressive, OGD/SGD with losses,
schedules and projection, LMS, ALMA, ROMMA, and step sizes that need no tuning
(AdaGrad, normalized adaptive gradient, coin betting).  Every one takes
``average=True`` (Polyak-Ruppert averaging).

What a learner trained on a loss of ``olearn._compiled.losses`` builds on (the sparse
learners too): ``LossModel`` (the ``loss`` parameter and its kernels), ``LogisticProba``
and ``logistic_proba`` (``predict_proba`` of the logistic loss)."""
from ._loss import LossModel  # noqa: F401 (for learners on a loss: also sparse/)
from ._proba import LogisticProba, logistic_proba  # noqa: F401 (idem)
from .alma import ALMAClassifier
from .cocob import COCOBClassifier, COCOBRegressor
from .lms import LMSRegressor
from .ndag import NDAGClassifier, NDAGRegressor
from .ogd import OGDClassifier, OGDRegressor
from .pa import PAClassifier
from .pa_regressor import PARegressor
from .perceptron import Perceptron
from .romma import ROMMAClassifier

__all__ = ["ALMAClassifier", "COCOBClassifier", "COCOBRegressor", "LMSRegressor",
           "NDAGClassifier", "NDAGRegressor", "OGDClassifier", "OGDRegressor",
           "PAClassifier", "PARegressor", "Perceptron", "ROMMAClassifier"]
