"""Confidence-weighted mean reversion, variance form (CWMR-Var).

Li, Hoi, Zhao, Gopalkrishnan, "Confidence weighted mean reversion strategy for online
portfolio selection", ACM TKDD 7(1), 2013 (AISTATS 2011), Section 4, Algorithm 1 with
the variance update (Proposition 4.1).  The portfolio is Gaussian, ``b ~ N(mu, Sigma)``;
after period ``t`` with ``M = mu . x``, ``V = x' Sigma x``, ``W = x' Sigma 1`` and
``xbar = 1' Sigma x / 1' Sigma 1``, ``lambda`` is the largest non-negative root of
``a l^2 + b l + c = 0`` with ``a = 2 phi V^2 - 2 phi xbar V W``,
``b = 2 phi epsilon V - 2 phi V M + V - xbar W``, ``c = epsilon - M - phi V``; then
``mu <- mu - lambda Sigma (x - xbar 1)``, ``Sigma <- (Sigma^-1 + 2 lambda phi diag(x)^2)^-1``,
``mu`` is projected onto the simplex (Duchi et al. 2008) and ``Sigma`` rescaled to
``Sigma / (m sum_ij Sigma_ij)``, as the OLPS toolbox does (``cwmr_var``); the portfolio
is ``mu``.  Start: ``mu = 1/m``, ``Sigma = I / m^2``.

``Sigma`` starts diagonal and every update keeps it so (a diagonal precision plus the
diagonal ``2 lambda phi diag(x)^2``, a rescaling), so the state holds its diagonal
``sigma`` and a period costs O(m) (the toolbox, and olearn before round 5, carried the
m x m matrix through two inversions a period): ``V = sum sigma_i x_i^2``,
``W = sum sigma_i x_i``, ``sigma_i <- 1 / (1 / sigma_i + 2 lambda phi x_i^2)``.  ``V - xbar
W``, which ``a`` and ``b`` hold, is computed as the equal ``sum sigma_i (x_i - xbar)^2``
(no cancellation), with ``xbar`` exactly ``x_1`` when every relative of the period is
the same: then ``a = 0`` and the mean does not move, as the formula says, where the
difference of two equal rounded numbers (``a`` ~ 1e-18 on MSCI's period 980, all
relatives 1) made ``lambda`` ~ 5e16 and the portfolio a product of rounding.
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from ._simplex import project_simplex
from .._state import StateLayoutError
from .._validation import check_number
from ..persistence import persistable


@njit(cache=True)
def _cwmr_run(X, B, b, mu, sigma, phi, epsilon):
    n, m = X.shape
    v = np.empty(m)
    for t in range(n):
        B[t] = b
        lo, hi = X[t, 0], X[t, 0]
        M = 0.0
        V = 0.0
        W = 0.0
        tot = 0.0
        for i in range(m):
            x, s = X[t, i], sigma[i]
            lo, hi = min(lo, x), max(hi, x)
            M += x * mu[i]
            V += s * x * x
            W += s * x
            tot += s
        xbar = lo if lo == hi else W / tot
        D = 0.0                        # V - xbar W = sum sigma_i (x_i - xbar)^2
        for i in range(m):
            d = X[t, i] - xbar
            D += sigma[i] * d * d
        a = 2 * phi * V * D
        bq = 2 * phi * epsilon * V - 2 * phi * V * M + D
        c = epsilon - M - phi * V
        lam = 0.0
        disc = bq * bq - 4 * a * c
        if a != 0.0 and disc > 0.0:
            r = np.sqrt(disc)
            lam = max((-bq + r) / (2 * a), (-bq - r) / (2 * a), 0.0)
        elif a == 0.0 and bq != 0.0:
            lam = max(-c / bq, 0.0)
        for i in range(m):
            v[i] = mu[i] - lam * sigma[i] * (X[t, i] - xbar)
        if lam > 0.0:
            for i in range(m):
                x = X[t, i]
                sigma[i] = 1.0 / (1.0 / sigma[i] + 2 * lam * phi * x * x)
        project_simplex(v, mu)
        tot = 0.0
        for i in range(m):
            tot += sigma[i]
        tot *= m
        for i in range(m):
            sigma[i] /= tot
        tot = 0.0
        for i in range(m):
            tot += mu[i]
        for i in range(m):
            b[i] = mu[i] / tot


@persistable
class CWMR(Strategy):
    """Confidence-weighted mean reversion, variance form (Li et al. 2013).

    Parameters
    ----------
    phi : float, default=2.0
        Confidence: the probability bound's quantile (> 0).
    epsilon : float, default=0.5
        Mean-reversion threshold on the expected return (>= 0).

    The state: ``mu`` (the mean portfolio) and ``sigma``, the diagonal of the
    covariance ``Sigma`` (which stays diagonal).
    """

    _kernel = staticmethod(_cwmr_run)
    _slots = ("mu", "sigma")

    def __init__(self, phi=2.0, epsilon=0.5):
        store_params(self, locals())

    def _check_params(self):
        check_number("phi", self.phi, low=0, low_open=True)
        check_number("epsilon", self.epsilon, low=0)

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m), "mu": np.full(m, 1.0 / m),
                "sigma": np.full(m, 1.0 / m ** 2)}

    def _kernel_params(self):
        return float(self.phi), float(self.epsilon)

    @classmethod
    def from_state(cls, params, fitted, arrays):
        """As every strategy's, the variances checked positive; a file from before round
        5 holds the m x m ``Sigma``, read as its diagonal (it is diagonal: exactly, as
        the inversions of a diagonal matrix leave zeros) and refused otherwise."""
        arrays = dict(arrays)
        if "Sigma" in arrays and "sigma" not in arrays:
            S = arrays.pop("Sigma")
            if not (isinstance(S, np.ndarray) and S.ndim == 2 and S.shape[0] == S.shape[1]
                    and np.array_equal(S, np.diag(np.diagonal(S)))):
                raise StateLayoutError("its covariance Sigma is not the diagonal matrix "
                                       "CWMR's updates keep")
            arrays["sigma"] = np.array(np.diagonal(S))
        model = super().from_state(params, fitted, arrays)
        sigma = getattr(model, "state_", {}).get("sigma") if fitted else None
        if sigma is not None and not (sigma > 0).all():
            raise ValueError("state array sigma (variances) must be positive")
        return model
