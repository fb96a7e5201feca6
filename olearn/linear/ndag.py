"""Normalized adaptive gradient descent: ``NDAGClassifier`` and ``NDAGRegressor``.

Ross, Mineiro and Langford, "Normalized Online Learning" (UAI 2013), Algorithm 2
(NAG), the idea behind Vowpal Wabbit's default update.  Per feature ``i`` it keeps the
largest magnitude seen ``s_i`` and the sum of squared gradients ``G_i``; over the
stream, ``N = sum_t sum_i x_ti^2 / s_i^2``.  Round ``t``:

1. for each non-zero ``x_i`` with ``|x_i| > s_i``: ``w_i <- w_i s_i / |x_i|`` (a
   weight learned at a smaller scale is shrunk to the new one), ``s_i <- |x_i|``;
2. predict ``w . x``;
3. ``N <- N + sum_i x_i^2 / s_i^2``;
4. for each ``i``: ``G_i <- G_i + g_i^2`` and
   ``w_i <- w_i - eta sqrt(t / N) g_i / (s_i sqrt(G_i))``, ``g_i = dL/dp x_i``.

Multiplying feature ``i`` by any ``c_i != 0`` multiplies ``s_i`` by ``|c_i|``, ``g_i``
by ``c_i`` and ``w_i`` by ``1 / c_i``: the predictions are exactly those of the
unscaled data (scale invariance, tested).

Step 1 makes the prediction of a row depend on the row's own scales: with the current
weights it is ``w . clip(x, -s, s)`` (each feature clipped to the largest magnitude
seen for it), and that is also what ``decision_function``, ``predict`` and
``predict_one`` compute, so the model's predictions are the progressive ones (and the
averaged weights, with ``average=True``, predict the same way).

``eta`` defaults to 0.5, Vowpal Wabbit's default learning rate; since the predictions
do not depend on the scales of the features, it needs no re-tuning when they change
(``benchmarks/step_free.md``: within 5% of the best tuned constant step on rescaled
a9a and cpusmall, not on cpusmall as given, whose targets sit far from 0).

Losses are those of ``olearn._compiled.losses`` (classification: default "logistic";
multiclass: max-score margin losses, softmax for "logistic"; regression: default
"squared"); ``G`` is per class row, ``s`` and ``N`` shared (state ``S``, ``G`` and
``A[0, FREE_]``).  The round ``t`` counts
rows; a sample weight multiplies the loss.  Costs O(non-zeros) a row.
``average=True``: Polyak-Ruppert averaging (step 1 is part of round ``t``'s change, so
it does not move the average of the earlier iterates).
"""
import math

import numpy as np
import scipy.sparse as sp
from numba import njit
from .._estimator import check_is_fitted

from .._rows import canonical_csr
from ..base import OnlineClassifier, OnlineRegressor, Slot
from .._compiled.averaging import (FREE_, R_, SCALE_, SUM_, T_, adagrad_rows, add_at,
                                   begin_round, weight)
from .._compiled.declare import declare
from ._proba import LogisticProba
from .._compiled.losses import GRADS
from .._params import store_params
from ._linear import LinearModel, check_number
from ._loss import AVERAGE_DOC, EPSILON_DOC, LossModel


@njit(inline="always")
def _scores(state, idx, val, out):
    """Step 2 as the model predicts now: the prediction with the weights of step 1
    equals the current weights applied to ``x`` clipped to ``[-s_i, s_i]`` (``w_i (s_i
    / |x_i|) x_i = w_i s_i sign(x_i)``), which is how it is computed (so the averaged
    weights predict the same way, and ``predict`` and ``predict_one`` share it)."""
    W = state[0]
    U = state[1]
    A = state[2]
    S = state[3]
    t = A[0, T_]
    s = A[0, SCALE_] if t > 0.0 else 1.0
    total = A[0, SUM_] + s
    averaged = U.shape[1] > 0 and t > 0.0
    for k in range(W.shape[0]):
        a = 0.0
        b = 0.0
        for j in range(idx.shape[0]):
            i = idx[j]
            v = min(max(val[j], -S[i]), S[i])
            a += W[k, i] * v
            if averaged:
                b += U[k, i] * v
        out[k] = (total * a - b) / t if averaged else s * a


