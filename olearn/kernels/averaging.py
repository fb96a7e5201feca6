"""State shared by the linear learners: scaled weights and lazy Polyak-Ruppert averaging.

Every learner of ``olearn.linear`` starts its state tuple with the same six arrays
(``LINEAR_STATE`` names them; the estimator side is ``olearn.linear._linear``):

=====  ===========  ==============================================================
index  shape        meaning
=====  ===========  ==============================================================
0      W (K, d)     the weights, in units of the scale ``s``: ``w = s W``
1      U (K, d)     the averaging accumulator; ``(K, 0)`` when averaging is off
2      c (4,)       ``c[0]`` rounds begun, ``c[1]`` S (below), ``c[2]`` ``||W||_F^2``,
                    ``c[3]`` free for the learner (a counter, a running sum)
3      s (1,)       the scale of ``W`` (1 between passes)
4      r (K,)       scratch: the raw scores ``w_k . x`` of the current row
5      g (K,)       scratch: the loss gradient with respect to each score
=====  ===========  ==============================================================

Scale.  Rules that multiply the whole weight matrix (an L2 decay, a projection onto a
ball, ROMMA's ``c w``, ALMA's normalisation) change the scalar ``s`` instead of
touching ``K d`` numbers, and sparse changes divide by ``s``: every row still costs
O(non-zeros).  ``finish`` folds ``s`` back into ``W`` at the end of each pass (and a
pass folds early if ``s`` leaves [1e-3, 1e3]), so ``W`` holds the true weights
after a learner's own entry points; code that runs a learner's rule in another loop
(one-vs-rest) may leave ``s != 1``, so readers use ``s W``.

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
(``v <- f v``, ``s <- 1``) keeps the identity by ``S <- S / f`` with ``u`` unchanged.
The progressive prediction of round ``j`` uses the average of ``w_1 .. w_{j-1}``
(the raw weights, all zero, on the first round), while the rule learns from the raw
scores ``r``.  Each round counts once, whatever its sample weight.

Compiled code: the per-row helpers are ``inline="always"``; ``fold``,
``scale_weights`` and ``project_ball`` (rare or O(1) paths) are plain ``@njit``
functions called from the inlined rules, which keeps every entry point a few seconds
quicker to compile (they are linked into, and disk-cached with, each entry point).
"""
import numpy as np
from numba import njit

W_, U_, C_, S_, R_, G_ = 0, 1, 2, 3, 4, 5
LINEAR_STATE = 6
FOLD_LOW, FOLD_HIGH = 1e-3, 1e3


@njit(inline="always")
def begin_round(state):
    """Close the previous round (``S += s``) and count this one."""
    c = state[C_]
    if c[0] > 0.0:
        c[1] += state[S_][0]
    c[0] += 1.0


@njit(inline="always")
def row_scores(state, idx, val, out):
    """Raw scores into ``r``; progressive scores (averaged if averaging) into ``out``.

    Call after ``begin_round``: the average is over the rounds before this one.
    """
    W = state[W_]
    U = state[U_]
    c = state[C_]
    s = state[S_][0]
    r = state[R_]
    t = c[0] - 1.0
    averaged = U.shape[1] > 0 and t > 0.0
    for k in range(W.shape[0]):
        a = 0.0
        b = 0.0
        if averaged:
            for j in range(idx.shape[0]):
                a += W[k, idx[j]] * val[j]
                b += U[k, idx[j]] * val[j]
            out[k] = (c[1] * a - b) / t
        else:
            for j in range(idx.shape[0]):
                a += W[k, idx[j]] * val[j]
            out[k] = s * a
        r[k] = s * a


@njit(inline="always")
def avg_scores(state, idx, val, out):
    """The ``score_fn`` of every linear learner (see the module docstring)."""
    begin_round(state)
    row_scores(state, idx, val, out)


@njit(inline="always")
def add_row(state, k, a, idx, val):
    """``w_k += a x`` in O(non-zeros), keeping ``U`` and ``||W||^2`` up to date."""
    W = state[W_]
    U = state[U_]
    c = state[C_]
    b = a / state[S_][0]
    if U.shape[1] > 0:
        bu = b * c[1]
        for j in range(idx.shape[0]):
            i = idx[j]
            dv = b * val[j]
            c[2] += dv * (2.0 * W[k, i] + dv)
            W[k, i] += dv
            U[k, i] += bu * val[j]
    else:
        for j in range(idx.shape[0]):
            i = idx[j]
            dv = b * val[j]
            c[2] += dv * (2.0 * W[k, i] + dv)
            W[k, i] += dv


@njit(inline="always")
def add_at(state, k, i, a):
    """``w[k, i] += a`` (one coordinate)."""
    W = state[W_]
    U = state[U_]
    c = state[C_]
    dv = a / state[S_][0]
    c[2] += dv * (2.0 * W[k, i] + dv)
    W[k, i] += dv
    if U.shape[1] > 0:
        U[k, i] += c[1] * dv


@njit(inline="always")
def weight(state, k, i):
    """The true weight ``w[k, i]``."""
    return state[S_][0] * state[W_][k, i]


@njit(inline="always")
def sq_weight_norm(state):
    """``||w||_F^2`` of the true weights."""
    s = state[S_][0]
    return s * s * state[C_][2]


@njit
def fold(state):
    """Move the scale into ``W`` and rebase the average (O(K d)).

    ``v <- s v``, ``s <- 1``, and, when averaging, ``u <- u - S v``, ``S <- 0``: the sum
    of the closed rounds' iterates ``S v - u`` is kept, now held by ``-u`` alone.
    Rebasing keeps ``S`` small: were it carried over (``S <- S / s``), a scale that
    keeps shrinking (an L2 decay over a long stream) would make ``S v`` and ``u`` grow
    without bound and their difference lose every digit."""
    W = state[W_]
    U = state[U_]
    c = state[C_]
    f = state[S_][0]
    if f == 1.0:
        return
    if U.shape[1] > 0:
        S = c[1]
        for k in range(W.shape[0]):
            for i in range(W.shape[1]):
                U[k, i] -= S * W[k, i]
        c[1] = 0.0
    sq = 0.0
    for k in range(W.shape[0]):
        for i in range(W.shape[1]):
            W[k, i] *= f
            sq += W[k, i] * W[k, i]
    c[2] = sq
    state[S_][0] = 1.0


@njit
def scale_weights(state, f):
    """``w *= f`` in O(1) (O(K d) when the scale must be folded, or for ``f <= 0``)."""
    if f == 1.0:
        return
    if f <= 0.0:
        # w becomes 0: rebase as in ``fold`` (u <- u - S v, S <- 0), then v <- 0.
        W = state[W_]
        U = state[U_]
        c = state[C_]
        if U.shape[1] > 0:
            for k in range(W.shape[0]):
                for i in range(W.shape[1]):
                    U[k, i] -= c[1] * W[k, i]
            c[1] = 0.0
        W[:, :] = 0.0
        c[2] = 0.0
        return
    s = state[S_][0] * f
    state[S_][0] = s
    if s < FOLD_LOW or s > FOLD_HIGH:
        fold(state)


@njit
def project_ball(state, radius):
    """Euclidean projection of ``w`` onto ``{||w||_F <= radius}`` (a scaling)."""
    sq = sq_weight_norm(state)
    if sq > radius * radius:
        scale_weights(state, radius / np.sqrt(sq))


@njit(inline="always")
def finish(state, n_updates):
    """End of a pass: fold the scale; returns ``n_updates`` (entry points end with it)."""
    fold(state)
    return n_updates
