"""Online one-class SVM: the nu-formulation learned by stochastic subgradient steps, on
the rows or on random Fourier features of them.

B. Schoelkopf, J. C. Platt, J. Shawe-Taylor, A. J. Smola and R. C. Williamson,
"Estimating the Support of a High-Dimensional Distribution", Neural Computation 13
(2001), problem (3)-(5): over ``l`` rows,

    min_{w, rho}  1/2 ||w||^2 + 1/(nu l) sum_i max(0, rho - w.z(x_i)) - rho

with the decision ``f(x) = w.z(x) - rho`` (an outlier where ``f < 0``) and ``nu`` an
upper bound on the share of outliers and a lower bound on the share of support
vectors.  Times ``nu``, the objective is the mean over the rows of

    J_t(w, rho) = nu/2 ||w||^2 + max(0, rho - w.z_t) - nu rho,

and this model takes one subgradient step on ``J_t`` per row (``I = 1`` when
``w.z_t < rho``, else 0: the subgradient at the hinge's kink is 0):

    w   <- (1 - eta_t nu) w + eta_t I z_t
    rho <- rho - eta_t (I - nu)

from ``w_1 = 0``, ``rho_1 = 0``.  ``learning_rate="pegasos"`` (the default) takes
``eta_t = 1 / (nu t)``, the step of Pegasos (Shalev-Shwartz, Singer, Srebro, Cotter,
Math. Programming 127, 2011, eq. (7)) for an objective that is ``nu``-strongly convex in
``w`` (without Pegasos's optional projection); ``"constant"`` takes ``eta_t = eta0``.
A sample weight ``s`` multiplies the step (``t`` counts weighted rows; weight 0:
nothing changes).

``z``: the row itself (``n_components=None``, a hyperplane through feature space), or
random Fourier features (A. Rahimi and B. Recht, "Random Features for Large-Scale
Kernel Machines", NIPS 2007, section 3): ``z_j(x) = sqrt(2/D) cos(u_j.x + b_j)``,
``u_j ~ N(0, 2 gamma I)``, ``b_j ~ U[0, 2 pi)``, ``j = 1..D`` (``D = n_components``),
whose inner products approximate the RBF kernel ``exp(-gamma ||x - x'||^2)``; then
``w.z(x)`` approximates a kernel expansion over the rows and the boundary
``w.z(x) = rho`` is a level set of it.  Column ``k`` of the directions is drawn from
``(random_state, k)`` when the column is first met, so a model widened to more columns
goes on as one that saw them as zeros.

Scores: the paper's decision value.  ``score_one(x)`` is ``rho - w.z(x)`` (higher =
more anomalous, River's convention; positive = an outlier; 0 before any row, the first
row's pre-update score), ``score_samples(X)`` is ``w.z(x)`` and ``offset_ = rho``, so
``decision_function(X) = score_samples(X) - offset_ = f(x)`` as scikit-learn's
``OneClassSVM``; ``predict(X)`` is -1 where ``f(x) < 0``; ``score_learn(X)`` the
pre-update ``rho - w.z`` of each row, in one compiled pass.

River (0.26.1, ``anomaly.OneClassSVM``) learns the same problem with its linear
model: a hinge on ``w.x + b`` against the label 1 (so ``rho = 1 - b``, ``rho_1 = 0``),
an L2 term ``nu/2`` whose gradient is ``nu/2 w`` (half the ``nu w`` above), constant
steps 0.01; its ``score_one`` returns ``w.x`` (the raw margin ``w.x + b`` minus ``b``),
larger the farther a row lies on the *inlier* side, the opposite of the decision above.
It takes the rows as given; its documentation suggests ``feature_extraction.
RBFSampler`` in front for a non-linear boundary, which the feature map here is.

Per row O(nnz D + D) with features, O(d) without (the decay of ``w`` is dense).
Mixing (``olearn.mix``): ``w`` and ``rho`` are averaged weighted by the rows each member
learned, the counts add; the directions must be the same (members with one
``random_state``), else ``CannotMixError``.
"""
import math

import numpy as np

from .._compiled import njit
from .._estimator import check_is_fitted
from .._locking import locked
from .._params import store_params
from .._validation import check_bool, check_number
from ..base import check_work_vectors
from ._base import _Detector
from ..protocol import CannotMixError, Slot, declare

