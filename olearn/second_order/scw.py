"""Soft confidence-weighted learning, SCW-I and SCW-II (Wang, Zhao, Hoi, "Exact Soft
Confidence-Weighted Learning", ICML 2012, Sec. 3, Theorems for SCW-I and SCW-II).

As CW (``olearn.second_order.cw``): weights ~ N(mu, Sigma), ``mu = 0``, ``Sigma = I``
at start, ``phi = Phi^-1(eta)``, ``psi = 1 + phi^2/2``, ``zeta = 1 + phi^2``,
``m = y mu.x``, ``v = x'Sigma x``; it updates when the loss
``max(0, phi sqrt(v) - m)`` is positive, with the step

* SCW-I:  ``alpha = min(C, max(0, (-m psi + sqrt(m^2 phi^4/4 + v phi^2 zeta)) / (v zeta)))``
* SCW-II: ``alpha = max(0, (-(2 m n + phi^2 m v) + gamma) / (2 (n^2 + n v phi^2)))``
  with ``n = v + 1/(2C)`` and ``gamma = phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2))``

then, for both, ``u = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v))^2 / 4``,
``beta = alpha phi / (sqrt(u) + v alpha phi)``, ``mu += alpha y Sigma x``,
``Sigma -= beta Sigma x x' Sigma``.

Departure of LIBOL (its ``SCW2.m``) from the paper, not followed here: its gamma reads
``sqrt(phi^4 m^2 v 2 + 4 n v phi^2 (n + v phi 2))``, i.e. ``2 v`` for ``v^2`` and
``2 phi`` for ``phi^2``.  This file follows the paper's SCW-II.

``predict_proba``: ``Phi(mu.x / sqrt(1 + x'Sigma x))`` (binary); multiclass, the probability
that class k's margin is the largest (``_base.ProbitMixin``).  Multiclass: the
single-constraint max-score form of Crammer, Dredze, Kulesza (EMNLP 2009), per-class
covariances (see ``olearn/_compiled/second_order.py``).  A sample weight ``h`` multiplies
``C``.
"""
import math

from numba import njit

from ..base import OnlineClassifier
from .._compiled.driver import linear_scores
from .._compiled.second_order import cw_alpha, cw_rules, cw_precision
from .._compiled.declare import declare
from .._params import store_params
from ._base import COVARIANCE_DOC, ProbitMixin, SecondOrderMixin, check_positive
from .cw import PROBIT, probit_params

VARIANTS = ("I", "II")


@njit(inline="always")
def _wants(params, m):
    return True


@njit(inline="always")
def _step(params, m, v, sw):
    phi = params.phi
    if not phi * math.sqrt(v) - m > 0.0:
        return False, 0.0, 0.0
    psi, zeta, C = params.psi, params.zeta, params.C * sw
    if params.variant == 1.0:
        alpha = min(C, max(0.0, cw_alpha(m, v, phi, psi, zeta)))
    else:
        n = v + 0.5 / C
        gamma = phi * math.sqrt(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi))
        alpha = max(0.0, (-(2.0 * m * n + phi * phi * m * v) + gamma)
                    / (2.0 * (n * n + n * v * phi * phi)))
    if not alpha > 0.0:
        return False, 0.0, 0.0
    return True, alpha, cw_precision(alpha, v, phi)


KERNELS = declare("second_order.scw", params=PROBIT + ("C", "variant"), score=linear_scores,
                  **cw_rules(_wants, _step))


class SCWClassifier(ProbitMixin, SecondOrderMixin, OnlineClassifier):
    __doc__ = f"""Soft confidence-weighted classifier (SCW-I or SCW-II, binary and multiclass).

    Parameters
    ----------
    C : float > 0, aggressiveness.
    eta : float in (0.5, 1), confidence.
    variant : "I" or "II".
    {COVARIANCE_DOC}
    """
    _kernels = KERNELS

    def __init__(self, C=1.0, eta=0.95, variant="I", covariance="auto",
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be 'I' or 'II', got {self.variant!r}")
        check_positive("C", self.C)
        probit_params(self.eta)

    def _kernel_params(self):
        return dict(zip(PROBIT, probit_params(self.eta)), C=self.C,
                    variant=1.0 if self.variant == "I" else 2.0)
