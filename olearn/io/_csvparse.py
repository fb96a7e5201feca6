"""Compiled parsing of delimited numeric text (CSV, TSV, whitespace-separated): one
pass over a block's bytes (numba), numbers converted exactly as ``float()`` does
(``olearn.io._fastparse._number``: Clinger, Eisel-Lemire, strtod).

The strict subset that data files use: every line blank or ``n_fields`` fields
separated by one delimiter byte (or, with ``delim = -1``, by runs of whitespace),
each field a number with optional spaces around it, the label field anything
without a quote.  Anything else (a quote, an empty or non-numeric field, a wrong
number of fields, a number past the exact paths) returns status 1, and the caller
parses the block by its line-by-line path, which accepts it or names the fault by
file and line.
"""
import numpy as np

from .._compiled import njit
from ._fastparse import _POW10, _TOKEN, _number, _space

_FAIL = 1


@njit(inline="always")
def _blank(c, delim):
    """A space inside a field (the delimiter itself is never one)."""
    return _space(c) and c != delim


@njit(cache=True, nogil=True)
def parse_csv_block(a, delim, n_fields, label, skip, long_ok):
    """``(status, X, y, y_ok, label_start, label_end, line_of_row)`` of the lines of
    the byte array ``a`` after its first ``skip`` lines: ``X`` (rows, n_fields - 1)
    the features, ``y`` the label field as a number where ``y_ok``, and its bytes'
    span (spaces around it included) for labels that are not numbers."""
    pow10 = _POW10
    buf = np.empty(_TOKEN, dtype=np.uint8)
    n = a.shape[0]
    n_lines = 1
    for c in a:
        n_lines += c == 10
    X = np.empty((n_lines, n_fields - 1))
    y = np.empty(n_lines)
    y_ok = np.zeros(n_lines, dtype=np.bool_)
    ls = np.empty(n_lines, dtype=np.int64)
    le = np.empty(n_lines, dtype=np.int64)
    line_of = np.empty(n_lines, dtype=np.int64)
    fail = (_FAIL, X[:0], y[:0], y_ok[:0], ls[:0], le[:0], line_of[:0])
    rows = 0
    line = 0
    i = 0
    while i < n:
        end = i
        while end < n and a[end] != 10:
            if a[end] == 34:  # a quote: the csv module's business
                return fail
            end += 1
        j = i
        while j < end and _space(a[j]):
            j += 1
        if line >= skip and j < end:  # not blank: a row of n_fields fields
            j = i
            field = 0
            col = 0
            while True:
                raw = j  # where the field starts as the line-by-line path splits it
                while j < end and _blank(a[j], delim):
                    j += 1
                if field >= n_fields:
                    return fail
                start = j
                if field == label:
                    while j < end and a[j] != delim and not (delim < 0 and _space(a[j])):
                        j += 1
                    stop = j
                    if stop == end:  # that path strips the line's end of \r first
                        while stop > start and a[stop - 1] == 13:
                            stop -= 1
                    ls[rows] = start if delim < 0 else raw
                    le[rows] = stop
                    v, k, ok = _number(a, start, j, pow10, buf, long_ok)
                    while k < j and _space(a[k]):
                        k += 1
                    y[rows] = v
                    y_ok[rows] = ok and k == j and k > start
                else:
                    v, j, ok = _number(a, j, end, pow10, buf, long_ok)
                    if not ok:
                        return fail
                    X[rows, col] = v
                    col += 1
                after = j
                while j < end and _blank(a[j], delim):
                    j += 1
                field += 1
                if j >= end:
                    break
                if delim >= 0:
                    if a[j] != delim:
                        return fail
                    j += 1
                elif j == after:  # whitespace-separated: no space after this field
                    return fail
            if field != n_fields:
                return fail
            line_of[rows] = line
            rows += 1
        line += 1
        i = end + 1
    return (0, X[:rows], y[:rows], y_ok[:rows], ls[:rows], le[:rows], line_of[:rows])
