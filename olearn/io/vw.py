"""Streaming reader for the Vowpal Wabbit text format.

One example per line::

    label [importance [initial]] ['tag]|namespace[:weight] feature[:value] ... |namespace ...

* ``label``, ``importance`` (a non-negative sample weight, default 1) and
  ``initial`` (Vowpal Wabbit's base prediction: read, checked, not used) are
  numbers; a line with no label gives ``nan`` (a row to predict).  Labels are
  kept as written: -1/1 for binary, 1..k for multiclass, reals for regression.
* The tag is the last header token when it starts with ``'`` or touches the
  ``|``; it is ignored.
* ``|name`` opens a namespace (``|`` followed by a blank: the default one),
  ``:weight`` multiplies its values; several namespaces per line, and a
  namespace may repeat.  A namespace is known to ``quadratic``, ``cubic`` and
  ``ignore`` by the first byte of its name (the default namespace by a space).
* A feature is ``name``, ``name:value``, ``name:text`` (a string value: hashed
  with the name, value 1) or ``:value`` (unnamed).  Features of value 0 are
  dropped, repeated columns are summed.  As ``vw`` does, the values ``nan`` and
  ``inf``/``infinity`` (any case, ``inf`` signed or not) are numbers, not strings:
  a ``nan`` feature is dropped (``vw`` drops it), an infinite one is an error
  (``vw`` keeps it, and its weights become NaN).

Columns are Vowpal Wabbit's: feature names are hashed exactly as ``vw`` does
(MurmurHash3 x86 32-bit seeded by the namespace's hash, names made only of
digits taken as numbers; hash seed 0), interactions as ``vw -q``/``--cubic``
combine them, and a column is the hash modulo ``2**n_bits`` (``vw -b``); see
``olearn.io._vwparse`` for the numbers.  Vowpal Wabbit's constant feature is
not added (the learners have their own intercept).  Departures: values are
float64 (``vw`` uses float32); a value or label that is not a number, a line
with no ``|``, more than three label tokens or a negative importance are errors
(``vw`` warns and goes on); tabs are blanks everywhere.

``read_vw`` yields ``(X, y)`` chunks (X canonical CSR of width ``2**n_bits``, y
float64), or ``(X, y, w)`` with ``sample_weight=True`` (w the importance
weights); each chunk's importance weights are also ``reader.weights`` after it
is yielded.  Paths may be plain, ``.gz``, ``.bz2`` or ``.xz``; ``"-"`` reads
stdin.  Malformed input raises ``DataFormatError`` (``path:line: reason``).
"""
import numpy as np

from ._source import Source, check_chunk_size, ordered_map, show
from .errors import DataFormatError

__all__ = ["read_vw", "load_vw", "VWReader", "interaction_table"]

_MESSAGES = {
    1: "no '|': a Vowpal Wabbit line is \"label [importance] ['tag]|namespace "
       "feature[:value] ...\"",
    2: "more than three label tokens before '|' (label, importance, initial) at {tok}",
    3: "label {tok} is not a number",
    4: "importance or initial value {tok} is not a non-negative number",
    5: "a namespace needs a name before ':'",
    6: "namespace weight {tok} is not a number",
    7: "feature value {tok} is not a number (a string value starts with a letter)",
    8: "the interactions make more than {limit:,} features of this line (max_row_features"
       "; -q aa on n features makes about n^2/2, --cubic aaa n^3/6)",
    9: "an interaction of this line's feature values is not finite (their product "
       "overflows: scale the values)",
    10: "feature value {tok} is infinite (vw reads it as a number, infinity: learners "
        "need finite values)",
}

#: the most features one row may have, interactions included (``max_row_features``)
MAX_ROW_FEATURES = 1 << 22


def _namespace_bytes(spec, what, size):
    if isinstance(spec, (bytes, bytearray)):
        raw = bytes(spec)
    elif isinstance(spec, str):
        raw = spec.encode("utf-8")
    else:
        raise TypeError(f"{what} must be a string of namespace letters, got {spec!r}")
    if size is not None and len(raw) != size:
        raise ValueError(f"{what} {spec!r} must name exactly {size} namespaces "
                         "(their first letters, e.g. 'ab')")
    if b":" in raw:
        raise ValueError(f"{what} {spec!r}: the wildcard ':' is not supported")
    return tuple(raw)


def _as_list(items, what):
    if items is None:
        return []
    if isinstance(items, (str, bytes)):
        return [items]
    try:
        return list(items)
    except TypeError:
        raise TypeError(f"{what} must be a string or a list of strings, got {items!r}") \
            from None


