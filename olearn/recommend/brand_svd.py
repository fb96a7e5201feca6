"""Brand's online SVD recommender: every rating is a rank-1 modification of the thin
SVD of the imputed rating matrix.

M. Brand, "Fast online SVD revisions for lightweight recommender systems", SIAM SDM
2003: the model is a rank-``r`` thin SVD ``U diag(s) V^T`` (users x items) of the
rating matrix centred by the running mean, whose missing entries are imputed by the
model itself, so that predictions are ``mean + U_u diag(s) V_i^T``.  A rating ``y`` of
user ``u`` on item ``i`` changes one entry: ``A + c e_u e_i^T`` with ``c = y - mean -
(U_u diag(s) V_i^T)``, and the SVD follows by Brand's rank-1 modification (Brand,
"Fast low-rank modifications of the thin singular value decomposition", Linear Algebra
Appl. 2006, section 2, eqs. 5-9; the SDM paper's update specialised to ``a = e_u``,
``b = c e_i``)::

    m = U^T e_u = U_u,  Ra = sqrt(1 - ||m||^2),  n = V^T e_i = V_i,  Rb = sqrt(1 - ||n||^2)
    K = [[diag(s), 0], [0, 0]] + c [m; Ra] [n; Rb]^T = U_K diag(s') V_K^T
    U' = [U  P] U_K,  V' = [V  Q] V_K,   P = (e_u - U m) / Ra,  Q = (e_i - V n) / Rb

truncated to the ``rank`` largest singular values (the rank grows by at most one per
rating, up to the ceiling; values below ``tol`` times the largest are dropped).  A new
user or item is a new zero row of ``U`` or ``V`` (its imputed ratings are the mean:
the prior).  Cost per rating: O((users + items) rank^2), compiled; Brand's O(rank^2)
variant keeps ``U`` and ``V`` as products with small accumulated rotations, which this
implementation does not (it rotates the bases in place).
"""
import math

import numpy as np

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from ._base import Recommender, grown

__all__ = ["BrandSVD"]


@persistable
class BrandSVD(Recommender):
    """Online SVD recommender (Brand 2003): rank-1 SVD modifications, one per rating.

    Parameters
    ----------
    rank : int, default=10
        Rank ceiling of the SVD.
    tol : float, default=1e-10
        Singular values below ``tol`` times the largest are dropped.
    min_rating, max_rating : float or None, default=None
        Predictions are clipped to this range (learning is not).
    """

    def __init__(self, rank=10, tol=1e-10, min_rating=None, max_rating=None):
        store_params(self, locals())

    def _check_params(self):
        r = self.rank
        if not isinstance(r, (int, np.integer)) or isinstance(r, bool) or r < 1:
            raise ValueError(f"rank must be a positive integer, got {r!r}")
        check_number("tol", self.tol, low=0, high=1)
        for name in ("min_rating", "max_rating"):
            if getattr(self, name) is not None:
                check_number(name, getattr(self, name))

    def _kernel_params(self):
        low = -math.inf if self.min_rating is None else float(self.min_rating)
        high = math.inf if self.max_rating is None else float(self.max_rating)
        return np.array([low, high, float(self.tol)])

    def _init_model(self):
        self._U = np.zeros((0, self.rank))
        self._V = np.zeros((0, self.rank))
        self._s = np.zeros(self.rank)
        self._stats = np.zeros(5)  # n, mean, current rank, users, items

    def _grow(self, n_users, n_items, kinds, codes):
        self._U = grown(self._U, n_users, 0.0)
        self._V = grown(self._V, n_items, 0.0)

    def _learn(self, u, i, r, out):
        from ._kernels import brand_pass
        brand_pass(u, i, r, self._U, self._s, self._V, self._stats, self._validated(), out)

    def _prior_value(self):
        return self._stats[1] if self._started() else 0.0

    def _scores(self, u, i):
        k = int(self._stats[2])
        s = np.full(len(u), self._prior_value())
        both = (u >= 0) & (i >= 0)
        s[both] += np.einsum("nf,f,nf->n", self._U[u[both], :k], self._s[:k],
                             self._V[i[both], :k])
        return s

    @property
    def singular_values_(self):
        return self._s[:int(self._stats[2])].copy() if self._started() else np.zeros(0)

    @property
    def global_mean_(self):
        return float(self._prior_value())

    def _export_model(self):
        nu, ni = len(self._users), len(self._items)
        return ({"stats": [float(v) for v in self._stats]},
                {"U": self._U[:nu].copy(), "V": self._V[:ni].copy(), "s": self._s.copy()})

    def _import_model(self, fitted, arrays):
        nu, ni = len(self._users), len(self._items)
        self._U = np.array(arrays["U"], dtype=np.float64).reshape(nu, self.rank)
        self._V = np.array(arrays["V"], dtype=np.float64).reshape(ni, self.rank)
        self._s = np.array(arrays["s"], dtype=np.float64).reshape(self.rank)
        self._stats = np.array(fitted["stats"], dtype=np.float64).reshape(5)
        n, mean, r, su, si = self._stats.tolist()
        if not (math.isfinite(mean) and n == int(n) and n >= 0 and r == int(r)
                and 0 <= r <= self.rank and (su, si) == (nu, ni)):
            raise ValueError(f"stats {self._stats.tolist()} do not fit the model (count, "
                             f"mean, rank at most {self.rank}, {nu} users, {ni} items)")
        if (self._s < 0).any():
            raise ValueError("singular values must be non-negative")
