"""olearn.portfolio: every strategy's updates against a plain numpy reference (random and
real relatives), the simplex, wealth = prod b.x, BCRP's KKT conditions, EG at eta -> 0,
PAMR's passive periods, learn_one = backtest, save/load, the data reader."""
import numpy as np
import pytest
from scipy.optimize import minimize

import olearn.portfolio as op
from olearn.persistence import load, save
from olearn.portfolio._simplex import project_simplex, project_simplex_norm

from conftest import data_path

RNG = np.random.default_rng(7)
RANDOM = np.exp(RNG.normal(0.0005, 0.03, size=(70, 5)))


@pytest.fixture(scope="module")
def real():
    """NYSE(O): 250 periods of 8 assets (skips without the shared data)."""
    return op.load_relatives(data_path("portfolio", "nyse_o.csv"))[:250, :8].copy()


def proj(v):
    """Euclidean projection onto the simplex by bisection on theta (no sorting)."""
    lo, hi = v.min() - 1.0, v.max()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.maximum(v - mid, 0).sum() > 1 else (lo, mid)
    return np.maximum(v - 0.5 * (lo + hi), 0)


def run(strategy, X):
    return op.backtest(strategy, X).portfolios


# ------------------------------------------------------------------ references
def ref_eg(X, eta):
    b, out = np.full(X.shape[1], 1 / X.shape[1]), []
    for x in X:
        out.append(b.copy())
        b = b * np.exp(eta * x / (b @ x))
        b /= b.sum()
    return np.array(out)


def ref_pamr(X, eps, C, variant):
    b, out = np.full(X.shape[1], 1 / X.shape[1]), []
    for x in X:
        out.append(b.copy())
        loss, d = max(0.0, b @ x - eps), np.sum((x - x.mean()) ** 2)
        if d == 0 and variant != "PAMR-2":  # (relatives all equal: x - mean(x) = 0)
            continue
        tau = {"PAMR": loss / d, "PAMR-1": min(C, loss / d),
               "PAMR-2": loss / (d + 0.5 / C)}[variant]
        if loss > 0:
            b = proj(b - tau * (x - x.mean()))
    return np.array(out)


def ref_olmar(X, eps, w):
    b, out = np.full(X.shape[1], 1 / X.shape[1]), []
    for T in range(1, len(X) + 1):
        out.append(b.copy())
        if T < 2:
            continue
        if T < w + 1:
            phi = X[T - 1]
        else:        # moving average of the last w prices over the last price
            p = np.cumprod(X[:T], axis=0)
            phi = p[T - w:T].mean(axis=0) / p[T - 1]
        lam = max(0.0, eps - phi @ b) / np.sum((phi - phi.mean()) ** 2)
        if lam > 0:
            b = proj(b + lam * (phi - phi.mean()))
    return np.array(out)


def ref_cwmr(X, phi, eps, with_sigma=False):
    m = X.shape[1]
    mu, S, out = np.full(m, 1 / m), np.eye(m) / m ** 2, []
    for x in X:
        out.append(mu.copy())
        one = np.ones(m)
        # xbar is x itself when all relatives are equal (then x - xbar = 0 exactly)
        xbar = x[0] if np.ptp(x) == 0 else one @ S @ x / (one @ S @ one)
        M, V = x @ mu, x @ S @ x
        VxW = (x - xbar) @ S @ (x - xbar)     # = V - xbar W, W = x' S 1, without cancelling
        a = 2 * phi * V * VxW
        b = 2 * phi * eps * V - 2 * phi * V * M + VxW
        c = eps - M - phi * V
        roots = np.roots([a, b, c]) if a != 0 else np.array([-c / b])
        roots = roots[np.isreal(roots)].real if b * b - 4 * a * c > 0 or a == 0 else []
        lam = max([0.0, *roots])
        mu = mu - lam * S @ (x - xbar)
        S = np.linalg.inv(np.linalg.inv(S) + 2 * lam * phi * np.diag(x ** 2))
        mu = proj(mu)
        S = S / S.sum() / m
    return (np.array(out), S) if with_sigma else np.array(out)


