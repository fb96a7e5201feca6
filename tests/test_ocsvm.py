"""The online one-class SVM (``olearn.anomaly.OneClassSVM``, registered as ``ocsvm``)
against a plain numpy loop of its equations (Schoelkopf et al. 2001's nu-formulation,
one subgradient step per row; Rahimi and Recht 2007's random Fourier features), dense,
CSR and dict rows, both step sizes, with and without features; the anomaly calls;
save/load and mix."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.anomaly import OneClassSVM

TOL = 1e-10


def reference(X, nu, rate, eta0, U=None, b=None, w=None):
    """z = x, or sqrt(2/D) cos(x U + b); per row the pre-update score rho - w.z, then
    I = [w.z < rho], eta = 1/(nu t) (t the weighted rows so far, this one included) or
    eta0, times the row's weight s: w <- (1 - eta s nu) w + eta s I z,
    rho <- rho - eta s (I - nu).  Returns the scores and the last (w, rho)."""
    n, d = X.shape
    m = d if U is None else U.shape[1]
    wt, rho, t = np.zeros(m), 0.0, 0.0
    scores = []
    for i in range(n):
        s = 1.0 if w is None else w[i]
        z = X[i] if U is None else math.sqrt(2.0 / m) * np.cos(X[i] @ U + b)
        f = wt @ z
        scores.append(rho - f)
        if s == 0:
            continue
        t += s
        eta = (1.0 / (nu * t) if rate == "pegasos" else eta0) * s
        hit = 1.0 if f < rho else 0.0
        wt = (1.0 - eta * nu) * wt + eta * hit * z
        rho -= eta * (hit - nu)
    return np.array(scores), wt, rho


def _stream(n=300, d=4, seed=0, sparse_frac=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(n) < 0.05] *= 5.0
    if sparse_frac:
        X[rng.random(X.shape) < sparse_frac] = 0.0
    return X


CASES = [(0.1, "pegasos", 100), (0.3, "constant", 50), (0.1, "pegasos", None),
         (0.5, "constant", None)]


@pytest.mark.parametrize("nu,rate,D", CASES)
def test_dense_and_csr_equal_the_reference(nu, rate, D):
    X = _stream(sparse_frac=0.3)
    make = lambda: OneClassSVM(nu=nu, n_components=D, gamma=0.5, learning_rate=rate,  # noqa
                               eta0=0.05, random_state=3)
    m = make()
    got = m.score_learn(X)
    U, b = m.random_weights_, m.random_offset_
    want, w, rho = reference(X, nu, rate, 0.05, U, b)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_allclose(m.coef_, w, rtol=0, atol=TOL)
    assert abs(m.offset_ - rho) < TOL and m.n_samples_seen_ == len(X)
    c = make()
    np.testing.assert_allclose(c.score_learn(sp.csr_matrix(X)), want, rtol=0, atol=TOL)
    np.testing.assert_allclose(c.coef_, w, rtol=0, atol=TOL)
    # the calls, from the final model
    Z = X if D is None else math.sqrt(2.0 / D) * np.cos(X @ U + b)
    np.testing.assert_allclose(m.score_samples(X), Z @ w, rtol=0, atol=1e-9)
    np.testing.assert_allclose(m.decision_function(X), Z @ w - rho, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(m.predict(X), np.where(Z @ w - rho < 0, -1, 1))
    assert m.score_one(X[0]) == pytest.approx(rho - Z[0] @ w, abs=1e-9)


def test_dicts_and_weights_equal_the_reference():
    X = _stream(n=200, d=3, seed=1)
    sw = np.random.default_rng(2).choice([0.0, 0.5, 1.0, 2.0], size=len(X))
    m = OneClassSVM(n_components=30)
    got = []
    for row, s in zip(X, sw):
        x = {f"f{j}": float(v) for j, v in enumerate(row)}
        got.append(m.score_one(x))  # (the first: 0, the fresh model's rho - w.z)
        m.learn_one(x, sample_weight=s)
    want, w, rho = reference(X, 0.1, "pegasos", 0.0, m.random_weights_,
                             m.random_offset_, sw)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_allclose(m.coef_, w, rtol=0, atol=TOL)
    assert m.n_samples_seen_ == pytest.approx(sw.sum())
    b = OneClassSVM(n_components=30)
    np.testing.assert_allclose(b.score_learn(X, sample_weight=sw), want, rtol=0, atol=TOL)


def test_the_features_approximate_the_rbf_kernel():
    m = OneClassSVM(n_components=4000, gamma=0.7).partial_fit(np.zeros((1, 3)))
    U, b = m.random_weights_, m.random_offset_
    assert abs(U.std() - math.sqrt(1.4)) < 0.05 and 0 <= b.min() and b.max() < 2 * math.pi
    x = np.random.default_rng(4).normal(size=(6, 3))
    Z = math.sqrt(2.0 / 4000) * np.cos(x @ U + b)
    K = np.exp(-0.7 * ((x[:, None] - x[None]) ** 2).sum(-1))
    assert np.abs(Z @ Z.T - K).max() < 0.08
    # a column first met gets its own draws: a model widened goes on as one that saw zeros
    one = OneClassSVM(n_components=8).partial_fit(np.ones((2, 2)))
    one.widen(4)
    np.testing.assert_array_equal(one.random_weights_[:2],
                                  OneClassSVM(n_components=8).partial_fit(
                                      np.ones((2, 4))).random_weights_[:2])


def test_outliers_score_high_and_river_filters_take_it():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(600, 2))
    X[500] = [6.0, -6.0]
    m = OneClassSVM(n_components=100, gamma=0.5)
    s = m.score_learn(X)
    assert s[500] > np.quantile(s[100:500], 0.99)
    assert m.predict(X[500:501])[0] == -1 and m.predict_one(X[500]) == -1
    anomaly = pytest.importorskip("river.anomaly")
    f = anomaly.QuantileFilter(OneClassSVM(n_components=100, gamma=0.5), q=0.98)
    flags = []
    for row in X:
        x = dict(enumerate(row))
        flags.append(f.classify(f.score_one(x)))
        f.learn_one(x)
    assert flags[500]


def test_save_load_and_mix(tmp_path):
    X = _stream(n=160, seed=6)
    m = olearn.make("ocsvm", nu=0.2, n_components=20).partial_fit(X[:80])
    m.save(tmp_path / "o.olearn")
    back = olearn.load(tmp_path / "o.olearn")
    np.testing.assert_array_equal(back.score_learn(X[80:]), m.score_learn(X[80:]))
    a = OneClassSVM(n_components=20).partial_fit(X[:40])
    b = OneClassSVM(n_components=20).partial_fit(X[40:])
    mixed = olearn.mix([a, b])
    np.testing.assert_allclose(mixed.coef_, (40 * a.coef_ + 120 * b.coef_) / 160,
                               rtol=0, atol=1e-12)
    assert mixed.offset_ == pytest.approx((40 * a.offset_ + 120 * b.offset_) / 160)
    assert mixed.n_samples_seen_ == 160
    with pytest.raises(olearn.protocol.CannotMixError):
        olearn.mix([a, OneClassSVM(n_components=20, random_state=1).partial_fit(X)])


@pytest.mark.parametrize("params,message", [
    ({"nu": 0.0}, "nu"), ({"nu": 1.5}, "nu"), ({"n_components": 0}, "n_components"),
    ({"gamma": -1.0}, "gamma"), ({"learning_rate": "adam"}, "learning_rate must be one"),
    ({"eta0": 0.0}, "eta0"),
])
def test_bad_parameters_are_one_line_errors(params, message):
    with pytest.raises(ValueError, match=message) as info:
        OneClassSVM(**params).partial_fit(np.ones((3, 2)))
    assert "\n" not in str(info.value)


def test_tags_and_registry():
    t = olearn.tags(olearn.make("ocsvm"))
    assert t.target == "none" and t.sparse_input and t.one_example
    assert "ocsvm" in olearn.registry.unlabelled_names()
    assert OneClassSVM().__sklearn_tags__().estimator_type == "outlier_detector"


def test_without_features_passes_the_generic_checks(tmp_path):
    from generic_unlabelled import check_unlabelled
    X = _stream(n=60, seed=7, sparse_frac=0.3)
    check_unlabelled(lambda: OneClassSVM(n_components=None, learning_rate="constant"), X,
                     tmp_path)


@pytest.mark.parametrize("D", [100, None])
def test_kdd99_http_prefix_equals_the_reference(D):
    from conftest import data_path
    data = np.loadtxt(data_path("kdd99_http", "kdd99_http.csv.gz"), delimiter=",",
                      skiprows=1, max_rows=3000)
    X = np.ascontiguousarray(data[:, :-1])
    m = OneClassSVM(n_components=D)
    got = m.score_learn(sp.csr_matrix(X))
    want, w, rho = reference(X, 0.1, "pegasos", 0.0, m.random_weights_, m.random_offset_)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_allclose(m.coef_, w, rtol=0, atol=TOL)
