"""Streaming reader for the LIBSVM / svmlight sparse text format.

The format has one example per line::

    <label> [qid:<n>] <index>:<value> <index>:<value> ...  [# comment]

* the label is any number (``+1``, ``1``, ``-1.0``, ``2``, ``1e0``);
* ``index`` is a non-negative decimal integer, 1-based unless told otherwise;
  indices may come in any order, and repeated indices are summed;
* ``value`` is a finite number; a row may have no features at all;
* ``qid:<n>`` tokens (ranking groups) are ignored, text after ``#`` is a
  comment, and blank lines are skipped.

Reading is streamed: ``read_libsvm`` yields ``(X, y)`` chunks of at most
``chunk_size`` rows, X a canonical ``csr_matrix`` (sorted indices, duplicates
summed, explicit zeros removed) and y a float64 vector, holding one chunk at a
time.  Every chunk has the same width, ``n_features`` (but see streams below).

Width and index base.  With ``"auto"`` a file is 0-based if and only if an index
0 occurs somewhere in it, and 1-based otherwise.  When ``n_features`` is given
(or is ``"grow"``), a byte search settles that without parsing the file: an index
0 is a token that starts with ``0`` after whitespace, and each place where the
search finds one is confirmed by parsing its line (a 1-based file has none; a
0-based one has one at the first line that uses feature 0).  When ``n_features``
is not given, a path is read twice: a quick prescan finds the largest index
(and, with ``"auto"``, whether an index 0 occurs), then the real pass parses
the data; so does a compressed file with ``"auto"``.  The inferred width is the
largest index (1-based) or the largest index plus one (0-based).

Streams (``"-"`` for stdin, or a file object) are read once: ``read_libsvm``
treats ``"auto"`` as 1-based, reporting an index 0 as an error that suggests
``zero_based=True``, and without ``n_features`` it cannot know a width shared by
all chunks, so the width grows: each chunk is as wide as the widest index read so
far (``n_features`` holds that width), and ``olearn.evaluate.progressive`` (which
the command line uses) widens the model as it goes, keeping what it learned.
``n_features="grow"`` reads a file the same way, once, with no prescan, its index
base settled by the byte search above (the command line reads LIBSVM files so,
unless ``--n-features`` or a saved model gives the width).
``load_libsvm`` has no such restriction: it reads any input once, keeps the
parsed rows, and settles the width and the index base (by the same rules) at the
end.  It parses as the command line does (blocks of the mapped file by ``parse_csr``,
two at a time, joined once); see its documentation for what falls back to the older
loader.

Parsing.  Each chunk's bytes (a view of the mapped file where it is a plain file)
go in one compiled pass to the CSR arrays (``_fastparse.parse_csr``), canonicalised
only where that pass saw unsorted or repeated indices or zeros; when it meets
anything unusual, the chunk is parsed again by the slower paths (compiled with line
numbers, vectorized, then line by line), which either accept it or raise
``DataFormatError`` naming the file, the line and the fault.
"""

import math
import mmap
import os
import re
from typing import NamedTuple, Optional

import numpy as np
import scipy.sparse as sp

from ._source import Source, check_chunk_size, ordered_map, show, split_lines
from .errors import DataFormatError

__all__ = ["read_libsvm", "load_libsvm", "LibSVMReader"]

#: Largest index accepted as written in a file (keeps column indices in int32).
MAX_INDEX = 2**31 - 2

_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[list(b" \t\n\r\x0b\x0c")] = True  # what bytes.split() splits on
_PRESCAN_LINES = 1000
_COMMENT = re.compile(rb"#[^\n]*")
_QID = re.compile(rb"(?<=[ \t])qid:\S*")  # a qid token after the label
_EMPTY = [np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64),
          np.zeros(0, np.int64), np.zeros(0)]


class _Bad(Exception):
    """A fault on one line; the caller adds the path and line number."""


class _Block(NamedTuple):
    """A parsed block: one entry of ``labels`` and ``lines`` (line numbers)
    per row, ``counts`` features per row, then ``indices`` (as written in the
    file) and ``values`` (None when not asked for) of all rows in order."""

    labels: np.ndarray
    lines: np.ndarray
    counts: np.ndarray
    indices: np.ndarray
    values: Optional[np.ndarray]


# --------------------------------------------------------------------------
# Line-by-line parser: the reference for what is accepted, with precise errors.

