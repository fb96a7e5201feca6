"""Nystrom online gradient descent, NOGD (Lu, Hoi, Wang, Zhao, Liu, "Large Scale Online
Kernel Learning", JMLR 17, 2016, Algorithm 2), for the RBF kernel
``exp(-gamma ||x - z||^2)``.

Two stages:

1. Kernel online gradient descent with a constant step ``eta`` (the budget is not yet
   full): ``f(x) = sum_i alpha_i K(x_i, x)``; a row with a non-zero loss gradient
   joins the support set, ``alpha = eta y`` (hinge; multiclass ``+eta`` for the true
   class and ``-eta`` for the highest-scoring wrong class when ``f_y - f_s < 1``;
   regression, squared loss, ``alpha = eta (y - f)``).  Its first B members are
   the landmarks ``x^_1 .. x^_B``.
2. At the first row that comes once B landmarks are held, the Nystrom map is built
   from the landmarks' kernel matrix ``K^ = V Lambda V'`` (its k largest
   eigenpairs): ``z(x) = Lambda_k^{-1/2} V_k' (K(x, x^_1), ..,
   K(x, x^_B))``, and the weights start at ``w = alpha pinv(Lambda_k^{-1/2} V_k')
   = alpha V_k Lambda_k^{1/2}`` (the kernel expansion projected on the k leading
   eigenvectors).  From then on (that row's update included, computed with its
   kernel-expansion score), NOGD is online gradient descent on ``f(x) = w . z(x)``
   with the rules FOGD uses (``olearn.kernel._features``).

As the paper and LIBOKL's ``NysGD.m``: the landmarks are the first B support vectors,
not the first B rows.  An eigenvalue below ``1e-12`` times the largest (repeated
landmarks) has its component dropped (pseudo-inverse) rather than divided by ~0.
The landmarks' kernel matrix is filled row by row as they join (from the kernel
values the row was scored with), so building the map costs one O(B^3)
eigen-decomposition and no kernel evaluation.

Memory is constant: B x d landmarks (dense, as FOGD's directions), B x B, k x B.  A
row costs O(nnz B) for the kernel values plus O(k B) for the map (stage 2) or O(K B)
(stage 1).
"""
import math

import numpy as np
from numba import njit
from .._estimator import check_is_fitted

from ..base import OnlineClassifier, OnlineRegressor
from .._compiled.declare import declare
from .._compiled.driver import matvec, top_wrong
from .._params import store_params
from .._state import Slot
from .._validation import check_number, check_size
from . import _features as F

#: the largest budget B (and rank k): the state holds a B x B matrix (2^12: 128 MiB)
MAX_BUDGET = 2**12

_W, _L, _Z, _A, _M, _KH, _V, _C = range(8)  # slot order (W first, Z third: _features)
_TOL = 1e-12


@njit(inline="always")
def _row_norm(val):
    acc = 0.0
    for q in range(val.shape[0]):
        acc += val[q] * val[q]
    return acc


@njit(inline="always")
def _score(state, idx, val, out):
    """Kernel values against the landmarks into ``V``, then the stage's scores."""
    L, A, M, kv, C = state[_L], state[_A], state[_M], state[_V][0], state[_C][0]
    m = int(C[0])
    gamma = C[2]
    F.project(L, idx, val, kv, m)
    sqx = _row_norm(val)
    lsq = state[_C][1]
    for i in range(m):
        d2 = sqx + lsq[i] - 2.0 * kv[i]
        kv[i] = math.exp(-gamma * (d2 if d2 > 0.0 else 0.0))
    if C[1] == 0.0:
        matvec(A, kv, A.shape[0], m, out)
        return
    Z = state[_Z][0]
    matvec(M, kv, M.shape[0], m, Z)
    F.linear_scores(state[_W], Z, out)


