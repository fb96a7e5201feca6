"""The models without a target (``target = "none"``) through the protocol's generic
checks (``tests/generic_unlabelled.py``): every registered one
(``olearn.registry.UNLABELLED_MODELS``) and the decomposition classes."""
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import olearn
from olearn import registry
from generic_unlabelled import check_unlabelled


def _rows(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(X.shape) < 0.3] = 0.0
    return X


@pytest.mark.parametrize("name", registry.unlabelled_names())
def test_registered_unlabelled_models_pass_the_generic_checks(name, tmp_path):
    check_unlabelled(lambda: olearn.make(name), _rows(), tmp_path)


@pytest.mark.parametrize("name", registry.unlabelled_names())
def test_more_outputs_than_features_pass_too(name, tmp_path):
    # (k-means with 6 centres over 2 features: an axis sized by a parameter, not "d")
    params = {"n_clusters": 6} if "n_clusters" in olearn.make(name).get_params() else {}
    check_unlabelled(lambda: olearn.make(name, **params), _rows(d=2), tmp_path)


def test_every_unlabelled_class_is_registered():
    table = {where for where, _ in registry.UNLABELLED_MODELS.values()}
    found = set()
    for package in registry.UNLABELLED_PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__, package + "."):
            module = importlib.import_module(info.name)
            for attr, obj in vars(module).items():
                if inspect.isclass(obj) and obj.__module__ == info.name \
                        and not attr.startswith("_"):
                    found.add(f"{info.name}:{attr}")
    assert found == table, f"registry.UNLABELLED_MODELS lacks {sorted(found - table)}"
    for name in registry.unlabelled_names():
        assert olearn.tags(olearn.make(name)).target == "none"
        assert name not in registry.names()  # (the labelled learners' list)


def test_a_target_is_one_of_the_declared_shapes():
    from olearn.protocol import TARGETS, target_of

    class Odd:
        target = "tree"
    assert "none" in TARGETS and "labels" in TARGETS and "sequence" in TARGETS
    with pytest.raises(TypeError, match="Odd.target = 'tree'"):
        target_of(Odd)


# ---------------------------------------------------------------- drift detectors
ROUND3 = Path(__file__).parent / "data" / "round3_unlabelled"
DETECTORS = {"adwin": "v", "ddm": "e", "eddm": "e", "page_hinkley": "v"}


def _detector(name):
    from olearn import drift
    return drift.make(name.replace("_", "-"))


@pytest.mark.parametrize("name", sorted(DETECTORS))
def test_round3_detector_files_load_and_go_on_as_before(name):
    """Files saved by round 3's code (arrays state0, state1, ...) load, and the detector
    flags the rest of the stream as round 3's did (flags recorded then)."""
    expected = np.load(ROUND3 / "expected.npz")
    det = olearn.load(ROUND3 / f"{name}.olearn")
    values = expected[DETECTORS[name]][700:]
    np.testing.assert_array_equal(det.detect(values), expected[name])
    assert det.n_ == 1000


@pytest.mark.parametrize("name", sorted(DETECTORS))
def test_detectors_on_the_protocol(name, tmp_path):
    from olearn.protocol import CannotMixError
    rng = np.random.default_rng(1)
    values = (rng.random(600) < np.r_[np.full(300, 0.1), np.full(300, 0.5)]).astype(float)
    if DETECTORS[name] == "v":
        values = values * 4.0 + rng.normal(size=600)
    t = olearn.tags(_detector(name))
    assert t.target == "none" and t.one_example and not t.sparse_input
    # detect = the update loop; learn_one = update; stop at the first drift
    one = _detector(name)
    flags = []
    for v in values:
        one.learn_one(v)
        flags.append(2 if one.drift_detected else 1 if one.warning_detected else 0)
    many = _detector(name)
    got = many.detect(values)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, flags)
    assert (got == 2).any(), "the stream should hold a drift"
    first = int(np.flatnonzero(got == 2)[0])
    stopped = _detector(name).detect(values, stop=True)
    assert len(stopped) == first + 1 and stopped[-1] == 2
    # state: named by the slots, round trip through a file, tampering refused in one line
    meta, arrays = many.export_state()
    assert sorted(arrays) == sorted(f"state/{s.name}" for s in many.slots)
    olearn.save(many, tmp_path / "d.olearn")
    back = olearn.load(tmp_path / "d.olearn")
    for k, a in back.export_state()[1].items():
        np.testing.assert_array_equal(a, arrays[k])
    np.testing.assert_array_equal(back.detect(values), many.detect(values))
    from generic_unlabelled import _refused
    for key, a in arrays.items():
        short = key.rpartition("/")[2]
        _refused(many, meta, {**arrays, key: a[..., :-1]}, tmp_path, short)
        if a.dtype.kind == "f":
            nan = a.copy()
            nan.flat[0] = np.nan
            _refused(many, meta, {**arrays, key: nan}, tmp_path, short)
    with pytest.raises(CannotMixError, match="record of its own stream"):
        olearn.mix([many, back])
    assert olearn.mix([many]) is not many
    assert many.widen(5) is None


