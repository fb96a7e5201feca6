"""FTRL-Proximal with per-coordinate learning rates.

McMahan et al., "Ad click prediction: a view from the trenches", KDD 2013,
Algorithm 1.  Per coordinate ``i`` two sums ``z_i`` and ``n_i``; the weights are the
closed form

    w_i = 0                                                   if |z_i| <= l1,
    w_i = -(z_i - sign(z_i) l1) / ((beta + sqrt(n_i)) / alpha + l2)   otherwise;

predict ``p = sigmoid(w . x)``; with the gradient ``g_i = (p - y) x_i`` (labels 0/1:
``y = 1`` for ``classes_[1]``; the same as olearn's logistic loss on -1/+1 labels),
for every ``i`` with ``x_i != 0``: ``sigma_i = (sqrt(n_i + g_i^2) - sqrt(n_i)) /
alpha``, ``z_i += g_i - sigma_i w_i``, ``n_i += g_i^2``.  ``FTRLRegressor``: the same
with the squared loss ``(p - y)^2 / 2`` on the raw score, ``g_i = (p - y) x_i``.
Multiclass: one ``(z, n)`` per class on the softmax (multinomial logistic) gradient.
The intercept (constant feature ``intercept_scaling``) is a coordinate free of the
penalties: its weight is the closed form with ``l1 = l2 = 0`` (the paper's bias, if any,
is a feature like the others: a constant column with ``fit_intercept=False``).

Departure of a popular implementation: River's ``optim.FTRLProximal`` (with
``linear_model.LogisticRegression``) updates the coordinates one after the other,
each with weights already partly changed by this example, and keeps a coordinate's
old weight where ``|z_i| <= l1`` instead of 0.  This follows the paper (every weight
of the round from the same ``z, n``, and exactly 0 within ``l1``).

Lazy: nothing is owed, ``w`` is a function of ``z`` and ``n``: O(non-zeros) per row.
The state keeps ``z`` and ``sqrt(n)`` (slots ``W`` and ``R``), which saves two square
roots a non-zero, coordinate-major (a coordinate's ``K`` classes contiguous: a softmax
row reads a few cache lines per non-zero, not ``K``); the pass keeps the row's weights
from its score for the rule in a scratch that is neither saved nor copied
(``olearn._compiled.lazy.ftrl_score_begin``: one division per class and non-zero, not
two).  On news20 (20 classes) these took one pass from 0.6x to 1.3x scikit-learn's
one-vs-rest hinge SGD (``benchmarks/sparse.md``), the same weights to the bit.
"""
import numpy as np

from ..base import OnlineClassifier, OnlineRegressor
from .._compiled.declare import declare, round_start
from .._compiled.lazy import (FTRL_ROW_CAP, ftrl_begin, ftrl_rule, ftrl_score_begin,
                              ftrl_scores)
from .._compiled.losses import logistic_grad, squared_grad
from .._params import store_params
from ._proba import LogisticProba, LossModel
from ._sparse import SparseModel, check_number, shrink

round_start(ftrl_scores, ftrl_begin, ftrl_score_begin)  # the pass keeps the row's weights
KERNELS = declare("sparse.ftrl", params=("alpha", "beta", "l1", "l2", "eps"),
                  score=ftrl_scores, begin=ftrl_begin, binary=ftrl_rule,
                  multiclass=ftrl_rule, regression=ftrl_rule,
                  losses={"logistic": logistic_grad, "squared": squared_grad})


def ftrl_weights(z, r, alpha, beta, l1, l2):
    """McMahan et al.'s closed form (numpy), from ``z`` and ``r = sqrt(n)``."""
    return -shrink(z, l1) / ((beta + r) * (1.0 / alpha) + l2)  # (as the kernel)


DOC = """FTRL-Proximal, {loss} loss (McMahan et al. 2013, Algorithm 1{more}).

    Parameters
    ----------
    alpha : float, per-coordinate rate scale (> 0){alpha}.
    beta : float, per-coordinate rate offset (>= 0).
    l1 : float, l1 strength (>= 0): ``w_i = 0`` while ``|z_i| <= l1``.
    l2 : float, l2 strength (>= 0).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """


class _FTRL(LossModel, SparseModel):
    _arrays = (("W", True, "sum"), ("R", False, "rss"))  # z, and the root of n
    _capabilities = {"closed_form": True}      # w from z and n in closed form
    _declared = KERNELS
    loss = "logistic"
    _coordinate_major = True

    def _check_hyper(self):
        check_number("alpha", self.alpha, low=0.0, low_open=True)
        check_number("beta", self.beta, low=0.0)
        check_number("l1", self.l1, low=0.0)
        check_number("l2", self.l2, low=0.0)

    def _hyper(self):
        return (float(self.alpha), float(self.beta), float(self.l1), float(self.l2))

    def _kernel_params(self):
        return {"alpha": self.alpha, "beta": self.beta, "l1": self.l1, "l2": self.l2,
                "eps": 0.0}

    def _state_tuple(self):
        """The state, and the scratch where the pass keeps a row's weights for the rule
        (``(K, min(d, FTRL_ROW_CAP) + 1)``, the model's own, neither saved nor copied)."""
        state = super()._state_tuple()
        K, d = state[0].shape
        shape = (K, min(d, FTRL_ROW_CAP) + 1)
        rows = self.__dict__.get("_row_weights")
        if rows is None or rows.shape != shape:
            rows = self.__dict__["_row_weights"] = np.zeros(shape, order="F")
        return state + (rows,)

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_row_weights", None)
        return state

    def _weights(self, cols, penalised):
        alpha, beta, l1, l2 = self._hyper()
        return ftrl_weights(self._cols("W", cols), self._cols("R", cols), alpha, beta,
                            l1 * penalised, l2 * penalised)


class FTRLClassifier(LogisticProba, _FTRL, OnlineClassifier):
    __doc__ = DOC.format(loss="logistic", more="; see the module docstring", alpha=(
        ".  The default 1.0 beat 0.1 by 0.8-4.5 points of test accuracy (one pass, "
        "three seeds) on w8a, reuters money-fx, news20 and ijcnn1, and lost 0.5 on a9a"))

    def __init__(self, alpha=1.0, beta=1.0, l1=0.1, l2=1.0, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())


class FTRLRegressor(_FTRL, OnlineRegressor):
    __doc__ = DOC.format(loss="squared", more=" with the squared loss's gradient", alpha=(
        ".  The default 1.0 beat 0.1 on abalone and cpusmall (test R^2 0.51 and 0.54, "
        "against -0.14 and -14.5: at 0.1 the intercept cannot reach targets far from 0 in "
        "one pass) and lost 0.01 on California housing (standardised features, one pass, "
        "three seeds)"))
    loss = "squared"
    _expected_failed_checks = {
        "check_regressors_train": "the check sets alpha = 0.01, taking alpha for a "
        "regularisation strength; here (McMahan et al.'s naming) it is the learning-rate "
        "scale, and 0.01 is too small a rate to fit its 200 rows in one pass"}

    def __init__(self, alpha=1.0, beta=1.0, l1=0.1, l2=1.0, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())
