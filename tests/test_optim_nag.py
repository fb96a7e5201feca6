"""``olearn.optim.NAG`` (Ross, Mineiro and Langford, "Normalized online learning", UAI
2013, Algorithm 2) composed with OGD: a plain numpy reference with OGD's L2 decay and
projection (regression and classification, binary and multiclass, dense and CSR, random
unscaled data and cpusmall); ``OGDRegressor``'s default is that step (the rule of
``NDAGRegressor``, bit for bit), its predictions do not depend on the features' scales,
and a model file saved with the old default (round 3's main) loads and predicts as it
did."""
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

import olearn
from olearn import optim
from olearn.linear import NDAGRegressor, OGDClassifier, OGDRegressor
from test_linear_ogd import score_grad
from test_linear_ogd_regressor import dloss

from conftest import CLF, close, data_path, weights, with_intercept

OLD = Path(__file__).parent / "files" / "ogd_reg_old"


def ref_nag(X, y, K=1, loss="squared", eta=0.5, alpha=0.0, radius=None, epsilon=0.1,
            regression=True):
    """OGD with NAG's step, row by row: Algorithm 2's steps 1-4, with OGD's L2 decay
    ``w *= 1 - eta alpha`` after the prediction and its projection onto the ball of
    ``radius`` after the step.  The pre-update scores and the final weights."""
    n, d = X.shape
    W, G = np.zeros((K, d)), np.zeros((K, d))
    s, N = np.zeros(d), 0.0
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(1, n + 1):
        x = X[t - 1]
        nz = np.flatnonzero(x)
        grow = nz[np.abs(x[nz]) > s[nz]]
        W[:, grow] *= np.where(s[grow] > 0, s[grow] / np.abs(x[grow]), 1.0)  # step 1
        s[grow] = np.abs(x[grow])
        scores[t - 1] = r = W @ x                                             # step 2
        W *= max(0.0, 1.0 - eta * alpha)
        N += np.sum((x[nz] / s[nz]) ** 2)                                     # step 3
        if regression:
            g = np.array([dloss(loss, r[0] - y[t - 1], epsilon)])
        else:
            if K > 1:
                seen[int(y[t - 1])] = True
            g = score_grad(loss, r, y[t - 1], seen)
        rate = eta * math.sqrt(t / N)                                         # step 4
        for k in np.flatnonzero(g):
            gx = g[k] * x
            m = gx != 0
            G[k, m] += gx[m] ** 2
            W[k, m] -= rate * gx[m] / (s[m] * np.sqrt(G[k, m]))
        norm = np.linalg.norm(W)
        if radius is not None and norm > radius:
            W *= radius / norm
    return scores, W


