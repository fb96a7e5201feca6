"""The compiled support-set pass shared by every kernel learner (numpy + numba only).

A model is ``f_k(x) = sum_i alpha[k, i] K(x, x_i)`` over a support set stored as a
growing CSR block: ``ptr`` (row starts), ``idx``/``val`` (columns and values of the
non-zeros), ``sq`` (the cached squared norms ``||x_i||^2``), ``alpha`` (K, capacity)
the dual coefficients.  ``ints = [n_support, rng_state, ...]`` and ``floats = [Q, M,
...]`` (the Forgetron's running quantities) are small counters; ``kinv`` is the
Projectron's (and Projectron++'s) inverse Gram matrix of the support set ((0, 0) for
other policies).
Every array is preallocated and doubled when full, inside the pass; the pass returns
the arrays (new ones when they grew) and the Python layer stores them back.

Each kernel learner declares its rule (:func:`declare_expansion`), as every other
learner declares its parts (``olearn._compiled.declare``): the one support-set pass
(:func:`support_pass`) is generated per declaration, with the rule resolved at compile
time and inlined.  The budget policy and the kernel, hyper-parameters shared by every
rule, are fields of the named parameters that select a branch (a per-row branch costs
nothing next to the O(n_support x non-zeros) kernel evaluations).  The parameters are
one named tuple: the kernel's (``KERNEL_FIELDS``), the budget's (``BUDGET_FIELDS``),
then the rule's own declared names.

A rule: ``rule(alpha, kinv, pmat, kv, n, kxx, out, y, w, task, seen, params, coefs,
dvec) -> (updated, add, kinv, pmat)``: with the row scored (``out``) and its kernel
values against the support set (``kv``), it may change ``alpha`` (a decay, a
projection) and writes the new support vector's coefficients into ``coefs``; ``add``:
the row joins the support set (the budget policy then applies).  Most rules are a
margin test on the scores: :func:`margin_rule` makes one from
``test(out, y, w, kxx, task, seen, params, coefs) -> bool``.

Kernel products with a sparse row: the row is scattered into a dense work vector
(``work``, all zeros between rows), and each support vector gathers from it, so
``x . x_i`` costs O(nnz(x_i)); a row costs O(n_support x mean nnz) for every kernel.
"""
import math

import numpy as np
from numba import njit

from numba import types
from numba.extending import overload

from .._compiled.declare import params_class
from .._compiled.driver import (BINARY, MULTICLASS, REGRESSION, get_row, masked_argmax,
                                matvec, n_rows, row_source, top_wrong)

LINEAR, POLY, RBF = 0, 1, 2
NONE, RANDOM, FORGETRON, PROJECTRON, TRUNCATE, PROJECTRON_PP, BPA_S, BOGD = range(8)
#: the kernel's parameters (``kernel``: LINEAR, POLY or RBF) and the budget's
#: (``policy``: a code above; ``bound``: the Projectron's threshold, BOGD's largest
#: coefficient), first in every expansion's named parameters
KERNEL_FIELDS = ("kernel", "gamma", "coef0", "degree")
BUDGET_FIELDS = ("policy", "budget", "bound")
KernelParams = params_class("params_kernel", KERNEL_FIELDS + BUDGET_FIELDS)
RNG_MOD = 2147483647  # Park and Miller's minimal standard generator: s <- 48271 s mod m
RNG_MUL = 48271
N_INTS, N_FLOATS = 4, 4

__all__ = ["declare_expansion", "margin_rule", "class_margin", "class_step", "score_rows"]


@njit(inline="always")
def _kernel(kind, gamma, coef0, degree, dot, sqa, sqb):
    if kind == LINEAR:
        return dot
    if kind == POLY:
        return (gamma * dot + coef0) ** degree
    d2 = sqa + sqb - 2.0 * dot
    if d2 < 0.0:
        d2 = 0.0
    return math.exp(-gamma * d2)


