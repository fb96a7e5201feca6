"""The budget policies Projectron++, BPA-S and BOGD, and NOGD, against plain numpy
references written from the papers (dual coefficients and pre-update scores to 1e-10,
dense and CSR), the budget never exceeded, save/load."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.kernel import KernelPAClassifier, KernelPerceptron, NORMAClassifier, NORMARegressor

from test_kernel import RNG_MOD, RNG_MUL, _binary, _check, _multiclass, kernel_matrix, pa_step


def budget_reference(X, y, algo, policy, budget, n_classes=2, kernel="rbf", gamma=0.1,
                     coef0=1.0, degree=3, C=1.0, variant="PA-I", eta=0.5, lam=0.01,
                     rho=1.0, epsilon=0.1, threshold=0.1, seed=0, max_coef=None):
    """Kernel Perceptron + Projectron++ (Orabona et al. 2009, Algorithm 2), kernel PA +
    BPA-S (Wang and Vucetic 2010), NORMA + BOGD (Zhao et al. 2012), on dense rows, the
    Gram matrix of the support set inverted afresh each row."""
    task = "reg" if algo == "norma-reg" else ("bin" if n_classes == 2 else "multi")
    K = n_classes if task == "multi" else 1
    svs, alpha = np.zeros((0, X.shape[1])), np.zeros((K, 0))
    seen = np.zeros(K, bool)
    rng = seed % (RNG_MOD - 1) + 1
    scores = []

    def k(A, B):
        return kernel_matrix(kernel, gamma, coef0, degree, np.atleast_2d(A), np.atleast_2d(B))

    for x, t in zip(X, y):
        kv = k(svs, x)[:, 0] if len(svs) else np.zeros(0)
        f = alpha @ kv
        scores.append(f.copy())
        kxx = k(x, x)[0, 0]
        n = len(svs)
        if algo.startswith("norma"):
            alpha = (1 - eta * lam) * alpha
        new = np.zeros(K)
        if task == "multi":
            seen[int(t)] = True
            wrong = [c for c in range(K) if c != t and seen[c]]
            if not wrong:
                continue
            s = max(wrong, key=lambda c: (f[c], -c))
            m = f[int(t)] - f[s]
            if algo == "pa" and m < 1:
                c, D = pa_step(variant, C)
                tau = min(c, (1 - m) / (2 * kxx + D))
                new[int(t)], new[s] = tau, -tau
            elif algo == "norma" and m < rho:
                new[int(t)], new[s] = eta, -eta
            else:
                continue
        elif task == "bin":
            m = t * f[0]
            if algo == "perceptron" and m <= 0:
                new[0] = t
            elif algo == "perceptron" and 0 < m < 1 and n > 0:
                # Projectron++'s margin error: a projected step only, when beta >= 0
                d = np.linalg.solve(k(svs, svs), kv)
                pk2 = kv @ d
                delta = math.sqrt(max(kxx - pk2, 0.0))
                loss = 1 - m
                tau = min(loss / pk2, 1.0)
                if tau * (2 * loss - tau * pk2 - 2 * delta / threshold) >= 0:
                    alpha[0] += t * tau * d
                continue
            elif algo == "pa" and m < 1:
                c, D = pa_step(variant, C)
                new[0] = min(c, (1 - m) / (kxx + D)) * t
            elif algo == "norma" and m < rho:
                new[0] = eta * t
            else:
                continue
        else:
            r = t - f[0]
            if abs(r) > epsilon:
                new[0] = eta * np.sign(r)
            else:
                continue
        if policy == "projectron++" and n > 0:  # a mistake: the Projectron's step
            d = np.linalg.solve(k(svs, svs), kv)
            delta = math.sqrt(max(kxx - kv @ d, 0.0))
            if delta <= threshold or n >= budget:
                alpha[0] += new[0] * d
                continue
        if policy == "bpa-s" and n >= budget:
            kss = np.diag(k(svs, svs))
            loss = (alpha ** 2).sum(0) * (kss - kv ** 2 / kxx)
            r = int(np.argmin(loss))
            new = new + alpha[:, r] * kv[r] / kxx
            svs, alpha = np.delete(svs, r, axis=0), np.delete(alpha, r, axis=1)
        removed = policy == "bogd" and n >= budget
        if removed:
            rng = rng * RNG_MUL % RNG_MOD
            r = rng % n
            svs, alpha = np.delete(svs, r, axis=0), np.delete(alpha, r, axis=1)
            if n > 1:
                alpha = alpha * n / (n - 1)
        svs = np.vstack([svs, x])
        alpha = np.hstack([alpha, new[:, None]])
        if removed and max_coef is not None:  # LIBOKL's bound, after the new term
            alpha = alpha * min(1.0, max_coef / np.abs(alpha).max())
    return svs, alpha, np.array(scores)


CASES = [
    (KernelPerceptron, "perceptron", {"budget": 12, "budget_policy": "projectron++",
                                      "threshold": 0.3}),
    (KernelPerceptron, "perceptron", {"budget": 40, "budget_policy": "projectron++",
                                      "threshold": 2.0, "kernel": "poly", "degree": 2}),
    (KernelPAClassifier, "pa", {"budget": 10, "budget_policy": "bpa-s"}),
    (KernelPAClassifier, "pa", {"budget": 10, "budget_policy": "bpa-s", "variant": "PA-II",
                                "kernel": "poly", "degree": 2, "gamma": 0.3}),
    (NORMAClassifier, "norma", {"budget": 10, "budget_policy": "bogd", "eta": 0.3,
                                "lam": 0.05, "random_state": 3}),
    (NORMAClassifier, "norma", {"budget": 10, "budget_policy": "bogd", "eta": 0.3,
                                "lam": 0.0, "max_coef": 0.5, "random_state": 4}),
]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("cls,algo,params", CASES)
def test_binary_budgets_match_the_reference(cls, algo, params, sparse):
    X, y = _binary()
    ref = {k: v for k, v in params.items() if k not in ("budget_policy", "random_state")}
    svs, alpha, scores = budget_reference(X, y, algo, params["budget_policy"],
                                          seed=params.get("random_state", 0), **ref)
    model = cls(**params)
    _check(model, X, y, svs, alpha, scores, sparse)
    assert model.n_support_ <= params["budget"]


@pytest.mark.parametrize("cls,algo,params", [
    (KernelPAClassifier, "pa", {"budget": 8, "budget_policy": "bpa-s", "C": 0.5}),
    (NORMAClassifier, "norma", {"budget": 8, "budget_policy": "bogd", "random_state": 1,
                                "max_coef": 0.6})])
def test_multiclass_budgets_match_the_reference(cls, algo, params):
    X, y = _multiclass()
    ref = {k: v for k, v in params.items() if k not in ("budget_policy", "random_state")}
    svs, alpha, scores = budget_reference(X, y, algo, params["budget_policy"], n_classes=3,
                                          seed=params.get("random_state", 0), **ref)
    _check(cls(**params), X, y, svs, alpha, scores, True)


def test_bogd_regressor_matches_the_reference():
    X, _ = _binary(seed=4)
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    svs, alpha, scores = budget_reference(X, y, "norma-reg", "bogd", 12, eta=0.2, lam=0.1,
                                          seed=9)
    _check(NORMARegressor(eta=0.2, lam=0.1, budget=12, budget_policy="bogd",
                          random_state=9), X, y, svs, alpha, scores, False)


def test_projectron_pp_makes_margin_updates_that_add_nothing():
    X, y = _binary(n=300, seed=3)
    pp = KernelPerceptron(budget=1000, budget_policy="projectron++", threshold=0.5)
    pj = KernelPerceptron(budget=1000, budget_policy="projectron", threshold=0.5)
    pp.partial_fit(X, y)  # (fit would shuffle: not the same order for both)
    pj.partial_fit(X, y)
    assert pp.n_updates_ > pj.n_updates_  # the margin errors it corrected
    # a margin update projects: the support set is never larger than the mistakes
    assert pp.n_support_ <= pp.n_updates_


@pytest.mark.parametrize("cls,params", [
    (KernelPerceptron, {"budget_policy": "projectron++", "threshold": 0.0}),
    (KernelPAClassifier, {"budget_policy": "bpa-s"}),
    (NORMAClassifier, {"budget_policy": "bogd", "random_state": 2})])
def test_budget_is_never_exceeded_and_save_load_round_trips(cls, params, tmp_path):
    X, y = _binary(n=400, seed=7)
    m = cls(budget=15, **params)
    for lo in range(0, 400, 50):
        m.partial_fit(sp.csr_matrix(X[lo:lo + 50]), y[lo:lo + 50])
        assert m.n_support_ <= 15
    assert m.n_support_ == 15 and m.n_updates_ > 15
    m.save(tmp_path / "m.olm")
    back = olearn.load(tmp_path / "m.olm")
    np.testing.assert_array_equal(back.dual_coef_, m.dual_coef_)
    np.testing.assert_array_equal(back.predict_learn(X, y), m.predict_learn(X, y))
    np.testing.assert_array_equal(back.dual_coef_, m.dual_coef_)


def test_binary_only_policies_refuse_a_third_class():
    X, y = _multiclass()
    with pytest.raises(ValueError, match="binary classification only"):
        KernelPerceptron(budget=5, budget_policy="projectron++").fit(X, y)
    with pytest.raises(ValueError, match="budget_policy"):
        KernelPerceptron(budget=5, budget_policy="bpa-s").fit(X, y)


# ------------------------------------------------------------------ NOGD
def nogd_reference(X, y, B, k, gamma, eta, task="bin", n_classes=2):
    """Lu et al. 2016, Algorithm 2 (NOGD) on dense rows: kernel OGD until B support
    vectors are held, then at the next row the Nystrom map from numpy's eigh and OGD
    on ``z(x)``.  Returns the pre-update scores and the last function's scores on X."""
    K = n_classes if task == "multi" else 1
    svs, alpha = [], np.zeros((K, 0))
    seen = np.zeros(K, bool)
    M = W = None
    scores = []

    def kvec(x):
        return kernel_matrix("rbf", gamma, 0, 1, np.array(svs), x[None])[:, 0]

    def step(f, t):
        """The loss gradient's coefficients per class row (zeros: no update)."""
        g = np.zeros(K)
        if task == "reg":
            g[0] = eta * (t - f[0])
        elif task == "bin":
            g[0] = eta * t if t * f[0] < 1 else 0.0
        else:
            seen[int(t)] = True
            wrong = [c for c in range(K) if c != t and seen[c]]
            if wrong:
                s = max(wrong, key=lambda c: (f[c], -c))
                if f[int(t)] - f[s] < 1:
                    g[int(t)], g[s] = eta, -eta
        return g

    for x, t in zip(X, y):
        kv = kvec(x) if svs else np.zeros(0)
        f = alpha @ kv if M is None else W @ (M @ kv)
        scores.append(f.copy())
        g = step(f, t)
        if M is None and len(svs) == B:
            lam, V = np.linalg.eigh(kernel_matrix("rbf", gamma, 0, 1, np.array(svs),
                                                  np.array(svs)))
            lam, V = lam[::-1][:k], V[:, ::-1][:, :k]
            M = (V / np.sqrt(lam)).T
            W = alpha @ np.linalg.pinv(M)
        if M is not None:
            W = W + np.outer(g, M @ kv)
        elif np.any(g != 0):
            svs.append(x)
            alpha = np.hstack([alpha, g[:, None]])
    final = (np.array([alpha @ kvec(x) for x in X]) if M is None else
             np.array([W @ (M @ kvec(x)) for x in X]))
    return np.array(scores), final, W


