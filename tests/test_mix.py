"""``olearn.mix``: one model from several, slot by slot (``olearn.mixing``)."""
import copy

import numpy as np
import pytest

import olearn
from olearn._estimator import is_classifier
from olearn.registry import available
from conftest import data_path

RNG = np.random.default_rng(7)
X = RNG.normal(size=(240, 6))
Y_BIN = (X[:, 0] - 0.5 * X[:, 1] + 0.3 * RNG.normal(size=240) > 0).astype(int)
Y_REG = X @ np.array([1.0, -2.0, 0.5, 0.0, 0.3, 0.0]) + 0.1 * RNG.normal(size=240)
Y_3 = np.digitize(X[:, 0] + 0.3 * RNG.normal(size=240), [-0.5, 0.5])


def _target(model):
    return Y_BIN if is_classifier(model) else Y_REG


def _outputs(model, X):
    """Everything public that a mix of one must reproduce."""
    out = {"predict": np.asarray(model.predict(X))}
    if hasattr(model, "decision_function"):
        out["decision"] = np.asarray(model.decision_function(X), dtype=float)
    for name in ("coef_", "intercept_"):
        try:
            out[name] = np.asarray(getattr(model, name), dtype=float)
        except (AttributeError, ValueError):
            pass
    return out


def _state_copy(model):
    return copy.deepcopy(model.__dict__.get("state_", {}))


@pytest.mark.parametrize("name,multiclass", [(n, False) for n in available()] + [
    (n, True) for n in available() if is_classifier(olearn.make(n))])
def test_mix_of_one_is_the_model(name, multiclass):
    m = olearn.make(name).partial_fit(X, Y_3 if multiclass else _target(olearn.make(name)))
    before = _outputs(m, X)
    state = _state_copy(m)
    mixed = olearn.mix([m])
    assert mixed is not m
    got = _outputs(mixed, X)
    assert set(got) == set(before)
    np.testing.assert_array_equal(got["predict"], before["predict"])
    for key in set(got) - {"predict"}:
        np.testing.assert_allclose(got[key], before[key], rtol=1e-9, atol=1e-12,
                                   err_msg=f"{name}: {key}")
    assert mixed.t_ == m.t_ and mixed.n_updates_ == m.n_updates_
    # the member is unchanged (its lazy state included)
    for k, v in state.items():
        np.testing.assert_array_equal(m.state_[k], v)
    np.testing.assert_array_equal(_outputs(m, X)["predict"], before["predict"])


# ---------------------------------------------------------------- linear: exact means
@pytest.mark.parametrize("name,kw", [("pa1", {}), ("ogd", {"average": True}),
                                     ("ogd", {"schedule": "adagrad"}),
                                     ("alma", {}), ("fobos", {}),
                                     ("truncated-gradient", {}),
                                     ("ogd-reg", {"schedule": "invsqrt", "eta": 0.1}),
                                     ("pa", {}), ("pa2", {"average": True}),
                                     ("perceptron", {}), ("romma", {}), ("aromma", {}),
                                     ("cocob", {}), ("adagrad", {}), ("lms", {}),
                                     ("pa-reg", {}), ("cocob-reg", {}), ("ada-fobos", {})])
def test_mix_of_halves_is_the_count_weighted_mean(name, kw):
    """coef_ and intercept_ of the mix: exactly the count-weighted mean of the members'
    effective ones (lazy scale, averaging and owed shrinks made explicit first)."""
    y = _target(olearn.make(name))
    a = olearn.make(name, **kw).partial_fit(X[:90], y[:90])
    b = olearn.make(name, **kw).partial_fit(X[90:], y[90:])
    c = olearn.mix([a, b])
    np.testing.assert_allclose(c.coef_, (90 * a.coef_ + 150 * b.coef_) / 240,
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c.intercept_, (90 * a.intercept_ + 150 * b.intercept_) / 240,
                               rtol=1e-12, atol=1e-14)
    assert c.t_ == 240
    w = olearn.mix([a, b], weights=[3, 1])
    np.testing.assert_allclose(w.coef_, 0.75 * a.coef_ + 0.25 * b.coef_, rtol=1e-12,
                               atol=1e-14)


