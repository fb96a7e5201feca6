"""NHERD: normal herding (Crammer and Lee, "Learning via Gaussian Herding", NIPS 2010,
Sec. 4, the full-matrix update).

Weights ~ N(mu, Sigma), ``mu = 0``, ``Sigma = I`` at start.  With ``m = y mu.x``,
``v = x'Sigma x``, when ``m < 1``::

    mu    += max(0, 1 - m) / (v + 1/C) y Sigma x
    Sigma -= (C^2 v + 2 C) / (1 + C v)^2 Sigma x x' Sigma

The covariance update is the herding of all weight vectors by the same linear map,
``Sigma <- A Sigma A'`` with ``A = I - C/(1 + C v) Sigma x x'``; in precision form it is
``Sigma^-1 += C (2 + C v) x x'``, which is what the diagonal covariance uses (the
diagonal of that precision update, as for every learner here; the paper's own diagonal
variant herds each coordinate separately, replacing ``v`` by ``Sigma_ii x_i^2``).  LIBOL's
NHERD is the same full update.

Multiclass: the single-constraint max-score form of Crammer, Dredze, Kulesza (EMNLP
2009) with per-class covariances (``m = mu_y.x - mu_s.x``, ``v = x'Sigma_y x +
x'Sigma_s x``; see ``olearn/_compiled/second_order.py``).  A sample weight ``h`` multiplies
``C``.
"""
from numba import njit

from ..base import OnlineClassifier
from .._compiled.driver import linear_scores
from .._compiled.second_order import cw_rules
from .._compiled.declare import declare
from .._params import store_params
from ._base import COVARIANCE_DOC, SecondOrderMixin


@njit(inline="always")
def _wants(params, m):
    return m < 1.0


@njit(inline="always")
def _step(params, m, v, sw):
    C = params.C * sw
    return True, (1.0 - m) / (v + 1.0 / C), C * (2.0 + C * v)


KERNELS = declare("second_order.nherd", params=("C",), score=linear_scores,
                  **cw_rules(_wants, _step))


class NHERDClassifier(SecondOrderMixin, OnlineClassifier):
    __doc__ = f"""Normal herding classifier (binary and multiclass).

    Parameters
    ----------
    C : float > 0, aggressiveness.
    {COVARIANCE_DOC}
    """
    _kernels = KERNELS
    _positive = ("C",)

    def __init__(self, C=1.0, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())
