"""The protocol's generic checks for models without a target (``target = "none"``:
``partial_fit(X)``, ``learn_one(x)``), asked through the protocol and the tags only:
``export_state`` (never ``state_``), ``olearn.tags``, ``widen``, ``olearn.mix``.

``check_unlabelled(make, X)`` runs them all on a model factory ``make()`` and rows
``X`` (dense, float64); each check is also a function of its own.  A model whose
answers are exact over input layouts and chunks is compared to ``EXACT``; one whose
update is by blocks (``chunked=False``) skips the chunk check.
"""
import numpy as np
import scipy.sparse as sp

import olearn
from olearn.persistence import ModelFileError

EXACT = 1e-12


def _arrays(model):
    """The model's saved arrays (the protocol's ``export_state``), by name."""
    return model.export_state()[1]


def assert_same(a, b, tol=EXACT, what=""):
    """Two models hold the same state (every saved array within ``tol``)."""
    A, B = _arrays(a), _arrays(b)
    assert sorted(A) == sorted(B), f"{what}: arrays {sorted(A)} != {sorted(B)}"
    for name in A:
        if np.asarray(A[name]).dtype.kind in "fc":
            np.testing.assert_allclose(A[name], B[name], rtol=tol, atol=tol,
                                       err_msg=f"{what}: {name}")
        else:
            np.testing.assert_array_equal(A[name], B[name], err_msg=f"{what}: {name}")


def check_input_paths_agree(make, X, chunked=True, dicts=True):
    """dense = CSR (when tagged sparse_input) = chunks = one row at a time (arrays, and
    dicts keyed by column, when tagged one_example)."""
    ref = make().partial_fit(X)
    tags = olearn.tags(ref)
    if tags.sparse_input:
        assert_same(ref, make().partial_fit(sp.csr_matrix(X)), what="CSR")
    if chunked:
        m = make()
        for a in range(0, len(X), 7):
            m.partial_fit(X[a:a + 7])
        assert_same(ref, m, what="chunks of 7")
    if tags.one_example:
        m = make()
        for row in X:
            m.learn_one(row)
        assert_same(ref, m, what="learn_one(array)")
    if tags.one_example and dicts:
        m = make()
        for row in X:
            m.learn_one({j: float(v) for j, v in enumerate(row)})
        assert_same(ref, m, what="learn_one(dict)")


def check_fit_is_reset(make, X):
    """``fit`` forgets what came before: it equals a fresh model's ``fit``."""
    fresh = make().fit(X)
    m = make().partial_fit(X[::-1] * 2.0)
    assert_same(fresh, m.fit(X), what="fit after partial_fit")
    assert_same(fresh, m.fit(X), what="fit twice")


def check_state_round_trip(make, X, tmp_path):
    """export_state/from_state and a file on disk give the same model, which goes on
    learning as the original."""
    m = make().partial_fit(X[: len(X) // 2])
    meta, arrays = m.export_state()
    back = type(m).from_state(m.get_params(), meta, arrays)
    assert_same(m, back, tol=0, what="from_state")
    path = tmp_path / "model.olearn"
    olearn.save(m, path)
    loaded = olearn.load(path)
    assert type(loaded) is type(m)
    assert_same(m, loaded, tol=0, what="file")
    m.partial_fit(X[len(X) // 2:])
    loaded.partial_fit(X[len(X) // 2:])
    assert_same(m, loaded, tol=0, what="learning after load")


def check_loaded_files_are_validated(make, X, tmp_path):
    """A file whose arrays were tampered with (a dimension cut, NaN, another dtype, an
    unknown array) is refused in one line naming the array."""
    m = make().partial_fit(X)
    meta, arrays = m.export_state()
    for name in arrays:
        a = arrays[name]
        if not isinstance(a, np.ndarray) or a.dtype.kind != "f" or not a.size:
            continue
        bad = [a[:-1] if a.ndim == 1 else a[:, :-1], a.astype(np.float32)]
        nan = a.copy()
        nan.flat[0] = np.nan
        bad.append(nan)
        for tampered in bad:
            _refused(m, meta, {**arrays, name: tampered}, tmp_path, name.rpartition("/")[2])
    _refused(m, meta, {**arrays, "state/extra": np.zeros(2)}, tmp_path, "extra")


def _refused(model, meta, arrays, tmp_path, name):
    import json
    doc = {"format": "olearn-model", "format_version": 1, "olearn_version": "x",
           "numpy_version": np.__version__,
           "class": f"{type(model).__module__}.{type(model).__qualname__}",
           "params": model.get_params(deep=False), "fitted": meta}
    path = tmp_path / "tampered.olearn"
    with open(path, "wb") as f:
        np.savez(f, __meta__=np.array(json.dumps(doc)), **arrays)
    try:
        olearn.load(path)
    except ModelFileError as exc:
        message = str(exc)
        assert "\n" not in message and name in message, message
        return
    raise AssertionError(f"a file with a tampered array {name!r} loaded")


def check_tags_are_true(make, X):
    """``sparse_input``: CSR rows are taken (and give the dense rows' model);
    ``one_example``: ``learn_one`` takes a dict and an array; ``target``: "none" and
    no ``y`` is needed."""
    m = make()
    tags = olearn.tags(m)
    assert tags.target == "none"
    if tags.sparse_input:
        m.partial_fit(sp.csr_matrix(X))
        assert m.__sklearn_is_fitted__()
    if tags.one_example:
        one = make()
        one.learn_one({"a": 1.0, "b": -2.0})
        one.learn_one({"b": 0.5, "c": 3.0})
        assert one.widen(0) == 3
        one = make()
        one.learn_one(X[0])
        assert one.widen(0) == X.shape[1]


def check_widening(make, X):
    """A model widened to more columns goes on as one that saw them as zeros (unless
    tagged ``width_dependent``: then it only goes on)."""
    d = X.shape[1]
    wide = np.hstack([X, np.zeros((len(X), 2))])
    more = np.random.default_rng(0).normal(size=(20, d + 2))
    m = make().partial_fit(X)
    assert m.widen(d + 2) == d + 2
    m.partial_fit(more)
    if olearn.tags(m).width_dependent:
        return
    assert_same(make().partial_fit(np.vstack([wide, more])), m, what="widened")


def check_mix(make, X):
    """``mix([m])`` equals ``m``; two members mix or refuse with a CannotMixError."""
    from olearn.protocol import CannotMixError
    m = make().partial_fit(X)
    assert_same(olearn.mix([m]), m, what="mix([m])")
    other = make().partial_fit(X[::-1])
    try:
        mixed = olearn.mix([m, other])
    except CannotMixError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    assert mixed.__sklearn_is_fitted__()
    mixed.partial_fit(X[:5])


def check_unlabelled(make, X, tmp_path, chunked=True):
    """Every check above."""
    check_input_paths_agree(make, X, chunked)
    check_fit_is_reset(make, X)
    check_state_round_trip(make, X, tmp_path)
    check_loaded_files_are_validated(make, X, tmp_path)
    check_tags_are_true(make, X)
    check_widening(make, X)
    check_mix(make, X)
