"""On-line moving average reversion (OLMAR-1, simple moving average).

Li and Hoi, "On-line portfolio selection with moving average reversion", ICML 2012.
The predicted relative is the moving average of the last ``window`` prices over
today's price, ``xt_{t+1} = (1/w) sum_{i=0}^{w-1} p_{t-i} / p_t`` (eq. (2)), and
``b_{t+1} = Proj_simplex(b_t + lambda (xt - xbar 1))`` with
``lambda = max(0, epsilon - b_t . xt) / ||xt - xbar 1||^2`` (Algorithm 2, eq. (5)).
Start-up as in the OLPS toolbox (the paper leaves it open): no update after the first
period; while fewer than ``window + 1`` periods were seen, the last relatives stand in
for the moving-average prediction.
"""
import numpy as np

from .._compiled import njit

from ._base import WindowReversion, store_params
from ._simplex import reversion_step
from ..persistence import persistable


@njit(cache=True)
def _olmar_run(X, B, b, hist, count, epsilon, window):
    n, m = X.shape
    phi = np.empty(m)
    v = np.empty(m)
    for t in range(n):
        B[t] = b
        T = count[0] + 1
        count[0] = T
        hist[(T - 1) % window] = X[t]
        if T < 2:
            continue
        if T < window + 1:
            phi[:] = X[t]
        else:
            acc = np.ones(m)
            phi[:] = 1.0
            for k in range(1, window):
                row = hist[(T - k) % window]       # x_{T-k+1}
                for i in range(m):
                    acc[i] *= row[i]
                    phi[i] += 1.0 / acc[i]
            phi /= window
        reversion_step(b, phi, epsilon, v)


@persistable
class OLMAR(WindowReversion):
    """On-line moving average reversion, OLMAR-1 (Li and Hoi 2012).

    Parameters
    ----------
    epsilon : float, default=10
        Reversion threshold on the predicted return (>= 1 is meaningful).
    window : int, default=5
        Moving-average window, in periods (>= 2).
    """

    _kernel = staticmethod(_olmar_run)
    _slots = ("hist", "count")

    def __init__(self, epsilon=10.0, window=5):
        store_params(self, locals())