# ---------------------------------------------------------------- decomposition
def _decompositions():
    from olearn.decomposition import IncrementalSVD, OnlinePCA
    # (block_size=1: a block rule gives one model whatever the chunks only row by row)
    return {"isvd": lambda: IncrementalSVD(rank=3, block_size=1),
            "pca": lambda: OnlinePCA(n_components=2, block_size=1),
            "oja": lambda: OnlinePCA(n_components=2, method="oja", block_size=1)}


@pytest.mark.parametrize("name", ["isvd", "pca"])
def test_decompositions_pass_the_generic_checks(name, tmp_path):
    check_unlabelled(_decompositions()[name], _rows(d=5), tmp_path)


def test_oja_passes_the_generic_checks_but_dicts(tmp_path):
    from generic_unlabelled import (check_fit_is_reset, check_input_paths_agree,
                                    check_loaded_files_are_validated, check_mix,
                                    check_state_round_trip, check_widening)
    make, X = _decompositions()["oja"], _rows(d=5)
    check_input_paths_agree(make, X, dicts=False)
    check_fit_is_reset(make, X)
    check_state_round_trip(make, X, tmp_path)
    check_loaded_files_are_validated(make, X, tmp_path)
    check_widening(make, X)
    check_mix(make, X)
    with pytest.raises(ValueError, match="learn from array rows, not dicts"):
        make().learn_one({"a": 1.0})


@pytest.mark.parametrize("name", ["isvd", "pca", "oja"])
def test_round3_decomposition_files_load_and_go_on_as_before(name):
    """Round 3's files (metadata ``fitted``, arrays V of the current rank) load; the
    model learns on and transforms as round 3's did (recorded then)."""
    expected = np.load(ROUND3 / "expected.npz")
    m = olearn.load(ROUND3 / f"{name}.olearn")
    assert m.n_samples_seen_ == 50 and m.n_features_in_ == 6
    m.partial_fit(expected["X2"])
    np.testing.assert_allclose(np.abs(m.transform(expected["X2"])), np.abs(expected[name]),
                               rtol=1e-10, atol=1e-10)


def test_predict_learn_gives_coordinates_before_each_block():
    from olearn.decomposition import IncrementalSVD
    X = _rows(n=30, d=5)
    m = IncrementalSVD(rank=3, block_size=10)
    got = m.predict_learn(X)
    ref = IncrementalSVD(rank=3, block_size=10).partial_fit(X[:10])
    np.testing.assert_array_equal(got[:10], 0.0)
    np.testing.assert_allclose(got[10:20], ref.transform(X[10:20]), rtol=0, atol=1e-12)
    assert got.shape == (30, 3)


def test_scikit_learn_checks_pass_for_a_clusterer_and_the_decompositions():
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    from olearn.cluster import KMeans
    from olearn.decomposition import IncrementalSVD, OnlinePCA
    for est in (KMeans(n_clusters=3), IncrementalSVD(rank=2), OnlinePCA(n_components=1)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = check_estimator(est, on_fail=None,
                                      expected_failed_checks=olearn.expected_failed_checks(est))
        failed = [r["check_name"] for r in results if r["status"] == "failed"]
        assert not failed, f"{type(est).__name__}: {failed}"


@pytest.mark.parametrize("name", ["uniclass", "hst", "ocsvm", "loda"])
def test_a_detectors_score_many_is_score_one_of_each_row(name):
    """``score_many(X)`` (what the service's ``/score`` answers) is ``score_one`` row by
    row, and minus ``score_samples`` up to the detector's offset."""
    params = {"window_size": 20} if name == "hst" else {}
    det = olearn.make(name, **params)
    X = _rows(80, 3)
    det.partial_fit(X[:60])
    many = det.score_many(X[60:])
    ones = [det.score_one(dict(enumerate(row))) for row in X[60:]]
    np.testing.assert_allclose(many, ones, rtol=1e-12, atol=1e-12)
    shift = -det.score_samples(X[60:]) - many
    np.testing.assert_allclose(shift, shift[0], atol=1e-12)
