"""Multiclass reductions over olearn's binary learners.

Every olearn classifier is natively multiclass (K weight rows, max-score updates); this
package adds the alternative reduction :class:`OneVsRest`, which turns any binary olearn
learner into K independent "class k versus the rest" learners trained in one compiled
pass.
"""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
