"""Compiled kernels of the linear-chain tagger (numpy + numba only).

The model (``olearn.structured.tagger``) holds

* ``W`` (D, K): emission weights, row ``i`` the weights of hashed feature ``i`` for
  each of the K tags;
* ``T`` (K+1, K+1): transition weights, ``T[j, k]`` from tag ``j`` to tag ``k``; index
  ``K`` is the boundary: ``T[K, k]`` starts a sequence on ``k``, ``T[j, K]`` ends one
  on ``j``;
* with averaging, ``U`` and ``UT`` of the same shapes (``wbar = w - u / t``, below);
  with AROW, ``S`` and ``ST``: the diagonal variances of every weight.

A batch is CSR over tokens: token ``a`` has features ``idx[fptr[a]:fptr[a+1]]``
(hashed rows of ``W``) with values ``val[...]``; sequence ``q`` is tokens
``sptr[q]:sptr[q+1]``; ``y`` the tag codes of the tokens.

The score of a tag sequence ``s`` of a sequence of n tokens is
``w.Phi(x, s) = T[K, s_0] + sum_t E[t, s_t] + sum_{t>0} T[s_{t-1}, s_t] + T[s_{n-1}, K]``
with ``E[t, k] = sum_f val_f W[idx_f, k]``; :func:`viterbi` finds its maximum exactly
(ties to the lowest tag codes, scanning the previous tag in increasing order).

One learning round (:func:`learn_pass`) decodes ``s`` with the current weights and,
when it differs from ``y`` in ``d > 0`` tokens, adds ``tau Delta`` to the weights with
``Delta = Phi(x, y) - Phi(x, s)``, its entries on one (feature row, tag) or one
transition summed (a feature that occurs twice, or two features hashed to one row,
count once with their values added; a zero entry is dropped), as CRFsuite's
``delta_finalize`` collapses them.  ``tau`` by algorithm:

* perceptron: 1 (Collins 2002);
* PA, PA-I, PA-II (Crammer et al. 2006, sequence prediction): ``l = w.Phi(x, s) -
  w.Phi(x, y) + sqrt(d)``, ``tau = l / ||Delta||^2``, ``min(C, l / ||Delta||^2)``,
  ``l / (||Delta||^2 + 1 / (2 C))``;
* PA's max-loss update (``maxloss``; Crammer et al. 2006, the max-loss multiclass
  update carried to sequences): ``s`` is instead the tag sequence of the largest loss
  ``w.Phi(x, s) - w.Phi(x, y) + sqrt(d(y, s))``, found exactly by
  :func:`cost_viterbi`, and the round updates whenever that loss is positive (a
  round whose decoded tags are all right may update: its margin was too small);
* AROW with a diagonal covariance (its ``maxloss``, the default: ``s`` the sequence of
  the largest loss ``w.Phi(x, s) - w.Phi(x, y) + d``, by Viterbi with 1 added to the
  emission of every wrong tag; without it ``s`` decoded, CRFsuite's ``train_arow.c``): ``l = w.Phi(x, s) -
  w.Phi(x, y) + d``, ``alpha = l / (r + sum_i S_i Delta_i^2)``, ``w_i += alpha S_i
  Delta_i`` then ``1 / S_i += Delta_i^2 / r``.

Averaging (Collins 2002; as ``olearn/_compiled/averaging.py`` with a constant scale):
the j-th round adds ``(j - 1) tau Delta`` to ``U``; the mean of the iterates after
rounds 1..t is ``w - U / t``.  A round whose ``||Delta||^2`` is 0 (the two paths'
features cancel) changes nothing.
"""
import math

import numpy as np

from .._compiled import njit
from ..io.hashing import murmur3

PERCEPTRON, PA, PA1, PA2, AROW = 0, 1, 2, 3, 4

# the default template's feature kinds: each hashes with its own seed (see template.py);
# the compiled code passes them as np.int64(F_...): a bare global is a literal to
# numba, which would compile the helpers once per kind
F_BIAS, F_WORD, F_LOWER, F_PREFIX, F_SUFFIX, F_SHAPE = 1, 2, 3, 4, 8, 12
F_INIT_UPPER, F_HAS_UPPER, F_ALL_UPPER, F_HAS_DIGIT, F_ALL_DIGIT, F_HYPHEN, F_PUNCT = \
    13, 14, 15, 16, 17, 18, 19