def interaction_table(quadratic=(), cubic=()):
    """The interactions as Vowpal Wabbit runs them: an int64 (k, 3) table of
    namespace bytes (-1 in the third column for pairs).  As ``vw`` does: an
    interaction is a set of namespaces (``-q ba`` after ``-q ab`` is dropped,
    the first in sorted order kept), and one that repeats a namespace is sorted
    (``--cubic aba`` is ``aab``)."""
    items = [_namespace_bytes(q, "quadratic", 2) for q in _as_list(quadratic, "quadratic")]
    items += [_namespace_bytes(c, "cubic", 3) for c in _as_list(cubic, "cubic")]
    items.sort(key=lambda t: (len(t), t))
    seen, table = set(), []
    for t in items:
        key = tuple(sorted(t))
        if key in seen:
            continue
        seen.add(key)
        t = key if len(set(t)) < len(t) else t
        table.append(t + (-1,) * (3 - len(t)))
    return np.array(table, dtype=np.int64).reshape(-1, 3)


class VWReader:
    """Iterable of ``(X_chunk, y_chunk)`` over a Vowpal Wabbit text file; see ``read_vw``.

    ``n_features`` is ``2**n_bits``; ``weights`` the importance weights of the
    last chunk yielded.  A reader over a path can be iterated again; over a
    stream, once.
    """

    def __init__(self, path, n_bits=18, quadratic=(), cubic=(), ignore=(),
                 chunk_size=10000, sample_weight=False, max_row_features=MAX_ROW_FEATURES):
        from .hashing import check_n_bits
        self.n_bits = check_n_bits(n_bits, "n_bits (-b/--bits)")
        self.n_features = 1 << self.n_bits
        self.chunk_size = check_chunk_size(chunk_size)
        self.interactions = interaction_table(quadratic, cubic)
        self.keep = np.ones(256, dtype=bool)
        for spec in _as_list(ignore, "ignore"):
            self.keep[list(_namespace_bytes(spec, "ignore", None))] = False
        self.sample_weight = bool(sample_weight)
        if isinstance(max_row_features, bool) or not isinstance(
                max_row_features, (int, np.integer)) or max_row_features < 1:
            raise ValueError(f"max_row_features must be a positive integer, got "
                             f"{max_row_features!r}")
        self.max_row_features = int(max_row_features)
        self.weights = None
        self._nnz_per_byte = 0.0  # (0: the kernel's own room, one feature per blank)
        self._source = Source(path)
        self.name = self._source.name

    @property
    def source(self):
        """The file being read: its ``size`` in bytes (None for a stream) and the bytes
        ``done`` so far (what a progress line shows)."""
        return self._source

    def __iter__(self):
        self._source.claim()
        blocks = self._source.line_blocks(self.chunk_size, views=True)  # (a mapped file)
        for chunk in ordered_map(self._chunk, blocks):
            if chunk is None:
                continue
            X, labels, weights = chunk
            self.weights = weights
            yield (X, labels, weights) if self.sample_weight else (X, labels)

    def _chunk(self, numbered):
        """``(X, labels, weights)`` of one block of lines, or None when it has no rows
        (run in the reader's parsing threads)."""
        lineno, buf = numbered
        labels, weights, counts, indices, values, canonical = parse_lines(
            buf, lineno, self.name, self.n_bits, self.keep, self.interactions,
            self.max_row_features, nnz_room=int(self._nnz_per_byte * len(buf)))
        if len(buf):  # room for the next block's features (its interactions): no retry
            self._nnz_per_byte = 1.1 * len(indices) / len(buf)
        if len(labels) == 0:
            return None
        return to_csr(counts, indices, values, self.n_features, canonical), labels, weights


def to_csr(counts, indices, values, n_features, canonical):
    """The CSR matrix of rows of ``counts`` entries (int32 ``indices``, float64
    ``values``): summed, sorted and pruned by scipy unless ``canonical`` (the parser
    found every row's columns increasing and no value 0, so there is nothing to do: the
    common case of one namespace of numbered features)."""
    import scipy.sparse as sp
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    index_type = np.int32 if indptr[-1] < 2**31 else np.int64
    X = sp.csr_matrix((values, indices, indptr.astype(index_type, copy=False)),
                      shape=(len(counts), n_features))
    if canonical:
        X.has_canonical_format = True
    else:
        X.sum_duplicates()
        X.eliminate_zeros()
    return X


