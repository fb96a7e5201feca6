"""Cost-sensitive multiclass PA (JMLR 2006 section 7) against a plain numpy loop of the
paper's equations, dense and sparse, one at a time, saved and loaded, bad input, and on
letter (``|y - y'|`` costs) against the cost-blind PA-I."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.io import load_libsvm
from olearn.multiclass import CostSensitivePA

from conftest import data_path

K = 4
COSTS = [[abs(a - b) for b in range(K)] for a in range(K)]


def reference(X, y, costs, variant, update, C=1.0, sw=None):
    """(W after, the pre-update scores) of the paper's steps, row by row."""
    X = X.toarray() if sp.issparse(X) else X
    R = np.sqrt(np.array(costs, dtype=float))
    W = np.zeros((R.shape[0], X.shape[1] + 1))
    S = []
    for i in range(len(X)):
        z = np.r_[1.0, X[i]]
        s = W @ z
        S.append(s.copy())
        yi = y[i]
        r = int(np.argmax(s)) if update == "prediction" else int(np.argmax(s - s[yi] + R[yi]))
        if r == yi:
            continue
        loss = s[r] - s[yi] + R[yi, r]
        if loss <= 0:
            continue
        sq = z @ z
        tau = {"PA": loss / (2 * sq), "PA-I": min(C, loss / (2 * sq)),
               "PA-II": loss / (2 * sq + 1 / (2 * C))}[variant]
        tau *= 1.0 if sw is None else sw[i]
        W[yi] += tau * z
        W[r] -= tau * z
    return W, np.array(S)