@njit(inline="always")
def _nystrom(state):
    """Stage 2 from the landmarks: the map ``M = Lambda_k^{-1/2} V_k'``, the weights
    ``W = A V_k Lambda_k^{1/2}`` and this row's features ``Z = M kv``."""
    W, A, M, kv, C = state[_W], state[_A], state[_M], state[_V][0], state[_C][0]
    lam, vec = np.linalg.eigh(state[_KH])  # ascending
    B = lam.shape[0]
    top = lam[B - 1]
    for j in range(M.shape[0]):
        e = lam[B - 1 - j]
        keep = e > _TOL * top and e > 0.0
        for i in range(B):
            M[j, i] = vec[i, B - 1 - j] / math.sqrt(e) if keep else 0.0
        for k in range(W.shape[0]):
            acc = 0.0
            if keep:
                for i in range(B):
                    acc += A[k, i] * vec[i, B - 1 - j]
                acc *= math.sqrt(e)
            W[k, j] = acc
    matvec(M, kv, M.shape[0], B, state[_Z][0])
    C[1] = 1.0


@njit(inline="always")
def _stage_one(state, idx, val):
    """True while the landmarks are being collected (then a landmark may join); when B
    are held, builds the Nystrom map first and returns False."""
    C = state[_C][0]
    if C[1] != 0.0:
        return False
    if int(C[0]) < state[_A].shape[1]:
        return True
    _nystrom(state)
    return False


@njit(inline="always")
def _join(state, idx, val, k1, a1, k2, a2):
    """The row becomes landmark ``m`` with coefficients ``a1`` (class row ``k1``) and
    ``a2`` (``k2``; -1 for none)."""
    L, A, KH, kv, C = state[_L], state[_A], state[_KH], state[_V][0], state[_C][0]
    m = int(C[0])
    for q in range(idx.shape[0]):
        L[idx[q], m] = val[q]
    state[_C][1][m] = _row_norm(val)
    for i in range(m):
        KH[m, i] = kv[i]
        KH[i, m] = kv[i]
    KH[m, m] = 1.0
    A[k1, m] = a1
    if k2 >= 0:
        A[k2, m] = a2
    C[0] = m + 1


@njit(inline="always")
def _binary(state, params, idx, val, y, sw, out, seen):
    if not _stage_one(state, idx, val):
        return F.binary(state, params, idx, val, y, sw, out, seen)
    if y * out[0] >= 1.0:
        return 0
    _join(state, idx, val, 0, params.eta * sw * y, -1, 0.0)
    return 1


@njit(inline="always")
def _multiclass(state, params, idx, val, y, sw, out, seen):
    if not _stage_one(state, idx, val):
        return F.multiclass(state, params, idx, val, y, sw, out, seen)
    yi = int(y)
    s = top_wrong(out, seen, yi)
    if s < 0 or out[yi] - out[s] >= 1.0:
        return 0
    _join(state, idx, val, yi, params.eta * sw, s, -params.eta * sw)
    return 1


@njit(inline="always")
def _regression(state, params, idx, val, y, sw, out, seen):
    if not _stage_one(state, idx, val):
        return F.regression(state, params, idx, val, y, sw, out, seen)
    r = y - out[0]
    if r == 0.0:
        return 0
    _join(state, idx, val, 0, params.eta * sw * r, -1, 0.0)
    return 1


KERNELS = declare("kernel.nogd", params=("eta",), scratch=("Z", "V"), score=_score,
                  binary=_binary, multiclass=_multiclass, regression=_regression)


DOC = """Nystrom online gradient descent {what} ({loss}; kernel OGD on the first B
    support vectors, then OGD on their rank-k Nystrom features).

    Parameters
    ----------
    B : int, landmarks: the first B support vectors (budget of stage one).
    k : int, rank of the Nystrom map, the number of features (1 <= k <= B).
    gamma : float, RBF kernel width, exp(-gamma ||x - z||^2) (> 0).
    eta : float, constant step size (> 0).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """


