"""What FOGD and NOGD share: online gradient descent on an explicit feature map
``z(x)`` of the row, as an ordinary declared learner of the linear core.

The state puts the weights ``W`` (K, n_features) first and the row's features
``Z`` (1, n_features) third (slot 2): the learner's score writes ``Z = z(x)`` and
``out = W z``, and the rules below change ``W`` in place:

* binary: hinge loss, ``w += eta y z`` when ``y f(x) < 1``;
* multiclass: the max-score hinge, ``w_y += eta z``, ``w_s -= eta z`` for the
  highest-scoring wrong class ``s`` when ``f_y - f_s < 1``;
* regression: squared loss, ``w += eta (y - f) z``.

``params.eta`` is the step (declared ``params=("eta",)``); a sample weight multiplies
it.  ``project`` is the
sparse product ``P = x U`` (U (d, m) stored by feature, so a row reads contiguous
rows of ``U``), shared by FOGD's random directions and NOGD's landmarks.  The Python
side is the public :class:`olearn.feature_map.FeatureMapModel`.
"""
from numba import njit

from ..feature_map import FeatureMapModel
from .._compiled.driver import top_wrong
from .._validation import check_number


@njit(inline="always")
def project(U, idx, val, P, m):
    """``P[j] = sum_q val[q] U[idx[q], j]`` for ``j < m``."""
    for j in range(m):
        P[j] = 0.0
    for q in range(idx.shape[0]):
        v = val[q]
        if v != 0.0:
            row = U[idx[q]]
            for j in range(m):
                P[j] += v * row[j]


@njit(inline="always")
def linear_scores(W, Z, out):
    for k in range(W.shape[0]):
        acc = 0.0
        for j in range(Z.shape[0]):
            acc += W[k, j] * Z[j]
        out[k] = acc


@njit(inline="always")
def add(W, k, step, Z):
    for j in range(Z.shape[0]):
        W[k, j] += step * Z[j]


@njit(inline="always")
def binary(state, params, idx, val, y, sw, out, seen):
    if y * out[0] >= 1.0:
        return 0
    add(state[0], 0, params.eta * sw * y, state[2][0])
    return 1


@njit(inline="always")
def multiclass(state, params, idx, val, y, sw, out, seen):
    yi = int(y)
    s = top_wrong(out, seen, yi)
    if s < 0 or out[yi] - out[s] >= 1.0:
        return 0
    add(state[0], yi, params.eta * sw, state[2][0])
    add(state[0], s, -params.eta * sw, state[2][0])
    return 1


@njit(inline="always")
def regression(state, params, idx, val, y, sw, out, seen):
    r = y - out[0]
    if r == 0.0:
        return 0
    add(state[0], 0, params.eta * sw * r, state[2][0])
    return 1


class FeatureModel(FeatureMapModel):
    """Mixin of FOGD and NOGD: hyper-parameter checks, and their scores of a few rows
    (``_chunk_scores``) as the public base's ``feature_scores``."""

    _capabilities = {"kernel": "features"}

    def _check_eta_gamma(self):
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("gamma", self.gamma, low=0.0, low_open=True)

    def _kernel_params(self):
        return {"eta": self.eta}

    def _chunk_scores(self, X):
        """(n, K) scores of a few validated rows (override)."""
        raise NotImplementedError

    def feature_scores(self, X):
        return self._chunk_scores(X)