def _data(n=90, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    X[rng.random(X.shape) < 0.4] = 0.0
    return X, rng.integers(0, K, n)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("update", ["prediction", "max-loss"])
@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_pass_equals_the_numpy_loop(variant, update, sparse):
    X, y = _data()
    model = CostSensitivePA(COSTS, variant=variant, update=update, C=0.5)
    scores = model.predict_learn(sp.csr_matrix(X) if sparse else X, y, return_scores=True)
    W, S = reference(X, y, COSTS, variant, update, C=0.5)
    np.testing.assert_allclose(model.W_, W, atol=1e-10, rtol=0)
    np.testing.assert_allclose(scores, S, atol=1e-10, rtol=0)
    assert model.n_updates_ > 0


def test_weights_one_at_a_time_and_a_file(tmp_path):
    X, y = _data(seed=1)
    sw = np.random.default_rng(2).uniform(0, 2, len(y))
    model = CostSensitivePA(COSTS).fit(X, y, sample_weight=sw)
    W, _ = reference(X, y, COSTS, "PA-I", "max-loss", sw=sw)
    np.testing.assert_allclose(model.W_, W, atol=1e-10)
    one = CostSensitivePA(COSTS)
    pred = [one.predict_learn_one(x, t, sw_) for x, t, sw_ in zip(X, y, sw)]
    np.testing.assert_allclose(one.W_, W, atol=1e-10)
    assert pred[1:] == np.asarray(CostSensitivePA(COSTS).predict_learn(
        X, y, sample_weight=sw))[1:].tolist()
    olearn.save(model, tmp_path / "m.olm")
    back = olearn.load(tmp_path / "m.olm")
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
    meta, arrays = model.export_state()
    arrays["W"] = arrays["W"][:3]
    with pytest.raises(ValueError, match="state array W"):
        CostSensitivePA.from_state(model.get_params(deep=False), meta, arrays)


def test_zero_costs_ask_no_margin_and_bad_input_is_refused():
    X, y = _data(seed=3)
    free = CostSensitivePA([[0.0] * K] * K, update="max-loss").fit(X, y)
    assert free.n_updates_ == 0   # every margin asked is 0: the zero model satisfies it
    for costs in ([[0, 1], [1]], [[1, 0], [0, 1]], [[0, -1], [1, 0]], None):
        with pytest.raises(ValueError, match="costs must be"):
            CostSensitivePA(costs).fit(X, y)
    with pytest.raises(ValueError, match="indices 0..3"):
        CostSensitivePA(COSTS).fit(X, y + 1)
    with pytest.raises(ValueError, match="update must be"):
        CostSensitivePA(COSTS, update="all").fit(X, y)


def test_letter_costs_less_than_the_cost_blind_pa1():
    X, y = load_libsvm(data_path("letter", "letter.scale"))
    X, y = X[:4000], (y[:4000] - 1).astype(np.int64)
    costs = [[abs(a - b) for b in range(26)] for a in range(26)]
    model = CostSensitivePA(costs)
    pred = model.predict_learn(X, y)
    blind = olearn.make("pa1").predict_learn(X, y)
    assert np.abs(pred - y).mean() < np.abs(blind - y).mean()
    W, _ = reference(X[:500], y[:500], costs, "PA-I", "max-loss")
    np.testing.assert_allclose(CostSensitivePA(costs).fit(X[:500], y[:500]).W_, W,
                               atol=1e-10)


def reference_rows(X, Q, variant, update, C=1.0):
    """The paper's steps with each row's own costs: y_i the cheapest class, predicting r
    costs Q[i, r] - Q[i, y_i]."""
    X = X.toarray() if sp.issparse(X) else X
    W = np.zeros((Q.shape[1], X.shape[1] + 1))
    for i in range(len(X)):
        z, yi = np.r_[1.0, X[i]], int(np.argmin(Q[i]))
        R = np.sqrt(Q[i] - Q[i, yi])
        s = W @ z
        r = int(np.argmax(s)) if update == "prediction" else int(np.argmax(s - s[yi] + R))
        loss = s[r] - s[yi] + R[r]
        if r == yi or loss <= 0:
            continue
        sq = z @ z
        tau = {"PA": loss / (2 * sq), "PA-I": min(C, loss / (2 * sq)),
               "PA-II": loss / (2 * sq + 1 / (2 * C))}[variant]
        W[yi] += tau * z
        W[r] -= tau * z
    return W


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_rows_with_their_own_costs_equal_the_numpy_loop(variant, update):
    """VW's --csoaa rows: each row brings its costs (partial_fit(X, costs=Q))."""
    X, _ = _data(120, seed=3)
    rng = np.random.default_rng(4)
    Q = rng.integers(0, 4, (120, K)).astype(float)
    model = CostSensitivePA(K, variant=variant, update=update, C=0.5)
    model.partial_fit(X[:70], costs=Q[:70]).partial_fit(sp.csr_matrix(X[70:]), costs=Q[70:])
    np.testing.assert_allclose(model.W_, reference_rows(X, Q, variant, update, C=0.5),
                               atol=1e-10, rtol=0)
    same = CostSensitivePA(COSTS, variant=variant, update=update, C=0.5)
    y = np.arange(len(X)) % K  # a matrix's costs as rows: the matrix's model
    same_rows = CostSensitivePA(K, variant=variant, update=update, C=0.5)
    same.partial_fit(X, y)
    same_rows.partial_fit(X, costs=np.array(COSTS, dtype=float)[y])
    np.testing.assert_allclose(same_rows.W_, same.W_, atol=1e-12, rtol=0)


def test_bad_row_costs_change_nothing():
    X, _ = _data(10)
    model = CostSensitivePA(K).partial_fit(X, costs=np.ones((10, K)) - np.eye(K)[np.arange(10) % K])
    W = model.W_.copy()
    for Q, words in ((np.ones((10, K + 1)), "costs must be"), (-np.ones((10, K)), "costs must be"),
                     (np.full((10, K), np.nan), "costs must be"), (np.ones((9, K)), "9 rows")):
        with pytest.raises(ValueError, match=words):
            model.partial_fit(X, costs=Q)
    with pytest.raises(ValueError, match="cheapest"):
        model.partial_fit(X, np.full(10, 3), costs=np.eye(K)[np.zeros(10, dtype=int)] + 1)
    np.testing.assert_array_equal(model.W_, W)
    with pytest.raises(ValueError, match="costs must be"):
        CostSensitivePA(1).fit(X, np.zeros(10))


def test_vw_csoaa_rows_learn_as_rows_with_their_costs(tmp_path):
    from olearn.io import load_vw_multilabel
    from olearn.multiclass.cost_sensitive import vw_costs
    path = tmp_path / "cs.vw"
    path.write_text("1:0.5 2:0 3:1 |f a b\n2:1 3:0 |f c\n3:2 1:0 |f a c\n")
    X, rows = load_vw_multilabel(str(path), costs=True, n_bits=4)
    Q = vw_costs(rows, 3)
    np.testing.assert_array_equal(Q, [[0.5, 0, 1], [1, 1, 0], [0, 2, 2]])
    model = CostSensitivePA(3).partial_fit(X, costs=Q)
    np.testing.assert_allclose(model.W_, reference_rows(X, Q, "PA-I", "max-loss"),
                               atol=1e-12)
    with pytest.raises(ValueError, match="labels must be 1..3"):
        vw_costs([{4: 1.0}], 3)
