"""Oja's rule for k components, compiled (numpy + numba only)."""
import numpy as np

from .._compiled import njit


@njit(cache=True)
def oja_pass(X, W, mean, var_y, stats, lr):
    """Rows of ``X`` through Oja's subspace rule with re-orthonormalisation.

    ``W`` (d x k, orthonormal columns), ``mean`` (d) the running mean, ``var_y`` (k) the
    running mean of each projection's square, ``stats = [t]`` the rows seen.  Per row:
    the mean takes the row, ``z = x - mean``, ``y = W^T z``, ``W <- W + eta z y^T`` with
    ``eta = lr / t``, then modified Gram-Schmidt on the columns in order (the first
    column tracks the top component, the next the second ...).
    """
    d, k = W.shape
    t = stats[0]
    z = np.empty(d)
    y = np.empty(k)
    for r in range(X.shape[0]):
        t += 1.0
        for j in range(d):
            mean[j] += (X[r, j] - mean[j]) / t
            z[j] = X[r, j] - mean[j]
        for c in range(k):
            acc = 0.0
            for j in range(d):
                acc += W[j, c] * z[j]
            y[c] = acc
            var_y[c] += (acc * acc - var_y[c]) / t
        eta = lr / t
        for c in range(k):
            for j in range(d):
                W[j, c] += eta * z[j] * y[c]
        for c in range(k):
            for p in range(c):
                dot = 0.0
                for j in range(d):
                    dot += W[j, p] * W[j, c]
                for j in range(d):
                    W[j, c] -= dot * W[j, p]
            nrm = 0.0
            for j in range(d):
                nrm += W[j, c] * W[j, c]
            nrm = np.sqrt(nrm)
            if nrm > 0.0:
                for j in range(d):
                    W[j, c] /= nrm
    stats[0] = t