@pytest.mark.parametrize("task,sparse", [("bin", False), ("bin", True), ("multi", True),
                                         ("reg", False)])
def test_nogd_matches_the_reference(task, sparse):
    from olearn.kernel import NOGDClassifier, NOGDRegressor
    X, y = _multiclass(n=160) if task == "multi" else _binary(n=160, seed=2)
    if task == "reg":
        y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    cls = NOGDRegressor if task == "reg" else NOGDClassifier
    m = cls(B=25, k=8, gamma=0.3, eta=0.4)
    Xin = sp.csr_matrix(X) if sparse else X
    if task == "multi":
        m.partial_fit(Xin[:1], y[:1], classes=[0, 1, 2])
        got = m.predict_learn(Xin[1:], y[1:], return_scores=True)
    else:
        got = m.predict_learn(Xin, y, return_scores=True)
    scores, final, W = nogd_reference(X, y, 25, 8, 0.3, 0.4, task, 3)
    if task == "multi":
        scores = scores[1:]
    np.testing.assert_allclose(np.reshape(got, scores.shape), scores, rtol=1e-10,
                               atol=1e-10)
    assert m.n_landmarks_ == 25 and m.nystrom_map_ is not None
    decision = m.predict(Xin) if task == "reg" else m.decision_function(Xin)
    np.testing.assert_allclose(np.reshape(decision, final.shape), final, rtol=1e-10,
                               atol=1e-10)
    # the weights up to the eigenvectors' signs
    np.testing.assert_allclose(np.abs(m.weights_), np.abs(W), rtol=1e-8, atol=1e-10)


