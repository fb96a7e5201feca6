"""Issue 47 item 4, the service path from the command line: a learn request may carry
its rows as one compressed sparse matrix (``{"csr": {...}, "y": [...]}``), which the
service learns in one compiled pass, exactly as ``partial_fit`` of the same matrix; what
``olearn train DATA --server`` sends.  In process (the store, the log and its replay)
and through a real server and the command line."""
import json

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.client import Client
from olearn.serve.body import ServeError
from olearn.serve.store import Store

RNG = np.random.default_rng(11)


def matrix(n, width, density=0.3, rng=RNG):
    X = sp.random(n, width, density=density, format="csr", random_state=rng)
    X.data = np.round(X.data * 4 - 2, 6)
    return X


def body(X, y=None, w=None, width=None, **extra):
    doc = Client.learn_body(Client.__new__(Client), X, y, w, csr=True, **extra)
    if width is not None:
        doc["csr"]["width"] = width
    return json.dumps(doc).encode()


def J(doc):
    return json.dumps(doc).encode()


@pytest.mark.parametrize("algo", ["pa1", "arow", "ogd-reg"])
def test_a_csr_request_is_partial_fit_of_the_matrix_and_replays(tmp_path, algo):
    store = Store(tmp_path, "none", background=False)
    store.create("m", J({"algo": algo}))
    local = olearn.make(algo)
    for k in range(3):
        X = matrix(40, 8 + 4 * k)  # (a LIBSVM stream whose width grows: widened)
        y = (RNG.normal(size=40) if algo.endswith("reg") else
             np.where(RNG.random(40) < 0.5, -1, 1))
        w = RNG.random(40) + 0.5
        if k == 1:
            got = store.learn("m", body(X, y, w), predict=True)["predictions"]
            if k:
                olearn._estimator.widen(local, X.shape[1])
            want = local.predict_learn(X, y, sample_weight=w)
            np.testing.assert_allclose(got, want, rtol=1e-12)
        else:
            if k:
                olearn._estimator.widen(local, X.shape[1])
            store.learn("m", body(X, y, w))
            local.partial_fit(X, y, sample_weight=w)
    probe = matrix(10, 16)
    csr = json.loads(body(probe))["csr"]
    reg = algo.endswith("reg")
    key, call = ("predictions", local.predict) if reg else ("scores", local.decision_function)
    got = store.predict("m", J({"csr": csr, "scores": not reg}))
    np.testing.assert_allclose(got[key], np.asarray(call(probe)), rtol=1e-12)
    dicts = [{str(j): float(v) for j, v in zip(r.indices, r.data)} for r in probe]
    assert store.predict("m", J({"rows": dicts, "scores": not reg}))[key] == got[key]
    store.close(snapshot=False)
    again = Store(tmp_path, "none", background=False)  # the log replayed
    assert again.predict("m", J({"csr": csr, "scores": not reg}))[key] == got[key]
    again.close()


def test_csr_into_a_model_of_named_features_learns_them_as_column_names(tmp_path):
    """A model that learned {name: value} rows takes a csr request as {column: value}
    rows (what the command line sent before), one by one."""
    store = Store(tmp_path, "none", background=False)
    store.create("m", J({"algo": "pa1"}))
    local = olearn.make("pa1")
    store.learn("m", J({"rows": [{"x": {"3": 1.0, "a": 2.0}, "y": 1}]}))
    local.learn_one({"3": 1.0, "a": 2.0}, 1)
    X, y = matrix(30, 6), np.where(RNG.random(30) < 0.5, -1, 1)
    store.learn("m", body(X, y))
    for row, label in zip(X, y):
        local.learn_one({str(j): float(v) for j, v in zip(row.indices, row.data)}, label)
    probe = [{"3": 1.0, "a": -1.0}, {"0": 2.0}]
    from olearn.io.dicts import dicts_to_csr
    want = local.decision_function(dicts_to_csr(probe, local.vocabulary_, grow=False))
    assert store.predict("m", J({"rows": probe, "scores": True}))["scores"] == want.tolist()
    store.close()


def _b64(values, dtype):
    import base64
    return base64.b64encode(np.asarray(values, dtype=dtype).tobytes()).decode()


def test_base64_arrays_are_the_lists_they_encode(tmp_path):
    """What ``olearn train --server`` sends (base64 of little-endian bytes) learns
    exactly as the same matrix sent as lists of numbers."""
    stores = [Store(tmp_path / k, "none", background=False) for k in ("a", "b")]
    for store in stores:
        store.create("m", J({"algo": "pa1"}))
    X, y = matrix(50, 9), np.where(RNG.random(50) < 0.5, -1, 1)
    as_b64 = json.loads(body(X, y))
    assert all(isinstance(as_b64["csr"][k], str) for k in ("indptr", "indices", "data"))
    as_lists = Client.learn_body(Client.__new__(Client), X, y, csr="lists")
    assert isinstance(as_lists["csr"]["data"], list)
    got = [store.learn("m", J(doc), predict=True)["predictions"]
           for store, doc in zip(stores, (as_b64, as_lists))]
    assert got[0] == got[1]
    assert (stores[0].predict("m", J({"csr": as_b64["csr"], "scores": True}))
            == stores[1].predict("m", J({"csr": as_lists["csr"], "scores": True})))
    for store in stores:
        store.close()


