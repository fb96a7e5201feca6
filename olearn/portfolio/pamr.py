"""Passive-aggressive mean reversion (PAMR).

Li, Zhao, Hoi, Gopalkrishnan, "PAMR: Passive aggressive mean reversion strategy for
portfolio selection", Machine Learning 87(2), 2012.  With the epsilon-insensitive loss
``l_t = max(0, b_t . x_t - epsilon)`` (eq. (1)) the update is
``b_{t+1} = Proj_simplex(b_t - tau_t (x_t - xbar_t 1))`` (Algorithm 1, Propositions 1-3)
with ``xbar_t`` the mean relative and

* PAMR:   ``tau = l_t / ||x_t - xbar_t 1||^2``
* PAMR-1: ``tau = min(C, l_t / ||x_t - xbar_t 1||^2)``
* PAMR-2: ``tau = l_t / (||x_t - xbar_t 1||^2 + 1 / (2 C))``

A period whose return is at most ``epsilon`` leaves the portfolio unchanged (passive).
The projection is exact (Duchi et al. 2008).  The loss uses the gross return
``b_t . x_t`` as in the paper; the OLPS toolbox uses the return net of transaction
costs, which differs only when a fee is charged.
"""
from .._compiled import njit

from ._base import Strategy, store_params
from ._simplex import project_simplex
from .._validation import check_choice, check_number
from ..persistence import persistable

VARIANTS = ("PAMR", "PAMR-1", "PAMR-2")


@njit(cache=True)
def _pamr_run(X, B, b, epsilon, C, variant):
    n, m = X.shape
    v = b.copy()
    for t in range(n):
        B[t] = b
        x = X[t]
        xbar = x.mean()
        d = 0.0
        for i in range(m):
            d += (x[i] - xbar) ** 2
        loss = x @ b - epsilon
        if loss <= 0.0:
            continue
        if variant == 2:
            tau = loss / (d + 0.5 / C)
        elif d > 0.0:
            tau = loss / d
            if variant == 1 and tau > C:
                tau = C
        else:
            continue
        for i in range(m):
            v[i] = b[i] - tau * (x[i] - xbar)
        project_simplex(v, b)


@persistable
class PAMR(Strategy):
    """Passive-aggressive mean reversion (Li et al. 2012).

    Parameters
    ----------
    epsilon : float, default=0.5
        Mean-reversion threshold: periods returning more than this are punished (>= 0).
    variant : {"PAMR", "PAMR-1", "PAMR-2"}, default="PAMR"
        Step size rule; PAMR-1 caps it at ``C``, PAMR-2 softens it by ``1/(2C)``.
    C : float, default=500
        Aggressiveness of PAMR-1 and PAMR-2 (> 0).
    """

    _kernel = staticmethod(_pamr_run)

    def __init__(self, epsilon=0.5, variant="PAMR", C=500.0):
        store_params(self, locals())

    def _check_params(self):
        check_number("epsilon", self.epsilon, low=0)
        check_choice("variant", self.variant, VARIANTS)
        check_number("C", self.C, low=0, low_open=True)

    def _kernel_params(self):
        return float(self.epsilon), float(self.C), VARIANTS.index(self.variant)
