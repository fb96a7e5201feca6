"""OGDClassifier (binary): a plain numpy reference of projected OGD with every loss and
schedule (and AdaGrad, L2 decay, projection, averaging) against the compiled learner;
equality with scikit-learn's SGDClassifier; Zinkevich's regret; predict_proba; the
averaged weights are the mean of the iterates, including across scale folds."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, log1p
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDClassifier

from olearn.linear import OGDClassifier

from conftest import CLF, close, data_path, weights, with_intercept


# ---------------------------------------------------------------- reference

def dphi(loss, z):
    """phi'(z) of a margin loss."""
    if loss == "hinge":
        return -1.0 if z <= 1 else 0.0
    if loss == "squared_hinge":
        return -2.0 * (1.0 - z) if z < 1 else 0.0
    if loss == "logistic":
        return -expit(-z)
    if loss == "perceptron":
        return -1.0 if z <= 0 else 0.0
    if loss == "modified_huber":
        return 0.0 if z >= 1 else (-2.0 * (1.0 - z) if z >= -1 else -4.0)
    raise ValueError(loss)


def score_grad(loss, r, y, seen):
    """dL/dr: binary margin form, multiclass max-score form, softmax for logistic."""
    K = r.shape[0]
    g = np.zeros(K)
    if K == 1:
        g[0] = y * dphi(loss, y * r[0])
        return g
    c = int(y)
    if loss == "logistic":
        e = np.where(seen, np.exp(r - r[seen].max()), 0.0)
        g = e / e.sum()
        g[c] -= 1.0
        return g
    wrong = [k for k in range(K) if k != c and seen[k]]
    if wrong:
        s = max(wrong, key=lambda k: (r[k], -k))
        d = dphi(loss, r[c] - r[s])
        g[c], g[s] = d, -d
    return g


def ref_ogd(X, y, K=1, loss="hinge", eta=1.0, schedule="invsqrt", power=0.5, alpha=0.0,
            radius=None, average=False, sw=None):
    """Projected OGD row by row (Zinkevich 2003), dense numpy."""
    n, d = X.shape
    t0 = 1.0 / (alpha * alpha ** -0.25) if alpha > 0 else 0.0
    W = np.zeros((K, d))
    G = np.zeros((K, d))
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(1, n + 1):
        x = X[t - 1]
        r = W @ x
        scores[t - 1] = total @ x / (t - 1) if (average and t > 1) else r
        step = {"constant": eta, "invsqrt": eta / math.sqrt(t), "power": eta * t ** -power,
                "optimal": 1.0 / (alpha * (t0 + t - 1)) if alpha > 0 else 0.0,
                "adagrad": eta}[schedule]
        if alpha > 0:
            W *= max(0.0, 1.0 - step * alpha)
        if K > 1:
            seen[int(y[t - 1])] = True
        g = score_grad(loss, r, y[t - 1], seen) * (1.0 if sw is None else sw[t - 1])
        if schedule == "adagrad":
            for k in range(K):
                gx = g[k] * x
                m = gx != 0
                G[k, m] += gx[m] ** 2
                W[k, m] -= eta * gx[m] / np.sqrt(G[k, m])
        else:
            W -= step * np.outer(g, x)
        if radius is not None:
            norm = np.linalg.norm(W)
            if norm > radius:
                W *= radius / norm
        total += W
    return scores, W, total / n


def binary_data(n=100, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture(scope="module")
def a9a():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    return X[:3000].tocsr(), y[:3000]


CONFIGS = [
    dict(loss="hinge", schedule="invsqrt", eta=0.8, radius=3.0, average=True),
    dict(loss="squared_hinge", schedule="power", power=0.7, eta=0.3),
    dict(loss="logistic", schedule="optimal", alpha=0.05, average=True),
    dict(loss="perceptron", schedule="constant", eta=0.6, alpha=0.01, radius=2.0),
    dict(loss="modified_huber", schedule="adagrad", eta=0.4, alpha=0.01, radius=4.0,
         average=True),
]


# ---------------------------------------------------------------- reference checks
@pytest.mark.parametrize("cfg", CONFIGS, ids=[c["loss"] for c in CONFIGS])
def test_binary_matches_reference(cfg):
    X, y = binary_data()
    scores, W, Wbar = ref_ogd(with_intercept(X, CLF), y, **cfg)
    m = OGDClassifier(**cfg)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores[:, 0])
    close(weights(m), W)
    close(m._predict_weights(), Wbar if cfg.get("average") else W)