@njit(inline="always")
def _gather(work, ptr, idx, val, s):
    acc = 0.0
    for q in range(ptr[s], ptr[s + 1]):
        acc += work[idx[q]] * val[q]
    return acc


@njit(inline="always")
def _kernel_values(work, ptr, idx, val, sq, n, sqx, params, kv):
    kind, gamma, coef0, degree = params.kernel, params.gamma, params.coef0, params.degree
    for s in range(n):
        kv[s] = _kernel(kind, gamma, coef0, degree, _gather(work, ptr, idx, val, s), sqx,
                        sq[s])


@njit(inline="always")
def _scores(alpha, kv, n, out):
    for k in range(alpha.shape[0]):
        acc = 0.0
        for s in range(n):
            acc += alpha[k, s] * kv[s]
        out[k] = acc


@njit(inline="always")
def _remove(alpha, ptr, idx, val, sq, n, r):
    """Drop support vector ``r`` of ``n``, keeping the others in their order."""
    lo = ptr[r]
    w = ptr[r + 1] - lo
    end = ptr[n]
    for q in range(lo, end - w):
        idx[q] = idx[q + w]
        val[q] = val[q + w]
    for q in range(end - w, end):
        idx[q] = 0
        val[q] = 0.0
    for s in range(r, n - 1):
        ptr[s + 1] = ptr[s + 2] - w
        sq[s] = sq[s + 1]
        for k in range(alpha.shape[0]):
            alpha[k, s] = alpha[k, s + 1]
    ptr[n] = 0
    sq[n - 1] = 0.0
    for k in range(alpha.shape[0]):
        alpha[k, n - 1] = 0.0


@njit(inline="always")
def _next_random(ints):
    """Park-Miller step of the generator in ``ints[1]``; 0 means "not seeded"
    (``random_state=None``): it is then seeded from numba's own generator on first use."""
    if ints[1] == 0:
        ints[1] = np.random.randint(1, RNG_MOD)
    ints[1] = (ints[1] * RNG_MUL) % RNG_MOD
    return ints[1]


@njit(inline="always")
def class_margin(out, y, task, seen):
    """``(m, pos, neg)``: binary, the margin ``y f(x)`` (rows 0 and -1); multiclass,
    ``f_y - f_s`` against the highest-scoring wrong class ``s`` seen so far (rows ``y``
    and ``s``; ``m = inf`` when there is none: no update)."""
    if task == MULTICLASS:
        yi = int(y)
        s = top_wrong(out, seen, yi)
        if s < 0:
            return math.inf, yi, s
        return out[yi] - out[s], yi, s
    return y * out[0], 0, -1


@njit(inline="always")
def class_step(coefs, a, y, task, pos, neg):
    """The new support vector's coefficients for a step ``a``: ``a y`` (binary), ``+a``
    for class ``pos`` and ``-a`` for ``neg`` (multiclass)."""
    if task == MULTICLASS:
        coefs[pos] = a
        coefs[neg] = -a
    else:
        coefs[0] = a * y


_MARGIN = {}


def margin_rule(test):
    """The rule of a learner whose update is a test on the row's scores:
    ``test(out, y, w, kxx, task, seen, params, coefs) -> bool`` writes the new support
    vector's coefficients (``coefs`` zeroed before) and says whether the row joins;
    a row with weight 0 or ``K(x, x) = 0`` changes nothing."""
    if test not in _MARGIN:
        @njit(inline="always")
        def rule(alpha, kinv, pmat, kv, n, kxx, out, y, w, task, seen, params, coefs, dvec):
            for k in range(coefs.shape[0]):
                coefs[k] = 0.0
            if not (w > 0.0 and kxx != 0.0):
                return False, False, kinv, pmat
            add = test(out, y, w, kxx, task, seen, params, coefs)
            return add, add, kinv, pmat
        _MARGIN[test] = rule
    return _MARGIN[test]


