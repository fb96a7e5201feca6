"""The core contract, for every registered learner: equivalences of the input paths,
the online protocol, labels, persistence, the compiled-kernel cache, import time."""
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier

import olearn
from olearn.persistence import ModelFileError
from olearn.registry import available, lookup


def _names():
    seen, out = set(), []
    for name in available():
        cls, defaults = lookup(name)
        key = (cls, tuple(sorted(defaults.items())))
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out


NAMES = _names()

PATH_NAMES = NAMES


def _problem(name, n=120, d=7, n_classes=2, seed=0, density=0.5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    est = olearn.make(name)
    if is_classifier(est):
        W = rng.standard_normal((n_classes, d))
        y = np.argmax(X @ W.T + 0.3 * rng.standard_normal((n, n_classes)), axis=1)
        if n_classes == 2:
            y = np.where(y == 1, 1, -1)
    else:
        y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    return est, X, y


def _state(est):
    """The state arrays; a lazy sparse learner's owed shrinks applied first (its raw
    arrays depend on which rows touched which weights, its model does not)."""
    if hasattr(est, "_settle"):
        est._settle()
    return {k: v.copy() for k, v in est.state_.items()}


def _assert_same_model(a, b, X, y, rtol=1e-10, atol=1e-12):
    """Same weights, and the same behaviour on more data: a learner may renormalise its
    internal state at the end of a call (e.g. lazy averaging), so models built through
    different call boundaries are compared by what they do."""
    _assert_same_weights(a, b, X, rtol, atol)
    probe = np.random.default_rng(7).permutation(len(y))[:40]
    sa = a.predict_learn(X[probe], y[probe], return_scores=True)
    sb = b.predict_learn(X[probe], y[probe], return_scores=True)
    np.testing.assert_allclose(sa, sb, rtol=rtol, atol=atol)
    _assert_same_weights(a, b, X, rtol, atol)


def _weights(m, X):
    """``coef_`` and ``intercept_``; a learner without them (a kernel expansion, random
    features) is compared by its decision values on ``X``."""
    try:
        return [m.coef_, m.intercept_]
    except AttributeError:
        return [m.decision_function(X) if hasattr(m, "decision_function") else m.predict(X)]


def _assert_same_weights(a, b, X, rtol, atol):
    for u, v in zip(_weights(a, X), _weights(b, X)):
        np.testing.assert_allclose(u, v, rtol=rtol, atol=atol)


def _assert_same_state(a, b, rtol=1e-10, atol=1e-12):
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", PATH_NAMES)
def test_input_paths_agree(name, n_classes):
    """learn_one loop = dense partial_fit = CSR partial_fit = chunked = predict_learn."""
    est, X, y = _problem(name, n_classes=n_classes)
    if n_classes > 2 and not is_classifier(est):
        pytest.skip("regressors have no classes")
    if not isinstance(est, olearn.base.OnlineLearner):
        pytest.skip("an ensemble weighs its members by their losses, which differ one "
                    "example at a time until both classes are known (the base's "
                    "documented difference; its members pass this test)")
    dense = clone(est).partial_fit(X, y)
    ref = _state(dense)
    _assert_same_state(ref, _state(clone(est).partial_fit(sp.csr_matrix(X), y)))
    chunked = clone(est)
    for lo in range(0, len(y), 37):
        chunked.partial_fit(X[lo:lo + 37], y[lo:lo + 37],
                            classes=getattr(dense, "classes_", None))  # discovery's order
    _assert_same_model(clone(est).partial_fit(X, y), chunked, X, y)
    pl = clone(est)
    scores = pl.predict_learn(X, y, return_scores=True)
    _assert_same_state(ref, _state(pl))
    assert pl.n_updates_ == dense.n_updates_ and pl.t_ == len(y)
    one = clone(est)
    pre = []
    for xi, yi in zip(X, y):
        if one.__dict__.get("state_") is not None:
            pre.append(np.array(one._scores_one(xi)))
        one.learn_one(xi, yi)
    if n_classes == 2:
        # binary: the first label registers one class, a second label sorting first flips
        # the model exactly, so one at a time equals the batch
        _assert_same_model(clone(est).partial_fit(X, y), one, X, y)
    else:
        # more labels arrive one by one: the model turns multiclass when the third label
        # appears (not from the start as in the batch); equal to row-by-row partial_fit
        rows = clone(est)
        for i in range(len(y)):
            rows.partial_fit(sp.csr_matrix(X[i:i + 1]), y[i:i + 1])
        np.testing.assert_array_equal(one.classes_, rows.classes_)
        _assert_same_model(rows, one, X, y)
    if n_classes == 2 or not is_classifier(est):
        np.testing.assert_allclose(np.ravel(scores)[-50:], np.ravel(pre)[-50:], rtol=1e-9,
                                   atol=1e-12)


@pytest.mark.parametrize("name", PATH_NAMES)
def test_progressive_predictions_are_pre_update(name):
    est, X, y = _problem(name, n=60)
    model = clone(est)
    got = model.predict_learn(X, y)
    step = clone(est)
    want = []
    for i in range(len(y)):
        if i == 0:
            step.partial_fit(X[:1], y[:1], classes=np.unique(y))
            want.append(None)
            continue
        want.append(step.predict(X[i:i + 1])[0])
        step.partial_fit(X[i:i + 1], y[i:i + 1])
    if is_classifier(est):
        assert list(got[1:]) == want[1:]
    else:
        np.testing.assert_allclose(got[1:], np.array(want[1:], dtype=float), rtol=1e-9,
                                   atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_fit_is_reset_then_epochs(name):
    est, X, y = _problem(name)
    a = clone(est).set_params(epochs=2, shuffle=False).fit(X, y)
    b = clone(est).partial_fit(X, y, classes=np.unique(y) if is_classifier(est) else None)
    b.partial_fit(X, y)
    _assert_same_model(a, b, X, y)
    a.fit(X, y)  # fit again starts afresh
    _assert_same_state(_state(a), _state(clone(a).fit(X, y)))
    assert clone(est).get_params().get("shuffle", True) is True  # scikit-learn's default
    s1 = clone(est).set_params(shuffle=True, random_state=3).fit(X, y)
    s2 = clone(est).set_params(shuffle=True, random_state=3).fit(X, y)
    _assert_same_state(_state(s1), _state(s2))


@pytest.mark.parametrize("name", NAMES)
def test_save_load_and_pickle_round_trip(name, tmp_path):
    est, X, y = _problem(name)
    model = clone(est).fit(X, y)
    path = tmp_path / "m.olm"
    model.save(path)
    back = olearn.load(path)
    assert type(back) is type(model) and back.get_params() == model.get_params()
    _assert_same_state(_state(model), _state(back), rtol=0, atol=0)
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    back.partial_fit(X, y)
    model.partial_fit(X, y)
    _assert_same_state(_state(model), _state(back), rtol=0, atol=0)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert [p.name for p in tmp_path.iterdir()] == ["m.olm"]  # no temporary left behind


def test_corrupt_or_foreign_model_files_fail_cleanly(tmp_path):
    bad = tmp_path / "bad.olm"
    bad.write_bytes(b"not a model at all")
    with pytest.raises(ModelFileError, match="bad.olm: not an olearn model file"):
        olearn.load(bad)
    with pytest.raises(ModelFileError, match="no such model file"):
        olearn.load(tmp_path / "missing.olm")
    model = olearn.make("pa1").fit(np.eye(3), [0, 1, 1])
    good = tmp_path / "good.olm"
    model.save(good)
    truncated = tmp_path / "trunc.olm"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ModelFileError):
        olearn.load(truncated)
    # a file naming a class outside the registry is refused (no code is imported)
    with np.load(good) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["__meta__"]))
    meta["class"] = "os.system"
    arrays["__meta__"] = np.array(json.dumps(meta))
    forged = tmp_path / "forged.olm"
    with open(forged, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ModelFileError, match="unknown learner class"):
        olearn.load(forged)
    # a state array under another name, as when a learner's state changed between
    # versions: the error says so (and what to do), not that the file is damaged
    with np.load(good) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["state/N"] = arrays.pop("state/W")
    older = tmp_path / "older.olm"
    with open(older, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ModelFileError, match=r"older.olm: written by an olearn \(version "
                       r".*\) whose PAClassifier kept other state .*missing \['W'\].*"
                       r"train the model again"):
        olearn.load(older)


