"""``olearn.preprocessing.Scaled``: streaming standardisation in front of any learner,
against a plain numpy reference (the statistics of rows 0..i, zeros included)."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.preprocessing import Scaled


def _reference(X, center):
    """Row i scaled with the mean and variance of rows 0..i (np.mean / np.var)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    out = np.empty_like(X)
    for i in range(X.shape[0]):
        mean = X[:i + 1].mean(axis=0)
        std = X[:i + 1].std(axis=0)
        row = X[i] - mean if center else X[i].copy()
        out[i] = np.where(std > 0, row / np.where(std > 0, std, 1.0), row)
    return out


def _data(n=60, d=6, seed=0, density=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.01, 100, d)
    X *= rng.random((n, d)) < density
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("sparse", [False, True])
def test_progressive_scaling_equals_the_reference(sparse):
    X, y = _data()
    Xin = sp.csr_matrix(X) if sparse else X
    model = Scaled(olearn.make("pa1"))
    pred = model.predict_learn(Xin, y, return_scores=True)
    # sparse rows are scaled, not centred
    want_rows = _reference(X, center=not sparse)
    ref = olearn.make("pa1")
    want = ref.predict_learn(want_rows, y, return_scores=True)
    np.testing.assert_allclose(pred, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.model_.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.mean_, X.mean(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.var_, X.var(axis=0), rtol=1e-10, atol=1e-12)


def test_batches_one_at_a_time_and_dicts_agree():
    X, y = _data(seed=1)
    batch = Scaled(olearn.make("ogd"), with_mean=False)
    want = batch.predict_learn(sp.csr_matrix(X), y, return_scores=True)
    chunks = Scaled(olearn.make("ogd"), with_mean=False)
    got = np.concatenate([chunks.predict_learn(sp.csr_matrix(X[a:a + 7]), y[a:a + 7],
                                               return_scores=True)
                          for a in range(0, len(y), 7)])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    one = Scaled(olearn.make("ogd"), with_mean=False)
    preds = [one.predict_learn_one({j: v for j, v in enumerate(row) if v != 0}, t)
             for row, t in zip(X, y)]
    decided = want != 0  # (the first row, scored 0 by both, is a tie)
    assert np.array_equal(np.array(preds)[decided], np.where(want > 0, 1, -1)[decided])
    # the dict model's weights are the batch model's, its columns in order of appearance
    order = list(one.model_.vocabulary_)
    np.testing.assert_allclose(one.model_.coef_.ravel(), batch.model_.coef_.ravel()[order],
                               rtol=1e-8, atol=1e-10)


def test_predict_does_not_change_the_statistics_and_fit_is_a_pipeline():
    from sklearn.preprocessing import StandardScaler
    X, y = _data(seed=2)
    model = Scaled(olearn.make("pa1", shuffle=False)).fit(X, y)
    before = (model.n_seen_, model.mean_.copy())
    model.predict(X[:5])
    model.predict_one(X[0])
    assert model.n_seen_ == before[0] and np.array_equal(model.mean_, before[1])
    ref = olearn.make("pa1", shuffle=False).fit(StandardScaler().fit_transform(X), y)
    np.testing.assert_allclose(model.model_.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
    assert model.score(X, y) == ref.score(StandardScaler().fit(X).transform(X), y)


def test_save_and_load_continue_the_stream(tmp_path):
    X, y = _data(seed=3)
    model = Scaled(olearn.make("arow")).partial_fit(X[:30], y[:30])
    path = tmp_path / "m.olm"
    model.save(path)
    back = olearn.load(path)
    assert isinstance(back, Scaled) and back.n_seen_ == 30
    np.testing.assert_array_equal(back.predict_learn(X[30:], y[30:]),
                                  model.predict_learn(X[30:], y[30:]))


def test_bad_input_changes_nothing():
    X, y = _data(seed=4)
    model = Scaled(olearn.make("pa1")).partial_fit(X[:10], y[:10])
    state = (model.n_seen_, model.mean_.copy())
    bad = X[10:20].copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.partial_fit(bad, y[10:20])
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[10:20, :3], y[10:20])
    assert model.n_seen_ == state[0] and np.array_equal(model.mean_, state[1])
    with pytest.raises(TypeError, match="olearn learner"):
        Scaled(None).partial_fit(X, y)
    with pytest.raises(ValueError, match="with_mean"):
        Scaled(olearn.make("pa1"), with_mean="yes").partial_fit(X, y)


def test_a_nested_model_of_another_class_than_its_parameter_is_refused():
    from olearn._nested import export_model, import_model
    X, y = _data(seed=5)
    arrays = {}
    info = export_model(olearn.make("pa1").partial_fit(X, y), "model.", arrays)
    assert type(import_model(info, "model.", arrays, like=olearn.make("pa1"))) is \
        type(olearn.make("pa1"))
    with pytest.raises(ValueError, match="does not match"):
        import_model(info, "model.", arrays, like=olearn.make("arow"))
