"""LMS (Widrow-Hoff): a plain numpy reference on random data and cpusmall, dense, CSR and
one row at a time; with power-decaying steps and Polyak averaging it converges to the
least squares solution (the seed notes' recipe)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.linear import LMSRegressor, OGDRegressor

from conftest import close, data_path, weights


def ref_lms(X, y, eta=0.01, schedule="constant", power=0.5, average=False):
    """w_{n+1} = w_n + gamma_n x_n (y_n - x_n . w_n), intercept as column 0."""
    X = np.hstack([np.ones((X.shape[0], 1)), X])
    w = np.zeros(X.shape[1])
    total = np.zeros_like(w)
    scores = np.zeros(X.shape[0])
    for n in range(1, X.shape[0] + 1):
        x = X[n - 1]
        scores[n - 1] = total @ x / (n - 1) if (average and n > 1) else w @ x
        gamma = {"constant": eta, "invsqrt": eta / math.sqrt(n),
                 "power": eta * n ** -power}[schedule]
        w = w + gamma * x * (y[n - 1] - w @ x)
        total += w
    return scores, w, total / X.shape[0]


@pytest.mark.parametrize("schedule,average", [("constant", False), ("invsqrt", True),
                                              ("power", True)])
def test_matches_reference(schedule, average):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 5)) * (rng.random((120, 5)) < 0.7)
    y = X @ rng.standard_normal(5) + 1.0 + 0.2 * rng.standard_normal(120)
    scores, w, wbar = ref_lms(X, y, eta=0.05, schedule=schedule, power=0.7, average=average)
    for data in (X, sp.csr_matrix(X)):
        m = LMSRegressor(eta=0.05, schedule=schedule, power=0.7, average=average)
        close(m.predict_learn(data, y), scores)
        close(weights(m)[0], w)
        close(m._predict_weights()[0], wbar if average else w)
    m = LMSRegressor(eta=0.05, schedule=schedule, power=0.7, average=average)
    for i in range(X.shape[0]):
        m.learn_one(X[i], y[i])
    close(weights(m)[0], w)


def test_cpusmall_matches_reference():
    X, y = load_svmlight_file(str(data_path("cpusmall", "cpusmall.converted")),
                              n_features=12)
    X = X[:3000].toarray()
    X = X / X.max(axis=0)
    scores, w, wbar = ref_lms(X, y[:3000], eta=0.02, average=True)
    m = LMSRegressor(eta=0.02, average=True)
    close(m.predict_learn(sp.csr_matrix(X), y[:3000]), scores)
    close(m.coef_, wbar[1:])
    close(m.intercept_, wbar[0])


def test_is_ogd_on_the_squared_loss():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 4))
    y = X @ rng.standard_normal(4)
    a = LMSRegressor(eta=0.1, schedule="invsqrt", shuffle=False).fit(X, y)
    b = OGDRegressor(loss="squared", eta=0.1, schedule="invsqrt", shuffle=False).fit(X, y)
    assert np.array_equal(weights(a), weights(b))


def test_power_steps_with_averaging_converge_to_least_squares():
    """gamma_n = eta n^-0.6 (exponent in (1/2, 1)) with Polyak averaging: the averaged
    weights approach the least squares solution of the rows seen, at about the 1/n
    rate, and beat the last iterate."""
    rng = np.random.default_rng(0)
    d, n = 5, 16000
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 1.0 + 0.5 * rng.standard_normal(n)
    errors = []
    for N in (1000, 4000, 16000):
        w_ls = np.linalg.lstsq(np.hstack([np.ones((N, 1)), X[:N]]), y[:N], rcond=None)[0]
        m = LMSRegressor(eta=0.5, schedule="power", power=0.6, average=True,
                         random_state=0)  # fit shuffles: seeded, so the test is not flaky
        m.fit(X[:N], y[:N])
        errors.append(np.linalg.norm(m._predict_weights()[0] - w_ls))
        raw = np.linalg.norm(weights(m)[0] - w_ls)
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 5e-3 * np.linalg.norm(w_ls)
    assert errors[2] < raw


@pytest.mark.parametrize("params,match", [({"schedule": "optimal"}, "schedule"),
                                          ({"eta": -1.0}, "eta"), ({"power": 0.0}, "power")])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        LMSRegressor(**params).fit(np.eye(3), [0.0, 1.0, 0.0])