def _number(token, what):
    try:
        x = float(token)
    except ValueError:
        raise _Bad(f"{what} {show(token)} is not a number") from None
    if not math.isfinite(x):
        raise _Bad(f"{what} {show(token)} is not finite")
    return x


def _index(token, one_based, n_features):
    if not token.isdigit():  # ASCII digits only, for bytes
        if token[:1] == b"-" and token[1:].isdigit():
            raise _Bad(f"feature index {show(token)} is negative")
        raise _Bad(f"feature index {show(token)} is not an integer")
    i = int(token)
    if i > MAX_INDEX:
        raise _Bad(f"feature index {i} is too large (the limit is {MAX_INDEX})")
    if one_based and i == 0:
        raise _Bad("feature index 0 in a file read as 1-based "
                   "(pass zero_based=True for 0-based indices)")
    if n_features is not None and one_based is not None and i - one_based >= n_features:
        raise _Bad(f"feature index {i} is out of range for n_features={n_features}")
    return i


def _parse_line(line, one_based, n_features, want_values):
    """Return ``(label, indices, values)`` of one line, or None if blank."""
    tokens = line.split(b"#", 1)[0].split()
    if not tokens:
        return None
    label = _number(tokens[0], "label")
    indices, values = [], []
    for token in tokens[1:]:
        if token.startswith(b"qid:"):
            continue
        head, colon, tail = token.partition(b":")
        if not colon:
            raise _Bad(f"feature {show(token)} is not of the form index:value")
        i = _index(head, one_based, n_features)
        indices.append(i)
        if want_values:
            values.append(_number(tail, f"value of feature {i}"))
    return label, indices, values


def _parse_lines(lines, lineno, name, one_based, n_features, want_values):
    labels, row_lines, counts, indices, values = [], [], [], [], []
    for k, line in enumerate(lines):
        try:
            row = _parse_line(line, one_based, n_features, want_values)
        except _Bad as exc:
            raise DataFormatError(name, lineno + k, exc) from None
        if row is not None:
            labels.append(row[0])
            row_lines.append(lineno + k)
            counts.append(len(row[1]))
            indices.extend(row[1])
            values.extend(row[2])
    return _Block(np.array(labels, dtype=np.float64), np.array(row_lines, dtype=np.int64),
                  np.array(counts, dtype=np.int64), np.array(indices, dtype=np.int64),
                  np.array(values, dtype=np.float64) if want_values else None)


# --------------------------------------------------------------------------
# Vectorized parser: a strict subset of the grammar above, much faster.

def _spans_mask(n, starts, ends):
    """Boolean mask of length n, True inside the disjoint spans [start, end)."""
    edge = np.zeros(n + 1, dtype=np.int8)
    edge[starts] = 1
    edge[ends] -= 1
    return np.cumsum(edge[:-1], dtype=np.int8).view(bool)


def _span_uints(a, starts, ends, max_digits=18):
    """Values of the spans [starts, ends) of byte array ``a`` if every span is
    1 to ``max_digits`` ASCII digits, else None.  One pass per digit position."""
    lengths = ends - starts
    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64)
    shortest, longest = int(lengths.min()), int(lengths.max())
    if shortest < 1 or longest > max_digits:
        return None
    values = np.zeros(len(starts), dtype=np.int64)
    for k in range(longest):
        if k < shortest:  # every span has a k-th digit
            digits = a[starts + k] - np.uint8(48)  # non-digits wrap to > 9
            if digits.max() > 9:
                return None
            values *= 10
            values += digits
        else:
            live = np.flatnonzero(lengths > k)
            digits = a[starts[live] + k] - np.uint8(48)
            if digits.max() > 9:
                return None
            values[live] = values[live] * 10 + digits
    return values


