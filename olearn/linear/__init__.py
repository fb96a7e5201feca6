"""First-order linear learners: Perceptron, Passive-Aggressive, OGD/SGD with losses,
schedules and projection, LMS, ALMA, ROMMA, and step sizes that need no tuning
(AdaGrad, normalized adaptive gradient, coin betting).  Every one takes
``average=True`` (Polyak-Ruppert averaging)."""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