def parse_lines(buf, lineno, name, n_bits, keep, interactions,
                max_row_features=MAX_ROW_FEATURES, fast=True, nnz_room=0):
    """``(labels, weights, counts, indices, values, canonical)`` of a block of whole
    lines (bytes, or a memoryview of a mapped file; the first numbered ``lineno``), or
    DataFormatError naming the line; see ``parse_vw_block`` for ``fast`` and
    ``canonical``; ``nnz_room``: room for its features, a guess (the kernel asks for
    more when it needs it, and parses the block again)."""
    from ._vwparse import parse_vw_block, strtod_allowed
    a = np.frombuffer(buf, dtype=np.uint8)
    long_ok = strtod_allowed()
    exact = np.zeros(0)
    spans = 16
    row_room = 64
    tries = 0
    while tries < 3:
        out = parse_vw_block(a, n_bits, keep, interactions, exact, long_ok,
                             float(max_row_features), bool(fast), spans, nnz_room, row_room)
        status, code, line, pos = out[:4]
        if status == 3:  # more room (a line's features, or its interactions): again
            nnz_room = max(nnz_room, out[13])
            row_room = max(row_room, out[14])
            continue
        tries += 1
        if status != 0 and not isinstance(buf, bytes):
            buf = bytes(buf)  # (a view of a mapped file: the messages and float() take bytes)
        if status == 1:
            end = pos
            while end < len(buf) and buf[end] not in b" \t\r\n|":
                end += 1
            raise DataFormatError(name, lineno + line,
                                  _MESSAGES[code].format(tok=show(buf[pos:end]),
                                                         limit=max_row_features))
        if status == 0:
            return out[4], out[5], out[7], out[8], out[9], out[12]
        if out[10] > spans:  # more numbers for float() than room for their spans
            spans = out[10]
            continue
        slow = out[11]
        exact = np.empty(len(slow))
        for k, (s, e, at) in enumerate(slow.tolist()):
            token = buf[s:e]
            x = float(token)  # the grammar was checked: only overflow can go wrong
            if not np.isfinite(x):
                raise DataFormatError(name, lineno + at, f"number {show(token)} is not finite")
            exact[k] = x
    raise AssertionError("unreachable: the third pass has every number")


def read_vw(path, n_bits=18, quadratic=(), cubic=(), ignore=(), chunk_size=10000,
            sample_weight=False, max_row_features=MAX_ROW_FEATURES):
    """Stream a Vowpal Wabbit text file as ``(X_chunk, y_chunk)`` pairs.

    ``path``: a path (plain, ``.gz``, ``.bz2``, ``.xz``), ``"-"`` for stdin, or a
    binary file object.  ``n_bits``: columns are hashed into ``2**n_bits``
    (``vw -b``).  ``quadratic``: namespace pairs such as ``"ab"`` or ``["ab",
    "cc"]`` (``vw -q``); ``cubic``: triples (``vw --cubic``); ``ignore``:
    namespaces dropped (``vw --ignore``), each a string of first letters.
    ``sample_weight=True`` yields ``(X, y, importance)``.  ``max_row_features``: the
    most features a line may make, interactions included (default 2^22): a line past
    it, or whose interaction values overflow, is a DataFormatError naming the line,
    before anything is made (bounded work and memory per line).  See the module
    documentation for the format and the hashing.
    """
    return VWReader(path, n_bits, quadratic, cubic, ignore, chunk_size, sample_weight,
                    max_row_features)


def load_vw(path, n_bits=18, quadratic=(), cubic=(), ignore=(), sample_weight=False,
            max_row_features=MAX_ROW_FEATURES):
    """Read a whole Vowpal Wabbit text file into one ``(X, y)`` (``(X, y, w)`` with
    ``sample_weight=True``, w the importance weights): the chunks of ``read_vw`` stacked.

    The command line's read: a plain file is mapped, and blocks of its lines go in one
    compiled pass each (``_vwparse.parse_vw_block``), two at a time on two cores; the
    blocks' CSR arrays are then joined once.  The options are ``read_vw``'s."""
    reader = VWReader(path, n_bits, quadratic, cubic, ignore, _LOAD_LINES, True,
                      max_row_features)
    parts = list(reader)
    if parts:
        X = join_csr([p[0] for p in parts], reader.n_features)
        y = np.concatenate([p[1] for p in parts])
        w = np.concatenate([p[2] for p in parts])
    else:
        import scipy.sparse as sp
        X = sp.csr_matrix((0, reader.n_features))
        y, w = np.zeros(0), np.zeros(0)
    return (X, y, w) if sample_weight else (X, y)


#: lines per block of ``load_vw`` (two blocks parsed at a time)
_LOAD_LINES = 50000


def join_csr(mats, n_features):
    """The CSR matrices ``mats`` (canonical, ``n_features`` wide) stacked by rows: their
    arrays joined once (as ``scipy.sparse.vstack``), the result marked canonical."""
    import scipy.sparse as sp
    if len(mats) == 1:
        return mats[0]
    nnz = sum(m.nnz for m in mats)
    rows = sum(m.shape[0] for m in mats)
    index_type = np.int32 if nnz < 2**31 else np.int64
    indptr = np.empty(rows + 1, dtype=index_type)
    indptr[0] = 0
    r = k = 0
    for m in mats:
        n = m.shape[0]
        np.add(m.indptr[1:], k, out=indptr[r + 1:r + n + 1], casting="unsafe")
        r += n
        k += m.nnz
    X = sp.csr_matrix((np.concatenate([m.data for m in mats]),
                       np.concatenate([m.indices for m in mats]).astype(np.int32, copy=False),
                       indptr), shape=(rows, n_features))
    X.has_canonical_format = True
    return X
