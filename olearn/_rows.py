"""Rows as the kernels take them: a batch canonicalised once per call, one example
written into a buffer reused between calls.

Every batch reaches a kernel as CSR, the triple ``(indptr, indices, data)``: float64
values, sorted indices, duplicates summed; int32 indices when they fit, else int64.  A
dense batch (a C-contiguous float64 2-D array) goes as CSR too, in chunks of rows
(:class:`DenseRows`, :func:`run_chunks`): each chunk's data is a view of its rows and
its indices one reused tile of every column, explicit zeros included, so the kernels
see each row as the dense layout would, and compile one specialisation for both.

With ``fit_intercept`` a constant feature of value 1 is column 0 of every row, so that
the intercept takes part in norms and updates exactly like any other weight; a batch
is not copied to add it: the kernel receives the constant beside the batch and puts it
in front of each row as it reads the row.

One example (``learn_one``, ``predict_one``) is a one-row CSR triple in a
:class:`OneRow` buffer.  A dict's features keep the dict's order (a batch's are
sorted): sums over a row then run in another order, so a model learned one dict at a
time equals the batch model to rounding, not bit for bit; array examples are sorted.
"""
import math
import struct

import numpy as np
import scipy.sparse as sp


def canonical_csr(X):
    """A CSR matrix with float64 data, sorted indices and no duplicates (copied if needed)."""
    X = sp.csr_matrix(X) if not (sp.issparse(X) and X.format == "csr") else X
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def kernel_rows(X, fit_intercept, constant=1.0):
    """The kernel's view of a validated batch, never a copy of it: a CSR triple
    ``(indptr, indices, data)``, and with ``fit_intercept`` the same followed by
    ``c = [constant]``, the constant feature that the compiled driver puts in front of
    each row as column 0 (``olearn._compiled.driver.get_row``); a dense batch as a
    :class:`DenseRows`, which :func:`run_chunks` hands to the kernels as such triples.
    Give it to a kernel through :func:`run_chunks` only."""
    c = (np.array([float(constant)]),) if fit_intercept else ()
    if not sp.issparse(X):
        return DenseRows(np.ascontiguousarray(X, dtype=np.float64), c)
    X = canonical_csr(X)
    wide = X.nnz >= 2**31 or X.shape[1] + 1 >= 2**31
    itype = np.int64 if wide else np.int32
    return (X.indptr.astype(itype, copy=False), X.indices.astype(itype, copy=False),
            X.data) + c


#: entries (rows x columns) of a dense chunk: its tile of column numbers is 1 MB (int32),
#: read as the rows are, and a chunk's call (about 10 us of Python and numba's dispatch)
#: is about 1% of its rows' work at 500 columns (4% with a quarter of it)
CHUNK_ENTRIES = 1 << 18
_TILES: dict = {}  # (width, rows) -> (indptr, indices), the last few widths used


def _tile(d, rows):
    """The reused CSR frame of ``rows`` dense rows of width ``d``: ``indptr`` =
    ``0, d, 2d, ...`` and ``indices`` = ``0..d-1`` repeated (int32)."""
    key = (d, rows)
    tile = _TILES.get(key)
    if tile is None:
        if len(_TILES) >= 8:  # (bounded: the oldest goes; threads may race here)
            try:
                del _TILES[next(iter(_TILES))]
            except (KeyError, RuntimeError, StopIteration):
                pass
        indptr = np.arange(0, rows * d + 1, d, dtype=np.int32)
        indices = np.tile(np.arange(d, dtype=np.int32), rows)
        tile = _TILES[key] = (indptr, indices)
    return tile


