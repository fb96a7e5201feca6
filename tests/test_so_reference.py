"""Second-order classifiers against plain numpy references of their papers' formulas
(the references, and the binary tests of AROW, CW, SCW-I and SCW-II; the other binary
learners are tested in test_so_binary.py, multiclass in test_so_multiclass.py).

Each reference below is written from the paper in its own form (the covariance update
``Sigma -= beta Sigma x x' Sigma`` with the paper's ``beta``; NAROW and the second-order
Perceptron in the papers' ``A^-1 theta`` form), independently of the kernels' closed
forms.  The diagonal covariance is the documented approximation: the diagonal of the
precision takes the full update's increment ``c = beta / (1 - beta v)``.  Multiclass is
the single-constraint max-score form with one covariance per class, its blocks updated
by explicit inversion.  Compared: the pre-update scores and the final mean and
covariance, to 1e-10, for dense and CSR batches and for learn_one.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm
from sklearn.datasets import load_svmlight_file

from conftest import data_path
from olearn.second_order import (AROWClassifier, CWClassifier, IELLIPClassifier,
                                 NAROWClassifier, NHERDClassifier, SCWClassifier,
                                 SOPClassifier)


# ---------------------------------------------------------------- paper formulas
# step(m, v, row) -> None (no update) or (alpha, beta): mean += alpha * (S x) along the
# label, S -= beta (S x)(S x)'.  ``row`` is the 0-based row number (IELLIP only).
def arow(r):
    def step(m, v, row):
        if m >= 1:
            return None
        beta = 1.0 / (v + r)
        return (1 - m) * beta, beta
    return step


def _cw_beta(alpha, v, phi):
    u = 0.25 * (-alpha * v * phi + np.sqrt(alpha ** 2 * v ** 2 * phi ** 2 + 4 * v)) ** 2
    return alpha * phi / (np.sqrt(u) + v * alpha * phi)


def cw(eta):
    phi = norm.ppf(eta)
    psi, zeta = 1 + phi ** 2 / 2, 1 + phi ** 2

    def step(m, v, row):
        alpha = max(0.0, (-m * psi + np.sqrt(m ** 2 * phi ** 4 / 4 + v * phi ** 2 * zeta))
                    / (v * zeta))
        if alpha <= 0:
            return None
        return alpha, _cw_beta(alpha, v, phi)
    return step


def scw1(C, eta):
    phi = norm.ppf(eta)
    psi, zeta = 1 + phi ** 2 / 2, 1 + phi ** 2

    def step(m, v, row):
        if phi * np.sqrt(v) - m <= 0:
            return None
        alpha = min(C, max(0.0, (-m * psi + np.sqrt(m ** 2 * phi ** 4 / 4 + v * phi ** 2 * zeta))
                           / (v * zeta)))
        return alpha, _cw_beta(alpha, v, phi)
    return step


def scw2(C, eta):
    phi = norm.ppf(eta)

    def step(m, v, row):
        if phi * np.sqrt(v) - m <= 0:
            return None
        n = v + 1 / (2 * C)
        gamma = phi * np.sqrt(phi ** 2 * m ** 2 * v ** 2 + 4 * n * v * (n + v * phi ** 2))
        alpha = max(0.0, (-(2 * m * n + phi ** 2 * m * v) + gamma)
                    / (2 * (n ** 2 + n * v * phi ** 2)))
        if alpha <= 0:
            return None
        return alpha, _cw_beta(alpha, v, phi)
    return step


def nherd(C):
    def step(m, v, row):
        if m >= 1:
            return None
        return (1 - m) / (v + 1 / C), (C ** 2 * v + 2 * C) / (1 + C * v) ** 2
    return step


def narow(b):                   # mean form, derived in narow.py; checked against the
    def step(m, v, row):        # paper's A^-1 theta form in test_theta_forms
        r = v / (b * v - 1) if b * v > 1 else np.inf
        if np.isinf(r):
            return (1.0, 0.0) if m < 1 else None
        if m * r / (r + v) >= 1:
            return None
        return (r - m) / (r + v), 1 / (r + v)
    return step


def sop():
    def step(m, v, row):
        if m > 0:
            return None
        return (1 - m) / (1 + v), 1 / (1 + v)
    return step


def iellip(b, c):
    def step(m, v, row):
        if m > 0:
            return None
        ct = c * b ** row       # Sigma <- (Sigma - ct Sigma x x' Sigma / v) / (1 - ct)
        return (1 - m) / v, ct / v, 1 / (1 - ct)
    return step


LEARNERS = {
    "arow": (lambda: AROWClassifier(r=0.7), lambda: arow(0.7), 1.0),
    "cw": (lambda: CWClassifier(eta=0.8, a=0.5), lambda: cw(0.8), 0.5),
    "scw": (lambda: SCWClassifier(C=0.6, eta=0.75), lambda: scw1(0.6, 0.75), 1.0),
    "scw2": (lambda: SCWClassifier(C=0.6, eta=0.75, variant="II"), lambda: scw2(0.6, 0.75),
             1.0),
    "nherd": (lambda: NHERDClassifier(C=0.4), lambda: nherd(0.4), 1.0),
    "narow": (lambda: NAROWClassifier(b=0.8), lambda: narow(0.8), 1.0),
    "sop": (lambda: SOPClassifier(a=2.0), lambda: sop(), 0.5),
    "iellip": (lambda: IELLIPClassifier(b=0.5, c=0.2), lambda: iellip(0.5, 0.2), 1.0),
}


# ---------------------------------------------------------------- reference loops
def _with_intercept(X):
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    return np.hstack([np.ones((X.shape[0], 1)), X])


def _downdate(S, z, beta, v, x, full):
    """The covariance after ``S -= beta z z'`` (full) or its diagonal approximation."""
    if full:
        return S - beta * np.outer(z, z)
    c = beta / (1 - beta * v)
    return 1.0 / (1.0 / S + c * x * x)


