"""Seeded synthetic data: every generator takes ``random_state`` and gives the same
arrays for the same seed.
"""
import numpy as np
import scipy.sparse as sp


def make_sparse_stream(n_samples=200_000, n_features=2**18, nnz=40, flip=0.05,
                       random_state=0):
    """A sparse binary stream: the benchmark data of the foundation issue.

    Each row has exactly ``nnz`` distinct non-zero features with standard normal
    values; the label is the sign of a hidden hyperplane ``w`` (standard normal, through
    the origin), then ``round(flip * n_samples)`` labels, chosen at random, are negated.

    Returns ``(X, y)``: ``X`` a canonical CSR matrix (float64, sorted indices, no
    duplicates, int32 indices), ``y`` in {-1, +1} (float64).

    The column sets are drawn without a Python loop: ``nnz`` integers in
    ``[0, n_features - nnz]`` sorted per row, plus ``0, 1, ..., nnz - 1``, are strictly
    increasing and below ``n_features`` (a map from multisets onto sets, so every set
    can occur; it is close to, not exactly, uniform over the sets).
    """
    n_samples, n_features, nnz = int(n_samples), int(n_features), int(nnz)
    if n_samples < 1 or nnz < 1 or n_features < nnz:
        raise ValueError(f"need n_samples >= 1 and 1 <= nnz <= n_features, got "
                         f"n_samples={n_samples}, nnz={nnz}, n_features={n_features}")
    if not 0.0 <= flip <= 1.0:
        raise ValueError(f"flip must be in [0, 1], got {flip!r}")
    rng = np.random.default_rng(random_state)
    cols = rng.integers(0, n_features - nnz + 1, size=(n_samples, nnz), dtype=np.int32)
    cols.sort(axis=1)
    cols += np.arange(nnz, dtype=np.int32)
    data = rng.standard_normal(n_samples * nnz)
    indptr = np.arange(0, n_samples * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((data, cols.ravel(), indptr), shape=(n_samples, n_features))
    X.has_sorted_indices = True
    w = rng.standard_normal(n_features)
    y = np.where(X @ w > 0, 1.0, -1.0)
    y[rng.permutation(n_samples)[:round(flip * n_samples)]] *= -1.0
    return X, y
