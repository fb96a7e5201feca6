"""Incremental (online) SVD: Brand's thin-SVD row updates, with a rank ceiling and
optional exponential forgetting.

Rows are samples (scikit-learn's layout); no centring (``OnlinePCA`` centres).  After
the rows ``A`` seen so far, ``singular_values_`` and ``components_`` (their right
singular vectors, one per row) are the SVD of ``A`` exactly while the rank stays under
the ceiling, and Brand's truncated approximation after it (each update keeps the
``rank`` largest).  See ``_brand.py`` for the update (Brand, SDM 2003, section 2).

Forgetting (Brand 2002, section 4; Ross, Lim, Lin and Yang, IJCV 2008, section 3.1):
with ``forget = f < 1`` the t-th most recent row has weight ``f^t`` in the decomposed
matrix (rows inside a block are weighted the same way, so a block of rows gives the same
model as those rows one at a time).
"""
import numpy as np

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from ..protocol import Slot
from ._base import RowDecomposition, check_count
from ._brand import brand_update, flip_signs

__all__ = ["IncrementalSVD"]


@persistable
class IncrementalSVD(RowDecomposition):
    """Online thin SVD of a stream of rows (Brand 2003).

    Parameters
    ----------
    rank : int, default=10
        Rank ceiling: the number of singular values and vectors kept.
    forget : float, default=1.0
        Forgetting factor in (0, 1]: each new row multiplies the weight of every older
        row by ``forget`` (1: no forgetting, the SVD of all rows).
    tol : float, default=1e-12
        Singular values below ``tol`` times the largest are dropped (the rank grows only
        with rows outside the span).
    block_size : int, default=100
        ``partial_fit`` updates by blocks of at most this many rows (1: Brand's update
        by one row).  Without truncation every block size gives the same SVD; with it,
        larger blocks truncate less often (more accurate, more memory: a block of b rows
        costs an SVD of a (rank + b) square matrix).

    Notes
    -----
    Rows may be dense, CSR (densified a block at a time) or, one at a time, dicts
    (``learn_one``; the vocabulary grows).  ``predict_learn(X)`` gives each row's
    coordinates on the basis before the row's block.
    """

    outputs = "rank"
    slots = (Slot("V", ("d", "rank")), Slot("s", ("rank",)))

    def __init__(self, rank=10, forget=1.0, tol=1e-12, block_size=100):
        store_params(self, locals())

    def check_params(self):
        check_count("rank", self.rank)
        check_number("forget", self.forget, low=0, high=1, low_open=True)
        check_number("tol", self.tol, low=0, high=1)
        check_count("block_size", self.block_size)
        self.check_layout()

    def block_pass(self, X, state, scores):
        V_, s_ = state
        b, f = self.block_size, self.forget
        for a in range(0, X.shape[0], b):
            C = X[a:a + b]
            scores[a:a + b] = self.batch_scores(C)
            r = int(np.count_nonzero(s_))
            V, s = V_[:, :r], s_[:r]
            if f < 1.0:
                s = s * f ** C.shape[0]
                C = C * (f ** np.arange(C.shape[0] - 1, -1, -1.0))[:, None]
            V, s = brand_update(V, s, C, self.rank, self.tol)
            r = len(s)
            V_[:, :r], V_[:, r:] = V, 0.0
            s_[:r], s_[r:] = s, 0.0

    def _coords(self, X):
        return X @ flip_signs(self.state_["V"][:, :self._rank()])

    @property
    def singular_values_(self):
        """The singular values, largest first (``rank_`` of them)."""
        from .._estimator import check_is_fitted
        check_is_fitted(self, "state_")
        return self.state_["s"][:self._rank()].copy()

    @property
    def components_(self):
        """Right singular vectors, one per row (rank_ x n_features), largest first; the
        largest-magnitude entry of each is positive."""
        from .._estimator import check_is_fitted
        check_is_fitted(self, "state_")
        return flip_signs(self._basis()).T.copy()
