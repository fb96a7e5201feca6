"""Ensembles of online learners: prediction with expert advice over many learners in one
pass (:class:`ExpertAdvice`), and :class:`AutoClassifier` / :class:`AutoRegressor`,
which need no tuning (``olearn.make("auto")``, ``olearn.make("auto-reg")``)."""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__), "Auto": "auto"}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
