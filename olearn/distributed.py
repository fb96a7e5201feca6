"""Scale-out on Dask: one model learned from shards on many workers, by mixing.

``olearn.distributed.fit(model, data, client=None, mixing="ipm", epochs=1,
mix_every=None, weights="count", **reader_options)`` returns the mixed model, an
ordinary olearn model (it predicts, learns on, saves).  ``run(...)`` takes the same
arguments and returns a ``Result`` (the model, rows, rounds, versions, workers).

Data.  A list of files or a glob (LIBSVM, Vowpal Wabbit text, CSV, raw text; the
format from the name as ``olearn train`` reads it, or ``format=``): one shard per file,
each read by a worker with olearn's readers, so nothing is shipped from the client but
the model's state; CoNLL-U files (``.conllu``, compressed or not) give a sequence
tagger (``olearn.structured``) its sentences, ``label=`` naming the column of tags
(``"upos"`` by default), in chunks of ``chunk_size`` sentences.  Or a Dask collection,
whose partitions stay on the workers: a pair ``(X, y)`` of ``dask.array`` (X's rows in
blocks, y chunked as X's rows) or a ``dask.dataframe`` with the label in column
``label=`` (a name or a position, default the last).  Reader options (``n_features``,
``zero_based``, ``chunk_size``, ``n_bits``, ``quadratic``, ``cubic``, ``ignore``,
``ngram``, ``label``, ``header``, ``delimiter``) go to the readers.

Mixing (``mixing=``):

* ``"ipm"``, iterative parameter mixing (McDonald, Hall, Mann, "Distributed training
  strategies for the structured perceptron", NAACL 2010, Fig. 2): in each epoch every
  shard runs one compiled pass (``partial_fit`` over its chunks) from the current
  mixed model, the client mixes the members (``olearn.mix`` with ``base=`` the model
  they started from), and the next epoch starts from the mix.
* ``"average"``: one pass per shard from the initial model, one mix (the paper's
  baseline, "parameter mixing"); ``epochs`` passes over each shard before it.
* ``"stream"``: Jubatus's MIX with its count trigger (Hido, Tokui, Oda, 2013), in
  synchronous rounds: the shards are held in the workers' memory (files are loaded
  once, by the worker that reads them); in round ``v`` every shard that has rows left
  learns its next ``mix_every`` rows from the mix of version ``v``; the mix of the
  round's members is version ``v + 1``.  Each member carries the version it started
  from and is accepted only into the mix of that version: a result of an older
  version (a straggler, a task Dask ran again) is dropped and counted in
  ``Result.late``, so a late result never overwrites a newer mix, and the model is the
  same whatever order the results arrive in.  ``epochs`` passes over the segments.

The mix (``olearn.mix`` with ``base=`` the model the round started from): weighted
means of weights, Jubatus's minimum for the second-order classifiers' variances
(AROW, SCW, CW...), counters (``t_``, the rounds that step sizes such as OGD's
``eta / sqrt(t)`` read) as the base's plus the members' changes, so that they count the
rows of the whole data; the per-weight statistics that a plain mix sums (FTRL's ``z``
and ``sqrt(n)``, RDA's gradient sums, AdaGrad's squared gradients) are averaged like
the weights (``averaged_statistics``: summed, FTRL oscillates).  ``rules=`` overrides
any slot's rule (``olearn.mix``'s names).  ``weights="count"``: each member weighs
the rows it learned in the round; ``"uniform"``: each member the same (the
paper's uniform mixing).  A shard with no rows in a round takes no part in its mix.
With one shard, the model is the serial one exactly (no mix is made).

Agreement between shards.  Widths: a LIBSVM shard's width and index base are found
by a first cheap pass on the workers (each shard's lowest and highest index; 0-based
if any shard has index 0) unless ``n_features`` and ``zero_based`` are both given,
and every shard is then read at the widest width; hashed formats (vw, text) have the
width ``2**n_bits``; CSV shards of different widths and Dask partitions are widened
to the widest by the mix (``olearn.mix`` aligns columns).  Classes: a label seen on
one shard only joins the mix (``olearn.mix`` takes the union of the labels, the first
member's order then new labels; a member that had not met a label holds its initial
state for it); from the next epoch every shard starts from a model that knows it.
To fix the classes up front, fit the model on no rows with ``classes=`` first:
``model.partial_fit(X[:0], y[:0], classes=[...])``.

Faults.  A task is a pure function of (model state, shard, epoch/version): a worker
lost during a round makes Dask run its tasks again on another worker, with the same
result, and the round's mix waits for it.  The members are mixed in shard order, so
the model does not depend on which worker ran what.  A member travels back as its
changes from the round's model (positions and values of the entries that changed,
where fewer than half did), rebuilt exactly on the client.  More workers than shards leaves
some idle; more shards than workers queues them.

Client.  ``client=None`` starts a ``LocalCluster`` of one single-threaded worker
process per core (``n_workers=``), and closes it at the end; a running cluster is
``distributed.Client("tcp://host:8786")``.  Progress (epoch, round, rows, workers) is
drawn on stderr as olearn's other long jobs draw it (``progress=None``: on a terminal
only).

``simulate(model, shards, ...)`` runs the same rounds in this process over
in-memory shards ``[(X, y), ...]`` (no cluster): the benchmarks' many-shard tables.
"""
import copy
import glob
import os
import time
import uuid

