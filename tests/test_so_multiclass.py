"""Multiclass second-order classifiers (single constraint against the top-scoring wrong
class, one covariance per class) against the numpy reference of test_so_reference.py."""
import numpy as np
import pytest
import scipy.sparse as sp

from olearn.second_order import AROWClassifier
from test_so_reference import LEARNERS, _close, _pendigits, arow, reference_multiclass


# every learner with the full covariance; the diagonal layout's multiclass code is shared
# (only the step differs, tested above), so it runs for AROW and IELLIP (which rescales)
@pytest.mark.parametrize("name, cov", [(nm, "full") for nm in sorted(LEARNERS)]
                         + [("arow", "diag"), ("iellip", "diag")])
def test_multiclass_matches_reference(name, cov):
    X, y = _pendigits()
    make, ref, sigma0 = LEARNERS[name]
    scores, W, S = reference_multiclass(X, y, ref(), sigma0, cov == "full", y.max() + 1)
    model = make().set_params(covariance=cov)
    got = model.predict_learn(X, y, return_scores=True)
    _close(got, scores, 1e-9)
    _close(model.state_["W"], W, 1e-9)
    _close(model._sigma(), S, 1e-9)
    assert model.n_updates_ > 10


@pytest.mark.parametrize("cov", ["full", "diag"])
def test_multiclass_arow_dense_sparse_and_one_at_a_time(cov):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((150, 5)) * (rng.random((150, 5)) < 0.7)
    y = np.argmax(X @ rng.standard_normal((5, 4)) + 0.3 * rng.standard_normal((150, 4)), 1)
    scores, W, S = reference_multiclass(X, y, arow(0.7), 1.0, cov == "full", 4)
    for data in (X, sp.csr_matrix(X)):
        model = AROWClassifier(r=0.7, covariance=cov)
        _close(model.predict_learn(data, y, return_scores=True), scores)
        _close(model.state_["W"], W)
        _close(model._sigma(), S)
    one = AROWClassifier(r=0.7, covariance=cov)
    one.partial_fit(X[:1], y[:1], classes=[0, 1, 2, 3])
    for xi, yi in zip(X[1:], y[1:]):
        one.learn_one(xi, yi)
    _close(one.state_["W"], W)
    _close(one._sigma(), S)
