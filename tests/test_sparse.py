"""olearn.sparse against plain numpy eager references.

Each reference below applies its penalty to every weight every round (the papers'
algorithms as written, O(d) per row), but the intercept's (column 0, free of every
penalty unless ``free=False``: a constant column of the data); the learners apply it
lazily, O(non-zeros) per row.  The progressive scores and the materialised model must
agree to 1e-10 on random sparse data (many features, few non-zeros a row, so that
laziness matters), binary and multiclass, and on slices of a9a and news20.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.linear import OGDClassifier
from olearn.sparse import (AdaFOBOSClassifier, AdaRDAClassifier, FOBOSClassifier,
                           FOBOSRegressor, FTRLClassifier, FTRLRegressor, RDAClassifier,
                           RDARegressor, TruncatedGradientClassifier,
                           TruncatedGradientRegressor)

from conftest import data_path

TOL = 1e-10


# ---------------------------------------------------------------- reference losses
def ref_grad(r, y, loss, seen):
    """dL/dr for the K raw scores ``r``; binary ``y`` in {-1, +1}, multiclass the index,
    regression the target (``olearn._compiled.losses``)."""
    if loss == "squared":
        return np.array([r[0] - y])
    if r.shape[0] == 1:
        z = y * r[0]
        if loss == "hinge":
            d = -1.0 if z <= 1.0 else 0.0
        else:  # logistic
            d = -1.0 / (1.0 + math.exp(z))
        return np.array([y * d])
    yi = int(y)
    g = np.zeros_like(r)
    if loss == "logistic":
        s = np.where(seen, r, -np.inf)
        p = np.exp(s - s.max())
        p /= p.sum()
        g = p.copy()
        g[yi] -= 1.0
        return g
    others = [k for k in range(r.shape[0]) if k != yi and seen[k]]
    if not others:
        return g
    s = max(others, key=lambda k: (r[k], -k))
    if r[yi] - r[s] <= 1.0:
        g[yi], g[s] = -1.0, 1.0
    return g


def with_constant(X, c=1.0):
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    return np.hstack([np.full((X.shape[0], 1), c), X])


def run_reference(step, X, y, K, loss, task):
    """Drive a reference ``step(W, x, y, seen, t) -> scores`` over the rows; returns the
    progressive scores and the final model ``W`` (intercept column 0)."""
    Xc = with_constant(X)
    W = np.zeros((K, Xc.shape[1]))
    seen = np.zeros(K, dtype=bool)
    out = np.zeros((Xc.shape[0], K))
    for t, (x, yi) in enumerate(zip(Xc, y), start=1):
        if task == "multiclass":
            seen[int(yi)] = True
        out[t - 1] = step(W, x, yi, seen, t)
    return out, W


def shrink(w, a):
    return np.sign(w) * np.maximum(np.abs(w) - a, 0.0)


def penalised(W, free):
    """(K, 1 + d) mask of the weights a penalty reaches: all but the intercept's column
    0 when it is ``free``."""
    pen = np.ones(W.shape)
    pen[:, 0] = 0.0 if free else 1.0
    return pen


# ---------------------------------------------------------------- eager references
def ref_fobos(eta, l1, l2, schedule, loss, free=True):
    def step(W, x, y, seen, t):
        r = W @ x
        g = ref_grad(r, y, loss, seen)
        e = eta / math.sqrt(t) if schedule == "invsqrt" else eta
        W -= e * np.outer(g, x)
        pen = penalised(W, free)
        W[...] = shrink(W, e * l1 * pen) / (1.0 + e * l2 * pen)
        return r
    return step


def ref_truncated(eta, gravity, theta, period, loss, free=True):
    theta = math.inf if theta is None else theta

    def step(W, x, y, seen, t):
        if t % period == 0:  # Algorithm 1, step 2: truncation before the prediction
            small = (np.abs(W) <= theta) & (penalised(W, free) > 0)
            W[small] = shrink(W[small], period * gravity * eta)
        r = W @ x
        W -= eta * np.outer(ref_grad(r, y, loss, seen), x)
        return r
    return step


def ref_rda(l1, gamma, rho, loss, free=True):
    gsum = {}

    def step(W, x, y, seen, t):
        n = t - 1  # w_t is computed from the average gradient of rounds 1..t-1
        S = gsum.setdefault("S", np.zeros_like(W))
        if n > 0:
            gbar = S / n
            lam = (l1 + gamma * rho / math.sqrt(n)) * penalised(W, free)
            W[...] = np.where(np.abs(gbar) <= lam, 0.0,
                              -(math.sqrt(n) / gamma) * (gbar - lam * np.sign(gbar)))
        r = W @ x
        S += np.outer(ref_grad(r, y, loss, seen), x)
        n = t
        gbar = S / n
        lam = (l1 + gamma * rho / math.sqrt(n)) * penalised(W, free)
        W[...] = np.where(np.abs(gbar) <= lam, 0.0,
                          -(math.sqrt(n) / gamma) * (gbar - lam * np.sign(gbar)))
        return r
    return step


def ref_ftrl(alpha, beta, l1, l2, loss, free=True):
    acc = {}

    def weights(z, n):
        pen = penalised(z, free)
        return np.where(np.abs(z) <= l1 * pen, 0.0,
                        -(z - np.sign(z) * l1 * pen) / ((beta + np.sqrt(n)) / alpha
                                                        + l2 * pen))

    def step(W, x, y, seen, t):
        z = acc.setdefault("z", np.zeros_like(W))
        n = acc.setdefault("n", np.zeros_like(W))
        W[...] = weights(z, n)
        r = W @ x
        if loss == "squared":
            g = np.array([r[0] - y])
        elif W.shape[0] == 1:  # Algorithm 1: p = sigmoid(w.x), g = (p - y) x, y in {0, 1}
            g = np.array([1.0 / (1.0 + math.exp(-r[0])) - (1.0 if y > 0 else 0.0)])
        else:
            g = ref_grad(r, y, "logistic", seen)
        for k in range(W.shape[0]):
            for i in np.flatnonzero(x):
                gi = g[k] * x[i]
                sigma = (math.sqrt(n[k, i] + gi * gi) - math.sqrt(n[k, i])) / alpha
                z[k, i] += gi - sigma * W[k, i]
                n[k, i] += gi * gi
        W[...] = weights(z, n)
        return r
    return step


def ref_ada_fobos(eta, lam, delta, loss, free=True):
    acc = {}

    def step(W, x, y, seen, t):
        G = acc.setdefault("G", np.zeros_like(W))
        r = W @ x
        g = np.outer(ref_grad(r, y, loss, seen), x)
        G += g * g
        H = delta + np.sqrt(G)
        ok = H > 0
        v = W[ok] - eta * g[ok] / H[ok]
        W[ok] = shrink(v, lam * eta / H[ok] * penalised(W, free)[ok])
        return r
    return step


def ref_ada_rda(eta, lam, delta, loss, free=True):
    acc = {}

    def step(W, x, y, seen, t):
        S = acc.setdefault("S", np.zeros_like(W))
        G = acc.setdefault("G", np.zeros_like(W))
        r = W @ x
        g = np.outer(ref_grad(r, y, loss, seen), x)
        S += g
        G += g * g
        gbar = S / t
        H = delta + np.sqrt(G)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.sign(-gbar) * eta * t / H * np.maximum(
                np.abs(gbar) - lam * penalised(W, free), 0.0)
        W[...] = np.where(H > 0, w, 0.0)
        return r
    return step


# ---------------------------------------------------------------- data
def sparse_stream(n=150, d=60, nnz=4, K=2, seed=0, task="classification"):
    """Rows of ``nnz`` non-zeros among ``d`` features (most weights untouched for many
    rows, so that owed penalties pile up)."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    for i in range(n):
        X[i, rng.choice(d, nnz, replace=False)] = rng.standard_normal(nnz)
    w = rng.standard_normal((d, K))
    if task == "regression":
        return sp.csr_matrix(X), X @ w[:, 0] + 0.1 * rng.standard_normal(n)
    return sp.csr_matrix(X), np.argmax(X @ w + 0.3 * rng.standard_normal((n, K)), axis=1)


