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

The learner is a composition: online gradient descent (``olearn.linear.ogd``) with the
step of ``olearn.optim.COCOB`` (``olearn._compiled.steps.cocob_step``), the same
kernels as ``OGDClassifier(optimizer=COCOB(alpha))``.
"""
from ..base import OnlineClassifier, OnlineRegressor
from ._proba import LogisticProba
from .._params import store_params
from ..optim import COCOB
from ._loss import AVERAGE_DOC, EPSILON_DOC
from .ogd import KERNELS, _OGD


class _COCOB(_OGD):
    """OGD with the ``olearn.optim.COCOB`` step, no schedule, L2 term or projection:
    same kernels as ``OGDClassifier(optimizer=COCOB(alpha))``, same state (``Q``,
    ``T``), same numbers."""
    schedule, eta, power, radius = "constant", 1.0, 0.5, None
    _declared = KERNELS["cocob"]

    @property
    def optimizer(self):
        return COCOB(self.alpha)

    def _kernel_params(self):
        return {**super()._kernel_params(), "alpha": 0.0, "t0": 0.0}  # (alpha: the bet cap)

    def _check_hyper(self):
        self._check_loss()
        self.optimizer.check()


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
