"""Half-Space Trees: streaming anomaly scores from random half-space partitions and the
mass each region held over the last window.

S. C. Tan, K. M. Ting and T. F. Liu, "Fast Anomaly Detection for Streaming Data",
IJCAI 2011, section 3 and algorithms 1-3.  Each of ``n_trees`` trees splits a work
space (one random range per feature) in halves: a node picks a random feature ``q``
and splits at the middle of the node's range of ``q``, down to depth ``height``
(BuildSingleHS-Tree).  Every node keeps two masses, ``r`` (the reference window's
rows that reached it) and ``l`` (the latest window's); each row adds its weight to
``l`` along its path to the leaf (UpdateMass), and after every ``window_size`` rows
``r <- l``, ``l <- 0`` (algorithm 1).  A row's mass score is the sum over the trees
of ``r * 2**k`` at the first node on its path that is a leaf (depth ``k = height``)
or whose ``r`` is below ``size_limit = 0.1 * window_size`` (Score, the paper's
default limit); a low mass score is an anomaly.

The work space (section 3.1): for each feature, ``s`` is drawn uniformly in the
feature's range ``[lo, hi]`` and the feature's work range is ``s +- 2 max(s - lo,
hi - s)``.  The paper assumes every feature scaled into ``[0, 1]``; here ``limits=(lo,
hi)`` gives one range for every feature (River's ``HalfSpaceTrees`` takes the same
with ``[0, 1]`` by default and a ``MinMaxScaler`` in front), and ``limits=None`` (the
default) takes each feature's minimum and maximum over the first window: the trees are
built at the end of that window (a constant feature gets a range of width 1), and the
first reference profile is the second window's.  The paper's first window fills ``r``
directly; here it fills ``l``, which becomes ``r`` at the window's end: the same
profile.  Features met after the trees are built are never split on.

Scores (olearn's anomaly calls, as ``olearn.anomaly.UniclassPA``): ``score_one(x)``
is ``1 - mass / (n_trees * window_size * 2**height)``, in ``[0, 1]``, higher = more
anomalous (River's ``HalfSpaceTrees`` normalises its score similarly with another
maximum; the ranking of rows is the paper's), and 0 while no reference profile exists
(River's convention for its first window); ``score_samples(X)`` is minus it
(scikit-learn's: lower = more abnormal); ``predict(X)`` is -1 where the score exceeds
``threshold_``; ``score_learn(X)`` each row's score before the row is learned, in one
compiled pass.  A row's weight adds to the masses in its place (weight 0: nothing;
every row of positive weight counts one toward the window).

Mixing (``olearn.mix``) needs the same trees: members with the same ``random_state``
and given ``limits`` (built alike), whose masses are then averaged (the profile of one
window, each member's mass over its own); members whose trees differ (limits learned
from different first windows) refuse with ``CannotMixError``.
"""
import numpy as np

from .._compiled import njit
from .._estimator import check_is_fitted
from .._params import store_params
from .._validation import check_bool, check_number
from ..base import check_work_vectors
from ._base import _ThresholdDetector
from ..protocol import CannotMixError, Slot, declare

__all__ = ["HalfSpaceTrees"]

#: largest number of tree nodes over all trees (each of the four node arrays then
#: holds at most 128 MiB); ``height`` at most 24
_MAX_NODES = 2 ** 24
_MAX_HEIGHT = 24


@njit(inline="always")
def _scatter(Z, idx, val):
    for p in range(idx.shape[0]):
        Z[idx[p]] = val[p]


@njit(inline="always")
def _clear(Z, idx):
    for p in range(idx.shape[0]):
        Z[idx[p]] = 0.0


@njit(inline="always")
def _score(state, idx, val, out):
    """``1 - mass / max_mass`` (0 before a reference profile exists)."""
    Q, P, R, C, Z = state[0], state[1], state[2], state[7], state[9]
    if C[1] < 1.0:  # no reference window yet
        out[0] = 0.0
        return
    n_trees, n_nodes = R.shape
    height = 0
    while (2 << height) - 1 < n_nodes:
        height += 1
    window = C[3]
    limit = 0.1 * window
    _scatter(Z, idx, val)
    mass = 0.0
    for t in range(n_trees):
        node = 0
        depth = 0
        while depth < height and R[t, node] >= limit:
            node = 2 * node + 1 if Z[int(Q[t, node])] < P[t, node] else 2 * node + 2
            depth += 1
        mass += R[t, node] * 2.0 ** depth
    _clear(Z, idx)
    out[0] = 1.0 - mass / (n_trees * window * 2.0 ** height)


