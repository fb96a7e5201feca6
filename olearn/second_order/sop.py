"""Second-order Perceptron (Cesa-Bianchi, Conconi, Gentile, "A Second-Order Perceptron
Algorithm", SIAM J. Comput. 34(3), 2005, Fig. 2).

The paper keeps ``v`` (sum of ``y x`` over mistakes) and the matrix of the mistaken
rows ``X``; it predicts ``sign(v' (a I + X X' + x x')^-1 x)`` and, on a mistake, adds
``y x`` to ``v`` and ``x`` to ``X``.  Here the state is ``mu = (a I + X X')^-1 v`` and
``Sigma = (a I + X X')^-1`` (``I / a`` at start).  Since
``(A + x x')^-1 x = A^-1 x / (1 + x'A^-1 x)``, the paper's score is
``mu.x / (1 + x'Sigma x)``: same sign as ``mu.x``, which ``decision_function`` returns.
On a mistake (``m = y mu.x <= 0``; a zero score counts as a mistake), by the matrix
inversion lemma::

    mu    += (1 - m) / (1 + v) y Sigma x         (v = x'Sigma x)
    Sigma -= Sigma x x' Sigma / (1 + v)           (Sigma^-1 += x x')

Departure of LIBOL (its ``SOP.m``) from the paper, not followed here: LIBOL adds every
row to the matrix, mistaken or not; the paper adds only the mistaken ones.

Multiclass: the same update on the joint vector (``x`` for the true class, ``-x`` for
the top-scoring wrong class ``s``), i.e. the max-score form with per-class covariances
(``m = mu_y.x - mu_s.x``, ``v = x'Sigma_y x + x'Sigma_s x``; see
``olearn/_compiled/second_order.py``).  A sample weight ``h`` weights the mistaken row
(``v += h y x``, ``A += h x x'``).
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
    return m <= 0.0


@njit(inline="always")
def _step(params, m, v, sw):
    return True, sw * (1.0 - m) / (1.0 + sw * v), sw


KERNELS = declare("second_order.sop", params=("a",), score=linear_scores,
                  **cw_rules(_wants, _step))


class SOPClassifier(SecondOrderMixin, OnlineClassifier):
    __doc__ = f"""Second-order Perceptron (binary and multiclass).

    Parameters
    ----------
    a : float > 0, the paper's regularization ``a I`` (``Sigma = I / a`` at start).
    {COVARIANCE_DOC}
    """
    _kernels = KERNELS
    _positive = ("a",)

    def __init__(self, a=1.0, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    @property
    def _sigma0(self):
        return 1.0 / float(self.a)
