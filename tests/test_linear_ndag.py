"""NDAG (normalized adaptive gradient, Ross, Mineiro and Langford 2013, Algorithm 2): a
plain numpy reference (classification, multiclass, regression, averaging) on random data,
a9a and cpusmall, dense, CSR and one row at a time; predictions invariant to rescaling
any feature."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.linear import NDAGClassifier, NDAGRegressor
from test_linear_ogd import score_grad
from test_linear_ogd_regressor import dloss

from conftest import close, data_path, weights, with_intercept


def ref_ndag(X, y, K=1, loss="logistic", eta=0.5, epsilon=0.1, average=False,
             regression=False):
    n, d = X.shape
    W = np.zeros((K, d))
    G = np.zeros((K, d))
    s = np.zeros(d)
    N = 0.0
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(1, n + 1):
        x = X[t - 1]
        nz = np.flatnonzero(x)
        clipped = np.clip(x, -s, s)  # what the averaged weights predict from
        grow = nz[np.abs(x[nz]) > s[nz]]
        old = s[grow]
        W[:, grow] *= np.where(old > 0, old / np.abs(x[grow]), 1.0)  # step 1
        s[grow] = np.abs(x[grow])
        r = W @ x                                                    # step 2
        scores[t - 1] = total @ clipped / (t - 1) if (average and t > 1) else r
        N += np.sum((x[nz] / s[nz]) ** 2)                            # step 3
        if regression:
            g = np.array([dloss(loss, r[0] - y[t - 1], epsilon)])
        else:
            if K > 1:
                seen[int(y[t - 1])] = True
            g = score_grad(loss, r, y[t - 1], seen)
        if np.any(g != 0) and N > 0:                                 # step 4
            rate = eta * math.sqrt(t / N)
            for k in range(K):
                gx = g[k] * x
                m = gx != 0
                G[k, m] += gx[m] ** 2
                W[k, m] -= rate * gx[m] / (s[m] * np.sqrt(G[k, m]))
        total += W
    return scores, W, total / n


def data(n=100, d=7, seed=0, K=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6) * rng.uniform(0.1, 5, d)
    z = X @ rng.standard_normal((d, K)) + 0.5 * rng.standard_normal((n, K))
    y = np.where(z[:, 0] > 0, 1.0, -1.0) if K == 1 else np.argmax(z, axis=1)
    return X, y, z[:, 0]


@pytest.mark.parametrize("loss,average", [("logistic", False), ("logistic", True),
                                          ("hinge", True)])
def test_binary_matches_reference(loss, average):
    X, y, _ = data()
    scores, W, Wbar = ref_ndag(with_intercept(X), y, loss=loss, average=average)
    m = NDAGClassifier(loss=loss, average=average)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores[:, 0])
    close(weights(m), W)
    close(m._predict_weights(), Wbar if average else W)
    if loss == "logistic":
        m = NDAGClassifier(loss=loss, average=average)
        close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
        close(m.coef_, (Wbar if average else W)[:, 1:])
        m = NDAGClassifier(loss=loss, average=average)
        m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
        for i in range(1, X.shape[0]):
            close(m.decision_function(X[i][None])[0], scores[i, 0])
            m.learn_one(X[i], y[i])
        close(weights(m), W)


def test_multiclass_matches_reference():
    X, y, _ = data(K=4, seed=1)
    scores, W, Wbar = ref_ndag(with_intercept(X), y, K=4, average=True)
    m = NDAGClassifier(average=True)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(m._predict_weights(), Wbar)


@pytest.mark.parametrize("loss", ["squared", "huber"])
def test_regression_matches_reference(loss):
    X, _, z = data(seed=2)
    m = NDAGRegressor(loss=loss, epsilon=0.5, average=True)
    scores, W, Wbar = ref_ndag(with_intercept(X), z, loss=loss, eta=m.eta, epsilon=0.5,
                               average=True, regression=True)
    close(m.predict_learn(sp.csr_matrix(X), z), scores[:, 0])
    close(weights(m), W)
    close(m._predict_weights(), Wbar)


def test_real_data_matches_reference():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    X, y = X[:2000].tocsr(), y[:2000]
    scores, W, _ = ref_ndag(with_intercept(X.toarray()), y)
    m = NDAGClassifier()
    close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
    close(weights(m), W)
    X, y = load_svmlight_file(str(data_path("cpusmall", "cpusmall.converted")),
                              n_features=12)
    X, y = X[:2000].tocsr(), y[:2000]
    m = NDAGRegressor()
    scores, W, _ = ref_ndag(with_intercept(X.toarray()), y, loss="squared", eta=m.eta,
                            regression=True)
    close(m.predict_learn(X, y), scores[:, 0], rtol=1e-9)
    close(weights(m), W, rtol=1e-9)


def test_predictions_are_invariant_to_feature_scales():
    """Feature i times c_i (any sign, |c_i| from 1e-3 to 1e3): same predictions."""
    X, y, z = data(n=300, seed=3)
    c = np.random.default_rng(3).choice([-1.0, 1.0], X.shape[1]) * 10.0 ** \
        np.random.default_rng(4).uniform(-3, 3, X.shape[1])
    a = NDAGClassifier().predict_learn(sp.csr_matrix(X), y, return_scores=True)
    b = NDAGClassifier().predict_learn(sp.csr_matrix(X * c), y, return_scores=True)
    close(b, a, rtol=1e-9)
    a = NDAGRegressor().predict_learn(sp.csr_matrix(X), z)
    b = NDAGRegressor().predict_learn(sp.csr_matrix(X * c), z)
    close(b, a, rtol=1e-9)


def test_bad_parameters():
    with pytest.raises(ValueError, match="eta"):
        NDAGClassifier(eta=0).fit(np.eye(3), [0, 1, 0])
    with pytest.raises(ValueError, match="loss"):
        NDAGRegressor(loss="logistic").fit(np.eye(3), [0.0, 1.0, 0.0])


def test_predictions_clip_each_feature_to_its_known_scale():
    X, y, z = data(n=80, seed=6)
    m = NDAGRegressor(average=True, shuffle=False).fit(X, z)
    S = m.state_["S"][1:]
    Xbig = X * 50.0
    expected = np.clip(Xbig, -S, S) @ m.coef_ + m.intercept_
    close(m.predict(Xbig), expected)
    close(m.predict(sp.csr_matrix(Xbig)), expected)
    close(m.predict_one(Xbig[3]), expected[3])


def test_logistic_ndag_and_cocob_give_the_sigmoid_of_their_scores():
    import olearn
    from olearn.linear._proba import _proba
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 5))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    for name in ("ndag", "cocob"):
        m = olearn.make(name).partial_fit(X, y)
        s = m.decision_function(X)
        np.testing.assert_allclose(m.predict_proba(X)[:, 1], 1 / (1 + np.exp(-s)), rtol=1e-12)
        assert hasattr(olearn.make(name, loss="hinge"), "predict_proba")  # (the link)
        # multiclass: the softmax over the classes seen
        yk = np.arange(80) % 3
        mk = olearn.make(name).partial_fit(X, yk)
        np.testing.assert_allclose(mk.predict_proba(X), _proba(mk, mk.decision_function(X)))
        np.testing.assert_allclose(mk.predict_proba(X).sum(axis=1), 1.0)
