"""Brand's thin-SVD update by a block of rows (numpy; small dense linear algebra).

M. Brand, "Fast online SVD revisions for lightweight recommender systems", SIAM SDM
2003, section 2 (and "Incremental singular value decomposition of uncertain data with
missing values", ECCV 2002, eqs. 1-4), written for rows as samples: with
``A = U diag(s) V^T`` (``V``: d x r orthonormal) and new rows ``C`` (b x d),

    M = V^T C^T                     (r x b)  the rows' coordinates in the basis
    P R = C^T - V M                 (d x q, q x b; q = min(b, d))  reduced QR of what
                                    the basis misses
    K = [[diag(s), 0], [M^T, R^T]]  ((r+b) x (r+q)),  K = U_K diag(s') V_K^T (thin)
    [A; C] = [[U, 0], [0, I]] K [V P]^T  =>  V' = [V P] V_K,  s' = s'

so ``s'`` and ``V'`` are the exact SVD of ``[A; C]`` (``U`` is not kept: rows are
samples and a stream has no end).  Truncation keeps the ``rank`` largest singular
values (Brand's rank ceiling) and drops those below ``tol`` times the largest (a row in
the span adds no dimension: Brand's test ``||p|| < thr``), so the rank grows by at most
``b`` per block.  ``P`` is orthogonalised against ``V`` twice (classical Gram-Schmidt
twice is enough, Giraud et al. 2005), which keeps ``V`` orthonormal over long streams.
"""
import numpy as np


def brand_update(V, s, C, rank, tol):
    """``(V', s')`` of the rows behind ``(V, s)`` followed by the rows ``C``."""
    Ct = C.T
    M = V.T @ Ct
    Pm = Ct - V @ M
    M2 = V.T @ Pm
    Pm -= V @ M2
    M += M2
    P, R = np.linalg.qr(Pm)
    r, b, q = len(s), C.shape[0], P.shape[1]  # q = min(b, d)
    K = np.zeros((r + b, r + q))
    K[:r, :r] = np.diag(s)
    K[r:, :r] = M.T
    K[r:, r:] = R.T
    _, s2, VKt = np.linalg.svd(K)
    keep = min(rank, int(np.count_nonzero(s2 > tol * s2[0]))) if s2[0] > 0 else 0
    V2 = V @ VKt[:keep, :r].T + P @ VKt[:keep, r:].T
    return V2, s2[:keep].copy()


def flip_signs(V):
    """Each column of ``V`` with its largest-magnitude entry positive (a fixed sign, as
    scikit-learn's ``svd_flip`` does for components)."""
    if V.size:
        j = np.argmax(np.abs(V), axis=0)
        V = V * np.sign(V[j, np.arange(V.shape[1])])
    return V
