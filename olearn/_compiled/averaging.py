"""State shared by the linear learners: scaled weights and lazy Polyak-Ruppert averaging.

Every learner of ``olearn.linear`` starts its state tuple with the same three arrays
(the estimator side is ``olearn.linear._linear``):

* ``W`` (K, d): the weights, in units of the scale ``s``: ``w = s W``;
* ``U`` (K, d): the averaging accumulator, ``(K, 0)`` when averaging is off;
* ``A`` (K, 7): per class row ``k``, ``A[k, R_]`` the raw score ``w_k . x`` of the
  current row and ``A[k, G_]`` the loss gradient with respect to it (scratch of the
  rule: ``avg_begin`` writes ``R_``, a loss writes ``G_``); in row 0, ``A[0, T_]`` the
  rounds begun ``t``, ``A[0, SUM_]`` the scale sum ``S`` (below), ``A[0, SQ_]``
  ``||W||_F^2`` (in scale units), ``A[0, SCALE_]`` the scale ``s`` (0 before the first
  round, read as 1), ``A[0, FREE_]`` free for the learner (a counter, a sum).  Code
  names the columns by these constants (compile-time constants: free), never by number.

Why so few arrays: numba reference-counts every array of a tuple each time the tuple
is handed to an inlined function, twice a row at least (score and update), so each
array of the state costs about as much as a multiply-add per non-zero on short rows.
The helpers below therefore take the arrays they need, never the tuple.

Scale.  Rules that multiply the whole weight matrix (an L2 decay, a projection onto a
ball, ROMMA's ``c w``, ALMA's normalisation) change the scalar ``s`` instead of
touching ``K d`` numbers, and sparse changes divide by ``s``: every row still costs
O(non-zeros).  The scale is folded back into ``W`` (O(K d)) only when it leaves
[1e-3, 1e3], never at the end of a call, so that one-example calls cost O(non-zeros)
too: ``W`` is the weights in scale units (the lazy-state contract, ARCHITECTURE.md),
and every reader uses ``s W`` (``LinearModel._predict_weights``, ``_row_scores``).

Lazy averaging (Polyak and Juditsky 1992; Ruppert 1988).  Let ``w_i = s_i v_i`` be the
weights after round ``i`` (``v`` is ``W`` in scale units) and ``d_j`` the change of
``v`` made in round ``j`` (several sparse changes add up).  With
``S_j = s_1 + ... + s_j``::

    sum_{i<=t} w_i = sum_{i<=t} s_i sum_{j<=i} d_j = sum_{j<=t} d_j (S_t - S_{j-1})
                   = S_t v_t - u_t,          u_t = sum_{j<=t} S_{j-1} d_j.

So the average of the iterates ``w_1 .. w_t`` is ``(S_t v_t - u_t) / t``: keeping
``u`` (array ``U``) costs one extra write per changed weight and ``S`` one add per
round, never an O(d) pass.  With a constant scale (``s = 1``) this is the familiar
``wbar_t = w_t - u_t / t`` with ``u_t = sum_j (j - 1) d_j``.  Folding the scale
(``v <- s v``, ``s <- 1``) rebases the sum: ``u <- u - S v`` and ``S <- 0`` keep
``S v - u`` (see ``fold``).  The progressive prediction of round ``j`` uses the
average of ``w_1 .. w_{j-1}`` (the raw weights, all zero, on the first round), while
the rule learns from the raw scores.  Each round counts once, whatever its sample
weight.

Compiled code: the per-row helpers are ``inline="always"``; ``fold`` and
``zero_weights`` (rare, O(K d)) are plain ``@njit`` functions, linked into and
disk-cached with each entry point.
"""
import math

import numpy as np
from numba import njit

from .declare import round_start
from .losses import G_, R_
from .steps import adagrad_move

T_, SUM_, SQ_, SCALE_, FREE_ = 2, 3, 4, 5, 6
AUX_COLUMNS = 7
FOLD_LOW, FOLD_HIGH = 1e-3, 1e3


