"""Constant rebalanced portfolio (CRP), and the kernel of the holding strategies.

A CRP rebalances to the same weights ``b`` before every period: its wealth after ``n``
periods is ``prod_t b . x_t`` (Cover, Mathematical Finance 1991, eq. (1)); the uniform
CRP (``weights=None``) is the OLPS toolbox's UCRP.  ``_hold_run`` is the compiled loop
shared by CRP, BCRP (a CRP with hindsight weights), buy-and-hold (UBAH) and the best
stock: with ``rebalance`` the portfolio stays, without it the portfolio drifts with the
prices, ``b <- b * x / (b . x)`` (no trade).
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from ..persistence import persistable


@njit(cache=True)
def _hold_run(X, B, b, rebalance):
    n, m = X.shape
    for t in range(n):
        B[t] = b
        if not rebalance:
            r = 0.0
            for i in range(m):
                r += b[i] * X[t, i]
            for i in range(m):
                b[i] = b[i] * X[t, i] / r


@persistable
class CRP(Strategy):
    """Constant rebalanced portfolio: the same weights every period.

    Parameters
    ----------
    weights : list of float or None, default=None
        The portfolio (non-negative, summing to 1); ``None``: uniform (UCRP).
    """

    _kernel = staticmethod(_hold_run)

    def __init__(self, weights=None):
        store_params(self, locals())

    def _check_params(self):
        if self.weights is not None:
            w = np.asarray(self.weights, dtype=np.float64)
            if w.ndim != 1 or not np.all(np.isfinite(w)) or (w < 0).any() \
                    or abs(w.sum() - 1.0) > 1e-9:
                raise ValueError(f"weights must be non-negative and sum to 1, got "
                                 f"{self.weights!r}")

    def _new_state(self, m):
        if self.weights is None:
            return {"b": np.full(m, 1.0 / m)}
        w = np.asarray(self.weights, dtype=np.float64)
        if w.size != m:
            raise ValueError(f"weights has {w.size} values for {m} assets")
        return {"b": w / w.sum()}

    def _kernel_params(self):
        return (True,)