__all__ = ["OneClassSVM"]

_RATES = ("pegasos", "constant")


@njit(inline="always")
def _features(U, P, F, idx, val):
    """``F = z(x) = sqrt(2/D) cos(x U + b)``."""
    D = F.shape[0]
    for j in range(D):
        F[j] = P[j]
    for p in range(idx.shape[0]):
        v = val[p]
        row = U[idx[p]]
        for j in range(D):
            F[j] += v * row[j]
    c = math.sqrt(2.0 / D)
    for j in range(D):
        F[j] = c * math.cos(F[j])


@njit(inline="always")
def _score(state, idx, val, out):
    """``rho - w.z(x)`` (the scratch ``F`` holds ``z(x)`` and is zeros again after)."""
    W, R, N, M, U, P, F = state
    f = 0.0
    if M[0] != 0.0:  # random Fourier features
        _features(U, P, F, idx, val)
        for j in range(F.shape[0]):
            f += W[0, j] * F[j]
            F[j] = 0.0
    else:
        for p in range(idx.shape[0]):
            f += W[0, idx[p]] * val[p]
    out[0] = R[0] - f


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    """One subgradient step on ``J_t`` (``out[0] = rho - w.z``: ``I = out[0] > 0``)."""
    W, R, N, M, U, P, F = state
    if sw == 0.0:
        return 0
    N[0] += sw
    nu = params.nu
    eta = 1.0 / (nu * N[0]) if params.pegasos != 0.0 else params.eta0
    step = eta * sw
    hit = out[0] > 0.0
    shrink = 1.0 - step * nu
    m = W.shape[1]
    for j in range(m):
        W[0, j] *= shrink
    if hit:
        if M[0] != 0.0:  # (z again: only on a hit, about a share nu of the rows)
            _features(U, P, F, idx, val)
            for j in range(m):
                W[0, j] += step * F[j]
                F[j] = 0.0
        else:
            for p in range(idx.shape[0]):
                W[0, idx[p]] += step * val[p]
        R[0] -= step * (1.0 - nu)
    else:
        R[0] += step * nu
    return 1


KERNELS = declare("anomaly.ocsvm", params=("nu", "eta0", "pegasos"), score=_score,
                  unlabelled=_rule)