import numpy as np

__all__ = ["fit", "run", "simulate", "Result", "MIXINGS", "shard_files", "local_client",
           "averaged_statistics", "split", "Part"]

MIXINGS = ("ipm", "average", "stream")
WEIGHTS = ("count", "uniform")
_READER_OPTIONS = ("format", "n_features", "zero_based", "chunk_size", "n_bits",
                   "quadratic", "cubic", "ignore", "ngram", "label", "header",
                   "delimiter")
_COMPRESSED = (".gz", ".bz2", ".xz")


class Result:
    """What ``run`` returns: ``model`` (the mixed model), ``rows`` (learned, all
    epochs), ``rounds`` (mixes made), ``version`` (of the final mix), ``late`` (member
    results dropped as older than the mix they arrived at), ``shards``, ``workers``
    (in the cluster at the end), ``seconds`` (wall), ``progressive`` (with
    ``progressive=True``: ``{"task", "rows", "mistakes"}`` for a classifier,
    ``{"task", "rows", "squared", "absolute"}`` (sums) for a regressor, each row
    answered by its shard's member before it learned the row; None otherwise)."""

    def __init__(self, model, rows, rounds, version, late, shards, workers, seconds,
                 progressive=None):
        self.model, self.rows, self.rounds, self.version = model, rows, rounds, version
        self.late, self.shards, self.workers, self.seconds = late, shards, workers, seconds
        self.progressive = progressive

    def __repr__(self):
        return (f"Result(rows={self.rows}, rounds={self.rounds}, version={self.version}, "
                f"late={self.late}, shards={self.shards}, workers={self.workers}, "
                f"seconds={self.seconds:.3f})")


def fit(model, data, client=None, mixing="ipm", epochs=1, mix_every=None,
        weights="count", progress=None, n_workers=None, rules=None, **reader_options):
    """Learn ``model`` from the shards ``data`` on a Dask cluster; returns the mixed
    model (the module docstring says how).  ``model`` is not changed."""
    return run(model, data, client, mixing, epochs, mix_every, weights, progress,
               n_workers, rules, **reader_options).model


def run(model, data, client=None, mixing="ipm", epochs=1, mix_every=None,
        weights="count", progress=None, n_workers=None, rules=None, progressive=False,
        **reader_options):
    """``fit``, returning a ``Result`` (the model and what the job did).
    ``progressive=True``: each shard's member answers each row before it learns it
    (``predict_learn``, the same model as ``partial_fit``), and ``Result.progressive``
    sums the mistakes or errors (a classifier or regressor over files or partitions)."""
    _check(model, mixing, epochs, mix_every, weights, reader_options)
    files = shard_files(data)
    if files is None and not _is_collection(data):
        raise ValueError("data must be a file, a glob, a list of files, a pair (X, y) of "
                         f"dask arrays or a dask dataframe, got {type(data).__name__}")
    own = client is None
    cluster = None
    if own:
        client, cluster = local_client(n_workers)
    try:
        runner = _DaskRunner(client, progress)
        if files is not None:
            options = _agree(runner, files, dict(reader_options), model)
            shards = [("file", path, options) for path in files]
            if mixing == "stream":
                shards = runner.persist([("load", path, options) for path in files])
        else:
            shards = runner.persist(_partitions(data, reader_options))
        return _rounds(model, shards, runner, mixing, epochs, mix_every, weights, rules,
                       progressive)
    finally:
        if own:
            client.close()
            cluster.close()


