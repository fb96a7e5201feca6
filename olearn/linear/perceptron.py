"""Perceptron (Rosenblatt 1958), with an optional margin and Polyak-Ruppert averaging.

Binary: predict sign(w.x); when ``y (w.x) <= margin`` update ``w += eta y x``
(``margin = 0``: the classic mistake-driven Perceptron; ``margin > 0``: the margin
Perceptron, which also updates on correct but unconfident predictions).  This is OGD
on the loss ``max(0, margin - y w.x)`` with a constant step (``OGDClassifier(loss=
"perceptron", schedule="constant", eta=1)`` gives the same weights for margin 0).

Multiclass: the ultraconservative additive updates of Crammer and Singer ("Ultraconservative
online algorithms for multiclass problems", JMLR 3, 2003, section 3).  With the error set
``E = {r != y seen: w_r.x >= w_y.x - margin}`` (``margin = 0``: the paper's set), when
``E`` is not empty: ``w_y += eta x`` and ``w_r -= eta tau_r x`` for ``r`` in ``E``, the
``tau_r >= 0`` summing to 1:

* ``multiclass="max"``: ``tau = 1`` on the highest-scoring wrong class (the max-score
  margin ``m = w_y.x - max_r w_r.x <= margin``);
* ``"uniform"``: ``tau_r = 1 / |E|``;
* ``"single"``: LIBOL's ``M_PerceptronS`` ("similarity-score" update), the paper's
  proportional update ``tau_r = gap_r / sum(gap)`` with ``gap_r = w_r.x - w_y.x +
  margin``.  LIBOL updates only on a prediction mistake and leaves out the ties
  (``w_r.x = w_y.x``); following the paper, ties are errors here, and when every gap is
  0 (all tied) the update is uniform.

``average=True``: Polyak-Ruppert averaging (Freund and Schapire's averaged
Perceptron): the mean of the weight vectors after each round predicts, the raw
weights learn (lazy, O(non-zeros) a row; see ``olearn._compiled.averaging``).

A sample weight multiplies the step; a row of zeros (no intercept) makes no update.
Novikoff (1962): on data separable with margin gamma inside a ball of radius R, the
classic Perceptron makes at most (R/gamma)^2 mistakes.
"""
from numba import njit

from ..base import OnlineClassifier
from .._compiled.averaging import R_, add_row, avg_begin, avg_scores
from .._compiled.driver import sq_norm, top_wrong
from .._compiled.declare import declare
from .._compiled.grid import first_order_rule, row_sq
from .._params import store_params
from ._linear import LinearModel, check_choice, check_number

MULTICLASS_UPDATES = ("max", "uniform", "single")


@njit(inline="always")
def _binary_step(params, raw, y, sw, val, sq):
    if y * raw > params.margin:
        return 0, 0.0, sq
    sq = row_sq(val, sq)
    if sq == 0.0:
        return 0, 0.0, sq
    return 1, params.eta * sw * y, sq


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    eta, margin, mode = params.eta, params.margin, params.mode
    W = state[0]
    U = state[1]
    A = state[2]
    yi = int(y)
    s = top_wrong(A[:, R_], seen, yi)
    if s < 0 or A[yi, R_] - A[s, R_] > margin or sq_norm(val) == 0.0:
        return 0
    add_row(W, U, A, yi, eta * sw, idx, val)
    if mode == 0.0:
        add_row(W, U, A, s, -eta * sw, idx, val)
        return 1
    floor = A[yi, R_] - margin
    n_err = 0
    total = 0.0
    for k in range(A.shape[0]):
        if k != yi and seen[k] and A[k, R_] >= floor:
            n_err += 1
            total += A[k, R_] - floor
    for k in range(A.shape[0]):
        if k != yi and seen[k] and A[k, R_] >= floor:
            tau = (A[k, R_] - floor) / total if mode == 2.0 and total > 0.0 else 1.0 / n_err
            add_row(W, U, A, k, -eta * sw * tau, idx, val)
    return 1


KERNELS = declare("linear.perceptron", params=("eta", "margin", "mode"), score=avg_scores,
                  begin=avg_begin, binary=first_order_rule(_binary_step),
                  step=_binary_step, multiclass=_multiclass_rule)


class Perceptron(LinearModel, OnlineClassifier):
    """Perceptron: ``w += eta y x`` whenever ``y w.x <= margin``.

    Parameters
    ----------
    eta : float, step size (> 0).
    margin : float, update when the margin is at most this (>= 0).
    multiclass : "max", "uniform" or "single" (see the module docstring).
    average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _kernels = KERNELS

    def __init__(self, eta=1.0, margin=0.0, multiclass="max", average=False,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("margin", self.margin, low=0.0)
        check_choice("multiclass", self.multiclass, MULTICLASS_UPDATES)

    def _kernel_params(self):
        return {"eta": self.eta, "margin": self.margin,
                "mode": MULTICLASS_UPDATES.index(self.multiclass)}