class OneClassSVM(_Detector):
    """Online one-class SVM (Schoelkopf et al. 2001, the nu-formulation) by stochastic
    subgradient steps, on random Fourier features (Rahimi and Recht 2007) or the rows.

    Parameters
    ----------
    nu : float in (0, 1], default=0.1
        Upper bound of the share of outliers, lower bound of the share of support
        vectors (River's default).
    n_components : int or None, default=100
        Random Fourier features ``D`` (an RBF kernel); None: the rows themselves (a
        hyperplane, as River's ``OneClassSVM`` without a feature map).
    gamma : float > 0, default=1.0
        RBF kernel width ``exp(-gamma ||x - x'||^2)`` (scikit-learn's ``RBFSampler``
        default); read only with ``n_components``.
    learning_rate : "pegasos" or "constant", default="pegasos"
        ``eta_t = 1 / (nu t)`` (Pegasos, for the nu-strongly convex objective) or
        ``eta0``.
    eta0 : float > 0, default=0.01
        The constant step (River's).
    epochs, shuffle, random_state
        Passes of ``fit``, their order, and the seed of that order and of the features.

    Attributes
    ----------
    coef_ : (n_components or n_features,) ``w``.
    offset_ : float, ``rho`` (``decision_function = score_samples - offset_``).
    random_weights_, random_offset_ : the directions ``u_j`` (n_features, D) and phases
        ``b_j`` (D,) (scikit-learn's ``RBFSampler`` names); None without features.
    n_samples_seen_ : float, the (weighted) number of rows learned.
    """

    kernels = KERNELS

    def __init__(self, nu=0.1, n_components=100, gamma=1.0, learning_rate="pegasos",
                 eta0=0.01, epochs=1, shuffle=False, random_state=0):
        store_params(self, locals())

    @property
    def slots(self):
        if self.n_components is None:
            width, u, p = "d", (1, 1), (1,)
        else:
            width, u, p = "n_components", ("d", "n_components"), ("n_components",)
        return (Slot("W", (1, width), mix="mean:N"),     # w
                Slot("R", (1,), mix="mean:N"),           # rho
                Slot("N", (1,), mix="sum"),              # weighted rows
                Slot("M", (1,), mix="first"),            # 1: random features on
                Slot("U", u, mix="same"),                # directions u_j (by column)
                Slot("P", p, mix="same"),                # phases b_j
                Slot("F", p, mix="reset"))               # scratch: z(x)

    def kernel_params(self):
        return {"nu": float(self.nu), "eta0": float(self.eta0),
                "pegasos": 1.0 if self.learning_rate == "pegasos" else 0.0}

    def check_params(self):
        check_number("nu", self.nu, low=0.0, high=1.0, low_open=True)
        if self.n_components is not None:
            self._axis_param("n_components")
            check_number("gamma", self.gamma, low=0.0, low_open=True)
        if self.learning_rate not in _RATES:
            raise ValueError(f"OneClassSVM: learning_rate must be one of "
                             f"{', '.join(_RATES)}, got {self.learning_rate!r}")
        check_number("eta0", self.eta0, low=0.0, low_open=True)
        check_number("epochs", self.epochs, low=1)
        check_bool("shuffle", self.shuffle)
        self.check_layout()

    def _seed(self):
        return 0 if self.random_state is None else int(self.random_state)

    def init_state(self, name, array, start):
        """The random directions, column ``k`` from ``(random_state, 1, k)``; the phases;
        the features' flag."""
        if self.n_components is None:
            return
        if name == "U":
            scale = math.sqrt(2.0 * float(self.gamma))
            for k in range(start, array.shape[0]):
                rng = np.random.default_rng([self._seed(), 1, k])
                array[k] = rng.standard_normal(array.shape[1]) * scale
        elif name == "P" and start == 0:
            array[:] = np.random.default_rng([self._seed(), 2]).uniform(
                0.0, 2.0 * math.pi, array.shape[0])
        elif name == "M" and start == 0:
            array[0] = 1.0

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = check_work_vectors(super().from_state(params, meta, arrays), "F")
        N, M = model.state_["N"], model.state_["M"]
        if N[0] < 0 or M[0] != (0.0 if model.n_components is None else 1.0):
            raise ValueError("state arrays N (a count) must be >= 0 and M the feature "
                             "map's flag (1 with n_components, else 0)")
        return model

    def _before_mix(self, states):
        """Weights over random features are comparable only on the same features."""
        for st in states[1:]:
            if not all(np.array_equal(st[k], states[0][k]) for k in ("U", "P", "M")):
                raise CannotMixError(
                    "OneClassSVM models mix only over the same random features (the same "
                    "random_state and n_components): these differ")

    def _predict_rows(self, scores):
        return np.where(scores[:, 0] > 0.0, -1, 1)

    def _score_from_scores(self, scores):
        return 0.0 if scores is None else float(scores[0])

    def _predict_from_scores(self, scores):
        return 1 if scores is None else (-1 if scores[0] > 0.0 else 1)

    # ------------------------------------------------------------ answers
    @locked
    def score_samples(self, X):
        """``w.z(x)`` (scikit-learn's ``OneClassSVM``: lower = more abnormal)."""
        return self.offset_ - self._scores(X)[:, 0]

    @locked
    def decision_function(self, X):
        """``w.z(x) - rho``: negative for an outlier."""
        return -self._scores(X)[:, 0]

    @property
    def coef_(self):
        check_is_fitted(self, "state_")
        W = self.state_["W"][0]
        return (W[:self.n_features_in_] if self.n_components is None else W).copy()

    @property
    def random_weights_(self):
        check_is_fitted(self, "state_")
        if self.n_components is None:
            return None
        return self.state_["U"][:self.n_features_in_].copy()

    @property
    def random_offset_(self):
        check_is_fitted(self, "state_")
        return None if self.n_components is None else self.state_["P"].copy()

    @property
    def offset_(self):
        check_is_fitted(self, "state_")
        return float(self.state_["R"][0])

    @property
    def n_samples_seen_(self):
        check_is_fitted(self, "state_")
        return float(self.state_["N"][0])