def reference_binary(X, y, step, sigma0, full):
    """Binary: labels -1/+1; returns pre-update scores, mean, covariance."""
    X = _with_intercept(X)
    n, d = X.shape
    w = np.zeros(d)
    S = sigma0 * np.eye(d) if full else np.full(d, sigma0)
    scores = np.empty(n)
    for t in range(n):
        x, yt = X[t], y[t]
        scores[t] = w @ x
        m = yt * scores[t]
        z = S @ x if full else S * x
        v = x @ z
        if v <= 0:
            continue
        out = step(m, v, t)
        if out is None:
            continue
        w = w + out[0] * yt * z
        S = _downdate(S, z, out[1], v, x, full)
        if len(out) == 3:
            S = S * out[2]
    return scores, w, S


def reference_multiclass(X, y, step, sigma0, full, K):
    """Max-score single constraint, per-class covariances (blocks by explicit inverse)."""
    X = _with_intercept(X)
    n, d = X.shape
    W = np.zeros((K, d))
    S = np.array([sigma0 * np.eye(d) if full else np.full(d, sigma0) for _ in range(K)])
    seen = np.zeros(K, bool)
    scores = np.empty((n, K))
    for t in range(n):
        x, yt = X[t], int(y[t])
        scores[t] = W @ x
        seen[yt] = True
        wrong = [k for k in range(K) if seen[k] and k != yt]
        if not wrong:
            continue
        s = max(wrong, key=lambda k: (scores[t, k], -k))
        m = scores[t, yt] - scores[t, s]
        z = {k: (S[k] @ x if full else S[k] * x) for k in (yt, s)}
        v = x @ z[yt] + x @ z[s]
        out = step(m, v, t)
        if out is None:
            continue
        alpha, beta = out[0], out[1]
        c = beta / (1 - beta * v)                  # the joint precision increment
        W[yt] += alpha * z[yt]
        W[s] -= alpha * z[s]
        for k in (yt, s):
            S[k] = np.linalg.inv(np.linalg.inv(S[k]) + c * np.outer(x, x)) if full \
                else 1.0 / (1.0 / S[k] + c * x * x)
        if len(out) == 3:
            S *= out[2]
    return scores, W, S


# ---------------------------------------------------------------- data
def _random_binary(seed=0, n=160, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6) * rng.uniform(0.3, 3, d)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _heart(n=150):
    X, y = load_svmlight_file(str(data_path("heart_scale", "heart_scale")), n_features=13)
    return X[:n].toarray(), np.where(y[:n] > 0, 1, -1)


def _pendigits(n=150):
    X, y = load_svmlight_file(str(data_path("pendigits", "pendigits")), n_features=16)
    return X[:n].toarray() / 100.0, np.unique(y[:n], return_inverse=True)[1]


def _close(a, b, tol=1e-10):
    scale = max(1.0, np.abs(b).max())
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale)