def simulate(model, shards, mixing="ipm", epochs=1, mix_every=None, weights="count",
             rules=None):
    """The rounds of ``run`` in this process over in-memory shards ``[(X, y), ...]``
    (or ``(X, y, sample_weight)``): the same members and mixes as on a cluster."""
    _check(model, mixing, epochs, mix_every, weights, {})
    shards = [("memory", tuple(s), {}) for s in shards]
    return _rounds(model, shards, _LocalRunner(), mixing, epochs, mix_every, weights, rules)


# ---------------------------------------------------------------- checks
def _check(model, mixing, epochs, mix_every, weights, reader_options):
    if not hasattr(model, "partial_fit"):
        raise ValueError(f"model must be an olearn model, got {type(model).__name__}")
    if mixing not in MIXINGS:
        raise ValueError(f"mixing must be one of {', '.join(MIXINGS)}, got {mixing!r}")
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}, got {weights!r}")
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
    if mixing == "stream":
        if isinstance(mix_every, bool) or not isinstance(mix_every, (int, np.integer)) \
                or mix_every < 1:
            raise ValueError(f"mixing='stream' needs mix_every, an integer >= 1 (rows "
                             f"between mixes), got {mix_every!r}")
    elif mix_every is not None:
        raise ValueError(f"mix_every is for mixing='stream', not {mixing!r}")
    unknown = sorted(set(reader_options) - set(_READER_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r}: reader options are "
                         f"{', '.join(_READER_OPTIONS)}")


def shard_files(data):
    """The shard files of ``data`` (a path, a glob, a list of them), globs sorted; None
    when ``data`` is not files; FileNotFoundError naming a path or glob that has none."""
    if isinstance(data, (str, os.PathLike)):
        data = [os.fspath(data)]
    if not isinstance(data, (list, tuple)) or not data \
            or not all(isinstance(p, (str, os.PathLike)) for p in data):
        return None
    out = []
    for p in data:
        if isinstance(p, Part):
            out.append(p)
            continue
        p = os.fspath(p)
        found = sorted(glob.glob(p)) if glob.has_magic(p) else [p]
        if not found:
            raise FileNotFoundError(f"{p}: no file matches")
        for f in found:
            if not os.path.isfile(f):
                raise FileNotFoundError(f"{f}: no such file")
        out.extend(found)
    return out


def _is_collection(data):
    return (isinstance(data, tuple) and len(data) == 2
            and all(hasattr(a, "to_delayed") for a in data)) or (
        hasattr(data, "to_delayed") and hasattr(data, "columns"))


def local_client(n_workers=None, processes=True):
    """(client, cluster): a LocalCluster of ``n_workers`` single-threaded workers
    (default one per core), its dashboard on a free port: worker processes, or with
    ``processes=False`` worker threads in this process (started in a tenth of a second
    where processes take one to two, and sharing this process's loaded kernels, which
    release the GIL: the command line's ``--workers``)."""
    from distributed import Client, LocalCluster
    n = n_workers or os.cpu_count() or 1
    # (a task's error comes back to the caller as its exception: the workers' own
    # "Compute Failed" log lines would only repeat it, with a traceback)
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                           dashboard_address=":0", silence_logs=50)
    return Client(cluster), cluster


