"""Second-order (confidence-weighted) learners: a Gaussian over the weights.

RLS, AROW (classification and regression), CW, SCW-I/II, NHERD, NAROW, the second-order
Perceptron and IELLIP, each with a full or diagonal covariance (``covariance=``).
Shared parts: ``_base.py`` (state, covariance choice, fitted attributes) and
``olearn/_compiled/second_order.py`` (the inline covariance helpers and the binary and
multiclass rule skeletons).
"""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
