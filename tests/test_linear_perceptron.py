"""Perceptron: a plain numpy reference (binary, margin, the three multiclass updates of
Crammer and Singer 2003, Polyak-Ruppert averaging) against the compiled learner on
random data and a9a, dense, CSR and one row at a time; Novikoff's mistake bound; zero
rows; averaged weights = the mean of the iterates; Perceptron = OGD with the
"perceptron" loss and a constant step 1."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.datasets import make_separable
from olearn.linear import OGDClassifier, Perceptron

from conftest import close, data_path, weights, with_intercept


# ---------------------------------------------------------------- reference

def ref_perceptron(X, y, K=1, eta=1.0, margin=0.0, mode="max", average=False, sw=None):
    """Row by row, dense numpy.  ``y``: +-1 (K = 1) or class indices (K > 1).
    Returns the progressive scores, the final raw weights and the mean of the iterates."""
    n, d = X.shape
    W = np.zeros((K, d))
    total = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(n):
        x = X[t]
        r = W @ x
        scores[t] = total @ x / t if (average and t > 0) else r
        a = eta * (1.0 if sw is None else sw[t])
        nonzero = np.any(x != 0)
        if K == 1:
            if y[t] * r[0] <= margin and nonzero:
                W[0] += a * y[t] * x
        else:
            c = int(y[t])
            seen[c] = True
            floor = r[c] - margin
            wrong = [k for k in range(K) if k != c and seen[k] and r[k] >= floor]
            if wrong and nonzero:
                W[c] += a * x
                if mode == "max":
                    s = max(wrong, key=lambda k: (r[k], -k))
                    W[s] -= a * x
                else:
                    gaps = np.array([r[k] - floor for k in wrong])
                    if mode == "single" and gaps.sum() > 0:
                        tau = gaps / gaps.sum()
                    else:
                        tau = np.full(len(wrong), 1.0 / len(wrong))
                    for k, tk in zip(wrong, tau):
                        W[k] -= a * tk * x
        total += W
    return scores, W, total / n


def learn_rows(model, X, y):
    """learn_one over the rows; returns the scores seen before each update."""
    out = []
    for i in range(X.shape[0]):
        x = np.asarray(X[i].todense()).ravel() if sp.issparse(X) else X[i]
        out.append(model.decision_function(x[None])[0] if hasattr(model, "state_") else 0.0)
        model.learn_one(x, y[i])
    return np.array(out)


def binary_data(n=80, d=7, seed=0, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def multiclass_data(n=90, d=6, K=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((d, K)) + 0.5 * rng.standard_normal((n, K)), axis=1)
    return X, y


@pytest.fixture(scope="module")
def a9a():
    X, y = load_svmlight_file(str(data_path("a9a", "a9a")), n_features=123)
    return X[:3000].tocsr(), y[:3000]


# ---------------------------------------------------------------- binary
@pytest.mark.parametrize("eta,margin,average", [(1.0, 0.0, False), (0.7, 0.5, True)])
def test_binary_matches_reference_dense_sparse_learn_one(eta, margin, average):
    X, y = binary_data()
    scores, W, Wbar = ref_perceptron(with_intercept(X), y, eta=eta, margin=margin,
                                     average=average)
    for data in (X, sp.csr_matrix(X)):
        m = Perceptron(eta=eta, margin=margin, average=average)
        close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
        close(weights(m), W)
        close(m.coef_, (Wbar if average else W)[:, 1:])
        close(m.intercept_, (Wbar if average else W)[:, 0])
    m = Perceptron(eta=eta, margin=margin, average=average)
    close(learn_rows(m, X, y), scores[:, 0])
    close(weights(m), W)


def test_sample_weight_multiplies_the_step():
    X, y = binary_data(seed=3)
    sw = np.random.default_rng(3).uniform(0.0, 2.0, X.shape[0])
    _, W, Wbar = ref_perceptron(X, y, eta=0.5, sw=sw, average=True)
    m = Perceptron(eta=0.5, fit_intercept=False, average=True)
    m.partial_fit(sp.csr_matrix(X), y, sample_weight=sw)
    close(weights(m), W)
    close(m.coef_, Wbar)


def test_a9a_matches_reference(a9a):
    X, y = a9a
    for average in (False, True):
        scores, W, Wbar = ref_perceptron(with_intercept(X.toarray()), y, average=average)
        for data in (X, X.toarray()):
            m = Perceptron(average=average)
            close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
            close(weights(m), W)
            close(m._predict_weights(), Wbar if average else W)


# ---------------------------------------------------------------- multiclass
@pytest.mark.parametrize("mode", ["max", "uniform", "single"])
@pytest.mark.parametrize("margin,average", [(0.0, False), (0.3, True)])
def test_multiclass_matches_reference(mode, margin, average):
    X, y = multiclass_data()
    scores, W, Wbar = ref_perceptron(with_intercept(X), y, K=4, eta=0.8, margin=margin,
                                     mode=mode, average=average)
    m = Perceptron(eta=0.8, margin=margin, multiclass=mode, average=average)
    close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
    close(weights(m), W)
    close(m._predict_weights(), Wbar if average else W)
    assert np.array_equal(m.predict_learn(X[:0 or 1], y[:1]).shape, (1,))


def test_multiclass_dense_and_one_at_a_time_equal_batch():
    X, y = multiclass_data(seed=5)
    full = Perceptron(multiclass="uniform", average=True)
    s_full = full.predict_learn(sp.csr_matrix(X), y, return_scores=True)
    dense = Perceptron(multiclass="uniform", average=True)
    close(dense.predict_learn(X, y, return_scores=True), s_full)
    # one at a time after a first batch that holds every class
    m = Perceptron(multiclass="uniform", average=True)
    s_first = m.predict_learn(X[:20], y[:20], return_scores=True)
    close(s_first, s_full[:20])
    close(learn_rows(m, X[20:], y[20:]), s_full[20:])
    close(weights(m), weights(full))
    close(m.coef_, full.coef_)


def test_single_is_proportional():
    # true class 0 with scores (0, 2, 1): E = {1, 2}, gaps 2 and 1
    m = Perceptron(multiclass="single", fit_intercept=False)
    m.partial_fit(np.zeros((1, 2)), [0], classes=[0, 1, 2])
    W0 = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]])
    m.state_["W"][:] = W0  # scale 1: set the weights directly
    m.state_["A"][0, 4] = np.sum(W0 ** 2)
    m.seen_[:] = 1
    x = np.array([1.0, 1.0])
    m.partial_fit(x[None], [0])
    expected = W0 + np.outer([1.0, -2.0 / 3.0, -1.0 / 3.0], x)
    close(weights(m), expected)
    u = Perceptron(multiclass="uniform", fit_intercept=False)
    u.partial_fit(np.zeros((1, 2)), [0], classes=[0, 1, 2])
    u.state_["W"][:] = W0
    u.seen_[:] = 1
    u.partial_fit(x[None], [0])
    close(weights(u), W0 + np.outer([1.0, -0.5, -0.5], x))


# ---------------------------------------------------------------- theory
def test_novikoff_mistake_bound():
    X, y, _ = make_separable(n=3000, d=10, margin=0.1, radius=1.0, random_state=0)
    m = Perceptron(fit_intercept=False)
    pred = m.predict_learn(X, y)
    mistakes = int(np.sum(pred != y))
    assert 0 < mistakes <= (1.0 / 0.1) ** 2
    assert m.n_updates_ >= mistakes  # an update also happens on score 0 with y = -1


def test_a_zero_row_never_updates():
    X, y = binary_data(n=20)
    for average in (False, True):
        for data in (X, sp.csr_matrix(X)):
            m = Perceptron(fit_intercept=False, average=average, shuffle=False).fit(data, y)
            W, n = weights(m).copy(), m.n_updates_
            zeros = np.zeros((3, X.shape[1]))
            m.partial_fit(zeros if isinstance(data, np.ndarray) else sp.csr_matrix(zeros),
                          [1.0, -1.0, 1.0])
            assert m.n_updates_ == n
            assert np.array_equal(weights(m), W)
    m = Perceptron(fit_intercept=False, multiclass="uniform")
    m.partial_fit(np.zeros((3, 4)), [0, 1, 2])
    assert m.n_updates_ == 0 and not weights(m).any()


def test_averaged_weights_are_the_mean_of_the_iterates():
    X, y = multiclass_data(n=40, seed=7)
    m = Perceptron(average=True, multiclass="single")
    m.partial_fit(X[:1], y[:1], classes=[0, 1, 2, 3])
    iterates = [weights(m).copy()]
    for i in range(1, X.shape[0]):
        m.learn_one(X[i], y[i])
        iterates.append(weights(m).copy())
        close(m._predict_weights(), np.mean(iterates, axis=0), rtol=1e-12)
    assert not np.allclose(m._predict_weights(), weights(m))


def test_equals_ogd_with_perceptron_loss_and_step_one(a9a):
    X, y = a9a
    for average in (False, True):
        p = Perceptron(average=average)
        o = OGDClassifier(loss="perceptron", schedule="constant", eta=1.0, average=average,
                          intercept_scaling=1.0)
        close(p.predict_learn(X, y, return_scores=True),
              o.predict_learn(X, y, return_scores=True), rtol=0)
        close(weights(p), weights(o), rtol=0)
        close(p.coef_, o.coef_)
    Xm, ym = multiclass_data(seed=11)
    p = Perceptron(shuffle=False).fit(sp.csr_matrix(Xm), ym)
    o = OGDClassifier(loss="perceptron", schedule="constant", eta=1.0, shuffle=False,
                      intercept_scaling=1.0).fit(
        sp.csr_matrix(Xm), ym)
    close(weights(p), weights(o), rtol=0)


@pytest.mark.parametrize("params", [{"eta": 0}, {"margin": -1}, {"multiclass": "all"},
                                    {"average": "yes"}])
def test_bad_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        Perceptron(**params).fit(np.eye(3), [0, 1, 0])


def test_average_cannot_change_after_learning():
    m = Perceptron().fit(np.eye(3), [0, 1, 0])
    m.set_params(average=True)
    with pytest.raises(ValueError, match="changed after learning"):
        m.partial_fit(np.eye(3), [0, 1, 0])
