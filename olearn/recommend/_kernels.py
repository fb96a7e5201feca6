"""Compiled loops of the recommenders (numpy + numba only).

``sgd_pass`` runs a whole rating stream through the SGD factorisation family
(Baseline, FunkMF, BiasedMF are configurations of it): for each event, the prediction
before the update is written to ``out`` (progressive validation), then the model learns.
"""
import numpy as np
from numba import njit


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
