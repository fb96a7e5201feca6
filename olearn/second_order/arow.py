"""AROW: Adaptive Regularization Of Weight vectors (Crammer, Kulesza, Dredze, NIPS 2009;
the seed book's section 31.3.2 and Fig. 31.6).

Binary, mean ``mu`` (0 at start) and covariance ``Sigma`` (I at start).  With margin
``m = y mu.x`` and ``v = x'Sigma x``, when ``m < 1``::

    beta  = 1 / (v + r)
    alpha = (1 - m) beta                  (squared-hinge step)
    mu   += alpha y Sigma x
    Sigma -= beta Sigma x x' Sigma        (i.e. Sigma^-1 += x x' / r)

Multiclass: the single-constraint max-score form of Crammer, Dredze, Kulesza (EMNLP
2009) and of the AROW journal version (Mach. Learn. 2013): ``m = mu_y.x - mu_s.x``
against the top-scoring wrong class ``s``, ``v = x'Sigma_y x + x'Sigma_s x``, then
``mu_y += alpha Sigma_y x``, ``mu_s -= alpha Sigma_s x`` and ``Sigma_k^-1 += x x'/r`` for
``k`` in {y, s} (one covariance per class; see ``olearn/_compiled/second_order.py``).

A sample weight ``h`` weights the loss: ``r`` becomes ``r / h``.  LIBOL's AROW is the
same rule.

``predict_proba`` (binary; multiclass: ``_base.ProbitMixin``):
``Phi(mu.x / sqrt(1 + x'Sigma x))``, the probability that the margin, read with a unit
probit noise, is positive under the Gaussian ``N(mu, Sigma)`` over weights that AROW
keeps, as for CW and SCW.  AROW's rule is a regularised squared hinge
rather than CW's probability constraint, so this is that Gaussian's own reading of its
confidence, not a fitted likelihood; ``olearn evaluate --metric logloss`` measures how
calibrated it is.
"""
from numba import njit

from ..base import OnlineClassifier
from .._compiled.driver import linear_scores
from .._compiled.second_order import cw_rules
from .._compiled.declare import declare
from .._params import store_params
from ._base import COVARIANCE_DOC, ProbitMixin, SecondOrderMixin


@njit(inline="always")
def _wants(params, m):
    return m < 1.0


@njit(inline="always")
def _step(params, m, v, sw):
    r = params.r / sw
    return True, (1.0 - m) / (v + r), 1.0 / r


KERNELS = declare("second_order.arow", params=("r",), score=linear_scores,
                  **cw_rules(_wants, _step))


DOC = f"""AROW {{what}}.

    Parameters
    ----------
    r : float > 0, regularization (larger: smaller, more cautious steps).
    {COVARIANCE_DOC}

    Fitted: ``coef_``, ``intercept_`` (the mean), ``cov_``, ``covariance_``.
    """


class AROWModel(SecondOrderMixin):
    """AROW's parameters, those of the classifier and of ``AROWRegressor`` (``DOC``)."""
    _positive = ("r",)

    def __init__(self, r=1.0, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())


class AROWClassifier(ProbitMixin, AROWModel, OnlineClassifier):
    __doc__ = DOC.format(what="classifier (binary and multiclass)")
    _kernels = KERNELS