def _fast_parse(buf, lineno, want_values):
    """Parse a block of whole lines, or return None if it needs the slow path: the
    compiled parser first (``_fastparse``), then the vectorized one."""
    from ._fastparse import parse_block, strtod_allowed
    status, labels, lines, counts, indices, values = parse_block(
        np.frombuffer(buf, dtype=np.uint8), bool(want_values), strtod_allowed())
    if status == 0:
        return _Block(labels, lineno + lines, counts, indices,
                      values if want_values else None)
    if b"#" in buf:
        buf = _COMMENT.sub(b"", buf)
    if b"qid:" in buf:
        buf = _QID.sub(b"", buf)
    a = np.frombuffer(buf, dtype=np.uint8)
    in_token = np.empty(len(a) + 2, dtype=np.int8)
    in_token[0] = in_token[-1] = 0
    np.logical_not(_IS_SPACE[a], out=in_token[1:-1].view(bool))
    edge = np.diff(in_token)
    starts = np.flatnonzero(edge == 1)
    ends = np.flatnonzero(edge == -1)
    if len(starts) == 0:
        return _parse_lines([], lineno, "", None, None, want_values)
    line_of = np.searchsorted(np.flatnonzero(a == 10), starts)
    is_label = np.empty(len(starts), dtype=bool)
    is_label[0] = True
    np.not_equal(line_of[1:], line_of[:-1], out=is_label[1:])
    fs, fe = starts[~is_label], ends[~is_label]
    # Each feature token holds exactly one colon, not at either end; labels
    # hold none.  (Equal counts and the k-th colon inside the k-th feature.)
    colons = np.flatnonzero(a == 58)
    if len(colons) != len(fs) or not (np.all(fs < colons) and np.all(colons < fe - 1)):
        return None
    indices = _span_uints(a, fs, colons)
    if indices is None:
        return None
    values = _span_floats(a, colons + 1, fe) if want_values else None
    labels = _span_floats(a, starts[is_label], ends[is_label])
    if labels is None or (want_values and values is None):
        return None
    rows = np.cumsum(is_label)[~is_label] - 1
    counts = np.bincount(rows, minlength=len(labels))
    return _Block(labels, lineno + line_of[is_label], counts, indices, values)


def _span_floats(a, starts, ends):
    """Finite numbers written in the spans [starts, ends) of byte array ``a``,
    or None if one is not.  Plain integers (with an optional sign) are
    converted with array arithmetic, anything else by numpy's text parser."""
    if len(starts) == 0:
        return np.zeros(0)
    first = a[starts]
    sign = (first == 45) | (first == 43)  # '-' or '+'
    integers = _span_uints(a, starts + sign, ends, max_digits=15)  # exact as floats
    if integers is not None:
        values = integers.astype(np.float64)
        values[first == 45] *= -1
        return values
    blanked = np.where(_spans_mask(len(a), starts, ends), a, np.uint8(32))
    try:
        values = np.fromstring(blanked.tobytes(), sep=" ")
    except ValueError:
        return None
    if len(values) != len(starts) or not np.isfinite(values).all():
        return None
    return values


def _parse_block(lines, lineno, name, one_based, n_features, want_values=True):
    """Parse a block of lines (a list of lines, or their bytes joined; the first one
    numbered ``lineno``) into a _Block.

    Indices are returned as written.  The vectorized path leaves the checks
    against ``one_based`` and ``n_features`` to ``_check_indices``; the line by
    line path, taken on any irregularity, makes them in line order.  A None
    ``one_based`` (base not known yet) skips both checks.
    """
    buf = lines if isinstance(lines, bytes) else b"".join(lines)
    block = _fast_parse(buf, lineno, want_values)
    if block is None or (len(block.indices) and block.indices.max() > MAX_INDEX):
        if isinstance(lines, bytes):
            lines = split_lines(lines)
        block = _parse_lines(lines, lineno, name, one_based, n_features, want_values)
    return block


def _check_indices(name, block, one_based, n_features):
    """Raise DataFormatError at the first index that is 0 in a 1-based file,
    or out of range for ``n_features``."""
    idx = block.indices
    bad = np.zeros(len(idx), dtype=bool)
    if n_features is not None:
        bad |= idx >= n_features + bool(one_based)
    if one_based:
        bad |= idx == 0
    if bad.any():
        first = int(np.argmax(bad))
        row = int(np.searchsorted(np.cumsum(block.counts), first, side="right"))
        try:
            _index(b"%d" % int(idx[first]), one_based, n_features)
        except _Bad as exc:
            raise DataFormatError(name, int(block.lines[row]), exc) from None


# --------------------------------------------------------------------------
# Public API

def _check_args(chunk_size, n_features, zero_based, dtype):
    check_chunk_size(chunk_size)
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if n_features is not None and not (isinstance(n_features, str) and n_features == "grow"):
        if (isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer))
                or n_features < 0):
            raise ValueError(f"n_features must be a non-negative integer or 'grow', got "
                             f"{n_features!r}")
        n_features = int(n_features)
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a floating-point type, got {dtype}")
    return n_features, dtype


