"""LODA: an ensemble of one-dimensional histograms on sparse random projections; a row
that falls where the histograms hold little mass is an anomaly.

T. Pevny, "Loda: Lightweight on-line detector of anomalies", Machine Learning 102
(2016), section 3.  ``k = n_projections`` sparse random vectors ``w_i`` (each with
``ceil(sqrt(d))`` non-zero entries, their places drawn uniformly without replacement
and their values from ``N(0, 1)``; the other ``d - ceil(sqrt(d))`` entries are 0), a
histogram ``p_i`` of the projections ``w_i.x`` of the rows met, and the score of a row

    f(x) = -(1/k) sum_i log p_i(w_i.x)

(the mean negative log density: higher = more anomalous).

On-line (section 3.4): the paper updates its histograms as the rows arrive; this is
its continuously updated variant (every row adds to the histograms, none is forgotten),
with equal-width bins whose width is fixed once: over the first ``window_size`` rows
(kept as their projections only), projection ``i`` spans ``[lo_i, hi_i]``; the bin
width is ``h_i = (hi_i - lo_i) / n_bins`` (1 when the span is 0) and the histogram has
``3 n_bins`` bins from ``lo_i - n_bins h_i`` to ``hi_i + n_bins h_i`` (the first
window's span, with as much room on each side).  Those rows fill the histograms when
the window ends; every later row adds its weight to its bin (a value beyond the bins
counts toward the total only).  The density of bin ``b`` is ``p_i = (c_ib + 1) /
((n + B) h_i)`` (``c_ib`` its weighted count, ``n`` the weighted rows, ``B = 3 n_bins``:
one pseudo-row per bin, so an empty bin's log density is finite); a value beyond the
bins gets an empty bin's.  Rows before the histograms exist score 0 (as
``HalfSpaceTrees``'s first window).  The bin width and the smoothing are this
implementation's choices: the paper sets its batch histograms' bins by a rule on the
data and does not fix an on-line width.

``predict`` flags a row (-1) whose score is above ``threshold_``: ``threshold`` when
given, else a running estimate of the ``1 - contamination`` quantile of the scores met
since the histograms exist (stochastic approximation: ``q += s (1[f > q] -
contamination) / sqrt(m)`` after each of the ``m`` scored rows, ``s`` the scores'
running standard deviation; a stream whose rate of anomalies is unknown).

Anomaly calls: ``score_one(x)`` is ``f(x)``; ``score_samples(X) = -f`` (scikit-learn's
convention: lower = more abnormal), ``decision_function(X) = threshold_ - f``;
``score_learn(X)`` each row's pre-update ``f``, in one compiled pass.  Per row
``O(k sqrt(d))`` for dense rows (the projections are dense arrays of width ``d``).

Mixing (``olearn.mix``): histograms on the same bins add (the histogram of the union
of the streams, exact; the running quantile is the first member's); members whose projections or bins differ (bins are set by each
member's first window) refuse with ``CannotMixError``.  The projections are drawn for
the width at the first row; columns met later are never projected (``width_dependent``).
"""
import math

import numpy as np

from .._compiled import njit
from .._estimator import check_is_fitted
from .._params import store_params
from .._validation import check_bool, check_number
from ._base import _ThresholdDetector
from ..protocol import CannotMixError, Slot, declare

__all__ = ["Loda"]


@njit(inline="always")
def _project(Wp, i, idx, val):
    z = 0.0
    for p in range(idx.shape[0]):
        z += Wp[i, idx[p]] * val[p]
    return z


@njit(inline="always")
def _bin(z, lo, h):
    return int(math.floor((z - lo) / h))


@njit(inline="always")
def _score(state, idx, val, out):
    """``-(1/k) sum_i log p_i(w_i.x)``; 0 before the histograms exist."""
    Wp, Lo, Hw, Hc, C = state[0], state[1], state[2], state[3], state[6]
    if C[1] == 0.0:
        out[0] = 0.0
        return
    k, nb = Hc.shape
    n = C[2]
    s = 0.0
    for i in range(k):
        b = _bin(_project(Wp, i, idx, val), Lo[i], Hw[i])
        c = Hc[i, b] if 0 <= b < nb else 0.0
        s -= math.log((c + 1.0) / ((n + nb) * Hw[i]))
    out[0] = s / k


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    """The first window's projections kept, the bins set at its end; later rows add to
    their bins; the running quantile of the scores."""
    Wp, Lo, Hw, Hc, Bf, Bw, C, Q = state
    if sw == 0.0:
        return 0
    k, nb = Hc.shape
    if C[1] == 0.0:  # the first window
        j = int(C[0])
        for i in range(k):
            Bf[i, j] = _project(Wp, i, idx, val)
        Bw[j] = sw
        C[0] += 1.0
        if C[0] >= Bf.shape[1]:
            bins = params.bins
            for i in range(k):
                mn, mx = Bf[i, 0], Bf[i, 0]
                for t in range(1, Bf.shape[1]):
                    mn = min(mn, Bf[i, t])
                    mx = max(mx, Bf[i, t])
                h = (mx - mn) / bins
                if not h > 0.0:
                    h = 1.0
                Hw[i] = h
                Lo[i] = mn - bins * h
                for t in range(Bf.shape[1]):
                    b = _bin(Bf[i, t], Lo[i], h)
                    if 0 <= b < nb:
                        Hc[i, b] += Bw[t]
                    Bf[i, t] = 0.0
            for t in range(Bf.shape[1]):
                C[2] += Bw[t]
                Bw[t] = 0.0
            C[0] = 0.0
            C[1] = 1.0
        return 1
    # a scored row: the running quantile of the scores (Welford's mean and variance)
    f = out[0]
    Q[1] += 1.0
    delta = f - Q[2]
    Q[2] += delta / Q[1]
    Q[3] += delta * (f - Q[2])
    if Q[1] == 1.0:
        Q[0] = f
    else:
        above = 1.0 if f > Q[0] else 0.0
        Q[0] += math.sqrt(Q[3] / Q[1]) * (above - params.contamination) / math.sqrt(Q[1])
    for i in range(k):
        b = _bin(_project(Wp, i, idx, val), Lo[i], Hw[i])
        if 0 <= b < nb:
            Hc[i, b] += sw
    C[2] += sw
    return 1


