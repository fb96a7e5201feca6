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

Learned radius (``epsilon=None, B=...``), the paper's section 5 construction for an
unknown radius below a known bound ``B``: the row is padded with one coordinate 0,
``xbar = (x, 0)`` in R^(n+1), and the fixed-radius algorithm above runs in R^(n+1)
with radius ``B`` on a centre ``wbar = (w, e)``:

    lbar = max(0, ||wbar - xbar|| - B),   ||wbar - xbar|| = sqrt(||w - x||^2 + e^2)
    wbar_{t+1} = wbar_t + tau_t (xbar_t - wbar_t) / ||xbar_t - wbar_t||

(``tau`` from ``lbar`` by the variant, as above), so ``lbar = 0`` exactly when
``||w - x||^2 <= B^2 - e^2``: the radius in R^n is read from the extra coordinate,
``epsilon_t = sqrt(B^2 - e_t^2)``.  Initialisation ``wbar_1 = (0, ..., 0, B)``: the
centre at the paper's ``w_1 = 0`` and the radius ``epsilon_1 = 0``.  (The extra
coordinate must start away from 0: the row's extra coordinate is 0, so a start
``e_1 = 0`` would keep ``e = 0`` and the radius at ``B`` forever.)  Each update scales
``e`` by ``1 - tau / ||wbar - xbar||`` (in ``[0, 1)`` at weight 1), so the radius only
grows, toward ``B``; with a sample weight above 1 the factor may turn negative and the
radius is then ``sqrt(max(0, B^2 - e^2))``.  The comparator of the paper's bound, a
ball ``(w*, epsilon*)`` with ``epsilon* <= B``, is ``(w*, sqrt(B^2 - epsilon*^2))`` in
R^(n+1), which is why ``B`` must bound the radius.  (Written from the construction
the paper describes, padded row, radius ``B`` and the radius read from the extra
coordinate; its pages were not at hand here to quote equation numbers, and the
initialisation is derived: the one start of ``e`` from which a radius is learned at
all and ``epsilon_1 = 0``.)

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
rows each member learned (``Slot("W", ..., mix="mean:N")``; a learned radius's extra
coordinate ``e`` likewise), the counts add, a fixed radius is the shared
hyper-parameter.  This is parameter mixing (as the linear learners' mean
of weights), not the model of the union of the streams: a PA centre is no mean of its
rows, and no exact merge exists; the count weighting makes a member that saw more of
the stream weigh more.
"""
import numpy as np

from .._compiled import njit
from .._estimator import check_is_fitted
from .._locking import locked
from .._params import store_params
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
    """The PA uniclass step (``out[0]``: the row's distance, from the score); with a
    learned radius, the same step on the padded row and centre."""
    W, N, Z, E = state[0], state[1], state[2], state[3]
    if sw == 0.0:
        return 0
    N[0] += sw
    dist = out[0]
    if params.learned != 0.0:  # in R^(n+1): the row (x, 0), the centre (w, e), radius B
        e = E[0]
        dist = np.sqrt(dist * dist + e * e)
        loss = dist - params.B
    else:
        loss = dist - params.epsilon
    if loss <= 0.0:
        return 0
    tau = min(params.c, loss / (1.0 + params.D)) * sw
    step = tau / dist
    if params.learned != 0.0:
        E[0] -= step * E[0]
    d = W.shape[1]
    for p in range(idx.shape[0]):
        Z[idx[p]] = val[p]
    for j in range(d):
        W[0, j] += step * (Z[j] - W[0, j])
    for p in range(idx.shape[0]):
        Z[idx[p]] = 0.0
    return 1


KERNELS = declare("anomaly.uniclass", params=("c", "D", "epsilon", "learned", "B"),
                  score=_score,
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
    epsilon : float >= 0 or None, default=1.0
        The radius: a row within it of the centre is an inlier and changes nothing.
        None: the radius is learned (the paper's padded construction, from 0 up to B).
    B : float > 0 or None, default=None
        The upper bound of a learned radius (read only with ``epsilon=None``).
    epochs : int, default=1
        Passes of ``fit`` over its rows.
    shuffle : bool, default=False
        Visit the rows of ``fit`` in a random order each epoch (default: in order).
    random_state : int or None, default=0
        Seed of that order.

    Attributes
    ----------
    center_ : (n_features,) the centre ``w`` (it starts at 0, the paper's ``w_1``).
    radius_ : float, the radius (``epsilon``, or the learned ``sqrt(B^2 - e^2)``).
    offset_ : float, ``-radius_`` (``decision_function = score_samples - offset_``).
    n_samples_seen_ : float, the (weighted) number of rows learned.
    """

    kernels = KERNELS
    slots = (Slot("W", (1, "d"), mix="mean:N"),
             Slot("N", (1,), mix="sum"),
             Slot("Z", ("d",), mix="reset"),  # work vector, zeros between rows
             Slot("E", (1,), mix="mean:N"))  # the centre's extra coordinate (learned radius)

    def __init__(self, variant="PA-I", C=1.0, epsilon=1.0, B=None, epochs=1,
                 shuffle=False, random_state=0):
        store_params(self, locals())

    def kernel_params(self):
        c, D = pa_step_params(self.variant, self.C)
        learned = self.epsilon is None
        return {"c": c, "D": D, "epsilon": 0.0 if learned else float(self.epsilon),
                "learned": 1.0 if learned else 0.0, "B": float(self.B) if learned else 0.0}

    def init_state(self, name, array, start):
        """The extra coordinate of a learned radius starts at ``B`` (radius 0)."""
        if name == "E" and start == 0:
            array[0] = float(self.B) if self.epsilon is None else 0.0

    def check_params(self):
        pa_step_params(self.variant, self.C)
        if self.epsilon is None:
            if self.B is None:
                raise ValueError("UniclassPA: a learned radius (epsilon=None) needs its "
                                 "upper bound B, a number > 0; got B=None")
            check_number("B", self.B, low=0.0, low_open=True)
        else:
            check_number("epsilon", self.epsilon, low=0.0)
            if self.B is not None:
                raise ValueError(f"UniclassPA: B bounds a learned radius and is read only "
                                 f"with epsilon=None; got epsilon={self.epsilon!r}, "
                                 f"B={self.B!r}")
        check_number("epochs", self.epochs, low=1)
        check_bool("shuffle", self.shuffle)
        self.check_layout()

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = check_work_vectors(super().from_state(params, meta, arrays), "Z")
        if model.state_["N"][0] < 0:
            raise ValueError("state array N (a count) must be >= 0")
        return model

    def _predict_rows(self, scores):
        return np.where(self._beyond(scores[:, 0]), -1, 1)

    def _beyond(self, dist):
        """Whether a distance puts a row outside the ball (a loss > 0: for a learned
        radius, the padded loss ``sqrt(dist^2 + e^2) - B``)."""
        if self.epsilon is None:
            e = float(self.state_["E"][0]) if hasattr(self, "state_") else float(self.B)
            return np.sqrt(np.square(dist) + e * e) > float(self.B)
        return np.asarray(dist) > float(self.epsilon)

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
        return -1 if bool(self._beyond(self._distance_one(x))) else 1

    @locked
    def score_samples(self, X):
        """Minus each row's distance to the centre (scikit-learn's convention: the
        lower, the more abnormal)."""
        return -self._scores(X)[:, 0]

    @locked
    def decision_function(self, X):
        """``score_samples(X) - offset_`` = radius - distance: negative for an outlier."""
        return self.radius_ - self._scores(X)[:, 0]

    @property
    def center_(self):
        check_is_fitted(self, "state_")
        return self.state_["W"][0, :self.n_features_in_].copy()

    @property
    def radius_(self):
        check_is_fitted(self, "state_")
        if self.epsilon is None:
            B, e = float(self.B), float(self.state_["E"][0])
            return float(np.sqrt(max(0.0, B * B - e * e)))
        return float(self.epsilon)

    @property
    def offset_(self):
        return -self.radius_

    @property
    def n_samples_seen_(self):
        check_is_fitted(self, "state_")
        return float(self.state_["N"][0])
