"""Compiled parsing of Vowpal Wabbit text lines (numba); see ``olearn.io.vw``.

``parse_vw_block`` reads a block of whole lines in one pass and writes each row's
hashed columns (linear features of the namespaces kept, then the interactions)
with Vowpal Wabbit's numbers:

* a name made only of ASCII digits hashes to its value plus the seed (mod 2**32),
  any other name to MurmurHash3 x86 32-bit of its bytes with the seed;
* a namespace's hash is its name's hash with seed 0, the default namespace's is 0;
  a feature's hash is its name's hash seeded with its namespace's hash; a
  string value ``name:text`` hashes ``text`` seeded with the hash of ``name``;
  an unnamed feature ``:value`` takes the namespace hash plus its rank among the
  namespace's unnamed features;
* a pair of features (i, j) of an interaction hashes to ``(16777619 * i) ^ j``,
  a triple to ``(16777619 * ((16777619 * i) ^ j)) ^ k`` (64-bit arithmetic), and
  every column is taken modulo ``2**n_bits``; an interaction of a namespace with
  itself pairs each feature with itself and the ones after it.

Numbers are converted exactly as Python's ``float()`` does: on Clinger's fast path
(at most 15 significant digits, power of ten at most 22), else (the 17 digits that
``repr`` and ``%.17g`` write) by Eisel-Lemire (``olearn.io._fastparse``), else by the
C library's correctly rounded ``strtod`` on a NUL-terminated copy of a token already checked against the grammar, where the caller
allows it (not on Windows, and only while the locale's decimal point is ``"."``);
another number's place is recorded and the caller converts it with ``float()`` and
calls again with the values (``exact``).  Faults end the block with a code and the
line; the caller words the message.

The common line (numbered features, short numbers, no interactions) is read in one
scan: a name of digits is hashed and a value of at most 15 digits converted as they
are read, each column written straight to the block's arrays, and a flag says whether
every row came out canonical (columns increasing, no 0), so that the caller builds the
CSR matrix without scipy's sort.  ``fast=False`` leaves these shortcuts to the general
path, which gives the same numbers (``tests/test_io_vw.py`` compares the two).
"""

import numpy as np

from .._compiled import njit
from ._fastparse import (_DIGITS, _POW10, _Q_MAX, _Q_MIN, _TOKEN, _eisel_lemire,  # noqa: F401
                         _short_number, _strtod, strtod_allowed)
from .hashing import murmur3

FNV = np.uint64(16777619)

# fault codes (status 1), worded by olearn.io.vw
NO_BAR, LABELS, LABEL, WEIGHT, NS_NAME, NS_VALUE, VALUE = 1, 2, 3, 4, 5, 6, 7
TOO_MANY, PRODUCT = 8, 9  # a row past ``max_row`` features; a non-finite interaction
INFINITE = 10             # a feature value written inf or infinity (vw reads infinity)


@njit(inline="always")
def _stop(c):
    """Ends a name: space, tab, CR, other ASCII blanks, ':' or '|'."""
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12 or c == 58 or c == 124


