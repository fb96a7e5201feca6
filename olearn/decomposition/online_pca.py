"""Streaming PCA: a running mean on Brand's incremental SVD, or Oja's rule.

``method="svd"`` (default): the SVD of the centred rows seen so far, updated block by
block without revisiting a row.  A block ``B`` of ``b`` rows with mean ``m_B``, after
``n`` rows of mean ``m``, changes the scatter matrix by the scatter of ``B - m_B`` plus
``n b / (n + b) (m - m_B)(m - m_B)^T`` (Chan, Golub and LeVeque 1979), so Brand's
update (``_brand.py``) takes the rows ``B - m_B`` and the one extra row
``sqrt(n b / (n + b)) (m - m_B)`` (Ross, Lim, Lin and Yang, IJCV 2008, section 3.1;
scikit-learn's ``IncrementalPCA`` uses the same identity with a full SVD per batch).
Without truncation (``n_components`` at least the rank of the data) this is exactly
the PCA of all rows seen.

``method="oja"``: Oja's subspace rule (E. Oja, "Principal components, minor
components, and linear neural networks", Neural Networks 1992, eq. 12) in its
re-orthonormalised form ``W <- orth(W + eta_t z z^T W)`` with ``eta_t = learning_rate
/ t`` (the stochastic orthogonal iteration analysed by Allen-Zhu and Li, FOCS 2017);
O(d k^2) per row, no SVD; approximate (it converges to the top subspace).
"""
import numpy as np

from .._params import store_params
from .._validation import check_choice, check_number
from ..persistence import persistable
from ._base import RowDecomposition, check_count, check_rows
from ._brand import brand_update, flip_signs
from .._locking import locked

__all__ = ["OnlinePCA"]


@persistable
class OnlinePCA(RowDecomposition):
    """Principal component analysis of a stream of rows.

    Parameters
    ----------
    n_components : int, default=2
        Number of principal components kept.
    method : {"svd", "oja"}, default="svd"
        "svd": running mean on Brand's incremental SVD (exact while not truncated);
        "oja": Oja's rule, cheaper per row, approximate.
    block_size : int, default=100
        ("svd") rows per update, at most.
    learning_rate : float, default=1.0
        ("oja") the step at row ``t`` is ``learning_rate / t``.
    random_state : int or None, default=0
        ("oja") seed of the random orthonormal start.
    """
    _saved = (("V", "_V", ("d", -1)), ("s", "_s", (-1,)), ("mean", "mean_", ("d",)),
              ("ss", "_ss", ("d",)))

    def __init__(self, n_components=2, method="svd", block_size=100, learning_rate=1.0,
                 random_state=0):
        store_params(self, locals())

    def _check_params(self):
        check_count("n_components", self.n_components)
        check_choice("method", self.method, ("svd", "oja"))
        check_count("block_size", self.block_size)
        check_number("learning_rate", self.learning_rate, low=0, low_open=True)

    def _reset(self, d):
        if self.n_components > d:
            raise ValueError(f"n_components={self.n_components} exceeds the number of "
                             f"features ({d})")
        self.mean_ = np.zeros(d)
        self._ss = np.zeros(d)  # per-feature sum of squared deviations
        self.n_samples_seen_ = 0
        if self.method == "svd":
            self._V, self._s = np.zeros((d, 0)), np.zeros(0)
        else:
            rng = np.random.RandomState(self.random_state)
            self._V = np.linalg.qr(rng.normal(size=(d, self.n_components)))[0]
            self._s = np.zeros(self.n_components)  # running mean of squared projections

    def _update(self, X):
        if self.method == "svd":
            self._svd_update(X)
        else:
            from ._oja import oja_pass
            self._moments(X, self.mean_.copy())
            stats = np.array([float(self.n_samples_seen_)])
            oja_pass(X, self._V, self.mean_, self._s, stats, float(self.learning_rate))
            self.n_samples_seen_ = X.shape[0] + int(self.n_samples_seen_)

    def _moments(self, B, mean):
        """Chan et al.'s merge of the per-feature scatter with block ``B`` (``mean``: the
        mean of the rows before it); returns the block's mean."""
        n, b = self.n_samples_seen_, B.shape[0]
        mB = B.mean(axis=0)
        delta = mB - mean
        self._ss += ((B - mB) ** 2).sum(axis=0) + delta ** 2 * n * b / (n + b)
        return mB

    def _svd_update(self, X):
        bs = self.block_size
        for a in range(0, X.shape[0], bs):
            B = X[a:a + bs]
            n, b = self.n_samples_seen_, B.shape[0]
            mB = self._moments(B, self.mean_)
            rows = B - mB
            if n:
                rows = np.vstack([rows, np.sqrt(n * b / (n + b)) * (self.mean_ - mB)])
            self._V, self._s = brand_update(self._V, self._s, rows, self.n_components,
                                            1e-12)
            self.mean_ = self.mean_ + (mB - self.mean_) * (b / (n + b))
            self.n_samples_seen_ = n + b

    @property
    def components_(self):
        """Principal axes (n_components x n_features), by decreasing variance; the
        largest-magnitude entry of each is positive."""
        from sklearn.utils.validation import check_is_fitted
        check_is_fitted(self, "_V")
        V = self._V
        if self.method == "oja":
            V = V[:, np.argsort(-self._s, kind="stable")]
        return flip_signs(V).T.copy()

    @property
    def explained_variance_(self):
        """Variance along each component (denominator n - 1, as scikit-learn)."""
        n = max(int(self.n_samples_seen_) - 1, 1)
        if self.method == "oja":
            return np.sort(self._s)[::-1] * self.n_samples_seen_ / n
        return self._s ** 2 / n

    @property
    def singular_values_(self):
        return np.sqrt(self.explained_variance_ * max(int(self.n_samples_seen_) - 1, 1))

    @property
    def explained_variance_ratio_(self):
        total = self._ss.sum()
        return self.explained_variance_ / (total / max(int(self.n_samples_seen_) - 1, 1)) \
            if total > 0 else np.zeros_like(self.explained_variance_)

    @locked
    def transform(self, X):
        """Coordinates of the centred rows on the components."""
        C = self.components_
        X = check_rows(self, X, reset=False)
        return (X - self.mean_) @ C.T

    @locked
    def inverse_transform(self, Z):
        """Rows back from their coordinates (plus the mean)."""
        Z, C = self._coordinates(Z)
        return Z @ C + self.mean_
