"""Cover's universal portfolio (UP), by Monte Carlo integration.

Cover, "Universal portfolios", Mathematical Finance 1(1), 1991, eq. (1.3) (uniform
prior): ``b_{t+1} = int b S_t(b) db / int S_t(b) db`` with ``S_t(b) = prod_{s<=t} b . x_s``
the wealth of the CRP ``b``.  The integrals over the simplex are replaced by averages
over ``n_samples`` CRPs drawn uniformly from the simplex (Dirichlet(1, ..., 1)) once,
with the seed ``random_state``; each keeps its log-wealth.  (The OLPS toolbox samples by
a short random walk, Kalai and Vempala 2002, unseeded.)
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from ..persistence import persistable


@njit(cache=True)
def _up_run(X, B, b, samples, logw):
    n, m = X.shape
    k = samples.shape[0]
    for t in range(n):
        B[t] = b
        r = samples @ X[t]
        top = -np.inf
        for s in range(k):
            logw[s] += np.log(r[s])
            top = max(top, logw[s])
        w = np.exp(logw - top)
        b[:] = (w @ samples) / w.sum()


@persistable
class UP(Strategy):
    """Cover's universal portfolio, by sampling CRPs from the uniform prior.

    Parameters
    ----------
    n_samples : int, default=10000
        Number of CRPs drawn from the simplex.
    random_state : int, default=0
        Seed of the draw.
    """

    _kernel = staticmethod(_up_run)
    _slots = ("samples", "logw")
    _simplex = ("b", "samples")
    _fixed = ("samples",)
    _size_params = ("n_samples",)

    def __init__(self, n_samples=10000, random_state=0):
        store_params(self, locals())

    def _check_params(self):
        for name in ("n_samples", "random_state"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < (1 if name ==
                                                                       "n_samples" else 0):
                raise ValueError(f"{name} must be a {'positive' if name == 'n_samples' else 'non-negative'} "
                                 f"integer, got {v!r}")

    def _new_state(self, m):
        rng = np.random.default_rng(self.random_state)
        samples = rng.dirichlet(np.ones(m), size=self.n_samples)
        return {"b": np.full(m, 1.0 / m), "samples": samples,
                "logw": np.zeros(self.n_samples)}
