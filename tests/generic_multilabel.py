"""The protocol's generic checks for models of label sets (``target = "labels"``),
asked through the protocol only (``export_state``, ``olearn.tags``, ``widen``,
``olearn.mix``, the public calls), as ``generic.py`` asks them of the single-label
learners and ``generic_unlabelled.py`` of the models without a target.

``check_multilabel(make, X, Y, tmp_path)`` runs them all on a model factory ``make()``,
rows ``X`` (dense float64) and their (n, L) indicator ``Y``; each check is also a
function of its own: the input paths agree (dense, CSR, chunks, label sets with their
classes declared, one row at a time as arrays; dicts predict as arrays), progressive
predictions are pre-update, ``fit`` is a reset, state and file round trips, tampered
files refused in one line, bad input refused with nothing changed, cloning (scikit-
learn's ``clone``, ``copy``, pickle), widening, ``mix``, and threads sharing a model.
"""
import copy
import pickle
import threading

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

import olearn
from generic_unlabelled import assert_same

TOL = 1e-10


def _sets(Y):
    return [np.flatnonzero(r).tolist() for r in Y]


def check_input_paths_agree(make, X, Y):
    """dense = CSR = chunks of 7 = label sets (classes declared) = one row at a time."""
    ref = make().partial_fit(X, Y)
    tags = olearn.tags(ref)
    assert tags.target == "labels" and tags.task == "classifier"
    if tags.sparse_input:
        assert_same(ref, make().partial_fit(sp.csr_matrix(X), Y), TOL, "CSR")
    m = make()
    for a in range(0, len(X), 7):
        m.partial_fit(X[a:a + 7], Y[a:a + 7])
    assert_same(ref, m, TOL, "chunks of 7")
    L = Y.shape[1]
    assert_same(ref, make().partial_fit(X, _sets(Y), classes=list(range(L))), TOL,
                "label sets")
    if tags.one_example:
        m = make()
        for x, y in zip(X, Y):
            m.learn_one(x, y)
        assert_same(ref, m, TOL, "learn_one(array, indicator row)")
        m = make()
        for x, y in zip(X, Y):
            m.learn_one({j: float(v) for j, v in enumerate(x)}, np.asarray(y))
        got = [m.predict_one({j: float(v) for j, v in enumerate(x)}) for x in X[:20]]
        want = ref.predict(X[:20])
        assert [[d.get(j, False) for j in range(L)] for d in got] == \
            want.astype(bool).tolist(), "learn_one(dict)"


def check_progressive_predictions_are_pre_update(make, X, Y):
    """``predict_learn``'s row i is ``predict`` of the model that learned rows < i."""
    P = make().predict_learn(X, Y)
    m = make().partial_fit(X[:1], Y[:1])
    for i in range(1, 25):
        np.testing.assert_array_equal(P[i], m.predict(X[i:i + 1])[0], err_msg=f"row {i}")
        m.partial_fit(X[i:i + 1], Y[i:i + 1])


def check_fit_is_reset(make, X, Y):
    fresh = make().fit(X, Y)
    m = make().partial_fit(X[::-1] * 2.0, Y[::-1])
    assert_same(fresh, m.fit(X, Y), TOL, "fit after partial_fit")


def check_state_round_trip(make, X, Y, tmp_path):
    half = len(X) // 2
    m = make().partial_fit(X[:half], Y[:half])
    meta, arrays = m.export_state()
    back = type(m).from_state(m.get_params(deep=False), meta, arrays)
    assert_same(m, back, 0, "from_state")
    path = tmp_path / "model.olm"
    olearn.save(m, path)
    loaded = olearn.load(path)
    assert type(loaded) is type(m)
    assert_same(m, loaded, 0, "file")
    m.partial_fit(X[half:], Y[half:])
    loaded.partial_fit(X[half:], Y[half:])
    assert_same(m, loaded, 0, "learning after load")


def check_loaded_files_are_validated(make, X, Y, tmp_path):
    """A tampered array (a column cut, NaN, float32, an unknown one) is refused in one
    line naming it."""
    m = make().partial_fit(X, Y)
    meta, arrays = m.export_state()
    path = tmp_path / "good.olm"
    olearn.save(m, path)
    with np.load(path) as z:        # (the file's own metadata: nested models' too)
        import json
        doc = json.loads(str(z["__meta__"]))
    for name, a in arrays.items():
        if not isinstance(a, np.ndarray) or a.dtype.kind != "f" or a.ndim != 2 or not a.size:
            continue
        nan = a.copy()
        nan.flat[0] = np.nan
        for tampered in (a[:, :-1], a.astype(np.float32), nan):
            _refused_file(doc, {**arrays, name: tampered}, tmp_path, name.rpartition("/")[2])
    _refused_file(doc, {**arrays, "extra": np.zeros(2)}, tmp_path, "extra")


def _refused_file(doc, arrays, tmp_path, name):
    import json
    from olearn.persistence import ModelFileError
    path = tmp_path / "tampered.olm"
    with open(path, "wb") as f:
        np.savez(f, __meta__=np.array(json.dumps(doc)), **arrays)
    try:
        olearn.load(path)
    except ModelFileError as exc:
        assert "\n" not in str(exc) and name in str(exc), str(exc)
        return
    raise AssertionError(f"a file with a tampered array {name!r} loaded")


