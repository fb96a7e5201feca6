"""Compiled tokenising and hashing of labelled text lines (numba); see ``olearn.io.text``."""
import numpy as np

from .._compiled import njit
from ._fastparse import _reserve
from .hashing import murmur3, sklearn_slot


@njit(inline="always")
def _word_byte(c):
    """Letters, digits, '_' and every byte of a non-ASCII UTF-8 character."""
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95 or c >= 128


@njit(cache=True)
def hash_text_block(a, labelled, n_bits, ngram, signed, seed):
    """Tokenise and hash the lines of byte array ``a``.

    ``labelled``: each line is ``label<TAB>text`` (else the whole line is text).
    Returns ``(status, fault_line, label_starts, label_ends, lines, counts,
    indices, values)``; status 1: a labelled line without a tab (at
    ``fault_line``, 0-based in the block).  Blank lines give no row.
    """
    mask = np.int64((1 << n_bits) - 1)
    n = a.shape[0]
    cap = 16
    ls = np.empty(cap, dtype=np.int64)
    le = np.empty(cap, dtype=np.int64)
    lines = np.empty(cap, dtype=np.int64)
    counts = np.empty(cap, dtype=np.int64)
    indices = np.empty(64, dtype=np.int64)
    values = np.empty(64)
    ts = np.empty(64, dtype=np.int64)    # this line's tokens: start, end in ``low``
    te = np.empty(64, dtype=np.int64)
    low = np.empty(256, dtype=np.uint8)  # this line's tokens, lower-cased, one space apart
    rows = 0
    nz = 0
    line = 0
    i = 0
    while i < n:
        end = i
        while end < n and a[end] != 10:
            end += 1
        stop = end
        while stop > i and (a[stop - 1] == 13):
            stop -= 1
        j = i
        while j < stop and (a[j] == 32 or a[j] == 9 or a[j] == 13 or a[j] == 11 or a[j] == 12):
            j += 1
        if j == stop:  # blank line
            line += 1
            i = end + 1
            continue
        t = i
        if labelled:
            while t < stop and a[t] != 9:
                t += 1
            if t == stop:
                return (1, line, ls[:0], le[:0], lines[:0], counts[:0], indices[:0],
                        values[:0])
            label_s = i
            label_e = t
            t += 1
        else:
            label_s = i
            label_e = i
        # room for every token of the line (one byte and a separator each at
        # least) and its n-grams: no array grows inside the loops below
        room = (stop - t) // 2 + 2
        ts = _reserve(ts, 0, room)
        te = _reserve(te, 0, room)
        low = _reserve(low, 0, stop - t + room)
        indices = _reserve(indices, nz, nz + room * ngram)
        values = _reserve(values, nz, nz + room * ngram)
        # tokens
        nt = 0
        m = 0
        while t < stop:
            if not _word_byte(a[t]):
                t += 1
                continue
            u = t
            while u < stop and _word_byte(a[u]):
                u += 1
            ts[nt] = m
            for k in range(t, u):
                c = a[k]
                low[m] = c + 32 if 65 <= c <= 90 else c
                m += 1
            te[nt] = m
            low[m] = 32
            m += 1
            nt += 1
            t = u
        start_nz = nz
        for s in range(nt):
            for g in range(ngram):
                if s + g >= nt:
                    break
                h = murmur3(low, ts[s], te[s + g], seed)
                col, sign = sklearn_slot(h, mask)
                indices[nz] = col
                values[nz] = sign if signed else 1.0
                nz += 1
        if rows == ls.shape[0]:
            ls = _reserve(ls, rows, rows + 1)
            le = _reserve(le, rows, rows + 1)
            lines = _reserve(lines, rows, rows + 1)
            counts = _reserve(counts, rows, rows + 1)
        ls[rows] = label_s
        le[rows] = label_e
        lines[rows] = line
        counts[rows] = nz - start_nz
        rows += 1
        line += 1
        i = end + 1
    return (0, 0, ls[:rows], le[:rows], lines[:rows], counts[:rows], indices[:nz],
            values[:nz])
