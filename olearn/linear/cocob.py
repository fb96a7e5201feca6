"""Parameter-free coin betting: ``COCOBClassifier`` and ``COCOBRegressor``.

Orabona and Pal ("Coin Betting and Parameter-Free Online Learning", NIPS 2016) turn
online linear optimisation into betting on a coin: each coordinate bets a fraction of
its wealth (its initial endowment plus its winnings) on the sign of the next negative
gradient, and a good betting strategy needs no learning rate.  Their KT bettor needs
gradients bounded by 1, which features rescaled by large factors break, so this
module runs its scale-adaptive per-coordinate form, COCOB-Backprop (Orabona and
Tommasi, "Training Deep Networks without Learning Rates Through Coin Betting", NIPS
2017, Algorithm 2).  For coordinate ``i`` with negative gradient ``c_i = -g_i``:

    L_i <- max(L_i, |c_i|)                  (the gradient scale seen so far)
    G_i <- G_i + |c_i|
    R_i <- max(R_i + (w_i - w1_i) c_i, 0)   (the winnings, clipped at 0)
    theta_i <- theta_i + c_i
    w_i <- w1_i + theta_i / (L_i max(G_i + L_i, alpha L_i)) (L_i + R_i)

with ``w1 = 0`` and ``alpha = 100`` (the paper's default: a cap of ``1 / alpha`` on
the fraction bet at the start).  A coordinate with no gradient keeps its state, so a
row costs O(non-zeros); a coordinate moves once it has had a non-zero gradient.

Losses are those of ``olearn._compiled.losses`` (classification: default "logistic";
multiclass: max-score margin losses, softmax for "logistic"; regression: default
"squared"); each class row bets on its own.  A sample weight multiplies the loss.
``average=True``: Polyak-Ruppert averaging of the iterates.
State: ``Q[k, i] = (L, G, R)`` and ``T[k, i] = theta`` (``w`` is linear in ``theta``,
so ``T`` follows ``W`` when the labels flip or the model turns multiclass).
"""
from numba import njit

from ..base import OnlineClassifier, OnlineRegressor, Slot
from .._compiled.averaging import G_, add_at, avg_begin, avg_scores, weight
from .._compiled.declare import declare
from ._proba import LogisticProba
from .._compiled.losses import GRADS
from .._params import store_params
from ._linear import LinearModel, check_number
from ._loss import AVERAGE_DOC, EPSILON_DOC, LossModel


@njit(inline="always")
def _cocob(state, params, idx, val, y, sw, seen, grad):
    alpha, eps = params.alpha, params.eps
    W = state[0]
    U = state[1]
    A = state[2]
    Q = state[3]
    T = state[4]
    moved = grad(A, seen, y, eps)
    if moved:
        for k in range(A.shape[0]):
            if A[k, G_] != 0.0:
                gk = -sw * A[k, G_]
                for j in range(idx.shape[0]):
                    c = gk * val[j]
                    if c != 0.0:
                        i = idx[j]
                        w = weight(W, A, k, i)
                        a = abs(c)
                        if a > Q[k, i, 0]:
                            Q[k, i, 0] = a
                        Q[k, i, 1] += a
                        Q[k, i, 2] = max(Q[k, i, 2] + w * c, 0.0)
                        T[k, i] += c
                        L = Q[k, i, 0]
                        den = L * max(Q[k, i, 1] + L, alpha * L)
                        if den > 0.0:  # underflows for gradients below about 1e-155
                            add_at(W, U, A, k, i, T[k, i] / den * (L + Q[k, i, 2]) - w)
    return moved




KERNELS = declare("linear.cocob", params=("alpha", "eps"), score=avg_scores, begin=avg_begin,
                  binary=_cocob, multiclass=_cocob, regression=_cocob, losses=GRADS)

class _COCOB(LossModel, LinearModel):
    _declared = KERNELS

    def _extra_slots(self):
        return (Slot("Q", ("K", "d", 3), 0.0, mix=("max", "sum", "sum")),
                Slot("T", ("K", "d"), 0.0, signed=True, mix="sum"))

    def _check_hyper(self):
        self._check_loss()
        check_number("alpha", self.alpha, low=0.0, low_open=True)

    def _kernel_params(self):
        return {"alpha": self.alpha, "eps": self.epsilon}


class COCOBClassifier(LogisticProba, _COCOB, OnlineClassifier):
    __doc__ = f"""Coin-betting classifier with no learning rate (COCOB-Backprop per coordinate).

    Parameters
    ----------
    loss : "logistic" (default), "hinge", "squared_hinge", "perceptron" or
        "modified_huber".
    alpha : float > 0, caps the first bets at ``1 / alpha`` of the wealth (100).
    {AVERAGE_DOC}
    """

    def __init__(self, loss="logistic", alpha=100.0, average=False, fit_intercept=True,
                 intercept_scaling=0.1, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())


class COCOBRegressor(_COCOB, OnlineRegressor):
    __doc__ = f"""Coin-betting regressor with no learning rate (COCOB-Backprop per coordinate).

    Parameters
    ----------
    loss : "squared" (default), "absolute", "epsilon_insensitive" or "huber".
    alpha : float > 0, caps the first bets at ``1 / alpha`` of the wealth (100).
    {EPSILON_DOC}
    {AVERAGE_DOC}
    """

    def __init__(self, loss="squared", alpha=100.0, epsilon=0.1, average=False,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())
