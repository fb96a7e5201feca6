"""Compiled LIBSVM parsing: one pass over a block's bytes (numba).

The strict subset that real files use: ``label idx:value ...`` lines, numbers
written as ``[+-]digits[.digits][(e|E)[+-]digits]``, ``qid:`` tokens and ``#``
comments skipped.  A number is converted exactly as Python's ``float()`` does: when its decimal
significand has at most 15 digits and its exponent is at most 22 in size, by
Clinger's fast path (both the significand and the power of ten are exact doubles,
so one multiplication or division rounds correctly); with up to 18 significant digits
(the 17 that ``repr``, ``%.17g`` and scikit-learn's ``dump_svmlight_file`` write) and
a normal result, by Eisel-Lemire (below), exact in all but near-halfway cases, which
it refuses; what is left by the C library's ``strtod``, which is correctly rounded
like Python's own conversion, on a copy of the token already checked against the
grammar above.  ``strtod`` reads the
locale's decimal point, so it is used only while that is ``"."`` (Python's default)
and not on Windows.  Anything else (``inf``, a stray byte, a token over 63 bytes)
returns status 1 and the caller parses the block by the slower exact paths, which
also name any fault by file and line.
"""
import locale
import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .._compiled import njit

_POW10 = np.array([10.0 ** k for k in range(23)])
_DIGITS = 18  # significant digits kept exactly in an int64 (Eisel-Lemire takes them)
_TOKEN = 64  # bytes of the copy handed to strtod, its terminating NUL included


@intrinsic
def _libc_strtod(typingctx, buf):
    """``strtod(buf.data, NULL)``: ``buf`` a NUL-terminated uint8 array."""
    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.DoubleType(), [i8p, i8p.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "strtod")
        return builder.call(fn, [builder.bitcast(ary.data, i8p),
                                 ir.Constant(i8p.as_pointer(), None)])
    return types.float64(buf), codegen


@njit(inline="always")
def _no_strtod(buf):
    return np.nan  # not finite: the caller takes the slow path


_strtod = _no_strtod if sys.platform == "win32" else _libc_strtod


# ---------------------------------------------------------------- Eisel-Lemire
# Lemire, "Number parsing at a gigabyte per second", Software: Practice and
# Experience 51(8), 2021, sections 5 and 6 (the algorithm of Michael Eisel): w * 10^q,
# w < 2^64, correctly rounded from a 128-bit product of w and 5^q, or a refusal when
# the product cannot decide the rounding (then strtod decides).  The table holds
# 5^q for q in [-342, 308] normalised to 128 bits (most significant bit set):
# truncated, except for -27 <= q < 0, where 5^-q < 2^64 and the value is rounded up
# (the paper's section 5 needs the reciprocal from above where it is exact enough).
_Q_MIN, _Q_MAX = -342, 308


def _power_table():
    hi = np.empty(_Q_MAX - _Q_MIN + 1, dtype=np.uint64)
    lo = np.empty_like(hi)
    for q in range(_Q_MIN, _Q_MAX + 1):
        if q >= 0:
            v = 5 ** q
            z = v << (128 - v.bit_length()) if v.bit_length() <= 128 else \
                v >> (v.bit_length() - 128)
        else:
            v = 5 ** -q
            k = v.bit_length() + 127
            z = (1 << k) // v
            if z.bit_length() < 128:
                k += 1
                z = (1 << k) // v
            if q >= -27:
                z += 1
        hi[q - _Q_MIN] = z >> 64
        lo[q - _Q_MIN] = z & ((1 << 64) - 1)
    return hi, lo


_POW5_HI, _POW5_LO = _power_table()
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@intrinsic
def _mul128(typingctx, a, b):
    """``(low, high)`` 64-bit words of the 128-bit product of two uint64."""
    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        p = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        low = builder.trunc(p, ir.IntType(64))
        high = builder.trunc(builder.lshr(p, ir.Constant(i128, 64)), ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (low, high))
    return types.UniTuple(types.uint64, 2)(types.uint64, types.uint64), codegen


