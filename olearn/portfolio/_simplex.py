"""Projections onto the probability simplex (compiled helpers, numpy + numba only).

* ``project_simplex(v, out)``: the Euclidean projection, exact, by sorting (Duchi,
  Shalev-Shwartz, Singer, Chandra, ICML 2008, Figure 1): ``out = max(v - theta, 0)``
  with ``theta = (sum_{r <= rho} u_r - 1) / rho``, ``u`` the values sorted in
  decreasing order and ``rho`` the largest ``j`` with ``u_j > (sum_{r <= j} u_r - 1) / j``.
* ``project_simplex_norm(A, c, w0, out)``: the projection in the norm of a positive
  definite ``A``, ``argmin_{w in simplex} (w - q)' A (w - q)`` given ``c = A q``
  (Online Newton Step's generalised projection; the Newton step of BCRP).  A primal
  active-set method (Nocedal and Wright, Numerical Optimization, Algorithm 16.3):
  each iteration solves the equality-constrained problem on the free coordinates
  exactly (its KKT system), so the answer is exact up to rounding, in finitely many
  steps, warm-started from a feasible ``w0`` (the previous portfolio).
"""
import numpy as np

from .._compiled import njit


@njit(cache=True)
def project_simplex(v, out):
    m = v.size
    u = np.sort(v)[::-1]
    css = 0.0
    theta = 0.0
    for j in range(m):
        css += u[j]
        t = (css - 1.0) / (j + 1)
        if u[j] > t:
            theta = t
    for i in range(m):
        d = v[i] - theta
        out[i] = d if d > 0.0 else 0.0


@njit(cache=True)
def reversion_step(b, phi, epsilon, v):
    """The mean-reversion update of OLMAR and RMR (Li and Hoi 2012, eqs. 7-9): for a
    predicted relative ``phi`` with predicted return ``phi.b`` below ``epsilon``,
    ``b <- proj(b + lam (phi - mean(phi)))``, ``lam = (epsilon - phi.b) / ||phi -
    mean(phi)||^2``; ``b`` is changed in place, ``v`` is scratch."""
    m = b.shape[0]
    xbar = phi.mean()
    den = 0.0
    for i in range(m):
        den += (phi[i] - xbar) ** 2
    ell = epsilon - phi @ b
    if ell <= 0.0 or den == 0.0:
        return
    lam = ell / den
    for i in range(m):
        v[i] = b[i] + lam * (phi[i] - xbar)
    project_simplex(v, b)


@njit(cache=True)
def project_simplex_norm(A, c, w0, out):
    """Minimise 0.5 w'Aw - c'w over the simplex, from the feasible ``w0``; writes ``out``."""
    m = c.size
    w = w0.copy()
    free = w > 0.0
    tol = 1e-13
    for _ in range(20 * m + 100):
        idx = np.nonzero(free)[0]
        k = idx.size
        K = np.zeros((k + 1, k + 1))
        rhs = np.empty(k + 1)
        for a in range(k):
            for b in range(k):
                K[a, b] = A[idx[a], idx[b]]
            K[a, k] = 1.0
            K[k, a] = 1.0
            rhs[a] = c[idx[a]]
        rhs[k] = 1.0
        sol = np.linalg.solve(K, rhs)
        step = 0.0
        for a in range(k):
            step = max(step, abs(sol[a] - w[idx[a]]))
        if step <= tol:
            # optimal on this face: a fixed coordinate with a negative multiplier is freed
            nu = sol[k]
            g = A @ w - c
            worst = -1e-12 * (1.0 + np.abs(c).max())
            j = -1
            for i in range(m):
                if not free[i] and g[i] + nu < worst:
                    worst = g[i] + nu
                    j = i
            if j < 0:
                break
            free[j] = True
            continue
        alpha = 1.0
        block = -1
        for a in range(k):
            p = sol[a] - w[idx[a]]
            if p < 0.0 and sol[a] < 0.0:
                r = w[idx[a]] / -p
                if r < alpha:
                    alpha = r
                    block = idx[a]
        for a in range(k):
            w[idx[a]] += alpha * (sol[a] - w[idx[a]])
        if block >= 0:
            w[block] = 0.0
            free[block] = False
    s = 0.0
    for i in range(m):
        if w[i] < 0.0:
            w[i] = 0.0
        s += w[i]
    for i in range(m):
        out[i] = w[i] / s
