"""Half-Space Trees (Tan, Ting and Liu 2011) against a plain reference of the paper's
algorithms 1-3: the recursive BuildSingleHS-Tree, UpdateMass and Score, the window's
swap, on random rows (dense and CSR, limits given and learned) and on KDD99 http."""
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.anomaly.hst import HalfSpaceTrees
from olearn.protocol import CannotMixError


def _draws(n_trees, n_nodes, d, seed):
    """The model's random draws (its documented seeds): split features, work ranges."""
    U = np.random.default_rng([seed, 0]).random((n_trees, n_nodes))
    S = np.random.default_rng([seed, 1, 0]).random((n_trees, d))
    return U, S


def _build(U, S, lo, hi, height):
    """BuildSingleHS-Tree (algorithm 2), recursively, from the work space of
    section 3.1: s in [lo, hi], the range s +- 2 max(s - lo, hi - s)."""
    n_trees, n_nodes = U.shape
    d = S.shape[1]
    Q, P = np.zeros((n_trees, n_nodes), int), np.zeros((n_trees, n_nodes))
    for t in range(n_trees):
        hi_t = np.where(hi > lo, hi, lo + 1.0)
        s = lo + S[t] * (hi_t - lo)
        half = 2 * np.maximum(s - lo, hi_t - s)

        def node(i, mn, mx, k):
            if k == height:
                return
            q = min(int(U[t, i] * d), d - 1)
            p = (mn[q] + mx[q]) / 2
            Q[t, i], P[t, i] = q, p
            left_mx, right_mn = mx.copy(), mn.copy()
            left_mx[q], right_mn[q] = p, p
            node(2 * i + 1, mn, left_mx, k + 1)
            node(2 * i + 2, right_mn, mx, k + 1)
        node(0, s - half, s + half, 0)
    return Q, P


def reference(X, n_trees, height, window, limits, seed=0):
    """Algorithm 1 over the rows of X: each row's score before it is learned."""
    n, d = X.shape
    n_nodes = 2 ** (height + 1) - 1
    U, S = _draws(n_trees, n_nodes, d, seed)
    r, l = np.zeros((n_trees, n_nodes)), np.zeros((n_trees, n_nodes))
    start = 0
    if limits is None:  # the first window's minima and maxima
        first = X[:window]
        lo, hi = first.min(axis=0), first.max(axis=0)
        start = window
    else:
        lo, hi = np.full(d, float(limits[0])), np.full(d, float(limits[1]))
    Q, P = _build(U, S, lo, hi, height)
    scores, windows, count = np.zeros(n), 0, 0
    for i in range(start, n):
        x = X[i]
        if windows:
            mass = 0.0
            for t in range(n_trees):
                v, k = 0, 0
                while k < height and r[t, v] >= 0.1 * window:
                    v = 2 * v + 1 if x[Q[t, v]] < P[t, v] else 2 * v + 2
                    k += 1
                mass += r[t, v] * 2.0 ** k
            scores[i] = 1 - mass / (n_trees * window * 2.0 ** height)
        for t in range(n_trees):
            v = 0
            while True:
                l[t, v] += 1
                if 2 * v + 1 >= n_nodes:
                    break
                v = 2 * v + 1 if x[Q[t, v]] < P[t, v] else 2 * v + 2
        count += 1
        if count == window:
            r, l, count, windows = l, np.zeros_like(l), 0, windows + 1
    return scores, Q, P, r, l


