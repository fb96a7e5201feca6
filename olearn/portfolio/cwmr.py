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
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from ._simplex import project_simplex
from .._validation import check_number
from ..persistence import persistable


@njit(cache=True)
def _cwmr_run(X, B, b, mu, S, phi, epsilon):
    n, m = X.shape
    v = np.empty(m)
    for t in range(n):
        B[t] = b
        x = X[t]
        Sx = S @ x
        S1 = S.sum(axis=1)
        xbar = S1 @ x / S1.sum()
        M = x @ mu
        V = x @ Sx
        W = x @ S1
        a = 2 * phi * V * V - 2 * phi * xbar * V * W
        bq = 2 * phi * epsilon * V - 2 * phi * V * M + V - xbar * W
        c = epsilon - M - phi * V
        lam = 0.0
        disc = bq * bq - 4 * a * c
        if a != 0.0 and disc > 0.0:
            r = np.sqrt(disc)
            lam = max((-bq + r) / (2 * a), (-bq - r) / (2 * a), 0.0)
        elif a == 0.0 and bq != 0.0:
            lam = max(-c / bq, 0.0)
        for i in range(m):
            v[i] = mu[i] - lam * (Sx[i] - xbar * S1[i])
        if lam > 0.0:
            P = np.linalg.inv(S)
            for i in range(m):
                P[i, i] += 2 * lam * phi * x[i] * x[i]
            S[:, :] = np.linalg.inv(P)
        project_simplex(v, mu)
        S /= S.sum() * m
        b[:] = mu / mu.sum()


@persistable
class CWMR(Strategy):
    """Confidence-weighted mean reversion, variance form (Li et al. 2013).

    Parameters
    ----------
    phi : float, default=2.0
        Confidence: the probability bound's quantile (> 0).
    epsilon : float, default=0.5
        Mean-reversion threshold on the expected return (>= 0).
    """

    _kernel = staticmethod(_cwmr_run)
    _lapack = True
    _slots = ("mu", "Sigma")

    def __init__(self, phi=2.0, epsilon=0.5):
        store_params(self, locals())

    def _check_params(self):
        check_number("phi", self.phi, low=0, low_open=True)
        check_number("epsilon", self.epsilon, low=0)

    def _new_state(self, m):
        return {"b": np.full(m, 1.0 / m), "mu": np.full(m, 1.0 / m),
                "Sigma": np.eye(m) / m ** 2}

    def _kernel_params(self):
        return float(self.phi), float(self.epsilon)
