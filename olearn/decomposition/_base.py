"""What ``IncrementalSVD`` and ``OnlinePCA`` declare beyond the protocol for rows
without a target (:class:`olearn.base.OnlineUnlabelled`): their update is a block rule
in numpy (Brand's SVD of a small matrix, LAPACK: not a compiled per-row rule), given to
the base as the entry point of the ``UNLABELLED`` task, ``block_pass(X, state)``.

Everything else is the protocol's, from the declarations: the state is ``slots`` whose
axes are the width ``"d"`` and the hyper-parameter that bounds the rank (``V`` of shape
``(d, rank)``: the basis, its columns past the current rank zeros; ``s`` the singular
values, non-increasing, zeros past the rank), so that dense, CSR and dict rows
(``learn_one``, the vocabulary growing), widening, atomic batches, ``export_state`` /
``from_state`` with every array checked against its slot, and the tags come from the
base.  A round-3 file (metadata ``fitted``, arrays ``V`` of shape ``(d, rank_)``, ``s``,
...) is read by padding its arrays to the slots.  ``olearn.mix`` refuses two members:
a weighted mean of two orthonormal bases is not a basis, and Brand's merge of two SVDs
would need the rows' left vectors, which a stream does not keep.
"""
import numpy as np

from .._compiled.driver import UNLABELLED
from .._locking import locked
from ..base import OnlineUnlabelled