def _rows(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[rng.random(X.shape) < 0.2] = 0.0
    X[-5:] += 3.0  # a few far rows
    return X


@pytest.mark.parametrize("limits", [None, (0.0, 1.0)])
@pytest.mark.parametrize("sparse", [False, True])
def test_equal_to_the_papers_algorithms(limits, sparse):
    X = _rows()
    want, Q, P, R, L = reference(X, n_trees=4, height=5, window=40, limits=limits)
    model = HalfSpaceTrees(n_trees=4, height=5, window_size=40, limits=limits)
    got = model.score_learn(sp.csr_matrix(X) if sparse else X)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    arrays = {k.split("/")[-1]: v for k, v in model.export_state()[1].items()}
    inner = (2 ** 6 - 1 - 1) // 2
    np.testing.assert_array_equal(arrays["Q"][:, :inner], Q[:, :inner])
    np.testing.assert_allclose(arrays["P"][:, :inner], P[:, :inner], atol=1e-12)
    np.testing.assert_array_equal(arrays["R"], R)
    np.testing.assert_array_equal(arrays["L"], L)
    assert model.n_windows_ == (len(X) - (40 if limits is None else 0)) // 40
    assert got[-5:].min() > np.median(got[200:-5])  # the far rows score high


def test_one_row_at_a_time_equals_the_pass():
    X = _rows(200)
    kw = dict(n_trees=3, height=4, window_size=30)
    batch = HalfSpaceTrees(**kw).score_learn(X)
    m = HalfSpaceTrees(**kw)
    one = []
    for row in X:
        one.append(m.score_one({j: v for j, v in enumerate(row)}))
        m.learn_one({j: v for j, v in enumerate(row)})
    np.testing.assert_allclose(one, batch, atol=1e-12)
    last = {j: v for j, v in enumerate(X[-1])}
    assert m.predict_one(last) == (-1 if m.score_one(last) > m.threshold_ else 1)


def test_anomaly_calls_agree():
    X = _rows()
    m = HalfSpaceTrees(n_trees=4, height=5, window_size=40, threshold=0.6).fit(X)
    s = m.score_samples(X)
    np.testing.assert_allclose(m.decision_function(X), 0.6 + s)
    np.testing.assert_array_equal(m.predict(X), np.where(-s > 0.6, -1, 1))


def test_contamination_is_a_running_quantile_of_the_scores():
    X = _rows(600)
    m = HalfSpaceTrees(n_trees=4, height=5, window_size=40, contamination=0.05)
    s = m.score_learn(X)
    scored = s[80:]  # the rows scored with a reference profile (limits learned: 2 windows)
    H = np.bincount(np.minimum((scored * 1000).astype(int), 999), minlength=1000)
    np.testing.assert_array_equal(m.export_state()[1]["state/H"], H)
    q = np.quantile(scored, 0.95)
    assert abs(m.threshold_ - q) <= 1e-3 + 1e-12
    assert abs((m.predict(X[80:]) == -1).mean() - 0.05) < 0.03
    assert HalfSpaceTrees(threshold=0.3).threshold_ == 0.3


def test_save_load_and_mix(tmp_path):
    X = _rows()
    kw = dict(n_trees=3, height=4, window_size=40, limits=(0, 4))
    a = HalfSpaceTrees(**kw).partial_fit(X[:200])
    b = HalfSpaceTrees(**kw).partial_fit(X[200:])
    a.save(tmp_path / "a.olm")
    back = olearn.load(tmp_path / "a.olm")
    np.testing.assert_array_equal(back.score_samples(X), a.score_samples(X))
    mixed = olearn.mix([a, b])  # same trees: the masses averaged
    np.testing.assert_allclose(mixed.explicit_state()["R"],
                               (a.explicit_state()["R"] + b.explicit_state()["R"]) / 2)
    c = HalfSpaceTrees(n_trees=3, height=4, window_size=40).partial_fit(X[200:])
    with pytest.raises(CannotMixError, match="trees"):
        olearn.mix([HalfSpaceTrees(n_trees=3, height=4, window_size=40).partial_fit(X), c])


@pytest.mark.parametrize("kw, what", [
    (dict(height=30), "height is at most"), (dict(n_trees=0), "n_trees"),
    (dict(limits=(1, 0)), "lo < hi"), (dict(limits="x"), "limits must be"),
    (dict(n_trees=10 ** 6, height=20), "at most"), (dict(threshold=2), "threshold")])
def test_bad_parameters_are_one_line_errors(kw, what):
    with pytest.raises(ValueError, match=what) as exc:
        HalfSpaceTrees(**kw).partial_fit(_rows(10))
    assert "\n" not in str(exc.value)


def _http():
    root = Path(os.environ.get("OLEARN_DATA_MIRROR",
                               Path(__file__).resolve().parents[2] / "shared" / "data"))
    path = root / "kdd99_http" / "kdd99_http.csv.gz"
    if not path.exists():
        pytest.skip(f"{path} absent (the shared data folder)")
    return np.loadtxt(path, delimiter=",", skiprows=1, max_rows=6000)


def test_kdd99_http_prefix_equals_the_reference():
    data = _http()
    X = np.ascontiguousarray(data[:, :-1])
    want = reference(X, n_trees=5, height=6, window=250, limits=None)[0]
    got = HalfSpaceTrees(n_trees=5, height=6).score_learn(X)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_progressive_validation_of_a_detector_is_the_exact_auc():
    from sklearn.metrics import average_precision_score, roc_auc_score

    from olearn.evaluate import progressive
    X = _rows()
    y = np.zeros(len(X), int)
    y[-5:] = 1
    kw = dict(n_trees=4, height=5, window_size=40)
    scores = HalfSpaceTrees(**kw).score_learn(X)
    res = progressive(HalfSpaceTrees(**kw), (X, y), chunk_size=64)
    assert res.task == "anomaly" and res.n_rows == len(X)
    assert res.roc_auc == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
    assert res.average_precision == pytest.approx(average_precision_score(y, scores), abs=1e-12)
    assert res.final == res.roc_auc and "ROC AUC" in str(res)
    with pytest.raises(ValueError, match="must be 1 .* got 2 at row 3"):
        progressive(HalfSpaceTrees(**kw), (X[:5], np.array([0, 0, 2, 0, 0])))


def test_the_command_line_evaluates_a_detector(tmp_path, capsys):
    """``olearn evaluate DATA --algo hst``: the last column read only for the metric."""
    from sklearn.metrics import roc_auc_score

    from olearn.cli import main
    X = _rows()
    y = np.zeros(len(X), int)
    y[-5:] = 1
    path = tmp_path / "rows.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    rc = main(["evaluate", str(path), "--algo", "hst", "--param", "window_size=40",
               "--param", "height=5", "--param", "n_trees=4"])
    out, err = capsys.readouterr()
    want = roc_auc_score(y, HalfSpaceTrees(n_trees=4, height=5, window_size=40)
                         .score_learn(X))
    assert rc == 0 and f"ROC AUC = {want:.6f}" in out + err
    assert main(["evaluate", str(path), "--algo", "hst", "--metric", "f1"]) != 0
    assert "anomaly detector" in capsys.readouterr().err