@njit(inline="always")
def _build(Q, P, U, S, B, d):
    """BuildSingleHS-Tree for every tree, in heap order (a node's children ``2i+1``
    (``x_q < p``) and ``2i+2``): node ``i`` splits feature ``q = floor(U[t, i] d)`` at
    the middle of its range of ``q``, the work range narrowed by its ancestors' splits
    on ``q``."""
    n_trees, n_nodes = Q.shape
    n_inner = (n_nodes - 1) // 2
    for t in range(n_trees):
        for i in range(n_inner):
            q = min(int(U[t, i] * d), d - 1)
            lo, hi = B[0, q], B[1, q]
            if hi <= lo:
                hi = lo + 1.0
            s = lo + S[t, q] * (hi - lo)
            half = 2.0 * max(s - lo, hi - s)
            mn, mx = s - half, s + half
            child = i
            while child > 0:
                parent = (child - 1) // 2
                if int(Q[t, parent]) == q:
                    if child == 2 * parent + 1:
                        mx = min(mx, P[t, parent])
                    else:
                        mn = max(mn, P[t, parent])
                child = parent
            Q[t, i] = q
            P[t, i] = 0.5 * (mn + mx)


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    """Algorithm 1 for one row: the first window's limits (when learned), UpdateMass
    along each tree's path, and the window's swap ``r <- l``, ``l <- 0``."""
    Q, P, R, L, U, S, B, C, H, Z = state
    if sw == 0.0:
        return 0
    if C[1] >= 1.0:  # a scored row: its score into the histogram of scores
        nb = H.shape[0]
        H[min(int(out[0] * nb), nb - 1)] += sw
    d = Z.shape[0]
    C[3] = params.window
    _scatter(Z, idx, val)
    if C[2] == 0.0:  # the trees are not built yet
        if params.learned == 0.0:
            _build(Q, P, U, S, B, d)
            C[2] = 1.0
        else:
            for j in range(d):
                if C[0] == 0.0 or Z[j] < B[0, j]:
                    B[0, j] = Z[j]
                if C[0] == 0.0 or Z[j] > B[1, j]:
                    B[1, j] = Z[j]
            C[0] += 1.0
            if C[0] >= params.window:
                _build(Q, P, U, S, B, d)
                C[0] = 0.0
                C[2] = 1.0
            _clear(Z, idx)
            return 1
    n_trees, n_nodes = L.shape
    for t in range(n_trees):
        node = 0
        while True:
            L[t, node] += sw
            if 2 * node + 1 >= n_nodes:
                break
            node = 2 * node + 1 if Z[int(Q[t, node])] < P[t, node] else 2 * node + 2
    _clear(Z, idx)
    C[0] += 1.0
    if C[0] >= params.window:
        for t in range(n_trees):
            for i in range(n_nodes):
                R[t, i] = L[t, i]
                L[t, i] = 0.0
        C[0] = 0.0
        C[1] += 1.0
    return 1


KERNELS = declare("anomaly.hst", params=("window", "learned"), score=_score,
                  unlabelled=_rule)