class DenseRows:
    """A dense batch as the kernels take it: C-contiguous float64 rows ``X`` and the
    constant's ``c`` (``(array([constant]),)`` with an intercept, else ``()``), handed
    over in chunks of rows (:meth:`chunks`)."""
    __slots__ = ("X", "c")

    def __init__(self, X, c):
        self.X = X
        self.c = c

    @property
    def shape(self):
        return self.X.shape

    def chunks(self):
        """``(lo, hi, part)`` for consecutive row ranges: ``part`` the CSR triple (and
        ``c``) of rows ``lo:hi``, every column kept (explicit zeros too), its data a view
        of the rows (no copy), its indices and pointers one cached tile."""
        X, c = self.X, self.c
        n, d = X.shape
        if d >= 2**31 - 1:
            raise ValueError(f"a dense batch of {d} columns is too wide for the kernels")
        step = max(1, CHUNK_ENTRIES // max(d, 1))
        full = _tile(d, min(step, n)) if n else None
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            m = hi - lo
            indptr, indices = full if m == full[0].shape[0] - 1 else _tile(d, m)
            yield lo, hi, (indptr, indices, X[lo:hi].reshape(-1)) + c


def row_chunks(rows):
    """``(lo, hi, part)`` for the kernel's view ``rows`` of a batch (``kernel_rows``):
    one ``(0, n, rows)`` for a CSR triple, a dense batch's chunks for a
    :class:`DenseRows`."""
    if isinstance(rows, DenseRows):
        return rows.chunks()
    return iter(((0, rows[0].shape[0] - 1, rows),))


def run_chunks(rows, call, scores=None):
    """The one way a batch reaches a kernel: ``call(part, lo, hi)`` on each chunk of
    ``rows`` (:func:`row_chunks`), in order, as ``partial_fit`` on the chunks would
    (no declared learner has an end-of-pass step).

    With ``scores`` (the pass's (n, K) pre-update scores, which a pass stops writing at
    a row whose score is not finite), ``call`` returns the chunk's number of updates:
    their sum is returned, and no chunk runs after one whose pass ended early (its last
    row's scores, set to NaN before the call, then not finite); the caller's check of
    ``scores`` names the row.  Without, ``call`` returns the rows it did of its chunk,
    and the rows done in all is returned, none after a chunk left short."""
    total = 0
    for lo, hi, part in row_chunks(rows):
        if scores is None:
            done = int(call(part, lo, hi))
            total += done
            if done < hi - lo:
                break
            continue
        last = scores[max(hi - 1, 0):hi]
        last[...] = np.nan
        total += int(call(part, lo, hi))
        if not np.isfinite(last).all():
            break
    return total


def score_rows(scorer, rows, state, scores):
    """A declared scorer ``(X, state, scores)`` (``Kernels.scorer``) over every row of
    the kernel's view ``rows`` of a batch, into ``scores`` (n, K)."""
    run_chunks(rows, lambda part, lo, hi: scorer(part, state, scores[lo:hi]) or hi - lo)


_PUT_DENSE = None  # the compiled writer of a dense example (loaded at first use)


class OneRow:
    """One example as the kernel's CSR triple ``row = (indptr, indices, data)``, in
    buffers reused between calls (grown when a row does not fit; ``row`` is then new).

    ``shift`` is 1 with an intercept (column 0 holds the constant ``constant``, the
    learner's ``intercept_scaling``; features start at column 1), else 0.  ``index`` is
    the vocabulary's name -> column dict of a model learning from dicts, else None;
    ``shifted`` maps the names to their kernel columns (``index`` itself without an
    intercept; else a copy with 1 added, extended as the vocabulary grows: names are
    only appended to a vocabulary, or removed within the call that added them).
    ``last``/``copy``: the dict whose row the buffer holds when it was written by a
    prediction, and a copy of it, so that ``learn_one(x)`` right after ``predict_one(x)``
    reuses the row when ``x`` is unchanged.

    A row is written by two ``struct`` calls (per row length, a packer of the columns
    and one of the values, each with the intercept's column 0 or constant in front):
    the dict's columns and values go from the dict into the buffers without an
    intermediate list.  (The three arrays stay separate arrays: numba takes a view of
    a shared buffer about 0.2 us slower per argument than an array of its own.)
    """
    __slots__ = ("shift", "constant", "index", "shifted", "row", "capacity", "indptr",
                 "indices", "data", "n", "last", "copy", "packers", "plain")

    def __init__(self, shift, index=None, capacity=64, constant=1.0):
        self.shift = shift
        self.constant = float(constant)
        self.index = index
        self.shifted = None if index is None else ({} if shift else index)
        self.last = self.copy = None
        #: whether the row was written by ``put_dense``, which writes no extreme value
        self.plain = False
        self.packers = {}  # row length -> the struct writers of its columns and values
        self.n = shift
        self._allocate(capacity)

    def _allocate(self, capacity):
        self.capacity = capacity
        self.indptr = np.zeros(2, np.int32)
        self.indices = np.zeros(capacity, np.int32)
        self.data = np.zeros(capacity)
        self.indptr[1] = self.n
        self.row = (self.indptr, self.indices, self.data)

    def _packers(self, m):
        """The writers of a row of ``m`` features: its columns after the intercept's
        column 0, its values after the intercept's constant."""
        b = self.shift
        packers = self.packers[m] = (struct.Struct(f"{b + m}i").pack_into,
                                     struct.Struct(f"{b + m}d").pack_into)
        return packers

    def put_known(self, x, remember):
        """Write dict ``x`` whose names are all known and values finite numbers; returns
        the row length, or -1 for anything else (the buffers may then hold part of
        ``x``): the caller then takes the general path, which grows the vocabulary or
        names the bad value, and rewrites the row."""
        shifted = self.shifted
        if shifted is None:
            return -1
        m = len(x)
        n = m + self.shift
        if n > self.capacity:
            return -1
        cols, vals = self.packers.get(m) or self._packers(m)
        self.last = None  # (the buffers may change below, whatever the outcome)
        self.plain = False
        try:
            if self.shift:
                cols(self.indices, 0, 0, *map(shifted.__getitem__, x))
                vals(self.data, 0, self.constant, *x.values())
            else:
                cols(self.indices, 0, *map(shifted.__getitem__, x))
                vals(self.data, 0, *x.values())
        except KeyError:
            return self.put_known(x, remember) if self._known(x) else -1
        except (TypeError, struct.error):
            return -1
        try:  # (after the names: a row with a new name fails fast, before this sum)
            if not math.isfinite(sum(x.values())):
                return -1
        except (TypeError, OverflowError):
            return -1
        if n != self.n:
            self.indptr[1] = self.n = n
        if remember:
            self.last, self.copy = x, x.copy()
        return n

    def _known(self, x):
        """Whether every name of ``x`` is in the vocabulary; if so, those missing from
        ``shifted`` join it (names seen again after the vocabulary grew).  A row with a
        name new to the vocabulary adds nothing here: on a stream of ever new names the
        general path alone pays for them."""
        index, shifted = self.index, self.shifted
        try:
            if shifted is index or not all(map(index.__contains__, x)):
                return False
        except TypeError:
            return False
        for name in x:
            if name not in shifted:
                shifted[name] = index[name] + 1
        return True

    def _pack(self, cols, vals):
        """Write lists of columns (already shifted) and values after the intercept
        column; returns the row length."""
        b = self.shift
        m = len(cols)
        n = m + b
        if n > self.capacity:
            self._allocate(max(64, 2 * n))
        pack_cols, pack_vals = self.packers.get(m) or self._packers(m)
        if b:
            pack_cols(self.indices, 0, 0, *cols)
            pack_vals(self.data, 0, self.constant, *vals)
        else:
            pack_cols(self.indices, 0, *cols)
            pack_vals(self.data, 0, *vals)
        if n != self.n:
            self.indptr[1] = self.n = n
        return n

    def put_dense(self, x):
        """Write a dense example (a float64 1-D C-contiguous array of the model's width)
        by one compiled call (``olearn._compiled.onerow``); returns its length, or -1
        when it holds a NaN, an infinity or an extreme value (the general path)."""
        need = x.shape[0] + self.shift
        if need > self.capacity:
            self._allocate(max(64, 2 * need))
        global _PUT_DENSE
        args = (x, self.indices, self.data, self.shift, self.constant)
        if _PUT_DENSE is None:
            from ._compiled import entry_point
            from ._compiled.onerow import put_dense
            put_dense(*args)  # (compiles, or loads the cached kernel)
            _PUT_DENSE = entry_point(put_dense, args)
        n = _PUT_DENSE(*args)
        self.last = None
        self.plain = n >= 0
        if n >= 0 and n != self.n:
            self.indptr[1] = self.n = n
        return n

    def put(self, cols, vals):
        """Write a row given as lists of (unshifted) columns and values; returns its length."""
        if self.shift:
            cols = [c + 1 for c in cols]
        n = self._pack(cols, vals)
        self.last = None
        self.plain = False
        return n
