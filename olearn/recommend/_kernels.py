"""Compiled loops of the recommenders (numpy + numba only).

``sgd_pass`` runs a whole rating stream through the SGD factorisation family
(Baseline, FunkMF, BiasedMF are configurations of it): for each event, the prediction
before the update is written to ``out`` (progressive validation), then the model learns.
"""
import numpy as np

from .._compiled import njit


@njit(cache=True)
def sgd_pass(users, items, ratings, bu, bi, P, Q, stats, params, out):
    """One pass over ``(users[t], items[t], ratings[t])`` (integer codes, already
    allocated rows).

    ``stats = [n, mean]`` (running count and mean of the ratings; the mean is used when
    ``params[0]`` is 1).  ``params = (use_mean, bias_lr, latent_lr, l2_bias, l2_latent,
    low, high)``; ``out[t]`` gets the pre-update prediction clipped to ``[low, high]``.
    The update (River's order, see ``mf.py``): the running mean first, then the gradient
    ``g = 2 (p - y)`` of ``(p - y)^2`` at the prediction ``p`` made with the new mean,
    then every parameter steps against ``g`` times its partial derivative plus its L2
    term, all partial derivatives taken at the old values.
    """
    use_mean = params[0] != 0.0
    logistic = params[7] != 0.0
    bias_lr, latent_lr, l2_bias, l2_latent = params[1], params[2], params[3], params[4]
    low, high = params[5], params[6]
    k = P.shape[1]
    n, mean = stats[0], stats[1]
    for t in range(users.shape[0]):
        u = users[t]
        i = items[t]
        y = ratings[t]
        dot = 0.0
        for f in range(k):
            dot += P[u, f] * Q[i, f]
        if logistic:  # PMF's link: p = low + (high - low) sigma(dot)
            sig = 1.0 / (1.0 + np.exp(-dot))
            out[t] = low + (high - low) * sig
            # gradient of (1/2) ((y - low) / (high - low) - sigma(dot))^2 in dot
            g = (sig - (y - low) / (high - low)) * sig * (1.0 - sig)
            for f in range(k):
                pu = P[u, f]
                qi = Q[i, f]
                P[u, f] = pu - latent_lr * (g * qi + l2_latent * pu)
                Q[i, f] = qi - latent_lr * (g * pu + l2_latent * qi)
            continue
        p = (mean + bu[u] + bi[i] + dot) if use_mean else (bu[u] + bi[i] + dot)
        out[t] = min(max(p, low), high)
        if use_mean:
            n += 1.0
            mean += (1.0 / n) * (y - mean)
            p = mean + bu[u] + bi[i] + dot
        g = 2.0 * (p - y)
        bu[u] -= bias_lr * (g + l2_bias * bu[u])
        bi[i] -= bias_lr * (g + l2_bias * bi[i])
        for f in range(k):
            pu = P[u, f]
            qi = Q[i, f]
            P[u, f] = pu - latent_lr * (g * qi + l2_latent * pu)
            Q[i, f] = qi - latent_lr * (g * pu + l2_latent * qi)
    stats[0] = n
    stats[1] = mean