def test_the_command_line_trains_a_detector_and_predicts_with_it(tmp_path, capsys):
    from olearn.cli import main
    X = _rows()
    y = np.zeros(len(X), int)
    y[-5:] = 1
    path, model = tmp_path / "rows.csv", tmp_path / "m.olm"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    kw = ["--param", "window_size=40", "--param", "height=5", "--param", "n_trees=4"]
    assert main(["train", str(path), "--algo", "hst", "-f", str(model), *kw]) == 0
    assert "ROC AUC = " in "".join(capsys.readouterr())
    assert main(["predict", str(path), "-i", str(model), "-p", str(tmp_path / "p"),
                 "-r", str(tmp_path / "r")]) == 0
    det = HalfSpaceTrees(n_trees=4, height=5, window_size=40).fit(X)
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "p"), det.predict(X))
    np.testing.assert_allclose(np.loadtxt(tmp_path / "r"), det.decision_function(X),
                               atol=1e-4)
    # --scores: the anomaly scores (higher = more anomalous), River's score_one's
    assert main(["predict", str(path), "-i", str(model), "--scores", "-p",
                 str(tmp_path / "s")]) == 0
    np.testing.assert_allclose(np.loadtxt(tmp_path / "s"), det.score_many(X), rtol=1e-5)
    assert main(["train", str(path), "--algo", "hst", "--holdout", "10"]) != 0
    assert "anomaly detector" in capsys.readouterr().err
