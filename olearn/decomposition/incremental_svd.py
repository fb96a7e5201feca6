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
from sklearn.base import BaseEstimator, TransformerMixin

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from ._brand import brand_update, flip_signs

__all__ = ["IncrementalSVD"]


def _check_rows(est, X, reset):
    from sklearn.utils.validation import validate_data
    X = validate_data(est, X, reset=reset, dtype=np.float64, order="C")
    return X


@persistable
class IncrementalSVD(TransformerMixin, BaseEstimator):
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
    """

    def __init__(self, rank=10, forget=1.0, tol=1e-12, block_size=100):
        store_params(self, locals())

    def _check_params(self):
        if not isinstance(self.rank, (int, np.integer)) or isinstance(self.rank, bool) \
                or self.rank < 1:
            raise ValueError(f"rank must be a positive integer, got {self.rank!r}")
        check_number("forget", self.forget, low=0, high=1, low_open=True)
        check_number("tol", self.tol, low=0, high=1)
        b = self.block_size
        if not isinstance(b, (int, np.integer)) or isinstance(b, bool) or b < 1:
            raise ValueError(f"block_size must be a positive integer, got {b!r}")

    def _reset(self, d):
        self._V = np.zeros((d, 0))
        self.singular_values_ = np.zeros(0)
        self.n_samples_seen_ = 0

    def partial_fit(self, X, y=None):
        """Update the SVD with the rows of ``X``.  Returns self."""
        self._check_params()
        first = not hasattr(self, "_V")
        X = _check_rows(self, X, reset=first)
        if first:
            self._reset(X.shape[1])
        self._update(X)
        return self

    def fit(self, X, y=None):
        """The SVD of the rows of ``X`` (forgetting what was seen before)."""
        for name in ("_V", "n_features_in_"):
            self.__dict__.pop(name, None)
        return self.partial_fit(X)

    def _update(self, X):
        b = self.block_size
        V, s, f = self._V, self.singular_values_, self.forget
        for a in range(0, X.shape[0], b):
            C = X[a:a + b]
            if f < 1.0:
                s = s * f ** C.shape[0]
                C = C * (f ** np.arange(C.shape[0] - 1, -1, -1.0))[:, None]
            V, s = brand_update(V, s, C, self.rank, self.tol)
        self._V, self.singular_values_ = V, s
        self.n_samples_seen_ += X.shape[0]

    @property
    def components_(self):
        """Right singular vectors, one per row (rank_ x n_features), largest first; the
        largest-magnitude entry of each is positive."""
        from sklearn.utils.validation import check_is_fitted
        check_is_fitted(self, "_V")
        return flip_signs(self._V).T.copy()

    @property
    def rank_(self):
        """The current rank (at most ``rank``)."""
        return len(self.singular_values_) if hasattr(self, "_V") else 0

    def transform(self, X):
        """Coordinates of the rows of ``X`` in the basis: ``X V``."""
        C = self.components_
        X = _check_rows(self, X, reset=False)
        return X @ C.T

    def inverse_transform(self, Z):
        """Rows back from their coordinates: ``Z V^T``."""
        C = self.components_
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != C.shape[0]:
            raise ValueError(f"expected coordinates of shape (n, {C.shape[0]}), got "
                             f"{Z.shape}")
        return Z @ C

    def save(self, path):
        """Write the model to ``path`` (``olearn.load(path)`` reads it back)."""
        from ..persistence import save
        save(self, path)

    def _export(self):
        if not hasattr(self, "_V"):
            return {"fitted": False}, {}
        return ({"fitted": True, "n_samples_seen": int(self.n_samples_seen_),
                 "n_features": int(self.n_features_in_)},
                {"V": self._V.copy(), "s": self.singular_values_.copy()})

    @classmethod
    def _import(cls, params, fitted, arrays):
        model = cls(**params)
        if fitted.get("fitted"):
            d = int(fitted["n_features"])
            model._V = np.array(arrays["V"], dtype=np.float64).reshape(d, -1)
            model.singular_values_ = np.array(arrays["s"], dtype=np.float64).reshape(-1)
            model.n_samples_seen_ = int(fitted["n_samples_seen"])
            model.n_features_in_ = d
        return model