@pytest.mark.parametrize("csr,words", [
    ({"indptr": "AAAA*", "indices": [1], "data": [1.0], "width": 3}, "not valid base64"),
    ({"indptr": _b64([0, 1], "<i8"), "indices": _b64([1], "<i8")[:-4], "data": [1.0],
      "width": 3}, "4 bytes each"),
    ({"indptr": _b64([0, 1], "<i8"), "indices": _b64([1], "<i4"),
      "data": _b64([np.nan], "<f8"), "width": 3}, "finite numbers"),
    ({"indptr": _b64([0, 1], "<i8"), "indices": _b64([7], "<i4"), "data": [1.0],
      "width": 3}, "0..2"),
    ({"indptr": [0, 1], "indices": [1.5], "data": [1.0], "width": 3}, "integers"),
    ({"indptr": [0, 1], "indices": [5], "data": [1.0], "width": 3}, "0..2"),
    ({"indptr": [0, 1], "indices": [1], "data": ["a"], "width": 3}, "finite numbers"),
    ({"indptr": [0, 2], "indices": [1], "data": [1.0], "width": 3}, "never decrease"),
    ({"indptr": [0, 1], "indices": [10 ** 30], "data": [1.0], "width": 3}, "integers"),
    ({"indptr": [0], "indices": [], "data": [], "width": 3}, "at least 2"),
    ({"indptr": [0, 1], "indices": [1], "data": [1.0], "width": 0}, "width"),
    ({"indptr": [0, 1], "indices": [1], "data": [1.0], "width": 3, "q": 1}, "unknown"),
    ("x", "must be an object")])
def test_bad_csr_bodies_are_400_and_change_nothing(tmp_path, csr, words):
    store = Store(tmp_path, "none", background=False)
    store.create("m", J({"algo": "pa1"}))
    with pytest.raises(ServeError) as err:
        store.learn("m", J({"csr": csr, "y": [1]}))
    assert err.value.status == 400 and words in err.value.message, err.value.message
    assert store.info("m")["rows"] == 0 and store.info("m")["seq"] == 0
    store.close()


def test_csr_labels_weights_and_shapes_are_checked(tmp_path):
    store = Store(tmp_path, "none", background=False)
    for name, algo in (("m", "pa1"), ("t", "tagger-ap"), ("d", "uniclass")):
        store.create(name, J({"algo": algo}))
    good = json.loads(body(matrix(2, 3), [1, -1]))
    for doc, words in (({**good, "y": [1]}, "2 labels"), ({**good, "y": [1, None]}, "y must"),
                       ({**good, "w": [1, -1]}, "w must"), ({**good, "rows": []}, "not both"),
                       ({"y": [1]}, "not both")):
        with pytest.raises(ServeError) as err:
            store.learn("m", J(doc))
        assert err.value.status == 400 and words in err.value.message, err.value.message
    with pytest.raises(ServeError) as err:
        store.learn("t", J(good))
    assert "this model takes 'rows'" in err.value.message
    with pytest.raises(ServeError) as err:
        store.learn("d", J(good))
    assert "without a target" in err.value.message
    assert store.learn("d", J({"csr": good["csr"]}))["acknowledged"] == 2
    store.close()


def test_train_server_equals_the_local_command(tmp_path):
    """``olearn train FILE --server`` (one csr matrix per request) makes the mistakes the
    local ``olearn train FILE`` makes, row for row."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    import os
    import subprocess
    import sys
    from serve_support import Server
    rng = np.random.default_rng(5)
    lines = []
    for _ in range(700):
        cols = sorted(rng.choice(np.arange(1, 60), 6, replace=False))
        lines.append(f"{rng.choice([-1, 1])} " +
                     " ".join(f"{j}:{rng.integers(1, 9) / 4}" for j in cols))
    path = tmp_path / "d.svm"
    path.write_text("\n".join(lines) + "\n")
    srv = Server(tmp_path / "srv")
    env = dict(os.environ, OLEARN_TOKEN=srv.token)

    def run(*argv):
        proc = subprocess.run([sys.executable, "-m", "olearn", *argv], capture_output=True,
                              text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr
    served = run("train", str(path), "--algo", "pa1", "--server", srv.url, "--name", "m",
                 "--request-rows", "128")
    local = run("train", str(path), "--algo", "pa1")
    loss = float(served.split("zero-one loss ")[1].split()[0])
    rate = float(local.split("mistake rate = ")[1].split()[0])
    assert loss == pytest.approx(rate, abs=1e-6), (served, local)
    srv.stop()
