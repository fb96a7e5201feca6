"""The order in which ``train`` and ``evaluate`` learn a file's rows.

``--shuffle`` learns the rows in a random order drawn from ``--seed`` (default 0, so the
same command gives the same numbers).  Shuffling needs the whole file: it is read into
memory first (as the readers' chunks: CSR or dense arrays), and refused with one line
when the file, or the arrays read from it, pass :data:`MAX_BYTES` (shuffle such a file
beforehand, e.g. ``shuf`` for LIBSVM lines).  With ``--passes``, the first pass is
shuffled and the later ones read its cache in the same order.

Without ``--shuffle`` the rows go in file order, and the labels are watched: a file
whose labels come in long runs (sorted by label, as w8a and MNIST files often are) gets
one warning at the end, since a progressive error measured in that order says little
about the learner (a constant prediction is right for a whole run).  The test: ``R``
runs of one label over ``n`` rows, against ``E = 1 + (n - 1) (1 - sum_k p_k^2)``
expected in a random order with the same label frequencies ``p_k``; the warning when
``n >= 1000`` and ``R < E / 10``.  Streams whose labels merely persist for a while
(elec2: 0.30 E, weather: 0.74 E) stay quiet.  Labels with more than 1,000 distinct values (regression)
are not watched.
"""
import os
import sys

from ._common import CLIError

#: default --seed
DEFAULT_SEED = 0
#: --shuffle holds the file in memory: larger files, or larger arrays, are refused
MAX_BYTES = 4 << 30
#: the run test's thresholds (see the module docstring)
MIN_ROWS, RUN_RATIO, MAX_DISTINCT = 1000, 0.1, 1000


def add_args(parser):
    """``--shuffle`` and ``--seed`` (train, evaluate)."""
    g = parser.add_argument_group("row order")
    g.add_argument("--shuffle", action="store_true",
                   help="learn the rows in a random order drawn from --seed (the file is "
                        f"read into memory first; refused over {MAX_BYTES >> 30} GiB); "
                        "without it, rows go in file order and labels sorted into long runs "
                        "are warned about")
    g.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="N",
                   help=f"seed of --shuffle (default {DEFAULT_SEED}: the same command gives "
                        "the same numbers)")


def check(args):
    """``--shuffle`` is for a run on this machine: refused with ``--server`` or a run on
    Dask workers (which read their shards in order)."""
    if not getattr(args, "shuffle", False):
        return
    if getattr(args, "server", None):
        raise CLIError("--shuffle is for a run on this machine, not with --server")
    if getattr(args, "workers", None) is not None or getattr(args, "scheduler", None):
        raise CLIError("--shuffle is for a run on this machine, not with --workers or "
                       "--scheduler (the workers read their shards in order)")


def ordered(args, reader):
    """The reader to learn from: ``reader`` shuffled (``--shuffle``), else ``reader`` as
    it is, its labels watched for long runs (:func:`warn_runs` reports)."""
    if not getattr(args, "shuffle", False):
        return Watched(reader)
    path = getattr(args, "data", None)
    if path and path != "-" and os.path.isfile(path) and os.path.getsize(path) > MAX_BYTES:
        raise CLIError(_too_big(path, os.path.getsize(path)))
    return Shuffled(reader, args.seed, args.chunk_size)


def warn_runs(reader, out=None):
    """Print the one-line warning if ``reader`` (from :func:`ordered`) saw its labels in
    long runs; returns the line or None."""
    line = reader.warning() if isinstance(reader, Watched) else None
    if line:
        print(line, file=out or sys.stderr)
    return line


def _too_big(path, size):
    return (f"--shuffle reads the whole file into memory, and {path} holds {size / 2**30:.1f} "
            f"GiB (over {MAX_BYTES >> 30} GiB): shuffle it beforehand (e.g. 'shuf')")


class _Proxy:
    """A reader's attributes (its name, width and source, which the progress bar and the
    caches read) passed through."""

    def __init__(self, reader):
        self._reader = reader

    def __getattr__(self, name):
        return getattr(self.__dict__["_reader"], name)


class Watched(_Proxy):
    """The reader's chunks as they are, counting the runs of equal labels and the label
    frequencies as they pass."""

    def __init__(self, reader):
        super().__init__(reader)
        self.n = 0
        self.runs = 0
        self.counts = {}
        self._last = None

    def __iter__(self):
        import numpy as np
        for chunk in self._reader:
            y = np.asarray(chunk[1])
            if len(y) and self.counts is not None:
                self.runs += int(np.count_nonzero(y[1:] != y[:-1]))
                self.runs += int(self._last is None or y[0] != self._last)
                self._last = y[-1]
                self.n += len(y)
                values, counts = np.unique(y, return_counts=True)
                for v, c in zip(values.tolist(), counts.tolist()):
                    self.counts[v] = self.counts.get(v, 0) + c
                if len(self.counts) > MAX_DISTINCT:
                    self.counts = None          # a regression target: not watched
            yield chunk

    def expected_runs(self):
        """Runs of one label expected in a random order of the same labels."""
        import numpy as np
        p = np.asarray(list(self.counts.values()), dtype=float) / self.n if self.n else []
        return 1.0 + (self.n - 1) * (1.0 - float(np.sum(np.square(p)))) if self.n else 0.0

    def warning(self):
        if self.counts is None or self.n < MIN_ROWS:
            return None
        expected = self.expected_runs()
        if self.runs >= RUN_RATIO * expected:
            return None
        return (f"olearn: warning: the labels come in long runs ({self.runs:,} runs of one "
                f"label in {self.n:,} rows, about {expected:,.0f} in a random order): the "
                "progressive error in file order is meaningless; use --shuffle")


class Shuffled(_Proxy):
    """The reader's rows, all read first, in a random order drawn from ``seed``, in
    chunks of ``chunk_size`` rows."""

    def __init__(self, reader, seed, chunk_size):
        super().__init__(reader)
        self.seed = seed
        self.chunk_size = max(1, int(chunk_size))

    def __iter__(self):
        import numpy as np
        import scipy.sparse as sp
        chunks, size = [], 0
        for chunk in self._reader:
            chunks.append(chunk)
            X = chunk[0]
            size += (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X)
                     else np.asarray(X).nbytes) + np.asarray(chunk[1]).nbytes
            if size > MAX_BYTES:
                raise CLIError(_too_big(getattr(self._reader, "name", None) or "the input",
                                        size))
        if not chunks:
            return
        width = max(c[0].shape[1] for c in chunks)
        if sp.issparse(chunks[0][0]):
            X = sp.vstack([sp.csr_matrix((c[0].data, c[0].indices, c[0].indptr),
                                         shape=(c[0].shape[0], width)) for c in chunks],
                          format="csr")
        else:
            X = np.vstack([np.asarray(c[0]) for c in chunks])
        y = np.concatenate([np.asarray(c[1]) for c in chunks])
        w = None
        if len(chunks[0]) > 2:
            w = np.concatenate([np.ones(len(c[1])) if c[2] is None else np.asarray(c[2])
                                for c in chunks])
        del chunks
        order = np.random.default_rng(self.seed).permutation(len(y))
        for start in range(0, len(y), self.chunk_size):
            rows = order[start:start + self.chunk_size]
            if w is None:
                yield X[rows], y[rows]
            else:
                yield X[rows], y[rows], w[rows]