CASES = [
    ("fobos-invsqrt", lambda: FOBOSClassifier(eta=0.5, l1=0.02, l2=0.01),
     lambda loss, free=True: ref_fobos(0.5, 0.02, 0.01, "invsqrt", loss, free=free)),
    ("fobos-constant", lambda: FOBOSClassifier(eta=0.3, l1=0.01, schedule="constant"),
     lambda loss, free=True: ref_fobos(0.3, 0.01, 0.0, "constant", loss, free=free)),
    ("truncated", lambda: TruncatedGradientClassifier(eta=0.3, gravity=0.01, theta=0.4,
                                                      period=3),
     lambda loss, free=True: ref_truncated(0.3, 0.01, 0.4, 3, loss, free=free)),
    ("rda-enhanced", lambda: RDAClassifier(l1=0.01, gamma=2.0, rho=0.05),
     lambda loss, free=True: ref_rda(0.01, 2.0, 0.05, loss, free=free)),
    ("ftrl", lambda: FTRLClassifier(alpha=0.5, beta=1.0, l1=0.3, l2=0.5),
     lambda loss, free=True: ref_ftrl(0.5, 1.0, 0.3, 0.5, "logistic", free=free)),
    ("ada-fobos", lambda: AdaFOBOSClassifier(eta=0.5, lam=0.02, delta=0.1),
     lambda loss, free=True: ref_ada_fobos(0.5, 0.02, 0.1, loss, free=free)),
    ("ada-rda", lambda: AdaRDAClassifier(eta=0.5, lam=0.02, delta=0.1),
     lambda loss, free=True: ref_ada_rda(0.5, 0.02, 0.1, loss, free=free)),
]