def unscaled(n=120, d=6, seed=0, K=1):
    """Sparse-ish rows whose features have means up to 100 and scales 10^-3..10^3."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    X = (Z + rng.uniform(0, 3, d)) * 10.0 ** rng.uniform(-3, 3, d) \
        * (rng.random((n, d)) < 0.7)
    X[:, 0] = (Z[:, 0] + 100.0) * (rng.random(n) < 0.8)
    z = Z @ rng.standard_normal((d, K)) + 0.3 * rng.standard_normal((n, K))
    y = np.where(z[:, 0] > 0, 1.0, -1.0) if K == 1 else np.argmax(z, axis=1).astype(float)
    return X, y, 10.0 * z[:, 0] + 5.0


@pytest.mark.parametrize("kw", [{}, {"alpha": 0.01, "radius": 30.0},
                                {"loss": "huber", "epsilon": 0.5}])
def test_regression_matches_reference_dense_and_sparse(kw):
    X, _, z = unscaled()
    scores, W = ref_nag(with_intercept(X), z, eta=1.5, **kw)
    for data in (X, sp.csr_matrix(X)):
        for m in (OGDRegressor(optimizer=optim.NAG(lr=1.5), **kw),
                  OGDRegressor(schedule="nag", eta=1.5, **kw)):
            close(m.predict_learn(data, z, return_scores=True), scores[:, 0])
            close(weights(m), W)


@pytest.mark.parametrize("K,loss", [(1, "logistic"), (1, "hinge"), (3, "logistic")])
def test_classification_matches_reference(K, loss):
    X, y, _ = unscaled(K=K, seed=1)
    scores, W = ref_nag(with_intercept(X, CLF), y, K=K, loss=loss, regression=False)
    m = OGDClassifier(loss=loss, optimizer="nag")
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True),
          scores[:, 0] if K == 1 else scores)
    close(weights(m), W)


def test_one_at_a_time_and_predict_clip_to_the_scales_seen():
    X, _, z = unscaled(n=60, seed=2)
    scores, W = ref_nag(with_intercept(X), z, eta=2.0)
    m = OGDRegressor().partial_fit(X[:1], z[:1])
    for i in range(1, X.shape[0]):
        close(m.predict(X[i][None])[0], scores[i, 0])   # predict = the pre-update score
        close(m.predict_one(X[i]), scores[i, 0])
        m.learn_one(X[i], z[i])
    close(weights(m), W)


def test_real_data_matches_reference():
    X, y = load_svmlight_file(str(data_path("cpusmall", "cpusmall.converted")),
                              n_features=12)
    X, y = X[:1500].tocsr(), y[:1500]
    scores, W = ref_nag(with_intercept(X.toarray()), y, eta=2.0)
    m = OGDRegressor()
    close(m.predict_learn(X, y, return_scores=True), scores[:, 0], rtol=1e-9)
    close(weights(m), W, rtol=1e-9)


@pytest.mark.parametrize("average", [False, True])
def test_the_default_is_ndag_regressor_bit_for_bit(average):
    X, _, z = unscaled(n=300, seed=3)
    a = OGDRegressor(average=average)
    b = NDAGRegressor(average=average)
    np.testing.assert_array_equal(a.predict_learn(sp.csr_matrix(X), z),
                                  b.predict_learn(sp.csr_matrix(X), z))
    for key in b.state_:
        np.testing.assert_array_equal(a.state_[key], b.state_[key], err_msg=key)


def test_the_default_does_not_depend_on_feature_scales():
    """What made the old default diverge in scikit-learn's checks (features of mean 100)
    and at scale 10^3: the default learns; rescaling features changes no prediction."""
    rng = np.random.default_rng(4)
    Z = rng.standard_normal((400, 5))
    y = Z @ rng.standard_normal(5)
    c = rng.choice([-1.0, 1.0], 5) * 10.0 ** rng.uniform(-3, 3, 5)
    base = OGDRegressor().predict_learn(Z + 100.0, y)
    close(OGDRegressor().predict_learn((Z + 100.0) * c, y), base, rtol=1e-9)
    with pytest.raises(olearn.base.DivergenceError):
        OGDRegressor(schedule="invsqrt", eta=0.1).fit((Z + 100.0) * 1e3, y)
    m = OGDRegressor().fit(Z[:300] * 1e3, y[:300])
    err = np.mean((m.predict(Z[300:] * 1e3) - y[300:]) ** 2)
    assert err < 0.2 * np.var(y[300:])


def test_old_default_files_load_and_predict_as_before():
    """A model saved by round 3's main with the then default (``schedule="invsqrt",
    eta=0.1``) keeps it: its predictions and its next steps are the old rule's."""
    X, y = np.load(OLD / "X.npy"), np.load(OLD / "y.npy")
    back = olearn.load(OLD / "ogd_reg.olm")
    assert back.get_params()["schedule"] == "invsqrt" and back.eta == 0.1
    np.testing.assert_array_equal(back.predict(X), np.load(OLD / "pred.npy"))
    again = OGDRegressor(schedule="invsqrt", eta=0.1).partial_fit(X, y)
    np.testing.assert_array_equal(again.predict(X), np.load(OLD / "pred.npy"))
    back.partial_fit(X, y)
    again.partial_fit(X, y)
    np.testing.assert_array_equal(back.predict(X), again.predict(X))


def test_mixing_rescales_to_the_largest_scales():
    """``olearn.mix`` of OGD-with-NAG halves: each member's weights at the scales of the
    mix (the maximum), as NDAG's."""
    X, _, z = unscaled(n=200, seed=5)
    halves = [OGDRegressor().fit(X[:100], z[:100]), OGDRegressor().fit(X[100:], z[100:])]
    nd = [NDAGRegressor().fit(X[:100], z[:100]), NDAGRegressor().fit(X[100:], z[100:])]
    np.testing.assert_array_equal(olearn.mix(halves).predict(X), olearn.mix(nd).predict(X))
