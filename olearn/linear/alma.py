"""ALMA: Approximate Large Margin Algorithm (Gentile, "A New Approximate Maximal Margin
Classification Algorithm", JMLR 2, 2001), the p = 2 version ALMA_2(alpha; B, C).

Instances are normalised, ``xh = x / ||x||``.  With ``k`` the number of updates so
far plus one, ``gamma_k = B sqrt(p - 1) / sqrt(k)`` and ``eta_k = C / (sqrt(p - 1)
sqrt(k))``: when ``y w . xh <= (1 - alpha) gamma_k``,

    w' = w + eta_k y xh,        w = w' / max(1, ||w'||),        k = k + 1.

Defaults: ``B = 1 / alpha``, ``C = sqrt(2)`` (the paper's choice for its Theorem 3:
on data separable with margin gamma*, ALMA_2 reaches margin ``(1 - alpha) gamma*``
after ``O(1 / (alpha^2 gamma*^2))`` updates).  ``alpha = 1`` updates on mistakes only.

Departures of LIBOL's ``ALMA.m`` (and River's) from the paper, not followed here:
they use ``x`` unnormalised and update only when the margin is strictly below
``(1 - alpha) gamma_k``.  Only ``p = 2`` is implemented (as in LIBOL and SOL): the
general p-norm version maps weights through a non-linear link, which the lazy
averaging and O(non-zeros) updates here do not cover.  The normalisation by
``max(1, ||w'||)`` scales the whole vector in O(1) (``olearn._compiled.averaging``).

Multiclass (a natural extension, the paper being binary): the max-score example
``Phi = (x in row y, -x in row s)`` for the highest-scoring wrong class ``s``
(Kesler's construction), normalised by ``||Phi|| = sqrt(2) ||x||``, margin
``(w_y.x - w_s.x) / ||Phi||``; the binary rule on the ``(K, d)`` matrix with its
Frobenius norm.

A sample weight multiplies ``eta_k``; a row of zeros makes no update.
``average=True``: Polyak-Ruppert averaging of the iterates.
"""
import math

from numba import njit

from ..base import OnlineClassifier
from .._compiled.averaging import (FREE_, R_, SCALE_, SQ_, add_row, avg_begin, avg_scores,
                                   scale_weights, sq_weight_norm)
from .._compiled.grid import grid_rule, row_sq, scale_member
from .._compiled.driver import sq_norm, top_wrong
from .._compiled.declare import declare
from .._params import store_params
from ._linear import LinearModel, check_number


@njit(inline="always")
def _alma_step(W, U, A, params, nx, m, k_pos, sign, k_neg, sw, idx, val):
    """ALMA_2 on the normalised example ``Phi / nx`` (``sign x`` in row ``k_pos``,
    ``-x`` in row ``k_neg`` if >= 0) whose normalised margin is ``m``."""
    alpha, B, C = params.alpha, params.B, params.C
    k = A[0, FREE_] + 1.0
    if m > (1.0 - alpha) * B / math.sqrt(k):
        return 0
    eta = C / math.sqrt(k) * sw / nx
    add_row(W, U, A, k_pos, sign * eta, idx, val)
    if k_neg >= 0:
        add_row(W, U, A, k_neg, -eta, idx, val)
    sq = sq_weight_norm(A)
    if sq > 1.0:
        scale_weights(W, U, A, 1.0 / math.sqrt(sq))
    A[0, FREE_] = k
    return 1


@njit(inline="always")
def _binary_rule(state, params, idx, val, y, sw, out, seen):
    nx = math.sqrt(sq_norm(val))
    if nx == 0.0:
        return 0
    A = state[2]
    return _alma_step(state[0], state[1], A, params, nx, y * A[0, R_] / nx, 0, y, -1, sw,
                      idx, val)


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    A = state[2]
    yi = int(y)
    s = top_wrong(A[:, R_], seen, yi)
    if s < 0:
        return 0
    nx = math.sqrt(2.0 * sq_norm(val))
    if nx == 0.0:
        return 0
    return _alma_step(state[0], state[1], A, params, nx, (A[yi, R_] - A[s, R_]) / nx, yi, 1.0,
                      s, sw, idx, val)


@njit(inline="always")
def _grid_step(params, A, g, y, sw, val, sq):
    """Member g's binary step in a fused grid (``olearn._compiled.grid``): the
    coefficient ``y eta_k`` of ``_binary_rule``'s update, same arithmetic."""
    sq = row_sq(val, sq)
    nx = math.sqrt(sq)
    if nx == 0.0:
        return 0, 0.0, sq
    k = A[FREE_, g] + 1.0
    if y * A[R_, g] / nx > (1.0 - params.alpha) * params.B / math.sqrt(k):
        return 0, 0.0, sq
    return 1, y * (params.C / math.sqrt(k) * sw / nx), sq


@njit(inline="always")
def _grid_post(params, W, U, A, g):
    """After member g's update: ``w / max(1, ||w||)`` and ``k = k + 1``."""
    s = A[SCALE_, g]
    sq = s * s * A[SQ_, g]
    if sq > 1.0:
        scale_member(W, U, A, g, 1.0 / math.sqrt(sq))
    A[FREE_, g] += 1.0


KERNELS = declare("linear.alma", params=("alpha", "B", "C"), score=avg_scores, begin=avg_begin,
                  binary=_binary_rule, multiclass=_multiclass_rule,
                  step=grid_rule(_grid_step, _grid_post))


class ALMAClassifier(LinearModel, OnlineClassifier):
    """ALMA_2(alpha; B, C): approximate maximal margin classification.

    Parameters
    ----------
    p : 2 (the only norm implemented).
    alpha : float in (0, 1], the fraction of the best margin aimed at is ``1 - alpha``.
    B : float > 0 or None (``1 / alpha``), scale of the margin target ``gamma_k``.
    C : float > 0, scale of the step ``eta_k``.
    average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.

    The number of updates so far is ``state_["A"][0, 6]`` (column ``FREE_``).
    """
    _kernels = KERNELS

    def __init__(self, p=2, alpha=1.0, B=None, C=math.sqrt(2.0), average=False,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        if self.p != 2:
            raise ValueError(f"p must be 2 (only ALMA_2 is implemented), got {self.p!r}")
        check_number("alpha", self.alpha, low=0.0, high=1.0, low_open=True)
        if self.B is not None:
            check_number("B", self.B, low=0.0, low_open=True)
        check_number("C", self.C, low=0.0, low_open=True)

    def _kernel_params(self):
        B = 1.0 / self.alpha if self.B is None else self.B
        return {"alpha": self.alpha, "B": B, "C": self.C}
