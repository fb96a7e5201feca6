"""Where the readers get their lines from: a path, stdin, or a file object.

A path may name a plain, gzip, bzip2 or xz file; the compression is recognised
by its magic bytes, and a name ending in ``.gz``/``.bz2``/``.xz`` whose content
does not match is reported as a ``DataFormatError``.  A path can be read any
number of times (the readers use this for a prescan pass and for re-iteration).

``"-"`` (stdin) and file objects are read once, as they come: they are not
decompressed.  Their lines may be ``bytes`` or ``str`` (str is encoded as UTF-8).

For a path, ``size`` is its size on disk and ``done`` how many of those bytes the
current reading has consumed (of the compressed file, for a compressed one): the
command line's progress bar.  For streams both are None.
"""

import bz2
import contextlib
import gzip
import io
import lzma
import mmap
import os
import stat
import sys
import threading
import zlib
from itertools import chain, islice

import numpy as np

from .errors import DataFormatError

_MAGIC = [(b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz")]
_SUFFIX = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
_OPEN = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}
_DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)


class Source:
    """One input: ``name`` for messages, ``lines()`` to read it."""

    def __init__(self, source):
        self._stream = None
        self.compression = None
        self.size = self.done = None
        if isinstance(source, str) and source == "-":
            self._stream = sys.stdin.buffer
            self.name = "<stdin>"
        elif hasattr(source, "read"):
            self._stream = source
            name = getattr(source, "name", None)
            self.name = name if isinstance(name, str) else "<stream>"
        else:
            self.path = os.fspath(source)
            self.name = os.fsdecode(self.path)
            if _is_pipe(self.path):     # <(zcat f), a named pipe, /dev/stdin: read once
                self._stream, self.compression = _open_pipe(self.path)
                return
            self.compression = self._check_path()
            self.size, self.done = os.path.getsize(self.path), 0

    @property
    def rereadable(self):
        return self._stream is None

    def claim(self):
        """Start a reading: a second reading of a stream (stdin, a file object), which
        cannot be rewound, is a RuntimeError."""
        if self._stream is not None:
            if self.__dict__.get("_claimed"):
                raise RuntimeError(f"{self.name}: a stream can only be read once")
            self._claimed = True

    def _check_path(self):
        if os.path.isdir(self.path):
            raise DataFormatError(self.name, None, "is a directory, not a data file")
        with open(self.path, "rb") as f:  # FileNotFoundError names the path
            head = f.read(6)
        kind = next((k for magic, k in _MAGIC if head.startswith(magic)), None)
        suffix = os.path.splitext(self.name)[1].lower()
        expected = _SUFFIX.get(suffix)
        if expected is not None and kind != expected:
            raise DataFormatError(
                self.name, None,
                f"the name ends in {suffix} but the content is not {expected} data")
        return kind

    def lines(self):
        """Iterate over the lines (bytes, newline kept; a UTF-8 byte-order mark at the
        start of the file removed)."""
        if self._stream is not None:
            return _without_bom(_encoded(self._stream))
        return _without_bom(self._path_lines())

    def _raw(self):
        """The file opened for reading, and a ``read(n)`` of its (decompressed) bytes
        that keeps ``done`` up to date."""
        raw = open(self.path, "rb")
        f = raw if self.compression is None else _OPEN[self.compression](raw)

        def read(n):
            data = f.read(n)
            self.done = raw.tell()
            return data
        return raw, read

    def _path_lines(self, block=1 << 20):
        """Lines of the file (split at ``\\n`` only), read (and decompressed) a megabyte
        at a time (iterating a bz2/gzip/xz file object line by line is several times
        slower)."""
        count = 0
        rest = b""
        raw, read = self._raw()
        with raw:
            while True:
                try:
                    data = read(block)
                except _DECOMPRESS_ERRORS as exc:
                    raise _decompress_error(self.name, count + rest.count(b"\n"),
                                            exc) from None
                if not data:
                    break
                parts = (rest + data).split(b"\n")   # as iterating the file splits
                rest = parts.pop()
                count += len(parts)
                for part in parts:
                    yield part + b"\n"
        if rest:
            yield rest

    def line_blocks(self, size, first_lineno=1, views=False):
        """``(lineno, block)`` pairs: ``block`` the bytes of the next ``size`` lines (the
        last block maybe fewer), newlines kept, ``lineno`` the 1-based number of its
        first line; as ``chunks(self.lines(), size)`` joined, but read in large pieces
        rather than line by line (a UTF-8 byte-order mark at the start removed).

        ``views``: a block may be a ``memoryview`` rather than ``bytes`` (``bytes(block)``
        where bytes are needed): an uncompressed file is then mapped into memory and its
        blocks are views of the map, neither read nor copied (the LIBSVM reader's
        compiled parser takes them so).  As with any mapped file, lines appended while it
        is read are not seen, and a file truncated meanwhile stops the process (SIGBUS)."""
        if views and self._stream is None and self.compression is None:
            return self._mapped_blocks(size, first_lineno)
        if self._stream is not None:
            if isinstance(self._stream, (io.BufferedIOBase, io.RawIOBase)):
                # bytes in large pieces, as from a path (stdin: sys.stdin.buffer)
                return _line_blocks(self._stream.read, size, first_lineno, self.name)
            return ((k, b"".join(lines)) for k, lines in
                    chunks(self.lines(), size, first_lineno))
        return self._line_blocks(size, first_lineno)

    def _mapped_blocks(self, size, lineno):
        """``line_blocks`` of a mapped file: views of the map, cut at every ``size``-th
        newline.  The map is never closed here: it goes when the last view of it does
        (blocks may still be parsed in other threads when this generator ends)."""
        with open(self.path, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):    # a pipe (<(zcat f)), a device: read it
                yield from self._line_blocks(size, lineno)
                return
            if st.st_size == 0:
                return
            data = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
        a = np.frombuffer(data, dtype=np.uint8)
        from ._fastparse import newlines as count_lines   # (stops at the size-th)
        start = 3 if data[:3] == _BOM else 0
        n = len(data)
        while start < n:
            end = int(count_lines(a[start:], size)[1])
            end = n if end < 0 else start + end
            self.done = end
            yield lineno, data[start:end]
            lineno += size
            start = end

    def _line_blocks(self, size, lineno):
        raw, read = self._raw()
        with raw:
            yield from _line_blocks(read, size, lineno, self.name)


