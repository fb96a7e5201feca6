"""Multiclass behaviour of every registered classifier, the label semantics documented in
``olearn/base.py``, and ``olearn.multiclass.OneVsRest`` against K separate binary learners.
"""
import json
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_svmlight_file
from sklearn.utils.estimator_checks import parametrize_with_checks

import olearn
from olearn._rows import kernel_rows, run_chunks
from olearn._tags import tags
from olearn._compiled.driver import BINARY, MULTICLASS
from olearn.multiclass import OneVsRest
from olearn.registry import available, lookup

from conftest import data_path


def _classifiers():
    """Registered classifiers with their own class rows (tag multiclass "native"), one
    name per (class, defaults)."""
    seen, out = set(), []
    for name in available("classifier"):
        cls, defaults = lookup(name)
        if tags(cls).multiclass != "native":
            continue  # an ensemble has no class rows of its own (its members are tested)
        key = (cls, tuple(sorted(defaults.items())))
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out


CLASSIFIERS = _classifiers()
# learners whose model is a weight matrix W over the input features (coef_), with a
# declared binary rule that one-vs-rest can reuse (tag "linear"); a support set or
# random features shared by the classes are not
LINEAR = [n for n in CLASSIFIERS if tags(lookup(n)[0]).linear]


def _state(est):
    """The state arrays; a lazy sparse learner's owed shrinks applied first (its raw
    arrays depend on which rows touched which weights, its model does not); a
    one-vs-rest model's, its class models' (``"k/slot"``)."""
    if isinstance(est, OneVsRest):
        return {f"{k}/{name}": a for k, e in enumerate(est.estimators_)
                for name, a in _state(e).items()}
    if hasattr(est, "_settle"):
        est._settle()
    return {k: v.copy() for k, v in est.state_.items()}


def _same_state(a, b, rtol=1e-10, atol=1e-12):
    assert set(a) == set(b)
    for k in a:
        assert a[k].shape == b[k].shape, k
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


