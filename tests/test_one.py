"""The one-example protocol (``predict_one``, ``learn_one``, ``predict_learn_one``,
``predict_proba_one``), ``fit``'s shuffling, divergence, and model files."""
import os
import stat

import numpy as np
import pytest
from sklearn.base import clone, is_classifier

import olearn
from olearn.base import DivergenceError
from olearn.persistence import ModelFileError
from olearn.registry import available, lookup

from generic import check_fused_one

# a few learners covering the state layouts: plain, averaged with an L2 scale,
# second order, regression (compiling every learner here would take minutes)
LEARNERS = [("pa1", {}), ("ogd", {"loss": "logistic", "average": True, "alpha": 1e-3}),
            ("perceptron", {}), ("arow", {}), ("pa-reg", {}),
            ("ogd-reg", {"alpha": 1e-3, "average": True})]


def _stream(classifier, n=80, d=6, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    if classifier:
        y = np.argmax(X @ rng.standard_normal((d, n_classes))
                      + 0.5 * rng.standard_normal((n, n_classes)), axis=1)
        y = np.array(["a", "b", "c", "d"])[y]
    else:
        y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    return X, y


def _as_dicts(X):
    return [{f"f{j}": float(v) for j, v in enumerate(row) if v != 0.0} for row in X]


@pytest.mark.parametrize("name", available())
def test_a_fresh_model_predicts_none_or_zero(name):
    cls, defaults = lookup(name)
    m = cls(**defaults)
    want = None if is_classifier(m) else 0.0
    assert m.predict_one({"a": 1.0}) == want
    assert m.predict_one(np.ones(3)) == want
    if hasattr(m, "predict_proba_one"):
        assert m.predict_proba_one({"a": 1.0}) == {}


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name,params", LEARNERS)
def test_predict_learn_one_is_predict_one_then_learn_one(name, params, n_classes):
    m = olearn.make(name, **params)
    if n_classes > 2 and not is_classifier(m):
        pytest.skip("regressors have no classes")
    X, y = _stream(is_classifier(m), n_classes=n_classes)
    fused, pair = check_fused_one(m, _as_dicts(X), y)
    np.testing.assert_allclose(fused.coef_, pair.coef_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,params", LEARNERS)
def test_predict_learn_one_equals_predict_learn(name, params):
    m = olearn.make(name, **params)
    X, y = _stream(is_classifier(m))
    batch = clone(m).predict_learn(X, y)
    one = clone(m)
    got = [one.predict_learn_one(xi, yi) for xi, yi in zip(X, y)]
    if is_classifier(m):
        assert got[0] is None  # no class known before the first example
        # A binary batch registers its labels before the pass, so until the stream has
        # shown both classes it predicts from the sign of the score, where one example
        # at a time can only name the one class it knows: equal from then on.
        both = next(i for i in range(1, len(y)) if len(set(y[:i])) == 2)
        assert all(g == y[0] for g in got[1:both])
        assert list(got[both:]) == list(batch[both:])
    else:
        np.testing.assert_allclose(got, batch, rtol=1e-9, atol=1e-12)


def test_predict_one_uses_the_lazy_state_on_the_row_only():
    """Averaged weights and an L2 scale: predict_one equals the batch prediction."""
    X, y = _stream(True, n=200, d=30)
    for params in ({"average": True}, {"alpha": 1e-2}, {"alpha": 1e-2, "average": True}):
        m = olearn.make("ogd", **params).partial_fit(X, y)
        for xi in X[:20]:
            assert m.predict_one(xi) == m.predict(xi[None])[0]
        r = olearn.make("ogd-reg", **params).partial_fit(X, X[:, 0])
        got = [r.predict_one(xi) for xi in X[:20]]
        np.testing.assert_allclose(got, r.predict(X[:20]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_predict_proba_one_sums_to_one(n_classes):
    X, y = _stream(True, n_classes=n_classes)
    m = olearn.make("ogd", loss="logistic")
    for xi, yi in zip(_as_dicts(X), y):
        m.learn_one(xi, yi)
    p = m.predict_proba_one(_as_dicts(X[:1])[0])
    assert set(p) == set(m.classes_) and sum(p.values()) == pytest.approx(1.0)
    want = m.predict_proba(m._one_matrix(_as_dicts(X[:1])[0]))[0]
    np.testing.assert_allclose([p[c] for c in m.classes_], want)
    # a margin learner (hinge loss): the logistic link of its margin (issue 44)
    h = olearn.make("ogd", loss="hinge")
    for xi, yi in zip(_as_dicts(X), y):
        h.learn_one(xi, yi)
    ph = h.predict_proba_one(_as_dicts(X[:1])[0])
    np.testing.assert_allclose([ph[c] for c in h.classes_],
                               h.predict_proba(h._one_matrix(_as_dicts(X[:1])[0]))[0])


def test_learn_one_reuses_the_predicted_row_only_when_unchanged():
    a, b = olearn.make("pa1"), olearn.make("pa1")
    for m in (a, b):
        m.learn_one({"x": 1.0, "y": -1.0}, 1)
        m.learn_one({"x": -1.0, "z": 2.0}, 0)
    x = {"x": 0.5, "y": 1.0}
    a.predict_one(x)
    x["y"] = -3.0  # changed between the prediction and the update
    a.learn_one(x, 0)
    b.learn_one({"x": 0.5, "y": -3.0}, 0)
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ------------------------------------------------------------------ fit shuffles
def test_fit_shuffles_by_default_reproducibly():
    X, y = _stream(True, n=60)
    m = olearn.make("pa1")
    assert m.get_params()["shuffle"] is True
    in_order = clone(m).partial_fit(X, y)
    a = clone(m).set_params(random_state=5).fit(X, y)
    b = clone(m).set_params(random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.allclose(a.coef_, in_order.coef_)
    kept = clone(m).set_params(shuffle=False).fit(X, y)
    np.testing.assert_array_equal(kept.coef_, in_order.coef_)
    assert m.get_params()["random_state"] == 0        # the default: the same fit twice
    same = [clone(m).fit(X, y).coef_ for _ in range(2)]
    np.testing.assert_array_equal(same[0], same[1])
    fresh = [clone(m).set_params(random_state=None).fit(X, y).coef_ for _ in range(3)]
    assert not all(np.array_equal(fresh[0], c) for c in fresh[1:])


# ------------------------------------------------------------------ divergence
def test_divergence_names_the_row():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3))
    X[20:] *= 1e100
    y = X[:, 0]
    m = olearn.make("ogd-reg", schedule="constant", eta=1.0)
    with pytest.raises(DivergenceError, match=r"OGDRegressor diverged at row 2\d of this batch") \
            as batch:
        m.partial_fit(X, y)
    # the row as fields, the message made from them
    assert batch.value.where == "batch" and 20 <= batch.value.row < 30
    assert f"at row {batch.value.row} of this batch" in str(batch.value)
    assert batch.value.learner == "OGDRegressor"
    one = olearn.make("ogd-reg", schedule="constant", eta=1.0)
    with pytest.raises(DivergenceError, match="diverged at example") as stream:
        for xi, yi in zip(X, y):
            one.learn_one(xi, yi)
    assert stream.value.where == "stream" and stream.value.row == one.t_
    assert f"example {one.t_ + 1} of the stream" in str(stream.value)
    shuffled = olearn.make("ogd-reg", schedule="constant", eta=1.0, random_state=0)
    with pytest.raises(DivergenceError, match="shuffled pass") as fit:
        shuffled.fit(X, y)
    assert fit.value.where == "X" and 0 <= fit.value.row < len(y)
    assert f"row {fit.value.row} of X (shuffled pass)" in str(fit.value)
    assert issubclass(DivergenceError, ValueError)
    import pickle
    again = pickle.loads(pickle.dumps(batch.value))
    assert (again.row, again.where, str(again)) == (batch.value.row, "batch", str(batch.value))
    assert batch.value.moved(100).row == batch.value.row + 100


def test_ogd_regressor_diverges_on_cpusmall_with_the_old_default(data_dir):
    """cpusmall's raw features (up to 2.5e6): the old default step (invsqrt, eta 0.1)
    diverges and says where; the default since round 4 (NAG, scale-free) does not."""
    from olearn.io import load_libsvm
    path = data_dir / "cpusmall" / "cpusmall.converted"
    if not path.exists():
        pytest.skip("cpusmall not found")
    X, y = load_libsvm(path)
    with pytest.raises(DivergenceError, match=r"diverged at row \d+ of this batch"):
        olearn.make("ogd-reg", schedule="invsqrt", eta=0.1).partial_fit(X, y)
    assert np.isfinite(olearn.make("ogd-reg").partial_fit(X, y).predict(X)).all()


# ------------------------------------------------------------------ model files
@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_saved_files_follow_the_umask(tmp_path, umask):
    model = olearn.make("pa1").partial_fit(np.eye(3), [0, 1, 1])
    old = os.umask(umask)
    try:
        model.save(tmp_path / "m.olm")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "m.olm").stat().st_mode)
    assert mode == 0o666 & ~umask


def test_a_file_that_is_not_a_model(tmp_path):
    rng = np.random.default_rng(0)
    for name, content in (("random.olm", rng.bytes(4000)), ("text.olm", b"hello\n")):
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ModelFileError, match="not an olearn model file") as err:
            olearn.load(tmp_path / name)
        assert "pickle" not in str(err.value)
    np.save(tmp_path / "array.npy", np.arange(3))
    with pytest.raises(ModelFileError, match="not an olearn model file"):
        olearn.load(tmp_path / "array.npy")
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    with pytest.raises(ModelFileError, match="not an olearn model file"):
        olearn.load(tmp_path / "other.npz")


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_the_one_row_buffer_follows_a_growing_vocabulary(fit_intercept):
    """The dict row written through the buffer's own name -> column map equals the
    model's vocabulary lookup: after the vocabulary grows, for rows longer than the
    buffer, for bool and integer values, and when a name is unknown (dropped)."""
    from olearn.base import OneRow
    rng = np.random.default_rng(5)
    m = olearn.make("pa1", fit_intercept=fit_intercept)
    b = int(fit_intercept)
    for i in range(300):
        n = 150 if i == 200 else int(rng.integers(1, 12))  # row 200 outgrows 64 entries
        names = rng.choice(400, size=n, replace=False)
        x = {f"f{k}": (True if k % 7 == 0 else int(k) if k % 5 == 0 else float(rng.normal()))
             for k in names}
        m.predict_learn_one(x, int(rng.integers(2)))
        grow = i % 2 == 0
        (indptr, idx, val), n_row = m._one_row(x, grow=grow)
        cols = [m.vocabulary_.index(k) + b for k in x]
        assert indptr[1] == n_row == len(x) + b
        assert idx[b:n_row].tolist() == cols
        assert val[b:n_row].tolist() == [float(v) for v in x.values()]
        if b:
            assert idx[0] == 0 and val[0] == m.intercept_scaling
    unseen = {"f1": 1.0, "never": 2.0}
    (indptr, idx, val), n_row = m._one_row(unseen, grow=False)
    assert n_row == b + ("f1" in m.vocabulary_)
    assert isinstance(m._row_buf, OneRow)


