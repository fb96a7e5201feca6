"""The generic checks of the model protocol, on any model class.

``check_model(estimator)`` runs on one unfitted estimator what the suite runs on every
registered learner: scikit-learn's estimator checks (with the departures the
estimator declares, ``olearn.expected_failed_checks``), then the protocol's own checks
below (the input paths agree, progressive predictions are pre-update, ``fit`` is a
reset then ``epochs`` passes, state export and import round trip, bad input is
refused, the one-example calls).  ``tests/test_estimators.py`` and
``tests/test_core.py`` drive the same functions over the registry;
``tests/test_protocol.py`` over a network declared in the test file;
``tests/test_wrappers.py`` over every wrapper.  The checks ask the protocol only (its
calls, ``export_state`` / ``explicit_state``, the parameters a model has), never a
model's private state, so a model of any family and a wrapper take them alike.
"""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.utils.estimator_checks import check_estimator

import olearn
from olearn.protocol import CannotMixError


def expected_failures(est):
    """The scikit-learn checks ``est`` declares it fails, with the reasons (the sample-
    weight ones every online model declares, and the learner's own)."""
    return olearn.expected_failed_checks(est)


def check_model(est):
    """Every generic check on the unfitted estimator ``est`` (raises on a failure)."""
    check_estimator(clone(est), expected_failed_checks=expected_failures(est))
    for n_classes in ((2, 3) if is_classifier(est) else (2,)):
        check_input_paths_agree(est, n_classes)
    check_progressive_predictions_are_pre_update(est)
    check_fit_is_reset_then_epochs(est)
    check_state_round_trip(est)
    check_bad_input_is_refused(est)
    check_one_example_protocol(est)


# ---------------------------------------------------------------- data and comparisons
def problem(est, n=120, d=7, n_classes=2, seed=0, density=0.5):
    """A small random stream ``(X, y)`` for ``est`` (labels -1/+1 for two classes)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    if is_classifier(est):
        W = rng.standard_normal((n_classes, d))
        y = np.argmax(X @ W.T + 0.3 * rng.standard_normal((n, n_classes)), axis=1)
        if n_classes == 2:
            y = np.where(y == 1, 1, -1)
    else:
        y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    return X, y


def state_of(est):
    """The model's state as the protocol gives it: ``explicit_state()`` (the lazy parts
    made explicit: a lazy sparse learner's raw arrays depend on which rows touched
    which weights, its model does not); for a wrapper (which cannot be mixed) its
    learners' (``olearn.wrapper.Wrapper.held_learners``), its own statistics being compared
    by what the model does (``assert_same_model``)."""
    try:
        return est.explicit_state()
    except CannotMixError:
        return {f"{j}.{k}": v for j, m in enumerate(est.held_learners())
                if m.__sklearn_is_fitted__() for k, v in state_of(m).items()}


def gives_scores(est):
    """Whether ``predict_learn(..., return_scores=True)`` and ``decision_function`` are
    the model's scores: every regressor (its values), a classifier that has them."""
    return not is_classifier(est) or hasattr(est, "decision_function")


def progressive(est, X, y):
    """``predict_learn``'s scores where the model gives them, else its predictions."""
    if is_classifier(est) and gives_scores(est):
        return est.predict_learn(X, y, return_scores=True)
    return est.predict_learn(X, y)


def declared(est, y):
    """``partial_fit``'s ``classes=`` for a classifier, nothing for a regressor."""
    return {"classes": np.unique(y)} if is_classifier(est) else {}


def row_first(est):
    """Whether the model's own statistics take a row before it is predicted
    (``Scaled``: a row is scaled with statistics that include it), so that
    ``predict_learn``'s prediction of a row is ``predict_learn_one``'s, not ``predict``'s
    before the row (``olearn.wrapper.Wrapper.row_first``)."""
    return bool(getattr(est, "row_first", False))


def same_params(a, b):
    """Equal parameters (nested models compared by their reprs)."""
    return {k: repr(v) for k, v in a.get_params().items()} == \
        {k: repr(v) for k, v in b.get_params().items()}


def assert_same_model(a, b, X, y, rtol=1e-10, atol=1e-12):
    """Same weights, and the same behaviour on more data: a learner may renormalise its
    internal state at the end of a call (e.g. lazy averaging), so models built through
    different call boundaries are compared by what they do."""
    assert_same_weights(a, b, X, rtol, atol)
    probe = np.random.default_rng(7).permutation(len(y))[:40]
    sa = progressive(a, X[probe], y[probe])
    sb = progressive(b, X[probe], y[probe])
    np.testing.assert_allclose(sa, sb, rtol=rtol, atol=atol)
    assert_same_weights(a, b, X, rtol, atol)


