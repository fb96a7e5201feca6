"""Uniclass Passive-Aggressive: a ball that follows the stream; a row's distance to its
centre is its anomaly score.

K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer, "Online
Passive-Aggressive Algorithms", JMLR 7 (2006), section 5 ("Uniclass prediction"): the
model is a centre ``w`` and a radius ``epsilon``; a row ``x`` costs the loss
``l = max(0, ||w - x|| - epsilon)`` (its distance to the ball), and the update is

    w_{t+1} = w_t + tau_t (x_t - w_t) / ||x_t - w_t||

with ``tau = l`` ("PA": the new ball just reaches the row), ``min(C, l)`` ("PA-I") or
``l / (1 + 1/(2C))`` ("PA-II").  A row inside the ball changes nothing.  The centre
starts at the paper's ``w_1 = 0`` (the first row is therefore scored by its norm), and
the distance is Euclidean over every column.  A sample weight ``s`` multiplies ``tau``
(as olearn's other PA learners; weight 0: the row changes nothing).

Fixed radius only.  The paper's variant that learns the radius from an upper bound
``B`` (the instance padded with one coordinate, the radius read from the centre's extra
coordinate) is not built: its exact construction and initialisation could not be
checked against the paper's text here, and an unchecked reconstruction would not be
"exact to the paper".  ``epsilon`` must be given (a number >= 0).

Anomaly calls: ``score_one(x)`` is the distance ``||x - w||`` (higher = more anomalous,
as River's detectors: River's ``anomaly.ThresholdFilter`` and ``QuantileFilter`` take
it; before any row, the distance to ``w_1 = 0``, the row's norm, never None);
``score_samples(X)`` is minus the distance (scikit-learn's ``IsolationForest``
convention: lower = more abnormal), ``offset_ = -epsilon`` and ``decision_function(X) =
score_samples(X) - offset_ = epsilon - distance`` (negative = outlier); ``predict(X)`` is
-1 where the distance exceeds the radius (a row the model would suffer a loss on, and
learn from), else +1; ``score_learn(X)`` the distance of each row from the model before
that row (the driver's pre-update scores: one compiled pass, as ``predict_learn``).

Per row O(d) (the row densified into a work vector ``Z``, zeros again after it, as
``olearn.cluster.KMeans``): the centre is dense whatever the rows.

Mixing (``olearn.mix``): the centres are averaged weighted by the (weighted) number of
rows each member learned (``Slot("W", ..., mix="mean:N")``), the counts add, the radius
is the shared hyper-parameter.  This is parameter mixing (as the linear learners' mean
of weights), not the model of the union of the streams: a PA centre is no mean of its
rows, and no exact merge exists; the count weighting makes a member that saw more of
the stream weigh more.
"""
import numpy as np

from .._compiled import njit
from .._estimator import check_is_fitted
from .._locking import locked
from .._params import store_params
from .._rows import kernel_rows
from .._validation import check_bool, check_number
from ..base import check_work_vectors
from ._base import _Detector
from ..linear.pa import pa_step_params
from ..protocol import Slot, declare

__all__ = ["UniclassPA"]


@njit(inline="always")
def _score(state, idx, val, out):
    """The row's distance to the centre, over every column (the row densified into the
    work vector ``Z``, which is zeros again after)."""
    W, Z = state[0], state[2]
    d = W.shape[1]
    for p in range(idx.shape[0]):
        Z[idx[p]] = val[p]
    s = 0.0
    for j in range(d):
        diff = Z[j] - W[0, j]
        s += diff * diff
    out[0] = np.sqrt(s)
    for p in range(idx.shape[0]):
        Z[idx[p]] = 0.0


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    """The PA uniclass step (``out[0]``: the row's distance, from the score)."""
    W, N, Z = state[0], state[1], state[2]
    if sw == 0.0:
        return 0
    N[0] += sw
    dist = out[0]
    loss = dist - params.epsilon
    if loss <= 0.0:
        return 0
    tau = min(params.c, loss / (1.0 + params.D)) * sw
    step = tau / dist
    d = W.shape[1]
    for p in range(idx.shape[0]):
        Z[idx[p]] = val[p]
    for j in range(d):
        W[0, j] += step * (Z[j] - W[0, j])
    for p in range(idx.shape[0]):
        Z[idx[p]] = 0.0
    return 1


KERNELS = declare("anomaly.uniclass", params=("c", "D", "epsilon"), score=_score,
                  unlabelled=_rule)


