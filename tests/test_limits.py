"""Issue 45 item 4, bounded resources: a learner's state is sized from its declaration
and checked against a limit before anything is allocated (the library's
``olearn.set_max_model_bytes``, ``olearn serve --max-model-bytes``: a 413 that changes
nothing), and the bodies a server holds at once are capped (``--max-inflight-bytes``:
a 503 that clients retry)."""
import json
import socket

import numpy as np
import pytest

import olearn
from olearn._state import ModelTooLarge


@pytest.fixture
def limit():
    yield olearn.set_max_model_bytes
    olearn.set_max_model_bytes(None)


def test_the_default_limit_is_the_machines_memory(monkeypatch):
    assert olearn.max_model_bytes() > 1 << 28
    monkeypatch.setenv("OLEARN_MAX_MODEL_BYTES", "123456")
    assert olearn.max_model_bytes() == 123456
    monkeypatch.setenv("OLEARN_MAX_MODEL_BYTES", "lots")
    with pytest.raises(ValueError, match="OLEARN_MAX_MODEL_BYTES"):
        olearn.max_model_bytes()
    for bad in (0, -5, 1.5, True, "10"):
        with pytest.raises(ValueError, match="positive number of bytes"):
            olearn.set_max_model_bytes(bad)


@pytest.mark.parametrize("algo", ["pa1", "arow", "ogd", "kmeans"])
def test_a_state_past_the_limit_is_refused_before_allocation(limit, algo, tmp_path):
    model = olearn.make(algo)
    extra = [] if olearn.tags(model).target == "none" else [1]
    for k in range(20):
        model.learn_one({"a": float(k % 3), "b": 1.0 - k % 2}, *extra)
    before = {k: v.copy() for k, v in model.state_.items()}
    names = len(model.vocabulary_)
    from olearn._state import NAME_BYTES
    have = sum(v.nbytes for v in before.values()) + NAME_BYTES * (names + 1)
    limit(have + 1000)
    with pytest.raises(ModelTooLarge, match=f"over the limit of {have + 1000:,} bytes"):
        model.learn_one({f"w{j}": 1.0 for j in range(6000)}, *extra)
    assert all(np.array_equal(model.state_[k], before[k]) for k in before)
    assert len(model.vocabulary_) == names
    model.save(tmp_path / "m.olm")  # still whole
    model.learn_one({"a": 1.0, "c": 2.0}, *extra)  # a row that fits


def test_a_first_fit_past_the_limit_changes_nothing(limit):
    limit(1000)
    model = olearn.make("pa1")
    with pytest.raises(ModelTooLarge, match="over the limit of 1,000 bytes"):
        model.partial_fit(np.ones((2, 400)), [0, 1])
    assert getattr(model, "state_", None) is None
    limit(None)
    model.partial_fit(np.ones((2, 400)), [0, 1])


def test_the_cli_names_the_limit_in_one_line(tmp_path, monkeypatch):
    import subprocess
    import sys
    data = tmp_path / "wide.svm"
    data.write_text("1 1:1 90000:1\n-1 2:1\n")
    env = dict(__import__("os").environ, OLEARN_MAX_MODEL_BYTES="100000")
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", str(data), "--algo",
                           "pa1", "-f",
                           str(tmp_path / "m.olm")], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "over the limit of 100,000 bytes" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "m.olm").exists()


# ------------------------------------------------------------------ the service
def test_the_service_refuses_a_model_past_max_model_bytes(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from olearn.client import Client, ServerError
    from serve_support import Server
    srv = Server(tmp_path / "d", "--max-model-bytes", "20000")
    c = Client(srv.url, srv.token)
    c.create("m", "pa1")
    c.learn("m", [{"a": 1.0}, {"b": 1.0}], [1, -1])
    with pytest.raises(ServerError) as err:
        c.learn("m", [{f"w{j}": 1.0 for j in range(5000)}], [1])
    assert err.value.status == 413 and "over the limit of 20,000 bytes" in err.value.message
    assert c.info("m")["rows"] == 2
    c.learn("m", [{"a": 2.0}], [1])
    assert c.info("m")["rows"] == 3
    srv.stop()


def test_bodies_held_at_once_are_capped(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from serve_support import Server
    srv = Server(tmp_path / "d", "--max-inflight-bytes", "3000")
    srv.call("PUT", "/models/m", {"algo": "pa1"}, token=srv.token)
    big = json.dumps({"rows": [{"x": [0.5] * 100, "y": 1}] * 5}).encode()  # ~2.6 kB
    assert 2000 < len(big) < 3000
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    sock.sendall(f"POST /models/m/learn HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                 f"{srv.token}\r\nContent-Type: application/json\r\nContent-Length: "
                 f"{len(big)}\r\n\r\n".encode() + big[:-1])
    import time
    time.sleep(0.5)  # (the server has read all but the last byte)
    status, doc = srv.call("POST", "/models/m/learn", big, token=srv.token)
    assert status == 503 and "retry" in doc["error"], doc
    sock.sendall(big[-1:])
    answer = sock.recv(65536)
    sock.close()
    assert b" 200 " in answer.split(b"\r\n")[0], answer[:200]
    status, doc = srv.call("POST", "/models/m/learn", big, token=srv.token)
    assert status == 200, doc
    srv.stop()
