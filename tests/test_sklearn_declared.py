"""scikit-learn's checks, declared (issue 32, item 8): every estimator declares the
checks it departs from with the reason (``olearn.expected_failed_checks``), and
``predict_proba`` exists exactly when it works: the same before and after a binary or
multiclass fit.  ``tests/test_estimators.py`` runs ``check_estimator`` on every
registered learner with those declarations and nothing more.

The Gaussian-margin classifiers' multiclass probability (``P(margin k is the largest)``)
is checked against two references: the closed form of two classes, ``Phi((m1 - m0) /
sqrt(v0 + v1))``, and a Monte Carlo draw of the weights.
"""
import numpy as np
import pytest
from scipy.special import ndtr

import olearn
from olearn.registry import available, lookup
from olearn.second_order._base import argmax_probability

SAMPLE_WEIGHT = {"check_sample_weight_equivalence_on_dense_data",
                 "check_sample_weight_equivalence_on_sparse_data"}


def _classifiers():
    seen, out = set(), []
    for name in available():
        cls, defaults = lookup(name)
        if (cls, tuple(sorted(defaults.items()))) in seen:
            continue
        seen.add((cls, tuple(sorted(defaults.items()))))
        out.append(name)
    return out


#: least squares (RLS without forgetting, AROW's regressor, kernel RLS): a row of weight
#: k is k copies of the row, so scikit-learn's sample-weight checks pass and are not
#: declared (tests/test_estimators.py's declarations are strict: a stale one fails)
WEIGHT_IS_COPIES = {"rls", "arow-reg", "kernel-rls"}


def test_every_learner_declares_the_sample_weight_checks_with_a_reason():
    for name in _classifiers():
        declared = olearn.expected_failed_checks(olearn.make(name))
        if name in WEIGHT_IS_COPIES:
            assert not SAMPLE_WEIGHT & set(declared), name
        else:
            assert SAMPLE_WEIGHT <= set(declared), name
        assert all(isinstance(r, str) and len(r) > 20 for r in declared.values()), name
    # a class's own declaration adds to its bases', it does not replace them
    own = olearn.expected_failed_checks(olearn.make("pa-reg"))
    assert "check_regressors_train" in own and SAMPLE_WEIGHT <= set(own)
    # and None removes a base's entry (RLS with forgetting 1 weighs rows as copies)
    assert "check_sample_weight_equivalence_on_dense_data" in \
        olearn.expected_failed_checks(olearn.make("rls", forgetting=0.99))


def _blobs(k, n=90, d=4, seed=0):
    rng = np.random.default_rng(seed)
    centers = 3 * rng.standard_normal((k, d))
    y = np.arange(n) % k
    return centers[y] + rng.standard_normal((n, d)), y


# a learner of each family whose predict_proba could depend on the fit
@pytest.mark.parametrize("name", ["arow", "cw", "scw", "ftrl", "ogd", "pa1"])
def test_predict_proba_exists_the_same_before_and_after_any_fit(name):
    before = hasattr(olearn.make(name), "predict_proba")
    for k in (2, 3):
        X, y = _blobs(k)
        model = olearn.make(name).fit(X, y)
        assert hasattr(model, "predict_proba") == before, (name, k)
        if before:
            P = model.predict_proba(X)
            assert P.shape == (len(y), k)
            np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
            assert np.mean(model.classes_[P.argmax(axis=1)] == model.predict(X)) > 0.97


def test_argmax_probability_of_two_margins_is_the_closed_form():
    rng = np.random.default_rng(1)
    mean = rng.standard_normal((50, 2)) * 3
    var = rng.random((50, 2)) * 4 + 0.01
    p = argmax_probability(mean, var)
    ref = ndtr((mean[:, 1] - mean[:, 0]) / np.sqrt(var.sum(axis=1)))
    np.testing.assert_allclose(p[:, 1], ref, atol=1e-6)  # (variances within 400x)


def test_multiclass_probit_matches_monte_carlo_over_the_weights():
    X, y = _blobs(4, n=120, d=5, seed=3)
    model = olearn.make("arow", covariance="diag").fit(X, y)
    x = X[:4]
    P = model.predict_proba(x)
    rng = np.random.default_rng(0)
    mu, S = model.state_["W"], model.state_["S"]           # (K, d) each, diagonal
    xa = np.hstack([np.full((len(x), 1), model.intercept_scaling), x])
    draws = 100_000
    for i, xi in enumerate(xa):
        w = mu[:, None, :] + np.sqrt(S)[:, None, :] * rng.standard_normal(
            (mu.shape[0], draws, mu.shape[1]))
        noise = rng.standard_normal((mu.shape[0], draws))  # (the unit probit noise)
        freq = np.bincount((w @ xi + noise).argmax(axis=0), minlength=mu.shape[0]) / draws
        np.testing.assert_allclose(P[i], freq, atol=0.006)
