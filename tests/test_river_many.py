"""River's mini-batch API on DataFrames (issue 44 item 3, ``olearn._many``):
``learn_many`` is exactly ``learn_one`` of the frame's rows as dicts (one compiled
pass), ``predict_many``/``predict_proba_many``/``score_many`` are the one-row answers,
with River 0.26's return types (Series on the frame's index, named as the last label
Series; a DataFrame with a column per class); scikit-learn's ``feature_names_in_``
kept by ``fit(DataFrame)``.  pandas is optional: these tests skip without it, and
olearn never imports it unless given a frame.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import olearn

pd = pytest.importorskip("pandas", reason="pandas is optional (the test extra)")


def frames(seed, n=120, d=5, nan=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, d)), columns=[f"f{j}" for j in range(d)],
                     index=rng.permutation(n) * 7)
    if nan:
        X = X.mask(rng.random((n, d)) < 0.2)  # missing values: absent features
    w = rng.normal(size=d)
    score = np.nan_to_num(X.to_numpy()) @ w
    return X, score


def dicts(X):
    return [{c: v for c, v in row.items() if v == v} for row in X.to_dict("records")]


@pytest.mark.parametrize("name", ["pa1", "arow", "ftrl", "pa1-reg"])
@pytest.mark.parametrize("nan", [False, True])
def test_learn_many_is_learn_one_of_the_rows(name, nan):
    X, score = frames(1, nan=nan)
    regress = name.endswith("-reg")
    y = pd.Series(score if regress else np.where(score > 0.3, "b", np.where(score < -0.3,
                                                                            "a", "c")),
                  name="label")
    one, many = olearn.make(name), olearn.make(name)
    # three batches whose columns come and go (River's check_learn_many_matches_learn_one)
    cuts = [(0, 40, ["f0", "f1"]), (40, 80, ["f3", "f0", "f1", "f2", "f4"]), (80, 120, ["f4"])]
    for a, b, cols in cuts:
        part = X.iloc[a:b][cols]
        for x, t in zip(dicts(part), y.iloc[a:b]):
            one.learn_one(x, t)
        assert many.learn_many(part, y.iloc[a:b]) is None
    if not regress:
        assert list(many.classes_) == list(one.classes_)  # (arrival order, as learn_one)
    for x in dicts(X):
        if regress:
            assert many.predict_one(x) == pytest.approx(one.predict_one(x), rel=1e-12)
        else:
            p, q = many.predict_proba_one(x), one.predict_proba_one(x)
            assert p.keys() == q.keys()
            assert all(p[k] == pytest.approx(q[k], abs=1e-12) for k in p)
    got = many.predict_many(X)
    assert isinstance(got, pd.Series) and got.name == "label"
    assert (got.index == X.index).all()
    want = [one.predict_one(x) for x in dicts(X)]
    if regress:
        np.testing.assert_allclose(got.to_numpy(dtype=float), want, rtol=1e-12)
    else:
        assert got.tolist() == want
        P = many.predict_proba_many(X[X.columns[::-1]])  # (columns match by name)
        assert list(P.columns) == list(many.classes_) and (P.index == X.index).all()
        for (_, row), x in zip(P.iterrows(), dicts(X)):
            q = one.predict_proba_one(x)
            assert all(row[k] == pytest.approx(q[k], abs=1e-12) for k in q)


def test_weights_and_unknown_columns():
    X, score = frames(2)
    y = pd.Series(score > 0)
    w = pd.Series(np.linspace(0.5, 2.0, len(X)))
    one, many = olearn.make("pa1"), olearn.make("pa1")
    for x, t, wi in zip(dicts(X), y, w):
        one.learn_one(x, t, w=wi)
    many.learn_many(X, y, w=w)
    Z = X.assign(unseen=1e3)  # a column never learned is ignored, as a dict's unknown key
    np.testing.assert_array_equal(many.predict_many(Z).to_numpy(),
                                  [one.predict_one(x) for x in dicts(X)])


def test_fresh_model_and_bad_input():
    X, score = frames(3, n=10)
    m = olearn.make("pa1")
    assert m.predict_many(X).tolist() == [m.predict_one(x) for x in dicts(X)]
    with pytest.raises(TypeError, match="takes a DataFrame"):
        m.learn_many(X.to_numpy(), score > 0)
    with pytest.raises(ValueError, match="one label for each"):
        m.learn_many(X, pd.Series([True, False]))
    with pytest.raises(ValueError, match="must hold numbers"):
        m.learn_many(X.assign(f0="text"), pd.Series(score > 0))
    m.learn_many(X[["f0", "f1"]], pd.Series(score > 0))
    before = (list(m.vocabulary_), {k: a.copy() for k, a in m.state_.items()})
    with pytest.raises(ValueError):  # a bad weight: nothing learned, no column added
        m.learn_many(X, pd.Series(score > 0), w=pd.Series(-np.ones(len(X))))
    assert list(m.vocabulary_) == before[0]
    assert all(np.array_equal(a, before[1][k]) for k, a in m.state_.items())
    with pytest.raises(AttributeError, match="not a classifier"):
        olearn.make("pa1-reg").predict_proba_many(X)


def test_scikit_learn_feature_names():
    X, score = frames(4)
    y = (score > 0).astype(int)
    m = olearn.make("arow")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ("fitted without feature names" was issue 44's)
        m.fit(X, y)
        first = m.predict(X)
    assert list(m.feature_names_in_) == list(X.columns)
    shuffled = X[["f3", "f1", "f0", "f4", "f2"]]
    np.testing.assert_array_equal(m.predict_many(shuffled).to_numpy(), first)
    with pytest.raises(ValueError, match=r"not those the model was fitted with \(missing "
                                         r"'f2'; not seen in fit 'g'\)"):
        m.predict_many(X.drop(columns="f2").assign(g=0.0))
    ref = olearn.make("arow").fit(X, y)
    m.learn_many(shuffled, pd.Series(y))
    ref.partial_fit(X, y)
    np.testing.assert_array_equal(m.decision_function(X), ref.decision_function(X))


def test_unlabelled_and_wrapper():
    from olearn.cluster import KMeans
    from olearn.multiclass import OneVsRest
    X, score = frames(5, n=60)
    one, many = KMeans(n_clusters=3), KMeans(n_clusters=3)
    for x in dicts(X):
        one.learn_one(x)
    many.learn_many(X)
    np.testing.assert_allclose(many.score_many(X).to_numpy(dtype=float),
                               [one.score_one(x) for x in dicts(X)])
    y = pd.Series(np.digitize(score, [-0.5, 0.5]))
    one, many = OneVsRest(olearn.make("pa1")), OneVsRest(olearn.make("pa1"))
    for x, t in zip(dicts(X), y):
        one.learn_one(x, t)
    many.learn_many(X, y)
    assert many.predict_many(X).tolist() == [one.predict_one(x) for x in dicts(X)]


def test_pandas_not_imported_by_olearn():
    code = ("import sys, olearn; m = olearn.make('pa1'); m.learn_one({'a': 1.0}, True); "
            "m.predict_one({'a': 1.0}); print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
