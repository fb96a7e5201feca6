"""The log's contract (olearn.serve.wal, written in its docstring): a torn tail is cut;
any other damage (a flipped byte, a seq that repeats, goes back or jumps, a snapshot
ahead of its log, a record that cannot be replayed) refuses that model's start in one
line naming the file, the byte offset and the seq, changes nothing on disk, and leaves
the other models served; ``olearn serve repair`` keeps the good prefix or every record
whose CRC holds, keeping the damaged file aside.  A failed write or fsync (a test hook,
``OLEARN_TEST_FAULTS``, in a real server process; a real full tmpfs where the user may
mount one) is cut back and answered 503, and nothing acknowledged is lost across kill
-9.  Nothing is applied that is not logged (a lone surrogate in an id), and the
idempotency window is a setting kept across restarts."""
import bisect
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import uuid

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import olearn  # noqa: E402
from olearn.client import Client, ServerError  # noqa: E402
from olearn.io.dicts import dicts_to_csr  # noqa: E402
from olearn.serve import wal  # noqa: E402
from olearn.serve.repair import plan, repair  # noqa: E402
from olearn.serve.store import Store, read_meta  # noqa: E402
from serve_support import Server  # noqa: E402

NAMES = [f"f{j}" for j in range(12)]
RECORDS = 40


def body_of(rng, rid=None, n=3):
    doc = {"rows": [{"x": {k: round(rng.uniform(-1, 1), 3)
                           for k in rng.sample(NAMES, rng.randint(1, 4))},
                     "y": rng.choice([-1, 1])} for _ in range(n)]}
    if rid is not None:
        doc["id"] = rid
    return json.dumps(doc).encode()


def build(root, name, records=RECORDS, seed=0, algo="pa1"):
    """A model folder whose log holds ``records`` requests (made by the store itself);
    returns the log's path and the request bodies in seq order."""
    store = Store(root, "always", background=False)
    store.create(name, json.dumps({"algo": algo}).encode())
    rng, bodies = random.Random(seed), []
    for i in range(records):
        bodies.append(body_of(rng, f"{name}-{i}"))
        assert store.learn(name, bodies[-1])["seq"] == i + 1
    store.close()
    return os.path.join(root, "models", name, "log.wal"), bodies


def replayed(bodies, algo="pa1"):
    model = olearn.make(algo)
    for body in bodies:
        for row in json.loads(body)["rows"]:
            model.learn_one(row["x"], row["y"])
    return model


PROBE = [{k: 0.5 for k in NAMES[j:j + 3]} for j in range(0, 10, 2)]


def scores(model):
    return model.decision_function(dicts_to_csr(PROBE, model.vocabulary_, grow=False)).tolist()


def flipped(data, pos, mask=0xFF):
    b = bytearray(data)
    b[pos] ^= mask
    return bytes(b)


@pytest.fixture(scope="module")
def log40(tmp_path_factory):
    root = tmp_path_factory.mktemp("log40")
    path, bodies = build(root, "m")
    with open(path, "rb") as f:
        data = f.read()
    return root, path, data, bodies


# ------------------------------------------------------------------ the reader
def check_flip(path, data, pos, mask, offsets):
    """A flip at ``pos`` is damage at the start of the record that holds it, and the
    salvage finds every other record whole."""
    bad = flipped(data, pos, mask)
    s = wal.scan(path, bad)
    k = bisect.bisect_right(offsets, pos) - 1
    assert s.torn is None and s.damage is not None, (pos, mask, s.torn)
    assert s.damage.offset == offsets[k], (pos, mask, s.damage)
    assert len(s.records) == k
    line = str(s.damage)
    assert "\n" not in line and path in line and f"byte {offsets[k]}" in line
    assert f"after seq {k}" in line or (k == 0 and "no seq read" in line)
    found, skipped = wal.salvage(bad)
    assert [r.seq for r in found] == [j + 1 for j in range(RECORDS) if j != k], (pos, mask)
    assert len(skipped) == 1 and skipped[0][0] == offsets[k]


