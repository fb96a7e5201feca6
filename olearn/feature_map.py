"""A public base for non-linear models over a feature map: ``f_k(x) = W_k . z(x)``.

:class:`FeatureMapModel` goes before ``OnlineClassifier`` / ``OnlineRegressor``.  The
model's first slot is its output weights ``W`` (K, m) over ``m`` features ``z(x)`` of
the row; the map may be fixed (FOGD's random Fourier features, NOGD's Nystrom map) or
learned (the hidden layer of a network).  The compiled side is the model's own
(``kernels``: its score writes ``z(x)`` and ``W z``, its rule updates the state); this
base gives the Python side that every such model shares:

* ``batch_scores`` (the protocol's scorer hook) through ``feature_scores``, a few
  thousand rows at a time, so predicting never materialises the features of a whole
  batch;
* ``weights_``, the output weights; ``coef_`` and ``intercept_`` raise (the weights are
  over ``z(x)``, not over the input's columns).

A model defines ``features(X)`` (the (n, m) features of validated rows, numpy), or
``feature_scores(X)`` when its scores are not ``features(X) W'`` (NOGD before its map is
built).  See ``ARCHITECTURE.md``, "A model over a feature map", and ``tests/test_protocol.py``
(a one-hidden-layer network written on this base).
"""
import numpy as np

from ._estimator import check_is_fitted

__all__ = ["FeatureMapModel"]

#: rows scored at a time by ``batch_scores`` (bounded memory)
CHUNK = 4096


class FeatureMapModel:
    """Mixin: predictions ``W z(x)`` of a model over a feature map (see the module)."""

    def features(self, X):
        """The (n, m) features ``z(x)`` of validated rows ``X`` (a C-contiguous float64
        array or a CSR matrix of the model's columns, without the constant feature) from
        the current state, changing nothing (override)."""
        raise NotImplementedError(f"{type(self).__name__} defines no features(X)")

    def feature_scores(self, X):
        """(n, K) scores of a few validated rows: ``features(X) W'`` (override when the
        scores are not that product)."""
        return np.asarray(self.features(X)) @ self._output_weights().T

    def batch_scores(self, X):
        out = np.empty((X.shape[0], self._n_rows))
        for lo in range(0, X.shape[0], CHUNK):
            out[lo:lo + CHUNK] = self.feature_scores(X[lo:lo + CHUNK])
        return out

    def _output_weights(self):
        return self.state_[self.slots[0].name]

    @property
    def weights_(self):
        """(K, m) output weights over the features ``z(x)``."""
        check_is_fitted(self, "state_")
        return self._output_weights().copy()

    @property
    def coef_(self):
        raise AttributeError(f"{type(self).__name__}'s weights are over its features "
                             "z(x), not the input's columns: see weights_")

    @property
    def intercept_(self):
        raise AttributeError(f"{type(self).__name__} has no intercept: see weights_")