@njit(inline="always")
def _grow_inverse(kinv, d, n, delta):
    """``K^{-1}`` of the support set grown by one vector, in place (block inversion):
    with ``d = K^{-1} k`` and ``delta = K(x, x) - k . d``, the old block gains
    ``d d' / delta``, the new row and column are ``-d / delta`` and the corner
    ``1 / delta``."""
    for a in range(n):
        for b in range(n):
            kinv[a, b] += d[a] * d[b] / delta
        kinv[a, n] = -d[a] / delta
        kinv[n, a] = -d[a] / delta
    kinv[n, n] = 1.0 / delta


@njit(cache=True)
def _project(alpha, kinv, kv, n, kxx, coefs, budget, threshold, dvec):
    """The Projectron's step: returns (True, kinv) when the update was projected onto
    the support set, else (False, kinv) with ``kinv`` grown for the new vector."""
    if n == 0:
        if kinv.shape[0] < 1:
            kinv = np.zeros((alpha.shape[1], alpha.shape[1]))
        kinv[0, 0] = 1.0 / kxx
        return False, kinv
    matvec(kinv, kv, n, n, dvec)
    delta2 = kxx
    for a in range(n):
        delta2 -= kv[a] * dvec[a]
    if delta2 < 0.0:
        delta2 = 0.0
    if delta2 <= threshold * threshold or (budget > 0 and n >= budget):
        for a in range(n):
            alpha[0, a] += coefs[0] * dvec[a]
        return True, kinv
    if kinv.shape[0] < n + 1:
        cap = max(alpha.shape[1], n + 1)
        grown = np.zeros((cap, cap))
        grown[:kinv.shape[0], :kinv.shape[0]] = kinv
        kinv = grown
    _grow_inverse(kinv, dvec, n, delta2)
    return False, kinv


@njit(cache=True)
def _margin_project(alpha, kinv, kv, n, kxx, loss, step, threshold, dvec):
    """Projectron++'s update on a margin error (0 < loss < 1, no mistake): Orabona,
    Keshet, Caputo 2009, Algorithm 2.  With ``d = K_S^{-1} k_t``,
    ``||P k_t||^2 = k_t . d`` and ``delta^2 = K(x, x) - k_t . d``,
    ``tau = min(loss / ||P k_t||^2, 1)``; when
    ``beta = tau (2 loss - tau ||P k_t||^2 - 2 delta / eta) >= 0`` the projected step
    ``alpha += step tau d`` is made (the set never grows).  Returns True if it was."""
    if n == 0 or kinv.shape[0] < n:
        return False
    matvec(kinv, kv, n, n, dvec)
    pk2 = 0.0
    for a in range(n):
        pk2 += kv[a] * dvec[a]
    if not pk2 > 0.0:
        return False
    delta2 = kxx - pk2
    if delta2 < 0.0:
        delta2 = 0.0
    tau = min(loss / pk2, 1.0)
    if delta2 == 0.0:
        penalty = 0.0
    elif threshold > 0.0:
        penalty = 2.0 * math.sqrt(delta2) / threshold
    else:
        return False
    if tau * (2.0 * loss - tau * pk2 - penalty) < 0.0:
        return False
    for a in range(n):
        alpha[0, a] += step * tau * dvec[a]
    return True


@njit(inline="always")
def _least_degrading(alpha, sq, kv, n, kxx, params):
    """BPA-S's choice (Wang and Vucetic 2010): the support vector ``r`` whose removal,
    with its part projected onto the new vector, moves ``f`` least:
    ``sum_k alpha[k, r]^2 (K(x_r, x_r) - K(x_r, x)^2 / K(x, x))`` (first on ties)."""
    kind, gamma, coef0, degree = params.kernel, params.gamma, params.coef0, params.degree
    best, r = np.inf, 0
    for s in range(n):
        a2 = 0.0
        for k in range(alpha.shape[0]):
            a2 += alpha[k, s] * alpha[k, s]
        loss = a2 * (_kernel(kind, gamma, coef0, degree, sq[s], sq[s], sq[s])
                     - kv[s] * kv[s] / kxx)
        if loss < best:
            best, r = loss, s
    return r


