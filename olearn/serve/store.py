"""The served models on disk and in memory: one writer per model, a write-ahead log,
atomic snapshots, recovery.

Layout of the data folder::

    tokens.json                     token hashes (olearn.serve.tokens)
    serve.lock                      held (flock) by the one server of the folder
    models/NAME/meta.json           algo, params, seq, rows and idempotency ids as of
                                    the snapshot, the snapshot's file name, the kept
                                    versions, the rows' pipeline (their shape)
    models/NAME/snapshot-*.olm      the model at that seq (olearn's safe format); the
                                    last ``keep_versions`` are its numbered versions
    models/NAME/log.wal             learn requests after it (olearn.serve.wal)
    trash/NAME@MS-HEX/              a deleted (or replaced) model, whole, kept
                                    ``keep_deleted`` seconds for a restore

A learn request is checked whole and, under the model's lock, given the next ``seq`` and
encoded as its log record before the model changes; then it is applied (a dict row by
``learn_one``, rows of numbers by one ``partial_fit``) and appended to the log; the lock
is released before waiting for the fsync, so that concurrent requests share one.  Any
exception after the model started changing (a label the learner cannot take, a
divergence, a failed write) leaves the model as the log says: it is rebuilt from the
snapshot and the log, which do not hold that request.  So nothing is applied that is not
logged, and an error answer never leaves a changed model.  A prediction takes the same
lock, so it sees every request whole or not at all.

Idempotency: a request's ``id`` is remembered with its seq, its row count, its time and
a hash of its body, for the last ``ids_count`` ids and at most ``ids_seconds`` seconds
(``--idempotency-ids``, ``--idempotency-seconds``); the ids are in ``meta.json`` and in
the log's records, so the window survives restarts.  The same id again with the same
body is answered with its first acknowledgement; with another body, 409.

A model whose files are damaged (see :mod:`.wal` for the log's contract; also an
unreadable ``meta.json``, a snapshot that does not load, a record that cannot be
replayed) is not served: it is listed, every other request on it is a 503 naming the
file, and its files are left as they are for ``olearn serve repair``.  The other models
are served.

A snapshot (every ``snapshot_rows`` rows or ``snapshot_seconds`` seconds, or when
asked) writes the model file (temporary file, fsync, rename), then ``meta.json`` the
same way, fsyncs the folder, and only then empties the log.  On start each model is its
snapshot plus the log's records after the snapshot's seq, replayed through the same
code as a live request; so the recovered model is an offline replay of the acknowledged
requests in seq order.
"""
import collections
import hashlib
import json
import os
import re
import secrets
import shutil
import threading
import time

from .._state import ModelTooLarge
from .body import ServeError, Limits, parse_create, parse_learn, parse_predict
from .shapes import (apply_learn, check_columns, count, is_detector, learned,
                     merge_pipeline, plain, predict_rows, target_of)
from .wal import GROUP_MS, Log, LogDamage, LogFailed, default_io, encode, scan_log

NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")
#: the idempotency window's defaults: the last IDS_COUNT ids, at most IDS_SECONDS old
IDS_COUNT = 100_000
IDS_SECONDS = 24 * 3600.0
#: snapshots kept as numbered versions, and seconds a deleted model is kept in trash/
KEEP_VERSIONS = 5
KEEP_DELETED = 7 * 24 * 3600.0
_TRASH = re.compile(r"(.+)@(\d+)-[0-9a-f]+\Z")
_SNAPSHOT_SEQ = re.compile(r"snapshot-(\d+)-")


class ModelDamage(Exception):
    """A served model's files cannot be trusted: one line naming the file."""


def body_hash(body):
    return hashlib.blake2b(body, digest_size=8).hexdigest()


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
    """``data`` to ``path``: temporary file, fsync, rename, fsync of the folder (a
    failure removes the temporary file)."""
    folder = os.path.dirname(path)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(folder)


