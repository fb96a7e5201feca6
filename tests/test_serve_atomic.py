"""Issue 45, the service (a real ``olearn serve`` process): a new model's parameters go
through the library's checks (``{"algo": "pa", "params": {"C": -1}}`` is a 400, as are
sizes past their bounds and values that would make the state non-finite), and a learn
request whose rows make the model fail (an extreme value: a divergence, or a row out of
floating-point range) is a 400 that leaves the model exactly as it was, so that
snapshots and downloads keep working (before, ``POST /snapshot`` answered 500 for
ever: the failed row had left the AdaGrad-style sums infinite)."""
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from serve_support import Server  # noqa: E402

PROBE = {"rows": [{"f0": 0.5, "f1": -0.25}, {"f2": 1.0}]}
ROWS = json.dumps({"rows": [{"x": {"f0": 1.0, "f1": -0.5}, "y": 1},
                            {"x": {"f1": 0.75, "f2": 0.5}, "y": -1},
                            {"x": {"f0": -0.5, "f2": 1.0}, "y": 1}]}).encode()


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("serve-atomic"))
    yield server
    server.stop()


@pytest.mark.parametrize("params,words", [
    ({"C": -1}, "C must be"), ({"C": "x"}, "C must be"), ({"C": True}, "C must be"),
    ({"C": None}, "C must be")])
def test_put_checks_the_parameters_as_the_library_does(srv, params, words):
    for algo in ("pa", "pa1"):
        status, out = srv.call("PUT", "/models/bad", {"algo": algo, "params": params},
                               token=srv.token)
        assert status == 400 and words in out["error"] and "\n" not in out["error"], out
        assert srv.call("GET", "/models/bad", token=srv.token)[0] == 404


@pytest.mark.parametrize("algo,params,words", [
    ("fogd", {"D": 10**9}, "D must be an integer from 1 to"),
    ("nogd", {"B": 10**6}, "B must be an integer from 1 to"),
    ("hbp", {"n_layers": 10**6}, "n_layers must be"),
    ("mlp-reg", {"alpha": 1e308}, "alpha must be"),
    ("ogd", {"intercept_scaling": 1e300}, "intercept_scaling must be")])
def test_put_refuses_sizes_and_values_that_would_break_the_model(srv, algo, params, words):
    """One admin PUT of fogd with D=10^9 and a 20-row learn grew the server past 5.8 GB."""
    status, out = srv.call("PUT", "/models/big", {"algo": algo, "params": params},
                           token=srv.token)
    assert status == 400 and words in out["error"], out
    assert srv.call("GET", "/models/big", token=srv.token)[0] == 404


@pytest.mark.parametrize("algo", ["ndag", "adagrad-reg", "ftrl-reg"])
def test_a_failed_request_leaves_the_model_and_its_snapshots_working(srv, algo):
    name = f"m-{algo}"
    probe = json.dumps({**PROBE, "scores": True} if algo == "ndag" else PROBE).encode()
    assert srv.call("PUT", f"/models/{name}", {"algo": algo}, token=srv.token)[0] == 200
    assert srv.call("POST", f"/models/{name}/learn", ROWS, token=srv.token)[0] == 200
    status, before = srv.call("POST", f"/models/{name}/predict", probe, token=srv.token)
    assert status == 200
    seq = srv.call("GET", f"/models/{name}", token=srv.token)[1]["seq"]
    for first in (True, False):   # the failing row first (no rollback then), or second
        rows = [{"x": {"f0": 1e300, "f3": -1e300}, "y": 1}]
        if not first:
            rows.insert(0, {"x": {"f1": 0.25}, "y": -1})
        for route in ("learn", "predict_learn"):
            status, out = srv.call("POST", f"/models/{name}/{route}",
                                   json.dumps({"rows": rows}).encode(), token=srv.token)
            assert status == 400, (status, out)
            assert srv.call("POST", f"/models/{name}/predict", probe,
                            token=srv.token)[1] == before
            assert srv.call("GET", f"/models/{name}", token=srv.token)[1]["seq"] == seq
    assert srv.call("POST", f"/models/{name}/snapshot", token=srv.token)[0] == 200
    status, data = srv.call("GET", f"/models/{name}/file", token=srv.token)
    assert status == 200 and len(data) > 100
