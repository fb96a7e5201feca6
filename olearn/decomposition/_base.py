"""What ``IncrementalSVD`` and ``OnlinePCA`` share: rows validated once per call, the
online protocol (``partial_fit`` updates, ``fit`` starts afresh), coordinates checked
for ``inverse_transform``, and save/load of the fitted arrays named in ``_saved``."""
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from .._locking import locked
from ..protocol import Saves


def check_rows(est, X, reset):
    """``X`` as C-contiguous float64 rows with the estimator's width."""
    from sklearn.utils.validation import validate_data
    return validate_data(est, X, reset=reset, dtype=np.float64, order="C")


def check_count(name, value):
    """A positive integer (a rank, a number of components, a block size)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


class RowDecomposition(Saves, TransformerMixin, BaseEstimator):
    """Base: a subclass defines ``_check_params``, ``_reset(d)`` (fresh state for ``d``
    features, ``_V`` among it), ``_update(X)`` and ``_saved``, the fitted arrays that
    ``save`` writes: ``(name in the file, attribute, shape)``, ``"d"`` the width."""
    _saved = ()

    @locked
    def partial_fit(self, X, y=None):
        """Update the model with the rows of ``X``.  Returns self."""
        self._check_params()
        first = not hasattr(self, "_V")
        X = check_rows(self, X, reset=first)
        if first:
            self._reset(X.shape[1])
        self._update(X)
        return self

    @locked
    def fit(self, X, y=None):
        """The model of the rows of ``X`` alone (forgetting what was seen before)."""
        for name in ("_V", "n_features_in_"):
            self.__dict__.pop(name, None)
        return self.partial_fit(X)

    def _coordinates(self, Z):
        """``Z`` as float64 coordinates on the ``components_``, and those components."""
        C = self.components_
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != C.shape[0]:
            raise ValueError(f"expected coordinates of shape (n, {C.shape[0]}), got "
                             f"{Z.shape}")
        return Z, C

    def _export(self):
        if not hasattr(self, "_V"):
            return {"fitted": False}, {}
        return ({"fitted": True, "n_samples_seen": int(self.n_samples_seen_),
                 "n_features": int(self.n_features_in_)},
                {name: getattr(self, attr).copy() for name, attr, _ in self._saved})

    @classmethod
    def _import(cls, params, fitted, arrays):
        model = cls(**params)
        if fitted.get("fitted"):
            d = int(fitted["n_features"])
            for name, attr, shape in cls._saved:
                shape = tuple(d if n == "d" else n for n in shape)
                array = np.array(arrays[name], dtype=np.float64)
                setattr(model, attr, array.reshape(shape))
            model.n_samples_seen_ = int(fitted["n_samples_seen"])
            model.n_features_in_ = d
        return model