def test_nogd_one_at_a_time_save_load_and_bad_input(tmp_path):
    from olearn.kernel import NOGDClassifier
    X, y = _binary(n=200, seed=6)
    batch = NOGDClassifier(B=20, k=5, gamma=0.3).partial_fit(X[:120], y[:120])
    one = NOGDClassifier(B=20, k=5, gamma=0.3)
    one.partial_fit(X[:1], y[:1], classes=[-1, 1])
    for x, t in zip(X[1:120], y[1:120]):
        one.learn_one(x, t)
    np.testing.assert_allclose(one.decision_function(X), batch.decision_function(X),
                               rtol=1e-10, atol=1e-12)
    assert batch.nystrom_map_.shape == (5, 20)
    for x in X[120:130]:
        assert batch.predict_one(x) == batch.predict(x[None])[0]
    batch.save(tmp_path / "n.olm")
    back = olearn.load(tmp_path / "n.olm")
    np.testing.assert_array_equal(back.predict_learn(X[120:], y[120:]),
                                  batch.predict_learn(X[120:], y[120:]))
    back.state_["C"][0, 0] = 99.0  # more landmarks than B: refused on load
    back.save(tmp_path / "bad.olm")
    with pytest.raises(olearn.persistence.ModelFileError, match="landmark"):
        olearn.load(tmp_path / "bad.olm")
    with pytest.raises(ValueError, match="at most B"):
        NOGDClassifier(B=5, k=6).fit(X, y)



