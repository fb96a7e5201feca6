"""ROMMA / aROMMA: a plain numpy reference (binary and the max-score multiclass extension,
with averaging) on random data and a9a, dense, CSR and one row at a time; after an
update the example's margin is 1; mistakes within (R/gamma)^2 on separable data."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.datasets import make_separable
from olearn.linear import ROMMAClassifier

from conftest import close, data_path, weights, with_intercept


def romma_update(W, Phi, m):
    """The paper's update on the example Phi (label +1, margin m = W . Phi)."""
    P = np.sum(Phi * Phi)
    W2 = np.sum(W * W)
    if W2 == 0:
        return W + Phi / P
    deno = P * W2 - m * m
    if deno <= 1e-12 * P * W2:  # Phi parallel to W
        return Phi / P if m > 0 else W
    return (P * W2 - m) / deno * W + W2 * (1 - m) / deno * Phi


def ref_romma(X, y, K=1, aggressive=False, average=False):
    n, d = X.shape
    W = np.zeros((K, d))
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(n):
        x = X[t]
        r = W @ x
        scores[t] = total @ x / t if (average and t > 0) else r
        Phi = np.zeros((K, d))
        if K == 1:
            m = y[t] * r[0]
            Phi[0] = y[t] * x
        else:
            c = int(y[t])
            seen[c] = True
            wrong = [j for j in range(K) if j != c and seen[j]]
            m = np.inf
            if wrong:
                s = max(wrong, key=lambda j: (r[j], -j))
                m = r[c] - r[s]
                Phi[c], Phi[s] = x, -x
        if (m < 1 if aggressive else m <= 0) and np.any(x != 0):
            W = romma_update(W, Phi, m)
        total += W
    return scores, W, total / n


def binary_data(n=100, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("aggressive,average", [(False, False), (True, True), (True, False)])
def test_binary_matches_reference(aggressive, average):
    X, y = binary_data()
    scores, W, Wbar = ref_romma(with_intercept(X), y, aggressive=aggressive, average=average)
    for data in (X, sp.csr_matrix(X)):
        m = ROMMAClassifier(aggressive=aggressive, average=average)
        close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
        close(weights(m), W)
        close(m._predict_weights(), Wbar if average else W)
    m = ROMMAClassifier(aggressive=aggressive, average=average)
    m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
    for i in range(1, X.shape[0]):
        close(m.decision_function(X[i][None])[0], scores[i, 0])
        m.learn_one(X[i], y[i])
    close(weights(m), W)


def test_a9a_matches_reference():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    X, y = X[:2000].tocsr(), y[:2000]
    for aggressive in (False, True):
        scores, W, Wbar = ref_romma(with_intercept(X.toarray()), y, aggressive=aggressive,
                                    average=True)
        m = ROMMAClassifier(aggressive=aggressive, average=True)
        close(m.predict_learn(X, y, return_scores=True), scores[:, 0], rtol=1e-9)
        close(weights(m), W, rtol=1e-9)
        close(m.coef_, Wbar[:, 1:], rtol=1e-9)


@pytest.mark.parametrize("aggressive,average", [(False, True), (True, False)])
def test_multiclass_matches_reference(aggressive, average):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((90, 6)) * (rng.random((90, 6)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((6, 4)) + 0.5 * rng.standard_normal((90, 4)), 1)
    scores, W, Wbar = ref_romma(with_intercept(X), y, K=4, aggressive=aggressive,
                                average=average)
    m = ROMMAClassifier(aggressive=aggressive, average=average)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(weights(m), W)
    close(m._predict_weights(), Wbar if average else W)


def test_an_update_meets_the_example_with_margin_one():
    X, y = binary_data(n=80, seed=3)
    for aggressive in (False, True):
        m = ROMMAClassifier(aggressive=aggressive)
        m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
        for i in range(1, X.shape[0]):
            before = m.n_updates_
            m.learn_one(X[i], y[i])
            if m.n_updates_ > before:
                assert abs(y[i] * m.decision_function(X[i][None])[0] - 1.0) < 1e-9


def test_mistakes_within_the_perceptron_bound_on_separable_data():
    X, y, _ = make_separable(n=3000, d=10, margin=0.1, radius=1.0, random_state=0)
    for aggressive in (False, True):
        m = ROMMAClassifier(aggressive=aggressive, fit_intercept=False)
        mistakes = np.sum(m.predict_learn(X, y) != y)
        assert 0 < mistakes <= (1.0 / 0.1) ** 2


def test_zero_weight_or_zero_row_skips():
    X, y = binary_data(n=30, seed=4)
    m = ROMMAClassifier(fit_intercept=False, shuffle=False).fit(X, y)
    W, n = weights(m).copy(), m.n_updates_
    m.partial_fit(np.zeros((2, X.shape[1])), [1.0, -1.0])
    m.partial_fit(X, -y, sample_weight=np.zeros(X.shape[0]))
    assert m.n_updates_ == n and np.array_equal(weights(m), W)


def test_bad_parameters():
    with pytest.raises(ValueError, match="aggressive"):
        ROMMAClassifier(aggressive="yes").fit(np.eye(3), [0, 1, 0])