def ref_l1median(P):
    y = np.median(P, axis=0)
    for _ in range(200):
        d = np.linalg.norm(P - y, axis=1)
        keep = d >= 1e-15
        T = (P[keep] / d[keep, None]).sum(0) / (1 / d[keep]).sum()
        R = ((P[keep] - y) / d[keep, None]).sum(0)
        eta = float((~keep).any())
        r = min(1.0, eta / np.linalg.norm(R)) if np.linalg.norm(R) > 0 else 0.0
        Ty = (1 - r) * T + r * y
        done = np.abs(Ty - y).sum() <= 1e-9 * np.abs(y).sum()
        y = Ty
        if done:
            break
    return y


def ref_rmr(X, eps, w):
    b, out, p = np.full(X.shape[1], 1 / X.shape[1]), [], np.cumprod(X, axis=0)
    for T in range(1, len(X) + 1):
        out.append(b.copy())
        phi = X[T - 1] if T < w + 1 else ref_l1median(p[T - w:T]) / p[T - 1]
        lam = max(0.0, eps - phi @ b) / np.sum((phi - phi.mean()) ** 2)
        if lam > 0:
            b = proj(b + lam * (phi - phi.mean()))
    return np.array(out)


def qp_simplex(A, q):
    """argmin over the simplex of (w - q)' A (w - q), by SLSQP (scipy)."""
    m = len(q)
    res = minimize(lambda w: (w - q) @ A @ (w - q), np.full(m, 1 / m),
                   jac=lambda w: 2 * A @ (w - q), method="SLSQP", bounds=[(0, 1)] * m,
                   constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1}],
                   options={"ftol": 1e-16, "maxiter": 500})
    return res.x


def ref_ons(X, eta, beta, delta):
    m = X.shape[1]
    b, A, g, out = np.full(m, 1 / m), np.eye(m), np.zeros(m), []
    for x in X:
        out.append(b.copy())
        grad = x / (b @ x)
        A, g = A + np.outer(grad, grad), g + (1 + 1 / beta) * grad
        w = qp_simplex(A, delta * np.linalg.solve(A, g))
        b = (1 - eta) * w + eta / m
    return np.array(out)


def ref_up(X, samples):
    S, out = np.ones(len(samples)), [np.full(X.shape[1], 1 / X.shape[1])]
    for x in X[:-1]:
        S = S * (samples @ x)
        out.append(S @ samples / S.sum())
    return np.array(out)


def ref_anticor_expert(LX1, LX2, b):
    w, m = LX1.shape
    mu2 = LX2.mean(axis=0)
    cor = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            a, c = LX1[:, i] - LX1[:, i].mean(), LX2[:, j] - mu2[j]
            if a.std() > 0 and c.std() > 0:
                cor[i, j] = (a @ c) / np.sqrt((a @ a) * (c @ c))
    claim = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i != j and mu2[i] > mu2[j] and cor[i, j] > 0:
                claim[i, j] = cor[i, j] + max(0, -cor[i, i]) + max(0, -cor[j, j])
    new = b.copy()
    for i in range(m):
        if claim[i].sum() > 0:
            t = b[i] * claim[i] / claim[i].sum()
            new -= np.eye(m)[i] * t.sum()
            new += t
    return new


def ref_anticor(X, W, bah):
    m = X.shape[1]
    ws = list(range(2, W + 1)) if bah else [W]
    ew, er = [np.full(m, 1 / m) for _ in ws], np.ones(len(ws))
    b, out, L = np.full(m, 1 / m), [], np.log(X)
    for T in range(1, len(X) + 1):
        out.append(b.copy())
        er = er * np.array([X[T - 1] @ e for e in ew])
        er /= er.sum()
        for k, w in enumerate(ws):
            if T >= 2 * w:
                ew[k] = ref_anticor_expert(L[T - 2 * w:T - w], L[T - w:T], ew[k])
        b = sum(r * e for r, e in zip(er, ew)) / er.sum()
    return np.array(out)