def test_a_bad_value_does_not_leave_a_stale_predicted_row():
    m = olearn.make("pa1")
    m.learn_one({"a": 1.0, "b": 2.0}, 1)
    m.learn_one({"a": -1.0, "b": 1.0}, 0)
    x = {"a": 0.5, "b": 1.0}
    m.predict_one(x)  # the buffer remembers x's row
    with pytest.raises(ValueError):
        m.predict_one({"a": 3.0, "b": float("nan")})
    m.learn_one(x, 1)  # x's row must be written again, not read from the buffer
    ref2 = olearn.make("pa1")
    ref2.learn_one({"a": 1.0, "b": 2.0}, 1)
    ref2.learn_one({"a": -1.0, "b": 1.0}, 0)
    ref2.learn_one({"a": 0.5, "b": 1.0}, 1)
    np.testing.assert_array_equal(m.coef_, ref2.coef_)


@pytest.mark.parametrize("classes", [["no", "yes"], ["no", "yes", "maybe"]])
def test_one_example_calls_refuse_bad_input_and_change_nothing(classes):
    """``learn_one`` and ``predict_learn_one`` check the example and the weight before
    they register the label (mark it seen) or learn: a refusal leaves the model as it
    was, and the next call goes on as if it had not happened."""
    m = olearn.make("pa1")
    m.partial_fit(np.eye(2), ["no", "no"], classes=classes)
    m.predict_learn_one({0: 1.0}, "no")
    before = (m.seen_.copy(), m.t_, m.n_updates_, m.coef_.copy())
    for x, w, match in (({0: "free"}, 1.0, "feature 0"),
                        ({0: float("inf")}, 1.0, "feature 0"),
                        ({0: 1.0}, -1.0, "weight"),
                        ({0: 1.0}, float("nan"), "weight")):
        for call in (m.predict_learn_one, m.learn_one):
            with pytest.raises(ValueError, match=match):
                call(x, "yes", sample_weight=w)
        np.testing.assert_array_equal(m.seen_, before[0])
        assert (m.t_, m.n_updates_) == before[1:3]
        np.testing.assert_array_equal(m.coef_, before[3])
    with pytest.raises(ValueError, match="not hashable"):
        m.predict_learn_one({0: 1.0}, ["yes"])
    assert m.predict_learn_one({0: -1.0, 1: 2.0}, "yes") == "no"
    assert m.seen_[list(m.classes_).index("yes")] == 1 and m.t_ == before[1] + 1


