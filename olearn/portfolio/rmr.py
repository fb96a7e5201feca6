"""Robust median reversion (RMR).

Huang, Zhou, Li, Hoi, Zhou, "Robust median reversion strategy for online portfolio
selection", IJCAI 2013 (and IEEE TKDE 28(9), 2016).  The predicted relative is the L1
median of the last ``window`` price vectors over today's price,
``xt_{t+1} = L1med(p_{t-w+1}, ..., p_t) / p_t`` (eq. (4)); the L1 median is computed by
the modified Weiszfeld iteration of Vardi and Zhang (PNAS 97(4), 2000), from the
coordinate-wise median, at most ``max_iter`` (200) steps, until the step's L1 norm is
below ``tol`` (1e-9) times that of the median.  Then, as in OLMAR,
``b_{t+1} = Proj_simplex(b_t + lambda (xt - xbar 1))``,
``lambda = max(0, epsilon - b_t . xt) / ||xt - xbar 1||^2``.  While fewer than
``window + 1`` periods were seen, the last relatives stand in for the prediction (the
OLPS toolbox's start-up).  Prices are the products of the relatives from the first row
on (the OLPS toolbox's ``rmr`` starts them one row later, dropping the first relative).
"""
import numpy as np

from .._compiled import njit

from ._base import WindowReversion, store_params
from ._simplex import reversion_step
from ..persistence import persistable


@njit(cache=True)
def l1_median(P, max_iter, tol):
    """Vardi-Zhang modified Weiszfeld iteration for the L1 (geometric) median of the rows
    of ``P``."""
    n, m = P.shape
    y = np.empty(m)
    for i in range(m):
        y[i] = np.median(P[:, i])
    for _ in range(max_iter):
        num = np.zeros(m)
        R = np.zeros(m)
        den = 0.0
        eta = 0.0
        for k in range(n):
            d = np.sqrt(np.sum((P[k] - y) ** 2))
            if d >= 1e-15:
                num += P[k] / d
                den += 1.0 / d
                R += (P[k] - y) / d
            else:
                eta = 1.0
        T = num / den if den > 0.0 else np.zeros(m)
        nr = np.sqrt(np.sum(R ** 2))
        r = min(1.0, eta / nr) if nr > 0.0 else 0.0
        Ty = (1.0 - r) * T + r * y
        done = np.sum(np.abs(Ty - y)) <= tol * np.sum(np.abs(y))
        y = Ty
        if done:
            break
    return y


@njit(cache=True)
def _rmr_run(X, B, b, prices, count, epsilon, window):
    n, m = X.shape
    v = np.empty(m)
    phi = np.empty(m)
    P = np.empty((window, m))
    for t in range(n):
        B[t] = b
        T = count[0] + 1
        count[0] = T
        last = prices[(T - 2) % window] if T > 1 else np.ones(m)
        prices[(T - 1) % window] = last * X[t]
        if T < window + 1:
            phi[:] = X[t]
        else:
            for k in range(window):
                P[k] = prices[k]
            phi[:] = l1_median(P, 200, 1e-9) / prices[(T - 1) % window]
        reversion_step(b, phi, epsilon, v)


@persistable
class RMR(WindowReversion):
    """Robust median reversion (Huang et al. 2013).

    Parameters
    ----------
    epsilon : float, default=5.0
        Reversion threshold on the predicted return.
    window : int, default=5
        Number of past prices whose L1 median predicts the next price (>= 2).
    """

    _kernel = staticmethod(_rmr_run)
    _slots = ("prices", "count")

    def __init__(self, epsilon=5.0, window=5):
        store_params(self, locals())
