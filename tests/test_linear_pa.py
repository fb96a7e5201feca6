"""Passive-Aggressive: plain numpy references of PA / PA-I / PA-II classification (binary
and max-score multiclass) and regression against the compiled learners on random data,
a9a and cpusmall, dense, CSR and one row at a time, with and without averaging; after a
"PA" update the loss on that example is zero; a zero row never updates."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.linear import PAClassifier, PARegressor

from conftest import CLF, close, data_path, weights, with_intercept

STEP = {"PA": lambda C: (math.inf, 0.0), "PA-I": lambda C: (C, 0.0),
        "PA-II": lambda C: (math.inf, 0.5 / C)}


# ---------------------------------------------------------------- references

def ref_pa(X, y, K=1, variant="PA-I", C=1.0, average=False, sw=None):
    """PA classification row by row (Crammer et al. 2006, eq. 6 and section 7)."""
    c, D = STEP[variant](C)
    n, d = X.shape
    W = np.zeros((K, d))
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(n):
        x = X[t]
        r = W @ x
        scores[t] = total @ x / t if (average and t > 0) else r
        a = 1.0 if sw is None else sw[t]
        sq = x @ x
        if K == 1:
            loss = 1.0 - y[t] * r[0]
            if loss > 0 and sq > 0:
                W[0] += min(c, loss / (sq + D)) * a * y[t] * x
        else:
            k = int(y[t])
            seen[k] = True
            wrong = [j for j in range(K) if j != k and seen[j]]
            if wrong:
                s = max(wrong, key=lambda j: (r[j], -j))
                loss = 1.0 - (r[k] - r[s])
                if loss > 0 and sq > 0:
                    tau = min(c, loss / (2.0 * sq + D)) * a
                    W[k] += tau * x
                    W[s] -= tau * x
        total += W
    return scores, W, total / n


def ref_pa_regression(X, y, variant="PA-I", C=1.0, epsilon=0.1, average=False):
    """PA regression row by row (Crammer et al. 2006, section 4)."""
    c, D = STEP[variant](C)
    n, d = X.shape
    w = np.zeros(d)
    total = np.zeros(d)
    scores = np.zeros(n)
    for t in range(n):
        x = X[t]
        r = w @ x
        scores[t] = total @ x / t if (average and t > 0) else r
        loss = abs(y[t] - r) - epsilon
        sq = x @ x
        if loss > 0 and sq > 0:
            w += np.sign(y[t] - r) * min(c, loss / (sq + D)) * x
        total += w
    return scores, w, total / n


def learn_rows(model, X, y):
    """learn_one over the rows; returns the scores seen before each update."""
    score = getattr(model, "decision_function", None) or model.predict
    out = []
    for i in range(X.shape[0]):
        out.append(score(X[i][None])[0] if hasattr(model, "state_") else 0.0)
        model.learn_one(X[i], y[i])
    return np.array(out)


def binary_data(n=80, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture(scope="module")
def a9a():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    return X[:3000].tocsr(), y[:3000]


@pytest.fixture(scope="module")
def cpusmall():
    X, y = load_svmlight_file(str(data_path("cpusmall", "cpusmall.converted")),
                              n_features=12)
    return X[:3000].tocsr(), y[:3000]


# ---------------------------------------------------------------- classification
@pytest.mark.parametrize("variant,C,average", [("PA", 1.0, False), ("PA-I", 0.3, True),
                                               ("PA-II", 0.7, False)])
def test_binary_matches_reference(variant, C, average):
    X, y = binary_data()
    scores, W, Wbar = ref_pa(with_intercept(X, CLF), y, variant=variant, C=C, average=average)
    for data in (X, sp.csr_matrix(X)):
        m = PAClassifier(C=C, variant=variant, average=average)
        close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
        close(weights(m), W)
        close(m._predict_weights(), Wbar if average else W)
    m = PAClassifier(C=C, variant=variant, average=average)
    close(learn_rows(m, X, y), scores[:, 0])
    close(weights(m), W)


def test_binary_sample_weight():
    X, y = binary_data(seed=4)
    sw = np.random.default_rng(4).uniform(0, 2, X.shape[0])
    _, W, _ = ref_pa(X, y, variant="PA-II", C=0.5, sw=sw)
    m = PAClassifier(C=0.5, variant="PA-II", fit_intercept=False)
    m.partial_fit(sp.csr_matrix(X), y, sample_weight=sw)
    close(weights(m), W)


@pytest.mark.parametrize("variant,average", [("PA", True), ("PA-I", False),
                                             ("PA-II", True)])
def test_multiclass_matches_reference(variant, average):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((90, 6)) * (rng.random((90, 6)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((6, 4)) + 0.5 * rng.standard_normal((90, 4)), 1)
    scores, W, Wbar = ref_pa(with_intercept(X, CLF), y, K=4, variant=variant, C=0.4,
                             average=average)
    for data in (X, sp.csr_matrix(X)):
        m = PAClassifier(C=0.4, variant=variant, average=average)
        close(m.predict_learn(data, y, return_scores=True), scores)
        close(weights(m), W)
        close(m._predict_weights(), Wbar if average else W)
    m = PAClassifier(C=0.4, variant=variant, average=average)
    m.predict_learn(X[:30], y[:30])
    close(learn_rows(m, X[30:], y[30:]), scores[30:])
    close(weights(m), W)


def test_a9a_matches_reference(a9a):
    X, y = a9a
    Xd = X.toarray()
    for variant, average in (("PA-I", False), ("PA", True)):
        scores, W, Wbar = ref_pa(with_intercept(Xd, CLF), y, variant=variant, C=0.1,
                                 average=average)
        for data in (X, Xd):
            m = PAClassifier(C=0.1, variant=variant, average=average)
            close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
            close(weights(m), W)
            close(m._predict_weights(), Wbar if average else W)


# ---------------------------------------------------------------- regression
@pytest.mark.parametrize("variant,average", [("PA", False), ("PA-I", True),
                                             ("PA-II", False)])
def test_regression_matches_reference(variant, average):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 5)) * (rng.random((80, 5)) < 0.7)
    y = X @ rng.standard_normal(5) + 0.3 * rng.standard_normal(80)
    scores, w, wbar = ref_pa_regression(with_intercept(X), y, variant=variant, C=0.6,
                                        epsilon=0.2, average=average)
    for data in (X, sp.csr_matrix(X)):
        m = PARegressor(C=0.6, epsilon=0.2, variant=variant, average=average)
        close(m.predict_learn(data, y), scores)
        close(weights(m)[0], w)
        close(m._predict_weights()[0], wbar if average else w)
    m = PARegressor(C=0.6, epsilon=0.2, variant=variant, average=average)
    close(learn_rows(m, X, y), scores)
    close(weights(m)[0], w)


def test_cpusmall_matches_reference(cpusmall):
    X, y = cpusmall
    Xd = X.toarray()
    for variant, average in (("PA-I", True), ("PA-II", False)):
        scores, w, wbar = ref_pa_regression(with_intercept(Xd), y, variant=variant, C=0.05,
                                            epsilon=1.0, average=average)
        for data in (X, Xd):
            m = PARegressor(C=0.05, epsilon=1.0, variant=variant, average=average)
            close(m.predict_learn(data, y), scores)
            close(weights(m)[0], w)
            close(m._predict_weights()[0], wbar if average else w)


# ---------------------------------------------------------------- theory
def test_after_a_pa_update_the_loss_is_zero():
    X, y = binary_data(n=60, seed=8)
    m = PAClassifier(variant="PA")
    m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
    for i in range(1, X.shape[0]):
        m.learn_one(X[i], y[i])
        margin = y[i] * m.decision_function(X[i][None])[0]
        assert margin >= 1.0 - 1e-9
    rng = np.random.default_rng(9)
    Xr = rng.standard_normal((60, 4))
    yr = Xr @ rng.standard_normal(4) + rng.standard_normal(60)
    r = PARegressor(variant="PA", epsilon=0.25)
    for i in range(Xr.shape[0]):
        r.learn_one(Xr[i], yr[i])
        assert abs(yr[i] - r.predict(Xr[i][None])[0]) <= 0.25 + 1e-9


def test_a_zero_row_never_updates():
    X, y = binary_data(n=20)
    Z = np.zeros((3, X.shape[1]))
    for average in (False, True):
        for conv in (np.asarray, sp.csr_matrix):
            m = PAClassifier(fit_intercept=False, average=average, shuffle=False).fit(conv(X), y)
            W, n = weights(m).copy(), m.n_updates_
            m.partial_fit(conv(Z), [1.0, -1.0, 1.0])
            assert m.n_updates_ == n and np.array_equal(weights(m), W)
            r = PARegressor(fit_intercept=False, average=average, shuffle=False).fit(conv(X), X[:, 0] + 3)
            W, n = weights(r).copy(), r.n_updates_
            r.partial_fit(conv(Z), [5.0, -5.0, 2.0])
            assert r.n_updates_ == n and np.array_equal(weights(r), W)


@pytest.mark.parametrize("params", [{"C": 0}, {"variant": "PA-III"}, {"average": 1}])
def test_bad_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        PAClassifier(**params).fit(np.eye(3), [0, 1, 0])
    with pytest.raises(ValueError, match="epsilon"):
        PARegressor(epsilon=-1).fit(np.eye(3), [0, 1, 0])