@njit(inline="always")
def _cap(alpha, n, top):
    """BOGD's bound on the coefficients as LIBOKL applies it after a removal: every
    coefficient scaled by ``min(1, top / max_i |alpha_i|)``."""
    big = 0.0
    for k in range(alpha.shape[0]):
        for s in range(n):
            big = max(big, abs(alpha[k, s]))
    if big > top:
        scale = top / big
        for k in range(alpha.shape[0]):
            for s in range(n):
                alpha[k, s] *= scale


@njit(cache=True)
def _square(M, cap):
    """``M`` (m, m) as a (cap, cap) array (zeros added; ``M`` itself when it fits)."""
    if M.shape[0] >= cap:
        return M
    grown = np.zeros((cap, cap))
    grown[:M.shape[0], :M.shape[0]] = M
    return grown


@njit(cache=True)
def krls_step(alpha, kinv, pmat, kv, n, kxx, err, nu, dvec, coefs):
    """Engel, Mannor, Meir 2004, Table 1 (KRLS with the ALD test), for one row with
    prediction error ``err``: returns (add x to the dictionary?, kinv, pmat); ``coefs[0]``
    is the new vector's coefficient when it is added."""
    if n == 0:
        kinv = _square(kinv, max(alpha.shape[1], 1))
        pmat = _square(pmat, max(alpha.shape[1], 1))
        kinv[0, 0] = 1.0 / kxx
        pmat[0, 0] = 1.0
        coefs[0] = err / kxx
        return True, kinv, pmat
    matvec(kinv, kv, n, n, dvec)  # a_t = K~^{-1} k~_t
    delta = kxx
    for a in range(n):
        delta -= kv[a] * dvec[a]
    if delta > nu:  # x_t is not approximately linearly dependent: it joins
        cap = max(alpha.shape[1], n + 1)
        kinv = _square(kinv, cap)
        pmat = _square(pmat, cap)
        _grow_inverse(kinv, dvec, n, delta)
        for a in range(n):
            pmat[a, n] = 0.0
            pmat[n, a] = 0.0
        pmat[n, n] = 1.0
        for a in range(n):
            alpha[0, a] -= dvec[a] * err / delta
        coefs[0] = err / delta
        return True, kinv, pmat
    # reduced update: q = P a / (1 + a' P a), P -= q a' P, alpha += K~^{-1} q err
    pa = np.empty(n)
    matvec(pmat, dvec, n, n, pa)
    denom = 1.0
    for a in range(n):
        denom += dvec[a] * pa[a]
    for a in range(n):
        for b in range(n):
            pmat[a, b] -= pa[a] * pa[b] / denom
    for a in range(n):
        acc = 0.0
        for b in range(n):
            acc += kinv[a, b] * pa[b]
        alpha[0, a] += acc / denom * err
    return False, kinv, pmat


@njit(cache=True)
def _append(alpha, ptr, idx, val, sq, kinv, pmat, n, ridx, rval, sqx, coefs):
    """Support vector ``n`` := the row (its non-zeros), growing the arrays if full."""
    K = alpha.shape[0]
    if n + 1 > alpha.shape[1]:
        cap = 2 * alpha.shape[1]
        grown_a = np.zeros((K, cap))
        grown_a[:, :n] = alpha[:, :n]
        alpha = grown_a
        grown_p = np.zeros(cap + 1, dtype=ptr.dtype)
        grown_p[:n + 1] = ptr[:n + 1]
        ptr = grown_p
        grown_s = np.zeros(cap)
        grown_s[:n] = sq[:n]
        sq = grown_s
        if kinv.shape[0] > 0:
            kinv = _square(kinv, cap)
        if pmat.shape[0] > 0:
            pmat = _square(pmat, cap)
    nnz = 0
    for j in range(ridx.shape[0]):
        if rval[j] != 0.0:
            nnz += 1
    start = ptr[n]
    if start + nnz > idx.shape[0]:
        size = max(idx.shape[0], 1)
        while start + nnz > size:
            size *= 2
        grown_i = np.zeros(size, dtype=idx.dtype)
        grown_i[:start] = idx[:start]
        idx = grown_i
        grown_v = np.zeros(size)
        grown_v[:start] = val[:start]
        val = grown_v
    q = start
    for j in range(ridx.shape[0]):
        if rval[j] != 0.0:
            idx[q] = ridx[j]
            val[q] = rval[j]
            q += 1
    ptr[n + 1] = q
    sq[n] = sqx
    for k in range(K):
        alpha[k, n] = coefs[k]
    return alpha, ptr, idx, val, sq, kinv, pmat


