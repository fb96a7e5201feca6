"""LODA (``olearn.anomaly.Loda``, registered as ``loda``) against a plain numpy
reference of Pevny (2016)'s score over on-line histograms (bins set by the first
window, every later row added), dense, CSR and dict rows; the sparse projections; the
running quantile of ``predict``; save/load and mix."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.anomaly import Loda

TOL = 1e-10


def reference(X, Wp, n_bins, window, contamination=0.01, w=None):
    """Projections z = Wp x (summed column by column); the first ``window`` rows (weight > 0) score 0 and set,
    per projection, the width h = (max - min) / n_bins (1 if 0) and 3 n_bins bins from
    min - n_bins h; they then fill the bins.  Later rows score
    -(1/k) sum_i log((c_i + 1) / ((n + 3 n_bins) h_i)) (c_i: the weighted count of the
    row's bin, 0 beyond the bins; n: the weighted rows) and add to their bin.  The
    quantile q: the first score, then q += sd (1[f > q] - contamination) / sqrt(m).
    Returns the scores, counts, edges, widths and q."""
    n, d = X.shape
    k, nb = Wp.shape[0], 3 * n_bins
    w = np.ones(n) if w is None else w
    first, weights = [], []
    H = np.zeros((k, nb))
    lo = h = None
    total = 0.0
    scores = []
    fs = []
    q = None
    for r in range(n):
        z = np.zeros(k)
        for j in range(d):  # (column by column, as the kernel: a bin edge is exact)
            z = z + Wp[:, j] * X[r, j]
        if lo is None:
            scores.append(0.0)
            if w[r] == 0:
                continue
            first.append(z)
            weights.append(w[r])
            if len(first) == window:
                F = np.array(first)
                h = (F.max(0) - F.min(0)) / n_bins
                h[h <= 0] = 1.0
                lo = F.min(0) - n_bins * h
                for t in range(window):
                    b = np.floor((F[t] - lo) / h).astype(int)
                    for i in range(k):
                        if 0 <= b[i] < nb:
                            H[i, b[i]] += weights[t]
                total = float(sum(weights))
            continue
        b = np.floor((z - lo) / h).astype(int)
        c = np.array([H[i, b[i]] if 0 <= b[i] < nb else 0.0 for i in range(k)])
        f = -np.mean(np.log((c + 1.0) / ((total + nb) * h)))
        scores.append(f)
        if w[r] == 0:
            continue
        fs.append(f)
        if q is None:
            q = f
        else:
            sd = np.std(fs)
            q += sd * ((1.0 if f > q else 0.0) - contamination) / math.sqrt(len(fs))
        for i in range(k):
            if 0 <= b[i] < nb:
                H[i, b[i]] += w[r]
        total += w[r]
    return np.array(scores), H, lo, h, q


def _stream(n=400, d=5, seed=0, sparse_frac=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(n) < 0.03] *= 8.0
    if sparse_frac:
        X[rng.random(X.shape) < sparse_frac] = 0.0
    return X


@pytest.mark.parametrize("k,n_bins,window", [(20, 10, 50), (7, 4, 128)])
def test_dense_and_csr_equal_the_reference(k, n_bins, window):
    X = _stream(sparse_frac=0.3)
    make = lambda: Loda(n_projections=k, n_bins=n_bins, window_size=window)  # noqa: E731
    m = make()
    got = m.score_learn(X)
    Wp = m.projections_
    want, H, lo, h, q = reference(X, Wp, n_bins, window)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    st = m.export_state()[1]
    np.testing.assert_allclose(st["state/Hc"], H, rtol=0, atol=0)
    np.testing.assert_allclose(st["state/Lo"], lo, rtol=0, atol=TOL)
    np.testing.assert_allclose(st["state/Hw"], h, rtol=0, atol=TOL)
    assert abs(m.threshold_ - q) < 1e-9
    c = make()
    np.testing.assert_allclose(c.score_learn(sp.csr_matrix(X)), want, rtol=0, atol=TOL)
    # the calls from the final model: the reference's score of each row, nothing learned
    more = _stream(n=30, seed=9)
    after = reference(np.vstack([X, more]), Wp, n_bins, window)[0][len(X):]
    first = reference(np.vstack([X, more[:1]]), Wp, n_bins, window)[0][-1]
    assert m.score_one(more[0]) == pytest.approx(first, abs=TOL)
    np.testing.assert_allclose(m.score_samples(more[:1]), [-first], rtol=0, atol=TOL)
    assert after[0] == pytest.approx(first, abs=TOL)
    np.testing.assert_array_equal(m.predict(more),
                                  np.where(-m.score_samples(more) > q, -1, 1))


def test_dicts_and_weights_equal_the_reference():
    X = _stream(n=200, d=4, seed=1)
    sw = np.random.default_rng(2).choice([0.0, 0.5, 1.0, 2.0], size=len(X))
    m = Loda(n_projections=15, window_size=40)
    got = []
    for row, s in zip(X, sw):
        x = {f"f{j}": float(v) for j, v in enumerate(row)}
        got.append(m.score_one(x))
        m.learn_one(x, sample_weight=s)
    want, H, *_ = reference(X, m.projections_, 10, 40, w=sw)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    b = Loda(n_projections=15, window_size=40)
    np.testing.assert_allclose(b.score_learn(X, sample_weight=sw), want, rtol=0, atol=TOL)


def test_projections_are_sparse_gaussian():
    m = Loda(n_projections=400).partial_fit(np.ones((1, 10)))
    P = m.projections_
    assert ((P != 0).sum(1) == 4).all()  # ceil(sqrt(10)) non-zero entries each
    nz = P[P != 0]
    assert abs(nz.mean()) < 0.15 and abs(nz.std() - 1.0) < 0.1
    assert set(np.flatnonzero((P != 0).any(0))) == set(range(10))


def test_outliers_score_high_and_the_quantile_flags_about_contamination():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, 3))
    X[3000] = [7.0, -7.0, 7.0]
    m = Loda(contamination=0.05)
    s = m.score_learn(X)
    assert s[3000] > s[256:3000].max()
    assert m.predict_one(X[3000]) == -1
    assert 0.02 < (m.predict(X) == -1).mean() < 0.08


def test_save_load_and_mix(tmp_path):
    X = _stream(n=400, seed=6)
    m = olearn.make("loda", n_projections=10, window_size=50).partial_fit(X[:200])
    m.save(tmp_path / "l.olearn")
    back = olearn.load(tmp_path / "l.olearn")
    np.testing.assert_array_equal(back.score_learn(X[200:]), m.score_learn(X[200:]))
    a = Loda(n_projections=10, window_size=50).partial_fit(X[:100])
    b = olearn.load(tmp_path / "l.olearn")  # the same first window as a
    b.partial_fit(X[300:])
    mixed = olearn.mix([a, b])  # the histograms of the two streams: counts add
    A, B, M = (u.export_state()[1] for u in (a, b, mixed))
    np.testing.assert_array_equal(M["state/Hc"], A["state/Hc"] + B["state/Hc"])
    assert M["state/C"][2] == A["state/C"][2] + B["state/C"][2] == 100 + 300
    np.testing.assert_array_equal(M["state/Lo"], A["state/Lo"])
    with pytest.raises(olearn.protocol.CannotMixError, match="bins are the same"):
        olearn.mix([a, Loda(n_projections=10, window_size=50).partial_fit(X[100:])])


@pytest.mark.parametrize("params,message", [
    ({"n_projections": 0}, "n_projections"), ({"n_bins": 1.5}, "n_bins"),
    ({"window_size": -1}, "window_size"), ({"contamination": 0.7}, "contamination"),
    ({"threshold": float("nan")}, "threshold"),
])
def test_bad_parameters_are_one_line_errors(params, message):
    with pytest.raises(ValueError, match=message) as info:
        Loda(**params).partial_fit(np.ones((3, 2)))
    assert "\n" not in str(info.value)


def test_tags_and_registry():
    t = olearn.tags(olearn.make("loda"))
    assert t.target == "none" and t.sparse_input and t.one_example and t.width_dependent
    assert "loda" in olearn.registry.unlabelled_names()


def test_past_the_first_window_passes_the_generic_checks(tmp_path):
    from generic_unlabelled import check_unlabelled
    check_unlabelled(lambda: Loda(n_projections=10, window_size=20),
                     _stream(n=60, seed=8, sparse_frac=0.3), tmp_path)


def test_kdd99_http_prefix_equals_the_reference():
    from conftest import data_path
    data = np.loadtxt(data_path("kdd99_http", "kdd99_http.csv.gz"), delimiter=",",
                      skiprows=1, max_rows=3000)
    X = np.ascontiguousarray(data[:, :-1])
    m = Loda(n_projections=20)
    got = m.score_learn(X)
    want, H, *_ = reference(X, m.projections_, 10, 256)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_array_equal(m.export_state()[1]["state/Hc"], H)
    np.testing.assert_allclose(Loda(n_projections=20).score_learn(sp.csr_matrix(X)), want,
                               rtol=0, atol=TOL)
