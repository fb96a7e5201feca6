"""The service serves every shape of stream (issue 46 item 6; issues 41, 42 and 43's
service targets): anomaly detectors learn rows without a target and answer ``/score``,
multilabel models learn label sets and predict them, taggers learn and tag sequences.
Each is a real ``olearn serve`` process; a kill -9 keeps every acknowledged request, and
the recovered model answers as an offline replay of the same requests."""
import json

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import olearn  # noqa: E402
from olearn.client import Client, ServerError  # noqa: E402
from serve_support import Server  # noqa: E402

RNG = np.random.default_rng(7)


def dict_rows(n, names="abcde", rng=RNG):
    return [{k: round(float(v), 6) for k, v in zip(names, rng.normal(size=len(names)))
             if rng.random() < 0.8} or {"a": 1.0} for _ in range(n)]


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("shapes") / "d")
    yield server
    server.stop()


def refused(call, status, *words):
    with pytest.raises(ServerError) as err:
        call()
    assert err.value.status == status, err.value
    for word in words:
        assert word in err.value.message, err.value.message
    return err.value.message


# ------------------------------------------------------------------ detectors
@pytest.mark.parametrize("algo,params", [("uniclass", {"epsilon": 1.5}),
                                         ("hst", {"window_size": 40, "n_trees": 5}),
                                         ("ocsvm", {}), ("loda", {})])
def test_a_detector_learns_without_y_scores_and_survives_kill9(tmp_path, algo, params):
    srv = Server(tmp_path / "d")
    c = Client(srv.url, srv.token)
    c.create("dicts", algo, **params)
    c.create("lists", algo, **params)
    offline_d, offline_l = olearn.make(algo, **params), olearn.make(algo, **params)
    seen_d, seen_l = [], []
    for k in range(4):
        rows = dict_rows(50)
        X = RNG.normal(size=(50, 3))
        if k % 2:
            out = c.predict_learn("dicts", rows, scores=True)
            expect = [offline_d.score_one(x) for x in rows[:1]]
            assert out["scores"][0] == pytest.approx(expect[0], abs=1e-12)
            assert len(out["predictions"]) == len(out["scores"]) == 50
            assert set(out["predictions"]) <= {-1, 1}
            for x in rows:
                offline_d.learn_one(x)
            got = c.predict_learn("lists", X, scores=True)
            answers, raw = offline_l.predict_learn(X, return_scores="both")
            np.testing.assert_allclose(got["scores"], raw[:, 0], atol=1e-12)
            assert got["predictions"] == answers.tolist()
        else:
            assert c.learn("dicts", rows)["acknowledged"] == 50
            assert c.learn("lists", X)["acknowledged"] == 50
            for x in rows:
                offline_d.learn_one(x)
            offline_l.partial_fit(X)
        seen_d += rows
        seen_l.append(X)
    probe_d, probe_l = dict_rows(20), RNG.normal(size=(20, 3)) * 3
    before = c.score("dicts", probe_d), c.score("lists", probe_l)
    srv.kill9()
    srv.start()
    c = Client(srv.url, srv.token)
    after = c.score("dicts", probe_d), c.score("lists", probe_l)
    assert after == before
    np.testing.assert_allclose(after[1], offline_l.score_many(probe_l), atol=1e-12)
    np.testing.assert_allclose(after[0], [offline_d.score_one(x) for x in probe_d],
                               atol=1e-12)
    assert c.predict("lists", probe_l) == offline_l.predict(probe_l).tolist()
    assert c.info("lists")["rows"] == 200
    srv.stop()


def test_a_detector_refuses_a_target_and_a_classifier_has_no_score(srv):
    c = Client(srv.url, srv.token)
    c.create("det", "uniclass")
    c.create("clf", "pa1")
    refused(lambda: c.learn("det", [{"a": 1.0}], [1]), 400, "without a target", "no 'y'")
    refused(lambda: c.learn("clf", [{"a": 1.0}]), 400, "'x' and 'y'")
    refused(lambda: c.score("clf", [{"a": 1.0}]), 400, "not an anomaly detector")
    c.learn("det", [[1.0, 2.0], [2.0, 1.0]])
    refused(lambda: c.predict("det", [[1.0, 2.0]], proba=True), 400, "no proba")
    # the same through curl's eyes: one-line JSON errors
    status, doc = srv.call("POST", "/models/det/learn", {"rows": [{"x": [1, 2], "y": 0}]},
                           token=srv.token)
    assert status == 400 and list(doc) == ["error"] and "\n" not in doc["error"]
    assert c.info("det")["rows"] == 2