def _message(exc, limit=1000):
    """One line, at most ``limit`` characters (cut at a word, marked)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text


class Entry:
    """One served model."""

    def __init__(self, name, folder):
        self.name, self.folder = name, folder
        self.lock = threading.RLock()
        self.deleted = False
        self.unavailable = None  # why the model is not served (damaged files)
        self.ids = collections.OrderedDict()  # id -> (seq, n, log position, time, hash)
        self.ids_count, self.ids_seconds = IDS_COUNT, IDS_SECONDS
        self.model = self.log = None
        self.pipeline = None  # the shape of the rows it reads (see merge_pipeline)
        self.meta = {}
        self.seq = self.rows = 0
        self.snap_seq = self.snap_rows = 0
        self.snap_time = None  # when the current snapshot was written; None: no snapshot
        self.opened = time.time()
        self.replay_seconds, self.replayed = 0.0, 0  # the log's replay at the start
        self.load_seconds = 0.0  # its snapshot's load (the first also imports its code)

    @property
    def meta_path(self):
        return os.path.join(self.folder, "meta.json")

    def remember(self, rid, seq, n, position, when, digest):
        if rid is not None:
            self.ids.pop(rid, None)
            self.ids[rid] = (seq, n, position, when, digest)
            self.forget()

    def forget(self, now=None):
        """The ids beyond the window (by count, then by age) are forgotten."""
        while len(self.ids) > self.ids_count:
            self.ids.popitem(last=False)
        oldest = (time.time() if now is None else now) - self.ids_seconds
        while self.ids:
            when = next(iter(self.ids.values()))[3]
            if when is None or when >= oldest:
                break
            self.ids.popitem(last=False)


class Store:
    """Every model of a data folder (see the module docstring).  Methods are
    synchronous and thread-safe; the app calls them from a thread pool.  ``report``
    receives one line per model that is not served or whose log had a torn tail cut."""

    def __init__(self, data_dir, fsync="always", snapshot_rows=1_000_000,
                 snapshot_seconds=60.0, limits=Limits(), io=None, background=True,
                 ids_count=IDS_COUNT, ids_seconds=IDS_SECONDS, report=None,
                 keep_versions=KEEP_VERSIONS, keep_deleted=KEEP_DELETED):
        self.root = os.path.abspath(data_dir)
        self.models_dir = os.path.join(self.root, "models")
        self.trash_dir = os.path.join(self.root, "trash")
        os.makedirs(self.models_dir, exist_ok=True)
        os.makedirs(self.trash_dir, exist_ok=True)
        self.keep_versions, self.keep_deleted = keep_versions, keep_deleted
        self._purged = 0.0
        self.policy, self.io, self.limits = fsync, io or default_io(), limits
        self.snapshot_rows, self.snapshot_seconds = snapshot_rows, snapshot_seconds
        self.ids_count, self.ids_seconds = ids_count, ids_seconds
        self.report = report or (lambda line: None)
        self.entries = {}
        #: snapshots written, their seconds, and those that failed (for /metrics)
        self.snapshots, self.snapshot_seconds_total, self.snapshot_failures = 0, 0.0, 0
        self._lock = threading.Lock()
        for name in sorted(os.listdir(self.models_dir)):
            path = os.path.join(self.models_dir, name)
            if name.startswith("."):  # a create or delete a crash interrupted
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.isdir(path):
                try:
                    self.entries[name] = self._open(name, path)
                except Exception as exc:  # noqa: BLE001 (one model never stops the others)
                    why = str(exc) if isinstance(exc, ModelDamage) else \
                        f"{path}: {type(exc).__name__}: {_message(exc, 300)}"
                    entry = self.entries[name] = self._entry(name, path)
                    entry.unavailable = why
                    self.report(f"olearn serve: model {name!r} is not served: {why}")
        self.purge()
        self._stop = threading.Event()
        self._thread = None
        if background:
            self._thread = threading.Thread(target=self._background, daemon=True,
                                            name="olearn-serve-store")
            self._thread.start()

    # ------------------------------------------------------------ recovery
    def _entry(self, name, folder):
        entry = Entry(name, folder)
        entry.ids_count, entry.ids_seconds = self.ids_count, self.ids_seconds
        return entry

    def _open(self, name, folder):
        """The model of ``folder``, or :class:`ModelDamage` having changed nothing on disk
        (but for a torn tail of the log, cut once the model is rebuilt)."""
        entry = self._entry(name, folder)
        entry.meta = read_meta(entry.meta_path)
        path = os.path.join(folder, "log.wal")
        began = time.perf_counter()
        scan = check_log(scan_log(path, entry.meta["seq"]), entry.meta, entry.meta_path)
        self._rebuild(entry, scan.records, replaying=path)
        entry.replay_seconds = time.perf_counter() - began - entry.load_seconds
        entry.replayed = sum(1 for r in scan.records if r.seq > entry.meta["seq"])
        entry.snap_time = snapshot_time(entry)
        entry.log = Log(path, self.policy, self.io, scan)
        if scan.torn:
            self.report(f"olearn serve: model {name!r}: {scan.torn}")
        entry.snap_seq, entry.snap_rows = entry.meta["seq"], entry.meta["rows"]
        return entry

    def _rebuild(self, entry, records, position=0, replaying=None):
        """The model as its snapshot plus the log's records after it (``position``: the
        log position that covers them, for ``wait_durable``).  With ``replaying`` (the
        log's path, at a start) a failure is a :class:`ModelDamage` naming the file."""
        from .. import load, make
        meta = entry.meta
        snap = meta.get("snapshot")
        began = time.perf_counter()
        try:
            entry.model = (load(os.path.join(entry.folder, snap)) if snap
                           else make(meta["algo"], **meta["params"]))
            entry.load_seconds = time.perf_counter() - began
        except Exception as exc:  # noqa: BLE001 (whatever a damaged file causes)
            if replaying is None:
                raise
            where = os.path.join(entry.folder, snap) if snap else entry.meta_path
            raise ModelDamage(f"{where}: the model cannot be made from it: "
                              f"{_message(exc, 300)}") from None
        entry.seq, entry.rows = meta["seq"], meta["rows"]
        entry.pipeline = meta.get("pipeline")
        entry.ids.clear()
        now = time.time()
        for item in meta.get("ids", []):
            rid, seq, n = item[:3]
            when, digest = (item[3], item[4]) if len(item) >= 5 else (now, None)
            entry.remember(rid, seq, n, position, when, digest)
        for rec in records:
            seq, rid, body = tuple(rec)[:3]
            if seq <= entry.seq:
                continue  # already in the snapshot (a crash before the log was emptied)
            try:
                req = parse_learn(body, Limits(1 << 62, 1 << 62, 1 << 62),
                                  target_of(entry.model))
                pipeline = merge_pipeline(entry.pipeline, req.pipeline, entry.name)
                apply_learn(entry.model, req)
                entry.pipeline = pipeline
            except Exception as exc:  # noqa: BLE001
                if replaying is None:
                    raise
                offset = getattr(rec, "offset", "?")
                raise ModelDamage(f"{replaying}: byte {offset}, seq {seq}: the record "
                                  f"cannot be replayed: {_message(exc, 300)}") from None
            entry.seq, entry.rows = seq, entry.rows + count(req.X)
            when = getattr(rec, "time", None) or now
            entry.remember(rid, seq, count(req.X), position, when, body_hash(body))

    def _rollback(self, entry):
        """After a request failed once the model started changing: the log recovered if
        a write failed (see ``wal.Log.recover``), then the model as the log says.  When
        the model cannot be rebuilt it is not served until a restart."""
        log = entry.log
        try:
            log.recover()
        except OSError:
            pass  # still broken: learn requests get a 503 until it recovers
        try:
            self._rebuild(entry, log.records(), log.written)
        except Exception as exc:  # noqa: BLE001
            entry.unavailable = (f"{log.path}: the model could not be rebuilt after a "
                                 f"failed request ({_message(exc, 300)}); restart the server")
            self.report(f"olearn serve: model {entry.name!r} is not served: "
                        f"{entry.unavailable}")

    def _recover(self, entry):
        """Under the lock, before a learn request: a broken log recovered (the model
        rebuilt when records were dropped), or a 503."""
        log = entry.log
        if log.broken is None:
            return
        drops = log.drops
        try:
            log.recover()
        except OSError as exc:
            raise ServeError(503, f"the log could not be written ({_message(exc, 200)}); "
                                  "the model acknowledges nothing until a write and an "
                                  "fsync succeed") from None
        finally:
            if log.drops != drops:
                self._rollback(entry)

    # ------------------------------------------------------------ models
    def entry(self, name):
        return live(self.entries.get(name), name)

    def create(self, name, body):
        check_name(name)
        algo, params = parse_create(body)
        pipeline = json.loads(body).get("pipeline")
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
                "ids": [], "created": time.time(), "pipeline": pipeline}
        return self._install(name, meta, None)

    def _install(self, name, meta, model_file):
        """A new model folder, made whole under a hidden name and renamed into place."""
        with self._lock:
            if name in self.entries and not self.entries[name].deleted:
                raise ServeError(409, f"a model named {name!r} exists")
            tmp = os.path.join(self.models_dir, f".new-{name}-{secrets.token_hex(4)}")
            try:
                os.makedirs(tmp)
                if model_file is not None:
                    os.replace(model_file, os.path.join(tmp, meta["snapshot"]))
                write_atomic(os.path.join(tmp, "meta.json"), json.dumps(meta).encode())
            except OSError as exc:
                shutil.rmtree(tmp, ignore_errors=True)
                raise ServeError(503, f"the model could not be written: "
                                      f"{_message(exc, 200)}") from None
            folder = os.path.join(self.models_dir, name)
            os.replace(tmp, folder)
            fsync_dir(self.models_dir)
            entry = self.entries[name] = self._open(name, folder)
        return self.describe(entry)

    def delete(self, name):
        """Model ``name`` moved whole (its snapshot, log, versions) to
        ``trash/NAME@MILLISECONDS-HEX``, kept ``keep_deleted`` seconds for
        :meth:`restore`."""
        with self._lock:
            entry = self.entry(name)
            with entry.lock:
                if self.policy != "none":
                    try:
                        entry.log.sync_if_dirty()
                    except (OSError, ValueError):
                        pass
                entry.deleted = True
                entry.log.close()
                trash = os.path.join(self.trash_dir, f"{name}@{int(time.time() * 1000)}-"
                                                     f"{secrets.token_hex(3)}")
                os.replace(entry.folder, trash)
                fsync_dir(self.models_dir)
                fsync_dir(self.trash_dir)
                del self.entries[name]
        return {"deleted": name, "kept_seconds": self.keep_deleted}

    def trashed(self, name=None):
        """``[(deleted at (s), model name, folder)]`` in trash/, oldest first."""
        out = []
        for item in os.listdir(self.trash_dir):
            m = _TRASH.match(item)
            if m and (name is None or m.group(1) == name):
                out.append((int(m.group(2)) / 1000, m.group(1),
                            os.path.join(self.trash_dir, item)))
        return sorted(out)

    def purge(self, now=None):
        """Deleted models older than ``keep_deleted`` seconds removed from trash/."""
        now = time.time() if now is None else now
        for when, _, folder in self.trashed():
            if now - when > self.keep_deleted:
                shutil.rmtree(folder, ignore_errors=True)

    def restore(self, name):
        """The model ``name`` deleted last, back from trash/ (409 when ``name`` is
        served, 404 when trash/ has none)."""
        check_name(name)
        with self._lock:
            if name in self.entries and not self.entries[name].deleted:
                raise ServeError(409, f"a model named {name!r} exists; delete it first or "
                                      "restore under another name")
            found = self.trashed(name)
            if not found:
                raise ServeError(404, f"no deleted model named {name!r} is kept")
            folder = os.path.join(self.models_dir, name)
            os.replace(found[-1][2], folder)
            fsync_dir(self.trash_dir)
            fsync_dir(self.models_dir)
            try:
                entry = self.entries[name] = self._open(name, folder)
            except Exception as exc:  # noqa: BLE001 (as at a start: listed, not served)
                entry = self.entries[name] = self._entry(name, folder)
                entry.unavailable = str(exc) if isinstance(exc, ModelDamage) else \
                    f"{folder}: {type(exc).__name__}: {_message(exc, 300)}"
                raise ServeError(503, f"model {name!r} is not served: "
                                      f"{entry.unavailable}") from None
        return self.describe(entry)

    def replace(self, name, body):
        """A new model ``name`` (a create's body) in place of the one served, which goes
        to trash/ as a delete sends it (restorable)."""
        check_name(name)
        parse_create(body)  # (checked before anything moves)
        existing = self.entries.get(name)
        if existing is not None and not existing.deleted:
            self.delete(name)
        return self.create(name, body)

    def versions(self, name):
        entry = self.entry(name)
        with entry.lock:
            return {"name": name, "current": entry.meta.get("last_version"),
                    "keep": self.keep_versions,
                    "versions": [{k: v[k] for k in ("version", "seq", "rows", "time",
                                                    "rollback_of") if k in v}
                                 for v in entry.meta.get("versions", [])]}

    def _version(self, entry, version):
        for v in entry.meta.get("versions", []):
            if v["version"] == version:
                return v
        kept = [v["version"] for v in entry.meta.get("versions", [])]
        raise ServeError(404, f"model {entry.name!r} has no version {version} (kept: "
                              f"{', '.join(map(str, kept)) or 'none'})")

    def version_file(self, name, version):
        entry = self.entry(name)
        with entry.lock:
            path = os.path.join(entry.folder, self._version(entry, version)["file"])
            with open(path, "rb") as f:
                return f.read()

    def rollback(self, name, body):
        """The model as version ``v``'s file, written as a new version (``rollback_of``:
        v) by a snapshot: its ``meta.json``, fsynced, is the commit point, so a crash
        before it leaves the model as it was and a crash after it rolled back; the
        log's records (all at or below the snapshot's seq) are skipped by a replay."""
        from .. import load
        try:
            doc = json.loads(body or b"null")
            version = doc["version"]
            if not isinstance(version, int) or isinstance(version, bool):
                raise TypeError
        except (ValueError, TypeError, KeyError):
            raise ServeError(400, 'the body must be {"version": N}') from None
        entry = self.entry(name)
        with entry.lock:
            live(entry, name)
            path = os.path.join(entry.folder, self._version(entry, version)["file"])
            previous = entry.model
            try:
                entry.model = load(path)
                self._write_snapshot(entry, note={"rollback_of": version})
            except Exception as exc:  # noqa: BLE001
                entry.model = previous
                self.snapshot_failures += 1
                raise ServeError(503, f"the rollback could not be written "
                                      f"({_message(exc, 200)}); the model is unchanged"
                                 ) from None
            self.snapshots += 1
        return self.describe(entry)

    def list(self):
        return sorted(n for n, e in self.entries.items() if not e.deleted)

    def describe(self, entry):
        with entry.lock:
            if entry.unavailable is not None:
                raise ServeError(503, f"model {entry.name!r} is not served: "
                                      f"{entry.unavailable}")
            return {"name": entry.name, "algo": entry.meta["algo"],
                    "params": entry.meta["params"], "rows": entry.rows, "seq": entry.seq,
                    "snapshot_seq": entry.snap_seq,
                    "snapshot_age_s": (None if entry.snap_time is None
                                       else round(time.time() - entry.snap_time, 3)),
                    "log_bytes": entry.log.size, "fsync": self.policy,
                    "version": entry.meta.get("last_version"),
                    "pipeline": entry.pipeline, "target": target_of(entry.model)}

    def info(self, name):
        return self.describe(self.entry(name))

    # ------------------------------------------------------------ learn, predict
    def learn(self, name, body, predict=False):
        """Apply a learn (or predict_learn) body; returns the acknowledgement once the
        fsync policy makes it durable."""
        entry = self.entry(name)
        target = target_of(entry.model)
        req = parse_learn(body, self.limits, target)
        digest = body_hash(body) if req.id is not None else None
        out = {}
        with entry.lock:
            live(entry, name)  # (deleted, or found damaged, while we waited)
            if target_of(entry.model) != target:
                raise ServeError(409, f"model {name!r} was replaced by one that takes other "
                                      "rows while the request waited; send it again")
            entry.forget()
            first = entry.ids.get(req.id) if req.id is not None else None
            if first is not None:
                seq, n, position, _, seen = first
                if seen is not None and seen != digest:
                    raise ServeError(409, f"id {req.id!r} was used by another request "
                                          f"(seq {seq}) with a different body")
                out["replayed"] = True
            else:
                self._recover(entry)
                seq, n = entry.seq + 1, count(req.X)
                pipeline = merge_pipeline(entry.pipeline, req.pipeline, name)
                check_columns(pipeline, req.X, req.dicts, name)
                try:  # the record, whole, before the model changes
                    record = encode(seq, req.id, body)
                except UnicodeError:
                    raise ServeError(400, "'id' must be text (it holds a lone "
                                          "surrogate)") from None
                try:
                    made = apply_learn(entry.model, req, predict)
                except Exception as exc:
                    self._rollback(entry)
                    raise ServeError(413 if isinstance(exc, ModelTooLarge) else 400,
                                     _message(exc)) from None
                try:
                    position = entry.log.append(record)
                    entry.seq, entry.rows = seq, entry.rows + n
                    entry.pipeline = pipeline
                    entry.remember(req.id, seq, n, position, time.time(), digest)
                    if predict and isinstance(made, tuple):  # a detector's
                        out["predictions"], out["scores"] = plain(made[0]), plain(made[1])
                    elif predict:
                        out["predictions"] = plain(made)
                except BaseException as exc:
                    self._rollback(entry)
                    if isinstance(exc, OSError):
                        raise ServeError(503, f"the log could not be written "
                                              f"({_message(exc, 200)}); the request is not "
                                              "applied") from None
                    raise
        try:
            entry.log.wait_durable(position)
        except LogFailed as exc:
            with entry.lock:
                if entry.log.broken is not None and entry.unavailable is None:
                    try:
                        self._recover(entry)
                    except ServeError:
                        pass
                if not entry.log.durable(position):
                    raise ServeError(503, f"the log could not be synced "
                                          f"({_message(exc, 200)}); the request is not "
                                          "applied") from None
        return {"acknowledged": n, "seq": seq, **out}

    def predict(self, name, body, wait=True, score=False):
        """The predictions of a predict body; with ``wait=False``, None at once when a
        writer holds the model (the app then asks again from its thread pool); with
        ``score``, only a detector's anomaly scores (``POST .../score``)."""
        entry = self.entry(name)
        req = parse_predict(body, self.limits, target_of(entry.model))
        if score:
            if not is_detector(entry.model):
                raise ServeError(400, f"model {name!r} is not an anomaly detector: it gives "
                                      "no anomaly scores (use /predict)")
            req = req._replace(scores=True, proba=False)
        if not entry.lock.acquire(blocking=wait):
            return None
        try:
            live(entry, name)
            check_columns(entry.pipeline, req.X, req.dicts, name)
            out = predict_rows(entry.model, req)
            return {"scores": out["scores"]} if score else out
        except ServeError:
            raise
        except (ValueError, TypeError, OverflowError) as exc:
            raise ServeError(400, _message(exc)) from None
        finally:
            entry.lock.release()

    # ------------------------------------------------------------ files
    def snapshot(self, name):
        entry = self.entry(name)
        try:
            self._snapshot(entry)
        except OSError as exc:
            raise ServeError(503, f"the snapshot could not be written "
                                  f"({_message(exc, 200)}); the model is kept by its log"
                             ) from None
        return self.describe(entry)

    def _snapshot(self, entry, force=False):
        with entry.lock:
            if entry.deleted or entry.unavailable is not None or (
                    entry.seq == entry.snap_seq and not force):
                return False
            began = time.perf_counter()
            try:
                self._write_snapshot(entry)
            except BaseException:
                self.snapshot_failures += 1
                raise
            self.snapshots += 1
            self.snapshot_seconds_total += time.perf_counter() - began
            return True

    def _write_snapshot(self, entry, note=None):
        """The model as a new numbered version: its file (temp, fsync, rename), then
        ``meta.json`` the same way (the commit point), then the log emptied; versions
        beyond ``keep_versions`` lose their files."""
        with entry.lock:
            old = entry.meta.get("snapshot")
            snap = f"snapshot-{entry.seq:012d}-{secrets.token_hex(3)}.olm"
            entry.model.save(os.path.join(entry.folder, snap))  # temp, fsync, rename
            now = time.time()
            versions = list(entry.meta.get("versions", []))
            number = 1 + max([v["version"] for v in versions] or
                             [entry.meta.get("last_version", 0)])
            versions.append(dict({"version": number, "file": snap, "seq": entry.seq,
                                  "rows": entry.rows, "time": now}, **(note or {})))
            dropped, versions = versions[:-self.keep_versions], versions[-self.keep_versions:]
            meta = dict(entry.meta, seq=entry.seq, rows=entry.rows, snapshot=snap,
                        snapshot_time=now, versions=versions, last_version=number,
                        pipeline=entry.pipeline,
                        ids=[[rid, s, n, when, h]
                             for rid, (s, n, _, when, h) in entry.ids.items()])
            try:
                write_atomic(entry.meta_path, json.dumps(meta).encode())  # fsyncs the folder
            except BaseException:
                _unlink(os.path.join(entry.folder, snap))
                raise
            entry.meta = meta
            entry.snap_seq, entry.snap_rows, entry.snap_time = entry.seq, entry.rows, now
            kept = {v["file"] for v in versions}
            for gone in {old, *(v["file"] for v in dropped)} - kept - {None}:
                _unlink(os.path.join(entry.folder, gone))
            try:
                entry.log.truncate()
            except OSError:
                pass  # the log stays broken, recovered before the next write

    def download(self, name):
        entry = self.entry(name)
        tmp = os.path.join(entry.folder, f".download-{secrets.token_hex(4)}.olm")
        with entry.lock:
            if not learned(entry.model):
                raise ServeError(409, "the model has not learned anything yet")
            try:
                entry.model.save(tmp)
            except OSError as exc:
                raise ServeError(503, f"the model file could not be written "
                                      f"({_message(exc, 200)})") from None
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
        existing = self.entries.get(name)
        if existing is not None and not existing.deleted:
            self.entry(name)  # a damaged model is repaired, not replaced: 503
        tmp = os.path.join(self.models_dir, f".upload-{secrets.token_hex(6)}.olm")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
        except OSError as exc:
            _unlink(tmp)
            raise ServeError(503, f"the upload could not be written "
                                  f"({_message(exc, 200)})") from None
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
                live(entry, name)
                previous = entry.model, entry.meta
                entry.model = model
                entry.meta = dict(entry.meta, algo=algo, params=params)
                try:
                    self._snapshot(entry, force=True)
                except OSError as exc:
                    entry.model, entry.meta = previous
                    raise ServeError(503, f"the model could not be written "
                                          f"({_message(exc, 200)})") from None
            return self.describe(entry)
        finally:
            _unlink(tmp)

    # ------------------------------------------------------------ background
    def _background(self):
        last = time.monotonic()
        while not self._stop.wait(GROUP_MS / 1000):
            entries = [e for e in list(self.entries.values()) if e.unavailable is None]
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
            if now - self._purged > 10:
                self._purged = now
                try:
                    self.purge()
                except OSError:
                    pass
            for e in entries:
                due = e.rows - e.snap_rows >= self.snapshot_rows or (
                    e.seq > e.snap_seq and
                    time.time() - (e.snap_time or e.opened) >= self.snapshot_seconds)
                if due and not e.deleted:
                    try:
                        self._snapshot(e)
                    except Exception:  # noqa: BLE001 (retried at the next tick)
                        pass

    def close(self, snapshot=False):
        """Stop the background thread, sync and close every log.  With ``snapshot``
        (a clean stop) first snapshot every model changed since its last snapshot, so
        that the next start replays nothing; returns ``(saved, failed)``: the names
        (with their seq) snapshotted, and one line per model whose snapshot failed (its
        log still holds it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        saved, failed = [], []
        for name, e in sorted(self.entries.items()):
            with e.lock:
                if e.deleted or e.log is None or e.unavailable is not None:
                    continue
                if snapshot and e.seq > e.snap_seq:
                    try:
                        self._snapshot(e)
                        saved.append(f"{name} at seq {e.seq}")
                    except Exception as exc:  # noqa: BLE001 (the log keeps the model)
                        failed.append(f"{name}: {_message(exc, 200)}")
                try:
                    if self.policy != "none":
                        e.log.sync_if_dirty()
                except (OSError, ValueError) as exc:
                    failed.append(f"{name}: the log could not be synced "
                                  f"({_message(exc, 200)})")
                e.log.close()
        return saved, failed


def live(entry, name):
    """``entry`` when it is served, else the 404 or 503 that says why not."""
    if entry is None or entry.deleted:
        raise ServeError(404, f"no model named {name!r}")
    if entry.unavailable is not None:
        raise ServeError(503, f"model {name!r} is not served: {entry.unavailable}")
    return entry


def snapshot_time(entry):
    """When ``entry``'s snapshot was written (``meta.json``, else the file's time), or
    None when it has none."""
    snap = entry.meta.get("snapshot")
    if not snap:
        return None
    when = entry.meta.get("snapshot_time")
    if isinstance(when, (int, float)):
        return float(when)
    try:
        return os.stat(os.path.join(entry.folder, snap)).st_mtime
    except OSError:
        return None


def read_meta(path):
    """``meta.json``, checked: its fields, and the seq of its snapshot's file name."""
    try:
        with open(path, "rb") as f:
            meta = json.loads(f.read())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
        seq, rows, snap = meta["seq"], meta["rows"], meta.get("snapshot")
        if not (isinstance(seq, int) and isinstance(rows, int) and seq >= 0 and rows >= 0):
            raise ValueError("seq and rows must be integers >= 0")
        if not isinstance(meta.get("algo"), str) or not isinstance(meta.get("params", {}), dict):
            raise ValueError("algo and params are missing")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelDamage(f"{path}: unreadable ({_message(exc, 200)})") from None
    if snap is None:
        if seq or rows:
            raise ModelDamage(f"{path}: seq {seq} and {rows} rows, but no snapshot")
    else:
        m = _SNAPSHOT_SEQ.match(str(snap))
        if m is None or os.path.basename(snap) != snap:
            raise ModelDamage(f"{path}: snapshot {snap!r} is not a snapshot's file name")
        if int(m.group(1)) != seq:
            raise ModelDamage(f"{path}: seq {seq}, but its snapshot {snap} holds seq "
                              f"{int(m.group(1))}")
    return meta


def check_log(scan, meta, meta_path):
    """``scan`` when the log is whole and agrees with the snapshot (``meta``), else
    :class:`ModelDamage` naming the file, the byte offset and the seq."""
    if scan.damage is not None:
        raise ModelDamage(str(scan.damage))
    snap_seq = meta["seq"]
    if scan.records:
        first, last = scan.records[0], scan.records[-1]
        if first.seq > snap_seq + 1:
            raise ModelDamage(f"{scan.path}: damaged at byte 0 (seq {first.seq}): the "
                              f"log starts at seq {first.seq} but the snapshot "
                              f"({meta_path}) ends at seq {snap_seq}: seqs "
                              f"{snap_seq + 1}..{first.seq - 1} are missing")
        if last.seq < snap_seq:
            raise ModelDamage(f"{meta_path}: seq {snap_seq} is ahead of its log "
                              f"({scan.path} ends at byte {last.end} with seq {last.seq})")
    return scan


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


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
