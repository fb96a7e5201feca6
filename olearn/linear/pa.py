"""Passive-Aggressive classification (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer,
"Online Passive-Aggressive Algorithms", JMLR 7, 2006).

Binary, with hinge loss ``l = max(0, 1 - y w.x)``, the update ``w += tau y x`` with

* "PA"    : ``tau = l / ||x||^2``                      (eq. 6 of the paper)
* "PA-I"  : ``tau = min(C, l / ||x||^2)``
* "PA-II" : ``tau = l / (||x||^2 + 1 / (2C))``

All three are ``tau = min(c, l / (||x||^2 + D))`` with (c, D) = (inf, 0), (C, 0) and
(inf, 1/(2C)): one compiled rule, no branch on the variant.

The seed book's forms with a passiveness parameter lambda (its eqs. 31.1-31.5) are the
same learners: the squared hinge loss with lambda is PA-II with C = 1/(2 lambda), the
plain hinge loss with lambda is PA-I with C = 1/lambda.

Multiclass (the JMLR paper's section 7, max-score form; the UPV lecture's derivation):
with ``s`` the highest-scoring wrong class and ``m = w_y.x - w_s.x``, the loss
``l = max(0, 1 - m)`` and ``tau`` as above with ``2 ||x||^2`` in place of ``||x||^2``;
then ``w_y += tau x``, ``w_s -= tau x``.

A row of zeros makes no update (nothing to divide by).  A sample weight multiplies tau.

``average=True``: Polyak-Ruppert averaging; the mean of the iterates predicts while
the raw weights learn (see ``olearn._compiled.averaging``; the PA step is computed from
the raw weights' loss, as in the paper).
"""
import math
import numbers

from numba import njit

from ..base import OnlineClassifier
from .._compiled.averaging import R_, add_row, avg_begin, avg_scores
from .._compiled.driver import sq_norm, top_wrong
from .._compiled.declare import declare
from .._compiled.grid import first_order_rule, row_sq
from .._params import store_params
from ._linear import LinearModel

VARIANTS = ("PA", "PA-I", "PA-II")


def pa_step_params(variant, C):
    """(c, D) of ``tau = min(c, l / (||x||^2 + D))`` for a PA variant."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if isinstance(C, bool) or not (isinstance(C, numbers.Real) and 0 < C < math.inf):
        raise ValueError(f"C must be a finite number > 0, got {C!r} (variant PA ignores "
                         "it, but it must be valid)")
    if variant == "PA":
        return math.inf, 0.0
    if variant == "PA-I":
        return float(C), 0.0
    return math.inf, 0.5 / C


@njit(inline="always")
def pa_tau(c, D, loss, val, norm_factor, sw):
    """The PA step ``tau = min(c, loss / (f ||x||^2 + D))`` times the sample weight
    (``f = 2`` for the multiclass form), or -1 when there is no update (``loss <= 0``
    or ``x = 0``)."""
    if loss <= 0.0:
        return -1.0
    sq = sq_norm(val)
    if sq == 0.0:
        return -1.0
    return min(c, loss / (norm_factor * sq + D)) * sw


@njit(inline="always")
def _binary_step(params, raw, y, sw, val, sq):
    loss = 1.0 - y * raw      # (pa_tau's, with the row's norm shared by a grid's members)
    if loss <= 0.0:
        return 0, 0.0, sq
    sq = row_sq(val, sq)
    if sq == 0.0:
        return 0, 0.0, sq
    return 1, min(params.c, loss / (sq + params.D)) * sw * y, sq


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    c, D = params.c, params.D
    W = state[0]
    U = state[1]
    A = state[2]
    yi = int(y)
    s = top_wrong(A[:, R_], seen, yi)
    if s < 0:
        return 0
    tau = pa_tau(c, D, 1.0 - (A[yi, R_] - A[s, R_]), val, 2.0, sw)
    if tau < 0.0:
        return 0
    add_row(W, U, A, yi, tau, idx, val)
    add_row(W, U, A, s, -tau, idx, val)
    return 1


KERNELS = declare("linear.pa", params=("c", "D"), score=avg_scores, begin=avg_begin,
                  binary=first_order_rule(_binary_step), step=_binary_step,
                  multiclass=_multiclass_rule)


class PAClassifier(LinearModel, OnlineClassifier):
    """Passive-Aggressive classifier (variants "PA", "PA-I", "PA-II").

    Parameters
    ----------
    C : float, aggressiveness (> 0; unused by "PA").
    variant : "PA", "PA-I" or "PA-II".
    average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _kernels = KERNELS

    def __init__(self, C=1.0, variant="PA-I", average=False, fit_intercept=True,
                 intercept_scaling=0.1, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        pa_step_params(self.variant, self.C)

    def _kernel_params(self):
        c, D = pa_step_params(self.variant, self.C)
        return {"c": c, "D": D}
