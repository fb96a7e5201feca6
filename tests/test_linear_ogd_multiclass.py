"""OGDClassifier, multiclass: the max-score margin losses and the softmax loss against the
numpy reference of ``test_linear_ogd`` (which holds the reference), dense, CSR and one
row at a time; softmax probabilities; labels that appear mid-stream."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.linear import OGDClassifier
from test_linear_ogd import ref_ogd

from conftest import CLF, close, data_path, weights, with_intercept


def multiclass_data(n=90, d=6, K=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((d, K)) + 0.5 * rng.standard_normal((n, K)), axis=1)
    return X, y


CONFIGS = [
    dict(loss="hinge", schedule="invsqrt", eta=0.8, radius=3.0, average=True),
    dict(loss="squared_hinge", schedule="power", power=0.7, eta=0.2),
    dict(loss="logistic", schedule="optimal", alpha=0.05, average=True),
    dict(loss="perceptron", schedule="constant", eta=0.6, alpha=0.01, radius=2.0),
    dict(loss="modified_huber", schedule="adagrad", eta=0.4, average=True),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c["loss"] for c in CONFIGS])
def test_multiclass_matches_reference(cfg):
    X, y = multiclass_data()
    scores, W, Wbar = ref_ogd(with_intercept(X, CLF), y, K=4, **cfg)
    m = OGDClassifier(**cfg)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(weights(m), W)
    close(m._predict_weights(), Wbar if cfg.get("average") else W)


def test_pendigits_softmax_matches_reference():
    X, y = load_svmlight_file(str(data_path("pendigits", "pendigits")), n_features=16)
    X, y = X[:1500].toarray() / 100.0, y[:1500].astype(int)
    cfg = dict(loss="logistic", schedule="invsqrt", eta=0.5, average=True)
    scores, W, Wbar = ref_ogd(with_intercept(X, CLF), np.searchsorted(np.unique(y), y), K=10,
                              **cfg)
    m = OGDClassifier(**cfg)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(m._predict_weights(), Wbar)
    assert np.mean(m.predict(X) == y) > 0.8


def test_dense_and_one_at_a_time_equal_batch():
    X, y = multiclass_data(seed=3)
    cfg = CONFIGS[2]
    full = OGDClassifier(**cfg)
    s_full = full.predict_learn(sp.csr_matrix(X), y, return_scores=True)
    dense = OGDClassifier(**cfg)
    close(dense.predict_learn(X, y, return_scores=True), s_full)
    m = OGDClassifier(**cfg)
    close(m.predict_learn(X[:25], y[:25], return_scores=True), s_full[:25])
    for i in range(25, X.shape[0]):
        close(m.decision_function(X[i][None])[0], s_full[i])
        m.learn_one(X[i], y[i])
    close(weights(m), weights(full))
    close(m.coef_, full.coef_)


def test_softmax_probabilities():
    X, y = multiclass_data(seed=4)
    m = OGDClassifier(loss="logistic", eta=0.5, shuffle=False).fit(X, y)
    P = m.predict_proba(X)
    S = m.decision_function(X)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    close(P, E / E.sum(axis=1, keepdims=True))
    assert np.array_equal(m.classes_[P.argmax(axis=1)], m.predict(X))


def test_a_label_first_seen_mid_stream_joins_with_zero_weights():
    X, y = multiclass_data(seed=5, K=3)
    m = OGDClassifier(loss="hinge", schedule="constant", eta=0.5)
    m.partial_fit(X[y < 2], y[y < 2])
    binary_score = m.decision_function(X[:1])[0]
    scores = m.predict_learn(X[:1], [2], return_scores=True)[0]
    # the two first classes keep their margin (-w/2, +w/2), the new class starts at 0
    close(scores[1] - scores[0], binary_score)
    assert scores[2] == 0.0
    assert weights(m).shape[0] == 3 and set(m.predict(X)) <= {0, 1, 2}