def _blobs(n, classes, d=8, seed=0, sep=4.0, density=1.0):
    """Gaussian blobs: class k around ``sep * e_k``; ``classes`` a list of class ids."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.asarray(classes), size=n)
    X = rng.standard_normal((n, d))
    X[np.arange(n), y % d] += sep
    if density < 1.0:
        X *= rng.random((n, d)) < density
    return X, y


def _new_label_stream(seed=0):
    """1,000 rows of classes 0..2, then 800 rows where class 3 also occurs."""
    X1, y1 = _blobs(1000, [0, 1, 2], seed=seed)
    X2, y2 = _blobs(800, [0, 1, 2, 3, 3], seed=seed + 1)
    return np.vstack([X1, X2]), np.concatenate([y1, y2])


LABELS = np.array(["ant", "bee", "cat", "dog"])


# ------------------------------------------------------------------ labels mid-stream
@pytest.mark.parametrize("name", CLASSIFIERS + ["ovr:pa1"])
def test_label_first_seen_after_1000_rows_is_learned_and_predicted(name):
    est = OneVsRest(olearn.make(name[4:])) if name.startswith("ovr:") else olearn.make(name)
    X, yi = _new_label_stream()
    y = LABELS[yi]
    first = int(np.argmax(yi == 3))
    assert first >= 1000
    pred = []
    for lo in range(0, len(y), 200):
        pred.append(est.predict_learn(X[lo:lo + 200], y[lo:lo + 200]))
        if lo + 200 <= first:
            assert "dog" not in set(est.classes_)
    pred = np.concatenate(pred)
    assert list(est.classes_) == ["ant", "bee", "cat", "dog"]
    assert pred.dtype == y.dtype and set(pred) <= set(LABELS)
    assert "dog" not in set(pred[:first + 1])  # never predicted before it was seen
    late = np.arange(len(y)) >= len(y) - 300
    assert np.mean(pred[late & (y == "dog")] == "dog") > 0.7
    Xt, yt = _blobs(400, [0, 1, 2, 3], seed=9)
    assert np.mean(est.predict(Xt)[yt == 3] == "dog") > 0.8
    assert np.mean(est.predict(Xt) == LABELS[yt]) > 0.8
    assert est.predict_one(Xt[np.argmax(yt == 3)]) in LABELS


@pytest.mark.parametrize("labels", [np.array(["b", "a", "zz", "c"]), np.array([7, -3, 12, 0]),
                                    np.array([2.0, -1.0, 0.0, 10.0])], ids=["str", "int", "float"])
@pytest.mark.parametrize("name", CLASSIFIERS + ["ovr:pa1"])
def test_labels_are_given_back_as_given(name, labels):
    est = OneVsRest(olearn.make(name[4:])) if name.startswith("ovr:") else olearn.make(name)
    X, yi = _blobs(300, [0, 1, 2, 3], seed=2)
    y = labels[yi]
    progressive = est.predict_learn(X, y)
    for out in (progressive, est.predict(X)):
        assert out.dtype == labels.dtype
        assert set(out.tolist()) <= set(labels.tolist())
    one = est.predict_one(X[0])
    assert np.asarray(one).dtype.kind == labels.dtype.kind and one in labels.tolist()
    assert list(est.classes_) == sorted(labels.tolist())  # one batch: registered sorted
    assert np.mean(est.predict(X) == y) > 0.8


# ------------------------------------------------------------------ classes= up front
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classes_given_up_front_equals_discovery(name):
    est = OneVsRest(olearn.make(name[4:])) if name.startswith("ovr:") else olearn.make(name)
    X, yi = _new_label_stream()
    X, yi = X[700:1300], yi[700:1300]
    y = LABELS[yi]
    found = clone(est)
    p_found = found.predict_learn(X, y, return_scores=True)
    given = clone(est).partial_fit(X, y, classes=sorted(set(y)))
    _same_state(_state(found), _state(given))
    assert list(found.classes_) == list(given.classes_)
    np.testing.assert_array_equal(found.seen_, given.seen_)
    assert found.n_updates_ == given.n_updates_
    # the order discovered across batches, given up front in one call
    chunked = clone(est)
    for lo in range(0, len(y), 100):
        chunked.partial_fit(X[lo:lo + 100], y[lo:lo + 100])
    once = clone(est).partial_fit(X, y, classes=list(chunked.classes_))
    np.testing.assert_array_equal(once.predict(X), chunked.predict(X))
    assert p_found.shape == (len(y), 4)


# ------------------------------------------------------------------ two labels
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_binary_behaviour_is_unchanged_with_two_labels(name):
    X, yi = _blobs(250, [0, 1], seed=3)
    words = np.array(["no", "yes"])[yi]
    signs = np.where(yi == 1, 1, -1)
    a = olearn.make(name)
    s_words = a.predict_learn(X, words, return_scores=True)
    b = olearn.make(name)
    b.partial_fit(X, signs)
    _same_state(_state(a), _state(b), rtol=0, atol=0)
    assert a._task() == BINARY
    assert s_words.shape == (250,)
    df = a.decision_function(X)
    assert df.shape == (250,)
    np.testing.assert_array_equal(a.predict(X), np.where(df > 0, "yes", "no"))
    if name not in LINEAR:
        return  # (the rest calls the declared binary kernel on W directly)
    assert a.state_["W"].shape[0] == 1 and a.coef_.shape == (1, 8)
    # the binary kernel called directly on the +-1 labels: the same model, the same scores
    ref = olearn.make(name)
    ref._start(X.shape[1])
    state = ref._state_tuple()   # (the slots, and any scratch the kernel takes: FTRL's)
    scores = np.empty((250, 1))
    pred = np.zeros(250, dtype=np.int64)
    rows = kernel_rows(X, ref.fit_intercept, ref._constant())
    kernel, labels, sw = ref._kernels[BINARY], signs.astype(float), np.ones(250)
    run_chunks(rows, lambda part, lo, hi: kernel(
        part, labels[lo:hi], sw[lo:hi], state, ref._packed_params(), np.zeros(1, np.uint8),
        scores[lo:hi], pred[lo:hi]), scores)
    _same_state(_state(a), _state(ref), rtol=0, atol=0)
    np.testing.assert_array_equal(s_words, scores[:, 0])


# ------------------------------------------------------------------ dense = sparse
@pytest.mark.parametrize("name", CLASSIFIERS + ["ovr:pa1"])
def test_dense_and_sparse_give_identical_weights(name):
    est = OneVsRest(olearn.make(name[4:])) if name.startswith("ovr:") else olearn.make(name)
    X, y = _blobs(400, [3, 0, 1, 4, 2], seed=4, density=0.5)
    y[:150] = np.where(y[:150] > 2, 1, y[:150])  # classes 3 and 4 first appear later
    dense, csr = clone(est), clone(est)
    for lo in range(0, len(y), 90):
        p_dense = dense.predict_learn(X[lo:lo + 90], y[lo:lo + 90], return_scores=True)
        p_csr = csr.predict_learn(sp.csr_matrix(X[lo:lo + 90]), y[lo:lo + 90],
                                  return_scores=True)
        np.testing.assert_allclose(p_dense, p_csr, rtol=1e-10, atol=1e-12)
    if isinstance(dense, OneVsRest):
        assert len(dense.estimators_) == 5
    else:  # every slot with a class axis has grown to the five classes (a network's
        # hidden layers have none)
        per_class = [s.name for s in dense.slots if s.axes[:1] == ("K",)]
        assert per_class and all(dense.state_[n].shape[0] == 5 for n in per_class)
    assert len(dense.classes_) == 5
    _same_state(_state(dense), _state(csr))


@pytest.mark.parametrize("name", CLASSIFIERS + ["ovr:pa1"])
def test_dense_and_sparse_agree_on_real_data(name):
    X, y = load_svmlight_file(str(data_path("letter", "letter.scale")), n_features=16)
    X, y = X[:600], y[:600].astype(int)
    est = OneVsRest(olearn.make(name[4:])) if name.startswith("ovr:") else olearn.make(name)
    a = clone(est).partial_fit(X, y)
    b = clone(est).partial_fit(X.toarray(), y)
    assert len(a.classes_) == len(np.unique(y)) > 20
    _same_state(_state(a), _state(b))


# ------------------------------------------------------------------ base.py semantics
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_second_label_sorting_first_gives_the_sorted_model(name):
    """Documented: negating the signed state gives exactly the model learned knowing both."""
    X, yi = _blobs(200, [0, 1], seed=5)
    y = np.array(["no", "yes"])[yi]
    y[:10] = "yes"
    late = olearn.make(name)
    late.partial_fit(X[:10], y[:10])
    assert list(late.classes_) == ["yes"]
    late.partial_fit(X[10:], y[10:])
    known = olearn.make(name).partial_fit(X[:10], y[:10], classes=["no", "yes"])
    known.partial_fit(X[10:], y[10:])  # the same batches: only the label order differs
    assert list(late.classes_) == ["no", "yes"]
    _same_state(_state(known), _state(late))


@pytest.mark.parametrize("name", LINEAR)
def test_third_label_keeps_every_margin(name):
    """Documented: a third label gives W[0] = -w/2, W[1] = +w/2, later rows at zero."""
    X, yi = _blobs(150, [0, 1], seed=6)
    m = olearn.make(name)
    if tags(m).closed_form:
        # closed-form l1 learners keep every margin only without l1: halving their sums
        # does not commute with the soft threshold (documented in their docstrings)
        m.set_params(**{"l1" if "l1" in m.get_params() else "lam": 0.0})
    m.partial_fit(X, yi)
    before = m.decision_function(X)
    w = _state(m)["W"][0].copy()
    m._prepare_labels(np.array([5]), None)  # registers the label; no row is learned
    W = m.state_["W"]
    assert W.shape[0] == 3 and m._task() == MULTICLASS
    signed = {s.name for s in m._slots if s.signed}
    if "W" in signed:
        np.testing.assert_array_equal(W[0], -0.5 * w)
        np.testing.assert_array_equal(W[1], 0.5 * w)
        np.testing.assert_array_equal(W[2], 0.0)
    after = m.decision_function(X)
    np.testing.assert_allclose(after[:, 1] - after[:, 0], before, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(m.seen_, [1, 1, 0])
    np.testing.assert_array_equal(m.predict(X), np.where(before > 0, 1, 0))


def test_labels_are_appended_in_the_order_they_appear_one_at_a_time():
    m = olearn.make("pa1")
    for x, label in zip(np.eye(5), [5, 3, 9, 1, 3]):
        m.learn_one(x, label)
    assert list(m.classes_) == [3, 5, 9, 1]


def test_labels_new_in_one_batch_are_appended_sorted_among_themselves():
    m = olearn.make("pa1").partial_fit(np.eye(4)[:2], [5, 3]).partial_fit(np.eye(4)[2:],
                                                                          [9, 1])
    assert list(m.classes_) == [3, 5, 1, 9]


def test_labels_of_mixed_types_across_batches_are_refused():
    """One label kind per model (issue 11): strings after numbers are an error, and the
    model keeps its classes."""
    m = olearn.make("pa1").partial_fit(np.eye(3)[:2], [1, 2])
    with pytest.raises(ValueError, match="mix numbers and strings"):
        m.partial_fit(np.eye(3)[2:], ["a"])
    assert m.classes_.tolist() == [1, 2]


def test_a_class_given_but_never_seen_stays_out_of_multiclass_predictions():
    X = np.eye(3)
    m = olearn.make("pa1").partial_fit(X[:2], ["a", "a"], classes=["a", "b", "c"])
    m.partial_fit(X[2:], ["c"])
    np.testing.assert_array_equal(m.seen_, [1, 0, 1])


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_classes_given_keep_their_order_and_unseen_ones_are_never_predicted(name):
    X, yi = _blobs(300, [0, 1, 2], seed=7)
    y = np.array(["c", "a", "b"])[yi]
    m = olearn.make(name)
    m.partial_fit(X[:1], y[:1], classes=["c", "zebra", "a", "b"])
    assert list(m.classes_) == ["c", "zebra", "a", "b"]
    pred = m.predict_learn(X[1:], y[1:])
    assert "zebra" not in set(pred) and "zebra" not in set(m.predict(X))
    np.testing.assert_array_equal(m.seen_, [1, 0, 1, 1])
    scores = m.decision_function(X)
    assert scores.shape == (300, 4)
    best = np.argmax(np.where(m.seen_ == 1, scores, -np.inf), axis=1)
    np.testing.assert_array_equal(m.predict(X), m.classes_[best])
    if name in ("perceptron", "pa", "pa1", "pa2"):  # max-score rules touch seen rows only
        np.testing.assert_array_equal(m.state_["W"][1], 0.0)


def test_two_classes_given_unsorted_keep_their_order_and_the_sign_convention():
    X, yi = _blobs(100, [0, 1], seed=8)
    y = np.array(["yes", "no"])[yi]
    m = olearn.make("pa1").partial_fit(X, y, classes=["yes", "no"])
    assert list(m.classes_) == ["yes", "no"]
    df = m.decision_function(X)
    np.testing.assert_array_equal(m.predict(X), np.where(df > 0, "no", "yes"))
    assert np.mean(m.predict(X) == y) > 0.9


# ------------------------------------------------------------------ OneVsRest
def _binary_learner(name, X):
    """A fresh binary learner started on the width of ``X`` (as its first batch would)."""
    b = olearn.make(name)
    b._validate_X(X, reset=True)
    b._start(X.shape[1])
    return b


def _ovr_reference(name, X, y, K, chunk, declared=False):
    """K plain binary learners: the k-th learns y == k (+1 / -1) from the first row of
    class k on (from row 1 when the classes are ``declared``), through its own binary
    kernel, one call per chunk of the one-vs-rest model (so that end-of-pass steps, such
    as folding a weight scale, happen at the same rows)."""
    n = len(y)
    scores = np.zeros((n, K))
    blocks, updates = [], []
    for k in range(K):
        first = 0 if declared else int(np.argmax(y == k))
        b = _binary_learner(name, X)
        state = b._state_tuple()   # (the slots, and any scratch: FTRL's row weights)
        params = b._packed_params()
        cuts = [first] + list(range((first // chunk + 1) * chunk, n, chunk)) + [n]
        count = 0
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            out = np.empty((hi - lo, 1))
            labels, pred = np.where(y[lo:hi] == k, 1.0, -1.0), np.zeros(hi - lo, np.int64)
            count += run_chunks(
                kernel_rows(X[lo:hi], b.fit_intercept, b._constant()),
                lambda part, a, z: b._kernels[BINARY](
                    part, labels[a:z], np.ones(z - a), state, params, np.zeros(1, np.uint8),
                    out[a:z], pred[a:z]), out)
            scores[lo:hi, k] = out[:, 0]
        blocks.append(b)
        updates.append(count)
    seen = np.full(K, declared)
    pred = np.empty(n, dtype=np.int64)
    for i in range(n):  # arg-max over the classes seen before row i (lowest on ties)
        pred[i] = np.argmax(np.where(seen, scores[i], -np.inf)) if seen.any() else 0
        seen[y[i]] = True
    return blocks, updates, scores, pred


OVR_NAMES = LINEAR


@pytest.mark.parametrize("declared", [False, True], ids=["discovered", "declared"])
@pytest.mark.parametrize("name", OVR_NAMES)
def test_one_vs_rest_equals_k_independent_binary_learners(name, declared):
    X, y = _blobs(240, [0, 1, 2, 3], seed=10, density=0.6)
    y[:60] = y[:60] % 2                        # classes 2 and 3 appear mid-stream
    blocks, updates, ref_scores, ref_pred = _ovr_reference(name, X, y, 4, 50, declared)
    given = {"classes": [0, 1, 2, 3]} if declared else {}
    # CSR only: one compiled kernel per learner keeps this file fast; dense = CSR for
    # one-vs-rest is checked in test_dense_and_sparse_give_identical_weights
    for data in (sp.csr_matrix(X),):
        m = OneVsRest(olearn.make(name))
        for lo in range(0, 240, 50):
            got = m.predict_learn(data[lo:lo + 50], y[lo:lo + 50], return_scores=True,
                                  **given)
            want = ref_scores[lo:lo + 50]
            if got.ndim == 1:  # two classes so far: score_1 - score_0
                want = want[:, 1] - want[:, 0]
            else:              # K grows when classes 2 and 3 appear
                want = want[:, :got.shape[1]]
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        for k, b in enumerate(blocks):
            for slot in b._slots:
                np.testing.assert_allclose(m.estimators_[k].state_[slot.name],
                                           b.state_[slot.name],
                                           rtol=1e-10, atol=1e-12, err_msg=f"{slot.name}[{k}]")
        np.testing.assert_array_equal(
            OneVsRest(olearn.make(name)).predict_learn(data, y, **given), ref_pred)
        assert list(m.classes_) == [0, 1, 2, 3]
        assert m.n_updates_ == sum(updates)
        np.testing.assert_allclose(m.coef_, np.vstack([b.coef_ for b in blocks]), rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(m.decision_function(X),
                                   np.column_stack([b.decision_function(X) for b in blocks]),
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("declared", [False, True], ids=["discovered", "declared"])
def test_one_vs_rest_plain_loop_pa1_on_real_data(declared):
    """PA-I one-vs-rest written out in numpy, on pendigits (10 classes); declared
    classes learn from row 1, discovered ones from their first row."""
    X, y = load_svmlight_file(str(data_path("pendigits", "pendigits")), n_features=16)
    X, y = X[:400].toarray() / 100.0, y[:400].astype(int)
    C = 0.5
    K = 10
    W = np.zeros((K, 17))
    live = np.full(K, declared)
    want = np.empty((400, K))
    for i in range(400):
        x = np.concatenate([[1.0], X[i]])
        live[y[i]] = True
        want[i] = W @ x
        for k in np.flatnonzero(live):
            t = 1.0 if k == y[i] else -1.0
            loss = max(0.0, 1.0 - t * want[i, k])
            if loss > 0:
                W[k] += min(C, loss / (x @ x)) * t * x
    m = OneVsRest(olearn.make("pa1", C=C, intercept_scaling=1.0))
    got = m.predict_learn(sp.csr_matrix(X), y, return_scores=True,
                          **({"classes": list(range(K))} if declared else {}))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.vstack([e.state_["W"] for e in m.estimators_]), W,
                               rtol=1e-10, atol=1e-12)
    assert np.mean(m.predict(X) == y) > 0.7


def test_one_vs_rest_second_label_sorting_first_swaps_blocks():
    X, yi = _blobs(120, [0, 1, 2], seed=11)
    y = np.array(["b", "a", "c"])[yi]
    y[:5] = "b"
    y[5:40] = np.where(y[5:40] == "c", "a", y[5:40])  # "a" arrives alone, then "c"
    a = OneVsRest(olearn.make("pa1"))
    a.partial_fit(X[:5], y[:5])
    assert len(a.estimators_) == 1 and a.estimators_[0].state_["W"].shape == (1, 9)
    for lo in range(5, 120, 23):
        a.partial_fit(X[lo:lo + 23], y[lo:lo + 23])
    b = OneVsRest(olearn.make("pa1")).partial_fit(X, y)
    assert list(a.classes_) == list(b.classes_) == ["a", "b", "c"]
    _same_state(_state(a), _state(b))
    one = OneVsRest(olearn.make("pa1"))
    for xi, label in zip(X, y):
        one.learn_one(xi, label)
    _same_state(_state(one), _state(b))
    np.testing.assert_array_equal(one.seen_, b.seen_)



# random_state: fit shuffles; scikit-learn seeds only a top-level random_state
@parametrize_with_checks([OneVsRest(olearn.make("pa1", random_state=0))],
                         expected_failed_checks=lambda est: {
    "check_sample_weight_equivalence_on_dense_data":
        "online updates depend on order and repetition: a repeated row is seen after the "
        "first copy has changed the model, a doubled weight is not",
    "check_sample_weight_equivalence_on_sparse_data": "same as on dense data"})
def test_one_vs_rest_passes_scikit_learn_checks(estimator, check):
    check(estimator)


def test_one_vs_rest_two_classes_follow_the_binary_convention():
    X, yi = _blobs(200, [0, 1], seed=14)
    y = np.array(["no", "yes"])[yi]
    m = OneVsRest(olearn.make("pa1"))
    s = m.predict_learn(X, y, return_scores=True)
    assert s.shape == (200,) and m.coef_.shape == (2, 8)
    df = m.decision_function(X)
    W = np.vstack([e.state_["W"] for e in m.estimators_])
    c = m.base.intercept_scaling
    np.testing.assert_allclose(df, (X @ W[:, 1:].T + c * W[:, 0]) @ [-1.0, 1.0],
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(m.predict(X), np.where(df > 0, "yes", "no"))
    assert m.predict_one(X[0]) == m.predict(X[:1])[0]


def test_one_vs_rest_sklearn_contract_and_errors():
    base = olearn.make("pa1", C=0.3)
    m = OneVsRest(base)
    assert m.get_params()["base__C"] == 0.3
    c = clone(m).set_params(base__C=2.0)
    assert c.base is not base and c.base.C == 2.0 and base.C == 0.3
    X, y = _blobs(200, [0, 1, 2], seed=12)
    m.fit(X, np.array(["x", "y", "z"])[y])
    assert m.coef_.shape == (3, 8) and m.intercept_.shape == (3,)
    assert m.decision_function(X).shape == (200, 3)
    assert not hasattr(base, "state_")  # the base itself is never fitted
    back = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    d = OneVsRest(olearn.make("perceptron"))
    d.learn_one({"a": 1.0, "b": 2.0}, "x")
    d.learn_one({"c": 1.0}, "y")
    d.learn_one({"a": -1.0, "d": 1.0}, "z")
    assert d.n_features_in_ == 4 and d.predict_one({"c": 1.0, "zz": 3.0}) in ("x", "y", "z")
    # a hyper-parameter changed between batches is used by the next batch
    X2, y2 = _blobs(100, [0, 1, 2], seed=15)
    a = OneVsRest(olearn.make("pa1", C=1.0)).partial_fit(X, y)
    b = clone(a).partial_fit(X, y)
    b.set_params(base__C=1e-3)
    a.partial_fit(X2, y2)
    b.partial_fit(X2, y2)
    assert [e.C for e in b.estimators_] == [1e-3] * 3 and b.base.C == 1e-3
    assert not np.allclose(a.coef_, b.coef_)
    for bad in (None, "pa1", olearn.make("pa-reg"), OneVsRest(olearn.make("pa1"))):
        with pytest.raises(ValueError, match="base must be a binary olearn classifier"):
            OneVsRest(bad).fit(X, y)
    with pytest.raises(ValueError, match="C must be"):
        OneVsRest(olearn.make("pa1", C=-1.0)).fit(X, y)


def test_one_vs_rest_divergence_leaves_the_model_as_it_was():
    """A class model that diverges mid-batch: every class model is put back as it was
    before the call (the ones that had learned the batch too), and the error names the
    first row that diverged."""
    X, y = _blobs(60, [0, 1, 2], seed=16)
    m = OneVsRest(olearn.make("ogd", eta=1e40)).partial_fit(X, y)
    before, updates, t = m.coef_.copy(), m.n_updates_, m.t_
    with pytest.raises(olearn.base.DivergenceError) as err:
        m.partial_fit(X * 1e140, y)          # scores of about 1e40 * 1e280: infinite
    assert err.value.where == "batch" and 0 <= err.value.row < 60
    np.testing.assert_array_equal(m.coef_, before)
    assert (m.n_updates_, m.t_) == (updates, t)
    np.testing.assert_array_equal(m.partial_fit(X, y).coef_,
                                  clone(m).partial_fit(X, y).partial_fit(X, y).coef_)


def test_one_vs_rest_over_a_model_without_a_linear_rule():
    """The class models are driven through the protocol only, so a base with no
    declared linear rule (a kernel expansion over its own support set) works: the model
    equals K binary models, each trained through its own calls on y == k from the first
    row of class k on, batch by batch and example by example."""
    X, y = _blobs(90, [0, 1, 2], seed=13)
    y[:10] = np.arange(10) % 2                   # class 2 appears mid-stream
    make = lambda: olearn.make("kernel-perceptron")  # noqa: E731
    m = OneVsRest(make())
    assert not tags(m).linear
    got = np.vstack([m.predict_learn(X[lo:lo + 30], y[lo:lo + 30], return_scores=True)
                     for lo in range(0, 90, 30)])     # (class 2 arrives in rows 10-29)
    one = OneVsRest(make())
    got_one = [one.predict_learn_one(xi, yi, return_scores=True) for xi, yi in zip(X, y)]
    two = int(np.argmax(y == 2))
    assert all(np.ndim(s) == 0 for s in got_one[:two]) and got_one[two].shape == (3,)
    want = np.zeros((90, 3))
    for k in range(3):
        first = int(np.argmax(y == k))
        b = make()
        for lo in [first] + list(range((first // 30 + 1) * 30, 90, 30)):
            hi = (lo // 30 + 1) * 30           # the one-vs-rest model's calls
            want[lo:hi, k] = b.predict_learn(X[lo:hi], np.where(y[lo:hi] == k, 1, -1),
                                             return_scores=True, classes=[-1, 1])
        np.testing.assert_allclose(m.decision_function(X)[:, k], b.decision_function(X),
                                   rtol=1e-12, atol=1e-12)
        assert m.estimators_[k].n_support_ == b.n_support_ > 0
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.vstack(got_one[two:]), want[two:], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_one[:two], want[:two, 1] - want[:two, 0], rtol=1e-12,
                               atol=1e-12)         # two classes: score_1 - score_0
    np.testing.assert_array_equal(one.predict(X), m.predict(X))
    assert np.mean(m.predict(X) == y) > 0.9


@pytest.mark.parametrize("name", ["pa1", "arow", "fobos"])
def test_one_vs_rest_saves_and_loads_and_continues(tmp_path, name):
    X, y = _blobs(120, [0, 1, 2], seed=3, density=0.8)
    model = OneVsRest(olearn.make(name)).partial_fit(X[:80], y[:80])
    path = tmp_path / "ovr.olm"
    model.save(path)
    back = olearn.load(path)
    assert isinstance(back, OneVsRest) and type(back.base) is type(model.base)
    np.testing.assert_array_equal(back.coef_, model.coef_)
    np.testing.assert_array_equal(back.predict_learn(X[80:], y[80:]),
                                  model.predict_learn(X[80:], y[80:]))
    np.testing.assert_allclose(back.coef_, model.coef_, rtol=1e-12)


def test_a_one_vs_rest_file_of_round_2_is_refused_with_its_reason(tmp_path):
    """Round 2's OneVsRest saved one state block for all classes (no class models): this
    OneVsRest keeps one model per class and cannot read it; load says so in one line
    and asks for training again (it never loads it wrong)."""
    from olearn.persistence import ModelFileError
    X, y = _blobs(60, [0, 1, 2], seed=3, density=0.8)
    path = tmp_path / "ovr.olm"
    OneVsRest(olearn.make("pa1")).partial_fit(X, y).save(path)
    with np.load(path) as z:
        meta = json.loads(str(z["__meta__"]))
        arrays = {k[3:]: z[k] for k in z.files if k.startswith("m0.")}
    del meta["fitted"]["members"]          # the old layout: no class models
    old = tmp_path / "old.olm"
    with open(old, "wb") as f:
        np.savez(f, __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFileError, match="train the model again") as info:
        olearn.load(old)
    assert "\n" not in str(info.value)
