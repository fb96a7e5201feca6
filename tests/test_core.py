"""The core contract, for every registered learner: equivalences of the input paths,
the online protocol, labels, persistence, the compiled-kernel cache, import time."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier

import generic
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


_state = generic.state_of
_assert_same_state = generic.assert_same_state


# the generic checks of the model protocol (tests/generic.py), over every learner
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", PATH_NAMES)
def test_input_paths_agree(name, n_classes):
    """learn_one loop = dense partial_fit = CSR partial_fit = chunked = predict_learn."""
    est = olearn.make(name)
    if n_classes > 2 and not is_classifier(est):
        pytest.skip("regressors have no classes")
    if not isinstance(est, olearn.base.OnlineLearner):
        pytest.skip("an ensemble weighs its members by their losses, which differ one "
                    "example at a time until both classes are known (the base's "
                    "documented difference; its members pass this test)")
    generic.check_input_paths_agree(est, n_classes)


@pytest.mark.parametrize("name", PATH_NAMES)
def test_progressive_predictions_are_pre_update(name):
    generic.check_progressive_predictions_are_pre_update(olearn.make(name))


@pytest.mark.parametrize("name", NAMES)
def test_fit_is_reset_then_epochs(name):
    generic.check_fit_is_reset_then_epochs(olearn.make(name))


@pytest.mark.parametrize("name", NAMES)
def test_save_load_and_pickle_round_trip(name, tmp_path):
    generic.check_state_round_trip(olearn.make(name), tmp_path / "m.olm")
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
    generic.check_bad_input_is_refused(olearn.make(name))


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
    # two entry points (binary, multiclass), each compiled once for dense and CSR rows
    # alike (a dense batch goes as CSR chunks: olearn._rows.run_chunks)
    hits, misses = map(int, _run(code, env).split())
    assert (hits, misses) == (0, 2)
    hits, misses = map(int, _run(code, env).split())
    assert (hits, misses) == (2, 0)
    assert any(p.name.startswith("numba-") for p in tmp_path.iterdir())


def test_public_functions_stay_functions():
    """``olearn.evaluate.compare`` is the function before and after its module loads."""
    import olearn.evaluate
    import olearn.evaluate.compare  # noqa: F401
    import olearn.evaluate.regret  # noqa: F401
    for name in ("compare", "regret", "mistake_bound", "progressive"):
        assert callable(getattr(olearn.evaluate, name)), name
    assert callable(olearn.datasets.load) and callable(olearn.make)
