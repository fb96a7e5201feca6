"""olearn.grid: G settings of a learner in one fused pass, each member equal to its own
pass (dense and sparse, chunks, sample weights, averaging; PA, the Perceptron, ALMA),
the members that cannot be fused run on their own, one-example calls, fit, divergence,
ExpertAdvice fused and combined inside the fused pass, compare's fused tuning."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.base import DivergenceError
from olearn.ensemble import ExpertAdvice
from olearn.ensemble import expert_advice as ea

TOL = 1e-12


def _data(n=300, d=12, seed=0, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, "b", "a")
    return X, y


def _plain_pa1(X, y, C, c=0.1):
    """PA-I (Crammer et al. 2006, eq. 6 with tau = min(C, l / ||x||^2)), the constant
    feature c in front: the pre-update scores."""
    w = np.zeros(X.shape[1] + 1)
    out = []
    for x, t in zip(X, np.where(y == "b", 1.0, -1.0)):
        x = np.concatenate([[c], x])
        s = w @ x
        out.append(s)
        loss = max(0.0, 1.0 - t * s)
        if loss > 0:
            w += min(C, loss / (x @ x)) * t * x
    return np.array(out)


def _separate(name, settings, chunks, **kw):
    models = [olearn.make(name, **s) for s in settings]
    outs = [np.concatenate([m.predict_learn(Xc, yc, return_scores=True, **kw)
                            for Xc, yc in chunks]) for m in models]
    return models, outs


@pytest.mark.parametrize("sparse", [False, True])
def test_grid_members_equal_their_own_passes(sparse):
    X, y = _data()
    X = sp.csr_matrix(X) if sparse else X
    chunks = [(X[:100], y[:100]), (X[100:], y[100:])]
    g = olearn.grid("pa1", C=[0.01, 0.3, 1.0, 10.0, 100.0], average=[False, True])
    assert len(g.settings_) == 10 and g.settings_[1] == {"C": 0.01, "average": True}
    got = np.concatenate([g.predict_learn(Xc, yc, return_scores=True) for Xc, yc in chunks])
    assert got.shape == (300, 10)
    models, outs = _separate("pa1", g.settings_, chunks)
    for j, (m, e) in enumerate(zip(models, g.estimators_)):
        np.testing.assert_allclose(got[:, j], outs[j], rtol=0, atol=TOL)
        np.testing.assert_allclose(e.coef_, m.coef_, rtol=0, atol=TOL)
        np.testing.assert_allclose(e.intercept_, m.intercept_, rtol=0, atol=TOL)
        assert (e.t_, e.n_updates_) == (m.t_, m.n_updates_)
        np.testing.assert_array_equal(e.predict(X), m.predict(X))
    # the plain formula, member by member (no averaging)
    for j, s in enumerate(g.settings_):
        if not s["average"]:
            ref = _plain_pa1(X.toarray() if sparse else X, y, s["C"])
            np.testing.assert_allclose(got[:, j], ref, rtol=0, atol=1e-9)
    # the members really shared one pass: fused groups, by averaging
    assert len(g._fused.fused_indices()) == 10


def test_grid_labels_weights_and_perceptron():
    X, y = _data(seed=1)
    sw = np.random.default_rng(2).random(len(y)) * 2
    g = olearn.grid("perceptron", eta=[0.5, 1.0, 2.0], margin=[0.0, 0.5])
    labels = g.predict_learn(X, y, sample_weight=sw)
    assert labels.shape == (300, 6) and set(np.unique(labels)) <= {"a", "b"}
    models = [olearn.make("perceptron", **s) for s in g.settings_]
    for j, m in enumerate(models):
        np.testing.assert_array_equal(labels[:, j], m.predict_learn(X, y, sample_weight=sw))
        np.testing.assert_allclose(g.estimators_[j].coef_, m.coef_, rtol=0, atol=TOL)
    np.testing.assert_array_equal(g.predict(X), np.stack([m.predict(X) for m in models], 1))


def test_members_that_cannot_fuse_run_their_own_pass():
    X, y = _data(seed=3)
    y3 = np.array(["a", "b", "c"])[np.arange(len(y)) % 3]
    g = olearn.grid("pa1", C=[0.1, 1.0])          # multiclass: not a first-order step
    got = g.predict_learn(X, y3, return_scores=True)
    assert g._fused.fused_indices() == [0, 1]
    for j, s in enumerate(g.settings_):
        np.testing.assert_allclose(got[:, j], olearn.make("pa1", **s).predict_learn(
            X, y3, return_scores=True), rtol=0, atol=TOL)
    g = olearn.grid("ogd", eta=[0.1, 1.0])        # a rule with a loss: run alone
    got = g.predict_learn(X, y, return_scores=True)
    assert g._fused.fused_indices() == []
    for j, s in enumerate(g.settings_):
        np.testing.assert_allclose(got[:, j], olearn.make("ogd", **s).predict_learn(
            X, y, return_scores=True), rtol=0, atol=TOL)


def test_one_example_calls_and_fit():
    X, y = _data(n=60, seed=4)
    g = olearn.grid("pa1", C=[0.1, 1.0, 10.0])
    g.partial_fit(X[:30], y[:30])
    models = [olearn.make("pa1", **s).partial_fit(X[:30], y[:30]) for s in g.settings_]
    for x, t in zip(X[30:], y[30:]):
        assert g.predict_one(x) == [m.predict_one(x) for m in models]
        assert g.predict_learn_one(x, t, return_scores=True) == \
            [m.predict_learn_one(x, t, return_scores=True) for m in models]
    g.partial_fit(X, y)      # a batch after one-example calls: state stacked again
    for m in models:
        m.partial_fit(X, y)
    for e, m in zip(g.estimators_, models):
        np.testing.assert_allclose(e.coef_, m.coef_, rtol=0, atol=TOL)
    g2 = olearn.grid("pa1", C=[0.1, 1.0], epochs=[2], random_state=[0]).fit(X, y)
    for e, s in zip(g2.estimators_, g2.settings_):
        m = olearn.make("pa1", **s).fit(X, y)
        np.testing.assert_allclose(e.coef_, m.coef_, rtol=0, atol=TOL)


def test_divergence_raises_and_leaves_members_as_before():
    X, y = _data(n=40, seed=5)
    g = olearn.grid("perceptron", eta=[1.0, 1e150])
    g.partial_fit(X[:1], y[:1])
    before = [e.coef_.copy() for e in g.estimators_]
    with pytest.raises(DivergenceError):
        g.partial_fit(X * 1e10, y)
    for b, e in zip(before, g.estimators_):
        np.testing.assert_array_equal(b, e.coef_)


def test_bad_grids_are_refused():
    with pytest.raises(ValueError, match="param_grid"):
        olearn.grid("pa1")
    with pytest.raises(ValueError, match="empty"):
        olearn.grid("pa1", C=[])
    with pytest.raises(ValueError):
        olearn.grid("pa1", nope=[1])


def test_expert_advice_fused_equals_unfused(monkeypatch):
    X, y = _data(n=400, seed=6)
    X = sp.csr_matrix(X)

    def members():
        return ([olearn.make("pa1", C=c) for c in (0.01, 0.1, 1.0, 10.0)]
                + [olearn.make("perceptron"), olearn.make("ogd")])
    fused = ExpertAdvice(members())
    a = [fused.predict_learn(X[:150], y[:150]), fused.predict_learn(X[150:], y[150:])]
    assert fused._fused.fused_indices() == [0, 1, 2, 3]
    monkeypatch.setattr(ea.ExpertAdvice, "_fused_pass", lambda self, *args: {})
    plain = ExpertAdvice(members())
    b = [plain.predict_learn(X[:150], y[:150]), plain.predict_learn(X[150:], y[150:])]
    np.testing.assert_array_equal(np.concatenate(a), np.concatenate(b))
    np.testing.assert_allclose(fused.weights_, plain.weights_, rtol=0, atol=TOL)
    for m, p in zip(fused.members_, plain.members_):
        np.testing.assert_allclose(m.coef_, p.coef_, rtol=0, atol=TOL)


def test_compare_tuning_fused_equals_a_pass_per_point(monkeypatch):
    import importlib
    cmp = importlib.import_module("olearn.evaluate.compare")
    X, y = _data(n=300, seed=7)
    kw = dict(learners=["pa1", "perceptron", "alma"], X=X, y=y, permutations=2,
              random_state=0, progress=False)
    calls = []
    real = cmp._fused_tuning
    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out
    monkeypatch.setattr(cmp, "_fused_tuning", spy)
    fused = cmp.compare(**kw)
    assert calls == [True, True, True]     # each learner's grid in one fused pass
    monkeypatch.setattr(cmp, "_fused_tuning", lambda *a: None)
    plain = cmp.compare(**kw)
    assert fused.tuning == plain.tuning and fused.params == plain.params
    for name in fused.names:
        np.testing.assert_array_equal(fused.scores[name], plain.scores[name])


@pytest.mark.parametrize("sparse", [False, True])
def test_alma_grid_members_equal_their_own_passes(sparse):
    """ALMA's normalisation (``w / max(1, ||w||)``, the scale folded into the weights
    when it leaves [1e-3, 1e3]) per member: C = 8 shrinks the scale by about
    ``(1 + 64 / k)^(-1/2)`` an update, so its members fold within a few updates."""
    from test_linear_alma import ref_alma
    X, y = _data(n=400, seed=8)
    sw = np.random.default_rng(9).random(len(y)) * 2
    Xs = sp.csr_matrix(X) if sparse else X
    chunks = [(Xs[:150], y[:150], sw[:150]), (Xs[150:], y[150:], sw[150:])]
    g = olearn.grid("alma", alpha=[0.5, 1.0], C=[0.5, 1.4, 8.0], average=[False, True],
                    fit_intercept=[False])
    got = np.concatenate([g.predict_learn(Xc, yc, sample_weight=wc, return_scores=True)
                          for Xc, yc, wc in chunks])
    assert len(g._fused.fused_indices()) == 12
    for j, s in enumerate(g.settings_):
        m = olearn.make("alma", **s)
        own = np.concatenate([m.predict_learn(Xc, yc, sample_weight=wc, return_scores=True)
                              for Xc, yc, wc in chunks])
        e = g.estimators_[j]
        np.testing.assert_allclose(got[:, j], own, rtol=0, atol=TOL)
        np.testing.assert_allclose(e.coef_, m.coef_, rtol=0, atol=TOL)
        np.testing.assert_allclose(e.state_["A"], m.state_["A"], rtol=0, atol=TOL)
        assert (e.t_, e.n_updates_) == (m.t_, m.n_updates_)
        if not s["average"]:    # the paper's rule, row by row
            scores, W, _, k = ref_alma(X, np.where(y == "b", 1.0, -1.0), alpha=s["alpha"],
                                       C=s["C"], sw=sw)
            np.testing.assert_allclose(got[:, j], scores[:, 0], rtol=0, atol=1e-9)
            np.testing.assert_allclose(e.coef_.ravel(), W[0], rtol=0, atol=1e-9)
            assert e.n_updates_ == k


def _ensembles(make, X, y, monkeypatch, **kw):
    """The same ensemble three ways: its rows combined inside the members' fused pass,
    fused members combined afterwards, each member its own pass."""
    runs = []
    for how in ("combined", "fused", "plain"):
        with monkeypatch.context() as mp:
            if how == "fused":
                mp.setattr(ea.ExpertAdvice, "_combiner", lambda self, *a: None)
            if how == "plain":
                mp.setattr(ea.ExpertAdvice, "_fused_pass", lambda self, *a: {})
            calls = []
            real = ea._Combiner.run
            mp.setattr(ea._Combiner, "run",
                       lambda self, *a: calls.append(1) or real(self, *a))
            model = ExpertAdvice(make(), **kw)
            out = [model.predict_learn(X[:150], y[:150], return_scores=True),
                   model.predict_learn(X[150:], y[150:], return_scores=True)]
            runs.append((model, np.concatenate(out), len(calls)))
    return runs


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("combine,loss,eta", [("ewa", "zero-one", None),
                                              ("ewa", "hinge", 0.5),
                                              ("hedge", "zero-one", None),
                                              ("follow-the-leader", "hinge", None)])
def test_expert_advice_combined_in_the_fused_pass(sparse, combine, loss, eta, monkeypatch):
    X, y = _data(n=400, seed=10)
    X = sp.csr_matrix(X) if sparse else X
    runs = _ensembles(lambda: [olearn.make("pa1", C=c) for c in (0.01, 0.1, 1.0, 10.0)],
                      X, y, monkeypatch, combine=combine, loss=loss, eta=eta)
    (a, sa, calls), rest = runs[0], runs[1:]
    assert calls == 2 and [r[2] for r in rest] == [0, 0]   # combined in both batches
    for b, sb, _ in rest:
        np.testing.assert_allclose(sa, sb, rtol=0, atol=TOL)
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
        np.testing.assert_allclose(a.weights_, b.weights_, rtol=0, atol=TOL)
        np.testing.assert_allclose(a.cumulative_loss_, b.cumulative_loss_, rtol=0, atol=TOL)
        np.testing.assert_array_equal(a.export_state()[1]["combine"],
                                      b.export_state()[1]["combine"])
        for m, p in zip(a.members_, b.members_):
            np.testing.assert_allclose(m.coef_, p.coef_, rtol=0, atol=TOL)
            assert m.n_updates_ == p.n_updates_


def test_expert_advice_combined_alma_and_divergence(monkeypatch):
    X, y = _data(n=400, seed=11)
    runs = _ensembles(lambda: [olearn.make("alma", C=c) for c in (0.5, 1.4, 8.0)], X, y,
                      monkeypatch)
    assert runs[0][2] == 2
    for b, sb, _ in runs[1:]:
        np.testing.assert_allclose(runs[0][1], sb, rtol=0, atol=TOL)
        np.testing.assert_allclose(runs[0][0].weights_, b.weights_, rtol=0, atol=TOL)
    # a member diverges inside the combined pass: the weights are put back, each member
    # runs its own pass, the diverged one is dropped -- as without the fused pass
    runs = _ensembles(lambda: [olearn.make("perceptron", eta=e) for e in (1.0, 1e150)],
                      X * 1e10, y, monkeypatch)
    (a, sa, calls), (_, _, _), (b, sb, _) = runs
    assert calls >= 1 and list(a.alive_) == [True, False] == list(b.alive_)
    np.testing.assert_array_equal(sa, sb)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=0, atol=TOL)