@njit(inline="always")
def _blank(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit
def _murmur(a, start, end, seed):
    return murmur3(a, start, end, seed)


@njit(inline="always")
def _hashstring(a, start, end, seed):
    """Vowpal Wabbit's ``hashstring`` of ``a[start:end]`` (uint64 below 2**32)."""
    m = np.uint64(0xFFFFFFFF)
    ret = np.uint64(0)
    for i in range(start, end):
        c = a[i]
        if c < 48 or c > 57:
            return _murmur(a, start, end, seed)
        ret = (ret * np.uint64(10) + np.uint64(c - 48)) & m
    return (ret + (np.uint64(seed) & m)) & m


@njit(inline="always")
def _token_end(a, i, end):
    while i < end and not _blank(a[i]) and a[i] != 124:
        i += 1
    return i


@njit(inline="always")
def _is_number_start(c):
    return (48 <= c <= 57) or c == 43 or c == 45 or c == 46


@njit
def _grammar_number(a, i, end):
    """True if ``a[i:end]`` is ``[+-](digits[.digits]|.digits)[(e|E)[+-]digits]``."""
    if i < end and (a[i] == 43 or a[i] == 45):
        i += 1
    digits = 0
    while i < end and 48 <= a[i] <= 57:
        i += 1
        digits += 1
    if i < end and a[i] == 46:
        i += 1
        while i < end and 48 <= a[i] <= 57:
            i += 1
            digits += 1
    if digits == 0:
        return False
    if i < end and (a[i] == 101 or a[i] == 69):
        i += 1
        if i < end and (a[i] == 43 or a[i] == 45):
            i += 1
        e = 0
        while i < end and 48 <= a[i] <= 57:
            i += 1
            e += 1
        if e == 0:
            return False
    return i == end


@njit
def _special_value(a, i, end):
    """``a[i:end]`` as Vowpal Wabbit's number parser reads the words: 1 for ``inf`` or
    ``infinity`` (any case, signed or not), 2 for ``nan`` (any case), else 0 (a string
    value)."""
    if i < end and (a[i] == 43 or a[i] == 45):
        i += 1
    n = end - i
    if n != 3 and n != 8:
        return 0
    word = "infinity" if n == 8 else "inf"
    is_inf = True
    is_nan = n == 3
    for k in range(n):
        c = a[i + k] | 32   # (lower case)
        if c != ord(word[k]):
            is_inf = False
        if n == 3 and c != ord("nan"[k]):
            is_nan = False
    return 1 if is_inf else 2 if is_nan else 0


@njit
def _long_value(a, i, end, scratch):
    """A number the fast path refused, by strtod; (value, ok)."""
    n = end - i
    if n >= _TOKEN:
        return 0.0, False
    for k in range(n):
        scratch[k] = a[i + k]
    scratch[n] = 0
    v = _strtod(scratch)
    return v, np.isfinite(v)


@njit
def _value(a, i, end):
    """The number written in ``a[i:end]`` (already checked against the grammar) and
    whether it was converted exactly: Clinger's fast path, a decimal significand of
    at most 15 digits and a power of ten at most 22 in size (both exact doubles, so
    one multiplication or division rounds correctly, as ``float()`` does)."""
    neg = False
    if a[i] == 45 or a[i] == 43:
        neg = a[i] == 45
        i += 1
    m = 0
    digits = 0
    scale = 0
    while i < end and 48 <= a[i] <= 57:
        if m > 0 or a[i] != 48:
            digits += 1
        m = m * 10 + (a[i] - 48)
        i += 1
        if digits > _DIGITS:
            return 0.0, False
    if i < end and a[i] == 46:
        i += 1
        while i < end and 48 <= a[i] <= 57:
            if m > 0 or a[i] != 48:
                digits += 1
            m = m * 10 + (a[i] - 48)
            scale -= 1
            i += 1
            if digits > _DIGITS:
                return 0.0, False
    if i < end:  # the exponent
        i += 1
        eneg = False
        if a[i] == 45 or a[i] == 43:
            eneg = a[i] == 45
            i += 1
        e = 0
        while i < end:
            e = e * 10 + (a[i] - 48)
            i += 1
            if e > 10000:
                return 0.0, False
        scale += -e if eneg else e
    if m == 0:
        return (-0.0 if neg else 0.0), True
    if digits > 15 or scale > 22 or scale < -22:
        if _Q_MIN <= scale <= _Q_MAX:  # 16 to 18 digits, or a large exponent
            v, ok = _eisel_lemire(np.uint64(m), scale)
            if ok:
                return (-v if neg else v), True
        return 0.0, False
    v = float(m)
    v = v * _POW10[scale] if scale >= 0 else v / _POW10[-scale]
    return (-v if neg else v), True


@njit(inline="always")
def _int_value(a, i, end):
    """``(value, next index, ok)`` of a token of 1 to 15 digits alone ending at ``end``,
    a blank or a ``|`` (the values of most files, a9a's ``1`` among them), in the one
    scan: its own loop, which the compiler makes a third faster than
    ``_short_number``'s on such tokens (a9a parses 1.5x faster with it)."""
    k = i
    m = 0
    while k < end and 48 <= a[k] <= 57:
        m = m * 10 + (a[k] - 48)
        k += 1
    ok = 0 < k - i <= 15 and (k == end or _blank(a[k]) or a[k] == 124)
    return float(m), k, ok


@njit(inline="always")
def _general_value(a, start, end, long_ok, scratch, exact, used, slow, n_slow, line):
    """``(value, used, n_slow)`` of the number ``a[start:end]`` (checked against the
    grammar): ``_value``, else strtod where allowed, else the next of the ``exact``
    values a previous call recorded, else its span is recorded in ``slow`` while there is
    room (never grown here: an array reassigned inside the token loop made the whole
    parse twice as slow) and counted."""
    v, ok = _value(a, start, end)
    if not ok and long_ok:
        v, ok = _long_value(a, start, end, scratch)
    if ok:
        return v, used, n_slow
    if used < exact.shape[0]:
        return exact[used], used + 1, n_slow
    if n_slow < slow.shape[0]:
        slow[n_slow, 0] = start
        slow[n_slow, 1] = end
        slow[n_slow, 2] = line
    return 1.0, used, n_slow + 1


@njit(inline="always")
def _made(c0, c1, c2, n0, n1, n2):
    """How many features an interaction makes from counts ``c0, c1, c2`` of its
    namespaces' features (as the loops below pair them: a namespace met again starts
    at the same feature), in floating point: ``c0 * c1 * c2`` overflows int64 on a
    line of 2^21 features."""
    if n2 < 0:
        return c0 * (c0 + 1.0) / 2.0 if n1 == n0 else c0 * c1
    if n1 == n0 and n2 == n1:
        return c0 * (c0 + 1.0) * (c0 + 2.0) / 6.0
    if n1 == n0:
        return c0 * (c0 + 1.0) / 2.0 * c2
    if n2 == n1:
        return c0 * c1 * (c1 + 1.0) / 2.0
    return c0 * c1 * c2


@njit(cache=True, nogil=True)
def parse_vw_block(a, n_bits, keep, inter, exact, long_ok, max_row, fast, n_spans,
                   nnz_room=0, row_room=64):
    """Parse the lines of byte array ``a``.

    ``keep``: bool[256], the namespaces (first byte of the name) kept; ``inter``:
    int64 (k, 3) namespace bytes of the interactions, -1 in the third column for
    pairs; ``exact``: the values of the numbers recorded by a previous call;
    ``long_ok``: whether strtod may convert the numbers the fast path refuses;
    ``max_row``: the most features a row may have, interactions included (counted in
    floating point before any is made, so no count overflows and no buffer is
    outgrown: a line past it is fault ``TOO_MANY``); ``n_spans``: room for the spans
    of the numbers left to ``float()`` (a call that finds more says how many, and the
    caller calls again with that room); ``nnz_room``: room for the block's features
    (0: one per blank, enough without interactions), ``row_room``: for one line's
    before its interactions (status 3 asks for more; no array is grown, or reassigned,
    inside the line loop: numba increfs and decrefs such an array, atomically, at every
    line, which took more time than the parse itself); ``fast``: whether the one-scan
    shortcuts are taken (a digit name hashed as it is read, a short number converted
    as it is read); False runs the general path only, the same numbers (the tests
    compare the two).

    Returns ``(status, fault_line, fault_pos, labels, weights, lines, counts,
    indices, values, n_slow, slow, canonical, need_nnz, need_row)``: status 0 done, 1 a
    fault (code in ``fault_line``'s place: see the caller), 3 more room needed (call
    again with ``nnz_room >= need_nnz`` and ``row_room >= need_row``), 2 ``n_slow``
    numbers need ``float()``
    (rows of ``slow``: start, end and line of each, when ``n_slow <= n_spans``); ``indices`` int32 columns (below
    ``2**n_bits <= 2**31``); ``canonical``: whether every row's columns are
    increasing and no value is 0 (a CSR built from them needs no sorting, summing or
    pruning; always False when not ``fast``).
    """
    m32 = np.uint64(0xFFFFFFFF)
    mask = np.uint64((1 << n_bits) - 1)
    scratch = np.empty(_TOKEN, dtype=np.uint8)
    n = a.shape[0]
    # room for every row (a newline each, and a last line without one) and, before
    # interactions, every feature (a blank or a line start before each): counted
    # first, so that the arrays rarely grow and are copied
    cap = 1
    cnz = 1
    for c in a:
        cap += c == 10
        cnz += _blank(c) or c == 10
    labels = np.empty(cap)
    weights = np.empty(cap)
    lines = np.empty(cap, dtype=np.int64)
    counts = np.empty(cap, dtype=np.int64)
    if nnz_room < cnz:
        nnz_room = cnz
    indices = np.empty(nnz_room, dtype=np.int32)
    values = np.empty(nnz_room)
    slow = np.empty((n_spans, 3), dtype=np.int64)
    n_slow = 0
    used = 0  # exact values consumed
    # one line's features: namespace byte, hash, value
    fns = np.empty(row_room, dtype=np.int64)
    fh = np.empty(row_room, dtype=np.uint64)
    fv = np.empty(row_room)
    need_nnz = 0
    need_row = 0
    direct = inter.shape[0] == 0  # (a product may be 0, a column repeat: scipy's work)
    canonical = fast and direct
    rows = 0
    nz = 0
    line = 0
    i = 0
    code = 0
    fault_pos = 0
    while i < n:
        end = i
        while end < n and a[end] != 10:
            end += 1
        j = i
        while j < end and _blank(a[j]):
            j += 1
        if j == end:  # blank line
            line += 1
            i = end + 1
            continue
        bar = j
        while bar < end and a[bar] != 124:
            bar += 1
        if bar == end:
            code = NO_BAR
            fault_pos = i
            break
        # room for every feature this line can hold (one byte and a separator each at
        # least), else the caller is asked for more (status 3): no array is grown here
        room = (end - i) // 2 + 4
        if direct and nz + room > indices.shape[0]:
            need_nnz = 2 * (nz + room)
            break
        if not direct and room > fns.shape[0]:
            need_row = room
            break
        # ---- header: label [importance [initial]] ['tag]
        label = np.nan
        weight = 1.0
        ntok = 0
        k = j
        while k < bar:
            while k < bar and _blank(a[k]):
                k += 1
            if k >= bar:
                break
            t_end = k
            while t_end < bar and not _blank(a[t_end]):
                t_end += 1
            if t_end == bar or a[k] == 39:  # a tag: the last token, ignored
                t_rest = t_end
                while t_rest < bar and _blank(a[t_rest]):
                    t_rest += 1
                if t_rest == bar:
                    break
            ntok += 1
            if ntok > 3:
                code = LABELS
                fault_pos = k
                break
            v, _, ok = _short_number(a, k, t_end)
            if not (fast and ok):
                if not _grammar_number(a, k, t_end):
                    code = LABEL if ntok == 1 else WEIGHT
                    fault_pos = k
                    break
                v, used, n_slow = _general_value(a, k, t_end, long_ok, scratch, exact, used,
                                                 slow, n_slow, line)
            if ntok == 1:
                label = v
            elif ntok == 2:
                if v < 0:
                    code = WEIGHT
                    fault_pos = k
                    break
                weight = v
            k = t_end
        if code != 0:
            break
        # ---- namespaces
        nf = 0
        last = np.int64(-1)
        p = bar
        while p < end and code == 0:
            # a[p] == '|'
            p += 1
            ns_scale = 1.0
            anon = np.uint64(0)
            if p >= end or _blank(a[p]) or a[p] == 124:
                ns = 32
                ch = np.uint64(0)
            elif a[p] == 58:
                code = NS_NAME
                fault_pos = p
                break
            else:
                ns = np.int64(a[p])
                q = p
                while q < end and not _stop(a[q]):
                    q += 1
                ch = _hashstring(a, p, q, 0)
                p = q
                if p < end and a[p] == 58:
                    t_end = _token_end(a, p + 1, end)
                    if not _grammar_number(a, p + 1, t_end):
                        code = NS_VALUE
                        fault_pos = p + 1
                        break
                    ns_scale, used, n_slow = _general_value(a, p + 1, t_end, long_ok, scratch,
                                                            exact, used, slow, n_slow, line)
                    p = t_end
            kept = keep[ns]
            # features up to the next '|'
            while p < end and a[p] != 124:
                if _blank(a[p]):
                    p += 1
                    continue
                # the name, and its value as a number (mod 2**32) while it is digits
                q = p
                num = np.uint64(0)
                digits = fast
                while q < end:
                    c = a[q]
                    if 48 <= c <= 57:
                        num = (num * np.uint64(10) + np.uint64(c - 48)) & m32
                    elif _stop(c):
                        break
                    else:
                        digits = False
                    q += 1
                name_s, name_e = p, q
                v = 1.0
                string_s = -1
                string_e = -1
                if q < end and a[q] == 58:
                    v, t_end, ok = _int_value(a, q + 1, end)
                    if not ok:
                        t_end = _token_end(a, q + 1, end)
                        v, _, ok = _short_number(a, q + 1, t_end)
                    if not (fast and ok):
                        if _grammar_number(a, q + 1, t_end):
                            v, used, n_slow = _general_value(a, q + 1, t_end, long_ok, scratch,
                                                             exact, used, slow, n_slow, line)
                        elif _special_value(a, q + 1, t_end) != 0:
                            # vw's parser reads inf and nan as numbers: nan drops the
                            # feature as vw does, infinity cannot be learned from
                            if _special_value(a, q + 1, t_end) == 1:
                                code = INFINITE
                                fault_pos = q + 1
                                break
                            v = 0.0
                        elif t_end > q + 1 and not _is_number_start(a[q + 1]):
                            string_s = q + 1  # a string value runs to the next blank,
                            t_end = q + 1     # '|' included, as in Vowpal Wabbit
                            while t_end < end and not _blank(a[t_end]):
                                t_end += 1
                            string_e = t_end
                        else:
                            code = VALUE
                            fault_pos = q + 1
                            break
                    p = t_end
                else:
                    p = q
                if string_s >= 0:  # weight 1, whatever the namespace's weight
                    h = _hashstring(a, string_s, string_e, _hashstring(a, name_s, name_e, ch))
                    v = 1.0
                elif name_e > name_s:
                    if digits:  # (as _hashstring gives it)
                        h = (num + ch) & m32
                    else:
                        h = _hashstring(a, name_s, name_e, ch)
                    v = v * ns_scale
                else:
                    h = ch + anon
                    anon += np.uint64(1)
                    v = v * ns_scale
                if not kept or v == 0.0:
                    continue
                if direct:  # no interactions: the column goes straight to the row
                    col = np.int64(h & mask)
                    canonical = canonical and col > last
                    last = col
                    indices[nz + nf] = col
                    values[nz + nf] = v
                else:
                    fns[nf] = ns
                    fh[nf] = h
                    fv[nf] = v
                nf += 1
        if code != 0:
            break
        # ---- the row: linear features, then interactions
        start_nz = nz
        size = float(nf)
        for t in range(inter.shape[0]):  # the row's size, interactions included
            c0 = 0
            c1 = 0
            c2 = 0
            for f in range(nf):
                c0 += fns[f] == inter[t, 0]
                c1 += fns[f] == inter[t, 1]
                c2 += fns[f] == inter[t, 2]
            size += _made(float(c0), float(c1), float(c2), inter[t, 0], inter[t, 1],
                          inter[t, 2])
        if size > max_row:
            code = TOO_MANY
            fault_pos = i
            break
        if direct:  # (written as they were read)
            nz += nf
        else:
            need = np.int64(size)
            if nz + need > indices.shape[0]:
                need_nnz = 2 * (nz + need)  # (twice: memory stays bounded)
                break
            for f in range(nf):
                indices[nz] = np.int64(fh[f] & mask)
                values[nz] = fv[f]
                nz += 1
        for t in range(inter.shape[0]):
            n0 = inter[t, 0]
            n1 = inter[t, 1]
            n2 = inter[t, 2]
            for f0 in range(nf):
                if fns[f0] != n0:
                    continue
                half = FNV * fh[f0]
                s1 = f0 if n1 == n0 else 0
                for f1 in range(s1, nf):
                    if fns[f1] != n1:
                        continue
                    if n2 < 0:
                        indices[nz] = np.int64((half ^ fh[f1]) & mask)
                        values[nz] = fv[f0] * fv[f1]
                        if not np.isfinite(values[nz]):
                            code = PRODUCT
                        nz += 1
                        continue
                    half2 = FNV * (half ^ fh[f1])
                    s2 = f1 if n2 == n1 else 0
                    for f2 in range(s2, nf):
                        if fns[f2] != n2:
                            continue
                        indices[nz] = np.int64((half2 ^ fh[f2]) & mask)
                        values[nz] = fv[f0] * fv[f1] * fv[f2]
                        if not np.isfinite(values[nz]):
                            code = PRODUCT
                        nz += 1
        if code != 0:
            fault_pos = i
            break
        labels[rows] = label
        weights[rows] = weight
        lines[rows] = line
        counts[rows] = nz - start_nz
        rows += 1
        line += 1
        i = end + 1
    status = 0
    if code != 0:
        status = 1
    elif need_nnz > 0 or need_row > 0:
        status = 3
    elif n_slow > 0:
        status = 2
    return (status, code, line, fault_pos, labels[:rows], weights[:rows], lines[:rows],
            counts[:rows], indices[:nz], values[:nz], n_slow, slow[:n_slow], canonical,
            need_nnz, need_row)