@njit
def _forget(alpha, ptr, idx, val, sq, n, floats, work, params):
    """The self-tuned Forgetron's shrink and removal of the oldest of ``n`` vectors
    (``work`` all zeros on entry and exit)."""
    kind, gamma, coef0, degree = params.kernel, params.gamma, params.coef0, params.degree
    for q in range(ptr[0], ptr[1]):
        work[idx[q]] = val[q]
    fr = 0.0
    for s in range(n):
        fr += alpha[0, s] * _kernel(kind, gamma, coef0, degree,
                                    _gather(work, ptr, idx, val, s), sq[0], sq[s])
    for q in range(ptr[0], ptr[1]):
        work[idx[q]] = 0.0
    sigma = abs(alpha[0, 0])
    yr = 1.0 if alpha[0, 0] > 0.0 else -1.0
    mu = yr * fr
    room = 15.0 / 32.0 * floats[1] - floats[0]
    phi = 1.0
    if sigma > 0.0 and sigma * sigma + 2.0 * sigma * (1.0 - mu) > room:
        disc = (1.0 - mu) * (1.0 - mu) + room
        phi = 0.0
        if disc >= 0.0:
            phi = min(1.0, max(0.0, (-(1.0 - mu) + math.sqrt(disc)) / sigma))
    lam = sigma * phi
    floats[0] += lam * lam + 2.0 * lam - 2.0 * lam * mu
    for s in range(n):
        alpha[0, s] *= phi
    _remove(alpha, ptr, idx, val, sq, n, 0)


@njit(cache=True)
def _score_row(ridx, rval, yv, alpha, ptr, idx, val, sq, ints, work, kparams, task, seen, out,
               kv):
    """Score one row into ``out`` (its kernel values against the support set into
    ``kv``, the row scattered into ``work``); returns (predicted class, -1 when a score
    is not finite (``work`` then cleared); ``||x||^2``; ``K(x, x)``).  Shared by every
    expansion: compiled once per row layout."""
    sqx = 0.0
    big = 0.0
    for j in range(ridx.shape[0]):
        sqx += rval[j] * rval[j]
        big = max(big, abs(rval[j]))
    if sqx == np.inf or (sqx == 0.0 and big > 0.0):  # (as the linear core's sq_norm)
        raise ValueError("a row's squared norm is out of floating-point range (feature "
                         "values beyond about 1e150 or below 1e-150): scale the features")
    for j in range(ridx.shape[0]):
        work[ridx[j]] = rval[j]
    _kernel_values(work, ptr, idx, val, sq, ints[0], sqx, kparams, kv)
    _scores(alpha, kv, ints[0], out)
    z = 0.0
    for k in range(out.shape[0]):
        z += out[k] * 0.0
    if z != z:  # a non-finite score: no update (the caller reports the row)
        for j in range(ridx.shape[0]):
            work[ridx[j]] = 0.0
        return -1, sqx, 0.0
    p = 0
    if task == MULTICLASS:
        p = masked_argmax(out, seen)
        seen[int(yv)] = 1
    elif task == BINARY:
        p = 1 if out[0] > 0.0 else 0
    return p, sqx, _kernel(kparams.kernel, kparams.gamma, kparams.coef0, kparams.degree,
                           sqx, sqx, sqx)