F_PREV2, F_PREV1, F_NEXT1, F_NEXT2 = 20, 21, 22, 23
F_BEFORE, F_AFTER = 24, 25   # a neighbour beyond the sequence's start, its end
F_PREV_SUFFIX, F_NEXT_SUFFIX = 26, 27
SEED_BASE = 0x5EC7A9
MAX_SHAPE = 8
MAX_TEMPLATE = 32  # features of one token at most


# ---------------------------------------------------------------- scores and decoding
@njit
def emissions(W, U, inv_t, idx, val, fptr, a, n, E):
    """``E[t] = sum_f val_f (W - inv_t U)[idx_f]`` for tokens ``a .. a+n-1`` (``inv_t``
    0: the raw weights ``W``)."""
    K = W.shape[1]
    for t in range(n):
        for k in range(K):
            E[t, k] = 0.0
        for f in range(fptr[a + t], fptr[a + t + 1]):
            i = idx[f]
            v = val[f]
            if inv_t == 0.0:
                for k in range(K):
                    E[t, k] += v * W[i, k]
            else:
                for k in range(K):
                    E[t, k] += v * (W[i, k] - inv_t * U[i, k])


@njit
def transitions(T, UT, inv_t, TT):
    """``TT = T - inv_t UT`` (the averaged transitions), or ``T`` itself for 0."""
    if inv_t == 0.0:
        return T
    for j in range(T.shape[0]):
        for k in range(T.shape[1]):
            TT[j, k] = T[j, k] - inv_t * UT[j, k]
    return TT


