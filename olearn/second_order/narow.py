"""NAROW (Orabona and Crammer, "New Adaptive Algorithms for Online Classification",
NIPS 2010, Sec. 5, the NAROW algorithm; as in the first author's own implementation in
the DOGMA library).

The algorithm keeps ``theta`` (sum of ``y x`` over updates) and ``A`` (``I`` at start),
predicts with ``w = A_t^-1 theta`` where ``A_t = A + x x' / r`` already includes the
current row, and adapts ``r`` to the row's confidence ``chi = x'A^-1 x``::

    r = chi / (b chi - 1)   if b chi > 1,   else r = +inf (A is left unchanged)
    if y w.x < 1 (w with A_t):   theta += y x,   A = A_t

Here the state is the mean ``mu = A^-1 theta`` and ``Sigma = A^-1``, so with
``m = y mu.x`` and ``v = chi = x'Sigma x`` the look-ahead margin is ``m r / (r + v)``
(``m`` when ``r`` is infinite) and the update is, by the matrix inversion lemma::

    mu    += (r - m) / (r + v) y Sigma x        (y Sigma x when r is infinite)
    Sigma -= Sigma x x' Sigma / (r + v)          (Sigma^-1 += x x' / r)

``decision_function`` returns ``mu.x``, which has the sign of the paper's look-ahead
score ``mu.x r / (r + v)``: predictions are the paper's.

Departure of LIBOL (its ``NAROW.m``) from the paper, not followed here: it runs AROW's
update with the adaptive ``r`` (``mu += (1 - m)/(v + r) y Sigma x``), tests the margin
without the look-ahead, and makes no update at all when ``r`` is infinite.

Multiclass: the single-constraint max-score form (Crammer, Dredze, Kulesza, EMNLP 2009)
with per-class covariances: ``m = mu_y.x - mu_s.x``, ``v = x'Sigma_y x + x'Sigma_s x``
(see ``olearn/_compiled/second_order.py``).  A sample weight ``h`` weights the row in
``theta`` and ``A`` (``theta += h y x``, ``A += h x x'/r``).
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
    return True


@njit(inline="always")
def _step(params, m, v, sw):
    b = params.b
    if b * v > 1.0:
        r = v / (b * v - 1.0)
        if not m * r / (r + v) < 1.0:
            return False, 0.0, 0.0
        return True, sw * (r - m) / (r + sw * v), sw / r
    if not m < 1.0:
        return False, 0.0, 0.0
    return True, sw, 0.0


KERNELS = declare("second_order.narow", params=("b",), score=linear_scores,
                  **cw_rules(_wants, _step))


class NAROWClassifier(SecondOrderMixin, OnlineClassifier):
    __doc__ = f"""NAROW classifier (binary and multiclass).

    Parameters
    ----------
    b : float > 0, the confidence threshold: rows with ``x'Sigma x > 1/b`` adapt the
        covariance, the others update the mean only.
    {COVARIANCE_DOC}
    """
    _kernels = KERNELS
    _positive = ("b",)

    def __init__(self, b=1.0, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())
