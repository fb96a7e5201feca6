"""The served models on disk and in memory: one writer per model, a write-ahead log,
atomic snapshots, recovery.

Layout of the data folder::

    tokens.json                     token hashes (olearn.serve.tokens)
    models/NAME/meta.json           algo, params, seq, rows and idempotency ids as of
                                    the snapshot, and the snapshot's file name
    models/NAME/snapshot-*.olm      the model at that seq (olearn's safe format)
    models/NAME/log.wal             learn requests after it (olearn.serve.wal)

A learn request is checked whole, applied to the model under the model's lock (a dict
row by ``learn_one``, rows of numbers by one ``partial_fit``), given the next ``seq``
and appended to the log, all under that lock; the lock is released before waiting for
the fsync, so that concurrent requests share one.  A request that fails while being
applied (a label the learner cannot take, a divergence) leaves the model as the log
says: it is rebuilt from the snapshot and the log, which do not hold that request.
A prediction takes the same lock, so it sees every request whole or not at all.

A snapshot (every ``snapshot_rows`` rows or ``snapshot_seconds`` seconds, or when
asked) writes the model file (temporary file, fsync, rename), then ``meta.json`` the
same way, fsyncs the folder, and only then empties the log.  On start each model is its
snapshot plus the log's records after the snapshot's seq, replayed through the same
code as a live request; so the recovered model is an offline replay of the acknowledged
requests in seq order.
"""
import collections
import json
import os
import re
import secrets
import shutil
import threading
import time

from .body import ServeError, Limits, parse_create, parse_learn, parse_predict
from .wal import GROUP_MS, FileIO, Log, encode

NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")
MAX_IDS = 4096


def check_name(name):
    if not NAME.match(name or ""):
        raise ServeError(400, "a model name is 1-64 letters, digits, '_', '.' or '-', "
                              "not starting with '.' or '-'")


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path, data):
    """``data`` to ``path``: temporary file, fsync, rename, fsync of the folder."""
    folder = os.path.dirname(path)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(folder)


def _message(exc, limit=1000):
    """One line, at most ``limit`` characters (cut at a word, marked)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text


def apply_learn(model, req, predict=False):
    """Learn ``req``'s rows in order; with ``predict`` return the prediction made
    before each row's update.  Also what a replay of the log calls."""
    if req.dicts:
        w = req.w or [1.0] * len(req.X)
        step = model.predict_learn_one if predict else model.learn_one
        out = []
        for k, (x, y, sw) in enumerate(zip(req.X, req.y, w)):
            try:
                out.append(step(x, y, sw))
            except Exception as exc:
                exc.rows_done = k
                raise
        return out if predict else None
    import numpy as np
    X = np.array(req.X, dtype=np.float64).reshape(len(req.X), -1)
    if predict:
        return model.predict_learn(X, req.y, sample_weight=req.w).tolist()
    model.partial_fit(X, req.y, sample_weight=req.w)
    return None


def predict_rows(model, req):
    """``{"predictions": [...]}`` (and ``scores``/``proba`` when asked)."""
    import numpy as np
    if getattr(model, "n_features_in_", None) is None:
        raise ServeError(409, "the model has not learned anything yet")
    vocabulary = getattr(model, "vocabulary_", None)
    if req.dicts:
        if vocabulary is None:
            raise ServeError(400, "this model learned from lists of numbers: send rows "
                                  "as lists")
        from ..io.dicts import dicts_to_csr
        X = dicts_to_csr(req.X, vocabulary, grow=False)
    else:
        if vocabulary is not None:
            raise ServeError(400, "this model learned from {name: value} objects: send "
                                  "rows as objects")
        X = np.array(req.X, dtype=np.float64).reshape(len(req.X), -1)
    out = {"predictions": model.predict(X).tolist()}
    for flag, call in (("scores", "decision_function"), ("proba", "predict_proba")):
        if getattr(req, flag):
            method = getattr(model, call, None)
            try:
                if method is None:
                    raise AttributeError
                out[flag] = np.asarray(method(X)).tolist()
            except (AttributeError, NotImplementedError):
                raise ServeError(400, f"this model gives no {flag}") from None
    return out