@pytest.mark.parametrize("name", ["pa1", "pa-reg", "arow", "ogd", "ftrl", "fogd",
                                  "kernel-pa", "ofs", "scw"])
def test_a_dict_model_grown_past_its_vocabulary_saves_and_loads(name, tmp_path):
    """A dict-fed model grows its state arrays by doubling, ahead of its vocabulary
    (64 weights for 40 features): the file keeps the weights of its width only, and the
    model loaded predicts as the one saved and goes on learning (it was refused before:
    "W has shape (1, 64), the model needs (1, 41)")."""
    m = olearn.make(name)
    classifier = is_classifier(m)
    for j in range(40):
        m.learn_one({f"a{j}": 1.0, "b": 0.5}, ("x" if j % 2 else "y") if classifier else j / 40)
    assert max(a.shape[-1] for a in m.state_.values()) > m.n_features_in_ + 1 or \
        name in ("fogd", "kernel-pa")          # (their arrays are not over the input width)
    m.save(tmp_path / "m.olm")
    back = olearn.load(tmp_path / "m.olm")
    rows = [{f"a{j}": 1.0, "b": 0.5} for j in range(45)] + [{"b": 2.0}, {"zzz": 1.0}]
    assert [back.predict_one(x) for x in rows] == [m.predict_one(x) for x in rows]
    back.learn_one({"new": 1.0, "a3": 1.0}, "x" if classifier else 0.5)
    m.learn_one({"new": 1.0, "a3": 1.0}, "x" if classifier else 0.5)
    assert [back.predict_one(x) for x in rows] == [m.predict_one(x) for x in rows]


