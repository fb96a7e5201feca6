"""COCOB-Backprop per coordinate (Orabona and Tommasi 2017, Algorithm 2; the coin betting
of Orabona and Pal 2016): a plain numpy reference (classification, multiclass,
regression, averaging) on random data, a9a and cpusmall, dense, CSR and one row at a
time; the weights stay the betting formula of their state through label flips and the
switch to multiclass."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.linear import COCOBClassifier, COCOBRegressor
from test_linear_ogd import score_grad
from test_linear_ogd_regressor import dloss

from conftest import CLF, close, data_path, weights, with_intercept


def ref_cocob(X, y, K=1, loss="logistic", alpha=100.0, epsilon=0.1, average=False,
              regression=False):
    n, d = X.shape
    W = np.zeros((K, d))
    L = np.zeros((K, d))
    G = np.zeros((K, d))
    R = np.zeros((K, d))
    T = np.zeros((K, d))
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(n):
        x = X[t]
        r = W @ x
        scores[t] = total @ x / t if (average and t > 0) else r
        if regression:
            g = np.array([dloss(loss, r[0] - y[t], epsilon)])
        else:
            if K > 1:
                seen[int(y[t])] = True
            g = score_grad(loss, r, y[t], seen)
        for k in range(K):
            for i in np.flatnonzero(g[k] * x):
                c = -g[k] * x[i]  # the negative gradient is the coin
                L[k, i] = max(L[k, i], abs(c))
                G[k, i] += abs(c)
                R[k, i] = max(R[k, i] + W[k, i] * c, 0.0)
                T[k, i] += c
                W[k, i] = T[k, i] / (L[k, i] * max(G[k, i] + L[k, i], alpha * L[k, i])) \
                    * (L[k, i] + R[k, i])
        total += W
    return scores, W, total / n


def data(n=100, d=7, seed=0, K=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    z = X @ rng.standard_normal((d, K)) + 0.5 * rng.standard_normal((n, K))
    y = np.where(z[:, 0] > 0, 1.0, -1.0) if K == 1 else np.argmax(z, axis=1)
    return X, y, z[:, 0]


@pytest.mark.parametrize("loss,alpha,average", [("logistic", 100.0, False),
                                                ("hinge", 10.0, True)])
def test_binary_matches_reference(loss, alpha, average):
    X, y, _ = data()
    scores, W, Wbar = ref_cocob(with_intercept(X, CLF), y, loss=loss, alpha=alpha,
                                average=average)
    m = COCOBClassifier(loss=loss, alpha=alpha, average=average)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores[:, 0])
    close(weights(m), W)
    close(m._predict_weights(), Wbar if average else W)
    if loss == "logistic":
        m = COCOBClassifier(loss=loss, alpha=alpha, average=average)
        close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
        m = COCOBClassifier(loss=loss, alpha=alpha, average=average)
        m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
        for i in range(1, X.shape[0]):
            close(m.decision_function(X[i][None])[0], scores[i, 0])
            m.learn_one(X[i], y[i])
        close(weights(m), W)


def test_multiclass_matches_reference():
    X, y, _ = data(K=4, seed=1)
    scores, W, Wbar = ref_cocob(with_intercept(X, CLF), y, K=4, average=True)
    m = COCOBClassifier(average=True)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(m._predict_weights(), Wbar)


@pytest.mark.parametrize("loss", ["absolute"])  # "squared": on cpusmall below
def test_regression_matches_reference(loss):
    X, _, z = data(seed=2)
    scores, W, Wbar = ref_cocob(with_intercept(X), z, loss=loss, average=True,
                                regression=True)
    m = COCOBRegressor(loss=loss, average=True)
    close(m.predict_learn(sp.csr_matrix(X), z), scores[:, 0])
    close(weights(m), W)
    close(m._predict_weights(), Wbar)


def test_real_data_matches_reference():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    X, y = X[:2000].tocsr(), y[:2000]
    scores, W, _ = ref_cocob(with_intercept(X.toarray(), CLF), y)
    m = COCOBClassifier()
    close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
    close(weights(m), W)
    X, y = load_svmlight_file(str(data_path("cpusmall", "cpusmall.converted")),
                              n_features=12)
    X, y = X[:2000].tocsr(), y[:2000]
    scores, W, _ = ref_cocob(with_intercept(X.toarray()), y, loss="squared",
                             regression=True)
    m = COCOBRegressor()
    close(m.predict_learn(X, y), scores[:, 0], rtol=1e-9)
    close(weights(m), W, rtol=1e-9)


def test_weights_follow_the_betting_state_through_flips_and_new_classes():
    X, y, _ = data(n=60, seed=5, K=3)
    m = COCOBClassifier(alpha=5.0)
    m.partial_fit(X[y == 2][:10], y[y == 2][:10])   # one label: a single binary row
    m.partial_fit(X[y < 2], y[y < 2])                # two labels that sort before it
    m.partial_fit(X, y)                              # three: K rows
    W, Q, T = weights(m), m.state_["Q"], m.state_["T"]
    L, G, R = Q[..., 0], Q[..., 1], Q[..., 2]
    has = L > 0
    bet = T[has] / (L[has] * np.maximum(G[has] + L[has], 5.0 * L[has])) * (L[has] + R[has])
    close(W[has], bet)
    assert W.shape[0] == 3 and has.sum() > 10


def test_bad_parameters():
    with pytest.raises(ValueError, match="alpha"):
        COCOBClassifier(alpha=0).fit(np.eye(3), [0, 1, 0])
    with pytest.raises(ValueError, match="loss"):
        COCOBRegressor(loss="hinge").fit(np.eye(3), [0.0, 1.0, 0.0])