@intrinsic
def _clz(typingctx, a):
    """Leading zero bits of a non-zero uint64."""
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
    return types.uint64(types.uint64), codegen


@intrinsic
def _as_double(typingctx, a):
    """The float64 whose bits are the uint64 ``a``."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.uint64), codegen


@njit(inline="always")
def _eisel_lemire(w, q):
    """``(w * 10^q, True)`` correctly rounded for a uint64 ``w > 0`` and
    ``_Q_MIN <= q <= _Q_MAX``, or ``(0.0, False)`` when the product cannot decide
    (a near-halfway case), or the result is subnormal or overflows."""
    lz = _clz(w)
    w = w << lz
    row = q - _Q_MIN
    low, high = _mul128(w, _POW5_HI[row])
    if (high & np.uint64(0x1FF)) == np.uint64(0x1FF):  # 9 = 64 - (52 + 3) bits unsure
        low2, high2 = _mul128(w, _POW5_LO[row])
        low = low + high2
        if high2 > low:
            high += np.uint64(1)
    if low == _ONES and (q < -27 or q > 55):
        return 0.0, False
    upper = high >> np.uint64(63)
    shift = upper + np.uint64(9)
    mantissa = high >> shift
    power2 = ((q * (152170 + 65536)) >> 16) + 63 + int(upper) - int(lz) + 1023
    if power2 <= 0:
        return 0.0, False
    if low <= np.uint64(1) and -4 <= q <= 23 and (mantissa & np.uint64(3)) == np.uint64(1) \
            and (mantissa << shift) == high:
        mantissa = mantissa ^ np.uint64(1)  # exactly halfway: to even, downwards
    mantissa = (mantissa + (mantissa & np.uint64(1))) >> np.uint64(1)
    if mantissa >= np.uint64(1 << 53):
        mantissa = np.uint64(1 << 52)
        power2 += 1
    if power2 >= 0x7FF:
        return 0.0, False
    mantissa = mantissa & np.uint64((1 << 52) - 1)
    return _as_double(mantissa | (np.uint64(power2) << np.uint64(52))), True


def strtod_allowed():
    """Whether the C library may convert long numbers here (the locale's decimal
    point is ".")."""
    return sys.platform != "win32" and locale.localeconv()["decimal_point"] == "."


@njit
def _reserve(x, n, need):
    """``x`` (its first ``n`` entries kept) with room for ``need`` entries."""
    if need <= x.shape[0]:
        return x
    y = np.empty(max(need, 2 * x.shape[0]), dtype=x.dtype)
    y[:n] = x[:n]
    return y


@njit(inline="always")
def _space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(inline="always")
def _number(a, i, end, pow10, buf, long_ok):
    """Parse a number token starting at ``a[i]``; returns (value, next index, ok).
    ``buf``: scratch for a long number's copy; ``long_ok``: whether strtod may take it."""
    start = i
    neg = False
    if i < end and (a[i] == 45 or a[i] == 43):
        neg = a[i] == 45
        i += 1
    m = 0
    digits = 0
    scale = 0
    seen = False
    while i < end and 48 <= a[i] <= 57:
        if m > 0 or a[i] != 48:
            digits += 1
        if digits <= _DIGITS:
            m = m * 10 + (a[i] - 48)
        else:
            scale += 1  # (the exact value comes from strtod)
        i += 1
        seen = True
    if i < end and a[i] == 46:
        i += 1
        while i < end and 48 <= a[i] <= 57:
            if m > 0 or a[i] != 48:
                digits += 1
            if digits <= _DIGITS:
                m = m * 10 + (a[i] - 48)
                scale -= 1
            i += 1
            seen = True
    if not seen:
        return 0.0, i, False
    if i < end and (a[i] == 101 or a[i] == 69):
        i += 1
        eneg = False
        if i < end and (a[i] == 45 or a[i] == 43):
            eneg = a[i] == 45
            i += 1
        e = 0
        edigits = 0
        while i < end and 48 <= a[i] <= 57:
            e = e * 10 + (a[i] - 48)
            edigits += 1
            i += 1
            if edigits > 4:
                return 0.0, i, False
        if edigits == 0:
            return 0.0, i, False
        scale += -e if eneg else e
    if m == 0:
        return (-0.0 if neg else 0.0), i, True
    if digits > 15 or scale > 22 or scale < -22:
        if digits <= _DIGITS and _Q_MIN <= scale <= _Q_MAX:
            v, ok = _eisel_lemire(np.uint64(m), scale)
            if ok:
                return (-v if neg else v), i, True
        if not long_ok or i - start >= buf.shape[0]:
            return 0.0, i, False
        for k in range(i - start):
            buf[k] = a[start + k]
        buf[i - start] = 0
        v = _strtod(buf)
        return v, i, v - v == 0.0  # an overflow to infinity takes the slow path
    v = float(m)
    v = v * pow10[scale] if scale >= 0 else v / pow10[-scale]
    return (-v if neg else v), i, True


