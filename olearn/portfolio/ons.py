"""Online Newton step (ONS) for portfolios.

Agarwal, Hazan, Kale, Schapire, "Algorithms for portfolio management based on the
Newton method", ICML 2006, Figure 1: with the gradients ``g_s = x_s / (b_s . x_s)``,
``A_t = I + sum_{s<=t} g_s g_s'`` and ``c_t = (1 + 1/beta) sum_{s<=t} g_s``,
``p_{t+1} = Proj^{A_t}_simplex(delta A_t^{-1} c_t)`` (the projection in the norm of
``A_t``) and ``b_{t+1} = (1 - eta) p_{t+1} + eta / m``.  The projection is solved
exactly by an active-set method warm-started at the previous portfolio
(``_simplex.project_simplex_norm``); the OLPS toolbox uses MATLAB's ``quadprog``, whose
tolerances make its figures agree to about 1e-3.  Defaults as in the toolbox.
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from ._simplex import project_simplex_norm
from .._validation import check_number
from ..persistence import persistable


@njit(cache=True)
def _ons_run(X, B, b, A, gsum, eta, beta, delta):
    n, m = X.shape
    w = np.empty(m)
    for t in range(n):
        B[t] = b
        x = X[t]
        g = x / (x @ b)
        for i in range(m):
            gsum[i] += g[i]
            for j in range(m):
                A[i, j] += g[i] * g[j]
        c = delta * (1.0 + 1.0 / beta) * gsum
        project_simplex_norm(A, c, b, w)
        for i in range(m):
            b[i] = (1.0 - eta) * w[i] + eta / m


@persistable
class ONS(Strategy):
    """Online Newton step (Agarwal et al. 2006).

    Parameters
    ----------
    eta : float, default=0.0
        Mixing with the uniform portfolio, in [0, 1].
    beta : float, default=1.0
        Trade-off parameter of the linear term (> 0).
    delta : float, default=0.125
        Scale of the Newton point (> 0).
    """

    _kernel = staticmethod(_ons_run)
    _slots = ("A", "gsum")

    def __init__(self, eta=0.0, beta=1.0, delta=0.125):
        store_params(self, locals())

    def _check_params(self):
        check_number("eta", self.eta, low=0, high=1)
        check_number("beta", self.beta, low=0, low_open=True)
        check_number("delta", self.delta, low=0, low_open=True)

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m), "A": np.eye(m), "gsum": np.zeros(m)}

    def _kernel_params(self):
        return float(self.eta), float(self.beta), float(self.delta)
