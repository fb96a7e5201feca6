"""ALMA_2: a plain numpy reference (binary and the max-score multiclass extension, with
averaging) on random data and a9a, dense, CSR and one row at a time; on separable data
it stops updating with a margin of at least (1 - alpha) gamma* (Gentile 2001)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.datasets import make_separable
from olearn.linear import ALMAClassifier

from conftest import close, data_path, weights, with_intercept


def ref_alma(X, y, K=1, alpha=1.0, B=None, C=math.sqrt(2.0), average=False, sw=None):
    """ALMA_2(alpha; B, C) row by row: normalised instances, update when the
    normalised margin is at most (1 - alpha) B / sqrt(k), then w /= max(1, ||w||)."""
    B = 1.0 / alpha if B is None else B
    n, d = X.shape
    W = np.zeros((K, d))
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    k = 1
    for t in range(n):
        x = X[t]
        r = W @ x
        scores[t] = total @ x / t if (average and t > 0) else r
        a = 1.0 if sw is None else sw[t]
        if K == 1:
            nx = np.linalg.norm(x)
            if nx > 0 and y[t] * r[0] / nx <= (1 - alpha) * B / math.sqrt(k):
                W[0] += C / math.sqrt(k) * a * y[t] * x / nx
                W /= max(1.0, np.linalg.norm(W))
                k += 1
        else:
            c = int(y[t])
            seen[c] = True
            wrong = [j for j in range(K) if j != c and seen[j]]
            nx = math.sqrt(2.0) * np.linalg.norm(x)
            if wrong and nx > 0:
                s = max(wrong, key=lambda j: (r[j], -j))
                if (r[c] - r[s]) / nx <= (1 - alpha) * B / math.sqrt(k):
                    W[c] += C / math.sqrt(k) * a * x / nx
                    W[s] -= C / math.sqrt(k) * a * x / nx
                    W /= max(1.0, np.linalg.norm(W))
                    k += 1
        total += W
    return scores, W, total / n, k - 1


def binary_data(n=100, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("alpha,B,C,average", [(1.0, None, math.sqrt(2), False),
                                               (0.6, None, 1.0, True),
                                               (0.3, 2.0, 0.5, False)])
def test_binary_matches_reference(alpha, B, C, average):
    X, y = binary_data()
    scores, W, Wbar, k = ref_alma(with_intercept(X), y, alpha=alpha, B=B, C=C,
                                  average=average)
    for data in (X, sp.csr_matrix(X)):
        m = ALMAClassifier(alpha=alpha, B=B, C=C, average=average)
        close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
        close(weights(m), W)
        close(m._predict_weights(), Wbar if average else W)
        assert m.n_updates_ == k == m.state_["A"][0, 6]
    m = ALMAClassifier(alpha=alpha, B=B, C=C, average=average)
    m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
    for i in range(1, X.shape[0]):
        close(m.decision_function(X[i][None])[0], scores[i, 0])
        m.learn_one(X[i], y[i])
    close(weights(m), W)


def test_sample_weight_multiplies_the_step():
    X, y = binary_data(seed=2)
    sw = np.random.default_rng(2).uniform(0, 2, X.shape[0])
    _, W, _, _ = ref_alma(X, y, alpha=0.5, sw=sw)
    m = ALMAClassifier(alpha=0.5, fit_intercept=False)
    m.partial_fit(sp.csr_matrix(X), y, sample_weight=sw)
    close(weights(m), W)


def test_a9a_matches_reference():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    X, y = X[:3000].tocsr(), y[:3000]
    scores, W, Wbar, _ = ref_alma(with_intercept(X.toarray()), y, alpha=0.8, average=True)
    m = ALMAClassifier(alpha=0.8, average=True)
    close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
    close(weights(m), W)
    close(m.coef_, Wbar[:, 1:])


@pytest.mark.parametrize("alpha,average", [(1.0, False), (0.5, True)])
def test_multiclass_matches_reference(alpha, average):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((90, 6)) * (rng.random((90, 6)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((6, 4)) + 0.5 * rng.standard_normal((90, 4)), 1)
    scores, W, Wbar, _ = ref_alma(with_intercept(X), y, K=4, alpha=alpha, average=average)
    m = ALMAClassifier(alpha=alpha, average=average)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(weights(m), W)
    close(m._predict_weights(), Wbar if average else W)
    assert np.linalg.norm(weights(m)) <= 1.0 + 1e-12


def test_reaches_a_fraction_of_the_best_margin_on_separable_data():
    X, y, w_star = make_separable(n=2000, d=10, margin=0.1, radius=1.0, random_state=1)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    gamma = np.min(y * (Xn @ w_star))
    alpha = 0.5
    m = ALMAClassifier(alpha=alpha, fit_intercept=False)
    for _ in range(40):
        before = getattr(m, "n_updates_", 0)
        m.partial_fit(X, y, classes=[-1.0, 1.0])
        if m.n_updates_ == before:
            break
    assert m.n_updates_ == before  # converged: a full pass without an update
    w = m.coef_[0]
    assert np.min(y * (Xn @ w)) / np.linalg.norm(w) >= (1 - alpha) * gamma


@pytest.mark.parametrize("params,match", [({"p": 3}, "p must be 2"), ({"alpha": 0.0}, "alpha"),
                                          ({"alpha": 1.5}, "alpha"), ({"B": -1.0}, "B"),
                                          ({"C": 0.0}, "C")])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        ALMAClassifier(**params).fit(np.eye(3), [0, 1, 0])