def test_array_examples_take_the_compiled_writer_and_equal_the_general_path():
    """An array example (float64, 1-D, contiguous, the model's width) is written into
    the one-row buffer by one compiled call (``OneRow.put_dense``): the same state as the
    same examples given as lists (the general path), zeros skipped, and a NaN or an
    infinity still refused with the general path's error, the model unchanged."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 6))
    X[X < -0.5] = 0.0
    y = (X[:, 0] > 0).astype(int)
    a, b = olearn.make("pa1"), olearn.make("pa1")
    for i in range(60):
        a.learn_one(X[i], y[i])
        b.learn_one(X[i].tolist(), y[i])
    assert a._row_buf.n == 1 + np.count_nonzero(X[59])  # (the intercept, the non-zeros)
    for k in a.state_:
        np.testing.assert_array_equal(a.state_[k], b.state_[k])
    before = {k: v.copy() for k, v in a.state_.items()}
    for bad in (np.nan, np.inf):
        x = X[0].copy()
        x[2] = bad
        with pytest.raises(ValueError, match="NaN or infinity"):
            a.learn_one(x, 1)
    for k in a.state_:
        np.testing.assert_array_equal(a.state_[k], before[k])


@pytest.mark.parametrize("labels", [[np.True_, np.False_], [np.int64(3), np.int64(-1)],
                                    ["spam", "ham"]])
def test_the_class_map_holds_plain_values_and_finds_numpy_labels(labels):
    # numpy scalars as keys made every one-example label lookup a numpy comparison
    m = olearn.make("pa1")
    rows = [{"a": 1.0, "b": 0.5}, {"a": -1.0, "c": 2.0}] * 3
    for x, t in zip(rows, labels * 3):
        m.learn_one(x, t)
    assert all(type(k) in (bool, int, str) for k in m._class_index)
    assert sorted(m._class_index.values()) == [0, 1]
    for t in labels:  # a numpy label and its plain value find the same class
        plain = t.item() if isinstance(t, np.generic) else t
        assert m._class_index[t] == m._class_index[plain]
    assert m.predict_one(rows[0]) in set(labels)
    m2 = olearn.make("pa1").partial_fit(np.array([[1.0, 0.5, 0.0], [-1.0, 0.0, 2.0]] * 3),
                                        np.array(labels * 3))
    assert all(type(k) in (bool, int, str) for k in m2._class_index)
