"""Online k-means: MacQueen's sequential update.

J. MacQueen, "Some methods for classification and analysis of multivariate
observations", 5th Berkeley Symposium on Mathematical Statistics and Probability, 1967,
section 2: each new point joins its nearest centre, and that centre becomes the mean of
the points it took, ``n_c += 1``, ``c += (x - c) / n_c``.  With a row weight ``w``
(``sample_weight``): ``n_c += w``, ``c += (w / n_c) (x - c)``, the weighted mean; a row
of weight 0 changes nothing.

Start (MacQueen starts from the first k points): the first ``n_clusters`` distinct rows
become the centres, in the order met (a row at distance 0 from a centre joins it
instead).  Until then a centre is unset: its distance is reported as infinity by
``transform`` (the float64 maximum inside the compiled pass), it is never the nearest,
and a row that equals no centre founds the next one.  Nearest: the smallest Euclidean
distance ``sqrt(sum_j (x_j - c_j)^2)`` over every column, the lowest index on ties.

Departures from River's ``cluster.KMeans`` (Sculley's mini-batch form with a fixed
``halflife`` step and Gaussian random initial centres): the step here is MacQueen's
``1 / n_c`` (each centre the exact mean of its rows), the start the first distinct
rows (no random draw), and the distance Euclidean only.  River's clusterers have
``learn_one`` and ``predict_one`` (the nearest centre); ``score_one`` here is the
distance to the nearest centre (higher = farther from every cluster, as River's
anomaly detectors' scores), which River's k-means lacks.  scikit-learn's
``MiniBatchKMeans`` also uses per-centre counts, with a random start and batches.

Mixing (``olearn.mix``): the members' clusters are first matched to the first member's
(the assignment of least total squared distance between centres: independently
trained models number their clusters as they met them), then each centre is the mean
of the members' centres weighted by their counts (``Slot(..., mix="mean:N")``), the
counts add up: for members that split one stream and found the same clusters, the
centres are the means of the union's rows.
"""
import numpy as np

from .._compiled import njit
from .._locking import locked
from .._params import store_params
from .._rows import kernel_rows, score_rows
from .._validation import check_bool, check_number
from ..base import OnlineUnlabelled, check_work_vectors
from ..protocol import Slot, declare

__all__ = ["KMeans"]

#: the distance of an unset centre inside the compiled pass (finite, above any other)
_UNSET = np.finfo(np.float64).max


@njit(inline="always")
def _scatter(Z, idx, val):
    """The row densified into ``Z`` (all zeros before; O(non-zeros))."""
    for p in range(idx.shape[0]):
        Z[idx[p]] = val[p]


@njit(inline="always")
def _clear(Z, idx):
    """``Z`` back to zeros after the row (O(non-zeros)): no row stays in the state."""
    for p in range(idx.shape[0]):
        Z[idx[p]] = 0.0


@njit(inline="always")
def _score(state, idx, val, out):
    """The row's distance to each centre (``_UNSET`` for an unset one), over every
    column (the row densified into the work vector ``Z``, which is zeros again after)."""
    C, N, Z = state[0], state[1], state[2]
    k, d = C.shape
    _scatter(Z, idx, val)
    for c in range(k):
        if N[c] > 0.0:
            s = 0.0
            for j in range(d):
                diff = Z[j] - C[c, j]
                s += diff * diff
            out[c] = np.sqrt(s)
        else:
            out[c] = 1.7976931348623157e308
    _clear(Z, idx)


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    """MacQueen's step (``out``: the row's distances, from the score)."""
    C, N, Z = state[0], state[1], state[2]
    k, d = C.shape
    if sw == 0.0:
        return 0
    best = -1
    for c in range(k):
        if N[c] > 0.0 and (best < 0 or out[c] < out[best]):
            best = c
    _scatter(Z, idx, val)
    if best < 0 or out[best] > 0.0:
        for c in range(k):
            if N[c] == 0.0:  # an unset centre: the row founds it
                for j in range(d):
                    C[c, j] = Z[j]
                N[c] = sw
                _clear(Z, idx)
                return 1
    N[best] += sw
    eta = sw / N[best]
    for j in range(d):
        C[best, j] += eta * (Z[j] - C[best, j])
    _clear(Z, idx)
    return 1


KERNELS = declare("cluster.kmeans", score=_score, unlabelled=_rule)