@njit(inline="always")
def begin_round(A):
    """Close the previous round (``S += s``) and count this one."""
    if A[0, T_] > 0.0:
        A[0, SUM_] += A[0, SCALE_]
    else:
        A[0, SCALE_] = 1.0
    A[0, T_] += 1.0


@njit(inline="always")
def avg_scores(state, idx, val, out):
    """The score of the linear learners: the progressive prediction of the model after
    the rounds so far, ``s W x``, or with averaging ``(S W x - U x) / t`` (the mean of the
    iterates ``w_1 .. w_t``; the raw weights before the first round).  It changes
    nothing: the pass, ``predict`` and ``predict_one`` share it."""
    scores_and_raw(state, idx, val, out, False)


@njit(inline="always")
def scores_and_raw(state, idx, val, out, keep):
    """``avg_scores``; with ``keep`` (a constant) also the raw scores ``s W_k . x`` into
    ``A[k, R_]`` from the same products (what ``avg_begin`` keeps for the rule)."""
    W = state[0]
    U = state[1]
    A = state[2]
    t = A[0, T_]
    s = A[0, SCALE_] if t > 0.0 else 1.0
    averaged = U.shape[1] > 0 and t > 0.0
    S = A[0, SUM_] + s
    for k in range(W.shape[0]):
        a = 0.0
        if averaged:
            b = 0.0
            for j in range(idx.shape[0]):
                a += W[k, idx[j]] * val[j]
                b += U[k, idx[j]] * val[j]
            out[k] = (S * a - b) / t
            if keep:
                A[k, R_] = s * a
        else:
            for j in range(idx.shape[0]):
                a += W[k, idx[j]] * val[j]
            out[k] = s * a
            if keep:
                A[k, R_] = out[k]


@njit(inline="always")
def raw_scores(W, U, A, idx, val, out):
    """``A[k, R_]``: the raw score ``s W_k . x`` the rule learns from, after
    ``begin_round``: the progressive score ``out[k]`` itself, unless the model
    averages (then one more product with the row)."""
    if U.shape[1] > 0 and A[0, T_] > 1.0:
        s = A[0, SCALE_]
        for k in range(W.shape[0]):
            a = 0.0
            for j in range(idx.shape[0]):
                a += W[k, idx[j]] * val[j]
            A[k, R_] = s * a
    else:
        for k in range(W.shape[0]):
            A[k, R_] = out[k]


@njit(inline="always")
def avg_begin(state, idx, val, out):
    """The round start of the linear learners: count the round, keep the raw scores."""
    A = state[2]
    begin_round(A)
    raw_scores(state[0], state[1], A, idx, val, out)


@njit(inline="always")
def avg_score_begin(state, idx, val, out):
    """``avg_scores`` then ``avg_begin`` in one product with the row, what the pass runs
    (``declare``'s ``score_begin``): an averaged model's raw score ``s W x`` comes from
    the same sum ``W x`` as its averaged score ``(S W x - U x) / t``, instead of a
    second product (averaged PA-I ran 11-28% slower than before Core 3.0 with it).
    The same numbers, bit for bit: the same sums in the same order (the scale read
    before the round starts is the one ``avg_begin`` reads after it: ``begin_round``
    sets it only on the first round, whose raw score is the score)."""
    scores_and_raw(state, idx, val, out, True)
    begin_round(state[2])


round_start(avg_scores, avg_begin, avg_score_begin)


@njit(inline="always")
def add_row(W, U, A, k, a, idx, val):
    """``w_k += a x`` in O(non-zeros), keeping ``U`` and ``||W||^2`` up to date."""
    b = a / A[0, SCALE_]
    dsq = 0.0
    if U.shape[1] > 0:
        bu = b * A[0, SUM_]
        for j in range(idx.shape[0]):
            i = idx[j]
            dv = b * val[j]
            dsq += dv * (2.0 * W[k, i] + dv)
            W[k, i] += dv
            U[k, i] += bu * val[j]
    else:
        for j in range(idx.shape[0]):
            i = idx[j]
            dv = b * val[j]
            dsq += dv * (2.0 * W[k, i] + dv)
            W[k, i] += dv
    A[0, SQ_] += dsq


