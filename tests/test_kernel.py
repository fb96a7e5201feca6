"""olearn.kernel against plain numpy references: dual coefficients, support vectors and
pre-update scores to 1e-10 (dense and sparse), budgets, the linear kernel = the
linear learners, the Projectron's and Forgetron's properties, FOGD's convergence to
the exact kernel learner as D grows, save/load of the support set."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
import olearn.persistence
from olearn.kernel import (FOGDClassifier, FOGDRegressor, KernelLMSRegressor,
                           KernelPAClassifier, KernelPARegressor, KernelPerceptron,
                           KernelRLSRegressor, NORMAClassifier, NORMARegressor)
from olearn.linear import PAClassifier, PARegressor, Perceptron

from conftest import data_path

RNG_MOD, RNG_MUL = 2147483647, 48271


# ------------------------------------------------------------------ numpy references
def kernel_matrix(kind, gamma, coef0, degree, A, B):
    dot = A @ B.T
    if kind == "linear":
        return dot
    if kind == "poly":
        return (gamma * dot + coef0) ** degree
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * dot
    return np.exp(-gamma * np.maximum(d2, 0.0))


def pa_step(variant, C):
    return {"PA": (math.inf, 0.0), "PA-I": (C, 0.0), "PA-II": (math.inf, 0.5 / C)}[variant]


def reference(X, y, algo, kernel="rbf", gamma=0.1, coef0=1.0, degree=3, n_classes=2,
              margin=0.0, C=1.0, variant="PA-I", epsilon=0.1, eta=0.5, budget=None,
              policy="random", threshold=0.1, seed=0, lam=0.01, rho=1.0):
    """The learners as the papers write them, on dense rows: returns (support vectors,
    dual coefficients (K, n), pre-update scores (n_rows, K))."""
    task = "reg" if algo in ("pa-reg", "klms", "norma-reg") else \
        ("bin" if n_classes == 2 else "multi")
    K = 1 if task != "multi" else n_classes
    svs = np.zeros((0, X.shape[1]))
    alpha = np.zeros((K, 0))
    seen = np.zeros(K, bool)
    rng = seed % (RNG_MOD - 1) + 1
    M, Q = 0, 0.0
    scores = []

    def k(A, B):
        return kernel_matrix(kernel, gamma, coef0, degree, np.atleast_2d(A), np.atleast_2d(B))

    for x, t in zip(X, y):
        kv = k(svs, x)[:, 0] if len(svs) else np.zeros(0)
        f = alpha @ kv
        scores.append(f.copy())
        kxx = k(x, x)[0, 0]
        new = np.zeros(K)
        if algo.startswith("norma"):  # Kivinen et al. 2004, eq. 8: shrink, then add
            alpha = (1 - eta * lam) * alpha
        if task == "multi":
            seen[int(t)] = True
            wrong = [c for c in range(K) if c != t and seen[c]]
            if not wrong or kxx == 0:
                continue
            s = max(wrong, key=lambda c: (f[c], -c))
            m = f[int(t)] - f[s]
            if algo == "perceptron" and m <= margin:
                new[int(t)], new[s] = 1.0, -1.0
            elif algo == "pa" and m < 1:
                c, D = pa_step(variant, C)
                tau = min(c, (1 - m) / (2 * kxx + D))
                new[int(t)], new[s] = tau, -tau
            elif algo == "norma" and m < rho:
                new[int(t)], new[s] = eta, -eta
            else:
                continue
        elif task == "bin":
            m = t * f[0]
            if kxx == 0:
                continue
            if algo == "perceptron" and m <= margin:
                new[0] = t
            elif algo == "pa" and m < 1:
                c, D = pa_step(variant, C)
                new[0] = min(c, (1 - m) / (kxx + D)) * t
            elif algo == "norma" and m < rho:
                new[0] = eta * t
            else:
                continue
        else:
            r = t - f[0]
            if kxx == 0:
                continue
            if algo == "pa-reg" and abs(r) - epsilon > 0:
                c, D = pa_step(variant, C)
                new[0] = np.sign(r) * min(c, (abs(r) - epsilon) / (kxx + D))
            elif algo == "klms" and r != 0:
                new[0] = eta * r
            elif algo == "norma-reg" and abs(r) > epsilon:
                new[0] = eta * np.sign(r)
            else:
                continue
        n = len(svs)
        if budget is not None and policy == "projectron" and n > 0:
            # Orabona et al. 2009: project k(x, .) onto span{k(x_i, .)}
            d = np.linalg.solve(k(svs, svs), kv)
            delta = math.sqrt(max(kxx - kv @ d, 0.0))
            if delta <= threshold or n >= budget:
                alpha[0] += new[0] * d
                continue
        if budget is not None and policy == "random" and n >= budget:
            rng = rng * RNG_MUL % RNG_MOD
            r = rng % n
            svs = np.delete(svs, r, axis=0)
            alpha = np.delete(alpha, r, axis=1)
        svs = np.vstack([svs, x])
        alpha = np.hstack([alpha, new[:, None]])
        if budget is not None and policy == "truncate" and len(svs) > budget:
            svs, alpha = svs[1:], alpha[:, 1:]  # NORMA's truncation: the oldest term
        if budget is not None and policy == "forgetron":
            # Dekel et al. 2008, self-tuned: shrink by phi, then drop the oldest
            M += 1
            if len(svs) > budget:
                sigma, yr = abs(alpha[0, 0]), np.sign(alpha[0, 0])
                mu = yr * (alpha[0] @ k(svs, svs[0])[:, 0])
                room = 15 / 32 * M - Q

                def psi(lam):
                    return lam * lam + 2 * lam - 2 * lam * mu
                if psi(sigma) <= room:
                    phi = 1.0
                else:  # the largest phi in (0, 1] with psi(sigma phi) <= room
                    disc = (1 - mu) ** 2 + room
                    phi = 0.0 if disc < 0 else min(1.0, max(0.0, (-(1 - mu) + math.sqrt(disc))
                                                                / sigma))
                Q += psi(sigma * phi)
                alpha = alpha * phi
                svs, alpha = svs[1:], alpha[:, 1:]
    return svs, alpha, np.array(scores)


def _binary(n=150, d=6, seed=0, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1, -1)
    return X, y


def _multiclass(n=150, d=6, K=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((d, K)) + np.sin(2 * X[:, :K]), axis=1)
    return X, y


def _check(model, X, y, svs, alpha, scores, sparse):
    Xin = sp.csr_matrix(X) if sparse else X
    got = model.predict_learn(Xin, y, return_scores=True)
    np.testing.assert_allclose(np.reshape(got, scores.shape), scores, rtol=1e-10,
                               atol=1e-10)
    assert model.n_support_ == len(svs)
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.support_vectors_.toarray(), svs, rtol=0, atol=0)


# ------------------------------------------------------------------ exact rules
CASES = [
    ("perceptron", {}, {}),
    ("perceptron", {"kernel": "poly", "gamma": 0.5, "coef0": 1.0, "degree": 2}, {}),
    ("perceptron", {"kernel": "linear", "margin": 0.5}, {}),
    ("pa", {"variant": "PA"}, {}),
    ("pa", {"variant": "PA-I", "C": 0.3}, {}),
    ("pa", {"variant": "PA-II", "C": 0.3, "kernel": "poly", "degree": 2}, {}),
    ("perceptron", {"budget": 12, "budget_policy": "random", "random_state": 5}, {}),
    ("perceptron", {"budget": 12, "budget_policy": "forgetron"}, {}),
    ("perceptron", {"budget": 12, "budget_policy": "projectron", "threshold": 0.3}, {}),
    ("pa", {"budget": 10, "budget_policy": "random", "random_state": 3}, {}),
    ("norma", {"eta": 0.3, "lam": 0.1, "rho": 0.5}, {}),
    ("norma", {"eta": 0.5, "lam": 0.05, "budget": 15, "budget_policy": "truncate"}, {}),
]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("algo,params,_", CASES)
def test_binary_rules_match_the_reference(algo, params, _, sparse):
    X, y = _binary()
    cls = {"perceptron": KernelPerceptron, "pa": KernelPAClassifier,
           "norma": NORMAClassifier}[algo]
    model = cls(**params)
    ref_params = {k: v for k, v in params.items() if k != "random_state"}
    if "budget_policy" in ref_params:
        ref_params["policy"] = ref_params.pop("budget_policy")
    svs, alpha, scores = reference(X, y, algo, seed=params.get("random_state", 0),
                                   **ref_params)
    _check(model, X, y, svs, alpha, scores, sparse)
    if "budget" in params:
        assert model.n_support_ <= params["budget"] < model.n_updates_


@pytest.mark.parametrize("algo,params", [("perceptron", {}), ("pa", {"variant": "PA-II"}),
                                         ("pa", {"kernel": "poly", "degree": 2}),
                                         ("norma", {"lam": 0.1})])
def test_multiclass_rules_match_the_reference(algo, params):
    X, y = _multiclass()
    cls = {"perceptron": KernelPerceptron, "pa": KernelPAClassifier,
           "norma": NORMAClassifier}[algo]
    svs, alpha, scores = reference(X, y, algo, n_classes=3, **params)
    model = cls(**params)
    got = model.predict_learn(sp.csr_matrix(X), y, return_scores=True)
    np.testing.assert_allclose(got, scores, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.support_vectors_.toarray(), svs)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("algo,params", [("pa-reg", {"variant": "PA-I", "C": 0.5}),
                                         ("pa-reg", {"variant": "PA", "epsilon": 0.0}),
                                         ("klms", {"eta": 0.3}),
                                         ("norma-reg", {"eta": 0.2, "lam": 0.1, "budget": 20,
                                                        "budget_policy": "truncate"})])
def test_regressors_match_the_reference(algo, params, sparse):
    X, _ = _binary(seed=4)
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    cls = {"pa-reg": KernelPARegressor, "klms": KernelLMSRegressor,
           "norma-reg": NORMARegressor}[algo]
    ref_params = dict(params)
    if "budget_policy" in ref_params:
        ref_params["policy"] = ref_params.pop("budget_policy")
    svs, alpha, scores = reference(X, y, algo, **ref_params)
    _check(cls(**params), X, y, svs, alpha, scores, sparse)


def test_real_data_a9a_slice_matches_the_reference():
    from olearn.io import load_libsvm
    X, y = load_libsvm(data_path("a9a", "a9a"), n_features=123)
    X, y = X[:300], y[:300]
    svs, alpha, scores = reference(X.toarray(), np.where(y > 0, 1, -1), "perceptron",
                                   gamma=0.01, budget=40, policy="forgetron")
    _check(KernelPerceptron(gamma=0.01, budget=40, budget_policy="forgetron"), X.toarray(),
           y, svs, alpha, scores, True)


def krls_reference(X, y, nu, gamma):
    """Engel, Mannor, Meir 2004, Table 1, with the dictionary's Gram matrix inverted
    afresh each row (not the recursive inverse): returns (dictionary, alpha, scores)."""
    def k(A, B):
        return kernel_matrix("rbf", gamma, 0, 1, np.atleast_2d(A), np.atleast_2d(B))
    D = X[:1]
    alpha = np.array([y[0] / k(X[0], X[0])[0, 0]])
    P = np.eye(1)
    scores = [0.0]
    for x, t in zip(X[1:], y[1:]):
        kt = k(D, x)[:, 0]
        f = alpha @ kt
        scores.append(f)
        Kinv = np.linalg.inv(k(D, D))
        a = Kinv @ kt
        delta = k(x, x)[0, 0] - kt @ a
        e = t - f
        if delta > nu:
            D = np.vstack([D, x])
            P = np.block([[P, np.zeros((len(P), 1))], [np.zeros((1, len(P))), np.eye(1)]])
            alpha = np.concatenate([alpha - a * e / delta, [e / delta]])
        else:
            q = P @ a / (1 + a @ P @ a)
            P = P - np.outer(q, a @ P)
            alpha = alpha + Kinv @ q * e
    return D, alpha, np.array(scores)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_krls_matches_the_reference(sparse):
    X, _ = _binary(n=120, d=3, density=1.0, seed=8)
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2
    D, alpha, scores = krls_reference(X, y, 0.05, 0.5)
    m = KernelRLSRegressor(nu=0.05, gamma=0.5)
    got = m.predict_learn(sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_allclose(got, scores, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(m.dual_coef_[0], alpha, rtol=1e-8, atol=1e-8)
    np.testing.assert_array_equal(m.support_vectors_.toarray(), D)
    assert m.n_support_ < 120  # the ALD test pruned some


def test_krls_without_pruning_is_the_interpolant_on_the_dictionary():
    """nu = 0: every example joins; alpha = K^{-1} y (kernel ridge regression with a
    vanishing ridge on the dictionary), so f(x_i) = y_i."""
    rng = np.random.default_rng(9)
    X = rng.standard_normal((25, 3))
    y = rng.standard_normal(25)
    m = KernelRLSRegressor(nu=0.0, gamma=0.5).fit(X, y)
    assert m.n_support_ == 25
    sv = m.support_vectors_.toarray()
    K = kernel_matrix("rbf", 0.5, 0, 1, sv, sv)
    order = [int(np.flatnonzero((X == s).all(1))[0]) for s in sv]
    np.testing.assert_allclose(m.dual_coef_[0], np.linalg.solve(K, y[order]), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(m.predict(X), y, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ linear kernel
@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_kernel_is_the_linear_learner(n_classes):
    X, y = _binary() if n_classes == 2 else _multiclass()
    pairs = [(KernelPerceptron(kernel="linear"), Perceptron(fit_intercept=False)),
             (KernelPerceptron(kernel="linear", fit_intercept=True),
              Perceptron(fit_intercept=True, intercept_scaling=1.0)),
             (KernelPAClassifier(kernel="linear", variant="PA-II", C=0.5),
              PAClassifier(variant="PA-II", C=0.5, fit_intercept=False))]
    for kern, lin in pairs:
        a = kern.predict_learn(sp.csr_matrix(X), y)
        b = lin.predict_learn(sp.csr_matrix(X), y)
        assert np.array_equal(a, b)
        np.testing.assert_allclose(kern.coef_, lin.coef_, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(kern.intercept_, lin.intercept_, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(kern.decision_function(X), lin.decision_function(X),
                                   rtol=1e-9, atol=1e-10)
    Xr, _ = _binary(seed=3)
    yr = Xr @ np.arange(1.0, 7.0)
    k = KernelPARegressor(kernel="linear", variant="PA-I")
    lin = PARegressor(variant="PA-I", fit_intercept=False)
    np.testing.assert_allclose(k.predict_learn(Xr, yr), lin.predict_learn(Xr, yr),
                               rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------ budgets, properties
@pytest.mark.parametrize("policy", ["random", "forgetron", "projectron"])
def test_support_set_never_exceeds_the_budget(policy):
    X, y = _binary(n=400, seed=7)
    m = KernelPerceptron(budget=15, budget_policy=policy, threshold=0.0, random_state=1)
    for lo in range(0, 400, 50):
        m.partial_fit(sp.csr_matrix(X[lo:lo + 50]), y[lo:lo + 50])
        assert m.n_support_ <= 15
    assert m.n_support_ == 15 and m.n_updates_ > 15


def test_projectron_with_linear_kernel_keeps_at_most_d_vectors_and_equals_perceptron():
    """Orabona et al. 2009: with threshold 0 the projected update is the Perceptron's
    own update whenever x lies in the span of the support set; for the linear kernel in
    d dimensions the set never exceeds d vectors and the predictions do not change."""
    X, y = _binary(n=300, d=5, density=1.0, seed=2)
    p = KernelPerceptron(kernel="linear", budget_policy="projectron", budget=10 ** 6,
                         threshold=1e-6)
    k = KernelPerceptron(kernel="linear")
    assert np.array_equal(p.predict_learn(X, y), k.predict_learn(X, y))
    assert p.n_support_ <= 5 < k.n_support_
    np.testing.assert_allclose(p.decision_function(X), k.decision_function(X), rtol=1e-8,
                               atol=1e-8)


def test_forgetron_mistake_bound_on_separable_data():
    """Dekel et al. 2008, Theorem 2: for any g with ||g|| <= U = sqrt((B+1)/log(B+1))/4
    and K(x, x) <= 1, M <= 2 ||g||^2 + 4 sum hinge(g); on data that g separates with
    margin 1 the mistakes are at most 2 ||g||^2."""
    B = 200
    U = math.sqrt((B + 1) / math.log(B + 1)) / 4
    rng = np.random.default_rng(3)
    g = np.array([U, 0.0, 0.0])
    n = 2000
    side = rng.choice([-1.0, 1.0], n)
    X = np.column_stack([side * rng.uniform(1 / U, 1.0, n), rng.uniform(-0.3, 0.3, (n, 2))])
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.sign(X @ g)
    keep = y * (X @ g) >= 1.0
    X, y = X[keep], y[keep]
    m = KernelPerceptron(kernel="linear", budget=B, budget_policy="forgetron")
    pred = m.predict_learn(X, y)
    mistakes = int(np.sum(pred != y))
    assert mistakes <= 2 * U * U
    assert m.n_support_ <= B


# ------------------------------------------------------------------ FOGD
def _fogd_reference(X, y, U, eta, task):
    D = U.shape[1]
    K = 1 if task != "multi" else int(y.max()) + 1
    W = np.zeros((K, 2 * D))
    seen = np.zeros(K, bool)
    scores = []
    for x, t in zip(X, y):
        p = x @ U
        z = np.concatenate([np.cos(p), np.sin(p)]) / math.sqrt(D)
        f = W @ z
        scores.append(f)
        if task == "bin" and t * f[0] < 1:
            W[0] += eta * t * z
        elif task == "reg":
            W[0] += eta * (t - f[0]) * z
        elif task == "multi":
            seen[t] = True
            wrong = [c for c in range(K) if c != t and seen[c]]
            if wrong:
                s = max(wrong, key=lambda c: (f[c], -c))
                if f[t] - f[s] < 1:
                    W[t] += eta * z
                    W[s] -= eta * z
    return W, np.array(scores)


@pytest.mark.parametrize("task", ["bin", "multi", "reg"])
def test_fogd_matches_the_reference(task):
    X, yb = _binary(n=120)
    y = {"bin": yb, "multi": _multiclass(n=120)[1], "reg": np.sin(X[:, 0]) + X[:, 1]}[task]
    if task == "multi":
        X = _multiclass(n=120)[0]
    cls = FOGDRegressor if task == "reg" else FOGDClassifier
    m = cls(D=50, gamma=0.3, eta=0.4, random_state=4)
    if task == "multi":
        m.partial_fit(X[:1], y[:1], classes=[0, 1, 2])
        got = m.predict_learn(sp.csr_matrix(X[1:]), y[1:], return_scores=True)
    else:
        got = m.predict_learn(sp.csr_matrix(X), y, return_scores=True)
    U = m.state_["U"]
    W, scores = _fogd_reference(X, y, U, 0.4, task)
    if task == "multi":
        scores = scores[1:]
    np.testing.assert_allclose(np.reshape(got, scores.shape), scores, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(m.weights_, W, rtol=1e-10, atol=1e-12)
    # the directions are N(0, 2 gamma) and seeded
    assert abs(U.std() - math.sqrt(0.6)) < 0.05
    again = cls(D=50, gamma=0.3, random_state=4).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(again.directions_, U)


def _exact_kernel_ogd(X, y, gamma, eta):
    """The exact RBF kernel learner FOGD approximates: hinge OGD in the RKHS,
    f += eta y K(x, .) when y f(x) < 1."""
    svs, coef, scores = [], [], []
    for x, t in zip(X, y):
        f = float(np.dot(coef, kernel_matrix("rbf", gamma, 0, 1, np.array(svs), x[None])[:, 0])
                  ) if svs else 0.0
        scores.append(f)
        if t * f < 1:
            svs.append(x)
            coef.append(eta * t)
    return np.array(scores)


def test_fogd_approaches_the_exact_kernel_learner_as_D_grows():
    X, y = _binary(n=300, d=4, density=1.0, seed=5)
    exact = _exact_kernel_ogd(X, y, 0.2, 0.3)
    errors = []
    for D in (10, 100, 2000):
        runs = [FOGDClassifier(D=D, gamma=0.2, eta=0.3, random_state=s).predict_learn(
            sp.csr_matrix(X), y, return_scores=True) for s in range(3)]
        errors.append(np.mean([np.mean(np.abs(r - exact)) for r in runs]))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.25 * errors[0]


# ------------------------------------------------------------------ model, persistence
def test_save_load_keeps_the_support_set(tmp_path):
    X, y = _binary()
    m = KernelPerceptron(budget=20, budget_policy="random", random_state=2).fit(X, y)
    m.save(tmp_path / "k.olm")
    back = olearn.load(tmp_path / "k.olm")
    np.testing.assert_array_equal(back.dual_coef_, m.dual_coef_)
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))
    np.testing.assert_array_equal(back.predict_learn(X, y), m.predict_learn(X, y))
    np.testing.assert_array_equal(back.dual_coef_, m.dual_coef_)  # same random removals


def test_corrupt_support_set_is_refused(tmp_path):
    X, y = _binary()
    m = KernelPAClassifier().fit(X, y)
    m.state_["sv_idx"][0] = 10 ** 6  # a column index the model does not have
    m.save(tmp_path / "bad.olm")
    with pytest.raises(olearn.persistence.ModelFileError, match="support set"):
        olearn.load(tmp_path / "bad.olm")


def test_rbf_has_no_coef_and_bad_parameters_are_named():
    X, y = _binary(n=30)
    m = KernelPerceptron().fit(X, y)
    with pytest.raises(AttributeError, match="linear"):
        m.coef_
    with pytest.raises(ValueError, match="gamma"):
        KernelPerceptron(gamma=0).fit(X, y)
    with pytest.raises(ValueError, match="budget_policy"):
        KernelPAClassifier(budget=5, budget_policy="forgetron").fit(X, y)
    Xm, ym = _multiclass(n=30)
    with pytest.raises(ValueError, match="binary"):
        KernelPerceptron(budget=5, budget_policy="forgetron").fit(Xm, ym)


@pytest.mark.parametrize("cls", [KernelPerceptron, KernelPAClassifier, NORMAClassifier])
def test_third_label_keeps_every_margin(cls):
    """A third label turns alpha (1, n) into (-alpha/2, +alpha/2, 0): every binary
    margin f_1 - f_0 is kept."""
    X, y = _binary()
    m = cls().fit(X, y)
    before = m.decision_function(X)
    m._prepare_labels(np.array([5]), None)  # registers the label; no row is learned
    after = m.decision_function(X)
    assert after.shape == (len(y), 3)
    np.testing.assert_allclose(after[:, 1] - after[:, 0], before, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(after[:, 2], 0.0)


def test_divergence_is_reported():
    from olearn.base import DivergenceError
    rng = np.random.default_rng(0)
    X = 10 * rng.standard_normal((400, 5))
    y = X.sum(1)
    m = KernelLMSRegressor(kernel="linear", eta=5.0)
    with pytest.raises(DivergenceError, match="row"):
        m.partial_fit(X, y)


def test_one_example_at_a_time_equals_the_batch():
    X, y = _binary(n=80)
    batch = KernelPAClassifier(budget=20, random_state=0)
    want = batch.predict_learn(X, y, return_scores=True)
    one = KernelPAClassifier(budget=20, random_state=0)
    got = []
    for xi, yi in zip(X, y):
        got.append(0.0 if one.__dict__.get("state_") is None else
                   float(one.decision_function(xi[None])[0]))
        one.learn_one(xi, yi)
    np.testing.assert_allclose(got[5:], want[5:], rtol=1e-9, atol=1e-12)