class Part(os.PathLike):
    """Shard ``index`` of ``count`` of the file ``path``: its lines in the bytes
    ``[start, end)`` (:func:`split` cuts at line ends).  ``os.fspath`` of a part is the
    file's path (the format is the file's); a worker reads only its bytes."""

    def __init__(self, path, start, end, index, count):
        self.path, self.start, self.end = os.fspath(path), int(start), int(end)
        self.index, self.count = int(index), int(count)

    def __fspath__(self):
        return self.path

    @property
    def name(self):
        """The name messages give (a malformed line's number counts from the part's
        first line)."""
        return f"{self.path} (part {self.index + 1} of {self.count}, from byte {self.start})"

    def open(self):
        """The part's bytes as a binary file object (read once)."""
        import io
        raw = _Range(self.path, self.start, self.end)
        raw.name = self.name          # (the buffered file's name is its raw file's)
        return io.BufferedReader(raw, 1 << 20)

    def __eq__(self, other):
        return isinstance(other, Part) and vars(self) == vars(other)

    def __hash__(self):
        return hash(tuple(vars(self).values()))

    def __repr__(self):
        return f"Part({self.path!r}, {self.start}, {self.end}, {self.index}, {self.count})"


class _Range(__import__("io").RawIOBase):
    """The bytes ``[start, end)`` of a file, read-only."""

    def __init__(self, path, start, end):
        super().__init__()
        self._f = open(path, "rb")
        self._f.seek(start)
        self._left = end - start

    def readable(self):
        return True

    def readinto(self, buf):
        n = min(len(buf), self._left)
        if n <= 0:
            return 0
        got = self._f.readinto(memoryview(buf)[:n])
        self._left -= got
        return got

    def close(self):
        self._f.close()
        super().close()


#: formats whose files :func:`split` cuts (one example a line, no header)
SPLITTABLE = ("libsvm", "vw")