@njit(inline="always")
def _token_end(c):
    """Whether byte ``c`` ends a token: a space, a newline or a comment's ``#``."""
    return c == 32 or c == 9 or c == 10 or c == 35 or c == 13 or c == 11 or c == 12


@njit(inline="always")
def _short_number(a, i, end):
    """``(value, next index, ok)`` of a token ``[+-]digits[.digits]`` of at most 15
    digits ending at a space or at ``end``: Clinger's fast path, as ``_number`` takes it
    (one exact division), but short enough to stay in the token loop; not ok otherwise
    (then ``_number`` parses the token: exponents, long numbers, anything else).  Most
    values of real files are such tokens (a9a's are all ``1``): the parse runs 1.8x
    faster on a9a with it."""
    neg = i < end and a[i] == 45
    j = i + 1 if i < end and (a[i] == 45 or a[i] == 43) else i
    m = 0
    k = j
    while k < end and 48 <= a[k] <= 57:
        m = m * 10 + (a[k] - 48)
        k += 1
    digits = k - j
    frac = 0
    if k < end and a[k] == 46:
        k += 1
        while k < end and 48 <= a[k] <= 57:
            m = m * 10 + (a[k] - 48)
            k += 1
            frac += 1
        digits += frac
    if digits == 0 or digits > 15 or (k < end and not _space(a[k])):
        return 0.0, i, False
    v = float(m) / _POW10[frac] if frac else float(m)
    return (-v if neg else v), k, True


@njit(inline="always")
def _is_qid(a, j, end):
    """Whether a ``qid:`` token starts at ``a[j]``."""
    return a[j] == 113 and j + 3 < end and a[j + 1] == 105 and a[j + 2] == 100 \
        and a[j + 3] == 58


@njit(inline="always")
def _feature_index(a, j, end):
    """``(index, position after its colon, ok)`` of an ``index:`` token at ``a[j]``;
    not ok without digits, with over 18 digits or without the colon."""
    idx = 0
    k = 0
    while j < end and 48 <= a[j] <= 57:
        idx = idx * 10 + (a[j] - 48)
        j += 1
        k += 1
        if k > 18:
            return idx, j, False
    if k == 0 or j >= end or a[j] != 58:
        return idx, j, False
    return idx, j + 1, True


