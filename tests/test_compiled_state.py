"""Named compiled state: every declared learner's score is pure, and its kernel
parameters are named and checked against its declaration.

* The declared scorer (``Kernels.scorer``, the score the pass runs on every row) called
  twice on a row leaves every state array byte-identical (a feature map's declared
  scratch slots, which hold the row's features, excepted: they are then what one call
  left) and gives the model's own decision values.
* ``_kernel_params()`` is a mapping by name; a missing or unknown name is one clear
  error naming the learner and the parameter.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import registry
from olearn._compiled.declare import Kernels, declare, declared
from olearn._rows import kernel_rows, score_rows
from olearn.kernel import KernelLMSRegressor
from olearn.linear import PAClassifier


def _declared_learners():
    out = []
    for name in registry.names():
        model = olearn.make(name)
        if isinstance(getattr(model, "_kernels", None), Kernels):
            out.append(name)
    return out


DECLARED = _declared_learners()


def _data(regression, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 6))
    X[rng.random(X.shape) < 0.3] = 0.0
    if regression:
        return X, X @ rng.normal(size=6) + 0.5
    return X, (X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=50) > 0).astype(int)


def test_every_kind_of_learner_is_covered():
    assert len(DECLARED) >= 40  # linear, second-order, sparse, feature maps
    for name in ("pa1", "ogd", "ndag", "arow", "cw", "ftrl", "fobos", "ofs-partial", "fogd",
                 "nogd", "rls", "pa-reg"):
        assert name in DECLARED


@pytest.mark.parametrize("name", DECLARED)
def test_declared_score_changes_nothing(name):
    model = olearn.make(name)
    regression = registry.learner_kind(name) == "regressor"
    X, y = _data(regression)
    # a first row with large values makes NDAG rescale, OFS explore, FOBOS owe shrinks
    model.partial_fit(X[:40], y[:40], **({} if regression else {"classes": [0, 1]}))
    kernels = model._kernels
    names = [s.name for s in model._slots]
    scratch = set(kernels.declaration.scratch)
    assert scratch <= set(names)
    state = model._state_tuple()
    K = state[0].shape[0]
    predict = model.predict if regression else model.decision_function
    expected = np.asarray(predict(X[40:])).reshape(10, -1)
    for rows in (X[40:], sp.csr_matrix(X[40:])):
        krows = kernel_rows(rows, model.fit_intercept, model._constant())
        before = [a.copy() for a in state]
        first = np.full((10, K), np.nan)
        score_rows(kernels.scorer, krows, state, first)
        once = [a.copy() for a in state]
        second = np.full((10, K), np.nan)
        score_rows(kernels.scorer, krows, state, second)
        for slot, a, b, c in zip(names, before, once, state):
            assert c.tobytes() == b.tobytes(), (name, slot)  # twice = once
            if slot not in scratch:
                assert a.tobytes() == c.tobytes(), (name, slot)  # and nothing changed
        assert first.tobytes() == second.tobytes()
        np.testing.assert_allclose(first, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["pa1", "ogd", "arow", "ftrl", "fogd"])
def test_params_are_the_declared_named_tuple(name):
    model = olearn.make(name)
    model._check_params()
    packed = model._packed_params()
    assert isinstance(packed, model._kernels.params)
    assert set(type(packed)._fields) == set(model._kernel_params())
    assert all(isinstance(v, float) for v in packed)


class _Missing(PAClassifier):
    def _kernel_params(self):
        return {"c": 1.0}


class _Extra(PAClassifier):
    def _kernel_params(self):
        return {"c": 1.0, "D": 0.0, "gamma": 2.0}


class _Positional(PAClassifier):
    def _kernel_params(self):
        return (1.0, 0.0)


def test_a_missing_parameter_is_an_error_naming_the_learner_and_it():
    X, y = _data(False)
    with pytest.raises(ValueError, match=r"_Missing \(linear\.pa\): kernel parameter 'D'"):
        _Missing().partial_fit(X, y)
    with pytest.raises(ValueError, match=r"_Missing .*'D'"):
        _Missing().learn_one(X[0], y[0])


def test_an_unknown_parameter_is_an_error_naming_it():
    X, y = _data(False)
    with pytest.raises(ValueError, match=r"_Extra \(linear\.pa\): .*'gamma'.*not a declared"):
        _Extra().partial_fit(X, y)


def test_positional_parameters_are_refused():
    X, y = _data(False)
    with pytest.raises(TypeError, match=r"_Positional \(linear\.pa\).*\('c', 'D'\)"):
        _Positional().partial_fit(X, y)


def test_a_declaration_checks_its_parameter_names():
    score = declared()["linear.pa"].score
    with pytest.raises(ValueError, match="tuple of parameter names"):
        declare("test.bad", params="eta", score=score)
    with pytest.raises(ValueError, match="named twice"):
        declare("test.bad", params=("eta", "eta"), score=score)


SUPPORT = [n for n in registry.names() if hasattr(olearn.make(n), "_expansion")]


def test_every_expansion_is_declared():
    assert set(SUPPORT) == {"kernel-perceptron", "kernel-pa", "kernel-pa-reg", "kernel-lms",
                            "kernel-rls", "norma", "norma-reg"}
    assert len({olearn.make(n)._expansion.name for n in SUPPORT}) == len(SUPPORT)


@pytest.mark.parametrize("name", SUPPORT)
def test_support_set_scores_change_nothing(name):
    model = olearn.make(name)
    regression = registry.learner_kind(name) == "regressor"
    X, y = _data(regression)
    model.partial_fit(X[:40], y[:40], **({} if regression else {"classes": [0, 1]}))
    before = {k: a.copy() for k, a in model.state_.items()}
    rows = kernel_rows(X[40:], model.fit_intercept, model._constant())
    first = model._scores_of(rows, 10)
    second = model._scores_of(rows, 10)
    assert first.tobytes() == second.tobytes()
    for k, a in model.state_.items():
        assert a.tobytes() == before[k].tobytes(), (name, k)
    predict = model.predict if regression else model.decision_function
    np.testing.assert_array_equal(first[:, 0], predict(X[40:]))


class _KernelLMSMisnamed(KernelLMSRegressor):
    def _rule_params(self):
        return {"step": self.eta}


def test_an_expansion_checks_its_parameter_names():
    X, y = _data(True)
    with pytest.raises(ValueError, match=r"_KernelLMSMisnamed \(kernel\.lms\): kernel "
                                         r"parameter 'eta'"):
        _KernelLMSMisnamed().partial_fit(X, y)