@njit
def viterbi(E, T, n, K, delta, back, path):
    """The best tag sequence of ``n`` tokens with emission scores ``E`` and transitions
    ``T`` into ``path[:n]``; returns its score."""
    if n == 0:
        return 0.0
    B = K
    for k in range(K):
        delta[0, k] = T[B, k] + E[0, k]
    for t in range(1, n):
        for k in range(K):
            best = delta[t - 1, 0] + T[0, k]
            arg = 0
            for j in range(1, K):
                s = delta[t - 1, j] + T[j, k]
                if s > best:
                    best = s
                    arg = j
            delta[t, k] = best + E[t, k]
            back[t, k] = arg
    best = delta[n - 1, 0] + T[0, B]
    arg = 0
    for k in range(1, K):
        s = delta[n - 1, k] + T[k, B]
        if s > best:
            best = s
            arg = k
    path[n - 1] = arg
    for t in range(n - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return best


@njit
def cost_viterbi(E, T, n, K, y, a, V, back, path):
    """Cost-augmented decoding: the tag sequence ``s`` of ``n`` tokens maximising
    ``score(s) + sqrt(d)``, ``d`` its Hamming distance to the gold ``y[a:a+n]``, into
    ``path[:n]``; returns that maximum.  The square root does not decompose over the
    tokens, so the Viterbi states carry the mistakes so far: ``V[t, k, d]`` is the
    best score of a prefix ending on tag ``k`` at token ``t`` with ``d`` mistakes
    (``O(n^2 K^2)``; ``V`` and ``back`` of shape (n, K, n + 1) at least).  Ties go to the
    lowest previous tag, then the fewest mistakes, then the lowest last tag."""
    if n == 0:
        return 0.0
    B = K
    NEG = -np.inf
    for k in range(K):
        for d in range(2):
            V[0, k, d] = NEG
        V[0, k, 1 if k != y[a] else 0] = T[B, k] + E[0, k]
    for t in range(1, n):
        g = y[a + t]
        for k in range(K):
            c = 1 if k != g else 0
            for d in range(t + 2):
                V[t, k, d] = NEG
            for d in range(c, t + 1 + c):
                best = NEG
                arg = -1
                for j in range(K):
                    v = V[t - 1, j, d - c]
                    if v == NEG:
                        continue
                    v += T[j, k]
                    if arg < 0 or v > best:
                        best = v
                        arg = j
                if arg >= 0:
                    V[t, k, d] = best + E[t, k]
                    back[t, k, d] = arg
    best = NEG
    bk = -1
    bd = 0
    for d in range(n + 1):
        bonus = math.sqrt(d)
        for k in range(K):
            v = V[n - 1, k, d]
            if v == NEG:
                continue
            v += T[k, B] + bonus
            if bk < 0 or v > best:
                best = v
                bk = k
                bd = d
    path[n - 1] = bk
    d = bd
    for t in range(n - 1, 0, -1):
        k = path[t]
        path[t - 1] = back[t, k, d]
        if k != y[a + t]:
            d -= 1
    return best


@njit
def path_score(E, T, n, K, tags, a):
    """The score of the tags ``tags[a:a+n]``."""
    if n == 0:
        return 0.0
    B = K
    s = T[B, tags[a]] + E[0, tags[a]]
    for t in range(1, n):
        s += T[tags[a + t - 1], tags[a + t]] + E[t, tags[a + t]]
    return s + T[tags[a + n - 1], B]


@njit(cache=True)
def decode_pass(W, T, U, UT, t, idx, val, fptr, sptr, pred):
    """Tag every sequence of the batch with the model (averaged when ``U`` has rows
    and ``t > 0``); the codes go to ``pred`` (one per token)."""
    K = W.shape[1]
    nseq = sptr.shape[0] - 1
    maxlen = 0
    for q in range(nseq):
        maxlen = max(maxlen, sptr[q + 1] - sptr[q])
    E = np.empty((max(maxlen, 1), K))
    delta = np.empty((max(maxlen, 1), K))
    back = np.zeros((max(maxlen, 1), K), dtype=np.int64)
    path = np.empty(max(maxlen, 1), dtype=np.int64)
    TT = np.empty_like(T)
    inv_t = 1.0 / t if (U.shape[0] > 0 and t > 0) else 0.0
    TA = transitions(T, UT, inv_t, TT)
    for q in range(nseq):
        a = sptr[q]
        n = sptr[q + 1] - a
        emissions(W, U, inv_t, idx, val, fptr, a, n, E)
        viterbi(E, TA, n, K, delta, back, path)
        for i in range(n):
            pred[a + i] = path[i]


# ---------------------------------------------------------------- learning
@njit
def _sort_pairs(keys, coef, m):
    """Sort ``keys[:m]`` in place, ``coef`` along (Shell's sort, Ciura's gaps: short to
    compile, where numba's ``argsort`` adds seconds)."""
    for gap in (701, 301, 132, 57, 23, 10, 4, 1):
        if gap >= m and gap > 1:
            continue
        for i in range(gap, m):
            k = keys[i]
            c = coef[i]
            j = i
            while j >= gap and keys[j - gap] > k:
                keys[j] = keys[j - gap]
                coef[j] = coef[j - gap]
                j -= gap
            keys[j] = k
            coef[j] = c


@njit(inline="always")
def _add_transitions(tags, a, n, sign, DT, touched, m, B):
    """Add ``sign`` times the transition counts of ``tags[a:a+n]`` to ``DT``, listing the
    entries met in ``touched[:m]``; returns the new ``m``."""
    prev = B
    for t in range(n + 1):
        cur = tags[a + t] if t < n else B
        DT[prev, cur] += sign
        touched[m, 0] = prev
        touched[m, 1] = cur
        m += 1
        prev = cur
    return m


@njit(cache=True)
def learn_pass(W, T, U, UT, S, ST, counts, idx, val, fptr, sptr, y, order, algo, C, r,
               maxloss, want_pred, pred):
    """Learn the sequences ``order`` (indices into the batch) one at a time, in that
    order (``maxloss``: PA's max-loss update, the cost-augmented sequence).  ``counts``: ``[t, n_updates, diverged]``, the rounds and the updating rounds
    so far, updated; ``diverged`` becomes ``q + 1`` when a score or step on sequence
    ``q`` is not finite (the pass stops there).  With ``want_pred``, ``pred`` gets each
    sequence's tags as the model predicts them before learning it (averaged when ``U``
    has rows: the mean of the iterates so far, the raw weights before the first round).
    Returns the number of tokens whose decoded tag differed from the gold one."""
    K = W.shape[1]
    B = K
    average = U.shape[0] > 0
    nseq = sptr.shape[0] - 1
    maxlen = 1
    maxnnz = 1
    for q in range(nseq):
        maxlen = max(maxlen, sptr[q + 1] - sptr[q])
        maxnnz = max(maxnnz, fptr[sptr[q + 1]] - fptr[sptr[q]])
    E = np.empty((maxlen, K))
    delta = np.empty((maxlen, K))
    back = np.zeros((maxlen, K), dtype=np.int64)
    path = np.empty(maxlen, dtype=np.int64)
    keys = np.empty(2 * maxnnz, dtype=np.int64)
    coef = np.empty(2 * maxnnz)
    ukeys = np.empty(2 * maxnnz, dtype=np.int64)
    ucoef = np.empty(2 * maxnnz)
    DT = np.zeros((K + 1, K + 1))
    mark = np.zeros((K + 1, K + 1), dtype=np.uint8)
    touched = np.empty((2 * maxlen + 2, 2), dtype=np.int64)
    tpairs = np.empty((2 * maxlen + 2, 2), dtype=np.int64)
    tcoef = np.empty(2 * maxlen + 2)
    TT = np.empty_like(T)
    mx = maxlen if maxloss and algo != AROW else 0
    V = np.empty((mx, K, mx + 1))
    vback = np.zeros((mx, K, mx + 1), dtype=np.int64)
    apath = np.empty(maxlen, dtype=np.int64)
    errors = 0
    for q in order:
        a = sptr[q]
        n = sptr[q + 1] - a
        t_before = counts[0]
        if want_pred and average and t_before > 0:
            inv_t = 1.0 / t_before
            TA = transitions(T, UT, inv_t, TT)
            emissions(W, U, inv_t, idx, val, fptr, a, n, E)
            viterbi(E, TA, n, K, delta, back, path)
            for i in range(n):
                pred[a + i] = path[i]
        emissions(W, U, 0.0, idx, val, fptr, a, n, E)
        sv = viterbi(E, T, n, K, delta, back, path)
        if want_pred and not (average and t_before > 0):
            for i in range(n):
                pred[a + i] = path[i]
        counts[0] += 1.0
        j = counts[0]
        d = 0
        for i in range(n):
            if path[i] != y[a + i]:
                d += 1
        errors += d
        sc = path_score(E, T, n, K, y, a)
        if maxloss:   # the sequence of the largest loss (it may be y: no update)
            if algo == AROW:   # the cost d itself: it decomposes, one Viterbi
                for i in range(n):
                    for k in range(K):
                        if k != y[a + i]:
                            E[i, k] += 1.0
                sv = viterbi(E, T, n, K, delta, back, apath)
            else:
                sv = cost_viterbi(E, T, n, K, y, a, V, vback, apath)
            d = 0
            for i in range(n):
                path[i] = apath[i]
                if apath[i] != y[a + i]:
                    d += 1
            if d == 0 or not sv - sc > 0.0:
                continue
            # w.Phi(x, s); the loss below adds the cost back
            sv -= d if algo == AROW else math.sqrt(d)
        elif d == 0:
            continue
        # Delta on the emissions: the tokens whose tags differ, collapsed by key
        m = 0
        for i in range(n):
            g = y[a + i]
            s = path[i]
            if g == s:
                continue
            for f in range(fptr[a + i], fptr[a + i + 1]):
                keys[m] = idx[f] * K + g
                coef[m] = val[f]
                m += 1
                keys[m] = idx[f] * K + s
                coef[m] = -val[f]
                m += 1
        _sort_pairs(keys, coef, m)
        u = 0
        for h in range(m):
            if u > 0 and ukeys[u - 1] == keys[h]:
                ucoef[u - 1] += coef[h]
            else:
                ukeys[u] = keys[h]
                ucoef[u] = coef[h]
                u += 1
        # Delta on the transitions
        mt = _add_transitions(y, a, n, 1.0, DT, touched, 0, B)
        mt = _add_transitions(path, 0, n, -1.0, DT, touched, mt, B)
        ut = 0
        for h in range(mt):
            p0 = touched[h, 0]
            p1 = touched[h, 1]
            if mark[p0, p1] == 0:
                mark[p0, p1] = 1
                if DT[p0, p1] != 0.0:
                    tpairs[ut, 0] = p0
                    tpairs[ut, 1] = p1
                    tcoef[ut] = DT[p0, p1]
                    ut += 1
        for h in range(mt):
            DT[touched[h, 0], touched[h, 1]] = 0.0
            mark[touched[h, 0], touched[h, 1]] = 0
        # the step
        norm2 = 0.0
        conf = 0.0
        for h in range(u):
            c = ucoef[h]
            norm2 += c * c
            if algo == AROW:
                conf += c * c * S[ukeys[h] // K, ukeys[h] % K]
        for h in range(ut):
            c = tcoef[h]
            norm2 += c * c
            if algo == AROW:
                conf += c * c * ST[tpairs[h, 0], tpairs[h, 1]]
        if norm2 == 0.0:
            continue
        if algo == PERCEPTRON:
            tau = 1.0
        elif algo == AROW:
            tau = (sv - sc + d) / (conf + r)
        else:
            loss = sv - sc + math.sqrt(d)
            if algo == PA:
                tau = loss / norm2
            elif algo == PA1:
                tau = min(C, loss / norm2)
            else:
                tau = loss / (norm2 + 0.5 / C)
        if not (math.isfinite(tau) and math.isfinite(sv) and math.isfinite(sc)):
            counts[2] = q + 1.0   # diverged on sequence q: the caller raises
            return errors
        lag = j - 1.0
        for h in range(u):
            i = ukeys[h] // K
            k = ukeys[h] % K
            step = tau * ucoef[h]
            if algo == AROW:
                step *= S[i, k]
                S[i, k] = 1.0 / (1.0 / S[i, k] + ucoef[h] * ucoef[h] / r)
            W[i, k] += step
            if average:
                U[i, k] += lag * step
        for h in range(ut):
            p0 = tpairs[h, 0]
            p1 = tpairs[h, 1]
            step = tau * tcoef[h]
            if algo == AROW:
                step *= ST[p0, p1]
                ST[p0, p1] = 1.0 / (1.0 / ST[p0, p1] + tcoef[h] * tcoef[h] / r)
            T[p0, p1] += step
            if average:
                UT[p0, p1] += lag * step
        counts[1] += 1.0
    return errors


# ---------------------------------------------------------------- hashing
@njit
def _spans(buf, n):
    """Starts and ends of the ``n`` NUL-ended strings of ``buf``."""
    starts = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    a = 0
    start = 0
    for i in range(buf.shape[0]):
        if buf[i] == 0 and a < n:
            starts[a] = start
            ends[a] = i
            a += 1
            start = i + 1
    return starts, ends


@njit(cache=True)
def hash_names(buf, n, seed, mask):
    """The row of each of the ``n`` names, NUL-ended one after another in ``buf``: the
    MurmurHash3 of its UTF-8 bytes with ``seed``, masked to ``mask``."""
    out = np.empty(n, dtype=np.int64)
    starts, ends = _spans(buf, n)
    for i in range(n):
        out[i] = np.int64(murmur3(buf, starts[i], ends[i], seed) & np.uint64(mask))
    return out


@njit
def _flag(buf, kind, mask):
    """The row of a feature without a value (a flag, a marker): the hash of no bytes
    with the kind's seed."""
    z = np.int64(0)
    return _h(buf, z, z, kind, mask)


@njit
def _h(buf, start, end, kind, mask):
    return np.int64(murmur3(buf, start, end, SEED_BASE + kind) & np.uint64(mask))


@njit(inline="always")
def _char_class(b):
    if 65 <= b <= 90:
        return 88   # X
    if 97 <= b <= 122:
        return 120  # x
    if 48 <= b <= 57:
        return 100  # d
    if b >= 128:
        return 117  # u: a character outside ASCII
    return b


@njit
def _char_start(buf, p, start):
    """The start of the character before byte ``p`` (UTF-8: back over continuation
    bytes), not before ``start``."""
    p -= 1
    while p > start and (buf[p] & 0xC0) == 0x80:
        p -= 1
    return p


@njit
def _affixes(lbuf, ls, le, mask, idx, m):
    """Prefixes and suffixes of 1-4 characters of the lower case."""
    p = ls
    for k in range(4):
        if p >= le:
            break
        p += 1
        while p < le and (lbuf[p] & 0xC0) == 0x80:
            p += 1
        idx[m] = _h(lbuf, ls, p, F_PREFIX + k, mask)
        m += 1
    p = le
    for k in range(4):
        if p <= ls:
            break
        p = _char_start(lbuf, p, ls)
        idx[m] = _h(lbuf, p, le, F_SUFFIX + k, mask)
        m += 1
    return m


@njit
def _shape_flags(wbuf, ws, we, lbuf, ls, le, mask, marks, idx, m):
    """The shape and the flags."""
    ns = 0
    last = -1
    upper = lower = digit = hyphen = other = 0
    for i in range(ws, we):
        b = wbuf[i]
        if 128 <= b < 192:
            continue   # a continuation byte
        c = _char_class(b)
        if c == 88:
            upper += 1
        elif c == 120:
            lower += 1
        elif c == 100:
            digit += 1
        elif c != 117:
            other += 1
            if b == 45:
                hyphen += 1
        if c != last and ns < MAX_SHAPE:
            marks[ns] = c
            ns += 1
        last = c
    idx[m] = _h(marks, np.int64(0), ns, np.int64(F_SHAPE), mask)
    m += 1
    changed = (we - ws) != (le - ls)
    for i in range(we - ws):
        if changed:
            break
        changed = wbuf[ws + i] != lbuf[ls + i]
    if changed:
        idx[m] = _flag(marks, np.int64(F_HAS_UPPER), mask)
        m += 1
        # the first character changes in lower case: its bytes differ
        first = False
        i = 0
        while ws + i < we and (i == 0 or (wbuf[ws + i] & 0xC0) == 0x80):
            if ls + i >= le or wbuf[ws + i] != lbuf[ls + i]:
                first = True
            i += 1
        if first:
            idx[m] = _flag(marks, np.int64(F_INIT_UPPER), mask)
            m += 1
        if lower == 0:
            idx[m] = _flag(marks, np.int64(F_ALL_UPPER), mask)
            m += 1
    if digit > 0:
        idx[m] = _flag(marks, np.int64(F_HAS_DIGIT), mask)
        m += 1
        if digit == we - ws:
            idx[m] = _flag(marks, np.int64(F_ALL_DIGIT), mask)
            m += 1
    if hyphen > 0:
        idx[m] = _flag(marks, np.int64(F_HYPHEN), mask)
        m += 1
    if other > 0 and upper == 0 and lower == 0 and digit == 0 and not changed:
        idx[m] = _flag(marks, np.int64(F_PUNCT), mask)
        m += 1
    return m


@njit
def _neighbour(lbuf, lstarts, lends, b, a0, a1, kind, mask):
    if b < a0:
        return _flag(lbuf, F_BEFORE + 16 * kind, mask)
    if b >= a1:
        return _flag(lbuf, F_AFTER + 16 * kind, mask)
    return _h(lbuf, lstarts[b], lends[b], kind, mask)


@njit(cache=True)
def template_features(wbuf, lbuf, sptr, mask, idx, fptr):
    """The default template's hashed rows of every token (``template.py`` lists
    them): the tokens' bytes are ``wbuf``'s NUL-ended strings, their lower case
    ``lbuf``'s.  Writes ``idx`` (at most ``MAX_TEMPLATE`` per token) and ``fptr``;
    returns the count."""
    n = fptr.shape[0] - 1
    wstarts, wends = _spans(wbuf, n)
    lstarts, lends = _spans(lbuf, n)
    marks = np.zeros(MAX_SHAPE, dtype=np.uint8)
    nseq = sptr.shape[0] - 1
    m = 0
    fptr[0] = 0
    for q in range(nseq):
        a0 = sptr[q]
        a1 = sptr[q + 1]
        for a in range(a0, a1):
            ls = lstarts[a]
            le = lends[a]
            idx[m] = _flag(marks, np.int64(F_BIAS), mask)
            idx[m + 1] = _h(wbuf, wstarts[a], wends[a], np.int64(F_WORD), mask)
            idx[m + 2] = _h(lbuf, ls, le, np.int64(F_LOWER), mask)
            m = _affixes(lbuf, ls, le, mask, idx, m + 3)
            m = _shape_flags(wbuf, wstarts[a], wends[a], lbuf, ls, le, mask, marks, idx, m)
            # the neighbours' lower-case words, and their 3-character suffixes
            for off in (-2, -1, 1, 2):   # kinds F_PREV2, F_PREV1, F_NEXT1, F_NEXT2
                kind = F_PREV2 + off + 2 - (1 if off > 0 else 0)
                idx[m] = _neighbour(lbuf, lstarts, lends, a + off, a0, a1, kind, mask)
                m += 1
            for off in (-1, 1):   # kinds F_PREV_SUFFIX, F_NEXT_SUFFIX
                b = a + off
                kind = F_PREV_SUFFIX if off < 0 else F_NEXT_SUFFIX
                if a0 <= b < a1:
                    p = lends[b]
                    for k in range(3):
                        if p <= lstarts[b]:
                            break
                        p = _char_start(lbuf, p, lstarts[b])
                    idx[m] = _h(lbuf, p, lends[b], kind, mask)
                    m += 1
            fptr[a + 1] = m
    return m
