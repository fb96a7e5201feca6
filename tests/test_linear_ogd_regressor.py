"""OGDRegressor: a plain numpy reference of OGD with the squared, absolute,
epsilon-insensitive and Huber losses (schedules, L2, projection, AdaGrad, averaging) on
random data and cpusmall, dense, CSR and one row at a time; equality with
scikit-learn's SGDRegressor."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDRegressor

from olearn.linear import OGDRegressor

from conftest import close, data_path, weights, with_intercept


def dloss(loss, e, eps):
    """dL/dr for the residual e = r - y."""
    if loss == "squared":
        return e
    if loss == "absolute":
        return float(np.sign(e))
    if loss == "epsilon_insensitive":
        return float(np.sign(e)) if abs(e) > eps else 0.0
    if loss == "huber":
        return float(np.clip(e, -eps, eps))
    raise ValueError(loss)


def ref_ogd_regression(X, y, loss="squared", eta=0.01, schedule="invsqrt", power=0.5,
                       alpha=0.0, radius=None, epsilon=0.1, average=False):
    n, d = X.shape
    t0 = 1.0 / (alpha * alpha ** -0.25) if alpha > 0 else 0.0
    w = np.zeros(d)
    G = np.zeros(d)
    total = np.zeros(d)
    scores = np.zeros(n)
    for t in range(1, n + 1):
        x = X[t - 1]
        r = w @ x
        scores[t - 1] = total @ x / (t - 1) if (average and t > 1) else r
        step = {"constant": eta, "invsqrt": eta / math.sqrt(t), "power": eta * t ** -power,
                "optimal": 1.0 / (alpha * (t0 + t - 1)) if alpha > 0 else 0.0,
                "adagrad": eta}[schedule]
        if alpha > 0:
            w *= max(0.0, 1.0 - step * alpha)
        gx = dloss(loss, r - y[t - 1], epsilon) * x
        if schedule == "adagrad":
            m = gx != 0
            G[m] += gx[m] ** 2
            w[m] -= eta * gx[m] / np.sqrt(G[m])
        else:
            w -= step * gx
        if radius is not None and np.linalg.norm(w) > radius:
            w *= radius / np.linalg.norm(w)
        total += w
    return scores, w, total / n


def regression_data(n=100, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    y = X @ rng.standard_normal(d) + 0.5 + 0.3 * rng.standard_normal(n)
    return X, y


@pytest.fixture(scope="module")
def cpusmall():
    X, y = load_svmlight_file(str(data_path("cpusmall", "cpusmall.converted")),
                              n_features=12)
    X = X[:2000].toarray()
    return X / X.max(axis=0), y[:2000]


CONFIGS = [
    dict(loss="squared", schedule="invsqrt", eta=0.1, radius=5.0, average=True),
    dict(loss="absolute", schedule="power", power=0.7, eta=0.2, alpha=0.01),
    dict(loss="epsilon_insensitive", schedule="optimal", alpha=0.1, epsilon=0.2,
         average=True),
    dict(loss="huber", schedule="adagrad", eta=0.3, epsilon=0.5, alpha=0.01, radius=8.0),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c["loss"] for c in CONFIGS])
def test_matches_reference(cfg):
    X, y = regression_data()
    scores, w, wbar = ref_ogd_regression(with_intercept(X), y, **cfg)
    m = OGDRegressor(**cfg)
    close(m.predict_learn(sp.csr_matrix(X), y), scores)
    close(weights(m)[0], w)
    close(m._predict_weights()[0], wbar if cfg.get("average") else w)


def test_dense_and_one_at_a_time_agree():
    X, y = regression_data(seed=2)
    cfg = CONFIGS[0]
    scores, w, wbar = ref_ogd_regression(with_intercept(X), y, **cfg)
    m = OGDRegressor(**cfg)
    close(m.predict_learn(X, y), scores)
    close(m.coef_, wbar[1:])
    close(m.intercept_, wbar[:1])
    m = OGDRegressor(**cfg)
    seen = []
    for i in range(X.shape[0]):
        seen.append(m.predict(X[i][None])[0] if i else 0.0)
        m.learn_one(X[i], y[i])
    close(seen, scores)
    close(weights(m)[0], w)


def test_cpusmall_matches_reference(cpusmall):
    X, y = cpusmall
    for cfg in (dict(loss="squared", schedule="invsqrt", eta=0.05, average=True),
                dict(loss="huber", schedule="constant", eta=0.01, epsilon=5.0, radius=50.0)):
        scores, w, wbar = ref_ogd_regression(with_intercept(X), y, **cfg)
        m = OGDRegressor(**cfg)
        close(m.predict_learn(sp.csr_matrix(X), y), scores)
        close(m._predict_weights()[0], wbar if cfg.get("average") else w)


@pytest.mark.parametrize("loss,sk", [("squared", "squared_error"), ("huber", "huber"),
                                     ("epsilon_insensitive", "epsilon_insensitive")])
def test_equals_sklearn_sgd_regressor(cpusmall, loss, sk):
    X, y = cpusmall
    for ours, theirs in ((dict(schedule="constant", eta=0.01),
                          dict(learning_rate="constant", eta0=0.01, penalty=None)),
                         (dict(schedule="invsqrt", eta=0.05, alpha=1e-3, average=True),
                          dict(learning_rate="invscaling", eta0=0.05, power_t=0.5,
                               penalty="l2", alpha=1e-3, average=True))):
        m = OGDRegressor(loss=loss, epsilon=2.0, fit_intercept=False, **ours, shuffle=False).fit(X, y)
        s = SGDRegressor(loss=sk, epsilon=2.0, fit_intercept=False, shuffle=False,
                         max_iter=1, tol=None, **theirs)
        s.partial_fit(X, y)
        close(m.coef_, s.coef_, rtol=1e-9)


@pytest.mark.parametrize("params,match", [({"loss": "hinge"}, "loss"),
                                          ({"epsilon": -0.1}, "epsilon"),
                                          ({"schedule": "optimal"}, "alpha > 0")])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        OGDRegressor(**params).fit(np.eye(3), [0.0, 1.0, 0.0])