@njit(cache=True)
def _budget(updated, add, ridx, rval, yv, w, alpha, ptr, idx, val, sq, ints, floats, kinv,
            pmat, work, kparams, task, out, kv, dvec, coefs, sqx, kxx):
    """After the rule: the budget policy, the new support vector (when ``add``), ``work``
    cleared; returns (updated, arrays...).  Shared by every expansion."""
    policy, budget, bound = kparams.policy, int(kparams.budget), kparams.bound
    n = ints[0]
    if add and (policy == PROJECTRON or policy == PROJECTRON_PP):
        projected, kinv = _project(alpha, kinv, kv, n, kxx, coefs, budget, bound, dvec)
        add = not projected
    elif (policy == PROJECTRON_PP and task == BINARY and w > 0.0 and kxx != 0.0
          and 0.0 < yv * out[0] < 1.0):
        updated = _margin_project(alpha, kinv, kv, n, kxx, 1.0 - yv * out[0], yv * w,
                                  bound, dvec)
    if add and policy == RANDOM and n >= budget:
        _remove(alpha, ptr, idx, val, sq, n, _next_random(ints) % n)
        n -= 1
    if add and policy == BPA_S and n >= budget:
        r = _least_degrading(alpha, sq, kv, n, kxx, kparams)
        for k in range(coefs.shape[0]):  # the removed term, projected onto K(x, .)
            coefs[k] += alpha[k, r] * kv[r] / kxx
        _remove(alpha, ptr, idx, val, sq, n, r)
        n -= 1
    capped = False
    if add and policy == BOGD and n >= budget:
        capped = bound > 0.0
        _remove(alpha, ptr, idx, val, sq, n, _next_random(ints) % n)
        if n > 1:  # the rest rescaled by B / (B - 1): unbiased for the uniform draw
            scale = n / (n - 1.0)
            for k in range(alpha.shape[0]):
                for s in range(n - 1):
                    alpha[k, s] *= scale
        n -= 1
    if add:
        alpha, ptr, idx, val, sq, kinv, pmat = _append(alpha, ptr, idx, val, sq, kinv, pmat,
                                                       n, ridx, rval, sqx, coefs)
        n += 1
        if capped:
            _cap(alpha, n, bound)
        if policy == TRUNCATE and n > budget:
            _remove(alpha, ptr, idx, val, sq, n, 0)  # NORMA's truncation: the oldest term
            n -= 1
        if policy == FORGETRON:
            floats[1] += 1.0  # M: the mistakes so far
            if n > budget:
                for j in range(ridx.shape[0]):
                    work[ridx[j]] = 0.0
                _forget(alpha, ptr, idx, val, sq, n, floats, work, kparams)
                n -= 1
        ints[0] = n
    for j in range(ridx.shape[0]):
        work[ridx[j]] = 0.0
    return updated, alpha, ptr, idx, val, sq, kinv, pmat


@njit(inline="always")
def support_pass(X, y, sw, alpha, ptr, idx, val, sq, ints, floats, kinv, pmat, work, kparams,
                 params, task, seen, scores, pred, rule):
    """The online protocol over every row of ``X`` for a support-set learner with the
    update ``rule`` (its parameters ``params``; the kernel's and the budget's
    ``kparams``); returns ``(n_updates, alpha, ptr, idx, val, sq, kinv, pmat)``.  Only
    the rule is compiled per expansion: the row's scores and the budget are shared
    (``_score_row``, ``_budget``)."""
    rows = row_source(X)
    kv = np.zeros(alpha.shape[1] + 1)
    dvec = np.zeros(alpha.shape[1] + 1)
    coefs = np.zeros(alpha.shape[0])
    n_updates = 0
    for i in range(n_rows(X)):
        ridx, rval = get_row(X, i, rows)
        if kv.shape[0] < alpha.shape[1] + 1:
            kv = np.zeros(alpha.shape[1] + 1)
            dvec = np.zeros(alpha.shape[1] + 1)
        out = scores[i]
        p, sqx, kxx = _score_row(ridx, rval, y[i], alpha, ptr, idx, val, sq, ints, work,
                                 kparams, task, seen, out, kv)
        if p < 0:
            pred[i] = 0
            break  # the pass ends at a row whose scores are not finite
        pred[i] = p
        updated, add, kinv, pmat = rule(alpha, kinv, pmat, kv, ints[0], kxx, out, y[i],
                                        sw[i], task, seen, params, coefs, dvec)
        updated, alpha, ptr, idx, val, sq, kinv, pmat = _budget(
            updated, add, ridx, rval, y[i], sw[i], alpha, ptr, idx, val, sq, ints, floats,
            kinv, pmat, work, kparams, task, out, kv, dvec, coefs, sqx, kxx)
        n_updates += updated
    return n_updates, alpha, ptr, idx, val, sq, kinv, pmat


