"""olearn serve over HTTP, the server a real process on a loopback port: the auth
matrix, round trips against the same model in-process, idempotency, bad input, the
client, and ``olearn train --server``."""
import json
import random
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import olearn  # noqa: E402
from olearn.client import Client, ServerError  # noqa: E402
from olearn.io.dicts import dicts_to_csr  # noqa: E402
from serve_support import Server  # noqa: E402

NAMES = [f"f{j}" for j in range(20)]


def random_rows(rng, n, labels=(-1, 1)):
    rows = []
    for _ in range(n):
        x = {name: round(rng.uniform(-2, 2), 3) for name in rng.sample(NAMES, rng.randint(1, 6))}
        rows.append((x, rng.choice(labels)))
    return rows


def scores_of(model, dicts):
    return model.decision_function(dicts_to_csr(dicts, model.vocabulary_, grow=False)).tolist()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("serve"), "--max-body", "200000",
                 "--max-rows", "500", "--max-features", "50")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def admin(server):
    return Client(server.url, server.token)


# ------------------------------------------------------------------ auth
ROUTES = {  # path -> {method: the scope it needs}
    "/metrics": {"GET": "admin"},
    "/models": {"GET": "predict"},
    "/models/m1": {"GET": "predict", "PUT": "admin", "DELETE": "admin"},
    "/models/m1/learn": {"POST": "learn"},
    "/models/m1/predict_learn": {"POST": "learn"},
    "/models/m1/predict": {"POST": "predict"},
    "/models/m1/snapshot": {"POST": "admin"},
    "/models/m1/file": {"GET": "admin", "PUT": "admin"},
    "/nowhere": {},
}
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")
RANK = {"predict": 0, "learn": 1, "admin": 2}


def test_auth_matrix(server, admin):
    admin.create("m1", "pa1")
    admin.create("m2", "pa1")
    tokens = {}
    for scope in ("predict", "learn", "admin"):  # added while the server runs
        code, out = server.cli("token", "add", "--scope", scope)
        assert code == 0 and out.strip().startswith("olt_")
        tokens[scope] = out.strip()
        code, out = server.cli("token", "add", "--scope", scope, "--model", "m2")
        tokens[scope, "m2"] = out.strip()
    code, out = server.cli("token", "add", "--scope", "admin")
    revoked = out.strip()
    assert server.call("GET", "/models", token=revoked)[0] == 200
    tid = server.cli("token", "list")[1].strip().splitlines()[-1].split()[0]
    assert server.cli("token", "revoke", tid)[0] == 0
    assert "revoked" in server.cli("token", "list")[1].splitlines()[-1]
    assert revoked not in open(f"{server.data_dir}/tokens.json").read()
    for path, methods in ROUTES.items():
        for method in METHODS:
            for token in (None, "olt_wrong", server.token + "x", revoked):
                status, out = server.call(method, path, b"{}", token=token)
                assert status == 401, (method, path, token, status, out)
                assert set(out) == {"error"}
            need = methods.get(method)
            if need is None:
                status, _ = server.call(method, path, b"{}", token=server.token)
                assert status in (404, 405), (method, path, status)
                continue
            for scope in RANK:
                if RANK[scope] < RANK[need]:
                    status, _ = server.call(method, path, b"{}", token=tokens[scope])
                    assert status == 403, (method, path, scope, status)
                if path.startswith("/models/m1"):  # a token of another model
                    status, _ = server.call(method, path, b"{}", token=tokens[scope, "m2"])
                    assert status == 403, (method, path, scope, status)
    assert server.call("GET", "/healthz")[0] == 200
    # what a model's token sees and may do
    assert Client(server.url, tokens["predict", "m2"]).models() == ["m2"]
    learner = Client(server.url, tokens["learn", "m2"])
    assert learner.learn("m2", [{"a": 1.0}], [1])["seq"] == 1
    assert learner.predict("m2", [{"a": 1.0}]) == [1]
    with pytest.raises(ServerError) as err:
        Client(server.url, tokens["predict"]).learn("m2", [{"a": 1.0}], [1])
    assert err.value.status == 403
    text = server.call("GET", "/metrics", token=server.token)[1].decode()
    assert 'olearn_requests_total{route="/models/{name}/learn",method="POST",status="401"}' \
        in text and 'olearn_rows_learned_total{model="m2"} 1' in text
    assert server.token not in text and revoked not in text


