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
from .._compiled.driver import BINARY, MULTICLASS, linear_scores, online_pass
from .._compiled.second_order import cw_binary, cw_multiclass
from ..registry import register
from ._base import SecondOrderMixin, check_positive


@njit(inline="always")
def _wants(params, m):
    return m <= 0.0


@njit(inline="always")
def _step(params, m, v, sw):
    return True, sw * (1.0 - m) / (1.0 + sw * v), sw


@njit(inline="always")
def _binary_rule(state, params, idx, val, y, sw, out, seen):
    return cw_binary(state, params, idx, val, y, sw, out, _wants, _step)


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    return cw_multiclass(state, params, idx, val, y, sw, out, seen, _wants, _step)


@njit(cache=True)
def _binary(X, y, sw, state, params, seen, scores, pred):
    return online_pass(X, y, sw, state, params, seen, scores, pred, BINARY, linear_scores,
                       _binary_rule)


@njit(cache=True)
def _multiclass(X, y, sw, state, params, seen, scores, pred):
    return online_pass(X, y, sw, state, params, seen, scores, pred, MULTICLASS,
                       linear_scores, _multiclass_rule)


class SOPClassifier(SecondOrderMixin, OnlineClassifier):
    """Second-order Perceptron (binary and multiclass).

    Parameters
    ----------
    a : float > 0, the paper's regularization ``a I`` (``Sigma = I / a`` at start).
    covariance : "full", "diag" or "auto".
    fit_intercept, epochs, shuffle, random_state : see ``OnlineLearner``.
    """
    _kernels = {BINARY: _binary, MULTICLASS: _multiclass}

    def __init__(self, a=1.0, covariance="auto", fit_intercept=True, epochs=1, shuffle=False,
                 random_state=None):
        self.a = a
        self.covariance = covariance
        self.fit_intercept = fit_intercept
        self.epochs = epochs
        self.shuffle = shuffle
        self.random_state = random_state

    @property
    def _sigma0(self):
        return 1.0 / float(self.a)

    def _check_params(self):
        check_positive("a", self.a)
        self._check_covariance()

    def _kernel_params(self):
        return (float(self.a),)


register("sop", SOPClassifier)