def lazy_run(model, X, y, classes):
    """Progressive scores (n, K) and the weights (K, 1 + d), intercept column first."""
    assert set(np.unique(y)) == set(classes)  # every class in the batch: K rows from row 1
    model.set_params(shuffle=False)
    s = model.predict_learn(X, y, return_scores=True)
    s = s.reshape(len(y), -1)
    W = np.hstack([model.intercept_.reshape(-1, 1), model.coef_.reshape(s.shape[1], -1)])
    return s, W


@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("K", [2, 3])
def test_lazy_equals_eager_on_random_sparse_rows(name, make, ref, K):
    X, y = sparse_stream(K=K, seed=K)
    loss = "logistic" if K == 3 else "hinge"
    model = make()
    if "loss" in model.get_params():
        model.set_params(loss=loss)
    s, W = lazy_run(model, X, y, np.arange(K))
    yr = np.where(y == 1, 1.0, -1.0) if K == 2 else y
    s_ref, W_ref = run_reference(ref(loss), X, yr, 1 if K == 2 else K, loss,
                                 "binary" if K == 2 else "multiclass")
    np.testing.assert_allclose(s, s_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(W, W_ref, rtol=0, atol=TOL)
    assert model.n_nonzero_ == np.count_nonzero(W_ref[:, 1:])
    assert 0 < model.n_nonzero_ < W_ref[:, 1:].size  # the penalties did make zeros


@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
def test_a_constant_column_is_penalised_like_any_feature(name, make, ref):
    """The papers' convention (and the seed texts'), asked for with a constant column
    in the data and ``fit_intercept=False``: the constant's weight is penalised like
    the others (the reference with ``free=False``), where the intercept is not."""
    X, y = sparse_stream(K=2, seed=7)
    yr = np.where(y == 1, 1.0, -1.0)
    model = make().set_params(fit_intercept=False, shuffle=False)
    if "loss" in model.get_params():
        model.set_params(loss="hinge")
    s = model.predict_learn(sp.csr_matrix(with_constant(X)), y, return_scores=True)
    s_ref, W_ref = run_reference(ref("hinge", free=False), X, yr, 1, "hinge", "binary")
    np.testing.assert_allclose(s, s_ref[:, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(model.coef_, W_ref, rtol=0, atol=TOL)
    s_free, _ = run_reference(ref("hinge"), X, yr, 1, "hinge", "binary")
    assert np.abs(s_free - s_ref).max() > 1e-6  # (the two conventions differ here)


SILENCED = [lambda: FOBOSClassifier(l1=10.0), lambda: TruncatedGradientClassifier(gravity=10.0),
            lambda: RDAClassifier(l1=10.0), lambda: FTRLClassifier(l1=1e3, l2=1e3),
            lambda: AdaFOBOSClassifier(lam=10.0), lambda: AdaRDAClassifier(lam=10.0)]


@pytest.mark.parametrize("make", SILENCED,
                         ids=["fobos", "truncated", "rda", "ftrl", "ada-fobos", "ada-rda"])
def test_the_intercept_learns_when_the_penalty_silences_every_feature(make):
    """A penalty strong enough to zero every feature's weight leaves the intercept
    alone: on a stream of 90% positives it learns a positive intercept and the model
    predicts the majority class (a penalised intercept would stay 0)."""
    X, _ = sparse_stream(n=200, seed=11)
    y = (np.random.default_rng(11).random(200) < 0.9).astype(int)
    model = make().set_params(shuffle=False).fit(X, y)
    assert model.n_nonzero_ == 0
    assert model.intercept_[0] > 0.0
    assert (model.predict(X) == 1).all()
    np.testing.assert_allclose(model.decision_function(X), model.intercept_[0], atol=1e-12)


REGRESSORS = [
    (lambda: FOBOSRegressor(eta=0.05, l1=0.01, l2=0.01),
     lambda: ref_fobos(0.05, 0.01, 0.01, "invsqrt", "squared")),
    (lambda: TruncatedGradientRegressor(eta=0.05, gravity=0.02, period=2),
     lambda: ref_truncated(0.05, 0.02, None, 2, "squared")),
    (lambda: RDARegressor(l1=0.01, gamma=5.0),
     lambda: ref_rda(0.01, 5.0, 0.0, "squared")),
    (lambda: FTRLRegressor(alpha=0.2, l1=0.2),
     lambda: ref_ftrl(0.2, 1.0, 0.2, 1.0, "squared")),
]


@pytest.mark.parametrize("make,ref", REGRESSORS,
                         ids=["fobos", "truncated", "rda", "ftrl"])
def test_regressors_lazy_equals_eager(make, ref):
    X, y = sparse_stream(task="regression", seed=5)
    model = make().set_params(shuffle=False)
    s = model.predict_learn(X, y)
    W = np.concatenate([np.ravel(model.intercept_), model.coef_])
    s_ref, W_ref = run_reference(ref(), X, y, 1, "squared", "regression")
    np.testing.assert_allclose(s, s_ref[:, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(W, W_ref[0], rtol=0, atol=TOL)


@pytest.mark.parametrize("make", [lambda: FOBOSClassifier(eta=0.5, l1=0.02, l2=0.01),
                                  lambda: TruncatedGradientClassifier(gravity=0.01),
                                  lambda: FTRLClassifier(l1=0.3)],
                         ids=["fobos", "truncated", "ftrl"])
def test_dense_sparse_and_one_at_a_time_agree(make):
    X, y = sparse_stream(n=80, d=30, seed=3)
    dense, csr, one = make(), make(), make()
    p_dense = dense.predict_learn(X.toarray(), y, return_scores=True)
    p_csr = csr.predict_learn(X, y, return_scores=True)
    p_one = []
    for row, yi in zip(X.toarray(), y):
        p_one.append(one.predict_one(row))
        one.learn_one(row, yi)
    np.testing.assert_allclose(p_dense, p_csr, rtol=0, atol=TOL)
    np.testing.assert_array_equal(np.array(p_one[1:]), (p_csr[1:] > 0).astype(int))
    np.testing.assert_allclose(one.coef_, csr.coef_, rtol=0, atol=TOL)
    np.testing.assert_allclose(dense.coef_, csr.coef_, rtol=0, atol=TOL)
    # predict_one reads only the example's columns of the lazy state: the same answer
    # as the materialised model
    np.testing.assert_allclose(csr.decision_function(X[:5]),
                               [csr._row_scores(*_one(csr, x))[0] for x in X[:5].toarray()],
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("make", [lambda: FOBOSClassifier(l1=0.02),
                                  lambda: RDAClassifier(l1=0.01, gamma=1.0),
                                  lambda: FTRLClassifier(l1=0.3),
                                  lambda: AdaFOBOSClassifier(lam=0.02),
                                  lambda: AdaRDAClassifier(lam=0.02)],
                         ids=["fobos", "rda", "ftrl", "ada-fobos", "ada-rda"])
def test_dicts_one_at_a_time_equal_the_batch_with_the_free_intercept(make):
    """Rows from dicts (the one-row buffer) and from a CSR batch (the driver) both put
    the intercept's constant first, where the kernels look for the free intercept: the
    same model either way, to 1e-10."""
    X, y = sparse_stream(n=80, d=30, seed=4)
    batch = make().set_params(shuffle=False)
    batch.partial_fit(X, y, classes=[0, 1])
    one = make()
    for i, yi in enumerate(y):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        one.learn_one(dict(zip(X.indices[lo:hi].tolist(), X.data[lo:hi].tolist())), yi)
    cols = np.array(one.vocabulary_.to_list())  # (dict names in order of appearance)
    np.testing.assert_allclose(one.intercept_, batch.intercept_, rtol=0, atol=TOL)
    np.testing.assert_allclose(one.coef_[0], batch.coef_[0, cols], rtol=0, atol=TOL)
    assert batch.intercept_[0] != 0.0


@pytest.mark.parametrize("make", [lambda: FTRLClassifier(l1=0.3),
                                  lambda: RDAClassifier(loss="logistic", l1=0.01, gamma=1.0),
                                  lambda: AdaRDAClassifier(loss="logistic", lam=0.02)],
                         ids=["ftrl", "rda", "ada-rda"])
def test_coordinate_major_state_continues_to_the_bit_from_any_order(make):
    """The closed-form learners keep (K, d) arrays in Fortran order (a coordinate's
    classes contiguous); a state in C order, as a file or a mix gives it, is turned
    before the next pass and learns on to the same bits; FTRL's row scratch is the
    model's own (not pickled)."""
    import pickle
    X, y = sparse_stream(n=120, d=40, K=3, seed=5)
    a = make().set_params(shuffle=False)
    a.partial_fit(X[:60], y[:60], classes=[0, 1, 2])
    assert all(a.state_[n].flags.f_contiguous for n, *_ in a._arrays)
    b = pickle.loads(pickle.dumps(a))
    assert "_row_weights" not in b.__dict__
    b.state_ = {k: np.ascontiguousarray(v) for k, v in b.state_.items()}
    b._state_changed()
    assert not b.state_["W"].flags.f_contiguous
    sa = a.predict_learn(X[60:], y[60:], return_scores=True)
    sb = b.predict_learn(X[60:], y[60:], return_scores=True)
    np.testing.assert_array_equal(sa, sb)
    assert b.state_["W"].flags.f_contiguous
    for k in a.state_:
        np.testing.assert_array_equal(a.state_[k], b.state_[k])


def test_ftrl_rows_with_decreasing_columns_recompute_their_weights():
    """FTRL's pass keeps a row's weights for its rule only when the row's columns
    increase; dict rows in another order (the one-row buffer keeps the dict's order)
    recompute them: multiclass, one at a time with the keys reversed, the batch model
    to 1e-10."""
    X, y = sparse_stream(n=80, d=30, K=3, seed=6)
    batch = FTRLClassifier(l1=0.3).set_params(shuffle=False)
    batch.partial_fit(X, y, classes=[0, 1, 2])
    one = FTRLClassifier(l1=0.3).set_params(shuffle=False)
    one.partial_fit(X[:1], y[:1], classes=[0, 1, 2])
    for i, yi in enumerate(y[1:], 1):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        one.learn_one(dict(zip(X.indices[lo:hi][::-1].tolist(),
                               X.data[lo:hi][::-1].tolist())), yi)
    np.testing.assert_allclose(one.coef_, batch.coef_, rtol=0, atol=TOL)
    np.testing.assert_allclose(one.intercept_, batch.intercept_, rtol=0, atol=TOL)


def _one(model, x):
    row, n = model._one_row(x, grow=False)
    return row, n


def test_fobos_without_penalty_is_ogd():
    X, y = sparse_stream(seed=7)
    for schedule in ("constant", "invsqrt"):
        f = FOBOSClassifier(eta=0.3, l1=0.0, l2=0.0, schedule=schedule, shuffle=False)
        o = OGDClassifier(eta=0.3, schedule=schedule, intercept_scaling=1.0,
                          shuffle=False)
        f.fit(X, y)
        o.fit(X, y)
        np.testing.assert_allclose(f.coef_, o.coef_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.intercept_, o.intercept_, rtol=0, atol=1e-12)


def test_ada_fobos_without_penalty_is_adagrad_ogd():
    X, y = sparse_stream(seed=8)
    f = AdaFOBOSClassifier(eta=0.3, lam=0.0, delta=0.0, shuffle=False).fit(X, y)
    o = OGDClassifier(eta=0.3, schedule="adagrad", intercept_scaling=1.0,
                      shuffle=False).fit(X, y)
    np.testing.assert_allclose(f.coef_, o.coef_, rtol=0, atol=1e-12)


def test_rda_without_l1_is_dual_averaging():
    """Nesterov's dual averaging with ``beta_t = gamma sqrt(t)``: ``w_{t+1} = -(sum of
    the gradients) / (gamma sqrt(t))``, the hinge loss's gradients at the iterates."""
    X, y = sparse_stream(seed=9)
    gamma = 3.0
    m = RDAClassifier(l1=0.0, gamma=gamma, rho=0.0, shuffle=False).fit(X, y)
    Xc = with_constant(X)
    S = np.zeros(Xc.shape[1])
    w = np.zeros_like(S)
    for t, (x, yi) in enumerate(zip(Xc, np.where(y == 1, 1.0, -1.0)), start=1):
        if yi * (w @ x) <= 1.0:
            S -= yi * x
        w = -S / (gamma * math.sqrt(t))
    np.testing.assert_allclose(m.coef_[0], w[1:], rtol=0, atol=1e-12)


def test_ftrl_closed_form_one_example():
    """After one example of class 1 (p = 1/2): g_i = -x_i / 2, n_i = g_i^2, z_i = g_i
    (w was 0), and w_i = -(z_i - sign(z_i) l1) / ((beta + |g_i|) / alpha + l2) where
    |z_i| > l1, else exactly 0."""
    alpha, beta, l1, l2 = 0.5, 1.0, 0.2, 0.3
    m = FTRLClassifier(alpha=alpha, beta=beta, l1=l1, l2=l2, fit_intercept=False)
    x = np.array([1.0, 0.1, -2.0, 0.0])
    m.partial_fit(x[None], [1], classes=[0, 1])
    g = -0.5 * x
    want = np.where(np.abs(g) <= l1, 0.0,
                    -(g - np.sign(g) * l1) / ((beta + np.abs(g)) / alpha + l2))
    np.testing.assert_allclose(m.coef_[0], want, rtol=0, atol=1e-15)
    assert m.coef_[0, 1] == 0.0 and m.n_nonzero_ == 2
    # a huge l1 keeps every weight at exactly 0, and p = 1/2 (no intercept: it is free)
    m = FTRLClassifier(l1=1e6, fit_intercept=False).fit(x[None].repeat(4, 0), [0, 1, 0, 1])
    assert m.n_nonzero_ == 0
    np.testing.assert_allclose(m.predict_proba(x[None]), [[0.5, 0.5]])


def test_long_l2_stream_folds_the_scale():
    """FOBOS's l2 scale P underflows past 1e-100 after enough rounds and is folded back
    into the weights; the model stays equal to the eager reference.  (With a step of 1
    the free intercept moves by whole units, and scores land exactly on the hinge's
    corner, where the two sides may round either way: a step of 0.7.)"""
    X, y = sparse_stream(n=400, d=20, seed=11)
    m = FOBOSClassifier(eta=0.7, l1=0.001, l2=2.0, schedule="constant")
    s, W = lazy_run(m, X, y, [0, 1])
    assert m.state_["A"][0, 3] > 1e-100 > 2.4 ** -400  # (folded: P would be 2.4^-400)
    s_ref, W_ref = run_reference(ref_fobos(0.7, 0.001, 2.0, "constant", "hinge"), X,
                                 np.where(y == 1, 1.0, -1.0), 1, "hinge", "binary")
    np.testing.assert_allclose(s, s_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(W, W_ref, rtol=0, atol=TOL)


def test_set_params_between_calls_reaches_the_score():
    X, y = sparse_stream(seed=12)
    a = RDAClassifier(l1=0.01, shuffle=False)
    a.partial_fit(X[:50], y[:50], classes=[0, 1])
    a.set_params(l1=0.05)
    s = a.predict_learn(X[50:], y[50:], return_scores=True)
    b = RDAClassifier(l1=0.01, shuffle=False)
    b.partial_fit(X[:50], y[:50], classes=[0, 1])
    b.set_params(l1=0.05)
    np.testing.assert_allclose(b.decision_function(X[50:51]), s[:1], rtol=0, atol=1e-12)


def test_truncated_period_counts_the_stream_not_the_calls(tmp_path):
    """Langford et al. truncate at every K-th trial of the stream: one example at a
    time, one batch, chunks of sizes prime to K, and a save/load in mid-stream all give
    the eager reference's progressive scores; the model read between calls (predict_one,
    decision_function, coef_) is the one that predicts the next example, the due
    truncation included."""
    import olearn
    X, y = sparse_stream(n=121, d=40, nnz=5, seed=21)
    K, eta, gravity, theta = 3, 0.3, 0.02, 0.5
    make = lambda: TruncatedGradientClassifier(eta=eta, gravity=gravity, theta=theta,
                                               period=K, shuffle=False)
    yr = np.where(y == 1, 1.0, -1.0)
    s_ref, _ = run_reference(ref_truncated(eta, gravity, theta, K, "hinge"), X, yr, 1,
                             "hinge", "binary")
    batch = make()
    np.testing.assert_allclose(batch.predict_learn(X, y, return_scores=True), s_ref[:, 0],
                               rtol=0, atol=TOL)
    for size in (1, 2, 4, 7):
        m, got = make(), []
        for lo in range(0, len(y), size):
            if lo == 20:  # a round trip through a file in mid-stream keeps the count
                m.save(tmp_path / "m.olm")
                m = olearn.load(tmp_path / "m.olm")
            if lo > 0:  # the model between calls predicts the next row's score
                np.testing.assert_allclose(m.decision_function(X[lo:lo + 1]),
                                           s_ref[lo:lo + 1, 0], rtol=0, atol=TOL)
            got.append(m.predict_learn(X[lo:lo + size], y[lo:lo + size],
                                       return_scores=True))
        np.testing.assert_allclose(np.concatenate(got), s_ref[:, 0], rtol=0, atol=TOL,
                                   err_msg=f"chunks of {size}")
        np.testing.assert_allclose(m.coef_, batch.coef_, rtol=0, atol=TOL)
    one, dense = make(), X.toarray()
    for i, (x, yi) in enumerate(zip(dense, y)):
        if i > 0:
            np.testing.assert_allclose(one._scores_one(x)[0], s_ref[i, 0], rtol=0,
                                       atol=TOL)
        one.learn_one(x, yi)
    np.testing.assert_allclose(one.coef_, batch.coef_, rtol=0, atol=TOL)
    # 121 trials: trial 122 is no multiple of 3, trial 123 is: the model after 122
    # includes trial 123's truncation (every small weight 3 gravity eta closer to 0)
    assert (len(y) + 2) % K == 0
    batch.partial_fit(X[:1], y[:1])
    W = np.concatenate([np.ravel(batch.intercept_), batch.coef_[0]])
    _, W_next = run_reference(ref_truncated(eta, gravity, theta, K, "hinge"),
                              sp.vstack([X, X[:1]]), np.append(yr, yr[0]), 1, "hinge",
                              "binary")
    assert not np.allclose(W, W_next[0], rtol=0, atol=TOL)  # not the untruncated one
    small = np.abs(W_next[0]) <= theta
    small[0] = False  # (the intercept is never truncated)
    W_next[0, small] = shrink(W_next[0, small], K * gravity * eta)
    np.testing.assert_allclose(W, W_next[0], rtol=0, atol=TOL)


@pytest.mark.parametrize("make", [lambda: FOBOSClassifier(eta=0.5, l1=0.02, l2=0.01),
                                  lambda: TruncatedGradientClassifier(gravity=0.01),
                                  lambda: AdaFOBOSClassifier(eta=0.5, lam=0.02)],
                         ids=["fobos", "truncated", "ada-fobos"])
def test_explicit_zeros_settle_nothing(make):
    """A dense row and its CSR form leave the same raw lazy state (owed shrinks
    included): only non-zero values settle a weight."""
    X, y = sparse_stream(n=60, d=30, seed=4)
    a, b = make().set_params(shuffle=False), make().set_params(shuffle=False)
    a.partial_fit(X.toarray(), y)
    b.partial_fit(X, y)
    for name in a.state_:
        np.testing.assert_array_equal(a.state_[name], b.state_[name], err_msg=name)


def test_one_vs_rest_reads_set_params_from_the_first_row():
    """A ``OneVsRest`` over a sparse learner writes the base's hyper-parameters into
    every class block before each call (as K binary learners would), so a
    ``set_params`` between calls reaches the first row's score."""
    from olearn.multiclass.ovr import OneVsRest
    X, y = sparse_stream(K=3, seed=14)
    m = OneVsRest(RDAClassifier(l1=0.01, shuffle=False))
    m.partial_fit(X[:50], y[:50])
    m.set_params(base__l1=0.05)
    want = m.decision_function(X[50:52])
    got = m.predict_learn(X[50:], y[50:], return_scores=True)
    np.testing.assert_allclose(got[:1], want[:1], rtol=0, atol=1e-12)
    assert not np.allclose(got[:1], OneVsRest(RDAClassifier(l1=0.01, shuffle=False))
                           .partial_fit(X[:50], y[:50]).decision_function(X[50:51]))


@pytest.mark.parametrize("bad", [dict(l1=-1.0), dict(eta=0.0), dict(schedule="power"),
                                 dict(loss="squared")])
def test_bad_hyper_parameters(bad):
    X, y = sparse_stream(n=5)
    with pytest.raises(ValueError, match=next(iter(bad))):
        FOBOSClassifier(**bad).fit(X, y)


def test_truncated_period_must_be_an_integer():
    X, y = sparse_stream(n=5)
    with pytest.raises(ValueError, match="period"):
        TruncatedGradientClassifier(period=1.5).fit(X, y)


# ---------------------------------------------------------------- real data
def _libsvm(*parts, rows, n_features=None):
    from olearn.io.libsvm import load_libsvm
    X, y = load_libsvm(data_path(*parts), n_features=n_features)
    return X[:rows], y[:rows]


@pytest.mark.parametrize("name,make,ref", [CASES[0], CASES[3], CASES[4]],
                         ids=["fobos", "rda", "ftrl"])
def test_lazy_equals_eager_on_a9a(name, make, ref):
    X, y = _libsvm("a9a", "a9a", rows=600)
    y = (y > 0).astype(int)
    s, W = lazy_run(make(), X, y, [0, 1])
    s_ref, W_ref = run_reference(ref("hinge"), X, np.where(y == 1, 1.0, -1.0), 1,
                                 "hinge", "binary")
    np.testing.assert_allclose(s, s_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(W, W_ref, rtol=0, atol=TOL)


def test_lazy_equals_eager_on_news20():
    X, y = _libsvm("news20", "news20.converted.bz2", rows=120)
    keep = np.unique(X.indices)  # the columns of these rows: the reference stays small
    X = X[:, keep]
    y = y.astype(int) - 1
    K = 20
    s, W = lazy_run(FOBOSClassifier(eta=0.5, l1=0.01, l2=0.001), X, y, np.arange(K))
    s_ref, W_ref = run_reference(ref_fobos(0.5, 0.01, 0.001, "invsqrt", "hinge"), X, y,
                                 K, "hinge", "multiclass")
    np.testing.assert_allclose(s, s_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(W, W_ref, rtol=0, atol=TOL)


def test_sparsity_curve_denser_with_weaker_l1(tmp_path):
    from olearn.sparse.curve import sparsity_curve
    X, y = sparse_stream(n=200, d=60, seed=13)
    pts = sparsity_curve(FOBOSClassifier(shuffle=False), X, y, param="l1",
                         values=[0.0, 0.1, 10.0], path=tmp_path / "c.png")
    assert [p.value for p in pts] == [0.0, 0.1, 10.0]
    assert pts[0].density > pts[1].density > pts[2].density == 0.0
    assert all(0.0 <= p.score <= 1.0 for p in pts)
    assert (tmp_path / "c.png").stat().st_size > 0
    with pytest.raises(ValueError, match="no parameter"):
        sparsity_curve(FOBOSClassifier(), X, y, param="lam")