def weights_of(m, X):
    """``coef_`` and ``intercept_``; a model without them (a kernel expansion, random
    features, a network, a wrapper) is compared by its decision values on ``X``."""
    try:
        return [m.coef_, m.intercept_]
    except AttributeError:
        return [m.decision_function(X) if gives_scores(m) and is_classifier(m)
                else m.predict(X)]


def assert_same_weights(a, b, X, rtol=1e-10, atol=1e-12):
    for u, v in zip(weights_of(a, X), weights_of(b, X)):
        np.testing.assert_allclose(u, v, rtol=rtol, atol=atol)


def assert_same_state(a, b, rtol=1e-10, atol=1e-12):
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


def scores_one(model, x):
    """The model's scores of one example, (K,), from the public protocol:
    ``decision_function`` (classifiers) or ``predict`` (regressors, and classifiers that
    give no scores) of that row."""
    row = np.asarray(x, dtype=np.float64).reshape(1, -1)
    if is_classifier(model) and gives_scores(model):
        s = np.asarray(model.decision_function(row), dtype=np.float64)
        return s.reshape(-1)
    return np.asarray(model.predict(row), dtype=np.float64).reshape(-1)


# ---------------------------------------------------------------- the checks
def check_input_paths_agree(est, n_classes=2):
    """learn_one loop = dense partial_fit = CSR partial_fit = chunked = predict_learn."""
    X, y = problem(est, n_classes=n_classes)
    dense = clone(est).partial_fit(X, y)
    ref = state_of(dense)
    assert_same_state(ref, state_of(clone(est).partial_fit(sp.csr_matrix(X), y)))
    chunked = clone(est)
    order = {"classes": dense.classes_} if declared(est, y) else {}  # (discovery's order)
    for lo in range(0, len(y), 37):
        chunked.partial_fit(X[lo:lo + 37], y[lo:lo + 37], **order)
    # (a learner's classes declared in discovery order are those it discovers; a
    # wrapper's members take declared classes from row 1, or meet them in their own
    # streams: the whole batch declares them too)
    wrapper = olearn.tags(est).wrapper
    assert_same_model(clone(est).partial_fit(X, y, **(order if wrapper else {})), chunked,
                      X, y)
    pl = clone(est)
    scores = progressive(pl, X, y)
    assert_same_state(ref, state_of(pl))
    assert pl.n_updates_ == dense.n_updates_ and pl.t_ == len(y)
    one = clone(est)
    pre, told = [], []
    for xi, yi in zip(X, y):
        if row_first(est):  # (what the one-example path predicts, learning the row)
            fitted = one.__sklearn_is_fitted__()
            answer = one.predict_learn_one(xi, yi)
            told += [answer] if fitted else []
            continue
        if one.__sklearn_is_fitted__():
            pre.append(scores_one(one, xi))
            told.append(one.predict_one(xi))  # the one-row path
        one.learn_one(xi, yi)
    if n_classes == 2:
        # binary: the first label registers one class, a second label sorting first flips
        # the model exactly, so one at a time equals the batch
        assert_same_model(clone(est).partial_fit(X, y), one, X, y)
    else:
        # more labels arrive one by one: the model turns multiclass when the third label
        # appears (not from the start as in the batch); equal to row-by-row partial_fit
        rows = clone(est)
        for i in range(len(y)):
            rows.partial_fit(sp.csr_matrix(X[i:i + 1]), y[i:i + 1])
        np.testing.assert_array_equal(one.classes_, rows.classes_)
        assert_same_model(rows, one, X, y)
    if n_classes == 2 or not is_classifier(est):
        last = np.ravel(scores)[-50:]
        if not row_first(est):
            np.testing.assert_allclose(last, np.ravel(pre)[-50:], rtol=1e-9, atol=1e-12)
        told = told[-50:]
        if is_classifier(est) and not gives_scores(est):  # (its predictions, as told)
            assert told == list(last)
        elif is_classifier(est):  # (both labels known by then; a score near 0 may tie)
            clear = np.abs(last) > 1e-9
            want = np.where(last > 0, one.classes_[1], one.classes_[0])
            assert [t for t, c in zip(told, clear) if c] == list(want[clear])
        else:
            np.testing.assert_allclose(told, last, rtol=1e-9, atol=1e-12)


