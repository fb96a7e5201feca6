"""ROMMA and aggressive ROMMA (Li and Long, "The Relaxed Online Maximum Margin
Algorithm", Machine Learning 46, 2002).

ROMMA keeps the shortest ``w`` meeting two constraints: the current example's
``y w.x >= 1`` and the half-space ``w . w_t >= ||w_t||^2`` that relaxes all earlier
ones.  On an update round, with ``X = ||x||^2``, ``W = ||w_t||^2``, ``f = w_t . x``:

* first update (``w_t = 0``): ``w = y x / X``;
* otherwise ``w = c w_t + d x`` with (the paper's closed form, both constraints tight)
  ``c = (X W - y f) / (X W - f^2)`` and ``d = W (y - f) / (X W - f^2)``.

ROMMA updates on mistakes, ``y f <= 0``; aROMMA (``aggressive=True``) whenever
``y f < 1``.  When ``x`` is parallel to ``w_t`` (``X W = f^2``) the closed form does
not apply: the minimum-norm point of the two constraints is then ``y x / X`` if
``y f > 0`` (it meets the half-space) and does not exist otherwise (the row is
skipped).  LIBOL departs from the paper in two places, and this follows the paper:
LIBOL's first update is ``w = y x`` and its degenerate rows are always skipped.

``c w_t`` scales the whole vector in O(1) (``olearn._compiled.averaging``), so a row
costs O(non-zeros).  ROMMA has no step to weight: a sample weight of 0 skips the row,
any other weight counts as 1.  A row of zeros makes no update.

Multiclass (a natural extension, the paper being binary; as LIBOL's ``M_ROMMA``): the
max-score example ``Phi = (x in row y, -x in row s)`` for the highest-scoring wrong
class ``s`` in Kesler's construction, with ``||Phi||^2 = 2 ||x||^2``, margin ``m =
w_y.x - w_s.x`` and label +1: the binary rule on the ``(K, d)`` matrix with the
Frobenius norm.  LIBOL's first multiclass step is ``Phi`` itself, here ``Phi /
||Phi||^2``.

``average=True``: Polyak-Ruppert averaging of the iterates.
"""
from numba import njit

from ..base import OnlineClassifier
from .._compiled.averaging import (R_, add_row, avg_begin, avg_scores, scale_weights,
                                 sq_weight_norm)
from .._compiled.driver import sq_norm, top_wrong
from .._compiled.declare import declare
from .._params import store_params
from ._linear import LinearModel, check_bool

PARALLEL = 1e-12  # relative tolerance of the Cauchy-Schwarz equality X W = f^2


@njit(inline="always")
def _needs_update(aggressive, m):
    return m < 1.0 if aggressive else m <= 0.0


@njit(inline="always")
def _romma_step(W, U, A, P, m, k_pos, sign, k_neg, idx, val):
    """Binary ROMMA on the example ``Phi`` (``sign x`` in row ``k_pos``, ``-x`` in row
    ``k_neg`` if >= 0) with squared norm ``P``, margin ``m = w . Phi`` and label +1."""
    W2 = sq_weight_norm(A)
    if W2 == 0.0:
        c = 1.0
        d = 1.0 / P
    elif P * W2 - m * m <= PARALLEL * P * W2:
        if m <= 0.0:
            return 0
        c = 0.0
        d = 1.0 / P
    else:
        deno = P * W2 - m * m
        c = (P * W2 - m) / deno
        d = W2 * (1.0 - m) / deno
    scale_weights(W, U, A, c)
    add_row(W, U, A, k_pos, sign * d, idx, val)
    if k_neg >= 0:
        add_row(W, U, A, k_neg, -d, idx, val)
    return 1


@njit(inline="always")
def _binary_rule(state, params, idx, val, y, sw, out, seen):
    A = state[2]
    m = y * A[0, R_]
    if not _needs_update(params.aggressive > 0.0, m) or sw == 0.0:
        return 0
    X = sq_norm(val)
    if X == 0.0:
        return 0
    return _romma_step(state[0], state[1], A, X, m, 0, y, -1, idx, val)


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    A = state[2]
    yi = int(y)
    s = top_wrong(A[:, R_], seen, yi)
    if s < 0:
        return 0
    m = A[yi, R_] - A[s, R_]
    if not _needs_update(params.aggressive > 0.0, m) or sw == 0.0:
        return 0
    X = sq_norm(val)
    if X == 0.0:
        return 0
    return _romma_step(state[0], state[1], A, 2.0 * X, m, yi, 1.0, s, idx, val)


KERNELS = declare("linear.romma", params=("aggressive",), score=avg_scores, begin=avg_begin,
                  binary=_binary_rule, multiclass=_multiclass_rule)


class ROMMAClassifier(LinearModel, OnlineClassifier):
    """Relaxed Online Maximum Margin Algorithm (``aggressive=True``: aROMMA).

    Parameters
    ----------
    aggressive : bool, update whenever the margin is below 1 (aROMMA) instead of only
        on mistakes (ROMMA).
    average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _kernels = KERNELS

    def __init__(self, aggressive=False, average=False, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        check_bool("aggressive", self.aggressive)

    def _kernel_params(self):
        return {"aggressive": 1.0 if self.aggressive else 0.0}