KERNELS = declare("anomaly.loda", params=("bins", "contamination"), score=_score,
                  unlabelled=_rule)


class Loda(_ThresholdDetector):
    """LODA (Pevny 2016): histograms of sparse random projections; the score is the
    mean negative log density of a row's projections.

    Parameters
    ----------
    n_projections : int, default=100
        Number of sparse random projections ``k`` (each a histogram).
    n_bins : int, default=10
        Bins over the first window's span of a projection (the histogram has three
        times as many: as much room again on each side).
    window_size : int, default=256
        Rows of the first window, which set the bins' width (their scores are 0).
    contamination : float in (0, 0.5], default=0.01
        The expected share of anomalies: ``predict`` flags a row whose score is above
        the running ``1 - contamination`` quantile of the scores met.
    threshold : None or float, default=None
        A fixed score above which ``predict`` flags a row, instead of the quantile.
    epochs, shuffle, random_state
        Passes of ``fit``, their order, and the seed of that order and of the
        projections.

    Attributes
    ----------
    projections_ : (n_projections, n_features) the sparse vectors ``w_i``.
    threshold_ : float, the score above which ``predict`` flags a row.
    """

    kernels = KERNELS
    _capabilities = {"width_dependent": "the projections are drawn over the columns the "
                                        "model has at its first row"}
    slots = (Slot("Wp", ("n_projections", "d"), mix="first"),       # projections
             Slot("Lo", ("n_projections",), mix="first"),           # first bin's edge
             Slot("Hw", ("n_projections",), mix="first"),           # bin width
             Slot("Hc", ("n_projections", "n_cells"), mix="sum"),   # bin counts
             Slot("Bf", ("n_projections", "window_size"), mix="first"),  # first window
             Slot("Bw", ("window_size",), mix="first"),             # its weights
             Slot("C", (3,), mix=("first", "first", "sum")),  # window rows, built, n
             Slot("Q", (4,), mix="first"))  # running quantile: q, m, mean, M2

    def __init__(self, n_projections=100, n_bins=10, window_size=256, contamination=0.01,
                 threshold=None, epochs=1, shuffle=False, random_state=0):
        store_params(self, locals())

    @property
    def n_cells(self):
        """Bins per histogram, ``3 n_bins``."""
        return 3 * self._axis_param("n_bins")

    def kernel_params(self):
        return {"bins": float(self.n_bins), "contamination": float(self.contamination)}

    def check_params(self):
        self._axis_param("n_projections")
        self._axis_param("n_bins")
        self._axis_param("window_size")
        check_number("contamination", self.contamination, low=0.0, high=0.5, low_open=True)
        if self.threshold is not None:
            check_number("threshold", self.threshold)
        check_number("epochs", self.epochs, low=1)
        check_bool("shuffle", self.shuffle)
        self.check_layout()

    def init_state(self, name, array, start):
        """The sparse projections over the width at the first row."""
        if name != "Wp" or start != 0:
            return
        seed = 0 if self.random_state is None else int(self.random_state)
        rng = np.random.default_rng([seed, 3])
        d = array.shape[1]
        nz = min(d, math.ceil(math.sqrt(d)))
        for i in range(array.shape[0]):
            cols = rng.choice(d, size=nz, replace=False)
            array[i, cols] = rng.standard_normal(nz)

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = super().from_state(params, meta, arrays)
        st = model.state_
        if (st["Hw"] < 0).any() or (st["Hc"] < 0).any() or (st["C"] < 0).any() \
                or st["C"][0] >= st["Bw"].shape[0] or (st["C"][1] == 1 and (
                    st["Hw"] <= 0).any()):
            raise ValueError("state arrays Hw (bin widths), Hc (counts) and C (counters) "
                             "must be non-negative, the widths > 0 once the bins are set, "
                             "C[0] below window_size")
        return model

    def _before_mix(self, states):
        """Counts add only over the same projections and bins."""
        for st in states[1:]:
            if not all(np.array_equal(st[k], states[0][k]) for k in ("Wp", "Lo", "Hw")) \
                    or st["C"][1] != 1.0 or states[0]["C"][1] != 1.0:
                raise CannotMixError(
                    "Loda models mix only when their projections and bins are the same "
                    "(the same random_state and first window, both past it): these differ")

    @property
    def threshold_(self):
        """``threshold`` when given, else the running quantile of the scores (+inf
        before any row was scored: nothing is flagged)."""
        if self.threshold is not None:
            return float(self.threshold)
        check_is_fitted(self, "state_")
        Q = self.state_["Q"]
        return float(Q[0]) if Q[1] > 0 else math.inf

    @property
    def projections_(self):
        check_is_fitted(self, "state_")
        return self.state_["Wp"][:, :self.n_features_in_].copy()