@njit(cache=True, nogil=True)
def parse_block(a, want_values, long_ok):
    """``(status, labels, line_of_row, counts, indices, values)`` of the lines in the
    byte array ``a``; status 1: not the simple grammar, parse another way.
    ``long_ok``: numbers past Clinger's fast path go to strtod (``strtod_allowed()``)."""
    pow10 = _POW10
    buf = np.empty(_TOKEN, dtype=np.uint8)
    n = a.shape[0]
    # room for every row (one per newline, and a last line without one) and every
    # feature (one per colon), counted first: the arrays are never grown and copied
    n_lines = 1
    n_colons = 0
    for c in a:
        n_lines += c == 10
        n_colons += c == 58
    labels = np.empty(n_lines)
    lines = np.empty(n_lines, dtype=np.int64)
    counts = np.empty(n_lines, dtype=np.int64)
    indices = np.empty(n_colons, dtype=np.int64)
    values = np.empty(n_colons if want_values else 0)
    rows = 0
    nz = 0
    line = 0
    i = 0
    fail = (1, labels[:0], lines[:0], counts[:0], indices[:0], values[:0])
    while i < n:
        end = i  # this line is a[i:end]; a comment (from '#') ends its content at stop
        stop = -1
        while end < n:
            c = a[end]
            if c == 10:
                break
            if c == 35 and stop < 0:
                stop = end
            end += 1
        if stop < 0:
            stop = end
        j = i
        while j < stop and _space(a[j]):
            j += 1
        if j < stop:  # not blank: a row
            if a[j] == 113:  # "qid:..." where the label belongs
                return fail
            label, j, ok = _number(a, j, stop, pow10, buf, long_ok)
            if not ok or (j < stop and not _space(a[j])):
                return fail
            labels[rows] = label
            lines[rows] = line
            count = 0
            while True:
                while j < stop and _space(a[j]):
                    j += 1
                if j >= stop:
                    break
                if _is_qid(a, j, stop):  # qid:... token: skipped
                    while j < stop and not _space(a[j]):
                        j += 1
                    continue
                idx, j, ok = _feature_index(a, j, stop)
                if not ok:
                    return fail
                if want_values:
                    v, k, ok = _short_number(a, j, stop)
                    if ok:
                        j = k
                    else:
                        v, j, ok = _number(a, j, stop, pow10, buf, long_ok)
                        if not ok:
                            return fail
                else:
                    while j < stop and not _space(a[j]):
                        j += 1
                    v = 0.0
                if j < stop and not _space(a[j]):
                    return fail
                indices[nz] = idx
                if want_values:
                    values[nz] = v
                nz += 1
                count += 1
            counts[rows] = count
            rows += 1
        line += 1
        i = end + 1
    return (0, labels[:rows], lines[:rows], counts[:rows], indices[:nz],
            values[:nz] if want_values else values[:0])


@njit(cache=True, nogil=True)
def zero_token(a, at):
    """The first position ``i >= at`` (``at >= 1``) of a ``0`` after whitespace
    (``[ \\t\\r\\v\\f]0``) in the byte array ``a``, or -1: where an index 0 may be written.
    Tested 64 KB at a time by a loop the compiler vectorizes (7x the regular
    expression's search on a9a, whose many ``0`` bytes each stopped the search)."""
    n = a.shape[0]
    step = 1 << 16
    one = np.uint64(1)
    for lo in range(at, n, step):
        hi = min(lo + step, n)
        found = False
        for i in range(np.uint64(lo), np.uint64(hi)):  # (unsigned: no test for i < 0)
            c = a[i - one]
            found |= (a[i] == 48) & ((c == 32) | (c == 9) | (c == 13) | (c == 11)
                                     | (c == 12))
        if found:
            for i in range(lo, hi):
                c = a[i - 1]
                if a[i] == 48 and (c == 32 or c == 9 or c == 13 or c == 11 or c == 12):
                    return i
    return -1


@njit(cache=True, nogil=True)
def newlines(a, k):
    """``(count, end)``: the position ``end`` just past the ``k``-th newline (``k >= 1``)
    of the byte array ``a`` and ``count = k``, or ``end = -1`` and the ``count`` of its
    newlines when it has fewer: where a block of ``k`` lines ends (``_source``).
    Counted 64 KB at a time by a loop the compiler vectorizes; the piece that holds the
    ``k``-th is then searched, and nothing after it is read."""
    n = a.shape[0]
    step = 1 << 16
    count = 0
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        found = 0
        for i in range(np.uint64(lo), np.uint64(hi)):
            found += a[i] == 10
        if count + found >= k:
            for i in range(lo, hi):
                if a[i] == 10:
                    count += 1
                    if count == k:
                        return count, i + 1
        count += found
    return count, -1