_BOM = b"\xef\xbb\xbf"


def is_stream(path):
    """Whether the DATA argument ``path`` is read once, as it comes: ``-`` (standard
    input), or a path that names no regular file (``<(zcat f)``, a named pipe)."""
    return path == "-" or _is_pipe(path)


def _is_pipe(path):
    """Whether ``path`` names something that can be read only once, as it comes (a
    pipe, a socket, a terminal): it is opened once and read as a stream, never sniffed
    first and opened again (that lost its first bytes, or failed with "Illegal seek")."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False      # (a missing path: the regular path's check names it)
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _open_pipe(path):
    """``(stream, compression)`` of a pipe opened once: its first bytes are peeked at
    (not consumed) to recognise gzip, bzip2 or xz data, which is decompressed as read."""
    raw = open(path, "rb")
    head = raw.peek(6)[:6]
    kind = next((k for magic, k in _MAGIC if head.startswith(magic)), None)
    return (raw if kind is None else _OPEN[kind](raw)), kind


def _decompress_error(name, good_lines, exc):
    """The error of compressed data that stops decompressing: the decompressor fails on
    a whole piece read at once, so the line is not known, only that ``good_lines`` lines
    came before the piece (a truncated .bz2 was reported at line 1)."""
    what = ("the file is truncated" if isinstance(exc, EOFError)
            else f"the data is corrupt ({exc})")
    where = f" (the lines before line {good_lines + 1:,} were read)" if good_lines else ""
    return DataFormatError(name, None, f"cannot decompress: {what}{where}")


def _line_blocks(read, size, lineno, name):
    """Cut what ``read(n)`` returns into blocks of ``size`` whole lines, reading about
    as much as the next block needs (judged by the lines so far), at most 4 MB a time.
    The pieces read are joined once per block (one copy; the piece cut is shared, not
    copied, between the two blocks it ends and starts), never grown one into the other."""
    count_lines = _newline_counter()
    parts = []  # pieces read and not yet in a block
    have = 0  # newlines in parts
    first = True
    total_bytes = total_lines = 0
    rest = None  # what is left of a piece after the block it ended
    while True:
        if rest is not None:
            data, rest = rest, None
        else:
            per_line = total_bytes / total_lines if total_lines else 256.0
            want = int(min(1 << 22, max(1 << 16, 1.1 * per_line * (size - have))))
            try:
                data = read(want)
            except _DECOMPRESS_ERRORS as exc:
                raise _decompress_error(name, lineno - 1 + have, exc) from None
            if not data:
                break
            if first:
                first = False
                if data.startswith(_BOM):
                    data = data[len(_BOM):]
        count, cut = count_lines(np.frombuffer(data, dtype=np.uint8), size - have)
        total_bytes += len(data) if cut < 0 else cut
        total_lines += count
        if cut < 0:
            parts.append(data)
            have += count
            continue
        data = memoryview(data)
        parts.append(data[:cut])
        yield lineno, b"".join(parts)
        lineno += size
        parts, have = [], 0
        if cut < len(data):
            rest = data[cut:]
    if parts:
        yield lineno, b"".join(parts)


def _newline_counter():
    """``count(a, k) -> (newlines in a, position past the k-th or -1)``: the compiled
    one (``_fastparse.newlines``, one vectorized pass) where numba is loaded already (a
    learner loads it), else numpy's (no compiler loaded only to read a file)."""
    if "numba" in sys.modules:
        from ._fastparse import newlines
        return newlines

    def count(a, k):
        found = np.flatnonzero(a == 10)
        return (k, int(found[k - 1]) + 1) if len(found) >= k else (len(found), -1)
    return count


