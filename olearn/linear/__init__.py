"""First-order linear learners: Perceptron, Passive-Aggressive, OGD/SGD with losses,
schedules and projection, LMS, ALMA, ROMMA, and step sizes that need no tuning
(AdaGrad, normalized adaptive gradient, coin betting).  Every one takes
``average=True`` (Polyak-Ruppert averaging).

What a learner trained on a loss of ``olearn._compiled.losses`` builds on (the sparse
learners too): ``LossModel`` (the ``loss`` parameter and its kernels), ``LogisticProba``
and ``logistic_proba`` (``predict_proba`` of the logistic loss); ``LinearDecision``
(the decision ``w.x + b``, ``coef_``, ``intercept_``: also the second-order, sparse and
one-vs-rest models)."""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__), "LossModel": "_loss", "LogisticProba": "_proba",
          "logistic_proba": "_proba", "LinearDecision": "_linear",
          "LinearModel": "_linear"}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