# ------------------------------------------------------------------ label sets
def label_sets(n, rng=RNG):
    return [sorted({lab for lab in "pqrs" if rng.random() < 0.35}) for _ in range(n)]


@pytest.mark.parametrize("algo", ["ml-br", "ml-pa1"])
def test_a_multilabel_model_learns_label_sets_and_survives_kill9(tmp_path, algo):
    srv = Server(tmp_path / "d")
    c = Client(srv.url, srv.token)
    c.create("m", algo)
    offline = olearn.make(algo)
    for k in range(3):
        rows, sets = dict_rows(30), label_sets(30)
        if k == 1:
            got = c.predict_learn("m", rows, sets)
            want = [sorted((lab for lab, on in offline.predict_learn_one(x, y).items() if on),
                           key=str) for x, y in zip(rows, sets)]
            assert [sorted(g, key=str) for g in got] == want
        else:
            c.learn("m", rows, [set(s) for s in sets])  # sets are sent as lists
            for x, y in zip(rows, sets):
                offline.learn_one(x, y)
    probe = dict_rows(15)
    want = [sorted((lab for lab, on in offline.predict_one(x).items() if on), key=str)
            for x in probe]
    before = c.predict("m", probe)
    assert [sorted(p, key=str) for p in before] == want
    srv.kill9()
    srv.start()
    c = Client(srv.url, srv.token)
    assert c.predict("m", probe) == before
    out = c.request("POST", "/models/m/predict", {"rows": probe,
                                                   "scores": algo == "ml-pa1"})
    assert sorted(out["labels"]) == ["p", "q", "r", "s"]
    if algo == "ml-pa1":
        assert np.asarray(out["scores"]).shape == (15, 4)
    refused(lambda: c.learn("m", [{"a": 1.0}], ["p"]), 400, "list of labels")
    srv.stop()


def test_multilabel_rows_of_numbers_and_the_labels_order(srv):
    c = Client(srv.url, srv.token)
    c.create("mln", "ml-br")
    X, sets = RNG.normal(size=(40, 4)), label_sets(40)
    c.learn("mln", X, sets)
    offline = olearn.make("ml-br").partial_fit(X, sets)
    out = c.predict("mln", X[:10], scores=True)
    pred = offline.predict(X[:10])
    classes = offline.classes_.tolist()
    assert out["labels"] == classes
    assert out["predictions"] == [[classes[j] for j in np.flatnonzero(r)] for r in pred]
    np.testing.assert_allclose(out["scores"], offline.decision_function(X[:10]), atol=1e-12)


# ------------------------------------------------------------------ sequences
SENTENCES = [(["the", "dog", "runs"], ["DET", "NOUN", "VERB"]),
             (["a", "cat", "sleeps"], ["DET", "NOUN", "VERB"]),
             (["dogs", "bark"], ["NOUN", "VERB"]),
             (["the", "old", "cat", "runs", "fast"], ["DET", "ADJ", "NOUN", "VERB", "ADV"]),
             (["cats", "sleep", "well"], ["NOUN", "VERB", "ADV"])]


def test_a_tagger_learns_and_tags_sequences_and_survives_kill9(tmp_path):
    srv = Server(tmp_path / "d")
    c = Client(srv.url, srv.token)
    c.create("t", "tagger-pa1")
    refused(lambda: c.predict("t", [["the", "dog"]]), 409, "not learned")
    offline = olearn.make("tagger-pa1")
    X, y = [s for s, _ in SENTENCES], [t for _, t in SENTENCES]
    for _ in range(3):
        assert c.learn("t", X[:3], y[:3])["acknowledged"] == 3
        offline.partial_fit(X[:3], y[:3])
        got = c.predict_learn("t", X[3:], y[3:])
        assert got == offline.predict_learn(X[3:], y[3:])
    probe = [["the", "cat", "sleeps"], ["dogs", "run", "fast"], ["a"]]
    before = c.predict("t", probe)
    assert before == offline.predict(probe)
    srv.kill9()
    srv.start()
    c = Client(srv.url, srv.token)
    assert c.predict("t", probe) == before
    # the tagger's file, downloaded and uploaded under another name, tags the same
    c.upload("t2", c.download("t"))
    assert c.predict("t2", probe) == before
    refused(lambda: c.learn("t", [["a", "b"]], [["DET"]]), 400, "one per token")
    refused(lambda: c.learn("t", [["a"]], [["DET"]], sample_weight=[2.0]), 400, "no weights")
    refused(lambda: c.learn("t", [[1, 2]], [["A", "B"]]), 400, "token")
    refused(lambda: c.predict("t", probe, scores=True), 400, "tags only")
    srv.stop()