@njit(cache=True)
def brand_pass(users, items, ratings, U, s, V, stats, params, out):
    """Brand's rank-1 SVD modifications, one per rating (see ``brand_svd.py``).

    ``U`` (users x rank_max), ``s`` (rank_max), ``V`` (items x rank_max): the thin SVD
    of the imputed, mean-centred rating matrix; ``stats = [n, mean, rank, n_users,
    n_items]``; ``params = (low, high, tol)``.  ``out[t]``: the prediction before the
    update, clipped to ``[low, high]``.
    """
    low, high, tol = params[0], params[1], params[2]
    rmax = U.shape[1]
    n, mean, r = stats[0], stats[1], int(stats[2])
    nu, ni = int(stats[3]), int(stats[4])
    m = np.zeros(rmax + 1)
    q = np.zeros(rmax + 1)
    tmp = np.zeros(rmax + 1)
    for t in range(users.shape[0]):
        u = users[t]
        i = items[t]
        if u >= nu:
            nu = u + 1
        if i >= ni:
            ni = i + 1
        x = 0.0
        for f in range(r):
            x += U[u, f] * s[f] * V[i, f]
        out[t] = min(max(mean + x, low), high)
        n += 1.0
        mean += (ratings[t] - mean) / n
        c = ratings[t] - mean - x          # the entry's change: A + c e_u e_i^T
        mu = 0.0
        mi = 0.0
        for f in range(r):
            m[f] = U[u, f]
            q[f] = V[i, f]
            mu += m[f] * m[f]
            mi += q[f] * q[f]
        ra = np.sqrt(max(1.0 - mu, 0.0))
        rb = np.sqrt(max(1.0 - mi, 0.0))
        if ra < 1e-10:
            ra = 0.0
        if rb < 1e-10:
            rb = 0.0
        m[r] = ra
        q[r] = rb
        K = np.zeros((r + 1, r + 1))
        for a in range(r + 1):
            for b in range(r + 1):
                K[a, b] = c * m[a] * q[b]
        for f in range(r):
            K[f, f] += s[f]
        Uk, sk, Vkt = np.linalg.svd(K)
        r2 = 0
        for f in range(min(r + 1, rmax)):
            if sk[f] > tol * sk[0]:
                r2 = f + 1
        # U <- U (Uk[:r, :r2] - m Uk[r, :r2] / ra) + e_u Uk[r, :r2] / ra
        _rotate(U, nu, u, m, ra, Uk, r, r2, tmp)
        _rotate(V, ni, i, q, rb, Vkt.T.copy(), r, r2, tmp)
        for f in range(r2):
            s[f] = sk[f]
        for f in range(r2, rmax):
            s[f] = 0.0
        r = r2
    stats[0], stats[1], stats[2], stats[3], stats[4] = n, mean, r, nu, ni


@njit(inline="always")
def _rotate(W, n_rows, row, m, ra, Wk, r, r2, tmp):
    inv = 1.0 / ra if ra > 0.0 else 0.0
    for j in range(n_rows):
        for g in range(r2):
            acc = 0.0
            for f in range(r):
                acc += W[j, f] * Wk[f, g]
            tmp[g] = acc
        # the projection of e_row off the basis: W[j] . m  (0 unless W[j] overlaps m)
        if inv > 0.0:
            dot = 0.0
            for f in range(r):
                dot += W[j, f] * m[f]
            for g in range(r2):
                tmp[g] -= dot * inv * Wk[r, g]
            if j == row:
                for g in range(r2):
                    tmp[g] += inv * Wk[r, g]
        for g in range(r2):
            W[j, g] = tmp[g]
        for g in range(r2, W.shape[1]):
            W[j, g] = 0.0


@njit(inline="always")
def _code(v, tab, n, kind, kinds, codes, values, n_new):
    """The code of id ``v`` (``tab[v]``, or the next code ``n`` for a new id, listed
    as ``kind`` in ``kinds``, ``codes``, ``values``).  Returns ``(code, n, n_new)``."""
    c = tab[v]
    if c < 0:
        c = n
        tab[v] = c
        n += 1
        kinds[n_new] = kind
        codes[n_new] = c
        values[n_new] = v
        n_new += 1
    return c, n, n_new


@njit(cache=True)
def code_stream(users, items, utab, itab, nu, ni, ucodes, icodes, kinds, codes, values):
    """Integer ids to codes in one pass (``utab[id]``: the code, -1 for a new id, which
    gets the next code).  The new ids are listed in order of first appearance, a user
    before the item of the same event: ``kinds`` (0 user, 1 item), ``codes``,
    ``values``.  Returns ``(n_users, n_items, n_new)``."""
    n_new = 0
    for t in range(users.shape[0]):
        ucodes[t], nu, n_new = _code(users[t], utab, nu, 0, kinds, codes, values, n_new)
        icodes[t], ni, n_new = _code(items[t], itab, ni, 1, kinds, codes, values, n_new)
    return nu, ni, n_new