def _resolve(lowest, highest, n_features, zero_based):
    """Index base and width from the smallest and largest index seen."""
    if zero_based == "auto":
        zero_based = lowest == 0
    if n_features is None:
        n_features = highest + 1 if zero_based else max(highest, 0)
    return n_features, bool(zero_based)


def _to_csr(counts, columns, values, n_features, dtype):
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    index_type = np.int32 if indptr[-1] < 2**31 else np.int64
    X = sp.csr_matrix((values.astype(dtype, copy=False), columns.astype(np.int32),
                       indptr.astype(index_type)), shape=(len(counts), n_features))
    X.sum_duplicates()
    X.eliminate_zeros()
    return X


def _index_zero(source):
    """Whether the file ``source`` writes a feature index 0 somewhere (True or False), or
    None where a byte search cannot tell (a compressed file; a line it finds is not valid,
    which the prescan then reports as it always has).

    An index 0 is a token starting with ``0`` after whitespace (``0:1``, ``00:1``); so is
    ``012:1`` (index 12), and a ``0`` in a comment or a label after leading blanks: each
    such place found over the mapped file (``_fastparse.zero_token``, at memory speed)
    is settled by parsing its line.  A 1-based file has none, a 0-based one has one on
    the first line that uses feature 0: no parse of the whole file."""
    if source.compression is not None:
        return None
    with open(source.path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            a = np.frombuffer(data, dtype=np.uint8)
            try:
                return _zero_in(data, a)
            finally:
                del a  # (the map closes only once no array views it)


def _zero_in(data, a):
    from ._fastparse import zero_token
    at = 1
    while (found := zero_token(a, at)) >= 0:
        start = data.rfind(b"\n", 0, found) + 1
        end = data.find(b"\n", found)
        end = len(data) if end < 0 else end
        if start == 0 and data[:3] == b"\xef\xbb\xbf":
            start = 3                           # (the byte-order mark)
        try:
            row = _parse_line(data[start:end], None, None, False)
        except _Bad:
            return None
        if row is not None and 0 in row[1]:
            return True
        at = end + 1
    return False


class LibSVMReader:
    """Iterable of ``(X_chunk, y_chunk)`` over a LIBSVM file; see ``read_libsvm``.

    Attributes ``n_features`` and ``zero_based`` hold the resolved width and
    index base.  A reader over a path can be iterated again (each pass reads
    the file anew); a reader over a stream only once.
    """

    def __init__(self, path, chunk_size=10000, n_features=None,
                 zero_based="auto", dtype=np.float64):
        n_features, self.dtype = _check_args(chunk_size, n_features, zero_based, dtype)
        self.chunk_size = chunk_size
        self._source = Source(path)
        self.name = self._source.name
        self._growing = False
        self._nnz_per_byte = 0.25  # room for features per byte of a block (then measured)
        once = isinstance(n_features, str)  # "grow": read as a stream is, even a file
        if once:
            n_features = None
        self.prescanned = False
        if zero_based == "auto" and self._source.rereadable and (once or n_features is not None):
            zero_based = _index_zero(self._source)     # None: the search cannot tell
            if zero_based is None:
                zero_based = self._prescan(None, "auto")[1]
        if n_features is None or zero_based == "auto":
            if self._source.rereadable and not once:
                n_features, zero_based = self._prescan(n_features, zero_based)
            else:  # read once: "auto" is 1-based, and without a width it grows
                self._growing = n_features is None
                zero_based = False if zero_based == "auto" else zero_based
        self.n_features = n_features
        self.zero_based = bool(zero_based)

    @property
    def source(self):
        """The file being read: its ``size`` in bytes (None for a stream) and the bytes
        ``done`` so far (what a progress line shows)."""
        return self._source

    def _prescan(self, n_features, zero_based):
        """Find the smallest and largest index in one quick pass."""
        self.prescanned = True
        from ._fastparse import index_range, strtod_allowed
        long_ok = strtod_allowed()
        lowest, highest = None, -1
        size = max(self.chunk_size, _PRESCAN_LINES)  # tiny chunks: fewer calls

        def scan(numbered):
            lineno, lines = numbered
            status, _, lo, hi = index_range(np.frombuffer(lines, dtype=np.uint8), long_ok)
            if status or hi > MAX_INDEX:  # not the simple grammar: the exact parsers
                idx = _parse_block(lines, lineno, self.name, None, None,
                                   want_values=False).indices
                lo, hi = (int(idx.min()), int(idx.max())) if len(idx) else (-1, -1)
            return lo, hi
        for lo, hi in ordered_map(scan, self._source.line_blocks(size)):
            if hi >= 0:
                lowest = lo if lowest is None else min(lowest, lo)
                highest = max(highest, hi)
        return _resolve(lowest, highest, n_features, zero_based)

    def __iter__(self):
        self._source.claim()
        blocks = self._source.line_blocks(self.chunk_size, views=True)
        for chunk in ordered_map(self._chunk, blocks):
            if chunk is None:
                continue
            if self._growing:  # as wide as the widest index so far
                X, y = chunk
                self.n_features = max(self.n_features or 1, X.shape[1])
                if X.shape[1] < self.n_features:
                    X = sp.csr_matrix((X.data, X.indices, X.indptr),
                                      shape=(X.shape[0], self.n_features))
                    X.has_canonical_format = True  # (as _chunk made it)
                chunk = X, y
            yield chunk

    def _chunk(self, numbered):
        """``(X, y)`` of one block of lines, or None when it has no rows (run in the
        reader's parsing threads; a growing reader's block is as wide as its own
        widest index): the compiled one-pass parse (``_direct``) where it accepts the
        block, else the exact parsers, which also name the line of a fault."""
        lineno, lines = numbered
        one_based = not self.zero_based
        width = None if self._growing else self.n_features
        direct = _direct(self, lines, one_based, width)
        if direct is not None:
            return direct or None
        lines = bytes(lines)  # (a view of a mapped file: the exact parsers take bytes)
        block = _parse_block(lines, lineno, self.name, one_based, width)
        if len(block.labels) == 0:
            return None
        _check_indices(self.name, block, one_based, width)
        if width is None:
            width = int(block.indices.max()) + 1 - one_based if len(block.indices) else 1
        X = _to_csr(block.counts, block.indices - one_based, block.values, width,
                    self.dtype)
        return X, block.labels


def _direct(reader, lines, one_based, width):
    """``(X, y)`` of a block parsed by ``_fastparse.parse_csr`` in one pass, from its
    bytes to the CSR arrays (an empty tuple: no rows), or None where that parse refuses
    the block (then the exact parsers read it, and report any fault by its line).
    Equal to what ``_parse_block``, ``_check_indices`` and ``_to_csr`` make of it: the
    block is sorted and summed, or its zeros removed, only where the parse saw unsorted
    or repeated indices, or a zero value; else it is marked canonical as it is."""
    from ._fastparse import UNSORTED, ZERO, parse_csr, strtod_allowed
    a = np.frombuffer(lines, dtype=np.uint8)
    index_type = np.int32 if len(a) < 2**31 else np.int64
    hint = int(len(a) * reader._nnz_per_byte) + 64
    args = (int(one_based), -1 if width is None else width)
    protos = (np.empty(0, index_type), np.empty(0, reader.dtype), strtod_allowed())
    status, labels, indptr, indices, values, highest, flags = parse_csr(
        a, *args, reader.chunk_size, hint, *protos)
    if status == 3:  # more features than the last block's rate: room for the most
        status, labels, indptr, indices, values, highest, flags = parse_csr(
            a, *args, len(a) // 2 + 2, len(a) // 4 + 2, *protos)
    if status:
        return None
    if len(labels) == 0:
        return ()
    if len(a):
        reader._nnz_per_byte = 1.1 * len(indices) / len(a)   # the next block's room
    if indptr.dtype != np.int32 and len(indices) < 2**31:
        indptr = indptr.astype(np.int32)
    if width is None:
        width = highest + 1 - one_based if len(indices) else 1
    X = sp.csr_matrix((values, indices, indptr), shape=(len(labels), width))
    if flags & UNSORTED:
        X.sum_duplicates()
        X.eliminate_zeros()
    elif flags & ZERO:
        X.eliminate_zeros()
    X.has_canonical_format = True
    return X, labels


def read_libsvm(path, chunk_size=10000, n_features=None, zero_based="auto",
                dtype=np.float64):
    """Stream a LIBSVM/svmlight file as ``(X_chunk, y_chunk)`` pairs.

    ``path`` is a path (plain, ``.gz``, ``.bz2`` or ``.xz``), ``"-"`` for stdin,
    or a binary or text file object.  Returns a ``LibSVMReader``: iterate over
    it to get chunks of at most ``chunk_size`` rows, X a canonical
    ``scipy.sparse.csr_matrix`` of shape ``(rows, n_features)`` and ``dtype``,
    y a float64 array.  See the module documentation for ``n_features`` and
    ``zero_based`` inference (a prescan reads a file twice) and for streams.

    Raises ``DataFormatError`` (``"path:line: reason"``) on malformed input,
    ``FileNotFoundError`` for a missing file.
    """
    return LibSVMReader(path, chunk_size, n_features, zero_based, dtype)


def load_libsvm(path, n_features=None, zero_based="auto", dtype=np.float64):
    """Read a whole LIBSVM file into one ``(X, y)``, equal to the stacked chunks
    of ``read_libsvm``.

    Reads its input once, whatever the options, so streams work as files do.  A plain
    file is mapped and parsed as the command line parses it: blocks of its bytes go in
    one compiled pass straight to CSR arrays (``_fastparse.parse_csr``), two blocks at a
    time on two cores, and the blocks are joined.  A block that pass refuses (a number it
    cannot convert exactly, a stray byte, an index out of range) is parsed by the exact
    parsers; where they find a fault, the whole input is read again by the older loader
    (``_load_exact``) so that the error is the one it always gave (``path:line:
    reason``); a stream, which cannot be read again, reports the first fault in the order
    of its lines.  A stream read with ``zero_based="auto"`` and ``n_features`` given
    takes the older loader from the start (its width check waits for the index base,
    known only at the end, and then needs the lines again).
    """
    n_features, dtype = _check_args(1, n_features, zero_based, dtype)
    n_features = None if isinstance(n_features, str) else n_features
    source = Source(path)
    if not source.rereadable and zero_based == "auto" and n_features is not None:
        return _load_exact(source, n_features, zero_based, dtype)
    try:
        loaded = _load_direct(source, n_features, zero_based, dtype)
    except DataFormatError:
        if not source.rereadable:
            raise
        loaded = None
    if loaded is None:  # a fault: the older loader reads it again and reports it
        return _load_exact(Source(path), n_features, zero_based, dtype)
    return loaded


class _Refused(Exception):
    """A fault the one-pass loader leaves to the older one (for its exact message)."""


#: lines per block of ``load_libsvm``'s one-pass read (two blocks parsed at a time)
_LOAD_LINES = 50000


def _load_direct(source, n_features, zero_based, dtype):
    """``(X, y)`` by the one-pass parse of every block (``_load_block``), or None where
    a fault is found that the older loader must word (a rereadable source only)."""
    auto = zero_based == "auto"
    # "auto": indices are kept as written (base 0) and the base settled at the end;
    # the width check then allows either base (n_features + 1) and is finished below
    base = 0 if auto else int(not zero_based)
    width = -1 if n_features is None else n_features + (1 if auto else 0)
    protos = (np.empty(0, dtype), _strtod_ok())
    try:
        parts = list(ordered_map(
            lambda numbered: _load_block(source, numbered, base, width, auto, dtype,
                                         protos),
            source.line_blocks(_LOAD_LINES, views=True)))
    except _Refused:
        return None
    lowest = min((p[5] for p in parts if p[5] >= 0), default=None)
    highest = max((p[4] for p in parts), default=-1)
    n_features, resolved = _resolve(lowest, highest, n_features, zero_based)
    shift = 0
    if auto:
        if highest >= n_features + (not resolved):    # past the width, once 0-based
            assert source.rereadable, "a stream with a width takes _load_exact"
            return None
        shift = int(not resolved)
    rows = sum(len(p[0]) for p in parts)
    nnz = sum(len(p[2]) for p in parts)
    index_type = np.int32 if nnz < 2**31 else np.int64
    y = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0)
    indptr = np.empty(rows + 1, dtype=index_type)
    indptr[0] = 0
    indices = np.empty(nnz, dtype=np.int32)
    values = np.empty(nnz, dtype=dtype)
    r = k = 0
    for labels, ptr, idx, val, _, _ in parts:
        n = len(labels)
        np.add(ptr[1:], k, out=indptr[r + 1:r + n + 1], casting="unsafe")
        if shift:
            np.subtract(idx, shift, out=indices[k:k + len(idx)])
        else:
            indices[k:k + len(idx)] = idx
        values[k:k + len(val)] = val
        r += n
        k += len(idx)
    X = sp.csr_matrix((values, indices, indptr), shape=(rows, n_features))
    X.has_canonical_format = True  # (each block canonical, rows never span blocks)
    return X, y


def _strtod_ok():
    from ._fastparse import strtod_allowed
    return strtod_allowed()


def _load_block(source, numbered, base, width, auto, dtype, protos):
    """``(labels, indptr, indices, values, highest, lowest)`` of one block (run in the
    parsing threads): canonical CSR arrays of its rows, indices less ``base`` (as written
    where ``auto``), ``highest`` the largest index as written (-1: none), ``lowest`` the
    smallest where ``auto`` (-1: none or not asked).  By ``parse_csr`` where it accepts
    the block, else by the exact parsers (``_parse_block``, ``_check_indices``), whose
    fault raises: DataFormatError for a stream, ``_Refused`` for a rereadable source."""
    from ._fastparse import UNSORTED, ZERO, parse_csr
    lineno, lines = numbered
    a = np.frombuffer(lines, dtype=np.uint8)
    index_proto = np.empty(0, np.int32 if len(a) < 2**31 else np.int64)  # (as _direct)
    out = parse_csr(a, base, width, _LOAD_LINES, len(a) // 4 + 2, index_proto, *protos)
    status, labels, indptr, indices, values, highest, flags = out
    if status == 0:
        if flags & UNSORTED or flags & ZERO:
            X = sp.csr_matrix((values, indices, indptr),
                              shape=(len(labels), max(highest + 1, 1)))
            if flags & UNSORTED:
                X.sum_duplicates()
            X.eliminate_zeros()
            indptr, indices, values = X.indptr, X.indices, X.data
        lowest = int(indices.min()) + base if auto and len(indices) else -1
        # (copies: the arrays made for the most features a block can hold are freed)
        return labels, indptr, indices.copy(), values.copy(), int(highest), lowest
    lines = bytes(lines)
    one_based = None if auto else bool(base)
    n_features = None if width < 0 else width - (1 if auto else 0)
    try:
        block = _parse_block(lines, lineno, source.name, one_based,
                             None if auto else n_features)
        if auto:
            if n_features is not None and len(block.indices) and \
                    block.indices.max() > n_features:
                raise _Refused()  # past the width in either base: the older loader
        else:
            _check_indices(source.name, block, one_based, n_features)
    except DataFormatError:
        if source.rereadable:
            raise _Refused() from None
        raise
    idx = block.indices
    X = _to_csr(block.counts, idx - (0 if auto else base), block.values,
                max(int(idx.max()) + 1, 1) if len(idx) else 1, dtype)
    highest = int(idx.max()) if len(idx) else -1
    lowest = int(idx.min()) if auto and len(idx) else -1
    return block.labels, X.indptr, X.indices, X.data, highest, lowest


def _load_exact(source, n_features, zero_based, dtype):
    """The older ``load_libsvm``: every block by ``_parse_block`` (the compiled
    ``parse_block``, then the vectorized and line by line parsers), the indices checked
    once all is read, then one CSR matrix (``_to_csr``).  ``load_libsvm`` takes it where
    its one-pass read finds a fault (for the same message) and for a stream read with
    ``zero_based="auto"`` and ``n_features`` given; the tests compare the two."""
    # Known settings are checked while parsing; unknown ones once all is read.
    one_based = None if zero_based == "auto" else not zero_based
    blocks = list(ordered_map(
        lambda numbered: _parse_block(numbered[1], numbered[0], source.name, one_based,
                                      n_features),
        source.line_blocks(50000)))
    block = _Block(*(np.concatenate([b[k] for b in blocks]) if blocks else _EMPTY[k]
                     for k in range(5)))
    idx = block.indices
    lowest, highest = (int(idx.min()), int(idx.max())) if len(idx) else (None, -1)
    n_features, zero_based = _resolve(lowest, highest, n_features, zero_based)
    _check_indices(source.name, block, not zero_based, n_features)
    X = _to_csr(block.counts, idx - (not zero_based), block.values, n_features, dtype)
    return X, block.labels
