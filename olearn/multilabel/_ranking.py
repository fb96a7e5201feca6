"""The compiled pass of the label-ranking learners (numpy + numba only).

Crammer and Singer, "A Family of Additive Online Algorithms for Category Ranking", JMLR 3
(2003); Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), section 6 (multilabel as the worst-violating pair).

State ``W``: (L + 1, d + 1); row 0 is the virtual threshold label v, rows 1..L the labels
in ``classes_`` order; column 0 holds the constant feature's weight (``constant``, 0
without an intercept).  A row's scores ``s_k = W[k] . (constant, x)``; label j is
predicted when ``s_j > s_v`` (its output score ``s_j - s_v``).  v is ranked below every
relevant label and above every irrelevant one, so the constraints of a row are the pairs
(r, s) in Y x not-Y, (r, v) for r in Y and (v, s) for s not in Y, each asking
``s_a - s_b >= 1``.  The step takes the pair of least margin ``m = s_a - s_b`` (the lowest
scored relevant label and the highest scored irrelevant one, the first of each on ties;
among the pairs (r, s), (r, v), (v, s) the first of least margin) and, when it is
violated, moves ``W[a] += tau x``, ``W[b] -= tau x`` (``||Phi(x, a) - Phi(x, b)||^2 =
2 ||x||^2``):

* Perceptron (``c < 0``): a mistake ``m <= 0``, ``tau = sw``;
* PA family: loss ``l = max(0, 1 - m)``, ``tau = min(c, l / (2 ||x||^2 + D)) * sw``
  with (c, D) = (inf, 0) for PA, (C, 0) for PA-I, (inf, 1 / (2C)) for PA-II (eqs. 6-8 with
  the pair's feature difference); a zero row makes no step.

``all_pairs``: every violated pair of the row moves, each by its own step (computed from
the pre-update scores) divided by the number of violated pairs k (the uniform update of
Crammer and Singer 2003's family, with the PA step of each pair in place of its 1; the
Perceptron's pairs: ``tau = sw / k`` each); the steps are summed, then applied.

Labels not yet known at a row (``i < first[j]``) take no part in it; a label is predicted
only after the row that makes it known (``i > first[j]``; before, output 0 and score 0).
"""
import numpy as np

from .._compiled import njit
from .._compiled.pairs import move_pair, row_dot, row_sq
from .._compiled.second_order import VAR_FLOOR


@njit(inline="always")
def worst_pair(s, Y, first, i):
    """The pair ``(hi, lo, margin)`` of least margin of row ``i`` (rows of W: label j is
    j + 1, the threshold 0); ``hi = -1`` when the row has no known label."""
    L = Y.shape[1]
    r = -1
    q = -1
    for j in range(L):
        if i < first[j]:
            continue
        if Y[i, j] != 0:
            if r < 0 or s[j + 1] < s[r + 1]:
                r = j
        elif q < 0 or s[j + 1] > s[q + 1]:
            q = j
    if r < 0 and q < 0:
        return -1, -1, 0.0
    # the pair of least margin among (r, q), (r, v), (v, q)
    if r >= 0 and q >= 0:
        hi, lo, m = r + 1, q + 1, s[r + 1] - s[q + 1]
        if s[r + 1] - s[0] < m:
            hi, lo, m = r + 1, 0, s[r + 1] - s[0]
        if s[0] - s[q + 1] < m:
            hi, lo, m = 0, q + 1, s[0] - s[q + 1]
    elif r >= 0:
        hi, lo, m = r + 1, 0, s[r + 1] - s[0]
    else:
        hi, lo, m = 0, q + 1, s[0] - s[q + 1]
    return hi, lo, m


@njit(cache=True, nogil=True)
def ranking_pass(indptr, indices, data, Y, first, sw, W, c, D, constant, learn,
                 scores, pred, all_pairs=False):
    """One pass over CSR rows ``(indptr, indices, data)`` (columns of x, before the
    shift past the constant); writes the pre-update ``scores`` and ``pred`` (n, L);
    learns when ``learn``; returns the number of steps taken."""
    n = indptr.shape[0] - 1
    K = W.shape[0]
    L = K - 1
    s = np.empty(K)
    g = np.zeros(K)
    steps = 0
    for i in range(n):
        a0, a1 = indptr[i], indptr[i + 1]
        sq = row_sq(constant, data, a0, a1)
        for k in range(K):
            s[k] = row_dot(W, k, constant, indices, data, a0, a1)
        for j in range(L):
            if i > first[j]:
                scores[i, j] = s[j + 1] - s[0]
                pred[i, j] = 1 if s[j + 1] > s[0] else 0
            else:
                scores[i, j] = 0.0
                pred[i, j] = 0
        if not learn:
            continue
        if all_pairs:
            if _all_pairs(s, Y, first, i, g, c, D, sq, sw[i]):
                for k in range(K):
                    if g[k] != 0.0:
                        W[k, 0] += g[k] * constant
                        for t in range(a0, a1):
                            W[k, indices[t] + 1] += g[k] * data[t]
                        g[k] = 0.0
                steps += 1
            continue
        hi, lo, m = worst_pair(s, Y, first, i)
        if hi < 0:
            continue
        if c < 0.0:  # the Perceptron
            if m > 0.0:
                continue
            tau = sw[i]
        else:
            loss = 1.0 - m
            if loss <= 0.0 or sq == 0.0:
                continue
            tau = min(c, loss / (2.0 * sq + D)) * sw[i]
        if tau == 0.0:
            continue
        move_pair(W, hi, lo, tau, constant, indices, data, a0, a1)
        steps += 1
    return steps