# ------------------------------------------------------------------ round trips
def test_round_trip_dicts_equals_in_process(server, admin):
    rng = random.Random(1)
    admin.create("rt", "pa1", C=0.5)
    local = olearn.make("pa1", C=0.5)
    rows = random_rows(rng, 600)
    for i in range(0, 600, 150):
        part = rows[i:i + 150]
        out = admin.learn("rt", [x for x, _ in part], [y for _, y in part])
        assert out == {"acknowledged": 150, "seq": i // 150 + 1}
        for x, y in part:
            local.learn_one(x, y)
    probe = [x for x, _ in random_rows(rng, 50)]
    got = admin.predict("rt", probe, scores=True)
    assert got["predictions"] == local.predict(
        dicts_to_csr(probe, local.vocabulary_, grow=False)).tolist()
    assert got["scores"] == scores_of(local, probe)
    assert [admin.predict("rt", [x])[0] for x in probe[:5]] == \
        [local.predict_one(x) for x in probe[:5]]
    more = random_rows(rng, 40)
    before = admin.predict_learn("rt", [x for x, _ in more], [y for _, y in more])
    assert before == [local.predict_learn_one(x, y) for x, y in more]
    assert admin.predict("rt", probe, scores=True)["scores"] == scores_of(local, probe)
    info = admin.info("rt")
    assert (info["rows"], info["seq"], info["algo"], info["params"]) == \
        (640, 5, "pa1", {"C": 0.5})
    # download: the file olearn.load reads; upload: served as it was
    data = admin.download("rt")
    path = server.data_dir + "/rt.olm"
    open(path, "wb").write(data)
    loaded = olearn.load(path)
    assert scores_of(loaded, probe) == scores_of(local, probe)
    assert admin.upload("copy", path)["algo"] == "pa1"
    assert admin.predict("copy", probe, scores=True)["scores"] == scores_of(local, probe)
    assert admin.snapshot("rt")["log_bytes"] == 0
    assert admin.predict("rt", probe, scores=True)["scores"] == scores_of(local, probe)


def test_round_trip_arrays_and_proba(server, admin):
    rng = np.random.default_rng(2)
    admin.create("dense", "logistic-ogd" if "logistic-ogd" in olearn.registry.names()
                 else "pa1")
    algo = admin.info("dense")["algo"]
    local = olearn.make(algo)
    X = rng.normal(size=(300, 5)).round(3)
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    for i in range(0, 300, 100):
        admin.learn("dense", X[i:i + 100], y[i:i + 100])
        local.partial_fit(X[i:i + 100], y[i:i + 100])
    got = admin.predict("dense", X[:30], scores=True)
    assert got["predictions"] == local.predict(X[:30]).tolist()
    assert got["scores"] == local.decision_function(X[:30]).tolist()
    if hasattr(local, "predict_proba"):
        try:
            expect = local.predict_proba(X[:5]).tolist()
        except (AttributeError, NotImplementedError):
            expect = None
        if expect is not None:
            assert admin.predict("dense", X[:5], proba=True)["proba"] == expect


def test_idempotency_and_retry_after_restart(tmp_path):
    srv = Server(tmp_path)
    try:
        c = Client(srv.url, srv.token)
        c.create("m", "pa1")
        first = c.learn("m", [{"a": 1.0}], [1], id="req-1")
        again = c.learn("m", [{"a": 1.0}], [1], id="req-1")
        assert again == {**first, "replayed": True}
        with pytest.raises(ServerError) as err:  # the same id, another body: 409
            c.learn("m", [{"a": 5.0}], [-1], id="req-1")
        assert err.value.status == 409 and "'req-1'" in err.value.message
        assert c.info("m")["rows"] == 1
        c.learn("m", [{"b": 1.0}], [-1], id="req-2")
        srv.kill9()
        srv.start()
        c2 = Client(srv.url, srv.token)
        assert c2.learn("m", [{"b": 1.0}], [-1], id="req-2")["seq"] == 2  # kept on disk
        assert c2.learn("m", [{"c": 1.0}], [1])["seq"] == 3                # seq goes on
        c2.snapshot("m")
        srv.kill9()
        srv.start()
        c2 = Client(srv.url, srv.token)
        assert c2.learn("m", [{"a": 1.0}], [1], id="req-1")["seq"] == 1   # from the snapshot
        assert c2.info("m")["rows"] == 3
        # a client whose keep-alive connection died retries on a new one
        c3 = Client(srv.url, srv.token)
        c3.info("m")
        srv.kill9()
        srv.start()
        assert c3.info("m")["seq"] == 3
        with pytest.raises(ServerError) as err:
            Client(srv.url, srv.token).info("absent")
        assert err.value.status == 404
    finally:
        srv.stop()


# ------------------------------------------------------------------ bad input
def bad_requests():
    x = {"a": 1.0}
    yield "PUT", "/models/bad", {"algo": "nope"}
    yield "PUT", "/models/bad", {"algo": "pa1", "params": {"nope": 1}}
    yield "PUT", "/models/bad", {"algo": "pa1", "params": {"C": -1}}
    yield "PUT", "/models/bad", {"algo": "pa1", "params": []}
    yield "PUT", "/models/bad", {"algo": 3}
    yield "PUT", "/models/.hidden", {"algo": "pa1"}
    yield "PUT", "/models/victim", {"algo": "pa1"}  # exists: 409
    yield "PUT", "/models/victim/file", b"not a model"
    yield "PUT", "/models/victim/file", b"PK\x03\x04" + b"\0" * 100
    yield "PUT", "/models/victim/file", b"x" * 300_000  # over --max-body
    yield "GET", "/models/absent", None
    yield "POST", "/models/absent/learn", {"rows": [{"x": x, "y": 1}]}
    for path in ("/models/victim/learn", "/models/victim/predict_learn"):
        yield "POST", path, b"{not json"
        yield "POST", path, b'{"rows": [{"x": {"a": NaN}, "y": 1}]}'
        yield "POST", path, b'{"rows": [{"x": {"a": Infinity}, "y": 1}]}'
        yield "POST", path, b'{"rows": [{"x": {"a": 1e999}, "y": 1}]}'
        yield "POST", path, {"rows": [{"x": {"a": 10 ** 400}, "y": 1}]}
        yield "POST", path, b"[" * 100_000 + b"]" * 100_000
        yield "POST", path, {"rows": []}
        yield "POST", path, {"rows": "abc"}
        yield "POST", path, {"rows": [{"x": x}]}
        yield "POST", path, {"rows": [{"x": x, "y": 1, "z": 2}]}
        yield "POST", path, {"rows": [{"x": {"a": "1"}, "y": 1}]}
        yield "POST", path, {"rows": [{"x": {"a": [1]}, "y": 1}]}
        yield "POST", path, {"rows": [{"x": x, "y": None}]}
        yield "POST", path, {"rows": [{"x": x, "y": [1]}]}
        yield "POST", path, {"rows": [{"x": x, "y": 1, "w": -1}]}
        yield "POST", path, {"rows": [{"x": x, "y": 1}, {"x": [1.0], "y": 1}]}
        yield "POST", path, {"rows": [{"x": x, "y": 1}], "id": 5}
        yield "POST", path, {"rows": [{"x": x, "y": 1}], "extra": 1}
        yield "POST", path, {"rows": [{"x": x, "y": 1}] * 501}                  # 413
        yield "POST", path, {"rows": [{"x": {f"k{j}": 1 for j in range(51)}, "y": 1}]}
        # learned half-way, then a label of another kind: rolled back whole
        yield "POST", path, {"rows": [{"x": {"new": 1.0}, "y": 1}, {"x": x, "y": "spam"}]}
        yield "POST", path, {"rows": [{"x": [1.0, 2.0], "y": 1}]}  # arrays to a dict model
    yield "POST", "/models/victim/predict", {"rows": [[1.0]]}
    yield "POST", "/models/victim/predict", {"rows": [{"a": None}]}
    yield "POST", "/models/victim/predict", {"rows": [x], "scores": "yes"}
    yield "POST", "/models/victim/predict", {"rows": [x], "weird": 1}
    yield "POST", "/models/victim/predict", "just a string"


def test_bad_input_changes_nothing(server, admin):
    rng = random.Random(3)
    admin.create("victim", "pa1")
    rows = random_rows(rng, 100)
    admin.learn("victim", [x for x, _ in rows], [y for _, y in rows])
    probe = [x for x, _ in random_rows(rng, 30)]
    info, scores = admin.info("victim"), admin.predict("victim", probe, scores=True)
    data = admin.download("victim")
    for method, path, body in bad_requests():
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
        status, out = server.call(method, path, body, token=server.token)
        assert 400 <= status < 500, (method, path, body[:80] if body else body, status, out)
        assert isinstance(out, dict) and set(out) == {"error"} and "\n" not in out["error"]
    after = admin.info("victim")
    assert {k: after[k] for k in ("rows", "seq", "algo", "params")} == \
        {k: info[k] for k in ("rows", "seq", "algo", "params")}
    assert admin.predict("victim", probe, scores=True) == scores
    assert admin.download("victim") == data
    assert "bad" not in admin.models()


# ------------------------------------------------------------------ train --server
def test_train_streams_a_file(server, tmp_path):
    rng = random.Random(4)
    lines, local = [], olearn.make("pa1")
    for _ in range(230):
        cols = sorted(rng.sample(range(1, 30), 4))
        y = rng.choice([-1, 1])
        lines.append(f"{y} " + " ".join(f"{j}:{rng.randint(1, 9) / 4}" for j in cols))
    path = tmp_path / "d.svm"
    path.write_text("\n".join(lines) + "\n")
    env = {**__import__("os").environ, "OLEARN_TOKEN": server.token}
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", str(path), "--server",
                           server.url, "--name", "streamed", "--algo", "pa1",
                           "--request-rows", "100"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "learned 230 rows into streamed" in proc.stderr and proc.stdout == ""
    X, y = next(iter(olearn.io.read_libsvm(str(path), chunk_size=1000)))
    from olearn.client import rows_of
    dicts = rows_of(X)  # (sparse rows as {column number: value})
    local.partial_fit(X, y)  # (the file's rows went as one sparse matrix per request)
    c = Client(server.url, server.token)
    assert c.info("streamed")["seq"] == 3
    np.testing.assert_allclose(c.predict("streamed", dicts[:20], scores=True)["scores"],
                               local.decision_function(X[:20]), rtol=1e-12, atol=1e-12)
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", str(path), "--server",
                           server.url, "--name", "other"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--algo" in proc.stderr


def test_cli_errors_are_one_line(tmp_path):
    for argv in (["serve"], ["serve", "token"], ["serve", "token", "revoke", "t9",
                                                 "--data-dir", str(tmp_path)],
                 ["serve", "token", "add", "--data-dir", str(tmp_path), "--scope", "root"],
                 ["serve", "--data-dir", str(tmp_path), "--port", "0"]):
        proc = subprocess.run([sys.executable, "-m", "olearn", *argv], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 2 and proc.stderr.startswith("olearn: error:"), argv
        assert proc.stderr.count("\n") == 1 and not proc.stdout, argv