def test_dense_sparse_and_one_at_a_time_agree():
    X, y = binary_data(seed=2)
    cfg = CONFIGS[0]
    scores, W, Wbar = ref_ogd(with_intercept(X, CLF), y, **cfg)
    m = OGDClassifier(**cfg)
    close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
    close(m.coef_, Wbar[:, 1:])
    m = OGDClassifier(**cfg)
    seen_scores = []
    for i in range(X.shape[0]):
        seen_scores.append(m.decision_function(X[i][None])[0] if i else 0.0)
        m.learn_one(X[i], y[i])
    close(seen_scores, scores[:, 0])
    close(weights(m), W)


def test_sample_weight_multiplies_the_loss():
    X, y = binary_data(seed=6)
    sw = np.random.default_rng(6).uniform(0, 2, X.shape[0])
    cfg = dict(loss="hinge", schedule="invsqrt", eta=0.8, radius=3.0, average=True)
    _, W, Wbar = ref_ogd(X, y, sw=sw, **cfg)
    m = OGDClassifier(fit_intercept=False, **cfg)
    m.partial_fit(sp.csr_matrix(X), y, sample_weight=sw)
    close(weights(m), W)
    close(m.coef_, Wbar)


def test_a9a_matches_reference(a9a):
    X, y = a9a
    Xd = with_intercept(X.toarray(), CLF)
    for cfg in (dict(loss="logistic", schedule="invsqrt", eta=0.5, radius=4.0, average=True),
                dict(loss="hinge", schedule="optimal", alpha=1e-3, average=True)):
        scores, W, Wbar = ref_ogd(Xd, y, **cfg)
        m = OGDClassifier(**cfg)
        close(m.predict_learn(X, y, return_scores=True), scores[:, 0])
        close(weights(m), W)
        close(m._predict_weights(), Wbar)


def test_scale_folds_and_zeroing_keep_the_average():
    """A decay of 1/2 a row folds the scale mid-pass (s < 1e-6 after 20 rows); a decay
    factor of 0 zeroes the weights: both keep the mean of the iterates exact."""
    X, y = binary_data(n=120, seed=3)
    for cfg in (dict(loss="hinge", schedule="constant", eta=0.5, alpha=1.0, average=True),
                dict(loss="hinge", schedule="constant", eta=2.0, alpha=0.5, average=True)):
        scores, W, Wbar = ref_ogd(with_intercept(X, CLF), y, **cfg)
        m = OGDClassifier(**cfg)
        close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores[:, 0])
        close(weights(m), W)
        close(m._predict_weights(), Wbar)


def test_averaged_weights_are_the_mean_of_the_iterates():
    X, y = binary_data(n=60, seed=4)
    m = OGDClassifier(loss="hinge", eta=0.8, radius=1.0, average=True)
    iterates = []
    for i in range(X.shape[0]):
        m.learn_one(X[i], y[i])
        iterates.append(weights(m))
        close(m._predict_weights(), np.mean(iterates, axis=0), rtol=1e-12)
    assert np.linalg.norm(weights(m)) <= 1.0 + 1e-12


# ---------------------------------------------------------------- scikit-learn
SK_LOSS = {"hinge": "hinge", "squared_hinge": "squared_hinge", "logistic": "log_loss",
           "perceptron": "perceptron", "modified_huber": "modified_huber"}


@pytest.mark.parametrize("loss", list(SK_LOSS))
def test_equals_sklearn_sgd_after_one_pass(a9a, loss):
    """Same loss, schedule, L2 decay and averaging, no intercept (scikit-learn neither
    decays its intercept nor steps it fully on sparse input)."""
    X, y = a9a
    X = X * 0.25  # ||x||^2 about 1: every loss stays stable under these steps
    runs = [(dict(schedule="constant", eta=0.05), dict(learning_rate="constant", eta0=0.05,
                                                       penalty=None)),
            (dict(schedule="invsqrt", eta=0.2, average=True),
             dict(learning_rate="invscaling", eta0=0.2, power_t=0.5, penalty=None,
                  average=True)),
            (dict(schedule="optimal", alpha=0.1), dict(learning_rate="optimal", alpha=0.1,
                                                       penalty="l2"))]
    for ours, theirs in runs:
        m = OGDClassifier(loss=loss, fit_intercept=False, **ours, shuffle=False).fit(X, y)
        s = SGDClassifier(loss=SK_LOSS[loss], fit_intercept=False, shuffle=False, max_iter=1,
                          tol=None, **theirs)
        s.partial_fit(X, y, classes=[-1.0, 1.0])
        assert np.abs(s.coef_).max() < 1e3  # a stable run: no clipped gradients
        close(m.coef_, s.coef_, rtol=1e-9)