def assert_simplex(B):
    assert (B >= 0).all()
    np.testing.assert_allclose(B.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ projections
def test_simplex_projection_exact():
    out = np.empty(7)
    for scale in (0.01, 1, 100):
        for _ in range(50):
            v = RNG.normal(0, scale, 7)
            project_simplex(v, out)
            assert (out >= 0).all() and abs(out.sum() - 1) <= 1e-12
            np.testing.assert_allclose(out, proj(v), atol=1e-12)
    project_simplex(np.array([0.2, 0.3, 0.5, 0, 0, 0, 0.]), out)   # on the simplex: kept
    np.testing.assert_allclose(out, [0.2, 0.3, 0.5, 0, 0, 0, 0], atol=1e-15)


def test_norm_projection_kkt():
    out = np.empty(6)
    for _ in range(20):
        G = RNG.normal(size=(10, 6))
        A = G.T @ G + 0.1 * np.eye(6)
        q = RNG.normal(0, 1, 6)
        project_simplex_norm(A, A @ q, np.full(6, 1 / 6), out)
        assert (out >= 0).all() and abs(out.sum() - 1) <= 1e-12
        g = A @ (out - q)                         # KKT: g_i = nu on the support, >= nu off
        nu = g[out > 1e-12].mean()
        np.testing.assert_allclose(g[out > 1e-12], nu, atol=1e-9)
        assert (g[out <= 1e-12] >= nu - 1e-9).all()
        np.testing.assert_allclose(out, qp_simplex(A, q), atol=1e-6)


# ------------------------------------------------------------------ references
CASES = [
    (lambda: op.EG(eta=0.05), lambda X: ref_eg(X, 0.05)),
    (lambda: op.EG(eta=0.7), lambda X: ref_eg(X, 0.7)),
    (lambda: op.EG(eta=50.0), lambda X: ref_eg(X, 50.0)),    # (its library-exp path)
    (lambda: op.PAMR(), lambda X: ref_pamr(X, 0.5, 500, "PAMR")),
    (lambda: op.PAMR(epsilon=0.98, variant="PAMR-1", C=2.0),
     lambda X: ref_pamr(X, 0.98, 2.0, "PAMR-1")),
    (lambda: op.PAMR(epsilon=0.98, variant="PAMR-2", C=5.0),
     lambda X: ref_pamr(X, 0.98, 5.0, "PAMR-2")),
    (lambda: op.OLMAR(), lambda X: ref_olmar(X, 10, 5)),
    (lambda: op.OLMAR(epsilon=1.02, window=3), lambda X: ref_olmar(X, 1.02, 3)),
    (lambda: op.CWMR(), lambda X: ref_cwmr(X, 2.0, 0.5)),
    (lambda: op.CWMR(phi=0.5, epsilon=0.99), lambda X: ref_cwmr(X, 0.5, 0.99)),
    (lambda: op.RMR(), lambda X: ref_rmr(X, 5.0, 5)),
    (lambda: op.RMR(epsilon=1.05, window=3), lambda X: ref_rmr(X, 1.05, 3)),
    (lambda: op.Anticor(window=6), lambda X: ref_anticor(X, 6, True)),
    (lambda: op.Anticor(window=5, bah=False), lambda X: ref_anticor(X, 5, False)),
]


@pytest.mark.parametrize("make,ref", CASES, ids=[f"case{i}" for i in range(len(CASES))])
@pytest.mark.parametrize("which", ["random", "real"])
def test_against_reference(make, ref, which, request):
    X = RANDOM if which == "random" else request.getfixturevalue("real")[:120]
    strategy = make()
    B = run(strategy, X)
    assert_simplex(B)
    # RMR's L1 median is iterative (stops at a 1e-9 relative step): rounding may end the
    # two implementations' iterations one step apart, so its portfolios agree to ~1e-8
    tol = 1e-7 if isinstance(strategy, op.RMR) else 1e-9
    np.testing.assert_allclose(B, ref(X), rtol=0, atol=tol)


@pytest.mark.parametrize("which", ["random", "real"])
def test_ons_reference(which, request):
    X = RANDOM[:40] if which == "random" else request.getfixturevalue("real")[:40, :5]
    for params in ({}, {"eta": 0.2, "beta": 0.5, "delta": 0.3}):
        B = run(op.ONS(**params), X)
        assert_simplex(B)
        np.testing.assert_allclose(B, ref_ons(X, **{"eta": 0.0, "beta": 1.0, "delta": 0.125,
                                                   **params}), atol=2e-6)


def test_up_reference():
    s = op.UP(n_samples=300, random_state=3)
    B = run(s, RANDOM)
    samples = np.random.default_rng(3).dirichlet(np.ones(5), size=300)
    np.testing.assert_allclose(s.state_["samples"], samples)
    assert_simplex(B)
    np.testing.assert_allclose(B, ref_up(RANDOM, samples), atol=1e-12)


# ------------------------------------------------------------------ benchmarks and wealth
def test_wealth_is_product_and_benchmarks(real):
    for X in (RANDOM, real):
        r = op.backtest(op.PAMR(), X)
        np.testing.assert_allclose(r.wealth, np.cumprod(np.sum(r.portfolios * X, axis=1)),
                                   rtol=1e-13)
        assert r.final_wealth == r.wealth[-1]
        # UBAH: the mean of the assets' growth; best stock: the largest; CRP: prod b.x
        np.testing.assert_allclose(op.backtest(op.UBAH(), X).wealth,
                                   np.cumprod(X, axis=0).mean(axis=1), rtol=1e-12)
        best = op.backtest(op.BestStock(), X)
        np.testing.assert_allclose(best.final_wealth, np.prod(X, axis=0).max(), rtol=1e-12)
        w = RNG.dirichlet(np.ones(X.shape[1]))
        np.testing.assert_allclose(op.backtest(op.CRP(list(w)), X).wealth,
                                   np.cumprod(X @ w), rtol=1e-12)
        assert_simplex(op.backtest(op.UBAH(), X).portfolios)


def test_bcrp_kkt(real):
    for X in (RANDOM, real):
        r = op.backtest(op.BCRP(), X)
        b = r.portfolios[0]
        assert_simplex(r.portfolios)
        assert (r.portfolios == b).all()
        grad = (X / (X @ b)[:, None]).sum(axis=0) / len(X)   # = 1 where b > 0, <= 1 elsewhere
        np.testing.assert_allclose(grad[b > 1e-9], 1.0, atol=1e-8)
        assert grad.max() <= 1 + 1e-8
        np.testing.assert_allclose(r.final_wealth, np.prod(X @ b), rtol=1e-12)
        for _ in range(20):          # no CRP does better
            assert np.log(X @ RNG.dirichlet(np.ones(X.shape[1]))).sum() \
                <= np.log(X @ b).sum() + 1e-12


def test_eg_small_eta_is_uniform_crp(real):
    ucrp = op.backtest(op.CRP(), real)
    for eta in (1e-6, 1e-9):
        r = op.backtest(op.EG(eta=eta), real)
        assert np.abs(r.portfolios - 1 / 8).max() < 50 * eta
        np.testing.assert_allclose(r.final_wealth, ucrp.final_wealth, rtol=100 * eta)
    assert (op.backtest(op.EG(eta=0.0), real).portfolios == ucrp.portfolios).all()


def test_eg_exp_and_large_eta():
    """EG's polynomial exp is within 2 ulp of the library's on [-1/2, 1/2]; a learning
    rate whose exp(eta x / b.x) overflows still gives the (shifted) update."""
    from numba import njit
    from olearn.portfolio.eg import exp_small
    a = np.concatenate([np.linspace(-0.5, 0.5, 20001), RNG.uniform(-0.5, 0.5, 20000)])
    out = njit(lambda a: np.array([exp_small(v) for v in a]))(a)
    assert (np.abs(out - np.exp(a)) <= 2 * np.spacing(np.exp(a))).all()
    b, want = np.full(5, 0.2), []
    for x in RANDOM:
        want.append(b)
        held = b > 0
        b = np.where(held, b * np.exp(1e4 * (np.where(held, x, 0) - x[held].max()) / (b @ x)), 0)
        b = b / b.sum()
    B = run(op.EG(eta=1e4), RANDOM)
    assert_simplex(B)
    np.testing.assert_allclose(B, want, rtol=0, atol=1e-9)


def test_cwmr_sigma_stays_diagonal_and_equal_relatives(real):
    """CWMR keeps the diagonal of Sigma: the reference's m x m Sigma stays diagonal and
    equals it.  A period whose relatives are all equal has x - xbar = 0, so a = 0 and
    the mean does not move (the literal ``V - xbar W`` left a ~ 1e-18 from rounding,
    lambda ~ 5e16 and a portfolio made of rounding: MSCI's period 980)."""
    for X in (RANDOM, real[:80]):
        s = op.CWMR()
        B = run(s, X)
        R, S = ref_cwmr(X, 2.0, 0.5, with_sigma=True)
        assert np.array_equal(S, np.diag(np.diagonal(S)))
        np.testing.assert_allclose(s.state_["sigma"], np.diagonal(S), rtol=1e-9)
        np.testing.assert_allclose(B, R, rtol=0, atol=1e-9)
    X = op.load_relatives(data_path("portfolio", "msci.csv"))[:990]
    assert np.ptp(X[979]) == 0 and np.ptp(X[:979], axis=1).min() > 0
    s = op.CWMR()
    op.backtest(s, X[:979])
    mu, sigma = s.state_["mu"].copy(), s.state_["sigma"].copy()
    s.learn_one(X[979])
    np.testing.assert_allclose(s.state_["mu"], mu, rtol=0, atol=1e-15)
    np.testing.assert_allclose(s.state_["sigma"], sigma, rtol=1e-14)
    np.testing.assert_allclose(run(op.CWMR(), X), ref_cwmr(X, 2.0, 0.5), rtol=0, atol=1e-9)


def test_cwmr_file_with_the_full_sigma(tmp_path):
    """A CWMR saved before round 5 holds the m x m Sigma: it loads as its diagonal and
    goes on with the same portfolios; a Sigma that is not diagonal is refused (train
    the model again), and so are variances that are not positive."""
    from olearn.persistence import ModelFileError
    s = op.CWMR()
    op.backtest(s, RANDOM[:30])
    s.save(tmp_path / "c.olm")
    with np.load(tmp_path / "c.olm") as z:
        arrays = {k: z[k] for k in z.files}
    sigma = arrays.pop("sigma")

    def write(name, **extra):
        with open(tmp_path / name, "wb") as f:
            np.savez(f, **arrays, **extra)
        return tmp_path / name
    t = load(write("old.olm", Sigma=np.diag(sigma)))
    assert np.array_equal(t.state_["sigma"], s.state_["sigma"])
    assert np.array_equal(op.backtest(t, RANDOM[30:]).portfolios,
                          op.backtest(s, RANDOM[30:]).portfolios)
    full = np.diag(sigma)
    full[0, 1] = 1e-9
    with pytest.raises(ModelFileError, match="not the diagonal.*train the model again"):
        load(write("full.olm", Sigma=full))
    for bad in (0.0, -1e-3):
        with pytest.raises(ModelFileError, match="sigma.*positive"):
            load(write("neg.olm", sigma=np.where(np.arange(5) == 2, bad, sigma)))


def test_backtest_refuses_non_finite_portfolios():
    """backtest checks the portfolios in its accounting pass (the first period whose
    b.x is not finite); a NaN in a strategy's state is one clear error."""
    from olearn.portfolio.backtesting import _account
    B = np.full((6, 3), 1 / 3)
    B[4, 1] = np.nan
    out = [np.empty(6) for _ in range(3)]
    assert _account(B, np.ones((6, 3)), 0.0, *out) == 4
    B[4, 1] = 1 / 3
    assert _account(B, np.ones((6, 3)), 0.0, *out) == -1
    for name in ("eg", "cwmr", "pamr"):
        s = op.make(name)
        s.learn_one(RANDOM[0])
        s.state_["b"][0] = np.nan
        with pytest.raises(ValueError, match="non-finite"):
            op.backtest(s, RANDOM)


def test_pamr_passive_when_return_below_epsilon(real):
    for eps in (0.5, 1.0, 1.01):
        r = op.backtest(op.PAMR(epsilon=eps), real)
        B, ret = r.portfolios, np.sum(r.portfolios * real, axis=1)
        passive = ret[:-1] <= eps
        assert passive.any() == (eps >= 1.0)
        assert (B[1:][passive] == B[:-1][passive]).all()


# ------------------------------------------------------------------ protocol, persistence
ALL = [op.UBAH, op.CRP, op.EG, op.ONS, lambda: op.UP(n_samples=50), op.PAMR, op.CWMR,
       op.OLMAR, op.RMR, lambda: op.Anticor(window=4)]


@pytest.mark.parametrize("make", ALL, ids=[f"s{i}" for i in range(len(ALL))])
def test_learn_one_equals_backtest_and_save_load(make, tmp_path):
    X = RANDOM[:30]
    s = make()
    assert np.array_equal(s.predict_one(n_assets=5), np.full(5, 0.2))   # starts uniform
    decided = []
    for x in X[:20]:
        decided.append(s.predict_one())
        s.learn_one(x)
    B = op.backtest(make(), X[:20]).portfolios
    assert np.array_equal(np.array(decided), B)
    path = tmp_path / "s.olm"
    save(s, path)
    t = load(path)
    assert type(t) is type(s) and t.get_params() == s.get_params() and t.t_ == 20
    assert np.array_equal(t.predict_one(), s.predict_one())
    a, b = op.backtest(s, X[20:]), op.backtest(t, X[20:])
    assert np.array_equal(a.portfolios, b.portfolios)


def test_hindsight_and_errors():
    with pytest.raises(ValueError, match="hindsight"):
        op.BCRP().predict_one(n_assets=3)
    s = op.BestStock().fit(RANDOM)
    assert s.predict_one()[s.asset_] == 1.0
    with pytest.raises(ValueError, match="at least 2"):
        op.backtest(op.EG(), RANDOM[:, :1])
    with pytest.raises(ValueError, match="positive"):
        op.backtest(op.EG(), -RANDOM)
    with pytest.raises(ValueError, match="eta"):
        op.backtest(op.EG(eta=-1), RANDOM)
    with pytest.raises(ValueError, match="variant"):
        op.backtest(op.PAMR(variant="x"), RANDOM)
    s = op.EG()
    s.learn_one(RANDOM[0])
    with pytest.raises(ValueError, match="assets"):
        s.learn_one(np.ones(3))
    with pytest.raises(ValueError, match="unknown portfolio strategy"):
        op.make("nope")


def test_fee_and_figures():
    r0, r1 = op.backtest(op.PAMR(), RANDOM), op.backtest(op.PAMR(), RANDOM, fee=0.01)
    assert np.array_equal(r0.portfolios, r1.portfolios)
    B, X = r0.portfolios, RANDOM
    prev = np.vstack([np.zeros(5), B[:-1] * X[:-1] / (B[:-1] * X[:-1]).sum(1)[:, None]])
    net = (B * X).sum(1) * (1 - 0.005 * np.abs(B - prev).sum(1))
    np.testing.assert_allclose(r1.wealth, np.cumprod(net), rtol=1e-13)
    assert r1.final_wealth < r0.final_wealth
    u = op.backtest(op.UBAH(), X)
    assert u.turnover < 1e-15 and r0.turnover > 0.01
    peak = np.maximum.accumulate(r0.wealth)
    assert r0.max_drawdown == pytest.approx(max(0, (1 - r0.wealth / np.maximum(peak, 1)).max()))
    assert r0.apy == pytest.approx(r0.final_wealth ** (252 / 70) - 1)
    assert r0.calmar == pytest.approx(r0.apy / r0.max_drawdown)


def test_load_relatives(tmp_path, monkeypatch):
    p = tmp_path / "p.csv"
    p.write_text("a,b,c\n1,2,4\n2,2,2\n1,4,2\n")
    X, names = op.load_relatives(p, return_names=True)
    assert names == ["a", "b", "c"]
    np.testing.assert_allclose(X, [[1, 2, 4], [2, 1, 0.5], [0.5, 2, 1]])
    for text, needle in [("a,b\n1,2\n1\n", "ragged"), ("a,b\n1,2\n0,1\n", "positive"),
                         ("a\n1\n2\n", "at least 2"), ("a,b\n1,x\n", "not a number")]:
        p.write_text(text)
        with pytest.raises(ValueError, match=needle):
            op.load_relatives(p)
    monkeypatch.setenv("OLEARN_DATA_MIRROR", str(tmp_path))
    (tmp_path / "portfolio").mkdir()
    (tmp_path / "portfolio" / "toy.csv").write_text("1,2\n2,1\n")
    np.testing.assert_allclose(op.load_relatives("toy"), [[1, 2], [2, 0.5]])
    with pytest.raises(FileNotFoundError, match="OLEARN_DATA_MIRROR"):
        op.load_relatives("nyse_zz")


def test_real_file_day_one_convention():
    P = np.loadtxt(data_path("portfolio", "msci.csv"), delimiter=",", skiprows=1)
    X = op.load_relatives("msci")
    np.testing.assert_allclose(X[0], P[0])
    np.testing.assert_allclose(np.cumprod(X, axis=0), P, rtol=1e-12)
