"""Regret against the best fixed predictor, and the Perceptron mistake bound.

Hand-checked cases first (every number worked out in the comments), then the
comparator solvers against independent computations, then the theory: regret is
non-negative against the best predictor of each prefix, and grows like sqrt(T) for
online gradient descent with steps 1/sqrt(t) on a fixed noisy stream.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.evaluate.bounds import max_margin, mistake_bound
from olearn.evaluate.regret import _design, best_fixed, regret
from olearn.linear import Perceptron


class ConstantZero:
    """An 'online learner' that always predicts 0 and learns nothing."""

    def predict_learn(self, X, y, return_scores=False):
        return np.zeros(X.shape[0])


def noisy_stream(n, d=5, noise=0.3, seed=1):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    X = rng.uniform(-1, 1, (n, d))
    y = np.where(X @ w + noise * rng.normal(size=n) > 0, 1, -1)
    return X, y


# ---------------------------------------------------------------- hand-checked
def test_hinge_regret_tiny_case_by_hand():
    # Perceptron, no intercept, rows (x, y): (1, +1), (2, -1), (1, +1).
    # t=1: w=0, s=0, hinge 1, update w=1.  t=2: s=2, y=-1, hinge 3, update w=-1.
    # t=3: s=-1, y=+1, hinge 2.  Online cumulative: 1, 4, 6.
    # Best fixed w per prefix: {1}: 0 (w >= 1).  {1,2}: (1-w) + (1+2w) = 2 + w on
    # [-1/2, 1], min 1.5 at w = -1/2.  {1,2,3}: 2(1-w) + (1+2w) = 3 on [-1/2, 1].
    X = np.array([[1.0], [2.0], [1.0]])
    y = np.array([1, -1, 1])
    r = regret(Perceptron(fit_intercept=False), X, y, loss="hinge", points=3)
    np.testing.assert_array_equal(r.t, [1, 2, 3])
    np.testing.assert_allclose(r.online, [1, 4, 6])
    np.testing.assert_allclose(r.best, [0, 1.5, 3], atol=1e-9)
    np.testing.assert_allclose(r.regret, [1, 2.5, 3], atol=1e-9)
    np.testing.assert_allclose(r.average, [1, 1.25, 1], atol=1e-9)
    # the whole-stream comparator has the same total at the end
    f = regret(Perceptron(fit_intercept=False), X, y, loss="hinge", comparator="final")
    np.testing.assert_array_equal(f.t, [1, 2, 3])
    np.testing.assert_allclose(f.online, [1, 4, 6])
    assert f.regret[-1] == pytest.approx(3.0, abs=1e-9)


def test_squared_regret_tiny_case_by_hand():
    # A learner that always says 0: squared losses y^2/2 = 0.5, 4.5 -> 0.5, 5.
    # Best w for x = (1, 2), y = (1, 3): prefix 1: w = 1, loss 0; whole: w = 7/5,
    # loss ((1 - 1.4)^2 + (3 - 2.8)^2) / 2 = 0.1.  Regret 0.5, 4.9.
    X = np.array([[1.0], [2.0]])
    y = np.array([1.0, 3.0])
    r = regret(ConstantZero(), X, y, fit_intercept=False, points=2)
    assert r.loss == "squared"
    np.testing.assert_allclose(r.online, [0.5, 5.0])
    np.testing.assert_allclose(r.best, [0.0, 0.1], atol=1e-12)
    np.testing.assert_allclose(r.regret, [0.5, 4.9], atol=1e-12)
    np.testing.assert_allclose(r.coef, [1.4])
    f = regret(ConstantZero(), X, y, fit_intercept=False, comparator="final")
    # fixed w = 1.4 on the prefixes: 0.08, 0.08 + 0.02
    np.testing.assert_allclose(f.best, [0.08, 0.1], atol=1e-12)
    np.testing.assert_allclose(f.regret, [0.42, 4.9], atol=1e-12)


def test_online_losses_are_the_learners_pre_update_scores():
    X, y = noisy_stream(200)
    model = olearn.make("pa1")
    s = olearn.make("pa1").predict_learn(X, y, return_scores=True)
    yk = np.where(y == 1, 1.0, -1.0)
    r = regret(model, X, y, comparator="final")
    np.testing.assert_allclose(r.online, np.cumsum(np.maximum(0, 1 - yk * s)), rtol=1e-12)
    # logistic loss on the same scores
    r = regret(model, X, y, loss="logistic", comparator="final")
    np.testing.assert_allclose(r.online, np.cumsum(np.logaddexp(0, -yk * s)), rtol=1e-12)


def test_labels_other_than_plus_minus_one():
    X, y = noisy_stream(120)
    a = regret("pa1", X, y, points=5)
    b = regret("pa1", X, np.where(y == 1, "yes", "no"), points=5)   # "yes" sorts last: +1
    np.testing.assert_allclose(a.regret, b.regret, atol=1e-9)


# ---------------------------------------------------------------- the solvers
def test_hinge_comparator_is_optimal_against_a_fine_grid():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 1))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=40) > 0, 1.0, -1.0)
    Z = _design(X, True)
    w, value = best_fixed(Z, y, "hinge")
    g = np.linspace(-6, 6, 241)
    grid = min(np.maximum(0, 1 - y * (b + a * X[:, 0])).sum() for a in g for b in g)
    assert value <= grid + 1e-9
    assert value == pytest.approx(np.maximum(0, 1 - y * (Z @ w)).sum())
    assert grid - value < 0.5           # the grid is fine enough to come close


def test_absolute_comparator_is_the_weighted_median():
    # min_w sum |y_i - w x_i| in 1-D is attained at a breakpoint w = y_i / x_i
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 2, 31)
    yv = 2 * x + rng.standard_cauchy(31)
    w, value = best_fixed(x[:, None], yv, "absolute")
    exact = min(np.abs(yv - b * x).sum() for b in yv / x)
    assert value == pytest.approx(exact, rel=1e-9)


def test_epsilon_insensitive_comparator_and_the_learners_epsilon():
    # in 1-D the optimum of sum max(0, |y - w x| - eps) is at a kink w = (y_i +- eps) / x_i
    rng = np.random.default_rng(6)
    x = rng.uniform(0.5, 2, 25)
    yv = 2 * x + rng.normal(size=25)
    w, value = best_fixed(x[:, None], yv, "epsilon_insensitive", epsilon=0.3)
    kinks = np.concatenate([(yv - 0.3) / x, (yv + 0.3) / x])
    exact = min(np.maximum(0, np.abs(yv - b * x) - 0.3).sum() for b in kinks)
    assert value == pytest.approx(exact, rel=1e-9, abs=1e-12)
    # a PA regressor's own epsilon is used by default
    X = x[:, None]
    r = regret(olearn.make("pa1-reg", epsilon=0.3), X, yv, loss="epsilon_insensitive",
               comparator="final")
    s = olearn.make("pa1-reg", epsilon=0.3).predict_learn(X, yv)
    np.testing.assert_allclose(r.online, np.cumsum(np.maximum(0, np.abs(yv - s) - 0.3)))
    assert np.all(regret("pa1-reg", X, yv, loss="epsilon_insensitive", points=6).regret
                  >= -1e-7)


def test_logistic_and_squared_comparators_match_independent_solvers():
    from scipy.optimize import minimize
    X, y = noisy_stream(300, noise=1.0)
    yk = y.astype(float)
    Z = _design(X, True)
    _, value = best_fixed(Z, yk, "logistic")
    ref = minimize(lambda w: np.logaddexp(0, -yk * (Z @ w)).sum(), np.zeros(Z.shape[1]),
                   method="Nelder-Mead", options={"maxiter": 40000, "xatol": 1e-10,
                                                  "fatol": 1e-12})
    assert value <= ref.fun + 1e-6
    assert value == pytest.approx(ref.fun, rel=1e-5)
    t = np.random.default_rng(5).normal(size=300)
    w, value = best_fixed(Z, t, "squared")
    np.testing.assert_allclose(w, np.linalg.lstsq(Z, t, rcond=None)[0], rtol=1e-10)
    # sparse input gives the same comparator
    ws, vs = best_fixed(sp.csr_matrix(Z), t, "squared")
    assert vs == pytest.approx(value, rel=1e-10)


def test_sparse_and_dense_streams_give_the_same_regret():
    X, y = noisy_stream(150)
    a = regret("perceptron", X, y, points=6)
    b = regret("perceptron", sp.csr_matrix(X), y, points=6)
    np.testing.assert_allclose(a.regret, b.regret, atol=1e-7)


# ---------------------------------------------------------------- theory
@pytest.mark.parametrize("name", ["pa1", "perceptron", "ogd", "arow"])
def test_regret_is_non_negative_against_the_best_of_each_prefix(name):
    if name not in olearn.available():
        pytest.skip(f"{name} is not registered in this build")
    X, y = noisy_stream(400, seed=7)
    r = regret(name, X, y, points=15)
    assert np.all(r.regret >= -1e-7)
    assert r.regret[0] == pytest.approx(1.0)     # w_1 = 0 scores 0: hinge 1, best 0
    # the comparator of a prefix is never worse than the final one on that prefix
    f = regret(name, X, y, comparator="final")
    assert np.all(r.best <= f.best[r.t - 1] + 1e-7)
    assert f.regret[-1] == pytest.approx(r.regret[-1], abs=1e-6)


def test_ogd_with_inverse_sqrt_steps_has_sublinear_regret():
    if "ogd" not in olearn.available():
        pytest.skip("olearn.linear.OGDClassifier is not registered in this build")
    X, y = noisy_stream(1600, seed=1)
    ogd = olearn.make("ogd", schedule="invsqrt", eta=1.0, loss="hinge")
    r = regret(ogd, X, y, points=9)
    assert r.loss == "hinge"
    assert np.all(np.diff(r.t) > 0) and r.t[-1] == 1600
    late = r.t >= 200
    # average regret falls: from T/8 to T it shrinks roughly like 1/sqrt(8) ~ 0.35
    k = np.searchsorted(r.t, 200)
    assert r.average[-1] < 0.6 * r.average[k]
    # growth exponent over the second half of the log range stays well under 1
    slope = np.polyfit(np.log(r.t[late]), np.log(r.regret[late]), 1)[0]
    assert slope < 0.75
    # and R_T / sqrt(T) stays bounded (Zinkevich's bound is O(sqrt T))
    assert np.max(r.regret[late] / np.sqrt(r.t[late])) < 5.0


def test_regret_result_plot(tmp_path):
    pytest.importorskip("matplotlib")
    X, y = noisy_stream(100)
    r = regret("pa1", X, y, points=8)
    fig = r.plot(tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 1000
    assert len(fig.axes[0].lines) >= 2          # the curve and the sqrt(t) guide
    assert "R_100" in repr(r)


def test_regret_bad_input():
    X, y = noisy_stream(30)
    with pytest.raises(ValueError, match="loss must be one of"):
        regret("pa1", X, y, loss="zero-one")
    with pytest.raises(ValueError, match="comparator"):
        regret("pa1", X, y, comparator="best")
    with pytest.raises(ValueError, match="multiclass"):
        regret("pa1", X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="rows"):
        regret("pa1", X, y[:10])
    with pytest.raises(ValueError, match="predict_learn"):
        regret(object(), X, y)


# ---------------------------------------------------------------- mistake bound
def perceptron_by_hand(Z, y, max_passes=1000):
    """Plain numpy Perceptron on rows Z (intercept column included when wanted)."""
    w = np.zeros(Z.shape[1])
    updates = 0
    first = None
    for p in range(max_passes):
        before = updates
        wrong = 0
        for z, t in zip(Z, y):
            s = w @ z
            wrong += int((1 if s > 0 else -1) != t)
            if t * s <= 0:
                w += t * z
                updates += 1
        first = wrong if first is None else first
        if updates == before:
            return updates, first, p + 1
    return updates, first, max_passes


def test_mistake_bound_on_data_with_known_margin():
    X, y, w_star = olearn.datasets.make_separable(n=400, d=5, margin=0.1, radius=1.0,
                                                  random_state=2)
    mb = mistake_bound(X, y, fit_intercept=False)
    assert mb.separable and mb.converged
    assert mb.R == pytest.approx(1.0, rel=1e-12)
    # the largest margin is at least the planted one, so the bound is at most 100
    assert mb.gamma >= 0.1 - 1e-12
    assert mb.bound <= 100 + 1e-9
    assert mb.updates <= mb.bound
    assert mb.mistakes <= mb.updates
    # it is the margin the returned unit direction achieves on the rows
    assert np.linalg.norm(mb.coef) == pytest.approx(1.0)
    assert mb.gamma == pytest.approx(np.min(y * (X @ mb.coef)), rel=1e-12)
    # and the observed updates are the plain Perceptron's
    updates, first, passes = perceptron_by_hand(X, y)
    assert (mb.updates, mb.first_pass_mistakes, mb.passes) == (updates, first, passes)


def test_max_margin_matches_a_hard_margin_svm():
    from sklearn.svm import LinearSVC
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    s = X @ np.array([1.0, -2.0, 0.5]) + 0.3
    keep = np.abs(s) > 0.5
    X, y = X[keep], np.sign(s[keep])
    Z = np.hstack([np.ones((len(y), 1)), X])
    u, gamma = max_margin(Z, y)
    svm = LinearSVC(C=1e6, loss="hinge", fit_intercept=False, dual=True, tol=1e-10,
                    max_iter=10**6).fit(Z, y)
    v = svm.coef_.ravel() / np.linalg.norm(svm.coef_)
    assert gamma >= np.min(y * (Z @ v)) - 1e-9          # no direction does better
    assert gamma == pytest.approx(np.min(y * (Z @ v)), rel=1e-4)
    mb = mistake_bound(sp.csr_matrix(X), y)             # with the intercept column
    assert mb.gamma == pytest.approx(gamma, rel=1e-9)
    assert mb.R == pytest.approx(np.sqrt((Z ** 2).sum(axis=1).max()))
    updates, first, passes = perceptron_by_hand(Z, y)
    assert (mb.updates, mb.first_pass_mistakes, mb.passes) == (updates, first, passes)
    assert mb.updates <= mb.bound


def test_mistake_bound_on_non_separable_data():
    X, y = noisy_stream(100, noise=1.0)
    mb = mistake_bound(X, y, max_passes=5)
    assert not mb.separable and mb.bound == np.inf and not mb.converged
    assert mb.passes == 5 and "not linearly separable" in repr(mb)
    with pytest.raises(ValueError, match="two classes"):
        mistake_bound(X, np.arange(100) % 3)
