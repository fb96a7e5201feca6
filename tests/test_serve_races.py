"""Issue 45 item 6, the races: DELETE, PUT (create and replace), uploads, restores,
rollbacks and snapshots of models racing four learners on the same names, against a
real ``olearn serve``: never a 5xx, the server alive, and after a kill -9 every model
served again.  ``race`` is also what ``benchmarks/serve_races.py`` runs at 5,000
requests."""
import collections
import random
import threading

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import olearn  # noqa: E402
from olearn.client import Client, ServerError  # noqa: E402
from serve_support import Server  # noqa: E402

NAMES = ("r0", "r1", "r2")
ROWS = [{"a": 1.0, "b": -0.5}, {"a": -1.0, "c": 2.0}, {"b": 1.5}]
LABELS = [1, -1, 1]


def model_file(tmp_path):
    path = tmp_path / "up.olm"
    m = olearn.make("pa1")
    for x, y in zip(ROWS, LABELS):
        m.learn_one(x, y)
    m.save(path)
    return path.read_bytes()


def race(srv, admin_requests, tmp_path, seed=0):
    """``admin_requests`` admin calls at random on NAMES while four learners learn and
    predict on them; returns ``Counter((kind, status))`` of every answer."""
    upload = model_file(tmp_path)
    statuses = collections.Counter()
    lock, stop = threading.Lock(), threading.Event()

    def note(kind, status):
        with lock:
            statuses[(kind, status)] += 1

    def learner(i):
        c = Client(srv.url, srv.token, retries=0, timeout=60)
        rng = random.Random(seed * 100 + i)
        while not stop.is_set():
            name = rng.choice(NAMES)
            try:
                if rng.random() < 0.7:
                    c.learn(name, ROWS, LABELS)
                    note("learn", 200)
                else:
                    c.predict(name, ROWS[:1])
                    note("predict", 200)
            except ServerError as exc:
                note("learn/predict", exc.status)
                if exc.status >= 500:
                    note(f"learn/predict: {exc.message}", exc.status)

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    rng = random.Random(seed)
    c = Client(srv.url, srv.token, retries=0, timeout=60)
    for _ in range(admin_requests):
        name, pick = rng.choice(NAMES), rng.random()
        kind = ("delete" if pick < 0.2 else "create" if pick < 0.35 else
                "replace" if pick < 0.5 else "upload" if pick < 0.65 else
                "restore" if pick < 0.75 else "rollback" if pick < 0.85 else "snapshot")
        try:
            if kind == "delete":
                c.delete(name)
            elif kind == "create":
                c.create(name, "pa1")
            elif kind == "replace":
                c.create(name, rng.choice(["pa1", "arow"]), replace=True)
            elif kind == "upload":
                c.upload(name, upload)
            elif kind == "restore":
                c.restore(name)
            elif kind == "rollback":
                c.rollback(name, 1)
            else:
                c.snapshot(name)
            note(kind, 200)
        except ServerError as exc:
            note(kind, exc.status)
            if exc.status >= 500:
                note(f"{kind}: {exc.message}", exc.status)
    stop.set()
    for t in threads:
        t.join()
    return statuses


def test_admin_calls_racing_four_learners_never_answer_5xx(tmp_path):
    srv = Server(tmp_path / "d", "--keep-versions", "3")
    statuses = race(srv, 300, tmp_path)
    errors = {k: v for k, v in statuses.items() if k[1] >= 500}
    assert not errors, statuses
    assert srv.proc.poll() is None
    assert sum(v for (kind, s), v in statuses.items() if kind == "learn" and s == 200) > 0
    c = Client(srv.url, srv.token)
    served = c.models()
    srv.kill9()
    srv.start()
    c = Client(srv.url, srv.token)
    assert c.models() == served
    for name in served:
        assert c.info(name)["name"] == name  # served, not 503
    srv.stop()


def test_a_client_that_disconnects_is_one_access_log_line(tmp_path):
    """A body cut by its client: no traceback, no 500, one access-log line (499, as
    nginx logs a client that closed its request), nothing learned."""
    import socket
    import time
    log = tmp_path / "access.log"
    srv = Server(tmp_path / "d", "--access-log", str(log))
    c = Client(srv.url, srv.token)
    c.create("m", "pa1")
    body = b'{"rows": [{"x": [1.0], "y": 1}]}'
    for path, data in (("/models/m/learn", body[:-5]), ("/models/m/predict", b"")):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {srv.token}"
                  f"\r\nContent-Length: {len(body)}\r\n\r\n".encode() + data)
        time.sleep(0.3)
        s.close()
    time.sleep(0.5)
    assert c.info("m")["rows"] == 0
    import signal
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(30) == 0
    err = srv.proc.stderr.read()
    srv.proc.stdout.close()
    srv.proc.stderr.close()
    assert "Traceback" not in err, err
    lines = log.read_text().splitlines()
    cut = [line for line in lines if " POST " in line]
    assert len(cut) == 2 and all(" 499 " in line for line in cut), lines