class Entry:
    """One served model."""

    def __init__(self, name, folder):
        self.name, self.folder = name, folder
        self.lock = threading.RLock()
        self.deleted = False
        self.ids = collections.OrderedDict()  # id -> (seq, n, log position)
        self.model = self.log = None
        self.meta = {}
        self.seq = self.rows = 0
        self.snap_seq = self.snap_rows = 0
        self.snap_time = time.time()

    @property
    def meta_path(self):
        return os.path.join(self.folder, "meta.json")

    def remember(self, rid, seq, n, position):
        if rid is not None:
            self.ids[rid] = (seq, n, position)
            while len(self.ids) > MAX_IDS:
                self.ids.popitem(last=False)


class Store:
    """Every model of a data folder (see the module docstring).  Methods are
    synchronous and thread-safe; the app calls them from a thread pool."""

    def __init__(self, data_dir, fsync="always", snapshot_rows=1_000_000,
                 snapshot_seconds=60.0, limits=Limits(), io=FileIO, background=True):
        self.root = os.path.abspath(data_dir)
        self.models_dir = os.path.join(self.root, "models")
        os.makedirs(self.models_dir, exist_ok=True)
        self.policy, self.io, self.limits = fsync, io, limits
        self.snapshot_rows, self.snapshot_seconds = snapshot_rows, snapshot_seconds
        self.entries = {}
        self._lock = threading.Lock()
        for name in sorted(os.listdir(self.models_dir)):
            path = os.path.join(self.models_dir, name)
            if name.startswith("."):  # a create or delete a crash interrupted
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.isdir(path):
                self.entries[name] = self._open(name, path)
        self._stop = threading.Event()
        self._thread = None
        if background:
            self._thread = threading.Thread(target=self._background, daemon=True,
                                            name="olearn-serve-store")
            self._thread.start()

    # ------------------------------------------------------------ recovery
    def _open(self, name, folder):
        entry = Entry(name, folder)
        with open(entry.meta_path, "rb") as f:
            entry.meta = json.loads(f.read())
        entry.log = Log(os.path.join(folder, "log.wal"), self.policy, self.io)
        self._rebuild(entry, entry.log.recovered)
        entry.snap_seq, entry.snap_rows = entry.meta["seq"], entry.meta["rows"]
        return entry

    def _rebuild(self, entry, records, position=0):
        """The model as its snapshot plus the log's records after it (``position``: the
        log position that covers them, for ``wait_durable``)."""
        from .. import load, make
        meta = entry.meta
        snap = meta.get("snapshot")
        entry.model = (load(os.path.join(entry.folder, snap)) if snap
                       else make(meta["algo"], **meta["params"]))
        entry.seq, entry.rows = meta["seq"], meta["rows"]
        entry.ids.clear()
        for rid, seq, n in meta.get("ids", []):
            entry.remember(rid, seq, n, position)
        for seq, rid, body in records:
            if seq <= entry.seq:
                continue  # already in the snapshot (a crash before the log was emptied)
            req = parse_learn(body, Limits(1 << 62, 1 << 62, 1 << 62))
            apply_learn(entry.model, req)
            entry.seq, entry.rows = seq, entry.rows + len(req.X)
            entry.remember(rid, seq, len(req.X), position)

    def _rollback(self, entry):
        """After a request failed half-way: the model as the log says."""
        from .wal import read_log
        self._rebuild(entry, read_log(entry.log.path)[0], entry.log.written)

    # ------------------------------------------------------------ models
    def entry(self, name):
        e = self.entries.get(name)
        if e is None or e.deleted:
            raise ServeError(404, f"no model named {name!r}")
        return e

    def create(self, name, body):
        check_name(name)
        algo, params = parse_create(body)
        from ..registry import make
        try:
            model = make(algo, **params)
            check = getattr(model, "check_params", None)
            if check is not None:
                check()
        except Exception as exc:  # unknown name (KeyError), parameter or value
            raise ServeError(400, _message(exc).strip('"')) from None
        if not hasattr(model, "learn_one"):
            raise ServeError(400, f"{algo} does not learn from labelled rows")
        meta = {"algo": algo, "params": params, "seq": 0, "rows": 0, "snapshot": None,
                "ids": [], "created": time.time()}
        return self._install(name, meta, None)

    def _install(self, name, meta, model_file):
        """A new model folder, made whole under a hidden name and renamed into place."""
        with self._lock:
            if name in self.entries and not self.entries[name].deleted:
                raise ServeError(409, f"a model named {name!r} exists")
            tmp = os.path.join(self.models_dir, f".new-{name}-{secrets.token_hex(4)}")
            os.makedirs(tmp)
            if model_file is not None:
                os.replace(model_file, os.path.join(tmp, meta["snapshot"]))
            write_atomic(os.path.join(tmp, "meta.json"), json.dumps(meta).encode())
            folder = os.path.join(self.models_dir, name)
            os.replace(tmp, folder)
            fsync_dir(self.models_dir)
            entry = self.entries[name] = self._open(name, folder)
        return self.describe(entry)

    def delete(self, name):
        with self._lock:
            entry = self.entry(name)
            with entry.lock:
                entry.deleted = True
                entry.log.close()
                trash = os.path.join(self.models_dir, f".deleted-{name}-{secrets.token_hex(4)}")
                os.replace(entry.folder, trash)
                fsync_dir(self.models_dir)
                del self.entries[name]
        shutil.rmtree(trash, ignore_errors=True)
        return {"deleted": name}

    def list(self):
        return sorted(n for n, e in self.entries.items() if not e.deleted)

    def describe(self, entry):
        with entry.lock:
            return {"name": entry.name, "algo": entry.meta["algo"],
                    "params": entry.meta["params"], "rows": entry.rows, "seq": entry.seq,
                    "snapshot_seq": entry.snap_seq,
                    "snapshot_age_s": round(time.time() - entry.snap_time, 3),
                    "log_bytes": entry.log.size, "fsync": self.policy}

    def info(self, name):
        return self.describe(self.entry(name))

    # ------------------------------------------------------------ learn, predict
    def learn(self, name, body, predict=False):
        """Apply a learn (or predict_learn) body; returns the acknowledgement once the
        fsync policy makes it durable."""
        req = parse_learn(body, self.limits)
        entry = self.entry(name)
        out = {}
        with entry.lock:
            if entry.deleted:
                raise ServeError(404, f"no model named {name!r}")
            first = entry.ids.get(req.id) if req.id is not None else None
            if first is not None:
                seq, n, position = first
                out["replayed"] = True
            else:
                try:
                    made = apply_learn(entry.model, req, predict)
                except Exception as exc:
                    if getattr(exc, "rows_done", 1):
                        self._rollback(entry)
                    raise ServeError(400, _message(exc)) from None
                seq, n = entry.seq + 1, len(req.X)
                try:
                    position = entry.log.append(encode(seq, req.id, body))
                except OSError as exc:
                    self._rollback(entry)
                    raise ServeError(503, f"the log could not be written: {exc}") from None
                entry.seq, entry.rows = seq, entry.rows + n
                entry.remember(req.id, seq, n, position)
                if predict:
                    out["predictions"] = _plain(made)
        entry.log.wait_durable(position)
        return {"acknowledged": n, "seq": seq, **out}

    def predict(self, name, body, wait=True):
        """The predictions of a predict body; with ``wait=False``, None at once when a
        writer holds the model (the app then asks again from its thread pool)."""
        req = parse_predict(body, self.limits)
        entry = self.entry(name)
        if not entry.lock.acquire(blocking=wait):
            return None
        try:
            return predict_rows(entry.model, req)
        except ServeError:
            raise
        except (ValueError, TypeError, OverflowError) as exc:
            raise ServeError(400, _message(exc)) from None
        finally:
            entry.lock.release()

    # ------------------------------------------------------------ files
    def snapshot(self, name):
        entry = self.entry(name)
        self._snapshot(entry)
        return self.describe(entry)

    def _snapshot(self, entry, force=False):
        with entry.lock:
            if entry.deleted or (entry.seq == entry.snap_seq and not force):
                entry.snap_time = time.time()
                return
            old = entry.meta.get("snapshot")
            snap = f"snapshot-{entry.seq:012d}-{secrets.token_hex(3)}.olm"
            entry.model.save(os.path.join(entry.folder, snap))  # temp, fsync, rename
            meta = dict(entry.meta, seq=entry.seq, rows=entry.rows, snapshot=snap,
                        ids=[[rid, s, n] for rid, (s, n, _) in entry.ids.items()])
            write_atomic(entry.meta_path, json.dumps(meta).encode())  # fsyncs the folder
            entry.meta = meta
            entry.log.truncate()
            entry.snap_seq, entry.snap_rows, entry.snap_time = entry.seq, entry.rows, time.time()
            if old and old != snap:
                try:
                    os.unlink(os.path.join(entry.folder, old))
                except OSError:
                    pass

    def download(self, name):
        entry = self.entry(name)
        tmp = os.path.join(entry.folder, f".download-{secrets.token_hex(4)}.olm")
        with entry.lock:
            if getattr(entry.model, "n_features_in_", None) is None:
                raise ServeError(409, "the model has not learned anything yet")
            entry.model.save(tmp)
        try:
            with open(tmp, "rb") as f:
                return f.read()
        finally:
            os.unlink(tmp)

    def upload(self, name, data):
        """Replace (or create) model ``name`` with an olearn model file, checked as
        ``olearn.load`` checks it."""
        from .. import load
        from ..persistence import ModelFileError
        check_name(name)
        tmp = os.path.join(self.models_dir, f".upload-{secrets.token_hex(6)}.olm")
        with open(tmp, "wb") as f:
            f.write(data)
        try:
            try:
                model = load(tmp)
            except ModelFileError as exc:
                raise ServeError(400, _message(exc).replace(tmp, "the uploaded file")) from None
            except Exception as exc:  # noqa: BLE001 (whatever a crafted file causes)
                raise ServeError(400, f"the uploaded file is not a usable olearn model "
                                      f"({type(exc).__name__})") from None
            if not (hasattr(model, "learn_one") and hasattr(model, "predict")):
                raise ServeError(400, f"{type(model).__name__} does not learn from "
                                      "labelled rows")
            algo = _registered_name(model)
            params = json.loads(json.dumps(model.get_params(deep=False), default=str))
            entry = self.entries.get(name)
            if entry is None or entry.deleted:
                snap = f"snapshot-{0:012d}-{secrets.token_hex(3)}.olm"
                meta = {"algo": algo, "params": params, "seq": 0, "rows": 0,
                        "snapshot": snap, "ids": [], "created": time.time()}
                return self._install(name, meta, tmp)
            with entry.lock:
                entry.model = model
                entry.meta = dict(entry.meta, algo=algo, params=params)
                self._snapshot(entry, force=True)
            return self.describe(entry)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    # ------------------------------------------------------------ background
    def _background(self):
        last = time.monotonic()
        while not self._stop.wait(GROUP_MS / 1000):
            entries = list(self.entries.values())
            if self.policy == "group":
                for e in entries:
                    if not e.deleted:
                        try:
                            e.log.sync_if_dirty()
                        except (OSError, ValueError):
                            pass
            now = time.monotonic()
            if now - last < 0.25:
                continue
            last = now
            for e in entries:
                due = e.rows - e.snap_rows >= self.snapshot_rows or (
                    e.seq > e.snap_seq and time.time() - e.snap_time >= self.snapshot_seconds)
                if due and not e.deleted:
                    try:
                        self._snapshot(e)
                    except Exception:  # noqa: BLE001 (retried at the next tick)
                        pass

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for e in list(self.entries.values()):
            with e.lock:
                if not e.deleted:
                    if self.policy != "none":
                        e.log.sync_if_dirty()
                    e.log.close()


def _plain(values):
    """Numpy scalars as JSON numbers or strings."""
    return [v.item() if hasattr(v, "item") else v for v in values]


def _registered_name(model):
    """The registered name that makes ``model``'s class with its parameters, else the
    class's qualified name."""
    from ..registry import LEARNERS
    cls = type(model)
    where, params = f"{cls.__module__}:{cls.__qualname__}", model.get_params(deep=False)
    for name, (w, defaults) in sorted(LEARNERS.items()):
        if w == where and all(params.get(k) == v for k, v in defaults.items()):
            return name
    return f"{cls.__module__}.{cls.__qualname__}"