@njit(inline="always")
def _next_label(a, j, n, pow10, buf, long_ok):
    """``(label, position after it, 0)`` of the next row at or after ``a[j]``, blank and
    comment lines skipped; ``(0.0, n, 1)`` at the end of the bytes; ``(0.0, j, 2)`` where
    the line is not the simple grammar (a ``qid:`` where the label belongs, a label that
    is not a plain number)."""
    while True:
        while j < n and _space(a[j]):
            j += 1
        if j >= n:
            return 0.0, n, 1
        if a[j] == 10 or a[j] == 35:  # a blank line, or a comment line
            while j < n and a[j] != 10:
                j += 1
            j += 1
            continue
        if a[j] == 113:  # "qid:..." where the label belongs
            return 0.0, j, 2
        label, j, ok = _number(a, j, n, pow10, buf, long_ok)
        if not ok or (j < n and not _token_end(a[j])):
            return 0.0, j, 2
        return label, j, 0


# what parse_csr says of a parsed block (bits of its ``flags``)
UNSORTED = 1   # a row whose indices are not strictly increasing (unsorted or repeated)
ZERO = 2       # an explicit zero value


@njit(cache=True, nogil=True)
def parse_csr(a, base, width, rows_hint, nnz_hint, index_proto, value_proto, long_ok):
    """``(status, labels, indptr, indices, values, highest, flags)``: the lines of the
    byte array ``a`` parsed in one pass straight into CSR arrays, the grammar and the
    numbers ``parse_block``'s.  ``indices`` hold each index less ``base`` (1 for a
    1-based file), as int32; ``indptr`` has ``index_proto``'s type, ``values``
    ``value_proto``'s; ``highest`` is the largest index as written (-1: none); ``flags``
    the bits ``UNSORTED`` and ``ZERO``, so that a caller canonicalises only the blocks
    that need it.  Status 1: not the simple grammar; 2: an index below ``base``, past
    ``width`` (when ``width >= 0``) or past int32: the caller parses the block the
    exact way, which names the line (no line numbers are counted here); 3: more than
    ``rows_hint`` rows or ``nnz_hint`` features (the room made for them: growing arrays
    in the loop slows it 1.7x), call again with more."""
    pow10 = _POW10
    buf = np.empty(_TOKEN, dtype=np.uint8)
    n = a.shape[0]
    max_rows = min(rows_hint, n // 2 + 2)  # a row takes 2 bytes ("1\n") or more
    labels = np.empty(max_rows)
    indptr = np.empty(max_rows + 1, dtype=index_proto.dtype)
    cap = min(nnz_hint, n // 4 + 2)  # a feature takes at least 4 bytes (" 1:1")
    indices = np.empty(cap, dtype=np.int32)
    values = np.empty(cap, dtype=value_proto.dtype)
    limit = 2**31 - 2  # the largest index allowed (int32 columns)
    if width >= 0:
        limit = min(limit, width - 1 + base)
    rows = 0
    nz = 0
    highest = -1
    flags = 0
    indptr[0] = 0
    fail = (1, labels[:0], indptr[:1], indices[:0], values[:0], -1, 0)
    j = 0
    while True:
        label, j, end = _next_label(a, j, n, pow10, buf, long_ok)
        if end == 1:
            break
        if end:
            return fail
        if rows == max_rows:
            return (3, labels[:0], indptr[:1], indices[:0], values[:0], -1, 0)
        labels[rows] = label
        prev = -1
        while True:  # the row's features, up to its newline (written out in full:
            # the same loop through _feature_index and _short_number runs 5x slower)
            while j < n:
                c = a[j]
                if c == 32 or c == 9 or c == 13 or c == 11 or c == 12:
                    j += 1
                else:
                    break
            if j >= n or c == 10:
                break
            if c == 35:  # a comment, to the end of the line
                while j < n and a[j] != 10:
                    j += 1
                break
            start = j  # the index: digits, then a colon
            idx = 0
            while j < n and 48 <= a[j] <= 57:
                idx = idx * 10 + (a[j] - 48)
                j += 1
            if j == start or j >= n or a[j] != 58 or j - start > 18:
                if _is_qid(a, start, n):  # qid:... token: skipped
                    j = start
                    while j < n and not _token_end(a[j]):
                        j += 1
                    continue
                return fail
            j += 1
            start = j  # the value: as _short_number, else _number
            neg = False
            if j < n and (a[j] == 45 or a[j] == 43):
                neg = a[j] == 45
                j += 1
            m = 0
            first = j
            while j < n and 48 <= a[j] <= 57:
                m = m * 10 + (a[j] - 48)
                j += 1
            digits = j - first
            frac = 0
            if j < n and a[j] == 46:
                j += 1
                first = j
                while j < n and 48 <= a[j] <= 57:
                    m = m * 10 + (a[j] - 48)
                    j += 1
                frac = j - first
                digits += frac
            if digits == 0 or digits > 15 or (j < n and not _token_end(a[j])):
                v, j, ok = _number(a, start, n, pow10, buf, long_ok)
                if not ok or (j < n and not _token_end(a[j])):
                    return fail
            else:
                v = float(m) / pow10[frac] if frac else float(m)
                if neg:
                    v = -v
            if idx < base or idx > limit:
                return (2, labels[:0], indptr[:1], indices[:0], values[:0], -1, 0)
            if nz == cap:  # past the hint: the caller calls again with more room
                return (3, labels[:0], indptr[:1], indices[:0], values[:0], -1, 0)
            indices[nz] = idx - base
            values[nz] = v
            if values[nz] == 0:  # (as stored: a float32 may round to 0)
                flags |= ZERO
            nz += 1
            if idx <= prev:
                flags |= UNSORTED
            prev = idx
            if idx > highest:
                highest = idx
        rows += 1
        indptr[rows] = nz
        j += 1
    return 0, labels[:rows], indptr[:rows + 1], indices[:nz], values[:nz], highest, flags


@njit(cache=True, nogil=True)
def index_range(a, long_ok):
    """``(status, rows, lowest, highest)`` of the feature indices in the byte array
    ``a`` (whole lines; ``lowest = -1`` when there is none): what the width prescan
    needs, in one pass over the bytes and with no array built.  The grammar and the
    status are ``parse_block``'s, so a block it would refuse is refused here too
    (status 1) and the caller scans it by ``parse_block``'s own fallbacks; values are
    skipped as tokens, and checked when the block is parsed for learning."""
    pow10 = _POW10
    buf = np.empty(_TOKEN, dtype=np.uint8)
    n = a.shape[0]
    rows = 0
    lowest = -1
    highest = -1
    j = 0
    while True:
        label, j, end = _next_label(a, j, n, pow10, buf, long_ok)
        if end == 1:
            break
        if end:
            return 1, 0, -1, -1
        rows += 1
        while True:  # the row's features, up to its newline
            while j < n and _space(a[j]):
                j += 1
            if j >= n or a[j] == 10:
                break
            if a[j] == 35:
                while j < n and a[j] != 10:
                    j += 1
                break
            if _is_qid(a, j, n):  # qid:... token: skipped
                while j < n and not _token_end(a[j]):
                    j += 1
                continue
            idx, j, ok = _feature_index(a, j, n)
            if not ok:
                return 1, 0, -1, -1
            while j < n and not _token_end(a[j]):
                j += 1
            if lowest < 0 or idx < lowest:
                lowest = idx
            if idx > highest:
                highest = idx
        j += 1
    return 0, rows, lowest, highest
