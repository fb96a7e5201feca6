"""The compiled part of :class:`~olearn.ensemble.ExpertAdvice`: weights over the members
updated row by row from the members' own pre-update losses, and the ensemble's
prediction of each row from the members' pre-update predictions (numpy + numba only).

``state = [t (rows seen), next restart of the doubling trick, largest loss seen,
rows before the last re-weighting]``: the doubling trick's epochs count rows from the
last re-weighting (a drift detected: :meth:`ExpertAdvice.reweight`), so after one the
rate starts again at ``sqrt(8 ln N)``; ``L`` the members' losses since the last
restart, ``Ltot`` since the start or the last re-weighting.
``params = (combine, eta, n_classes, seed, learn)``: combine 0 = EWA, 1 = Hedge,
2 = follow the leader; ``eta <= 0``: the doubling trick; ``n_classes = 0``: regression.
"""
import functools
import math

import numpy as np
from numba import types
from numba.extending import overload

from .._compiled import njit
from .._compiled.grid import linear_grid_pass, member_rule

EWA, HEDGE, FTL = 0, 1, 2


@njit(cache=True)
def _uniform(seed, t):
    """A uniform number in [0, 1) from (seed, row): splitmix64, so that Hedge's draws do
    not depend on how the stream is cut into calls."""
    z = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(t)) & \
        np.uint64(0xFFFFFFFFFFFFFFFF)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) / 9007199254740992.0


@njit(cache=True)
def combine(votes, values, losses, alive, state, L, Ltot, params, w_out, out_cls, out_val,
            scores):
    """For each row i: weights from the losses so far, the ensemble's prediction
    (``out_cls[i]`` a class index, or ``out_val[i]`` a value) and its scores
    (``scores[i]``: the weight of each class, summing to 1), then (``learn``) the
    members' losses of row i are added.  ``w_out`` receives the last weights used."""
    K = int(params[2])
    n = losses.shape[0]
    for i in range(n):
        combine_row(i, votes[i] if K > 0 else votes[0], values[0] if K > 0 else values[i],
                    losses[i], alive, state, L, Ltot, params, w_out, out_cls, out_val,
                    scores)
    return n


@njit(inline="always")
def combine_row(i, votes, values, losses, alive, state, L, Ltot, params, w, out_cls,
                out_val, scores):
    """Row i of :func:`combine`: ``votes``, ``values`` and ``losses`` are the members'
    (N,) of that row (what a fused pass hands over row by row: ``combined_entry``)."""
    mode = int(params[0])
    eta_fixed = params[1]
    K = int(params[2])
    seed = int(params[3])
    learn = params[4] > 0.0
    N = losses.shape[0]
    lnN = math.log(max(N, 2))
    t = state[0] + 1.0                       # this row's number, from 1
    tr = t - state[3]                        # ... counted from the last re-weighting
    fresh = False                            # L read as zeros (a restart not made)
    if eta_fixed > 0.0:
        eta = eta_fixed
    else:
        end = state[1]
        if tr >= end:                        # a new epoch: restart (doubling trick)
            while end <= tr:
                end *= 2.0
            if learn:
                for j in range(N):
                    L[j] = 0.0
                state[1] = end
            else:
                fresh = True
        length = end / 2.0
        eta = math.sqrt(8.0 * lnN / length)
        if K == 0 and state[2] > 0.0:        # regression: losses in [0, largest seen]
            eta /= state[2]
    # weights exp(-eta (L_j - min L)), dead members 0
    lo = np.inf
    best = -1
    best_tot = np.inf
    for j in range(N):
        if alive[j]:
            if (0.0 if fresh else L[j]) < lo:
                lo = 0.0 if fresh else L[j]
            if Ltot[j] < best_tot:
                best_tot = Ltot[j]
                best = j
    W = 0.0
    for j in range(N):
        if alive[j]:
            w[j] = math.exp(-eta * ((0.0 if fresh else L[j]) - lo))
            W += w[j]
        else:
            w[j] = 0.0
    if mode == FTL:
        for j in range(N):
            w[j] = 0.0
        w[best] = 1.0
        W = 1.0
    elif mode == HEDGE:
        u = _uniform(seed, int(t)) * W
        acc = 0.0
        pick = best
        for j in range(N):
            if alive[j]:
                acc += w[j]
                if u < acc:
                    pick = j
                    break
        for j in range(N):
            w[j] = 0.0
        w[pick] = 1.0
        W = 1.0
    if K > 0:
        for k in range(K):
            scores[i, k] = 0.0
        for j in range(N):
            if w[j] > 0.0:
                scores[i, votes[j]] += w[j] / W
        top = 0
        for k in range(1, K):
            if scores[i, k] > scores[i, top]:
                top = k
        out_cls[i] = top
    else:
        acc = 0.0
        for j in range(N):
            if w[j] > 0.0:
                acc += w[j] * values[j]
        out_val[i] = acc / W
    if learn:
        state[0] = t
        for j in range(N):
            if alive[j]:
                x = losses[j]
                L[j] += x
                Ltot[j] += x
                if x > state[2]:
                    state[2] = x


# ---------------------------------------------------------------- fused with the members
@njit(inline="always")
def combine_sink(out, i, sc, pr, y):
    """The sink of a fused grid pass (``olearn._compiled.grid.linear_grid_pass``) that
    combines row i at once: binary members whose classes are the ensemble's, so a
    member's vote is its prediction ``pr[g]`` and its loss the zero-one or hinge loss of
    ``ExpertAdvice._losses`` (``y`` the kernel's label, +1 for class 1)."""
    (alive, state, L, Ltot, params, w, out_cls, out_val, scores, votes, losses, values,
     hinge) = out
    yi = 1 if y > 0.0 else 0
    for g in range(sc.shape[0]):
        votes[g] = pr[g]
        if hinge:
            m = sc[g] if yi == 1 else -sc[g]
            losses[g] = min(1.0, max(0.0, 1.0 - m) / 2.0)
        else:
            losses[g] = 1.0 if pr[g] != yi else 0.0
    combine_row(i, votes, values, losses, alive, state, L, Ltot, params, w, out_cls,
                out_val, scores)


def run_combined(key, X, y, sw, state, P, counts, out):
    """The fused pass of the declaration ``key`` with the ensemble's combination."""


@overload(run_combined)
def _run_combined(key, X, y, sw, state, P, counts, out):
    if not isinstance(key, types.Literal):
        return None
    step, post = member_rule(key.literal_value)

    def impl(key, X, y, sw, state, P, counts, out):
        return linear_grid_pass(key, X, y, sw, state, P, counts, step, post, combine_sink,
                                out)
    return impl


@functools.lru_cache(maxsize=None)
def combined_entry(name):
    """The cached entry point of the fused pass of the declared learner ``name`` that
    also combines each row (``ExpertAdvice``): ``(X, y, sw, (W, U, A), P, counts, out)
    -> rows done``, ``out`` the tuple :func:`combine_sink` reads."""
    return njit(cache=True, nogil=True)(
        lambda X, y, sw, state, P, counts, out:
        run_combined(name, X, y, sw, state, P, counts, out))