def split(path, parts):
    """The file ``path`` as ``parts`` shards of about equal size, cut at line ends
    (:class:`Part` objects for ``fit``/``run``); ``[path]`` where it cannot be cut: one
    part asked, a compressed file, a format with a header or records over several lines
    (only LIBSVM and Vowpal Wabbit text are cut), or a file smaller than the parts."""
    path = os.fspath(path)
    size = os.path.getsize(path)
    if parts <= 1 or detect(path) not in SPLITTABLE or size < parts \
            or os.fspath(path).lower().endswith(_COMPRESSED):
        return [path]
    with open(path, "rb") as f:
        if f.read(6).startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ")):
            return [path]           # compressed whatever its name
        cuts = [0]
        for i in range(1, parts):
            f.seek(max(i * size // parts - 1, cuts[-1]))
            f.readline()            # to the start of the next line
            cuts.append(min(f.tell(), size))
    cuts.append(size)
    bounds = [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
    return [Part(path, a, b, i, len(bounds)) for i, (a, b) in enumerate(bounds)]


# ---------------------------------------------------------------- reading (on workers)
def detect(path):
    """The format of a shard from its name: csv (.csv/.tsv/.data), vw (.vw), else
    libsvm, a compression suffix aside."""
    name = os.fspath(path).lower()
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    return "vw" if name.endswith(".vw") else \
        "csv" if name.endswith((".csv", ".tsv", ".data")) else \
        "conllu" if name.endswith(".conllu") else "libsvm"


def _reader(path, options):
    """The chunks of a shard file (or of a :class:`Part` of one: its bytes only)."""
    if isinstance(path, Part):
        return _read_part(path, options)
    from . import io
    o = dict(options)
    fmt = o.pop("format", None) or detect(path)
    size = o.pop("chunk_size", 10_000)
    if fmt == "libsvm":
        return io.read_libsvm(path, chunk_size=size, n_features=o.get("n_features"),
                              zero_based=o.get("zero_based", "auto"))
    if fmt == "vw":
        return io.read_vw(path, n_bits=o.get("n_bits", 18), quadratic=o.get("quadratic", ()),
                          cubic=o.get("cubic", ()), ignore=o.get("ignore", ()),
                          chunk_size=size, sample_weight=True)
    if fmt == "csv":
        delim = o.get("delimiter", "\t" if ".tsv" in path.lower() else ",")
        return io.read_csv(path, label=o.get("label", -1), header=o.get("header", "infer"),
                           delimiter=delim, chunk_size=size)
    if fmt == "text":
        return io.read_text(path, n_bits=o.get("n_bits", 18), ngram=o.get("ngram", 1),
                            chunk_size=size)
    if fmt == "conllu":   # sentences and a column of tags, for a sequence tagger
        X, y = io.read_conllu(path, column=o.get("label", "upos"))
        return [(X[a:a + size], y[a:a + size]) for a in range(0, len(X), size)]
    raise ValueError(f"format must be libsvm, vw, csv, text or conllu, got {fmt!r}")


def _read_part(part, options):
    """The chunks of a part; a malformed line is named by its line in the whole file."""
    from .io import DataFormatError
    f = part.open()
    try:
        yield from _reader(f, {**options, "format": options.get("format") or detect(part.path)})
    except DataFormatError as e:
        if e.path != part.name or e.line is None:
            raise
        raise DataFormatError(part.path, e.line + _lines_before(part), e.reason) from None
    finally:
        f.close()


def _lines_before(part):
    """The lines of the file before the part (counted only to name a bad line)."""
    n = 0
    with open(part.path, "rb") as f:
        left = part.start
        while left > 0:
            block = f.read(min(left, 1 << 22))
            if not block:
                break
            n += block.count(b"\n")
            left -= len(block)
    return n


def _chunks(shard, rows=None):
    """``(X, y, sample_weight)`` chunks of a shard; ``rows=(a, b)``: those rows of an
    in-memory shard."""
    kind, src, options = shard
    if kind == "file":      # (one parse thread: a worker's core is its own)
        from .io import parse_threads
        with parse_threads(1):   # (set in this thread while the task reads)
            for chunk in _reader(src, options):
                w = chunk[2] if len(chunk) > 2 else None
                yield chunk[0], chunk[1], (None if w is None or np.all(w == 1) else w)
        return
    X, y = src[0], src[1]
    w = src[2] if len(src) > 2 else None
    a, b = (0, len(y)) if rows is None else rows
    if b > a:
        yield X[a:b], y[a:b], None if w is None else w[a:b]


def _scan(path, options):
    """(lowest..highest index found) of a LIBSVM shard, for the widths to agree."""
    reader = _reader(path, {**options, "n_features": None})
    top = reader.n_features - 1 if reader.zero_based else reader.n_features
    return int(top), bool(reader.zero_based)


def _load(path, options):
    """A file shard in memory (``mixing="stream"``): (X, y, sample_weight or None)."""
    import scipy.sparse as sp
    Xs, ys, ws = [], [], []
    for X, y, w in _chunks(("file", path, options)):
        Xs.append(X)
        ys.append(y)
        ws.append(np.ones(len(y)) if w is None else w)
    if not Xs:
        return ("memory", (np.zeros((0, 0)), np.zeros(0)), {})
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    w = np.concatenate(ws)
    return ("memory", (X, np.concatenate(ys)) + (() if np.all(w == 1) else (w,)), {})


def _partition(kind, a, b=None, label=-1):
    """An in-memory shard from a Dask partition: ``(X block, y block)`` or a frame."""
    if kind == "frame":
        cols = list(a.columns)
        col = cols[label] if isinstance(label, (int, np.integer)) else label
        if col not in cols:
            raise ValueError(f"label column {label!r} not in the dataframe's columns")
        X = a.drop(columns=[col]).to_numpy(dtype=np.float64)
        return ("memory", (np.ascontiguousarray(X), a[col].to_numpy()), {})
    return ("memory", (np.asarray(a), np.asarray(b)), {})


def _size(shard):
    return len(shard[1][1])


def _learn(model, shard, step, rows=None, passes=1, progressive=False):
    """One member: ``model`` (not changed) after ``passes`` passes over the shard (or
    its rows ``rows``).  A pure function of its arguments (``step``, the epoch or version, is
    part of the task's identity only): run again, it gives the same member.
    Returns (member or None when the shard had no rows, rows learned, the progressive
    sums of :class:`_Progressive` or None)."""
    m = copy.deepcopy(model)
    n = 0
    # a sequence tagger makes each pass as its fit does (a new order with shuffle)
    one_pass = getattr(m, "fit_pass", None)
    scored = _Progressive.of(m) if progressive and one_pass is None else None
    for k in range(passes):
        for c, (X, y, w) in enumerate(_chunks(shard, rows)):
            if len(y) and one_pass is not None and w is None:
                one_pass(X, y, seed=(step, k, c))
                n += len(y)
            elif len(y) and scored is not None:
                scored.add(m.predict_learn(X, y, sample_weight=w), y)
                n += len(y)
            elif len(y):
                m.partial_fit(X, y, sample_weight=w)
                n += len(y)
    return (m if n else None), n, (scored.sums if scored is not None else None)


class _Progressive:
    """The sums of a member's progressive answers: a classifier's mistakes, a
    regressor's squared and absolute errors (as ``olearn.evaluate.progressive``)."""

    def __init__(self, task):
        self.sums = {"task": task, "rows": 0}
        self.sums.update({"mistakes": 0} if task == "classification"
                         else {"squared": 0.0, "absolute": 0.0})

    @classmethod
    def of(cls, model):
        from ._estimator import estimator_kind   # (scikit-learn's tags, not imported)
        task = {"classifier": "classification",
                "regressor": "regression"}.get(estimator_kind(model))
        return cls(task) if task and hasattr(model, "predict_learn") else None

    def add(self, answers, y):
        answers, y = np.asarray(answers), np.asarray(y)
        if answers.shape != y.shape or y.ndim != 1:   # (label sets: not summed here)
            return
        s = self.sums
        s["rows"] += len(y)
        if s["task"] == "classification":
            s["mistakes"] += int(np.count_nonzero(answers != y))
        else:
            e = answers.astype(np.float64) - y
            s["squared"] += float(e @ e)
            s["absolute"] += float(np.abs(e).sum())

    @staticmethod
    def merge(total, sums):
        if sums is None:
            return total
        if total is None:
            return dict(sums)
        return {k: (v + sums[k] if k != "task" else v) for k, v in total.items()}


def _learn_slim(model, shard, step, rows=None, passes=1, progressive=False):
    """``_learn`` for a cluster: the member goes back to the client as its changes
    from ``model`` (``_slim``), a few kilobytes for a pass over sparse rows where the
    whole model would be megabytes."""
    member, n, sums = _learn(model, shard, step, rows, passes, progressive)
    return _slim(member, model), n, sums


def _slim(member, base):
    """("slim", member with each state array that changed in few places replaced by
    (positions, values) of the changes from ``base``), or ("whole", member)."""
    state = getattr(member, "__dict__", {}).get("state_")
    before = getattr(base, "__dict__", {}).get("state_")
    if member is None or not isinstance(state, dict) or not isinstance(before, dict):
        return ("whole", member)
    patches = {}
    for name, arr in state.items():
        old = before.get(name)
        if isinstance(old, np.ndarray) and old.shape == arr.shape and old.dtype == arr.dtype:
            changed = np.flatnonzero(arr != old)
            if 2 * changed.size < arr.size:
                patches[name] = (changed, arr.reshape(-1)[changed], arr.shape)
                continue
        patches[name] = arr
    slim = copy.copy(member)
    slim.state_ = patches
    return ("slim", slim)


def _whole(result, base):
    """The member of ``_slim``'s result, its state rebuilt on ``base``'s (exactly)."""
    kind, member = result
    if kind == "whole":
        return member
    state = {}
    for name, patch in member.state_.items():
        if isinstance(patch, tuple):
            arr = base.state_[name].copy()
            arr.reshape(-1)[patch[0]] = patch[1]
            state[name] = arr
        else:
            state[name] = patch
    member.state_ = state
    return member


# ---------------------------------------------------------------- runners
class _LocalRunner:
    """Rounds in this process (``simulate``)."""
    workers = 1

    def learn(self, model, tasks, step, passes, progressive=False):
        return [_learn(model, shard, step, rows, passes, progressive)
                for shard, rows in tasks]

    def sizes(self, shards):
        return [_size(s) for s in shards]

    def done(self, result):
        pass


class _DaskRunner:
    """Rounds on a Dask cluster: the model broadcast once per round, one task per
    shard, the members gathered as they complete."""

    def __init__(self, client, progress):
        from ._progress import StatusLine
        self.client = client
        self.job = uuid.uuid4().hex[:8]
        self.line = StatusLine(show=progress)
        self.rows = 0

    @property
    def workers(self):
        return len(self.client.scheduler_info().get("workers", {}))

    def map(self, fn, args, name):
        futures = [self.client.submit(fn, *a, key=f"olearn-{name}-{self.job}-{i}",
                                      pure=False) for i, a in enumerate(args)]
        return self.client.gather(futures)

    def persist(self, items):
        """Shards held on the workers: files loaded (stream) or Dask partitions."""
        if items and isinstance(items[0], tuple):
            return [self.client.submit(_load, path, options, pure=False,
                                       key=f"olearn-shard-{self.job}-{i}")
                    for i, (_, path, options) in enumerate(items)]
        return self.client.compute(list(items))

    def sizes(self, shards):
        return self.client.gather([self.client.submit(_size, s, pure=False)
                                   for s in shards])

    def learn(self, model, tasks, step, passes, progressive=False):
        from distributed import as_completed
        base = self.client.scatter(model, broadcast=True, hash=False)
        futures, where = [], {}
        for k, (shard, rows) in enumerate(tasks):
            f = self.client.submit(_learn_slim, base, shard, step, rows, passes,
                                   progressive, pure=False, key=f"olearn-learn-{self.job}-v{step}-s{k}")
            futures.append(f)
            where[f.key] = k
        out = [None] * len(tasks)
        done = 0
        for f in as_completed(futures):
            slim, n, sums = f.result()
            out[where[f.key]] = (_whole(slim, model), n, sums)
            self.rows += n
            done += 1
            if self.line.due():
                self.line.write(f"olearn distributed: round {step}, shards {done}/"
                                f"{len(tasks)}, {self.rows:,} rows, {self.workers} workers")
        del base
        return out

    def done(self, result):
        if self.line.active:
            self.line.write(f"olearn distributed: {result.rounds} rounds, {result.rows:,} "
                            f"rows, {result.workers} workers, {result.seconds:.1f} s")
            self.line.close()


def _agree(runner, files, options, model):
    """Reader options every shard is read with: LIBSVM widths and index base agreed
    by a first pass on the workers (unless both are given)."""
    fmts = {options.get("format") or detect(f) for f in files}
    if fmts != {"libsvm"}:
        return options
    width = getattr(model, "n_features_in_", None) if _fitted(model) else None
    given = options.get("n_features")
    zb = options.get("zero_based", "auto")
    if given is None or zb == "auto":     # (a file cut in parts is scanned once)
        whole = list(dict.fromkeys(os.fspath(f) for f in files))
        scans = runner.map(_scan, [(f, options) for f in whole], "scan")
        if zb == "auto":
            zb = any(z for _, z in scans)
        top = max(t for t, _ in scans)
        found = top + 1 if zb else top
        given = max(found, given or 0)
    options["n_features"] = max(int(given), int(width or 0))
    options["zero_based"] = bool(zb)
    return options


def _fitted(model):
    """The protocol's question (a model outside it: not fitted)."""
    fitted = getattr(model, "__sklearn_is_fitted__", None)
    return fitted is not None and bool(fitted())


def _partitions(data, options):
    """Delayed in-memory shards over a Dask collection's partitions."""
    import dask
    label = options.get("label", -1)
    if isinstance(data, tuple):
        X, y = data
        if X.ndim != 2 or y.ndim != 1:
            raise ValueError(f"(X, y): X must be 2-D and y 1-D, got {X.ndim}-D and "
                             f"{y.ndim}-D")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: X.shape[1]})
        if tuple(y.chunks[0]) != tuple(X.chunks[0]):
            y = y.rechunk({0: X.chunks[0]})
        xs, ys = X.to_delayed().ravel(), y.to_delayed().ravel()
        return [dask.delayed(_partition)("array", a, b) for a, b in zip(xs, ys)]
    return [dask.delayed(_partition)("frame", p, None, label) for p in data.to_delayed()]


# ---------------------------------------------------------------- the rounds
def _rounds(model, shards, runner, mixing, epochs, mix_every, weights, rules=None,
            progressive=False):
    t0 = time.perf_counter()
    current = model
    rows = rounds = late = 0
    version = 0
    scored = None
    if mixing == "stream":
        sizes = runner.sizes(shards)
        plan = [[(s, (a, min(a + mix_every, n))) for a in range(0, n, mix_every)]
                for s, n in zip(shards, sizes)]
        steps = max((len(p) for p in plan), default=0)
        for _ in range(epochs):
            for r in range(steps):
                tasks = [p[r] for p in plan if r < len(p)]
                got = runner.learn(current, tasks, version, 1, progressive)
                mixer = _Mixer(current, version, weights, rules)
                for k, member in enumerate(got):
                    late += not mixer.offer(version, *member)
                current, version = mixer.mix(), version + 1
                rows += mixer.rows
                rounds += 1
                scored = _Progressive.merge(scored, mixer.sums)
    else:  # ipm: epochs rounds of one pass; average: one round of epochs passes
        passes = 1 if mixing == "ipm" else epochs
        for _ in range(epochs if mixing == "ipm" else 1):
            got = runner.learn(current, [(s, None) for s in shards], version, passes,
                               progressive)
            mixer = _Mixer(current, version, weights, rules)
            for member in got:
                mixer.offer(version, *member)
            current, version = mixer.mix(), version + 1
            rows += mixer.rows
            rounds += 1
            scored = _Progressive.merge(scored, mixer.sums)
    result = Result(current, rows, rounds, version, late, len(shards),
                    runner.workers, time.perf_counter() - t0, scored)
    runner.done(result)
    return result


class _Mixer:
    """The mix of one version: members offered with the version they started from;
    an older one is refused (``offer`` returns False); ``mix()`` is the next version's
    model, members in shard order (the order they were offered in by shard index)."""

    def __init__(self, base, version, weights, rules=None):
        self.base, self.version, self.weights, self.rules = base, version, weights, rules
        self.members, self.counts = [], []
        self.rows = 0
        self.sums = None

    def offer(self, version, member, rows, sums=None):
        if version != self.version:
            return False
        if member is not None and rows > 0:
            self.members.append(member)
            self.counts.append(rows)
            self.rows += rows
            self.sums = _Progressive.merge(self.sums, sums)
        return True

    def mix(self):
        from .mixing import mix
        if not self.members:
            return self.base
        if len(self.members) == 1:
            return self.members[0]
        w = self.counts if self.weights == "count" else [1.0] * len(self.members)
        base = self.base if _fitted(self.base) else None
        rules = {**averaged_statistics(self.members[0]), **(self.rules or {})}
        return mix(self.members, weights=w, rules=rules, base=base)


def averaged_statistics(model):
    """``{slot: rule}``: the per-weight statistics that ``olearn.mix`` sums (declared
    ``"sum"`` or ``"rss"`` over the ``"d"`` axis: FTRL's ``z`` and ``sqrt(n)``, RDA's
    gradient sums, AdaGrad's squared gradients, COCOB's wealth) averaged instead, as
    iterative parameter mixing averages the parameters.  Summing each shard's changes
    (the union of the streams) counts FTRL's ``sigma w`` terms once per shard, and its
    ipm oscillates from the second epoch (a9a, 8 shards: 15.5, 72.3, 17.6% test error;
    averaged: 15.4, 15.3, 15.2%)."""
    out = {}
    for slot in getattr(model, "slots", ()):
        if "d" not in slot.axes:
            continue
        rule = slot.mix
        if isinstance(rule, tuple):
            if any(r in ("sum", "rss") for r in rule):
                out[slot.name] = tuple("mean" if r in ("sum", "rss") else r for r in rule)
        elif rule in ("sum", "rss"):
            out[slot.name] = "mean"
    return out
