"""Fourier online gradient descent, FOGD (Lu, Hoi, Wang, Zhao, Liu, "Large Scale
Online Kernel Learning", JMLR 17, 2016, section 4.1, Algorithm 1).

Random Fourier features (Rahimi and Recht 2007) approximate the RBF kernel
``exp(-gamma ||x - z||^2)``: with ``D`` directions ``u_j ~ N(0, 2 gamma I)`` (seeded by
``random_state``), ``z(x) = (cos(u_1.x), ..., cos(u_D.x), sin(u_1.x), ..., sin(u_D.x))
/ sqrt(D)`` gives ``z(x).z(x') = (1/D) sum_j cos(u_j.(x - x'))``, which tends to the
kernel as D grows (the paper's eq. 8, cosines and sines in two blocks here).  FOGD is
then online gradient descent on ``f(x) = w.z(x)`` with a constant step ``eta``:
hinge loss for classification (``w += eta y z`` when ``y f(x) < 1``; multiclass the
max-score hinge, ``w_y += eta z``, ``w_s -= eta z`` for the highest-scoring wrong
class ``s`` when ``f_y - f_s < 1``), squared loss for regression (``w += eta (y - f) z``).
A sample weight multiplies the step.

Memory is constant (D x d directions, K x 2D weights; no feature matrix is ever
materialised); a row costs O(nnz D) for the projections and 2D cosines and sines,
written as one contiguous loop per row.  Departure from scikit-learn's
``RBFSampler``: that uses D cosines with random phases ``sqrt(2/D) cos(u.x + b)``; the
paper's cos/sin pairs have no phase noise (same kernel in expectation, lower variance).
The constant column of ``fit_intercept`` cancels in ``u.(x - x')``: it adds nothing
here, hence ``fit_intercept=False`` by default.
"""
import math

import numpy as np
from numba import njit
from .._estimator import check_is_fitted

from ..base import OnlineClassifier, OnlineRegressor
from .._compiled.declare import declare
from .._params import store_params
from .._state import Slot
from .._validation import check_number, check_size
from . import _features as F
from ._base import seed_of


@njit(inline="always")
def _features(state, idx, val, out):
    """``Z = z(x)`` (cosines then sines, / sqrt(D)) and ``out[k] = W[k] . Z``."""
    U = state[1]
    Z = state[2][0]
    D = U.shape[1]
    F.project(U, idx, val, Z, D)
    scale = 1.0 / math.sqrt(D)
    for j in range(D):
        p = Z[j]
        Z[j] = math.cos(p) * scale
        Z[D + j] = math.sin(p) * scale
    F.linear_scores(state[0], Z, out)


KERNELS = declare("kernel.fogd", params=("eta",), scratch=("Z",), score=_features,
                  binary=F.binary, multiclass=F.multiclass, regression=F.regression)


DOC = """Fourier online gradient descent {what} ({loss} on random features).

    Parameters
    ----------
    D : int, number of random directions (2D features: cosines and sines).
    gamma : float, RBF kernel width, exp(-gamma ||x - z||^2) (> 0).
    eta : float, constant step size (> 0).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner`` (random_state also seeds the directions).
    """


class FOGDModel(F.FeatureModel):
    """Mixin: the parameters (``DOC``), random directions in the state, predictions
    through the features."""
    _kernels = KERNELS
    _capabilities = {"width_dependent": "random Fourier directions are drawn per column as the "
                                "columns appear"}

    def __init__(self, D=400, gamma=0.1, eta=0.2, fit_intercept=False, intercept_scaling=1.0,
                 epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    @property
    def _slots(self):
        D = int(self.D)
        return (Slot("W", ("K", 2 * D), 0.0, signed=True), Slot("U", ("d", D), mix="same"),
                Slot("Z", (1, 2 * D), mix="reset"))

    def _check_params(self):
        self._check_eta_gamma()
        D = check_size("D", self.D)
        state = getattr(self, "state_", None)
        if state is not None and state["U"].shape[1] != int(D):
            raise ValueError("D changed after learning started; call fit() to start afresh")

    def _directions(self, rows, D, first):
        """``rows`` new directions, N(0, 2 gamma); rows from ``first`` on are seeded by
        (random_state, first), so a model started on arrays is reproducible."""
        rs = self.random_state
        if rs is None:
            rng = np.random.default_rng()
        elif isinstance(rs, (int, np.integer)):
            rng = np.random.default_rng([int(rs), first])
        else:
            rng = np.random.default_rng([seed_of(rs), first])
        return rng.standard_normal((rows, D)) * math.sqrt(2.0 * float(self.gamma))

    def _new_state(self, K, d):
        super()._new_state(K, d)
        self.state_["U"][:] = self._directions(d, int(self.D), 0)

    def _resize_state(self, K, d):
        old = self.state_["U"].shape[0]
        super()._resize_state(K, d)
        if d > old:
            self.state_["U"][old:] = self._directions(d - old, int(self.D), old)

    @property
    def _d(self):
        return self.state_["U"].shape[0]

    def _features_of(self, X):
        U = self.state_["U"]
        b = int(self.fit_intercept)
        P = np.asarray(X @ U[b:b + X.shape[1]])
        if b:
            P = P + self._constant() * U[0]
        scale = 1.0 / math.sqrt(U.shape[1])
        return np.hstack([np.cos(P), np.sin(P)]) * scale

    def _chunk_scores(self, X):
        return self._features_of(X) @ self.state_["W"].T

    def _row_scores(self, row, n):
        U = self.state_["U"]
        p = row[2][:n] @ U[row[1][:n]]
        z = np.concatenate([np.cos(p), np.sin(p)]) / math.sqrt(U.shape[1])
        return self.state_["W"] @ z

    @property
    def directions_(self):
        """(n_features, D) the random directions ``u_j`` (the intercept's row left out)."""
        check_is_fitted(self, "state_")
        return self.state_["U"][int(self.fit_intercept):].copy()


class FOGDClassifier(FOGDModel, OnlineClassifier):
    __doc__ = DOC.format(what="classifier", loss="hinge loss")


class FOGDRegressor(FOGDModel, OnlineRegressor):
    __doc__ = DOC.format(what="regressor", loss="squared loss")