@njit(inline="always")
def add_at(W, U, A, k, i, a):
    """``w[k, i] += a`` (one coordinate)."""
    dv = a / A[0, SCALE_]
    A[0, SQ_] += dv * (2.0 * W[k, i] + dv)
    W[k, i] += dv
    if U.shape[1] > 0:
        U[k, i] += A[0, SUM_] * dv


@njit(inline="always")
def adagrad_rows(W, U, A, G, S, rate, sw, idx, val):
    """The per-coordinate AdaGrad step of every class row with a loss gradient
    ``A[k, G_]`` (Duchi, Hazan and Singer 2011, diagonal, delta = 0): for each non-zero
    ``g = sw A[k, G_] x_i``, ``G[k, i] += g^2`` and ``w[k, i] -= rate g / (s_i
    sqrt(G[k, i]))``, with ``s_i = S[i]`` (NDAG's feature scales) or 1 when ``S`` is
    empty: the one AdaGrad step, ``olearn._compiled.steps.adagrad_move``."""
    scaled = S.shape[0] > 0
    for k in range(A.shape[0]):
        if A[k, G_] != 0.0:
            gk = sw * A[k, G_]
            for j in range(idx.shape[0]):
                gj = gk * val[j]
                if gj != 0.0:
                    i = idx[j]
                    move, h = adagrad_move(G, k, i, gj, rate, 0.0, S[i] if scaled else 1.0)
                    if h > 0.0:  # gj * gj underflows for |gj| < 1e-162
                        add_at(W, U, A, k, i, move)


@njit(inline="always")
def weight(W, A, k, i):
    """The true weight ``w[k, i]``."""
    return A[0, SCALE_] * W[k, i]


@njit(inline="always")
def sq_weight_norm(A):
    """``||w||_F^2`` of the true weights."""
    s = A[0, SCALE_]
    return s * s * A[0, SQ_]


@njit(inline="always")
def rebase_average(W, U, A):
    """``u <- u - S v``, ``S <- 0`` when averaging (O(K d); see ``fold``)."""
    if U.shape[1] > 0:
        S = A[0, SUM_]
        for k in range(W.shape[0]):
            for i in range(W.shape[1]):
                U[k, i] -= S * W[k, i]
        A[0, SUM_] = 0.0


@njit
def fold(W, U, A):
    """Move the scale into ``W`` and rebase the average (O(K d)).

    ``v <- s v``, ``s <- 1``, and, when averaging, ``u <- u - S v``, ``S <- 0``: the sum
    of the closed rounds' iterates ``S v - u`` is kept, now held by ``-u`` alone.
    Rebasing keeps ``S`` small: were it carried over (``S <- S / s``), a scale that
    keeps shrinking (an L2 decay over a long stream) would make ``S v`` and ``u`` grow
    without bound and their difference lose every digit."""
    f = A[0, SCALE_]
    if f == 1.0 or f == 0.0:
        return
    rebase_average(W, U, A)
    sq = 0.0
    for k in range(W.shape[0]):
        for i in range(W.shape[1]):
            W[k, i] *= f
            sq += W[k, i] * W[k, i]
    A[0, SQ_] = sq
    A[0, SCALE_] = 1.0


@njit
def zero_weights(W, U, A):
    """``w <- 0``, rebasing the average as ``fold`` does (O(K d))."""
    rebase_average(W, U, A)
    W[:, :] = 0.0
    A[0, SQ_] = 0.0


@njit(inline="always")
def scale_weights(W, U, A, f):
    """``w *= f`` in O(1) (O(K d) when the scale must be folded, or for ``f <= 0``)."""
    if f <= 0.0:
        zero_weights(W, U, A)
    elif f != 1.0:
        s = A[0, SCALE_] * f
        A[0, SCALE_] = s
        if s < FOLD_LOW or s > FOLD_HIGH:
            fold(W, U, A)


@njit(inline="always")
def project_ball(W, U, A, radius):
    """Euclidean projection of ``w`` onto ``{||w||_F <= radius}`` (a scaling)."""
    sq = sq_weight_norm(A)
    if sq > radius * radius:
        scale_weights(W, U, A, radius / np.sqrt(sq))