_NONE = object()

#: the parse threads of this thread's readers (``parse_threads``)
_THREADS = threading.local()


@contextlib.contextmanager
def parse_threads(n):
    """Readers started in this thread parse with ``n`` threads inside the block (2
    otherwise): one for a worker of a cluster whose cores are its workers'."""
    before = getattr(_THREADS, "n", None)
    _THREADS.n = max(1, int(n))
    try:
        yield
    finally:
        _THREADS.n = before


def ordered_map(fn, items, workers=None):
    """``map(fn, items)`` with ``fn`` run in ``workers`` threads (default 2, or what
    :func:`parse_threads` set for this thread), the results in the
    order of ``items``, at most ``workers`` items taken ahead of the one given back
    (memory stays bounded).  For the compiled parsers, which release the GIL: on two
    cores two blocks are parsed at once.  An exception of ``fn`` is raised at its
    item, after every earlier result."""
    if workers is None:
        workers = getattr(_THREADS, "n", None) or 2
    items = iter(items)
    first = next(items, _NONE)
    second = next(items, _NONE) if workers > 1 else _NONE
    if second is _NONE:  # one block (a small file): no threads to start
        if first is not _NONE:
            yield fn(first)
        yield from map(fn, items)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(workers, thread_name_prefix="olearn-parse") as pool:
        pending = deque()
        try:
            for item in chain((first, second), items):
                pending.append(pool.submit(fn, item))
                if len(pending) >= workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def split_lines(block):
    """The lines of a block (newlines kept), as iterating over a file splits them."""
    parts = block.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _without_bom(lines):
    first = True
    for line in lines:
        if first:
            first = False
            if line.startswith(_BOM):
                line = line[len(_BOM):]
        yield line


def _encoded(stream):
    for line in stream:
        yield line.encode("utf-8") if isinstance(line, str) else line


def chunks(lines, size, first_lineno=1):
    """Group an iterator of lines into lists of at most ``size`` lines.

    Yields ``(lineno, block)`` where ``lineno`` is the 1-based number of
    ``block[0]`` in the input.
    """
    lineno = first_lineno
    while True:
        block = list(islice(lines, size))
        if not block:
            return
        yield lineno, block
        lineno += len(block)


def check_chunk_size(chunk_size):
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    return chunk_size


def show(token, limit=40):
    """A short, one-line, quoted rendering of a bytes token for messages."""
    text = token.decode("utf-8", "backslashreplace")
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)