def test_a_tagger_takes_feature_lists_and_dicts(srv):
    c = Client(srv.url, srv.token)
    c.create("tf", "tagger-ap")
    X = [[["w=the", "suf=he"], ["w=dog"]], [["w=a"], ["w=cat", "suf=at"]]]
    y = [["DET", "NOUN"], ["DET", "NOUN"]]
    Xd = [[{"w=the": 1.0}, {"w=dog": 0.5}], [{"w=a": 1.0}, {"w=cat": 2.0}]]
    c.learn("tf", X, y)
    offline = olearn.make("tagger-ap").partial_fit(X, y)
    assert c.predict("tf", X) == offline.predict(X)
    c.create("td", "tagger-ap")
    c.learn("td", Xd, y)
    assert c.predict("td", Xd) == olearn.make("tagger-ap").partial_fit(Xd, y).predict(Xd)
    status, doc = srv.call("POST", "/models/tf/learn",
                           json.dumps({"rows": [{"x": "the dog", "y": ["DET"]}]}).encode(),
                           token=srv.token)
    assert status == 400 and "list of tokens" in doc["error"]


def test_train_server_streams_a_file_into_a_detector_without_its_labels(srv, tmp_path):
    """``olearn train DATA --server`` sends a detector's rows without the label column and
    prints the progressive ROC AUC, equal to ``olearn evaluate``'s on the same file."""
    import os
    import subprocess
    import sys
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3))
    y = (rng.random(600) < 0.03).astype(int)
    X[y == 1] += 4.0
    path = tmp_path / "stream.csv"
    path.write_text("a,b,c,label\n" + "".join(
        f"{r[0]:.6f},{r[1]:.6f},{r[2]:.6f},{t}\n" for r, t in zip(X, y)))
    env = dict(os.environ, OLEARN_TOKEN=srv.token)

    def run(*argv):
        proc = subprocess.run([sys.executable, "-m", "olearn", *argv], capture_output=True,
                              text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout + proc.stderr
    out = run("train", str(path), "--algo", "uniclass", "--server", srv.url, "--name",
              "stream", "--request-rows", "100")
    assert "learned 600 rows into stream" in out and "progressive ROC AUC" in out
    served = float(out.split("progressive ROC AUC ")[1].split(",")[0])
    local = run("evaluate", str(path), "--algo", "uniclass")
    assert abs(float(local.split("ROC AUC = ")[1].split(",")[0]) - served) < 5e-5
    assert Client(srv.url, srv.token).info("stream")["rows"] == 600


def test_only_detectors_give_anomaly_scores(tmp_path):
    """k-means learns without a target too, but its ``score_many`` is no anomaly score:
    /score and ``"scores"`` are refused for it, as for a classifier."""
    from olearn.serve.store import Store
    store = Store(tmp_path, "none", background=False)
    store.create("k", json.dumps({"algo": "kmeans"}).encode())
    store.learn("k", json.dumps({"rows": [{"x": [1.0, 2.0]}, {"x": [0.0, 1.0]}]}).encode())
    from olearn.serve.body import ServeError
    for kwargs, body in (({"score": True}, {"rows": [[1.0, 2.0]]}),
                         ({}, {"rows": [[1.0, 2.0]], "scores": True})):
        with pytest.raises(ServeError) as err:
            store.predict("k", json.dumps(body).encode(), **kwargs)
        assert err.value.status == 400 and "anomaly" in err.value.message
    assert len(store.predict("k", json.dumps({"rows": [[1.0, 2.0]]}).encode())
               ["predictions"]) == 1
    store.close()