class HalfSpaceTrees(_ThresholdDetector):
    """Half-Space Trees (Tan, Ting and Liu 2011): random half-space trees whose nodes
    count the rows of the last window; a row that lands where few rows were is an
    anomaly.

    Parameters
    ----------
    n_trees : int, default=10
        Number of trees (River's default; the paper's is 25).
    height : int, default=8
        Depth of each tree (the paper's ``maxDepth``, 15 in the paper, 8 in River; a
        tree has ``2**(height+1) - 1`` nodes).  River's smaller defaults: 30 times less
        work per row and a 100 KB state, and no worse on KDD99 http
        (``benchmarks/anomaly.md``).
    window_size : int, default=250
        Rows per window (the paper's ``psi``): the reference mass profile is replaced by
        the latest every ``window_size`` rows.
    limits : None or (float, float), default=None
        The range of every feature; None: each feature's minimum and maximum over the
        first window (the trees are then built at its end).
    contamination : float in (0, 0.5], default=0.01
        The expected share of anomalies: ``predict`` flags a row (-1) whose score is
        above the ``1 - contamination`` quantile of the scores met so far (a running
        quantile, for a stream whose rate of anomalies is unknown; from a histogram of
        1,000 bins over ``[0, 1]``, so to 0.001).
    threshold : None or float in [0, 1], default=None
        A fixed score above which ``predict`` flags a row, instead of the quantile.
    epochs, shuffle, random_state
        Passes of ``fit``, their order, and the seed of that order and of the trees.

    Attributes
    ----------
    n_windows_ : int, the windows completed (the reference profile is the last one's).
    """

    kernels = KERNELS
    _capabilities = {"width_dependent": "the trees split the columns the model had when they were "
                                "built, from draws made for its width at the time"}
    slots = (Slot("Q", ("n_trees", "n_nodes"), mix="mean"),   # split features
             Slot("P", ("n_trees", "n_nodes"), mix="mean"),   # split values
             Slot("R", ("n_trees", "n_nodes"), mix="mean"),   # reference mass
             Slot("L", ("n_trees", "n_nodes"), mix="mean"),   # latest mass
             Slot("U", ("n_trees", "n_nodes"), mix="mean"),   # draws: split features
             Slot("S", ("n_trees", "d"), mix="mean"),         # draws: work ranges
             Slot("B", (2, "d"), mix="mean"),                 # feature limits
             Slot("C", (4,), mix="mean"),  # rows in window, windows, built, window size
             Slot("H", (1000,), mix="sum"),  # histogram of the scores met
             Slot("Z", ("d",), mix="reset"))  # work vector, zeros between rows

    def __init__(self, n_trees=10, height=8, window_size=250, limits=None,
                 contamination=0.01, threshold=None,
                 epochs=1, shuffle=False, random_state=0):
        store_params(self, locals())

    @property
    def n_nodes(self):
        """Nodes per tree, ``2**(height+1) - 1`` (it sizes the node arrays)."""
        return 2 ** (self._axis_param("height") + 1) - 1

    def kernel_params(self):
        return {"window": float(self.window_size),
                "learned": 1.0 if self.limits is None else 0.0}

    def check_params(self):
        self._axis_param("n_trees")
        self._axis_param("window_size")
        if self._axis_param("height") > _MAX_HEIGHT:
            raise ValueError(f"HalfSpaceTrees: height is at most {_MAX_HEIGHT} (2**(height+1)"
                             f" - 1 nodes per tree), got {self.height}")
        if self.n_trees * self.n_nodes > _MAX_NODES:
            raise ValueError(f"HalfSpaceTrees: n_trees * 2**(height+1) is at most "
                             f"{_MAX_NODES} (the node arrays), got n_trees={self.n_trees}, "
                             f"height={self.height}")
        if self.limits is not None:
            try:
                lo, hi = (float(v) for v in self.limits)
            except (TypeError, ValueError):
                raise ValueError(f"HalfSpaceTrees: limits must be None or a pair "
                                 f"(lo, hi) of numbers, got {self.limits!r}") from None
            if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
                raise ValueError(f"HalfSpaceTrees: limits must be finite with lo < hi, "
                                 f"got {self.limits!r}")
        check_number("contamination", self.contamination, low=0.0, high=0.5, low_open=True)
        if self.threshold is not None:
            check_number("threshold", self.threshold, low=0.0, high=1.0)
        check_number("epochs", self.epochs, low=1)
        check_bool("shuffle", self.shuffle)
        self.check_layout()

    def init_state(self, name, array, start):
        """The trees' random draws (from ``random_state``), the given limits."""
        seed = 0 if self.random_state is None else int(self.random_state)
        if name == "U" and start == 0:
            array[:] = np.random.default_rng([seed, 0]).random(array.shape)
        elif name == "S":
            rng = np.random.default_rng([seed, 1, start])
            array[:, start:] = rng.random((array.shape[0], array.shape[1] - start))
        elif name == "B" and self.limits is not None:
            array[0, start:], array[1, start:] = (float(v) for v in self.limits)
        elif name == "C":
            array[3] = float(self.window_size)

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = check_work_vectors(super().from_state(params, meta, arrays), "Z")
        st, d = model.state_, model.state_["Z"].shape[0]
        bad = ((st["Q"] < 0) | (st["Q"] >= max(d, 1)) | (st["Q"] != np.floor(st["Q"]))).any()
        if bad or any((st[k] < 0).any() for k in ("R", "L", "C", "H")):
            raise ValueError("state arrays Q (split features), R, L (masses), C and H "
                             "(counters) must be non-negative, Q whole numbers below the "
                             "width")
        return model

    def _before_mix(self, states):
        """Masses are comparable only on the same trees."""
        for st in states[1:]:
            for name in ("Q", "P", "C"):
                if name == "C":
                    same = st["C"][2] == states[0]["C"][2]
                else:
                    same = np.array_equal(st[name], states[0][name])
                if not same:
                    raise CannotMixError(
                        "HalfSpaceTrees models mix only when their trees are the same "
                        "(the same random_state and given limits): these differ")

    @property
    def threshold_(self):
        """The score above which ``predict`` flags a row: ``threshold`` when given,
        else the ``1 - contamination`` quantile of the scores met so far (the upper edge
        of the histogram bin that holds it; 1.0 before any row was scored)."""
        if self.threshold is not None:
            return float(self.threshold)
        check_is_fitted(self, "state_")
        H = self.state_["H"]
        total = H.sum()
        if total <= 0:
            return 1.0
        k = int(np.searchsorted(np.cumsum(H), (1.0 - float(self.contamination)) * total))
        return min(k + 1, H.shape[0]) / H.shape[0]

    @property
    def n_windows_(self):
        check_is_fitted(self, "state_")
        return int(self.state_["C"][1])
