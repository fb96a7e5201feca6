"""Anticor: anti-correlation (Borodin, El-Yaniv, Gogan, "Can we learn to beat the best
stock", JAIR 21, 2004, Algorithm ANTICOR, Section 3).

Expert ``Anticor_w``: once ``2w`` periods are seen, with ``LX1``, ``LX2`` the log
relatives of the last two windows of ``w`` periods, ``mu1``, ``mu2`` their column
means and ``Mcor`` the cross-correlation of ``LX1`` with ``LX2``, wealth moves from
asset ``i`` to ``j != i`` when ``mu2(i) > mu2(j)`` and ``Mcor(i, j) > 0``:
``claim(i, j) = Mcor(i, j) + A(i) + A(j)``, ``A(h) = max(0, -Mcor(h, h))``,
``transfer(i, j) = b(i) claim(i, j) / sum_j claim(i, j)``.
``Anticor(window=W)`` is the paper's ``BAH_W(Anticor)`` as in the OLPS toolbox: the
experts ``Anticor_w``, ``w = 2..W``, combined in proportion to their wealth
(``bah=False``: the single expert ``Anticor_W``).  The paper's strict ``mu2(i) > mu2(j)``
and ``i != j`` are followed; the OLPS toolbox uses ``>=`` and lets a diagonal claim
enter the sums.
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, check_window, store_params
from .._validation import check_bool
from ..persistence import persistable


@njit(cache=True)
def _anticor_expert(hist, T, size, w, b):
    """One Anticor_w update of the expert portfolio ``b`` from the log relatives ring
    ``hist`` (``size`` rows, the newest is period ``T``)."""
    m = b.size
    L1 = np.empty((w, m))
    L2 = np.empty((w, m))
    for k in range(w):
        L1[k] = hist[(T - 2 * w + k) % size]     # periods T-2w+1 .. T-w
        L2[k] = hist[(T - w + k) % size]         # periods T-w+1 .. T
    mu1 = np.empty(m)
    mu2 = np.empty(m)
    for i in range(m):
        mu1[i] = L1[:, i].mean()
        mu2[i] = L2[:, i].mean()
    C1 = L1 - mu1
    C2 = L2 - mu2
    sd1 = np.sqrt((C1 * C1).sum(axis=0) / (w - 1))
    sd2 = np.sqrt((C2 * C2).sum(axis=0) / (w - 1))
    cov = C1.T @ C2 / (w - 1)
    cor = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            s = sd1[i] * sd2[j]
            if s != 0.0:
                cor[i, j] = cov[i, j] / s
    claim = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i != j and mu2[i] > mu2[j] and cor[i, j] > 0.0:
                claim[i, j] = cor[i, j] + max(0.0, -cor[i, i]) + max(0.0, -cor[j, j])
    new = b.copy()
    for i in range(m):
        total = claim[i].sum()
        if total > 0.0:
            for j in range(m):
                tr = b[i] * claim[i, j] / total
                new[i] -= tr
                new[j] += tr
    for i in range(m):              # transfers conserve wealth; clip rounding below 0
        b[i] = new[i] if new[i] > 0.0 else 0.0


@njit(cache=True)
def _anticor_run(X, B, b, hist, count, exp_w, exp_ret, windows):
    n, m = X.shape
    size = hist.shape[0]
    K = windows.size
    for t in range(n):
        B[t] = b
        T = count[0] + 1
        count[0] = T
        for i in range(m):
            hist[(T - 1) % size, i] = np.log(X[t, i])
        total = 0.0
        for k in range(K):
            exp_ret[k] *= X[t] @ exp_w[k]
            total += exp_ret[k]
        exp_ret /= total
        for k in range(K):
            if T >= 2 * windows[k]:
                _anticor_expert(hist, T, size, windows[k], exp_w[k])
        b[:] = (exp_ret @ exp_w) / exp_ret.sum()


@persistable
class Anticor(Strategy):
    """Anticor (Borodin, El-Yaniv, Gogan 2004), as BAH over windows 2..``window``.

    Parameters
    ----------
    window : int, default=30
        The largest window ``W`` (>= 2).
    bah : bool, default=True
        Combine the experts of windows 2..W by their wealth (OLPS's Anticor);
        ``False``: the single window ``W``.
    """

    _kernel = staticmethod(_anticor_run)
    _slots = ("hist", "count", "exp_w", "exp_ret", "windows")
    _simplex = ("b", "exp_w")
    _fixed = ("windows",)
    _size_params = ("window",)

    def __init__(self, window=30, bah=True):
        store_params(self, locals())

    def _check_params(self):
        check_window(self.window)
        check_bool("bah", self.bah)

    def _new_state(self, m):
        W = self.window
        windows = np.arange(2, W + 1) if self.bah else np.array([W])
        K = windows.size
        return {"b": np.full(m, 1.0 / m), "hist": np.zeros((2 * W, m)),
                "count": np.zeros(1, dtype=np.int64), "exp_w": np.full((K, m), 1.0 / m),
                "exp_ret": np.ones(K), "windows": windows.astype(np.int64)}