@njit(cache=True, nogil=True)
def _step_of(m, c, D, sq):
    """A pair's step before the weight and the split (0: the pair is not violated)."""
    if c < 0.0:
        return 1.0 if m <= 0.0 else 0.0
    loss = 1.0 - m
    if loss <= 0.0 or sq == 0.0:
        return 0.0
    return min(c, loss / (2.0 * sq + D))


@njit(cache=True, nogil=True)
def _all_pairs(s, Y, first, i, g, c, D, sq, w):
    """The all-pairs step of row ``i`` summed into ``g`` (one entry a row of W);
    returns whether any pair is violated."""
    L = Y.shape[1]
    k = 0
    for phase in range(2):  # (0: count the violated pairs; 1: add their steps)
        for a in range(L + 1):
            if a > 0 and (i < first[a - 1] or Y[i, a - 1] == 0):
                continue  # (a: a relevant label, or the threshold)
            for b in range(L + 1):
                if b == a or (b > 0 and (i < first[b - 1] or Y[i, b - 1] != 0)):
                    continue  # (b: an irrelevant label, or the threshold)
                if a == 0 and b == 0:
                    continue
                tau = _step_of(s[a] - s[b], c, D, sq)
                if tau > 0.0:
                    if phase == 0:
                        k += 1
                    else:
                        g[a] += tau * w / k
                        g[b] -= tau * w / k
        if k == 0:
            return False
    return True


@njit(inline="always")
def _arow_move(W, V, k, alpha, c, constant, indices, data, a0, a1):
    """``W[k] += alpha Sigma_k z``, then Sigma_k's diagonal ``1 / (1 / S + c z_i^2)``
    (``z = (constant, x)``; floored at ``VAR_FLOOR`` as olearn's AROW)."""
    if constant != 0.0:
        v = V[k, 0]
        W[k, 0] += alpha * v * constant
        V[k, 0] = max(v / (1.0 + c * v * constant * constant), VAR_FLOOR)
    for t in range(a0, a1):
        i = indices[t] + 1
        v = V[k, i]
        W[k, i] += alpha * v * data[t]
        V[k, i] = max(v / (1.0 + c * v * data[t] * data[t]), VAR_FLOOR)


@njit(cache=True, nogil=True)
def arow_pass(indptr, indices, data, Y, first, sw, W, V, r, constant, learn, scores,
              pred):
    """AROW on label ranking (see ``olearn.multilabel.arow``): ``ranking_pass``'s scores,
    predictions and worst pair; when its margin ``m < 1``, with ``v = z'Sigma_a z +
    z'Sigma_b z``: ``alpha = (1 - m) / (v + r / sw)``, ``W[a] += alpha Sigma_a z``,
    ``W[b] -= alpha Sigma_b z``, both diagonals gain ``sw z_i^2 / r`` in precision.
    ``V``: the (L + 1, d + 1) diagonal variances.  Returns the number of steps."""
    n = indptr.shape[0] - 1
    K = W.shape[0]
    L = K - 1
    s = np.empty(K)
    steps = 0
    for i in range(n):
        a0, a1 = indptr[i], indptr[i + 1]
        for k in range(K):
            s[k] = row_dot(W, k, constant, indices, data, a0, a1)
        for j in range(L):
            if i > first[j]:
                scores[i, j] = s[j + 1] - s[0]
                pred[i, j] = 1 if s[j + 1] > s[0] else 0
            else:
                scores[i, j] = 0.0
                pred[i, j] = 0
        if not learn or not sw[i] > 0.0:
            continue
        hi, lo, m = worst_pair(s, Y, first, i)
        if hi < 0 or not m < 1.0:
            continue
        v = (V[hi, 0] + V[lo, 0]) * constant * constant
        for t in range(a0, a1):
            v += (V[hi, indices[t] + 1] + V[lo, indices[t] + 1]) * data[t] * data[t]
        if not v > 0.0:
            continue
        rr = r / sw[i]
        alpha = (1.0 - m) / (v + rr)
        c = 1.0 / rr
        _arow_move(W, V, hi, alpha, c, constant, indices, data, a0, a1)
        _arow_move(W, V, lo, -alpha, c, constant, indices, data, a0, a1)
        steps += 1
    return steps