def test_mixed_model_keeps_learning_as_its_state_says(tmp_path):
    """After a mix the lazy state is the kernels' again: learning goes on from the mixed
    weights, exactly as a model started from them (PA-I's step depends on w only)."""
    a = olearn.make("ogd", average=True, alpha=0.01).partial_fit(X[:120], Y_BIN[:120])
    b = olearn.make("ogd", average=True, alpha=0.01).partial_fit(X[120:], Y_BIN[120:])
    c = olearn.mix([a, b])
    c.save(tmp_path / "c.olearn")
    d = olearn.load(tmp_path / "c.olearn")
    np.testing.assert_array_equal(d.decision_function(X), c.decision_function(X))
    c.partial_fit(X[:50], Y_BIN[:50])
    d.partial_fit(X[:50], Y_BIN[:50])
    np.testing.assert_allclose(c.coef_, d.coef_, rtol=1e-12)
    assert c.t_ == 290
    for k in range(3):
        c.learn_one(X[k], Y_BIN[k])
    assert c.t_ == 293 and np.isfinite(c.coef_).all()


# ---------------------------------------------------------------- real data
def _a9a():
    from olearn.io import load_libsvm
    Xtr, ytr = load_libsvm(data_path("a9a", "a9a"), n_features=123)
    Xte, yte = load_libsvm(data_path("a9a", "a9a.t"), n_features=123)
    return Xtr, ytr, Xte, yte


@pytest.mark.parametrize("name,kw", [("pa1", {}), ("ogd", {"average": True}),
                                     ("ftrl", {}), ("rda", {}), ("fobos", {}),
                                     ("arow", {"covariance": "diag"})])
def test_mix_of_halves_on_a9a_is_close_to_one_model(name, kw, tmp_path):
    Xtr, ytr, Xte, yte = _a9a()
    half = Xtr.shape[0] // 2
    one = olearn.make(name, **kw).partial_fit(Xtr, ytr)
    a = olearn.make(name, **kw).partial_fit(Xtr[:half], ytr[:half])
    b = olearn.make(name, **kw).partial_fit(Xtr[half:], ytr[half:])
    c = olearn.mix([a, b])
    acc = {m: float(np.mean(model.predict(Xte) == yte))
           for m, model in (("one", one), ("mix", c), ("a", a), ("b", b))}
    assert acc["mix"] >= acc["one"] - 0.01, acc
    # it keeps learning and saves
    c.partial_fit(Xte[:1000], yte[:1000])
    c.save(tmp_path / "m.olearn")
    np.testing.assert_array_equal(olearn.load(tmp_path / "m.olearn").predict(Xte),
                                  c.predict(Xte))


def _log_loss(model, X, y):
    p = np.clip(model.predict_proba(X)[:, 1], 1e-12, 1 - 1e-12)
    pos = y == model.classes_[1]
    return -np.mean(np.where(pos, np.log(p), np.log(1 - p)))


@pytest.mark.parametrize("name,cov,shards", [("arow", "diag", 2), ("arow", "diag", 4),
                                             ("scw", "full", 2)])
def test_second_order_classifiers_keep_jubatus_rule_on_a9a(name, cov, shards):
    """The classifiers' covariances mix by Jubatus's rule (mean of the means, minimum
    of the variances; full: mean of the covariances): on a9a it is as good as the
    product of the members' Gaussians (the regressors' rule) in log loss and as
    accurate.  (It was better in log loss while the probabilities were
    ``Phi(m / sqrt(v))``; with the Bayesian predictive ``Phi(m / sqrt(1 + v))`` of
    issue 44 the two arow-diag mixes are within 0.0003 of each other: 0.3599 and
    0.3596 at 2 shards.)"""
    Xtr, ytr, Xte, yte = _a9a()
    cut = np.linspace(0, Xtr.shape[0], shards + 1).astype(int)
    parts = [olearn.make(name, covariance=cov).partial_fit(Xtr[lo:hi], ytr[lo:hi])
             for lo, hi in zip(cut[:-1], cut[1:])]
    ours = olearn.mix(parts)
    product = olearn.mix(parts, rules={"W": "precision", "S" if cov == "diag" else "L":
                                       "evidence"})
    assert _log_loss(ours, Xte, yte) <= _log_loss(product, Xte, yte) + 0.001
    assert np.mean(ours.predict(Xte) == yte) >= np.mean(product.predict(Xte) == yte) - 0.001