class UniclassPA(_Detector):
    """Uniclass Passive-Aggressive (Crammer et al. 2006, section 5): a ball of radius
    epsilon whose centre moves toward each row outside it; the anomaly score is the
    distance to the centre.

    Parameters
    ----------
    variant : "PA", "PA-I" or "PA-II", default="PA-I"
        The step: the loss (PA), the loss capped at C (PA-I), or the loss over 1 + 1/(2C)
        (PA-II).
    C : float > 0, default=1.0
        Aggressiveness (unused by "PA").
    epsilon : float >= 0, default=1.0
        The radius: a row within it of the centre is an inlier and changes nothing.
    epochs : int, default=1
        Passes of ``fit`` over its rows.
    shuffle : bool, default=False
        Visit the rows of ``fit`` in a random order each epoch (default: in order).
    random_state : int or None, default=0
        Seed of that order.

    Attributes
    ----------
    center_ : (n_features,) the centre ``w`` (it starts at 0, the paper's ``w_1``).
    radius_ : float, the radius (``epsilon``).
    offset_ : float, ``-radius_`` (``decision_function = score_samples - offset_``).
    n_samples_seen_ : float, the (weighted) number of rows learned.
    """

    kernels = KERNELS
    slots = (Slot("W", (1, "d"), mix="mean:N"),
             Slot("N", (1,), mix="sum"),
             Slot("Z", ("d",), mix="reset"))  # work vector, zeros between rows

    def __init__(self, variant="PA-I", C=1.0, epsilon=1.0, epochs=1, shuffle=False,
                 random_state=0):
        store_params(self, locals())

    def kernel_params(self):
        c, D = pa_step_params(self.variant, self.C)
        return {"c": c, "D": D, "epsilon": float(self.epsilon)}

    def check_params(self):
        pa_step_params(self.variant, self.C)
        if self.epsilon is None:
            raise ValueError("UniclassPA: epsilon must be a number >= 0 (the radius; the "
                             "paper's learned radius from a bound B is not built), got None")
        check_number("epsilon", self.epsilon, low=0.0)
        check_number("epochs", self.epochs, low=1)
        check_bool("shuffle", self.shuffle)
        self.check_layout()

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = check_work_vectors(super().from_state(params, meta, arrays), "Z")
        if model.state_["N"][0] < 0:
            raise ValueError("state array N (a count) must be >= 0")
        return model

    def batch_scores(self, X):
        scores = np.empty((X.shape[0], 1))
        W, N, Z = self._state_tuple()  # (a work vector of its own: the state is only read)
        self.kernels.scorer(kernel_rows(X, False), (W, N, np.zeros(Z.shape)), scores)
        return scores

    def _predict_rows(self, scores):
        return np.where(scores[:, 0] > float(self.epsilon), -1, 1)

    # ------------------------------------------------------------ answers
    def _distance_one(self, x):
        """The distance of one row to the centre.  Before any row the centre is the
        paper's ``w_1 = 0`` and the distance the row's norm (the score the row would get
        in ``score_learn``), so River's filters get a number from the first row.  A
        dict's features the model has not met count with the centre's 0 there (the
        base's one-row scores drop them)."""
        if self._is_fresh():
            if isinstance(x, dict):
                from .._vocabulary import check_values
                check_values(x)
                values = np.array([float(v) for v in x.values()], dtype=np.float64)
            else:
                values = np.asarray(x, dtype=np.float64).ravel()
                if not np.isfinite(values).all():
                    raise ValueError("x contains NaN or infinity")
            return float(np.sqrt(np.dot(values, values)))
        dist = float(self._scores_one(x)[0])
        vocabulary = self.vocabulary_
        if isinstance(x, dict) and vocabulary is not None:
            extra = sum(float(v) * float(v) for k, v in x.items() if k not in vocabulary)
            if extra:
                dist = float(np.sqrt(dist * dist + extra))
        return dist

    @locked
    def score_one(self, x):
        """The row's distance to the centre (higher = more anomalous; River's
        detectors' convention); before any row, to the initial centre 0."""
        return self._distance_one(x)

    @locked
    def predict_one(self, x):
        """-1 when the row lies beyond the radius (an outlier), else +1."""
        return -1 if self._distance_one(x) > float(self.epsilon) else 1

    @locked
    def score_samples(self, X):
        """Minus each row's distance to the centre (scikit-learn's convention: the
        lower, the more abnormal)."""
        return -self._scores(X)[:, 0]

    @locked
    def decision_function(self, X):
        """``score_samples(X) - offset_`` = radius - distance: negative for an outlier."""
        return float(self.epsilon) - self._scores(X)[:, 0]

    @property
    def center_(self):
        check_is_fitted(self, "state_")
        return self.state_["W"][0, :self.n_features_in_].copy()

    @property
    def radius_(self):
        check_is_fitted(self, "state_")
        return float(self.epsilon)

    @property
    def offset_(self):
        return -self.radius_

    @property
    def n_samples_seen_(self):
        check_is_fitted(self, "state_")
        return float(self.state_["N"][0])
