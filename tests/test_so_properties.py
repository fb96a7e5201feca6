"""Second-order learners: numerical robustness, the seed book's outlier experiment,
diagonal = full on one-hot rows, the covariance choice, predict_proba, fitted
attributes, persistence, parameters."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm

import olearn
from olearn.linear import PAClassifier
from olearn.second_order import (AROWClassifier, AROWRegressor, CWClassifier,
                                 IELLIPClassifier, NAROWClassifier, NHERDClassifier,
                                 RLSRegressor, SCWClassifier, SOPClassifier)

CLASSIFIERS = [AROWClassifier, CWClassifier, SCWClassifier,
               lambda **kw: SCWClassifier(variant="II", **kw), NHERDClassifier,
               NAROWClassifier, SOPClassifier, IELLIPClassifier]
REGRESSORS = [RLSRegressor, AROWRegressor]


# ---------------------------------------------------------------- robustness
def _assert_sound(model, full):
    """No NaN/inf; full: exactly symmetric and positive definite (Cholesky of the
    covariance rescaled to unit diagonal); diagonal: strictly positive."""
    W, C = model.state_["W"], model._sigma()[0]
    assert np.isfinite(W).all() and np.isfinite(C).all()
    if full:
        L = model.state_["L"][0]
        assert np.isfinite(L).all()
        assert np.array_equal(C, C.T)
        d = np.sqrt(np.diag(C))
        assert (d > 0).all()
        np.linalg.cholesky(C / np.outer(d, d))
    else:
        assert (C > 0).all()
    return C


@pytest.fixture(scope="module")
def scaled_stream():
    """A million rows whose three features differ in scale by 1e6."""
    rng = np.random.default_rng(0)
    n = 1_000_000
    scales = np.array([1.0, 1e3, 1e6])
    X = rng.standard_normal((n, 3)) * scales
    y_reg = X @ (1.0 / scales) + 0.1 * rng.standard_normal(n)
    y_noise = np.where(rng.random(n) < 0.5, 1, -1)   # pure noise: every row is a margin error
    return X, y_reg, y_noise


@pytest.mark.parametrize("cov", ["full", "diag"])
def test_a_million_updates_on_badly_scaled_features(scaled_stream, cov):
    X, y_reg, y_noise = scaled_stream
    rls = RLSRegressor(covariance=cov, shuffle=False).fit(X, y_reg)
    assert rls.n_updates_ == len(y_reg)
    C = _assert_sound(rls, cov == "full")
    if cov == "full":       # and accurate: P = (X'X + I)^-1, compared after unit scaling
        Xi = np.hstack([np.ones((len(X), 1)), X])
        exact = np.linalg.inv(Xi.T @ Xi + np.eye(4))
        d = np.sqrt(np.diag(exact))
        np.testing.assert_allclose(C / np.outer(d, d), exact / np.outer(d, d), atol=1e-8)
    arow = AROWClassifier(covariance=cov, shuffle=False).fit(X, y_noise)
    assert arow.n_updates_ > 999_000
    _assert_sound(arow, cov == "full")
    # NHERD's precision increment C (2 + C v) makes c v reach 1e24 on the first rows here
    nherd = NHERDClassifier(covariance=cov, shuffle=False).fit(X[:300_000], y_noise[:300_000])
    assert nherd.n_updates_ > 200_000
    _assert_sound(nherd, cov == "full")


@pytest.mark.parametrize("make", CLASSIFIERS[1:4] + CLASSIFIERS[5:])
def test_other_classifiers_stay_sound_on_badly_scaled_features(scaled_stream, make):
    X, _, y_noise = scaled_stream
    for cov in ("full", "diag"):
        _assert_sound(make(covariance=cov, shuffle=False).fit(X[:100_000], y_noise[:100_000]), cov == "full")


# ---------------------------------------------------------------- the seed book
def _outlier_problem(seed):
    """The seed book's Fig. 31.7 data: two Gaussian classes around x1 = -15 (+1) and
    x1 = -5 (-1); the first two positive points are moved by +10 (outliers)."""
    rng = np.random.default_rng(seed)
    n = 50
    X = np.column_stack([np.r_[rng.standard_normal(25) - 15, rng.standard_normal(25) - 5],
                         rng.standard_normal(n)])
    y = np.r_[np.ones(25), -np.ones(25)]
    X[:2, 0] += 10
    outlier = np.zeros(n, bool)
    outlier[:2] = True
    order = rng.permutation(n)
    return X[order], y[order], outlier[order]


def test_arow_resists_outliers_where_pa_is_pulled_away():
    """AROW (Sigma = I, r = 1: the book's Fig. 31.7) separates every non-outlier point;
    PA with the same regularization (the book's Fig. 31.3 rule, squared hinge with
    lambda = 1, i.e. PA-II with C = 1/2) is pulled away by the outliers."""
    for seed in range(10):
        X, y, outlier = _outlier_problem(seed)
        arow = AROWClassifier(r=1.0, covariance="full", shuffle=False).fit(X, y)
        pa = PAClassifier(variant="PA-II", C=0.5, shuffle=False).fit(X, y)
        clean = ~outlier
        assert np.all(arow.predict(X[clean]) == y[clean]), seed
        assert np.sum(pa.predict(X[clean]) != y[clean]) >= 3, seed
        # AROW's boundary (at x2 = 0) lies between the two clusters
        assert -14 < -arow.intercept_[0] / arow.coef_[0, 0] < -6


# ---------------------------------------------------------------- diagonal = full
def test_diagonal_equals_full_on_one_hot_rows():
    rng = np.random.default_rng(1)
    n, d = 200, 6
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, n)] = rng.uniform(0.2, 3.0, n)
    yb = np.where(rng.random(n) < 0.6, 1, -1)
    ym = rng.integers(0, 3, n)
    yr = rng.standard_normal(n)
    for make in CLASSIFIERS + REGRESSORS:
        # multiclass: AROW (the multiclass code is shared by every classifier)
        ys = [yr] if make in REGRESSORS else [yb, ym] if make is AROWClassifier else [yb]
        for y in ys:
            full = make(covariance="full", fit_intercept=False, shuffle=False).fit(X, y)
            diag = make(covariance="diag", fit_intercept=False, shuffle=False).fit(X, y)
            Cf, Cd = full._sigma(), diag._sigma()
            off = Cf - np.einsum("kii->ki", Cf)[:, :, None] * np.eye(d)
            assert np.abs(off).max() <= 1e-15 * np.abs(Cf).max()
            # CW's variances collapse (to 1e-18 here), which magnifies rounding
            tol = 1e-6 if make is CWClassifier else 1e-11
            np.testing.assert_allclose(np.einsum("kii->ki", Cf), Cd, rtol=tol)
            np.testing.assert_allclose(full.state_["W"], diag.state_["W"], rtol=tol,
                                       atol=1e-14)
            # (CW-type updates leave the margin exactly on the constraint, so a repeated
            # row may or may not pass it by rounding: counts can differ by ~0-size steps)
            assert full.n_updates_ > 0 and diag.n_updates_ > 0


# ---------------------------------------------------------------- the covariance choice
def test_auto_covariance_from_the_width_of_the_first_input():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((4, 1000))
    y = [0, 1, 0, 1]
    assert AROWClassifier().fit(X, y).covariance_ == "full"
    assert AROWClassifier().fit(sp.csr_matrix(X), y).covariance_ == "full"
    wide = np.hstack([X, X[:, :1]])
    assert AROWClassifier().fit(wide, y).covariance_ == "diag"
    assert AROWClassifier().fit(sp.csr_matrix(wide), y).covariance_ == "diag"
    assert AROWClassifier(covariance="full").fit(wide, y).covariance_ == "full"
    assert AROWClassifier(covariance="diag").fit(X, y).covariance_ == "diag"
    one = AROWClassifier().learn_one(X[0], 0)
    assert one.covariance_ == "full"
    words = AROWClassifier().learn_one({"good": 1.0}, 1).learn_one({"bad": 1.0}, 0)
    assert words.covariance_ == "diag" and words.cov_.shape == (1, 2)
    grown = AROWClassifier(covariance="full", fit_intercept=False).learn_one({"a": 1.0}, 1)
    grown.learn_one({"b": 2.0, "c": 1.0}, 0)
    assert grown.cov_.shape == (1, 3, 3)
    assert grown.cov_[0, 2, 0] == 0.0 and grown.cov_[0, 2, 1] != 0.0  # c met b, never a
    model = RLSRegressor().fit(X, rng.standard_normal(4))
    assert model.covariance_ == "full" and model.cov_.shape == (1000, 1000)
    model.set_params(covariance="diag").partial_fit(X, np.ones(4))   # kept once fitted
    assert model.covariance_ == "full"
    assert model.fit(X, np.ones(4)).covariance_ == "diag"            # fit starts afresh


def test_cov_is_the_covariance_of_coef():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 4))
    y = rng.integers(0, 2, 30)
    for cov in ("full", "diag"):
        m = AROWClassifier(covariance=cov, shuffle=False).fit(X, y)
        C = m._sigma()
        want = C[:, 1:, 1:] if cov == "full" else C[:, 1:]
        np.testing.assert_array_equal(m.cov_, want)
        assert m.coef_.shape == (1, 4)
        m3 = AROWClassifier(covariance=cov, shuffle=False).fit(X, np.arange(30) % 3)
        assert m3.cov_.shape == ((3, 4, 4) if cov == "full" else (3, 4))
        r = RLSRegressor(covariance=cov, shuffle=False).fit(X, X[:, 0])
        assert r.cov_.shape == ((4, 4) if cov == "full" else (4,))


def test_save_load_keeps_the_layout(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    for cov in ("full", "diag"):
        m = SCWClassifier(covariance=cov, shuffle=False).fit(X, y)
        m.save(tmp_path / f"{cov}.olm")
        back = olearn.load(tmp_path / f"{cov}.olm")
        assert back.covariance_ == cov
        np.testing.assert_array_equal(back.cov_, m.cov_)
        np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
        back.partial_fit(X, y)
        m.partial_fit(X, y)
        np.testing.assert_array_equal(back.state_["W"], m.state_["W"])


# ---------------------------------------------------------------- predict_proba
@pytest.mark.parametrize("cov", ["full", "diag"])
def test_predict_proba_is_the_probit_predictive_of_the_margin(cov):
    """``Phi(margin / sqrt(1 + its variance))``: the margin under the weight
    distribution, read with a unit probit noise (issue 44: without the noise the
    probabilities were near 0 or 1 and lost to a coin on log loss)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 4)) * (rng.random((80, 4)) < 0.7)
    y = np.where(X @ [1.0, -2.0, 0.5, 0.0] > 0, "yes", "no")
    for model in (CWClassifier(covariance=cov), SCWClassifier(variant="II", covariance=cov)):
        model.fit(X[:60], y[:60])
        Xi = np.hstack([np.ones((20, 1)), X[60:]])
        C = model._sigma()[0]
        var = np.einsum("ij,jk,ik->i", Xi, C, Xi) if cov == "full" else (Xi * Xi) @ C
        want = norm.cdf(model.decision_function(X[60:]) / np.sqrt(1.0 + var))
        for data in (X[60:], sp.csr_matrix(X[60:])):
            P = model.predict_proba(data)
            np.testing.assert_allclose(P[:, 1], want, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(P.sum(axis=1), 1.0)
            assert list(model.classes_[np.argmax(P, axis=1)]) == list(model.predict(data))
    three = CWClassifier(shuffle=False).fit(X, np.arange(80) % 3)
    P = three.predict_proba(X)  # (multiclass: the largest margin's probability, see
    np.testing.assert_allclose(P.sum(axis=1), 1.0)  # tests/test_sklearn_declared.py)
    assert P.shape == (80, 3) and (P >= 0).all()
    assert hasattr(AROWClassifier(), "predict_proba")  # AROW keeps the same Gaussian (see arow.py)


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize("make, bad", [
    (AROWClassifier, {"r": 0.0}), (AROWRegressor, {"r": -1.0}),
    (RLSRegressor, {"lam": 0}), (RLSRegressor, {"forgetting": 1.5}),
    (CWClassifier, {"eta": 0.5}), (CWClassifier, {"a": -1.0}),
    (SCWClassifier, {"C": 0.0}), (SCWClassifier, {"variant": "III"}),
    (SCWClassifier, {"eta": 1.0}), (NHERDClassifier, {"C": np.nan}),
    (NAROWClassifier, {"b": 0.0}), (SOPClassifier, {"a": 0.0}),
    (IELLIPClassifier, {"b": 1.0}), (IELLIPClassifier, {"c": 0.0}),
    (AROWClassifier, {"covariance": "dense"}),
])
def test_bad_parameters_are_refused(make, bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        make(**bad).fit(np.eye(3), [0, 1, 1] if make not in REGRESSORS else [0.0, 1.0, 2.0])


def test_registered_names():
    expect = {"rls": RLSRegressor, "arow": AROWClassifier, "arow-reg": AROWRegressor,
              "cw": CWClassifier, "scw": SCWClassifier, "scw2": SCWClassifier,
              "nherd": NHERDClassifier, "narow": NAROWClassifier, "sop": SOPClassifier,
              "iellip": IELLIPClassifier}
    for name, cls in expect.items():
        assert type(olearn.make(name)) is cls
    assert olearn.make("scw").variant == "I" and olearn.make("scw2").variant == "II"
    assert olearn.make("cw", eta=0.7).eta == 0.7


def test_arow_predict_proba_is_the_probit_of_its_gaussian_margin():
    from scipy.special import ndtr

    import olearn
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    m = olearn.make("arow").partial_fit(X, y)
    Sigma = m._sigma()[0]
    if Sigma.ndim == 1:
        Sigma = np.diag(Sigma)
    s = m.decision_function(X)
    p = m.predict_proba(X)[:, 1]
    Xc = np.column_stack([np.full(60, m._constant()), X]) if m.fit_intercept else X
    v = np.einsum("ij,jk,ik->i", Xc, Sigma[:Xc.shape[1], :Xc.shape[1]], Xc)
    np.testing.assert_allclose(p, ndtr(s / np.sqrt(1.0 + v)), rtol=1e-10)
    assert np.all((p > 0.5) == (s > 0))
    three = olearn.make("arow").partial_fit(X, np.arange(60) % 3)  # (issue 32: kept)
    np.testing.assert_allclose(three.predict_proba(X).sum(axis=1), 1.0)
