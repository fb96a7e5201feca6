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
            if kind in (b"S", b"s"):
                shape, indptr, indices, data, y, *w = _read(f, 5 + weighted)
                yield (sp.csr_matrix((data, indices, indptr), shape=tuple(shape)), y, *w)
            elif kind in (b"D", b"d"):
                yield tuple(_read(f, 2 + weighted))
            else:
                raise ValueError(f"{path}: a damaged olearn cache")