def test_hinge_constant_step_equals_sklearn_on_random_data():
    X, y = binary_data(n=300, seed=9)
    m = OGDClassifier(loss="hinge", schedule="constant", eta=0.37, fit_intercept=False,
                      shuffle=False)
    m.fit(X, y)
    s = SGDClassifier(loss="hinge", penalty=None, learning_rate="constant", eta0=0.37,
                      shuffle=False, fit_intercept=False, max_iter=1, tol=None)
    s.partial_fit(X, y, classes=[-1.0, 1.0])
    close(m.coef_, s.coef_, rtol=1e-12)


# ---------------------------------------------------------------- regret
def test_regret_against_the_best_point_of_the_ball_grows_sublinearly():
    """Zinkevich (2003), Theorem 1: eta_t = eta / sqrt(t) and projection onto a ball
    of radius R give regret(T) <= D^2 sqrt(T) / (2 eta) + (sqrt(T) - 1/2) eta G^2
    (D = 2R, G the largest gradient norm); regret(T) / T falls as T grows."""
    rng = np.random.default_rng(0)
    T, d, R, eta = 4000, 5, 2.0, 0.5
    w_star = rng.standard_normal(d)
    X = rng.standard_normal((T, d))
    y = np.where(rng.random(T) < expit(3.0 * X @ w_star), 1.0, -1.0)
    m = OGDClassifier(loss="logistic", schedule="invsqrt", eta=eta, radius=R,
                      fit_intercept=False)
    p = m.predict_learn(X, y, return_scores=True)
    losses = log1p(np.exp(-y * p))
    G = np.linalg.norm(X, axis=1).max()
    ratios = []
    for n in (250, 1000, 4000):
        Xn, yn = X[:n], y[:n]

        def f(u):
            z = yn * (Xn @ u)
            return np.sum(np.logaddexp(0.0, -z)), -(Xn.T @ (yn * expit(-z)))

        best = minimize(f, np.zeros(d), jac=True, method="SLSQP",
                        constraints=[{"type": "ineq", "fun": lambda u: R * R - u @ u,
                                      "jac": lambda u: -2.0 * u}])
        assert np.linalg.norm(best.x) <= R + 1e-6
        regret = losses[:n].sum() - best.fun
        bound = (2 * R) ** 2 * math.sqrt(n) / (2 * eta) + (math.sqrt(n) - 0.5) * eta * G ** 2
        assert 0 < regret <= bound
        ratios.append(regret / n)
    assert ratios[0] > ratios[1] > ratios[2]


# ---------------------------------------------------------------- probabilities
def test_predict_proba_is_the_logistic_of_the_score():
    X, y = binary_data(seed=5)
    m = OGDClassifier(loss="logistic", shuffle=False).fit(X, y)
    P = m.predict_proba(X)
    close(P[:, 1], expit(m.decision_function(X)))
    close(P.sum(axis=1), np.ones(X.shape[0]))
    assert np.array_equal(m.classes_[P.argmax(axis=1)], m.predict(X))
    close(m.predict_log_proba(X), np.log(P))
    h = OGDClassifier(loss="hinge").fit(X, y)  # (a margin learner: the same link)
    close(h.predict_proba(X)[:, 1], expit(h.decision_function(X)))


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize("params,match", [
    ({"loss": "squared"}, "loss"), ({"schedule": "linear"}, "schedule"),
    ({"eta": 0.0}, "eta"), ({"power": 1.5}, "power"), ({"alpha": -1.0}, "alpha"),
    ({"radius": 0.0}, "radius"), ({"schedule": "optimal"}, "alpha > 0")])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        OGDClassifier(**params).fit(np.eye(3), [0, 1, 0])


def test_state_shaping_parameters_cannot_change_after_learning():
    m = OGDClassifier().fit(np.eye(3), [0, 1, 0])
    m.set_params(schedule="adagrad")
    with pytest.raises(ValueError, match="changed after learning"):
        m.partial_fit(np.eye(3), [0, 1, 0])
    m.set_params(schedule="constant")
    m.partial_fit(np.eye(3), [0, 1, 0])


def test_adagrad_survives_gradients_whose_square_underflows():
    # row 2: margin 720, logistic gradient ~1e-313 on a feature never seen (G stays 0)
    X = np.array([[1000.0, 0.0], [720.0, 1.0]])
    m = OGDClassifier(loss="logistic", schedule="adagrad", fit_intercept=False)
    m.partial_fit(X, [1.0, 1.0], classes=[-1.0, 1.0])
    assert np.all(np.isfinite(m.coef_)) and m.coef_[0, 1] == 0.0