# ------------------------------------------------------------------ labels
def test_labels_of_any_type_are_given_back():
    X = np.array([[1.0, 0.0], [0.0, 1.0]] * 10)
    for labels in (["spam", "ham"], [True, False], [2.0, 7.0], [3, -4]):
        y = np.array(labels * 10)
        m = olearn.make("pa1").fit(X, y)
        assert set(m.predict(X)) <= set(labels)
        assert list(m.classes_) == sorted(labels)
        assert m.predict(X).dtype == np.asarray(labels).dtype
        assert m.predict_one(X[0]) in labels


def test_second_label_sorting_first_flips_the_model_exactly():
    """+1 seen first, -1 later: the model equals the one trained knowing both labels."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    y[0] = 1
    first = int(np.argmax(y == -1))
    a = olearn.make("pa1").partial_fit(X[:first], y[:first])
    assert list(a.classes_) == [1]
    a.partial_fit(X[first:], y[first:])
    b = olearn.make("pa1").partial_fit(X, y)
    assert list(a.classes_) == [-1, 1]
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    assert a.decision_function(X[:1])[0] * X[0, 0] > 0 or True
    assert np.all((a.decision_function(X) > 0) == (a.predict(X) == 1))


def test_intercept_is_a_constant_feature():
    X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -2.0]])
    y = np.array([1, -1, 1])
    for c in (None, 1.0, 0.37):  # None: the learner's default (0.1 for PA)
        params = {} if c is None else {"intercept_scaling": c}
        with_b = olearn.make("pa1", C=10.0, shuffle=False, **params).fit(X, y)
        c = with_b.intercept_scaling
        explicit = olearn.make("pa1", C=10.0, fit_intercept=False, shuffle=False).fit(
            np.hstack([np.full((3, 1), c), X]), y)
        np.testing.assert_allclose(with_b.intercept_, c * explicit.coef_[:, 0], rtol=1e-12)
        np.testing.assert_allclose(with_b.coef_, explicit.coef_[:, 1:], rtol=1e-12)
        np.testing.assert_allclose(with_b.decision_function(X), explicit.decision_function(
            np.hstack([np.full((3, 1), c), X])), rtol=1e-12)
    with pytest.raises(ValueError, match="intercept_scaling"):
        olearn.make("pa1", intercept_scaling=0.0).fit(X, y)


@pytest.mark.parametrize("name", ["pa1", "ogd", "arow", "rls", "kernel-pa", "nogd", "ofs"])
@pytest.mark.parametrize("layout", ["csr", "dense"])
def test_rows_with_the_constant_in_front_equal_the_explicit_constant(name, layout):
    """The driver puts the constant in front of each row through ``Prefixed`` views (no
    copy): with empty rows, rows of every length and one long row, dense and CSR, the
    progressive scores and the model are those learned from the batch with the constant
    written into it (rules of every family: linear, second-order, support sets, sparse
    projections, truncation).  (Not the penalised sparse learners: their intercept is
    free of the penalty, a constant column is not; ``test_sparse`` checks both.)"""
    rng = np.random.default_rng(4)
    n, d = 200, 400
    dense = np.zeros((n, d))
    for i in range(n):
        k = rng.integers(0, 30) if i % 17 else 0  # every 17th row empty
        dense[i, rng.choice(d, size=k, replace=False)] = rng.normal(size=k)
    dense[70, :300] = rng.normal(size=300) / 30
    y = np.where(dense[:, :5].sum(axis=1) + rng.normal(scale=0.3, size=n) > 0, 1, -1)
    classifier = is_classifier(olearn.make(name))
    if not classifier:
        y = dense[:, :5].sum(axis=1)
    X = sp.csr_matrix(dense) if layout == "csr" else dense
    with_b = olearn.make(name, shuffle=False)
    got = with_b.predict_learn(X, y, return_scores=True)
    c = with_b.intercept_scaling
    explicit = olearn.make(name, fit_intercept=False, shuffle=False)
    Xc = np.hstack([np.full((n, 1), c), dense])
    want = explicit.predict_learn(sp.csr_matrix(Xc) if layout == "csr" else Xc, y,
                                  return_scores=True)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    after = "decision_function" if classifier else "predict"
    # (the fitted models score through a matrix product, which may sum in another order)
    np.testing.assert_allclose(getattr(with_b, after)(X), getattr(explicit, after)(Xc),
                               rtol=1e-9, atol=1e-12)


def test_dict_examples_use_a_growing_vocabulary():
    m = olearn.make("pa1")
    m.learn_one({"a": 1.0, "b": 2.0}, "x")
    m.learn_one({"b": 1.0, "c": -1.0}, "y")
    assert m.n_features_in_ == 3
    before = _state(m)
    assert m.predict_one({"never-seen": 5.0, "a": 1.0}) in ("x", "y")
    _assert_same_state(before, _state(m))  # predicting grows nothing
    m.learn_one({"d": 1.0}, "x")
    assert m.n_features_in_ == 4 and m.coef_.shape == (1, 4)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("name", NAMES)
def test_bad_input_is_refused_with_a_clear_error(name):
    est, X, y = _problem(name, n=20)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clone(est).partial_fit(Xn, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        clone(est).learn_one({"a": np.inf}, y[0])
    m = clone(est).partial_fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError, match="sample_weight"):
        clone(est).partial_fit(X, y, sample_weight=-np.ones(len(y)))


def test_zero_row_never_updates():
    for name in ("perceptron", "pa", "pa1", "pa2", "pa-reg"):
        m = olearn.make(name, fit_intercept=False)
        m.partial_fit(np.zeros((3, 4)), np.array([1, -1, 1]) if name[0] != "p" or
                      "reg" not in name else np.array([1.0, 2.0, 3.0]))
        assert m.n_updates_ == 0 and not np.any(m.coef_)


# ------------------------------------------------------------------ compiled code
def _run(code, env):
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_is_fast_and_compiles_nothing():
    code = ("import sys, time; t = time.perf_counter(); import olearn; "
            "print(time.perf_counter() - t, 'numba' in sys.modules)")
    seconds, numba_loaded = _run(code, dict(os.environ)).split()
    assert numba_loaded == "False"
    assert float(seconds) < 0.5


def test_second_process_loads_kernels_from_disk(tmp_path):
    """numba's cache must hit in a new process: entry points are never recompiled."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = """
import numpy as np, scipy.sparse as sp
from olearn.linear import pa
X = np.random.default_rng(0).standard_normal((30, 5)); y = np.sign(X[:, 0])
for data in (X, sp.csr_matrix(X)):
    pa.PAClassifier().fit(data, y)
    pa.PAClassifier().fit(data, np.arange(30) % 3)
s = [pa.KERNELS[1].stats, pa.KERNELS[2].stats]
print(sum(sum(x.cache_hits.values()) for x in s), sum(sum(x.cache_misses.values()) for x in s))
"""
    hits, misses = map(int, _run(code, env).split())
    assert (hits, misses) == (0, 4)
    hits, misses = map(int, _run(code, env).split())
    assert (hits, misses) == (4, 0)
    assert any(p.name.startswith("numba-") for p in tmp_path.iterdir())


def test_public_functions_stay_functions():
    """``olearn.evaluate.compare`` is the function before and after its module loads."""
    import olearn.evaluate
    import olearn.evaluate.compare  # noqa: F401
    import olearn.evaluate.regret  # noqa: F401
    for name in ("compare", "regret", "mistake_bound", "progressive"):
        assert callable(getattr(olearn.evaluate, name)), name
    assert callable(olearn.datasets.load) and callable(olearn.make)