def check_progressive_predictions_are_pre_update(est):
    X, y = problem(est, n=60)
    model = clone(est)
    # (the reference declares the classes at its first row; a wrapper's members take
    # declared classes from row 1, so the batch declares them too)
    got = model.predict_learn(X, y, **(declared(est, y) if olearn.tags(est).wrapper else {}))
    step = clone(est)
    want = []
    for i in range(len(y)):
        if i == 0:
            step.partial_fit(X[:1], y[:1], **declared(est, y))
            want.append(None)
            continue
        if row_first(est):  # (the row-first statistics take the row: the one-row path)
            want.append(step.predict_learn(X[i:i + 1], y[i:i + 1])[0])
            continue
        want.append(step.predict(X[i:i + 1])[0])
        step.partial_fit(X[i:i + 1], y[i:i + 1])
    if is_classifier(est):
        assert list(got[1:]) == want[1:]
    else:
        np.testing.assert_allclose(got[1:], np.array(want[1:], dtype=float), rtol=1e-9,
                                   atol=1e-12)


def check_fit_is_reset_then_epochs(est):
    """``fit`` is a reset, then (a model with ``epochs``) that many passes; the same
    ``random_state`` gives the same model."""
    X, y = problem(est)
    params = clone(est).get_params(deep=False)
    a = clone(est).fit(X, y)
    if "epochs" in params:
        a = clone(est).set_params(epochs=2, shuffle=False).fit(X, y)
        b = clone(est).partial_fit(X, y, **declared(est, y))
        b.partial_fit(X, y)
        assert_same_model(a, b, X, y)
    a.fit(X, y)  # fit again starts afresh
    assert_same_state(state_of(a), state_of(clone(a).fit(X, y)))
    assert params.get("shuffle", True) is True  # scikit-learn's default
    seeded = {k: v for k, v in (("shuffle", True), ("random_state", 3)) if k in params}
    s1 = clone(est).set_params(**seeded).fit(X, y)
    s2 = clone(est).set_params(**seeded).fit(X, y)
    assert_same_state(state_of(s1), state_of(s2))


def check_state_round_trip(est, path=None):
    """``export_state`` -> ``from_state`` (and ``save`` -> ``load`` at ``path``, for a
    registered learner) gives the same model, which goes on learning the same; so does
    a pickle."""
    X, y = problem(est)
    model = clone(est).fit(X, y)
    meta, arrays = model.export_state()
    backs = [type(model).from_state(model.get_params(deep=False), meta, arrays)]
    if path is not None:
        import olearn
        model.save(path)
        backs.append(olearn.load(path))
    for back in backs:
        assert type(back) is type(model) and same_params(back, model)
        assert_same_state(state_of(model), state_of(back), rtol=0, atol=0)
        np.testing.assert_array_equal(back.predict(X), model.predict(X))
    twin = pickle.loads(pickle.dumps(model))
    model.partial_fit(X, y)
    for back in backs + [twin]:
        back.partial_fit(X, y)
        assert_same_state(state_of(model), state_of(back), rtol=0, atol=0)


def check_bad_input_is_refused(est):
    X, y = problem(est, n=20)
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


def check_one_example_protocol(est):
    """A fresh model predicts None (classifier) or 0.0; ``predict_learn_one`` is
    ``predict_one`` then ``learn_one``, on dicts whose vocabulary grows."""
    want = None if is_classifier(est) else 0.0
    assert clone(est).predict_one({"a": 1.0}) == want
    assert clone(est).predict_one(np.ones(3)) == want
    X, y = problem(est, n=60)
    dicts = [{f"f{j}": float(v) for j, v in enumerate(row) if v != 0.0} for row in X]
    fused, pair = check_fused_one(est, dicts, y)
    assert_same_state(state_of(fused), state_of(pair), rtol=1e-12, atol=1e-14)


def check_fused_one(est, examples, y):
    """``predict_learn_one`` answers what ``predict_one`` then ``learn_one`` would, example
    by example, with the same counters (a row-first model: ``predict_one`` changes
    nothing, the states are compared); returns the two models (fused, pair)."""
    fused, pair = clone(est), clone(est)
    for xi, yi in zip(examples, y):
        before = pair.predict_one(xi)
        pair.learn_one(xi, yi)
        got = fused.predict_learn_one(xi, yi)
        if row_first(est):
            continue
        if is_classifier(est):
            assert got == before
        else:
            assert got == pytest.approx(before, rel=1e-9, abs=1e-12)
    assert fused.t_ == pair.t_ == len(y) and fused.n_updates_ == pair.n_updates_
    return fused, pair