def test_real_data_a9a_slice_matches_the_references():
    from olearn.io import load_libsvm
    from olearn.kernel import NOGDClassifier
    from conftest import data_path
    X, y = load_libsvm(data_path("a9a", "a9a"), n_features=123)
    X, y = X[:300], np.where(y[:300] > 0, 1, -1)
    Xd = X.toarray()
    for cls, algo, params in [
            (KernelPerceptron, "perceptron", {"budget": 30, "budget_policy": "projectron++",
                                              "threshold": 0.5}),
            (KernelPAClassifier, "pa", {"budget": 30, "budget_policy": "bpa-s"}),
            (NORMAClassifier, "norma", {"budget": 30, "budget_policy": "bogd",
                                        "random_state": 0})]:
        ref = {k: v for k, v in params.items() if k not in ("budget_policy", "random_state")}
        svs, alpha, scores = budget_reference(Xd, y, algo, params["budget_policy"],
                                              gamma=0.01, **ref)
        _check(cls(gamma=0.01, **params), Xd, y, svs, alpha, scores, True)
    scores, _, _ = nogd_reference(Xd, y, 40, 10, 0.01, 0.2)
    got = NOGDClassifier(B=40, k=10, gamma=0.01).predict_learn(X, y, return_scores=True)
    np.testing.assert_allclose(got, scores[:, 0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("cls,params", [
    (KernelPerceptron, {"budget_policy": "projectron++", "threshold": 0.3}),
    (KernelPAClassifier, {"budget_policy": "bpa-s"}),
    (NORMAClassifier, {"budget_policy": "bogd", "random_state": 2, "max_coef": 0.4})])
def test_one_example_at_a_time_equals_the_batch(cls, params):
    X, y = _binary(n=120, seed=8)
    batch = cls(budget=10, **params).partial_fit(X, y)
    one = cls(budget=10, **params)
    for x, t in zip(X, y):
        one.learn_one({j: v for j, v in enumerate(x) if v}, t)
    np.testing.assert_allclose(one.dual_coef_, batch.dual_coef_, rtol=1e-12, atol=1e-12)


def test_nogd_grows_with_dict_features():
    from olearn.kernel import NOGDClassifier
    X, y = _binary(n=120, seed=9)
    batch = NOGDClassifier(B=15, k=4, gamma=0.3).partial_fit(X, y)
    one = NOGDClassifier(B=15, k=4, gamma=0.3)
    for x, t in zip(X, y):  # features appear as the stream goes
        one.learn_one({f"f{j}": v for j, v in enumerate(x) if v}, t)
    Xd = [{f"f{j}": v for j, v in enumerate(x) if v} for x in X[:20]]
    got = [one.predict_one(x) for x in Xd]
    np.testing.assert_array_equal(got, batch.predict(X[:20]))
    np.testing.assert_allclose(np.abs(one.weights_), np.abs(batch.weights_), rtol=1e-9,
                               atol=1e-12)
