"""The input pipeline around any reader of ``(X_chunk, y_chunk)`` pairs.

* ``prefetch(chunks, depth=2)``: the next chunks are read by a background thread while
  the caller learns from the current one (the compiled parsers and learners release
  the GIL, so on two cores reading and learning overlap), through a queue of at most
  ``depth`` chunks: memory stays bounded whatever the file's length.  An error of the
  reader reaches the caller at the chunk where it happened, after every earlier chunk.
* ``cached(chunks, path, key)`` passes the chunks (pairs, or ``(X, y, weights)``
  triples, given back as they came) through while writing them to a
  binary cache file, and ``read_cache(path, key)`` reads them back, several times
  faster than parsing text (repeated passes, as Vowpal Wabbit's ``--cache``).  The
  cache is written to a temporary name and renamed only once the whole input was
  read, so a half-written cache never exists under its name; ``key`` (the source's
  name, size and modification time and the reader's options) must match, or the
  cache is not used.
"""
import json
import os
import queue
import threading

import numpy as np
import scipy.sparse as sp

_MAGIC = b"OLEARN-CACHE-2\n"
_END = object()


class _Failure:
    def __init__(self, exc):
        self.exc = exc


def prefetch(chunks, depth=2):
    """Iterate over ``chunks`` with up to ``depth`` chunks read ahead in a thread."""
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth!r}")
    box = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                box.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        try:
            for chunk in chunks:
                if not put(chunk):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            put(_Failure(exc))
            return
        put(_END)

    worker = threading.Thread(target=produce, name="olearn-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item = box.get()
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        stop.set()
        worker.join()


def source_key(path, **options):
    """What a cache of ``path`` read with ``options`` depends on (a JSON-able dict)."""
    st = os.stat(path)
    return {"source": os.path.abspath(os.fspath(path)), "size": st.st_size,
            "mtime_ns": st.st_mtime_ns, "options": options}


def _write(f, arrays):
    for a in arrays:
        np.lib.format.write_array(f, np.ascontiguousarray(a), allow_pickle=False)


def _read(f, n):
    return [np.lib.format.read_array(f, allow_pickle=False) for _ in range(n)]


def cached(chunks, path, key):
    """Yield the chunks of ``chunks`` while writing them to the cache ``path``."""
    path = os.fspath(path)
    _remove_stale(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    complete = False
    try:
        with open(tmp, "wb") as f:
            head = json.dumps(key, sort_keys=True).encode()
            f.write(_MAGIC + len(head).to_bytes(8, "little") + head)
            for chunk in chunks:
                X, y = chunk[0], chunk[1]
                weights = tuple(chunk[2:3])     # (importance,) of weighted chunks
                if sp.issparse(X):
                    X = X.tocsr()
                    f.write(b"s" if weights else b"S")
                    _write(f, (np.array(X.shape, dtype=np.int64), X.indptr, X.indices,
                               X.data, y) + weights)
                else:
                    f.write(b"d" if weights else b"D")
                    _write(f, (np.asarray(X), y) + weights)
                yield (X, y) + weights
            f.write(b"E")
        os.replace(tmp, path)
        complete = True
    finally:
        if not complete and os.path.exists(tmp):
            os.remove(tmp)


def _remove_stale(path):
    """Remove ``path.PID.tmp`` files of killed runs (SIGKILL: no ``finally`` ran) whose
    process no longer runs."""
    folder, name = os.path.split(os.path.abspath(path))
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for other in names:
        pid = other[len(name) + 1:-len(".tmp")]
        if not (other.startswith(name + ".") and other.endswith(".tmp") and pid.isdigit()):
            continue
        try:
            os.kill(int(pid), 0)
            continue  # still running
        except ProcessLookupError:
            pass
        except (OSError, OverflowError):
            continue
        try:
            os.remove(os.path.join(folder, other))
        except OSError:
            pass


def cache_matches(path, key):
    """Whether ``path`` is a complete cache written for ``key``."""
    try:
        with open(path, "rb") as f:
            if f.read(len(_MAGIC)) != _MAGIC:
                return False
            n = int.from_bytes(f.read(8), "little")
            if n > 1 << 20 or json.loads(f.read(n)) != json.loads(json.dumps(key)):
                return False
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"E"
    except (OSError, ValueError):
        return False


def read_cache(path, key):
    """The chunks of a cache written by :func:`cached` for ``key``."""
    path = os.fspath(path)
    if not cache_matches(path, key):
        raise ValueError(f"{path}: not a complete olearn cache of this input")
    with open(path, "rb") as f:
        f.read(len(_MAGIC))
        f.read(int.from_bytes(f.read(8), "little"))
        while True:
            kind = f.read(1)
            if kind == b"E":
                return
            weighted = kind in (b"s", b"d")
            try:
                if kind in (b"S", b"s"):
                    chunk = _checked_sparse(*_read(f, 5 + weighted))
                elif kind in (b"D", b"d"):
                    chunk = _checked_dense(*_read(f, 2 + weighted))
                else:
                    chunk = None
            except Exception as exc:  # whatever a damaged array raises
                chunk = exc
            if not isinstance(chunk, tuple):
                why = f" ({chunk})" if isinstance(chunk, Exception) else ""
                raise ValueError(f"{path}: a damaged olearn cache{why}; delete it (it is "
                                 "rebuilt from the data)")
            yield chunk


def _rows_and_weights(n, y, w):
    """Labels (and weights) of a cached chunk of ``n`` rows: one per row (the
    weights float64)."""
    if y.shape != (n,) or any(a.dtype != np.float64 or a.shape != (n,) for a in w):
        raise ValueError("labels or weights of the wrong type or length")
    return (y, *w)


def _checked_sparse(shape, indptr, indices, data, y, *w):
    """A cached CSR chunk, every array checked before a compiled kernel may index it:
    integer shape, pointers from 0 non-decreasing to the number of values, column
    indices within the width, float64 values (the readers' output is finite)."""
    if shape.dtype != np.int64 or shape.shape != (2,) or (shape < 0).any():
        raise ValueError("bad shape")
    n, d = int(shape[0]), int(shape[1])
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu" \
            or data.dtype != np.float64 or indptr.shape != (n + 1,) or indices.ndim != 1 \
            or data.shape != indices.shape:
        raise ValueError("arrays of the wrong type or length")
    if indptr[0] != 0 or indptr[-1] != data.shape[0] or (np.diff(indptr) < 0).any():
        raise ValueError("row pointers out of order")
    if indices.size and (indices.min() < 0 or indices.max() >= d):
        raise ValueError(f"a column index outside the width {d}")
    if not np.isfinite(data).all():
        raise ValueError("NaN or infinite values")
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    return (X, *_rows_and_weights(n, y, w))


def _checked_dense(X, y, *w):
    """A cached dense chunk: a 2-D float64 matrix of finite values."""
    if X.dtype != np.float64 or X.ndim != 2 or not np.isfinite(X).all():
        raise ValueError("a dense chunk that is not a finite float64 matrix")
    return (X, *_rows_and_weights(X.shape[0], y, w))