@njit(cache=True)
def score_rows(X, alpha, ptr, idx, val, sq, n, work, params, out):
    """``out[i, k] = f_k(x_i)`` for every row of ``X`` (no learning)."""
    rows = row_source(X)
    kv = np.zeros(n + 1)
    for i in range(n_rows(X)):
        ridx, rval = get_row(X, i, rows)
        sqx = 0.0
        for j in range(ridx.shape[0]):
            work[ridx[j]] = rval[j]
            sqx += rval[j] * rval[j]
        _kernel_values(work, ptr, idx, val, sq, n, sqx, params, kv)
        _scores(alpha, kv, n, out[i])
        for j in range(ridx.shape[0]):
            work[ridx[j]] = 0.0


TASKS = (REGRESSION, BINARY, MULTICLASS)


# ---------------------------------------------------------------- declared expansions
_EXPANSIONS = {}
_ENTRIES = {}


class Expansion:
    """A declared kernel expansion: its rule, the named tuple of its parameters, and its
    cached support-set pass (``entry``, compiled on first call)."""

    def __init__(self, name, rule, params):
        self.name, self.rule = name, rule
        self.params = params_class("params_kernel_" + name.replace(".", "_"), tuple(params))

    def pack(self, owner, given):
        """The parameters as the pass takes them, from a mapping by name; a missing or
        unknown name is an error naming the learner ``owner`` and the parameter."""
        from .._compiled.declare import check_names
        check_names(owner, self.name, self.params._fields, given)
        return self.params(*(float(given[f]) for f in self.params._fields))

    @property
    def entry(self):
        key = self.name
        kernel = _ENTRIES.get(key)
        if kernel is None:
            def run(X, y, sw, alpha, ptr, idx, val, sq, ints, floats, kinv, pmat, work,
                    kparams, params, task, seen, scores, pred):
                return run_expansion(key, X, y, sw, alpha, ptr, idx, val, sq, ints, floats,
                                     kinv, pmat, work, kparams, params, task, seen, scores,
                                     pred)
            kernel = _ENTRIES[key] = njit(cache=True)(run)
        return kernel


def declare_expansion(name, rule, params=()):
    """Register a kernel learner's ``rule`` (see the module docstring) and the names of
    its own parameters under ``name``; returns its :class:`Expansion`."""
    _EXPANSIONS[name] = Expansion(name, rule, params)
    return _EXPANSIONS[name]


def run_expansion(key, X, y, sw, alpha, ptr, idx, val, sq, ints, floats, kinv, pmat, work,
                  kparams, params, task, seen, scores, pred):
    """The support-set pass of the expansion named by the constant string ``key``."""


@overload(run_expansion)
def _run_expansion(key, X, y, sw, alpha, ptr, idx, val, sq, ints, floats, kinv, pmat, work,
                   kparams, params, task, seen, scores, pred):
    if not isinstance(key, types.Literal):
        return None  # numba retries with the literal string
    rule = _EXPANSIONS[key.literal_value].rule

    def impl(key, X, y, sw, alpha, ptr, idx, val, sq, ints, floats, kinv, pmat, work,
             kparams, params, task, seen, scores, pred):
        return support_pass(X, y, sw, alpha, ptr, idx, val, sq, ints, floats, kinv, pmat,
                            work, kparams, params, task, seen, scores, pred, rule)
    return impl
