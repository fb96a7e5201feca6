"""The compiled pass of cost-sensitive multiclass Passive-Aggressive (numpy + numba only).

Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), section 7.  ``W``: (K, d + 1), one row per class, column 0
the constant feature's weight; scores ``s_k = W[k] . (constant, x)``; the prediction is
the first class of highest score.  With ``root[y, r] = sqrt(cost[y, r])``, the margin asked
of class y over r is ``root[y, r]``, and the loss against r is
``l = s_r - s_y + root[y, r]``:

Row i reads its margins from ``root[ri[i]]``: ``ri = y`` for a cost matrix; ``ri = i``
with ``root`` holding each row's own costs (VW's ``--csoaa`` rows).

* prediction-based (``max_loss`` False): r the predicted class;
* max-loss (``max_loss`` True): r the first class of greatest ``s_r - s_y + root[y, r]``.

When r != y and l > 0: ``tau = min(c, l / (2 ||x||^2 + D)) * sw`` ((c, D) = (inf, 0) for
PA, (C, 0) for PA-I, (inf, 1/(2C)) for PA-II), ``W[y] += tau x``, ``W[r] -= tau x``.
"""
from .._compiled import njit
from .._compiled.pairs import move_pair, row_dot, row_sq


@njit(cache=True, nogil=True)
def cost_pass(indptr, indices, data, y, sw, W, root, ri, c, D, constant, max_loss, learn,
              scores, pred):
    """One pass over CSR rows; writes the pre-update ``scores`` (n, K) and ``pred``;
    learns when ``learn``; returns the number of steps taken."""
    n = indptr.shape[0] - 1
    K = W.shape[0]
    steps = 0
    for i in range(n):
        a0, a1 = indptr[i], indptr[i + 1]
        sq = row_sq(constant, data, a0, a1)
        best = 0
        for k in range(K):
            acc = row_dot(W, k, constant, indices, data, a0, a1)
            scores[i, k] = acc
            if acc > scores[i, best]:
                best = k
        pred[i] = best
        if not learn:
            continue
        yi = y[i]
        q = ri[i]
        r = best
        if max_loss:
            top = scores[i, 0] - scores[i, yi] + root[q, 0]
            r = 0
            for k in range(1, K):
                v = scores[i, k] - scores[i, yi] + root[q, k]
                if v > top:
                    top, r = v, k
        if r == yi or sq == 0.0:
            continue
        loss = scores[i, r] - scores[i, yi] + root[q, r]
        if loss <= 0.0:
            continue
        tau = min(c, loss / (2.0 * sq + D)) * sw[i]
        if tau == 0.0:
            continue
        move_pair(W, yi, r, tau, constant, indices, data, a0, a1)
        steps += 1
    return steps
