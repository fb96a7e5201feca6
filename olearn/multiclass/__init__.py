"""Multiclass reductions over olearn's binary learners.

Every olearn classifier is natively multiclass (K weight rows, max-score updates); this
package adds the alternative reduction :class:`OneVsRest`, which turns any binary olearn
learner into K independent "class k versus the rest" learners trained in one compiled
pass.
"""
from .ovr import OneVsRest

__all__ = ["OneVsRest"]