@njit(inline="always")
def _begin(state, idx, val, out):
    """The round's start: count it, keep the raw scores (on the clipped row), then
    step 1 on the weights."""
    W = state[0]
    U = state[1]
    A = state[2]
    S = state[3]
    begin_round(A)
    if U.shape[1] > 0 and A[0, T_] > 1.0:
        for k in range(W.shape[0]):
            a = 0.0
            for j in range(idx.shape[0]):
                i = idx[j]
                a += W[k, i] * min(max(val[j], -S[i]), S[i])
            A[k, R_] = A[0, SCALE_] * a
    else:
        for k in range(W.shape[0]):
            A[k, R_] = out[k]
    for j in range(idx.shape[0]):
        i = idx[j]
        m = abs(val[j])
        if m > S[i]:
            if S[i] > 0.0:
                f = S[i] / m - 1.0
                for k in range(W.shape[0]):
                    add_at(W, U, A, k, i, weight(W, A, k, i) * f)
            S[i] = m


@njit(inline="always")
def _ndag(state, params, idx, val, y, sw, seen, grad):
    eta, eps = params.eta, params.eps
    W = state[0]
    U = state[1]
    A = state[2]
    S = state[3]
    G = state[4]
    for j in range(idx.shape[0]):
        if val[j] != 0.0:
            q = val[j] / S[idx[j]]
            A[0, FREE_] += q * q
    moved = grad(A, seen, y, eps)
    if moved and A[0, FREE_] > 0.0:
        adagrad_rows(W, U, A, G, S, eta * math.sqrt(A[0, T_] / A[0, FREE_]), sw, idx, val)
    return moved




KERNELS = declare("linear.ndag", params=("eta", "eps"), score=_scores, begin=_begin,
                  binary=_ndag, multiclass=_ndag, regression=_ndag, losses=GRADS)

class NormalizedInputs:
    """What a model learning by NAG's step 1 (the scales ``S``, state slot "S") needs
    besides its kernel: ``decision_function`` on rows clipped to the scales (as the
    kernel's ``_scores``), and ``olearn.mix`` at the largest scales of the members.
    ``_normalizes()`` says whether the model's rule is NAG (OGD's is only with the
    "nag" step); when it is not, both are the base's."""

    def _normalizes(self):
        return True

    def _clip(self, cols, values):
        """Feature values clipped to the largest magnitude seen for their column."""
        S = self.state_["S"]
        return np.clip(values, -S[cols], S[cols])

    def _decision(self, X):
        if not self._normalizes():
            return super()._decision(X)
        check_is_fitted(self, "state_")
        X = self._validate_X(X, reset=False)
        b = int(self.fit_intercept)
        if sp.issparse(X):
            X = canonical_csr(X).copy()
            X.data = self._clip(X.indices + b, X.data)
        else:
            X = self._clip(np.arange(b, b + X.shape[1]), X)
        return super()._decision(X)

    def _before_mix(self, states):
        """``olearn.mix``: each member's weights at the largest scales of all members
        (step 1 applied to the mix: ``S`` mixes by its maximum)."""
        if not self._normalizes():
            return
        top = np.maximum.reduce([st["S"] for st in states])
        for st in states:
            st["W"] *= np.divide(st["S"], top, out=np.ones_like(top), where=top > 0)


class _NDAG(NormalizedInputs, LossModel, LinearModel):
    _declared = KERNELS

    def _extra_slots(self):
        return (Slot("S", ("d",), 0.0, mix="max"), Slot("G", ("K", "d"), 0.0, mix="sum"))

    def _check_hyper(self):
        self._check_loss()
        check_number("eta", self.eta, low=0.0, low_open=True)

    def _kernel_params(self):
        return {"eta": self.eta, "eps": self.epsilon}


class NDAGClassifier(LogisticProba, _NDAG, OnlineClassifier):
    __doc__ = f"""Normalized adaptive gradient classifier (NAG of Ross, Mineiro and Langford 2013).

    Parameters
    ----------
    loss : "logistic" (default), "hinge", "squared_hinge", "perceptron" or
        "modified_huber".
    eta : float, learning rate (> 0; 0.5 as in Vowpal Wabbit).
    {AVERAGE_DOC}
    """

    def __init__(self, loss="logistic", eta=0.5, average=False, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())


class NDAGRegressor(_NDAG, OnlineRegressor):
    __doc__ = f"""Normalized adaptive gradient regressor (NAG of Ross, Mineiro and Langford 2013).

    Parameters
    ----------
    loss : "squared" (default), "absolute", "epsilon_insensitive" or "huber".
    eta : float, learning rate (> 0).  The default 2 departs from Vowpal Wabbit's 0.5:
        with 0.5 the intercept could not reach targets far from 0 in one pass (test
        R^2 on abalone, cpusmall and California housing 0.36, -3.69, 0.63; with 2:
        0.47, 0.66, 0.63; standardised features, three seeds).
    {EPSILON_DOC}
    {AVERAGE_DOC}
    """

    def __init__(self, loss="squared", eta=2.0, epsilon=0.1, average=False,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())