def _check_binary(name, cov, X, y):
    make, ref, sigma0 = LEARNERS[name]
    scores, w, S = reference_binary(X, y, ref(), sigma0, cov == "full")
    batch = make().set_params(covariance=cov)
    got = batch.predict_learn(X, y, return_scores=True)
    _close(got, scores)
    assert batch.covariance_ == cov
    _close(batch.state_["W"][0], w)
    _close(batch._sigma()[0], S)
    sparse = make().set_params(covariance=cov)
    _close(sparse.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    _close(sparse.state_["W"][0], w)
    _close(sparse._sigma()[0], S)
    return batch


def check_binary_paths(name, cov):
    """Dense batch, CSR batch and learn_one, on random and real data."""
    X, y = _random_binary()
    batch = _check_binary(name, cov, X, y)
    assert 0 < batch.n_updates_ < len(y)
    one = LEARNERS[name][0]().set_params(covariance=cov)
    one.partial_fit(X[:1], y[:1], classes=[-1, 1])   # the first row by batch (it fixes
    for xi, yi in zip(X[1:], y[1:]):                  # the class order), the rest one by one
        one.learn_one(xi, yi)
    _close(one.state_["W"], batch.state_["W"])
    _close(one._sigma(), batch._sigma())
    assert one.n_updates_ == batch.n_updates_
    _check_binary(name, cov, *_heart())


# the other learners are in test_so_binary.py (files kept small: each compiles its kernels)
@pytest.mark.parametrize("cov", ["full", "diag"])
@pytest.mark.parametrize("name", ["arow", "cw", "scw", "scw2"])
def test_binary_matches_reference(name, cov):
    check_binary_paths(name, cov)


def test_theta_forms_of_sop_and_narow():
    """The papers' own forms: SOP predicts sign(v'(aI + X X' + x x')^-1 x) and adds
    mistaken rows; NAROW (Orabona and Crammer) predicts with A_t = A + x x'/r_t and keeps
    theta = sum of y x.  Same weights as the mean/covariance kernels."""
    X, y = _random_binary(seed=5, n=120, d=4)
    Xi = _with_intercept(X)
    d = Xi.shape[1]
    a = 2.0
    A, theta, mistakes = a * np.eye(d), np.zeros(d), 0
    for x, yt in zip(Xi, y):
        score = theta @ np.linalg.solve(A + np.outer(x, x), x)
        if yt * score <= 0:
            theta, A, mistakes = theta + yt * x, A + np.outer(x, x), mistakes + 1
    model = SOPClassifier(a=a, covariance="full", shuffle=False).fit(X, y)
    _close(model.state_["W"][0], np.linalg.solve(A, theta))
    _close(model._sigma()[0], np.linalg.inv(A))
    assert model.n_updates_ == mistakes > 5

    b = 0.8
    A, theta = np.eye(d), np.zeros(d)
    for x, yt in zip(Xi, y):
        chi = x @ np.linalg.solve(A, x)
        r = chi / (b * chi - 1) if b * chi > 1 else np.inf
        At = A + np.outer(x, x) / r if np.isfinite(r) else A
        if yt * (np.linalg.solve(At, theta) @ x) < 1:
            theta, A = theta + yt * x, At
    model = NAROWClassifier(b=b, covariance="full", shuffle=False).fit(X, y)
    _close(model.state_["W"][0], np.linalg.solve(A, theta), 1e-9)
    _close(model._sigma()[0], np.linalg.inv(A), 1e-9)


def test_scw2_follows_the_paper_not_libol():
    """One update from mu = 0, Sigma = 1 (m = 0, v = x^2): the step is the paper's alpha;
    LIBOL's SCW2.m formula (2 v for v^2, 2 phi for phi^2 in gamma) would differ."""
    C, eta, x = 0.5, 0.8, 1.7
    phi, v = norm.ppf(eta), x * x
    model = SCWClassifier(C=C, eta=eta, variant="II", fit_intercept=False, covariance="full")
    model.partial_fit([[x]], [-1], classes=[-1, 1])
    alpha = -model.coef_[0, 0] / x                  # mu = alpha y Sigma x with y = -1
    paper = scw2(C, eta)(0.0, v, 0)[0]
    np.testing.assert_allclose(alpha, paper, rtol=1e-13)
    n = v + 1 / (2 * C)
    libol = np.sqrt(4 * n * v * phi ** 2 * (n + v * phi * 2)) / (2 * (n * n + n * v * phi ** 2))
    assert abs(libol - paper) > 0.01 * paper
