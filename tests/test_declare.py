"""The declaration mechanism (``olearn._compiled.declare``): entry points generated from
declarations, for olearn's learners and for a learner declared outside the package."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

import olearn
from olearn._compiled import declare as decl
from olearn._compiled.averaging import add_row, avg_begin, avg_scores
from olearn._compiled.driver import BINARY, MULTICLASS, REGRESSION
from olearn.base import OnlineClassifier
from olearn.linear._linear import LinearModel
from olearn._params import store_params
from olearn.linear.pa import PAClassifier
from olearn.linear.pa import KERNELS as PA_KERNELS


# A learner declared outside olearn: the perceptron rule, written here.
@njit(inline="always")
def _my_rule(state, params, idx, val, y, sw, out, seen):
    if y * state[2][0, 0] > 0.0:
        return 0
    add_row(state[0], state[1], state[2], 0, y * sw, idx, val)
    return 1


MY_KERNELS = decl.declare("tests.my_perceptron", score=avg_scores, binary=_my_rule)


class MyPerceptron(LinearModel, OnlineClassifier):
    """The perceptron, declared in a test file.

    Parameters
    ----------
    average : bool, predict with the average of the iterates.
    """
    _kernels = MY_KERNELS

    def __init__(self, average=False, fit_intercept=True, epochs=1, shuffle=True,
                 random_state=None):
        store_params(self, locals())


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6))
    X[X < 0.2] = 0.0
    return X, np.where(X[:, 0] - X[:, 1] > 0, 1, -1)


def test_outside_declaration_runs_and_equals_olearn_perceptron():
    X, y = _data()
    for data in (X, sp.csr_matrix(X)):
        mine = MyPerceptron().predict_learn(data, y)
        ref = olearn.make("perceptron").predict_learn(data, y)
        assert np.array_equal(mine, ref)


def test_outside_declaration_name_carries_its_source_digest():
    """Edits to a file outside olearn change the key, so its cache is never stale."""
    assert MY_KERNELS.name.startswith("tests.my_perceptron@")
    assert olearn.make("pa1")._kernels.name == "linear.pa"


def test_kernels_mapping():
    pa = olearn.make("pa1")._kernels
    assert set(pa) == {BINARY, MULTICLASS} and len(pa) == 2
    with pytest.raises(KeyError):
        pa[REGRESSION]
    ogd = olearn.make("ogd")._kernels
    assert ogd.name == "linear.ogd"
    with pytest.raises(ValueError, match="no loss"):
        ogd.loss("nonsense")
    with pytest.raises(ValueError, match="pick a loss"):
        type(ogd)("linear.ogd")[BINARY]
    assert "binary" in repr(pa)


def test_each_loss_is_its_own_entry_point_and_nothing_is_generated(tmp_path):
    """Losses share one rule; no module is written and sys.modules is untouched."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = """
import sys, numpy as np
from olearn.linear import OGDClassifier
X = np.random.default_rng(0).standard_normal((20, 3)); y = np.arange(20) % 2
a = OGDClassifier(loss="hinge").fit(X, y); b = OGDClassifier(loss="logistic").fit(X, y)
ka, kb = a._kernels[1], b._kernels[1]
print(ka is not kb, not [m for m in sys.modules if "generated" in m
                           or getattr(sys.modules[m], "__file__", "") and
                           str(sys.modules[m].__file__).startswith(sys.argv[-1])])
"""
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]
    assert not list(tmp_path.rglob("*.py"))


# The averaged learners' pass runs score and round start as one (``score_begin``): the
# same learner declared with the two steps apart must give the same numbers, bit for bit.
@njit(inline="always")
def _apart_begin(state, idx, val, out):
    avg_begin(state, idx, val, out)


TWO_STEPS = decl.declare("tests.pa_two_steps", params=("c", "D"), score=avg_scores,
                         begin=_apart_begin,
                         binary=PA_KERNELS.declaration.rules[decl.BINARY])


class _TwoStepsPA(PAClassifier):
    _kernels = TWO_STEPS


def test_score_and_round_start_in_one_equal_the_two_steps():
    assert olearn.make("pa1")._kernels.declaration.score_begin is not None
    assert TWO_STEPS.declaration.score_begin is None
    X, y = _data(n=300, seed=3)
    for data in (X, sp.csr_matrix(X)):
        for average in (False, True):
            one, two = PAClassifier(average=average), _TwoStepsPA(average=average)
            for lo in (0, 100, 200):       # several calls: averaging across them
                a = one.predict_learn(data[lo:lo + 100], y[lo:lo + 100], return_scores=True)
                b = two.predict_learn(data[lo:lo + 100], y[lo:lo + 100], return_scores=True)
                assert np.array_equal(a, b)
            assert np.array_equal(one.coef_, two.coef_) and one.n_updates_ == two.n_updates_
            assert average is False or not np.array_equal(one.coef_, one.state_["W"][0, 1:])