class NOGDModel(F.FeatureModel):
    """Mixin: the parameters (``DOC``), landmarks and the Nystrom map in the state."""
    _kernels = KERNELS

    def __init__(self, B=100, k=20, gamma=0.1, eta=0.2, fit_intercept=False,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    @property
    def _slots(self):
        B, k = int(self.B), int(self.k)
        # C: row 0 = (landmarks held, stage 2?, gamma, -), row 1 = landmark norms
        # mixing (olearn.mix): the landmarks and the map must be the members' own
        return (Slot("W", ("K", k), 0.0, signed=True), Slot("L", ("d", B), mix="same"),
                Slot("Z", (1, k), mix="reset"), Slot("A", ("K", B), 0.0, signed=True),
                Slot("M", (k, B), mix="same"), Slot("KH", (B, B), mix="same"),
                Slot("V", (1, B), mix="same"), Slot("C", (2, max(B, 3)), mix="same"))

    def _check_params(self):
        self._check_eta_gamma()
        check_size("B", self.B, MAX_BUDGET)  # (KH is B x B)
        check_size("k", self.k, MAX_BUDGET)
        if int(self.k) > int(self.B):
            raise ValueError(f"k (the rank, {self.k!r}) must be at most B ({self.B!r})")
        state = getattr(self, "state_", None)
        if state is not None and (state["A"].shape[1] != int(self.B)
                                  or state["M"].shape[0] != int(self.k)
                                  or state["C"][0, 2] != float(self.gamma)):
            raise ValueError("B, k or gamma changed after learning started; call fit() to "
                             "start afresh")

    def _new_state(self, K, d):
        super()._new_state(K, d)
        self.state_["C"][0, 2] = float(self.gamma)

    def _import_state(self, arrays, K, d):
        super()._import_state(arrays, K, d)
        C = self.state_["C"]
        m, stage = C[0, 0], C[0, 1]
        if not (m == int(m) and 0 <= m <= int(self.B) and stage in (0.0, 1.0)
                and (stage == 0.0 or m == int(self.B)) and C[0, 2] == float(self.gamma)
                and np.all(C[1] >= 0.0)):
            raise ValueError("the saved landmark counters are inconsistent")

    @property
    def _d(self):
        return self.state_["L"].shape[0]

    def _kernel_values(self, X):
        st = self.state_
        m = int(st["C"][0, 0])
        L = st["L"][:, :m]
        b = int(self.fit_intercept)
        P = np.asarray(X @ L[b:b + X.shape[1]])
        sq = np.asarray(X.multiply(X).sum(1) if hasattr(X, "multiply") else (X * X).sum(1))
        sq = sq.reshape(-1)
        if b:
            c = self._constant()
            P = P + c * L[0]
            sq = sq + c * c
        d2 = sq[:, None] + st["C"][1, :m][None, :] - 2.0 * P
        return np.exp(-float(st["C"][0, 2]) * np.maximum(d2, 0.0))

    def _scores_from(self, kv):
        st = self.state_
        m = kv.shape[1]
        if st["C"][0, 1] == 0.0:
            return kv @ st["A"][:, :m].T
        return (kv @ st["M"].T) @ st["W"].T

    def _chunk_scores(self, X):
        return self._scores_from(self._kernel_values(X))

    def _row_scores(self, row, n):
        st = self.state_
        m = int(st["C"][0, 0])
        idx, val = row[1][:n], row[2][:n]
        p = val @ st["L"][idx, :m]
        d2 = val @ val + st["C"][1, :m] - 2.0 * p
        kv = np.exp(-float(st["C"][0, 2]) * np.maximum(d2, 0.0))
        return self._scores_from(kv[None, :])[0]

    @property
    def n_landmarks_(self):
        """Landmarks held (B once the Nystrom map is built)."""
        check_is_fitted(self, "state_")
        return int(self.state_["C"][0, 0])

    @property
    def landmarks_(self):
        """(n_landmarks_, n_features) the landmarks, oldest first (dense)."""
        check_is_fitted(self, "state_")
        b = int(self.fit_intercept)
        return self.state_["L"][b:, :self.n_landmarks_].T.copy()

    @property
    def nystrom_map_(self):
        """(k, B) ``Lambda_k^{-1/2} V_k'``, or None before the map is built."""
        check_is_fitted(self, "state_")
        return self.state_["M"].copy() if self.state_["C"][0, 1] else None

    @property
    def dual_coef_(self):
        """(K, n_landmarks_) the stage-one coefficients over the landmarks (fixed once
        the map is built; the model is then ``weights_``)."""
        check_is_fitted(self, "state_")
        return self.state_["A"][:, :self.n_landmarks_].copy()


class NOGDClassifier(NOGDModel, OnlineClassifier):
    __doc__ = DOC.format(what="classifier", loss="hinge loss")


class NOGDRegressor(NOGDModel, OnlineRegressor):
    __doc__ = DOC.format(what="regressor", loss="squared loss")
