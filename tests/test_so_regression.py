"""RLS and AROW regression: numpy references, ridge on every prefix, exponentially
weighted ridge, weighted least squares, and AROW regression = RLS."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from conftest import data_path
from olearn.second_order import AROWRegressor, RLSRegressor


def _with_intercept(X, fit_intercept=True):
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    return np.hstack([np.ones((X.shape[0], 1)), X]) if fit_intercept else X


def reference_rls(X, y, lam, f, full, fit_intercept=True):
    """RLS as written in the lecture notes: gain, residual, P update (Haykin's form)."""
    X = _with_intercept(X, fit_intercept)
    n, d = X.shape
    w = np.zeros(d)
    P = np.eye(d) / lam if full else np.full(d, 1.0 / lam)
    scores = np.empty(n)
    for t in range(n):
        x = X[t]
        scores[t] = w @ x
        if full:
            Px = P @ x
            k = Px / (f + x @ Px)
            w = w + k * (y[t] - scores[t])
            P = (P - np.outer(k, Px)) / f
        else:
            nz = x != 0
            k = P * x / (f + x @ (P * x))
            w = w + k * (y[t] - scores[t])
            P = np.where(nz, P / (f + P * x * x), P)
    return scores, w, P


def reference_arow_regression(X, y, r, full):
    """The seed book's Fig. 31.9 loop: beta = x'Sigma x + r, always update."""
    X = _with_intercept(X)
    n, d = X.shape
    mu = np.zeros(d)
    S = np.eye(d) if full else np.ones(d)
    scores = np.empty(n)
    for t in range(n):
        x = X[t]
        scores[t] = mu @ x
        z = S @ x if full else S * x
        beta = x @ z + r
        mu = mu + (y[t] - scores[t]) * z / beta
        S = S - np.outer(z, z) / beta if full else 1.0 / (1.0 / S + x * x / r)
    return scores, mu, S


def _random(seed=0, n=150, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6) * rng.uniform(0.3, 3, d)
    return X, X @ rng.standard_normal(d) + 0.2 * rng.standard_normal(n) + 1.5


def _abalone(n=150):
    X, y = load_svmlight_file(str(data_path("abalone", "abalone.trn.bz2")), n_features=8)
    return X[:n].toarray(), y[:n]


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()))


def _all_paths(model, X, y):
    """(scores, W, S) of a dense batch; asserts CSR batch and learn_one give the same."""
    dense = model.__class__(**model.get_params())
    scores = dense.predict_learn(X, y)
    sparse = model.__class__(**model.get_params())
    _close(sparse.predict_learn(sp.csr_matrix(X), y), scores)
    one = model.__class__(**model.get_params())
    for xi, yi in zip(X, y):
        one.learn_one(xi, yi)
    for other in (sparse, one):
        _close(other.state_["W"], dense.state_["W"])
        _close(other._sigma(), dense._sigma())
    return scores, dense.state_["W"][0], dense._sigma()[0]


@pytest.mark.parametrize("cov", ["full", "diag"])
@pytest.mark.parametrize("forgetting", [1.0, 0.93])
def test_rls_matches_reference(cov, forgetting):
    for X, y in (_random(), _abalone()):
        scores, w, P = reference_rls(X, y, 0.5, forgetting, cov == "full")
        got = _all_paths(RLSRegressor(lam=0.5, forgetting=forgetting, covariance=cov), X, y)
        _close(got[0], scores)
        _close(got[1], w)
        _close(got[2], P)


@pytest.mark.parametrize("cov", ["full", "diag"])
def test_arow_regression_matches_reference(cov):
    for X, y in (_random(1), _abalone()):
        scores, mu, S = reference_arow_regression(X, y, 0.3, cov == "full")
        got = _all_paths(AROWRegressor(r=0.3, covariance=cov), X, y)
        _close(got[0], scores)
        _close(got[1], mu)
        _close(got[2], S)


def _ridge(X, y, lam, weights=None):
    w = np.ones(len(y)) if weights is None else weights
    return np.linalg.solve(X.T @ (w[:, None] * X) + lam * np.eye(X.shape[1]), X.T @ (w * y))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_rls_is_ridge_on_every_prefix(fit_intercept):
    """The pre-update prediction of row t is the ridge fit of rows < t; with
    fit_intercept the constant column is part of the ridge problem (and its penalty)."""
    for X, y in (_random(2), _abalone(300)):
        lam = 0.7
        model = RLSRegressor(lam=lam, fit_intercept=fit_intercept, covariance="full")
        scores = model.predict_learn(X, y)
        Xi = _with_intercept(X, fit_intercept)
        for t in range(1, len(y) + 1):
            w = _ridge(Xi[:t], y[:t], lam)
            if t < len(y):
                np.testing.assert_allclose(scores[t], w @ Xi[t], rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(model.state_["W"][0], w, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(model.cov_, np.linalg.inv(Xi.T @ Xi + lam * np.eye(
            Xi.shape[1]))[int(fit_intercept):, int(fit_intercept):], rtol=1e-8, atol=1e-12)


def test_rls_forgetting_is_exponentially_weighted_ridge():
    """w_t minimizes sum_s f^(t-s) (y_s - w.x_s)^2 + f^t lam |w|^2."""
    X, y = _random(3, n=80)
    lam, f = 2.0, 0.9
    model = RLSRegressor(lam=lam, forgetting=f, fit_intercept=False, covariance="full")
    for t in range(len(y)):
        model.learn_one(X[t], y[t])
        weights = f ** (t - np.arange(t + 1))
        w = _ridge(X[:t + 1], y[:t + 1], lam * f ** (t + 1), weights)
        np.testing.assert_allclose(model.coef_, w, rtol=1e-8, atol=1e-10)


def test_rls_sample_weight_is_weighted_least_squares():
    X, y = _random(4)
    weights = np.random.default_rng(0).uniform(0, 3, len(y))
    weights[::7] = 0.0
    model = RLSRegressor(lam=1.3, fit_intercept=False, shuffle=False).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.coef_, _ridge(X, y, 1.3, weights), rtol=1e-9)
    assert model.n_updates_ == np.count_nonzero(weights)


@pytest.mark.parametrize("cov", ["full", "diag"])
def test_arow_regression_equals_rls(cov):
    """AROW regression with Sigma = I at start is RLS with lam = r (P = Sigma / r)."""
    X, y = _random(5)
    r = 0.4
    arow = AROWRegressor(r=r, covariance=cov, shuffle=False).fit(X, y)
    rls = RLSRegressor(lam=r, covariance=cov, shuffle=False).fit(X, y)
    _close(arow.coef_, rls.coef_)
    _close(arow.intercept_, rls.intercept_)
    _close(arow.cov_, r * rls.cov_)


def test_diag_rls_forgets_only_touched_coordinates():
    """Diagonal RLS with forgetting: a coordinate absent from the rows keeps its variance
    (no wind-up), while the full covariance grows as f^-t in that direction."""
    X = np.zeros((50, 2))
    X[:, 0] = 1.0
    y = np.ones(50)
    diag = RLSRegressor(forgetting=0.9, covariance="diag", fit_intercept=False, shuffle=False).fit(X, y)
    full = RLSRegressor(forgetting=0.9, covariance="full", fit_intercept=False, shuffle=False).fit(X, y)
    assert diag.cov_[1] == 1.0
    np.testing.assert_allclose(full.cov_[1, 1], 0.9 ** -50, rtol=1e-12)
    np.testing.assert_allclose(diag.cov_[0], full.cov_[0, 0], rtol=1e-12)