@pytest.mark.parametrize("name,cov", [("rls", "diag"), ("rls", "full"), ("arow-reg", "diag")])
def test_second_order_regressors_mix_as_a_posterior_on_cpusmall(name, cov):
    """The regressors' Gaussians are posteriors (Bayesian ridge): their product over the
    prior (``"precision"``/``"evidence"``) has a smaller test error on cpusmall than
    Jubatus's rule, and, full, is the model of the whole stream."""
    from olearn.io import load_libsvm
    X, y = load_libsvm(data_path("cpusmall", "cpusmall.converted"), n_features=12)
    X = np.asarray(X.todense()) if hasattr(X, "todense") else X
    X = (X - X.mean(0)) / X.std(0)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    n = int(0.7 * len(y))
    parts = [olearn.make(name, covariance=cov).partial_fit(X[lo:hi], y[lo:hi])
             for lo, hi in ((0, n // 2), (n // 2, n))]
    cn = "S" if cov == "diag" else "L"
    ours = olearn.mix(parts)
    naive = olearn.mix(parts, rules={"W": "mean",
                                     cn: "min" if cov == "diag" else "covariance_mean"})

    def mse(m):
        return float(np.mean((m.predict(X[n:]) - y[n:]) ** 2))
    assert mse(ours) < mse(naive)
    if cov == "full":
        whole = olearn.make(name, covariance=cov).partial_fit(X[:n], y[:n])
        assert mse(ours) == pytest.approx(mse(whole), rel=1e-9)


# ---------------------------------------------------------------- second order
def test_rls_mix_of_halves_is_rls_of_the_whole():
    """RLS (full covariance, no forgetting) is Bayesian ridge regression: the product of
    the halves' Gaussians over the prior is exactly the model of the whole stream."""
    whole = olearn.make("rls", covariance="full").partial_fit(X, Y_REG)
    a = olearn.make("rls", covariance="full").partial_fit(X[:100], Y_REG[:100])
    b = olearn.make("rls", covariance="full").partial_fit(X[100:], Y_REG[100:])
    c = olearn.mix([a, b])
    np.testing.assert_allclose(c.coef_, whole.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(c.intercept_, whole.intercept_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(c.cov_, whole.cov_, rtol=1e-7, atol=1e-12)
    c.partial_fit(X[:20], Y_REG[:20])
    whole.partial_fit(X[:20], Y_REG[:20])
    np.testing.assert_allclose(c.coef_, whole.coef_, rtol=1e-7, atol=1e-9)


def test_diagonal_rls_adds_the_precisions():
    a = olearn.make("rls", covariance="diag").partial_fit(X[:100], Y_REG[:100])
    b = olearn.make("rls", covariance="diag").partial_fit(X[100:], Y_REG[100:])
    c = olearn.mix([a, b])
    P0 = a.lam
    np.testing.assert_allclose(1 / c.cov_, 1 / a.cov_ + 1 / b.cov_ - P0, rtol=1e-12)
    wa, wb = a.coef_ / a.cov_, b.coef_ / b.cov_
    np.testing.assert_allclose(c.coef_, (wa + wb) * c.cov_, rtol=1e-10)


# ---------------------------------------------------------------- labels, columns
def test_members_with_different_classes_are_aligned_by_label():
    """Member a saw classes 0, 1; b saw 1, 2: the mix has the three, and each member
    contributes its scores at its labels' places (a binary model's score f is -f/2, f/2
    for its two classes, 0 for a class it never saw)."""
    ia, ib = Y_3 < 2, Y_3 > 0
    a = olearn.make("pa1").partial_fit(X[ia], Y_3[ia])
    b = olearn.make("pa1").partial_fit(X[ib], Y_3[ib])
    c = olearn.mix([a, b])
    assert list(c.classes_) == [0, 1, 2]
    fa, fb = a.decision_function(X), b.decision_function(X)
    sa = np.column_stack([-fa / 2, fa / 2, 0 * fa])
    sb = np.column_stack([0 * fb, -fb / 2, fb / 2])
    la, lb = ia.sum() / (ia.sum() + ib.sum()), ib.sum() / (ia.sum() + ib.sum())
    np.testing.assert_allclose(c.decision_function(X), la * sa + lb * sb, atol=1e-12)
    c.partial_fit(X, Y_3)  # learns on, all three classes
    assert c.seen_.all()


def test_binary_members_with_labels_in_either_order():
    a = olearn.make("pa1").partial_fit(X[:100], Y_BIN[:100], classes=[0, 1])
    b = olearn.make("pa1").partial_fit(X[100:], Y_BIN[100:], classes=[1, 0])
    c = olearn.mix([a, b])
    assert list(c.classes_) == [0, 1]
    np.testing.assert_allclose(c.decision_function(X),
                               (100 * a.decision_function(X) + 140 * -b.decision_function(X))
                               / 240, atol=1e-12)


def test_dict_vocabularies_are_united_by_name():
    a, b = olearn.make("pa1"), olearn.make("pa1")
    for i in range(60):
        a.learn_one({"x": float(X[i, 0]), "y": float(X[i, 1])}, int(Y_BIN[i]))
        b.learn_one({"z": float(X[i, 2]), "x": float(X[i, 0])}, int(Y_BIN[i]))
    c = olearn.mix([a, b], weights=[1, 1])
    assert c.vocabulary_.to_list() == ["x", "y", "z"]

    def w(model, name):
        return model.coef_[0, model.vocabulary_.index(name)] if name in model.vocabulary_ \
            else 0.0
    for name in "xyz":
        assert w(c, name) == pytest.approx(0.5 * w(a, name) + 0.5 * w(b, name), abs=1e-15)
    c.learn_one({"q": 1.0, "x": 0.5}, 1)
    assert c.vocabulary_.to_list() == ["x", "y", "z", "q"]


def test_narrower_members_are_widened():
    a = olearn.make("pa1").partial_fit(X[:100, :4], Y_BIN[:100])
    b = olearn.make("pa1").partial_fit(X[100:], Y_BIN[100:])
    c = olearn.mix([a, b], weights=[1, 1])
    assert c.n_features_in_ == 6
    np.testing.assert_allclose(c.coef_[0, :4], 0.5 * (a.coef_[0] + b.coef_[0, :4]))
    np.testing.assert_allclose(c.coef_[0, 4:], 0.5 * b.coef_[0, 4:])


# ---------------------------------------------------------------- other families
def test_one_vs_rest_mixes_class_by_class():
    from olearn.multiclass import OneVsRest
    a = OneVsRest(olearn.make("pa1")).partial_fit(X[:100], Y_3[:100])
    b = OneVsRest(olearn.make("pa1")).partial_fit(X[100:], Y_3[100:])
    c = olearn.mix([a, b])
    np.testing.assert_allclose(c.coef_, (100 * a.coef_ + 140 * b.coef_) / 240, atol=1e-14)
    one = olearn.mix([a])
    np.testing.assert_array_equal(one.decision_function(X), a.decision_function(X))
    c.partial_fit(X, Y_3)


@pytest.mark.parametrize("name", ["pa1", "fobos"])
def test_one_vs_rest_members_with_different_classes(name):
    """A class a member never saw is its initial block (weights 0, no round begun)."""
    from olearn.multiclass import OneVsRest
    ia, ib = Y_3 < 2, Y_3 > 0
    a = OneVsRest(olearn.make(name)).partial_fit(X[ia], Y_3[ia])
    b = OneVsRest(olearn.make(name)).partial_fit(X[ib], Y_3[ib])
    c = olearn.mix([a, b])
    assert list(c.classes_) == [0, 1, 2] and c.seen_.all()
    la, lb = ia.sum() / (ia.sum() + ib.sum()), ib.sum() / (ia.sum() + ib.sum())
    want = np.vstack([la * a.coef_[0], la * a.coef_[1] + lb * b.coef_[0], lb * b.coef_[1]])
    np.testing.assert_allclose(c.coef_, want, atol=1e-14)
    before = np.mean(c.predict(X) == Y_3)
    c.partial_fit(X, Y_3)  # every block learns on (a block never begun starts here)
    assert np.isfinite(c.coef_).all() and np.mean(c.predict(X) == Y_3) > before


def test_kernel_support_sets_merge_within_the_budget():
    a = olearn.make("kernel-pa").partial_fit(X[:100], Y_BIN[:100])
    b = olearn.make("kernel-pa").partial_fit(X[100:], Y_BIN[100:])
    c = olearn.mix([a, b], weights=[1, 3])
    np.testing.assert_allclose(c.decision_function(X), 0.25 * a.decision_function(X)
                               + 0.75 * b.decision_function(X), atol=1e-12)
    assert c.n_support_ == a.n_support_ + b.n_support_
    a = olearn.make("kernel-pa", budget=20).partial_fit(X[:100], Y_BIN[:100])
    b = olearn.make("kernel-pa", budget=20).partial_fit(X[100:], Y_BIN[100:])
    c = olearn.mix([a, b])
    assert c.n_support_ == 20
    c.partial_fit(X, Y_BIN)
    assert c.n_support_ <= 20


def test_kernel_members_aligned_by_label_and_by_name():
    ia, ib = Y_3 < 2, Y_3 > 0
    a = olearn.make("kernel-pa").partial_fit(X[ia], Y_3[ia])
    b = olearn.make("kernel-pa").partial_fit(X[ib], Y_3[ib])
    c = olearn.mix([a, b])
    fa, fb = a.decision_function(X), b.decision_function(X)
    la, lb = ia.sum() / (ia.sum() + ib.sum()), ib.sum() / (ia.sum() + ib.sum())
    want = la * np.column_stack([-fa / 2, fa / 2, 0 * fa]) + \
        lb * np.column_stack([0 * fb, -fb / 2, fb / 2])
    np.testing.assert_allclose(c.decision_function(X), want, atol=1e-12)
    c.partial_fit(X, Y_3)
    # dict examples, a dot-product kernel: each support vector keeps its features' names
    a, b = olearn.make("kernel-pa", kernel="poly"), olearn.make("kernel-pa", kernel="poly")
    for i in range(60):
        a.learn_one({"x": float(X[i, 0]), "y": float(X[i, 1])}, int(Y_BIN[i]))
        b.learn_one({"z": float(X[i, 2]), "x": float(X[i, 0])}, int(Y_BIN[i]))
    c = olearn.mix([a, b], weights=[1, 1])
    assert c.vocabulary_.to_list() == ["x", "y", "z"]
    q = X[200:, :2]  # x, y (z = 0): a reads (x, y), b reads (z, x) = (0, x)
    np.testing.assert_allclose(
        c.decision_function(np.column_stack([q, 0 * q[:, 0]])),
        0.5 * a.decision_function(q) + 0.5 * b.decision_function(
            np.column_stack([0 * q[:, 0], q[:, 0]])), atol=1e-12)


def test_fogd_mixes_when_the_directions_are_shared():
    a = olearn.make("fogd").partial_fit(X[:100], Y_BIN[:100])
    b = olearn.make("fogd").partial_fit(X[100:], Y_BIN[100:])
    c = olearn.mix([a, b], weights=[1, 1])
    np.testing.assert_allclose(c.decision_function(X), 0.5 * (a.decision_function(X)
                                                              + b.decision_function(X)))
    b = olearn.make("fogd", random_state=1).partial_fit(X[100:], Y_BIN[100:])
    with pytest.raises(ValueError, match="'U' differs and must be shared"):
        olearn.mix([a, b])


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize("make_pair,match", [
    (lambda: (olearn.make("pa1"), olearn.make("ogd")), "members must be models of one"),
    (lambda: (olearn.make("pa1", C=1.0), olearn.make("pa1", C=2.0)), "member 1's C=2.0"),
    (lambda: (olearn.make("ogd", average=True), olearn.make("ogd")), "average"),
    (lambda: (olearn.make("ofs"), olearn.make("ofs")), "OFSClassifier cannot be mixed"),
    (lambda: (olearn.make("kernel-rls"), olearn.make("kernel-rls")), "kernel RLS"),
    (lambda: tuple(olearn.make("kernel-perceptron", budget=10, budget_policy="forgetron")
                   for _ in range(2)), "forgetron"),
    (lambda: (olearn.make("auto"), olearn.make("auto")), "mix its members instead"),
    (lambda: (olearn.make("nogd", B=10, k=5), olearn.make("nogd", B=10, k=5)),
     "differs and must be shared"),
])
def test_refusals_say_why(make_pair, match):
    a, b = make_pair()
    a.partial_fit(X[:120], _target(a)[:120])
    b.partial_fit(X[120:], _target(b)[120:])
    with pytest.raises(ValueError, match=match):
        olearn.mix([a, b])


def test_wrappers_copy_one_and_refuse_two():
    from olearn.drift import DDM, OnDrift
    from olearn.preprocessing import Scaled
    for wrapper, match in ((Scaled(olearn.make("pa1")), "feature statistics"),
                           (OnDrift(olearn.make("pa1"), DDM()), "drift detector")):
        a = wrapper.partial_fit(X, Y_BIN)
        one = olearn.mix([a])
        assert one is not a
        np.testing.assert_array_equal(one.predict(X), a.predict(X))
        with pytest.raises(ValueError, match=match):
            olearn.mix([a, one])


def test_rda_mix_adds_the_gradient_sums():
    """RDA (l1 = 0): ``w = -S / (gamma sqrt(t))`` from the gradient sums ``S``, which
    add: the mix is ``(sqrt(t_a) w_a + sqrt(t_b) w_b) / sqrt(t_a + t_b)``."""
    a = olearn.make("rda", l1=0.0).partial_fit(X[:90], Y_BIN[:90])
    b = olearn.make("rda", l1=0.0).partial_fit(X[90:], Y_BIN[90:])
    c = olearn.mix([a, b])
    want = (np.sqrt(90) * a.coef_ + np.sqrt(150) * b.coef_) / np.sqrt(240)
    np.testing.assert_allclose(c.coef_, want, rtol=1e-12)
    want = (np.sqrt(90) * a.intercept_ + np.sqrt(150) * b.intercept_) / np.sqrt(240)
    np.testing.assert_allclose(c.intercept_, want, rtol=1e-12)


def test_expert_advice_refuses_whatever_its_members():
    from olearn.ensemble import ExpertAdvice
    a = ExpertAdvice([olearn.make("pa1"), olearn.make("ogd")]).partial_fit(X, Y_BIN)
    b = ExpertAdvice([olearn.make("pa1"), olearn.make("ogd")]).partial_fit(X, Y_BIN)
    with pytest.raises(ValueError, match="ExpertAdvice cannot be mixed: .* mix its members"):
        olearn.mix([a, b])
    np.testing.assert_array_equal(olearn.mix([a]).predict(X), a.predict(X))


def test_bad_calls():
    a = olearn.make("pa1").partial_fit(X, Y_BIN)
    with pytest.raises(ValueError, match="not fitted"):
        olearn.mix([a, olearn.make("pa1")])
    with pytest.raises(ValueError, match="empty"):
        olearn.mix([])
    with pytest.raises(ValueError, match="list of models"):
        olearn.mix(a)
    with pytest.raises(ValueError, match="weights must be 2"):
        olearn.mix([a, a], weights=[1, -1])
    with pytest.raises(ValueError, match="unknown mixing rule"):
        olearn.mix([a, a], rules={"W": "median"})
    from olearn.portfolio import EG
    with pytest.raises(ValueError, match="portfolio strategies"):
        olearn.mix([EG(), EG()])
    with pytest.raises(ValueError, match="dict examples"):
        b = olearn.make("pa1")
        b.learn_one({"x": 1.0}, 1)
        olearn.mix([a, b])


def test_import_stays_light():
    import subprocess
    import sys
    code = ("import sys, olearn; olearn.mix; "
            "print('numba' in sys.modules, 'sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
