"""Second-order (confidence-weighted) learners: a Gaussian over the weights.

RLS, AROW (classification and regression), CW, SCW-I/II, NHERD, NAROW, the second-order
Perceptron and IELLIP, each with a full or diagonal covariance (``covariance=``).
Shared parts: ``_base.py`` (state, covariance choice, fitted attributes) and
``olearn/_compiled/second_order.py`` (the inline covariance helpers and the binary and
multiclass rule skeletons).
"""
from .arow import AROWClassifier
from .arow_regressor import AROWRegressor
from .cw import CWClassifier
from .iellip import IELLIPClassifier
from .narow import NAROWClassifier
from .nherd import NHERDClassifier
from .rls import RLSRegressor
from .scw import SCWClassifier
from .sop import SOPClassifier

__all__ = ["AROWClassifier", "AROWRegressor", "CWClassifier", "IELLIPClassifier",
           "NAROWClassifier", "NHERDClassifier", "RLSRegressor", "SCWClassifier",
           "SOPClassifier"]
