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
from ..protocol import Slot
from ._base import RowDecomposition, check_count
from ._brand import brand_update, flip_signs

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
        Rows per update, at most ("svd"; "oja" updates row by row, and a block is
        what ``predict_learn``'s coordinates are taken before).
    learning_rate : float, default=1.0
        ("oja") the step at row ``t`` is ``learning_rate / t``.
    random_state : int or None, default=0
        ("oja") seed of the random orthonormal start.

    Notes
    -----
    Rows may be dense, CSR (densified a block at a time) or, one at a time, dicts
    (``learn_one``, the vocabulary growing; "svd" only: Oja's random start needs the
    width).  ``predict_learn(X)`` gives each row's coordinates before its block.
    """

    outputs = "n_components"
    slots = (Slot("V", ("d", "n_components")), Slot("s", ("n_components",)),
             Slot("mean", ("d",)), Slot("ss", ("d",)))

    def __init__(self, n_components=2, method="svd", block_size=100, learning_rate=1.0,
                 random_state=0):
        store_params(self, locals())

    def check_params(self):
        check_count("n_components", self.n_components)
        check_choice("method", self.method, ("svd", "oja"))
        check_count("block_size", self.block_size)
        check_number("learning_rate", self.learning_rate, low=0, low_open=True)
        self.check_layout()

    def _instance_tags(self):
        return {"width_dependent": "method='oja' draws its random start over the width"
                if self.method == "oja" else ""}

    @property
    def _ordered(self):
        return self.method == "svd"  # (Oja's variances are not sorted)

    def _start(self, n_features):
        if n_features and self.n_components > n_features:
            raise ValueError(f"n_components={self.n_components} exceeds the number of "
                             f"features ({n_features})")
        if not n_features and self.method == "oja":
            raise ValueError("OnlinePCA(method='oja') starts from a random basis of the "
                             "input's width: learn from array rows, not dicts")
        super()._start(n_features)

    def init_state(self, name, array, start):
        if name == "V" and start == 0 and self.method == "oja":
            rng = np.random.RandomState(self.random_state)
            array[:] = np.linalg.qr(rng.normal(size=array.shape))[0]

    def block_pass(self, X, state, scores):
        V_, s_, mean, ss = state
        bs = self.block_size
        n = int(self.t_)
        for a in range(0, X.shape[0], bs):
            B = X[a:a + bs]
            scores[a:a + bs] = self.batch_scores(B)
            b = B.shape[0]
            if self.method == "oja":
                from ._oja import oja_pass
                self._moments(B, mean.copy(), n, ss)
                oja_pass(B, V_, mean, s_, np.array([float(n)]), float(self.learning_rate))
            else:
                mB = self._moments(B, mean, n, ss)
                rows = B - mB
                if n:
                    rows = np.vstack([rows, np.sqrt(n * b / (n + b)) * (mean - mB)])
                r = int(np.count_nonzero(s_))
                V, s = brand_update(V_[:, :r], s_[:r], rows, self.n_components, 1e-12)
                r = len(s)
                V_[:, :r], V_[:, r:] = V, 0.0
                s_[:r], s_[r:] = s, 0.0
                mean[:] = mean + (mB - mean) * (b / (n + b))
            n += b

    @staticmethod
    def _moments(B, mean, n, ss):
        """Chan et al.'s merge of the per-feature scatter ``ss`` (in place) with block
        ``B`` after ``n`` rows of mean ``mean``; returns the block's mean."""
        b = B.shape[0]
        mB = B.mean(axis=0)
        delta = mB - mean
        ss += ((B - mB) ** 2).sum(axis=0) + delta ** 2 * n * b / (n + b)
        return mB

    def _components_full(self):
        """The components over the state's columns, by decreasing variance."""
        V = self.state_["V"][:, :self._rank()]
        if self.method == "oja":
            V = V[:, np.argsort(-self.state_["s"], kind="stable")]
        return flip_signs(V)

    def _rank(self):
        return self.n_components if self.method == "oja" else super()._rank()

    def _coords(self, X):
        return (X - self.state_["mean"]) @ self._components_full()

    def _offset(self):
        return self.mean_

    @property
    def components_(self):
        """Principal axes (n_components x n_features), by decreasing variance; the
        largest-magnitude entry of each is positive."""
        from .._estimator import check_is_fitted
        check_is_fitted(self, "state_")
        return self._components_full()[:self.n_features_in_].T.copy()

    @property
    def mean_(self):
        """The mean of the rows seen."""
        from .._estimator import check_is_fitted
        check_is_fitted(self, "state_")
        return self.state_["mean"][:self.n_features_in_].copy()

    @property
    def explained_variance_(self):
        """Variance along each component (denominator n - 1, as scikit-learn)."""
        n = max(int(self.t_) - 1, 1)
        s = self.state_["s"]
        if self.method == "oja":
            return np.sort(s)[::-1] * self.t_ / n
        return s[:self._rank()] ** 2 / n

    @property
    def singular_values_(self):
        return np.sqrt(self.explained_variance_ * max(int(self.t_) - 1, 1))

    @property
    def explained_variance_ratio_(self):
        total = self.state_["ss"].sum()
        return self.explained_variance_ / (total / max(int(self.t_) - 1, 1)) \
            if total > 0 else np.zeros_like(self.explained_variance_)