def check_bad_input_is_refused(make, X, Y):
    """One-line ValueErrors, and a refused batch changes nothing."""
    m = make().partial_fit(X[:20], Y[:20])
    before = m.export_state()[1]
    bad = X[20:30].copy()
    bad[3, 1] = np.nan
    for args in ((bad, Y[20:30]), (X[20:30, :-1], Y[20:30]), (X[20:30], Y[20:29]),
                 (X[20:30], Y[20:30] * 2), (X[20:30], "ab")):
        try:
            m.partial_fit(*args)
        except ValueError as exc:   # (NaN: scikit-learn's message, as every learner's)
            assert str(exc) and ("\n" not in str(exc) or "NaN" in str(exc)), str(exc)
        else:
            raise AssertionError(f"partial_fit took bad input {args[1]!r:.40}")
        after = m.export_state()[1]
        assert sorted(after) == sorted(before)
        for k in before:
            np.testing.assert_array_equal(after[k], before[k], err_msg=k)
    assert m.t_ == 20


def check_cloning(make, X, Y):
    """``clone`` is unfitted with equal parameters; ``copy.deepcopy`` and pickle are the
    model, and learn on independently of it."""
    m = make().partial_fit(X, Y)
    c = clone(m)
    assert not c.__sklearn_is_fitted__()
    mine, theirs = m.get_params(deep=False), c.get_params(deep=False)
    assert sorted(mine) == sorted(theirs)
    for key, value in mine.items():   # (a base model: a clone, of equal parameters)
        if hasattr(value, "get_params"):
            assert theirs[key] is not value and type(theirs[key]) is type(value)
            assert theirs[key].get_params() == value.get_params()
        else:
            assert theirs[key] == value, key
    assert_same(make().partial_fit(X, Y), c.partial_fit(X, Y), TOL, "clone")
    for other in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert_same(m, other, 0, "copy")
        other.partial_fit(X[:5], Y[:5])
        np.testing.assert_array_equal(m.predict(X), make().partial_fit(X, Y).predict(X))


def check_widening(make, X, Y):
    """Widened to more columns, a model goes on as one that saw them as zeros."""
    d = X.shape[1]
    more = np.random.default_rng(0).normal(size=(20, d + 2))
    m = make().partial_fit(X, Y)
    assert m.widen(d + 2) == d + 2
    m.partial_fit(more, Y[:20])
    wide = np.hstack([X, np.zeros((len(X), 2))])
    ref = make().partial_fit(np.vstack([wide, more]), np.vstack([Y, Y[:20]]))
    np.testing.assert_allclose(m.decision_function(more), ref.decision_function(more),
                               rtol=TOL, atol=TOL)


def check_mix(make, X, Y):
    from olearn.protocol import CannotMixError
    m = make().partial_fit(X, Y)
    np.testing.assert_allclose(olearn.mix([m]).decision_function(X), m.decision_function(X),
                               rtol=TOL, atol=TOL, err_msg="mix([m])")
    other = make().partial_fit(X[::-1], Y[::-1])
    try:
        mixed = olearn.mix([m, other])
    except CannotMixError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    assert mixed.__sklearn_is_fitted__()
    mixed.partial_fit(X[:5], Y[:5])


def check_threads_share_a_model(make, X, Y, n_threads=3):
    """Threads learning chunks of one model (with another predicting meanwhile): no
    error, every chunk learned once (``t_``), the state finite."""
    import sys
    m = make().partial_fit(X[:2], Y[:2])
    order, errors = [], []
    chunks = [(X[a:a + 5], Y[a:a + 5]) for a in range(2, len(X) - 4, 5)]
    lock = threading.Lock()
    learn = m.partial_fit

    def record(k):
        Xc, Yc = chunks[k]
        learn(Xc, Yc)
        with lock:
            order.append(k)

    def worker(ks):
        try:
            for k in ks:
                record(k)
        except Exception as exc:  # noqa: BLE001 (reported by the test)
            errors.append(exc)

    def reader():
        try:
            for _ in range(30):
                assert m.predict(X[:4]).shape[0] == 4
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=worker, args=(list(range(i, len(chunks),
                                                                    n_threads)),))
                   for i in range(n_threads)] + [threading.Thread(target=reader)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    assert m.t_ == 2 + sum(len(c[0]) for c in chunks)
    np.testing.assert_array_equal(np.sort(order), np.arange(len(chunks)))
    assert all(np.isfinite(a).all() for a in m.export_state()[1].values()
               if isinstance(a, np.ndarray) and a.dtype.kind == "f")


def check_multilabel(make, X, Y, tmp_path):
    """Every check above."""
    check_input_paths_agree(make, X, Y)
    check_progressive_predictions_are_pre_update(make, X, Y)
    check_fit_is_reset(make, X, Y)
    check_state_round_trip(make, X, Y, tmp_path)
    check_loaded_files_are_validated(make, X, Y, tmp_path)
    check_bad_input_is_refused(make, X, Y)
    check_cloning(make, X, Y)
    check_widening(make, X, Y)
    check_mix(make, X, Y)
    check_threads_share_a_model(make, X, Y)