def check_count(name, value):
    """A positive integer (a rank, a number of components, a block size)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def dense_rows(rows, d):
    """The kernel's rows (a dense array, or a CSR triple of ``d`` columns, maybe a
    one-example buffer longer than its row) as a dense float64 array."""
    if isinstance(rows, np.ndarray):
        return rows
    indptr, indices, data = rows
    X = np.zeros((len(indptr) - 1, d))
    for i in range(len(indptr) - 1):
        lo, hi = indptr[i], indptr[i + 1]
        X[i, indices[lo:hi]] = data[lo:hi]
    return X


class RowDecomposition(OnlineUnlabelled):
    """A block rule on the protocol: a subclass declares ``slots`` (``V`` first, then
    ``s``), ``outputs`` (the parameter bounding the rank), ``check_params`` and
    ``block_pass(X, state, scores)`` (update the state arrays in place from the dense
    full-width rows ``X``, writing each row's ``batch_scores`` before its block into
    ``scores``), ``_coords(X)`` and ``components_``."""

    epochs, shuffle, random_state = 1, False, 0  # (fit: one pass, in order)
    _mix_refusal = ("a weighted mean of orthonormal bases is not a basis, and merging "
                    "two SVDs needs the rows' left singular vectors, which a stream "
                    "does not keep")

    @property
    def kernels(self):
        return {UNLABELLED: self._kernel}

    def kernel_params(self):
        return ()

    #: scikit-learn's checks a decomposition departs from, and why
    _expected_failed_checks = dict.fromkeys(
        ("check_sample_weights_list", "check_sample_weights_not_overwritten"),
        "a row decomposition takes no sample weights (an SVD of weighted rows would "
        "weigh by the square root; IncrementalSVD's forget= is its weighting)")

    def _kernel(self, rows, y, sw, state, params, seen, scores, pred):
        """The base's entry point: the block rule on the pass's rows, each row's
        coordinates before its block written into ``scores``."""
        if (sw != 1.0).any():
            raise ValueError(f"{type(self).__name__} takes no sample weights")
        X = self._full(dense_rows(rows, state[0].shape[0]))
        self.block_pass(X, state, scores)
        return X.shape[0]

    def _full(self, X):
        """Dense rows with as many columns as the state (a dict-fed model's arrays are
        grown ahead of its vocabulary, the columns past the width hold zeros)."""
        import scipy.sparse as sp
        if sp.issparse(X):
            X = X.toarray()
        d = self.state_["V"].shape[0]
        return X if X.shape[1] == d else np.hstack([X, np.zeros((X.shape[0], d - X.shape[1]))])

    def batch_scores(self, X):
        """The rows' coordinates on the components, padded with zeros to the declared
        rank (``outputs``)."""
        X = self._full(X)
        out = np.zeros((X.shape[0], self._n_outputs()))
        T = self._coords(X)
        out[:, :T.shape[1]] = T
        return out

    def _coords(self, X):
        """Coordinates of full-width dense rows on the current components (override)."""
        raise NotImplementedError

    @locked
    def transform(self, X):
        """Coordinates of the rows of ``X`` on the components."""
        C = self.components_
        X = self._validate_X(X, reset=False)
        return self._coords(self._full(X))[:, :C.shape[0]]

    @locked
    def inverse_transform(self, Z):
        """Rows back from their coordinates (plus the mean, for a centred model)."""
        Z, C = self._coordinates(Z)
        return Z @ C + self._offset()

    def _offset(self):
        return 0.0

    def _predict_rows(self, scores):
        return scores

    # ------------------------------------------------------------ the fitted basis
    @property
    def n_samples_seen_(self):
        """Rows learned so far."""
        return self.t_

    def _rank(self):
        return int(np.count_nonzero(self.state_["s"]))

    def _basis(self):
        """``V`` cut to the width and the current rank."""
        return self.state_["V"][:self.n_features_in_, :self._rank()]

    @property
    def rank_(self):
        """The current rank (at most the declared one)."""
        return self._rank() if self.__sklearn_is_fitted__() else 0

    def _coordinates(self, Z):
        """``Z`` as float64 coordinates on the ``components_``, and those components."""
        C = self.components_
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != C.shape[0]:
            raise ValueError(f"expected coordinates of shape (n, {C.shape[0]}), got "
                             f"{Z.shape}")
        return Z, C

    def fit_transform(self, X, y=None):
        """``fit(X)``, then ``transform(X)``."""
        return self.fit(X).transform(X)

    # ------------------------------------------------------------ files
    def export_state(self):
        if not self.__sklearn_is_fitted__():
            return {"fitted": False}, {}  # (an unfitted model saves and loads unfitted)
        return super().export_state()

    @classmethod
    def from_state(cls, params, meta, arrays):
        """The protocol's ``from_state``, then the values a kernel or LAPACK would
        choke on (``s = inf`` made ``np.linalg.svd`` loop forever): the singular values
        and scatter non-negative, ``s`` non-increasing with its zeros last.  A round-3
        file is read by padding its arrays to the slots."""
        if isinstance(meta, dict) and "fitted" in meta:
            if meta.get("fitted") is not True:
                if arrays:
                    raise ValueError("an unfitted model holds no arrays")
                model = cls(**params)
                model.check_params()
                return model
            meta, arrays = cls._round3(params, meta, arrays)
        model = super().from_state(params, meta, arrays)
        for name in ("s", "ss"):
            a = model.state_.get(name)
            if a is not None and (a < 0).any():
                raise ValueError(f"state array {name} holds a negative value")
        s = model.state_["s"]
        if model._ordered and ((np.diff(s) > 0).any()):
            raise ValueError("state array s must be non-increasing (zeros past the rank)")
        return model

    _ordered = True  # (Oja's variances are not sorted)

    @classmethod
    def _round3(cls, params, meta, arrays):
        """A round-3 file's metadata and arrays in the protocol's form: ``V`` and ``s``
        padded with zeros to the declared rank (a wider one is refused by the slots)."""
        d, n = meta.get("n_features"), meta.get("n_samples_seen")
        if type(d) is not int or d < 1 or type(n) is not int or n < 0:
            raise ValueError("n_features must be a positive integer, n_samples_seen a "
                             "non-negative one")
        out = {}
        for name, a in arrays.items():
            if not isinstance(a, np.ndarray) or a.dtype != np.float64:
                raise ValueError(f"array {name} must be a float64 array")
            out[f"state/{name}"] = a
        k = cls(**params)._axis_param(cls.outputs)
        for name, axis in (("V", 1), ("s", 0)):
            a = out.get(f"state/{name}")
            if a is not None and a.ndim == axis + 1 and a.shape[axis] < k:
                pad = [(0, 0)] * a.ndim
                pad[axis] = (0, k - a.shape[axis])
                out[f"state/{name}"] = np.pad(a, pad)
        return {"n_features_in_": d, "t_": n, "n_updates_": n}, out
