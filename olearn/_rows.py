"""Input canonicalisation: done once per call, never per row.

Every batch reaches a kernel in one of two layouts:

* CSR, as the triple ``(indptr, indices, data)``: float64 values, sorted indices,
  duplicates summed; int32 indices when they fit, else int64;
* dense: a C-contiguous float64 2-D array.

With ``fit_intercept`` a constant feature of value 1 is put in front as column 0, so
that the intercept takes part in norms and updates exactly like any other weight.
"""
import numpy as np
import scipy.sparse as sp


def canonical_csr(X):
    """A CSR matrix with float64 data, sorted indices and no duplicates (copied if needed)."""
    X = sp.csr_matrix(X) if not (sp.issparse(X) and X.format == "csr") else X
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def kernel_rows(X, fit_intercept):
    """The kernel's view of a validated batch: a CSR triple or a dense 2-D array."""
    if sp.issparse(X):
        X = canonical_csr(X)
        n = X.shape[0]
        wide = X.nnz + n >= 2**31 or X.shape[1] + 1 >= 2**31
        itype = np.int64 if wide else np.int32
        if not fit_intercept:
            return (X.indptr.astype(itype, copy=False), X.indices.astype(itype, copy=False),
                    X.data)
        indptr = X.indptr.astype(itype) + np.arange(n + 1, dtype=itype)
        indices = np.empty(X.nnz + n, dtype=itype)
        data = np.empty(X.nnz + n, dtype=np.float64)
        first = indptr[:-1]
        rest = np.ones(X.nnz + n, dtype=bool)
        rest[first] = False
        indices[first] = 0
        data[first] = 1.0
        indices[rest] = X.indices + 1
        data[rest] = X.data
        return indptr, indices, data
    X = np.asarray(X, dtype=np.float64)
    if not fit_intercept:
        return np.ascontiguousarray(X)
    out = np.empty((X.shape[0], X.shape[1] + 1), dtype=np.float64)
    out[:, 0] = 1.0
    out[:, 1:] = X
    return out

