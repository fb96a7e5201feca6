"""Confidence-weighted learning, exact convex form (Crammer, Dredze, Pereira, "Exact
Convex Confidence-Weighted Learning", NIPS 2008, Sec. 3, eqs. for alpha, u and the
covariance; restated in Wang, Zhao, Hoi ICML 2012, Sec. 2).

Weights ~ N(mu, Sigma), ``mu = 0``, ``Sigma = a I`` at start.  The update is the KL
projection onto ``Pr[y w.x >= 0] >= eta``, i.e. ``m >= phi sqrt(v)`` with
``phi = Phi^-1(eta)``, ``m = y mu.x``, ``v = x'Sigma x``.  With ``psi = 1 + phi^2/2``,
``zeta = 1 + phi^2``::

    alpha = max(0, (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 zeta)) / (v zeta))
    u     = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v))^2 / 4
    beta  = alpha phi / (sqrt(u) + v alpha phi)
    mu   += alpha y Sigma x
    Sigma -= beta Sigma x x' Sigma        (i.e. Sigma^-1 += alpha phi / sqrt(u) x x')

It updates exactly when ``m < phi sqrt(v)``.  ``predict_proba`` is the probit predictive
(issue 44; the constraint's own ``Phi(mu.x / sqrt(x'Sigma x))`` reads near 0 or 1 once
the covariance shrinks): ``Phi(mu.x / sqrt(1 + x'Sigma x))`` (binary models; multiclass, the
probability that class k's margin is the largest: ``_base.ProbitMixin``).

Multiclass: the single-constraint max-score form of Crammer, Dredze, Kulesza (EMNLP
2009) with per-class covariances: ``m = mu_y.x - mu_s.x``, ``v = x'Sigma_y x +
x'Sigma_s x`` (see ``olearn/_compiled/second_order.py``).  A sample weight ``h``
multiplies alpha and the precision increment.
"""
import math
import numbers
from statistics import NormalDist

from numba import njit

from ..base import OnlineClassifier
from .._compiled.driver import linear_scores
from .._compiled.second_order import cw_alpha, cw_rules, cw_precision
from .._compiled.declare import declare
from .._params import store_params
from ._base import COVARIANCE_DOC, ProbitMixin, SecondOrderMixin, check_positive


#: the names of ``probit_params``'s values, the kernel parameters of CW
PROBIT = ("phi", "psi", "zeta")


def probit_params(eta):
    """``(phi, psi, zeta)`` of a confidence level ``eta`` in (0.5, 1)."""
    if not (isinstance(eta, numbers.Real) and 0.5 < eta < 1.0):
        raise ValueError(f"eta must be a number in (0.5, 1), got {eta!r}")
    phi = NormalDist().inv_cdf(float(eta))
    return phi, 1.0 + phi * phi / 2.0, 1.0 + phi * phi


@njit(inline="always")
def _wants(params, m):
    return True


@njit(inline="always")
def _step(params, m, v, sw):
    phi, psi, zeta = params.phi, params.psi, params.zeta
    if not m < phi * math.sqrt(v):      # the constraint holds (alpha would be 0)
        return False, 0.0, 0.0
    alpha = cw_alpha(m, v, phi, psi, zeta)
    if not alpha > 0.0:
        return False, 0.0, 0.0
    return True, sw * alpha, sw * cw_precision(alpha, v, phi)


KERNELS = declare("second_order.cw", params=PROBIT, score=linear_scores,
                  **cw_rules(_wants, _step))


class CWClassifier(ProbitMixin, SecondOrderMixin, OnlineClassifier):
    __doc__ = f"""Confidence-weighted classifier (exact CW, binary and multiclass).

    Parameters
    ----------
    eta : float in (0.5, 1), the confidence the update enforces.
    a : float > 0, initial variance (``Sigma = a I``).
    {COVARIANCE_DOC}
    """
    _kernels = KERNELS

    def __init__(self, eta=0.95, a=1.0, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    @property
    def _sigma0(self):
        return float(self.a)

    def _check_hyper(self):
        probit_params(self.eta)
        check_positive("a", self.a)

    def _kernel_params(self):
        return dict(zip(PROBIT, probit_params(self.eta)))
