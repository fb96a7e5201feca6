"""Best constant rebalanced portfolio in hindsight (BCRP).

``b* = argmax_{b in simplex} sum_t log(b . x_t)`` (Cover, Mathematical Finance 1991,
Section 2), then the CRP with ``b*``.  The problem is concave; it is solved by
projected Newton steps: each step minimises the second-order model of
``f(b) = -sum_t log(b . x_t)`` over the simplex, which is the projection of the Newton
point in the norm of the Hessian ``H = sum_t x_t x_t' / (b . x_t)^2`` (exact, by the
active-set method of ``_simplex.project_simplex_norm``), followed by a backtracking
line search; it stops when the Newton decrement is below ``1e-14 n``.  The optimum
satisfies the KKT conditions ``sum_t x_ti / (b . x_t) <= n`` with equality where
``b_i > 0``.  The OLPS toolbox instead maximises ``prod_t b . x_t`` with MATLAB's
``fmincon`` (active-set, default tolerances), so its figures agree to about 1e-4.
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, check_relatives, store_params
from ._simplex import project_simplex_norm
from .crp import _hold_run
from ..persistence import persistable
from .._locking import locked


@njit(cache=True)
def _objective(X, b):
    f = 0.0
    for t in range(X.shape[0]):
        r = X[t] @ b
        if r <= 0.0:
            return np.inf
        f -= np.log(r)
    return f


@njit(cache=True)
def _bcrp_weights(X, max_iter):
    n, m = X.shape
    b = np.full(m, 1.0 / m)
    w = np.empty(m)
    f = _objective(X, b)
    for _ in range(max_iter):
        r = X @ b
        Z = X / r.reshape(-1, 1)
        g = -Z.sum(axis=0)
        H = Z.T @ Z
        ridge = 1e-12 * np.trace(H) / m
        for i in range(m):
            H[i, i] += ridge
        c = H @ b - g
        project_simplex_norm(H, c, b, w)
        d = w - b
        dec = -(g @ d)
        if dec <= 1e-14 * n:
            break
        s = 1.0
        while s > 1e-12:
            trial = b + s * d
            ft = _objective(X, trial)
            if ft <= f - 0.25 * s * dec:
                break
            s *= 0.5
        if s <= 1e-12:
            break
        b = b + s * d
        f = _objective(X, b)
    return b


@persistable
class BCRP(Strategy):
    """Best constant rebalanced portfolio in hindsight (a benchmark: ``fit`` sees the
    whole matrix).

    Parameters
    ----------
    max_iter : int, default=100
        The most projected Newton steps.
    """

    _kernel = staticmethod(_hold_run)
    _hindsight = True

    def __init__(self, max_iter=100):
        store_params(self, locals())

    def _check_params(self):
        if not isinstance(self.max_iter, int) or isinstance(self.max_iter, bool) \
                or self.max_iter < 1:
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}")

    @locked
    def fit(self, relatives):
        self._check_params()
        X = check_relatives(relatives)
        b = _bcrp_weights(X, self.max_iter)
        self.state_, self.n_assets_, self.t_ = {"b": b}, X.shape[1], 0
        return self

    def _kernel_params(self):
        return (True,)