class KMeans(OnlineUnlabelled):
    """Online k-means (MacQueen 1967): the nearest centre takes each row, as their mean.

    Each row moves its nearest centre to the mean of the rows that centre took.

    Parameters
    ----------
    n_clusters : int, default=5
        Number of centres.
    epochs : int, default=1
        Passes of ``fit`` over its rows.
    shuffle : bool, default=False
        Visit the rows of ``fit`` in a random order each epoch (default: in order,
        MacQueen's single pass; the first distinct rows found the centres).
    random_state : int or None, default=0
        Seed of that order.

    Attributes
    ----------
    cluster_centers_ : (n_clusters, n_features) the centres (an unset one: zeros).
    counts_ : (n_clusters,) the (weighted) number of rows each centre took.

    ``predict(X)``: each row's nearest centre; ``transform(X)``: the distances to the
    centres; ``learn_one(x)``, ``predict_one(x)`` (River's clusterer calls),
    ``score_one(x)``: the distance to the nearest centre; ``predict_learn(X)``: each
    row's nearest centre before the row is learned.
    """

    kernels = KERNELS
    outputs = "n_clusters"
    slots = (Slot("C", ("n_clusters", "d"), mix="mean:N"),
             Slot("N", ("n_clusters",), mix="sum"),
             Slot("Z", ("d",), mix="reset"))  # work vector, zeros between rows

    def __init__(self, n_clusters=5, epochs=1, shuffle=False, random_state=0):
        store_params(self, locals())

    def kernel_params(self):
        return {}

    def check_params(self):
        self._axis_param("n_clusters")
        check_number("epochs", self.epochs, low=1)
        check_bool("shuffle", self.shuffle)
        self.check_layout()

    @classmethod
    def from_state(cls, params, meta, arrays):
        return check_work_vectors(super().from_state(params, meta, arrays), "Z")

    def batch_scores(self, X):
        scores = np.empty((X.shape[0], self._n_outputs()))
        C, N, Z = self._state_tuple()  # (a work vector of its own: the state is only read)
        score_rows(self.kernels.scorer, kernel_rows(X, False), (C, N, np.zeros(Z.shape)),
                   scores)
        return scores

    def _predict_rows(self, scores):
        return np.argmin(scores, axis=1)

    def _score_from_scores(self, scores):
        return None if scores is None else float(np.min(scores))

    def _before_mix(self, states):
        """Each member's clusters renumbered to match the first member's (least total
        squared distance between matched set centres)."""
        from scipy.optimize import linear_sum_assignment
        first = states[0]
        for st in states[1:]:
            C0, C = first["C"], st["C"]
            cost = ((C0[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
            cost[(first["N"] == 0)[:, None] | (st["N"] == 0)[None, :]] = 0.0
            _, perm = linear_sum_assignment(cost)
            for name in ("C", "N"):
                st[name] = np.ascontiguousarray(st[name][perm])

    # ------------------------------------------------------------ answers
    @locked
    def predict(self, X):
        """The index of each row's nearest centre (the lowest on ties)."""
        return np.argmin(self._scores(X), axis=1)

    @locked
    def transform(self, X):
        """Each row's Euclidean distance to each centre (infinity: an unset centre)."""
        D = self._scores(X)
        D[:, self.state_["N"] == 0.0] = np.inf
        return D

    @locked
    def fit_transform(self, X, y=None, sample_weight=None):
        """``fit(X)``, then ``transform(X)``."""
        return self.fit(X, sample_weight=sample_weight).transform(X)

    @locked
    def fit_predict(self, X, y=None, sample_weight=None):
        """``fit(X)``, then ``predict(X)``."""
        return self.fit(X, sample_weight=sample_weight).predict(X)

    @locked
    def score(self, X, y=None):
        """Minus the sum of squared distances of the rows to their nearest centres
        (scikit-learn's ``KMeans.score``)."""
        return -float((self._scores(X).min(axis=1) ** 2).sum())

    @property
    def cluster_centers_(self):
        from .._estimator import check_is_fitted
        check_is_fitted(self, "state_")
        return self.state_["C"][:, :self.n_features_in_].copy()

    @property
    def counts_(self):
        from .._estimator import check_is_fitted
        check_is_fitted(self, "state_")
        return self.state_["N"].copy()