def test_every_flip_in_a_40_record_log_is_damage_at_its_record(log40):
    """Each of the log's bytes flipped (xor 0xFF): refused at the record that holds it,
    never taken for a torn tail (which would lose an acknowledged record), and every
    other record found whole by the salvage."""
    _, path, data, _ = log40
    offsets = [r.offset for r in wal.scan(path, data).records]
    assert len(offsets) == RECORDS
    for pos in range(len(data)):
        check_flip(path, data, pos, 0xFF, offsets)


@pytest.mark.full
def test_every_flip_with_other_masks(log40):
    _, path, data, _ = log40
    offsets = [r.offset for r in wal.scan(path, data).records]
    for mask in (0x01, 0x80, 0x5A):
        for pos in range(len(data)):
            check_flip(path, data, pos, mask, offsets)


def test_a_log_cut_anywhere_is_a_torn_tail(log40):
    """A crash can cut the last write anywhere: every prefix of the file is the whole
    records before the cut and a torn tail, never damage; so are zeros where a power
    loss left the last record's sectors unwritten."""
    _, path, data, _ = log40
    records = wal.scan(path, data).records
    ends = [r.end for r in records]
    for cut in range(len(data)):
        s = wal.scan(path, data[:cut])
        assert s.damage is None, (cut, s.damage)
        assert len(s.records) == bisect.bisect_right(ends, cut)
        assert (s.torn is None) == (cut == 0 or cut in ends), cut
    last = records[-1]
    for start in [last.offset, *range((last.offset // 512 + 1) * 512, last.end, 512)]:
        z = data[:start] + bytes(last.end - start)
        s = wal.scan(path, z)
        assert s.damage is None and s.torn and len(s.records) == RECORDS - 1


def test_seqs_must_follow_each_other(tmp_path):
    """CRC-valid records whose seq repeats, goes back or jumps are damage, at the
    offending record, with its seq."""
    rng = random.Random(3)
    bodies = [body_of(rng) for _ in range(6)]
    path = str(tmp_path / "log.wal")
    for seqs, what in (([1, 2, 3, 3, 4, 5], "repeats"), ([1, 2, 3, 2, 4, 5], "goes back"),
                       ([1, 2, 3, 104, 105, 106], "jumps (100 missing)"),
                       ([0, 1, 2, 3, 4, 5], "seqs start at 1")):
        data = b"".join(wal.encode(s, None, b) for s, b in zip(seqs, bodies))
        s = wal.scan(path, data)
        offset = sum(len(wal.encode(q, None, b)) for q, b in zip(seqs[:3], bodies))
        if seqs[0] == 0:
            offset = 0
        assert s.damage is not None and what in str(s.damage), (seqs, s.damage)
        assert s.damage.offset == offset and len(s.records) == (3 if offset else 0)


def test_a_start_refuses_damage_and_serves_the_rest_in_process(tmp_path):
    """The store's start: a damaged model is not served (503 naming file, byte, seq),
    its files unchanged; the others are; a torn tail is cut and said."""
    root = tmp_path
    path, bodies = build(root, "bad")
    good_path, good = build(root, "good", 5, seed=1)
    torn_path, torn_bodies = build(root, "torn", 5, seed=2)
    with open(path, "rb") as f:
        data = f.read()
    records = wal.scan(path, data).records
    with open(path, "wb") as f:
        f.write(flipped(data, records[20].offset + 30))
    with open(torn_path, "ab") as f:
        f.write(wal.encode(6, "x", b'{"rows": [{"x": {"a": 1}, "y": 1}]}')[:25])
    lines = []
    store = Store(root, "none", background=False, report=lines.append)
    assert store.list() == ["bad", "good", "torn"]
    assert len(lines) == 2
    bad_line = next(line for line in lines if "'bad'" in line)
    assert path in bad_line and f"byte {records[20].offset}" in bad_line \
        and "after seq 20" in bad_line
    assert "cut a torn tail of 25 bytes" in next(line for line in lines if "'torn'" in line)
    with open(path, "rb") as f:
        assert f.read() == flipped(data, records[20].offset + 30)  # moved nothing
    from olearn.serve.body import ServeError
    for call in (lambda: store.info("bad"), lambda: store.learn("bad", bodies[0]),
                 lambda: store.snapshot("bad"), lambda: store.delete("bad"),
                 lambda: store.predict("bad", b'{"rows": [{"a": 1}]}'),
                 lambda: store.upload("bad", b"x")):
        with pytest.raises(ServeError) as err:
            call()
        assert err.value.status == 503 and "byte" in err.value.message
    assert scores(store.entry("good").model) == scores(replayed(good))
    assert store.info("torn")["seq"] == 5
    store.close()


def test_snapshot_and_log_must_agree(tmp_path):
    path, bodies = build(tmp_path, "m", 6)
    meta_path = os.path.join(tmp_path, "models", "m", "meta.json")
    meta = read_meta(meta_path)
    for change, words in (({"seq": 50, "rows": 150}, "but no snapshot"),):
        with open(meta_path, "w") as f:
            json.dump({**meta, **change}, f)
        store = Store(tmp_path, "none", background=False, report=lambda line: None)
        assert words in store.entries["m"].unavailable and meta_path in \
            store.entries["m"].unavailable
        store.close()
    # a real snapshot at seq 6, then a log that stops short of it (seq 1..4)
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    store = Store(tmp_path, "none", background=False)
    store.snapshot("m")
    store.close()
    with open(path, "wb") as f:
        f.write(b"".join(wal.encode(s, None, b) for s, b in zip(range(1, 5), bodies)))
    store = Store(tmp_path, "none", background=False, report=lambda line: None)
    why = store.entries["m"].unavailable
    assert "seq 6 is ahead of its log" in why and "seq 4" in why and path in why
    store.close()
    # the snapshot's file name says its seq: meta.json moved ahead is refused
    meta = read_meta(meta_path)
    with open(path, "wb") as f:
        f.write(b"")
    with open(meta_path, "w") as f:
        json.dump({**meta, "seq": 9}, f)
    store = Store(tmp_path, "none", background=False, report=lambda line: None)
    assert "seq 9, but its snapshot" in store.entries["m"].unavailable
    store.close()
    # a log that starts above the snapshot's seq + 1
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    with open(path, "wb") as f:
        f.write(wal.encode(9, None, bodies[0]))
    store = Store(tmp_path, "none", background=False, report=lambda line: None)
    assert "seqs 7..8 are missing" in store.entries["m"].unavailable
    store.close()


@pytest.mark.full
def test_every_flip_refuses_the_start_and_repair_keeps_every_whole_record(log40, tmp_path):
    """The start itself (Store) over every flip position: refused naming the file and
    the offset of the damaged record; ``repair --keep valid`` (in process) then keeps
    every other record and the model equals their offline replay."""
    root, path, data, bodies = log40
    offsets = [r.offset for r in wal.scan(path, data).records]
    folder = tmp_path / "d"
    shutil.copytree(root, folder)
    log = folder / "models" / "m" / "log.wal"
    for pos in range(len(data)):
        k = bisect.bisect_right(offsets, pos) - 1
        log.write_bytes(flipped(data, pos))
        store = Store(folder, "none", background=False, report=lambda line: None)
        why = store.entries["m"].unavailable
        store.close()
        assert why and str(log) in why and f"byte {offsets[k]}" in why, (pos, why)
        meta = read_meta(str(folder / "models" / "m" / "meta.json"))
        kept, _ = plan(str(folder / "models" / "m"), meta, flipped(data, pos), str(log),
                       "valid")
        assert [r.seq for r in kept] == [j + 1 for j in range(RECORDS) if j != k]


# ------------------------------------------------------------------ a real server
def damaged_folder(root):
    """Models: four with a flipped byte (at 10, 50, 90 % and in the first length field),
    one whose meta.json seq was moved ahead, one with a repeated seq, one whose record
    cannot be replayed, and a good one."""
    flips = {}
    for name, where in (("at10", 0.1), ("at50", 0.5), ("at90", 0.9), ("len0", 0.0)):
        path, bodies = build(root, name)
        with open(path, "rb") as f:
            data = f.read()
        pos = int(len(data) * where)
        with open(path, "wb") as f:
            f.write(flipped(data, pos))
        flips[name] = (path, data, pos, bodies)
    build(root, "ahead", 5, seed=4)
    meta_path = os.path.join(root, "models", "ahead", "meta.json")
    meta = read_meta(meta_path)
    with open(meta_path, "w") as f:
        json.dump({**meta, "seq": 3, "rows": 9}, f)
    path, bodies = build(root, "again", 4, seed=5)
    with open(path, "ab") as f:
        f.write(wal.encode(4, None, bodies[0]))
    path, _ = build(root, "mixed", 3, seed=6)
    with open(path, "ab") as f:  # a CRC-valid record whose label the model refuses
        f.write(wal.encode(4, None, b'{"rows": [{"x": {"a": 1}, "y": "spam"}]}'))
    _, good = build(root, "good", 5, seed=7)
    return flips, good


def test_a_real_start_refuses_damaged_models_and_repair_recovers(tmp_path):
    flips, good = damaged_folder(tmp_path)
    before = {p: open(p, "rb").read() for p, *_ in flips.values()}
    srv = Server(tmp_path)
    try:
        c = Client(srv.url, srv.token)
        assert c.models() == sorted([*flips, "ahead", "again", "mixed", "good"])
        assert scores(replayed(good)) == c.predict("good", PROBE, scores=True)["scores"]
        for name in [*flips, "ahead", "again", "mixed"]:
            status, out = srv.call("GET", f"/models/{name}", token=srv.token)
            assert status == 503 and "\n" not in out["error"], (name, out)
            assert "byte" in out["error"] or "meta.json" in out["error"], out
            assert "seq" in out["error"], out
        for name, (path, data, pos, bodies) in flips.items():
            status, out = srv.call("GET", f"/models/{name}", token=srv.token)
            offsets = [r.offset for r in wal.scan(path, data).records]
            k = bisect.bisect_right(offsets, pos) - 1
            assert path in out["error"] and f"byte {offsets[k]}" in out["error"], out
        assert "class labels" in srv.call("GET", "/models/mixed", token=srv.token)[1]["error"] \
            or "label" in srv.call("GET", "/models/mixed", token=srv.token)[1]["error"]
        assert "repeats" in srv.call("GET", "/models/again", token=srv.token)[1]["error"]
        # the damaged files are as they were
        assert {p: open(p, "rb").read() for p in before} == before
        # repair: diagnosis first (nothing changes), then each choice
        code, out = srv.cli("repair", "--model", "at50")
        assert code == 1 and "--keep prefix: would keep 20 records" in out \
            and "--keep valid: would keep 39 records" in out
        assert {p: open(p, "rb").read() for p in before} == before
        kept = {}
        for name, keep in (("at10", "valid"), ("at50", "prefix"), ("at90", "valid"),
                           ("len0", "valid"), ("again", "prefix"), ("mixed", "valid")):
            code, out = srv.cli("repair", "--model", name, "--keep", keep)
            assert code == 0 and "the damaged file is kept as" in out, out
            kept[name] = out
        assert "kept 39 records" in kept["at10"] and "renumbered" in kept["at10"]
        assert "kept 20 records" in kept["at50"] and "kept 39 records" in kept["len0"]
        assert "cannot be replayed" in kept["mixed"] and "kept 3 records" in kept["mixed"]
        for name, (path, data, pos, _) in flips.items():
            aside = [f for f in os.listdir(os.path.dirname(path)) if ".damaged-" in f]
            assert len(aside) == 1
            assert open(os.path.join(os.path.dirname(path), aside[0]), "rb").read() == \
                flipped(data, pos)
        code, out = srv.cli("repair", "--model", "ahead")  # meta.json: left to a person
        assert code == 2
        srv.proc.send_signal(signal.SIGTERM)
        srv.proc.wait(60)
        lines = [line for line in srv.proc.stderr.read().splitlines() if "not served" in line]
        assert len(lines) == 7 and all("byte" in line or "meta.json" in line for line in lines)
        srv.stop()
        srv.start()
        c = Client(srv.url, srv.token)
        for name, (path, data, pos, bodies) in flips.items():
            offsets = [r.offset for r in wal.scan(path, data).records]
            k = bisect.bisect_right(offsets, pos) - 1
            keep = bodies[:k] if name == "at50" else bodies[:k] + bodies[k + 1:]
            info = c.info(name)
            assert (info["seq"], info["rows"]) == (len(keep), 3 * len(keep)), name
            assert c.predict(name, PROBE, scores=True)["scores"] == scores(replayed(keep))
        assert c.info("again")["seq"] == 4 and c.info("mixed")["seq"] == 3
        assert srv.call("GET", "/models/ahead", token=srv.token)[0] == 503
    finally:
        srv.stop()


# ------------------------------------------------------------------ failed writes
class Ledger:
    def __init__(self):
        self.acked = {}  # seq -> body

    def bodies(self):
        return [self.acked[s] for s in sorted(self.acked)]


def learn_raw(srv, body):
    return srv.call("POST", "/models/m/learn", body, token=srv.token)


@pytest.mark.parametrize("fsync", ["always", "group"])
def test_failed_writes_and_fsyncs_are_cut_back_and_lose_nothing(tmp_path, monkeypatch, fsync):
    """Through the test hook (OLEARN_TEST_FAULTS, read at the server's start): a write
    that fails half-way, an fsync that fails, a truncate that fails.  Each request is a
    503 and leaves the model as it was; once writes work again the seqs follow each
    other; after kill -9 every acknowledged request is there and the log is whole."""
    control = tmp_path / "faults"
    monkeypatch.setenv("OLEARN_TEST_FAULTS", str(control))
    srv = Server(tmp_path / "d", "--snapshot-seconds", "3600", fsync=fsync)
    rng, ledger, refused = random.Random(9), Ledger(), []
    try:
        c = Client(srv.url, srv.token)
        c.create("m", "pa1")

        def learn_some(k):
            for _ in range(k):
                body = body_of(rng, uuid.uuid4().hex)
                status, out = learn_raw(srv, body)
                assert status == 200, out
                ledger.acked[out["seq"]] = body

        learn_some(10)
        for faults in ("write", "fsync", "write eio", "fsync truncate", "write truncate"):
            before = c.predict("m", PROBE, scores=True)["scores"], c.info("m")["seq"]
            control.write_text(faults)
            for _ in range(3):
                body = body_of(rng, uuid.uuid4().hex)
                status, out = learn_raw(srv, body)
                if fsync == "group" and status == 200:  # acknowledged once written
                    ledger.acked[out["seq"]] = body
                    continue
                assert status == 503 and "\n" not in out["error"], (faults, status, out)
                refused.append(body)
            if fsync == "always":
                assert (c.predict("m", PROBE, scores=True)["scores"], c.info("m")["seq"]) \
                    == before, faults
            control.unlink()
            learn_some(3)
            assert sorted(ledger.acked) == list(range(1, len(ledger.acked) + 1))
        # a refused request was not applied: sent again, it is learned (not "replayed")
        status, out = learn_raw(srv, refused[0])
        assert status == 200 and "replayed" not in out
        ledger.acked[out["seq"]] = refused[0]
        srv.kill9()
        srv.start()
        c = Client(srv.url, srv.token)
        info = c.info("m")
        assert info["seq"] == len(ledger.acked) == max(ledger.acked)
        assert c.predict("m", PROBE, scores=True)["scores"] == scores(replayed(ledger.bodies()))
        s = wal.scan_log(os.path.join(srv.data_dir, "models", "m", "log.wal"))
        assert s.damage is None and s.torn is None
    finally:
        srv.stop()


def test_a_lone_surrogate_changes_nothing(tmp_path):
    """An id (or a label, or a feature name) holding a lone surrogate is valid JSON but
    not text: a 400 before the model changes, and nothing after a restart."""
    srv = Server(tmp_path)
    try:
        c = Client(srv.url, srv.token)
        c.create("m", "pa1")
        rng = random.Random(1)
        bodies = [body_of(rng, f"r{i}") for i in range(3)]
        for b in bodies:
            assert learn_raw(srv, b)[0] == 200
        before = c.predict("m", PROBE, scores=True)["scores"]
        for body in (b'{"rows": [{"x": {"f1": 5}, "y": -1}], "id": "\\udc80"}',
                     b'{"rows": [{"x": {"f1": 5}, "y": "\\ud800"}]}',
                     b'{"rows": [{"x": {"\\udfff": 5}, "y": 1}]}'):
            for path in ("/models/m/learn", "/models/m/predict_learn"):
                status, out = srv.call("POST", path, body, token=srv.token)
                assert status == 400 and "surrogate" in out["error"], out
        assert c.predict("m", PROBE, scores=True)["scores"] == before
        assert c.info("m")["seq"] == 3
        c.snapshot("m")
        srv.kill9()
        srv.start()
        c = Client(srv.url, srv.token)
        assert c.predict("m", PROBE, scores=True)["scores"] == before == \
            scores(replayed(bodies))
    finally:
        srv.stop()


def test_the_idempotency_window_by_count_and_age_across_restarts(tmp_path):
    """The last 3 ids (--idempotency-ids) are remembered, also after a restart (from
    the log, then from meta.json); the same id with another body is a 409."""
    srv = Server(tmp_path, "--idempotency-ids", "3", "--idempotency-seconds", "600")
    try:
        c = Client(srv.url, srv.token)
        c.create("m", "pa1")
        rng = random.Random(2)
        bodies = {rid: body_of(rng, rid) for rid in "abcd"}
        for rid in "abcd":
            assert learn_raw(srv, bodies[rid])[1]["seq"] == "abcd".index(rid) + 1
        status, out = learn_raw(srv, bodies["a"])  # 4 ids later: beyond a window of 3
        assert status == 200 and out["seq"] == 5 and "replayed" not in out
        srv.kill9()
        srv.start()  # the window is rebuilt from the log
        assert learn_raw(srv, bodies["d"])[1] == {"acknowledged": 3, "seq": 4, "replayed": True}
        status, out = learn_raw(srv, body_of(rng, "d"))
        assert status == 409 and "'d'" in out["error"]
        Client(srv.url, srv.token).snapshot("m")
        srv.kill9()
        srv.start()  # ... and from meta.json after a snapshot
        assert learn_raw(srv, bodies["d"])[1]["replayed"] is True
        assert learn_raw(srv, body_of(rng, "d"))[0] == 409
    finally:
        srv.stop()


def test_the_idempotency_window_by_age(tmp_path, monkeypatch):
    """An id older than the window's age (--idempotency-seconds) is forgotten, also in
    a store reopened from the files (the record's time is in the log).  The clock is
    the test's."""
    import time
    clock = [1_700_000_000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    store = Store(tmp_path, "none", background=False, ids_seconds=100.0)
    store.create("m", b'{"algo": "pa1"}')
    rng = random.Random(4)
    old, new = body_of(rng, "old"), body_of(rng, "new")
    assert store.learn("m", old)["seq"] == 1
    clock[0] += 60
    assert store.learn("m", new)["seq"] == 2
    store.close()
    store = Store(tmp_path, "none", background=False, ids_seconds=100.0)
    assert store.learn("m", old)["replayed"] and store.learn("m", new)["replayed"]
    clock[0] += 50  # "old" is 110 s old, "new" 50 s
    assert store.learn("m", old) == {"acknowledged": 3, "seq": 3}
    assert store.learn("m", new)["replayed"]
    store.close()


# ------------------------------------------------------------------ a real full disk
def mount_tmpfs(folder, size="3m"):
    folder.mkdir()
    try:
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(folder)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount a tmpfs ({exc}): the simulated write errors above "
                    "cover the same code")
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs ({proc.stderr.strip() or proc.returncode}): "
                    "the simulated write errors above cover the same code")


def fill(folder):
    """Fill the disk: a file grown until ENOSPC; returns its path."""
    path = folder / "filler"
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    return path


def disk_full_cycles(tmp_path, cycles, fsync="always"):
    disk = tmp_path / "disk"
    mount_tmpfs(disk)
    srv = None
    try:
        srv = Server(disk / "d", "--snapshot-seconds", "3600", "--snapshot-rows", "10000000",
                     fsync=fsync)
        c = Client(srv.url, srv.token)
        c.create("m", "pa1")
        ledger, lock, rng = Ledger(), threading.Lock(), random.Random(11)
        stats = {"refused": 0, "snapshot_503": 0}
        for cycle in range(cycles):
            filler = fill(disk)
            os.truncate(filler, max(0, os.path.getsize(filler) - 60_000))  # ~60 KB left

            def writer(i):
                r = random.Random(f"{cycle}-{i}")
                failures = 0
                while failures < 8:
                    body = body_of(r, uuid.uuid4().hex, n=6)
                    status, out = learn_raw(srv, body)
                    if status == 200:
                        with lock:
                            ledger.acked[out["seq"]] = body
                    else:
                        assert status == 503 and "\n" not in out["error"], out
                        failures += 1
                        with lock:
                            stats["refused"] += 1

            threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            status, out = srv.call("POST", "/models/m/snapshot", token=srv.token)
            assert status in (200, 503), out
            if status == 503:
                stats["snapshot_503"] += 1
                assert "snapshot" in out["error"] and "\n" not in out["error"]
            os.unlink(filler)
            for _ in range(3):  # space again: acknowledged again
                body = body_of(rng, uuid.uuid4().hex)
                status, out = learn_raw(srv, body)
                assert status == 200, out
                ledger.acked[out["seq"]] = body
            srv.kill9()
            srv.start()
            info = Client(srv.url, srv.token).info("m")
            assert info["seq"] == max(ledger.acked) == len(ledger.acked), (cycle, info)
            assert info["rows"] == sum(len(json.loads(b)["rows"]) for b in ledger.bodies())
            assert Client(srv.url, srv.token).predict("m", PROBE, scores=True)["scores"] \
                == scores(replayed(ledger.bodies()))
            if status == 200 and cycle % 2:
                Client(srv.url, srv.token).snapshot("m")  # the log emptied now and then
        stats["acknowledged"], stats["cycles"] = len(ledger.acked), cycles
        return stats
    finally:
        if srv is not None:
            srv.stop()
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=60)


@pytest.mark.parametrize("fsync", ["always", "group"])
def test_a_full_disk_loses_nothing_acknowledged(tmp_path, fsync):
    """A 3 MB tmpfs filled while three writers learn: 503s (never 500), the snapshot a
    503 too, and after kill -9 every acknowledged request is there, once."""
    stats = disk_full_cycles(tmp_path, 2, fsync)
    assert stats["refused"] >= 6 and stats["snapshot_503"] >= 1, stats


@pytest.mark.full
def test_a_full_disk_over_20_restarts(tmp_path):
    stats = disk_full_cycles(tmp_path, 20)
    assert stats["refused"] >= 60, stats
