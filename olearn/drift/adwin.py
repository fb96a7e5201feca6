"""ADWIN: adaptive windowing (Bifet and Gavalda, "Learning from Time-Changing Data with
Adaptive Windowing", SIAM SDM 2007), in its ADWIN2 form: the window is kept as an
exponential histogram of buckets, at most ``max_buckets`` of each size 2^i, each holding
its sum and its variance term (the paper's section 4); ``clock`` and ``grace_period``
are MOA's and River's throttles, with their names and meanings.

Every ``clock`` values (once the window holds more than ``grace_period``), every cut of
the window W into an older part W0 (n0 values, mean mu0) and a newer part W1 (n1, mu1)
at a bucket boundary is tested, oldest cut first; a change is detected at the first cut
with n0, n1 >= ``min_window_length`` and

    |mu0 - mu1| > eps_cut = sqrt(2 (1/n0 + 1/n1) sigma2_W ln(2/delta'))
                            + 2/3 (1/n0 + 1/n1) ln(2/delta')

(the paper's Theorem 3.1 with ``1/m = 1/n0 + 1/n1`` and its variance-aware bound, as
used in its experiments; ``sigma2_W`` is the variance of the window, and
``delta' = delta / ln n``, n = |W|, for the O(log n) cuts ADWIN2 tests).  Departure from
MOA and River: they use ``1/(n0 - min_window_length + 1) + 1/(n1 - min_window_length +
1)`` for ``1/m``; here ``1/m`` is the paper's.

On a detection the window keeps its newer part, as in the paper: the oldest bucket is
dropped, and the cuts are tested again, until no cut shows a change (so the window
shrinks to the values since the change).  River instead discards the whole window at
the next value after a detection (``keep_recent=False`` does the same).  ``width`` is
the window's length.

Where River and the paper differ this follows the paper (the two departures above: the
bound's ``1/m`` and keeping the newer part); on River's documented example (values in
{0, 1}, then in {4..7} from index 1000) both flag index 1023 only, and on seeded streams
with five changes the detections equal a plain ADWIN2 reference written from the paper
(``tests/test_drift.py``, at MOA's clock of 32 and at the paper's test of every value).
``update`` returns None, as River 0.26's; ``drift_detected`` tells.
"""
import math

import numpy as np

from .._compiled import njit

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from ._base import Slot, DRIFT, DriftDetector, check_integer

LEVELS = 64     # bucket sizes 2^0 .. 2^63: more than any stream


@njit(cache=True)
def _drop_oldest(s, cnt, tot, var):
    """Remove the oldest bucket from the window (the paper's 'drop the last bucket')."""
    top = int(s[4]) - 1
    size = 2.0 ** top
    u = tot[top, 0]
    v = var[top, 0]
    s[0] -= size
    s[1] -= u
    if s[0] > 0.0:
        d = u / size - s[1] / s[0]
        s[2] -= v + size * s[0] * d * d / (size + s[0])
    else:
        s[1] = s[2] = 0.0
    c = cnt[top]
    for k in range(c - 1):
        tot[top, k] = tot[top, k + 1]
        var[top, k] = var[top, k + 1]
    cnt[top] = c - 1
    while s[4] > 0 and cnt[int(s[4]) - 1] == 0:
        s[4] -= 1


@njit(cache=True)
def _adwin(values, s, cnt, tot, var, params, flags, stop):
    """s = [width, total, variance (sum of squared deviations), tick, levels in use];
    params = (delta, clock, max_buckets, min_window_length, grace_period, clear)."""
    delta = params[0]
    clock = int(params[1])
    M = int(params[2])
    mwl = params[3]
    grace = params[4]
    clear = params[5] > 0.0
    L = cnt.shape[0]
    n = values.shape[0]
    width, total, variance = s[0], s[1], s[2]
    tick = int(s[3])
    for i in range(n):
        x = values[i]
        tick += 1
        # insert x as a bucket of size 1 (width, total, variance updated, Welford)
        w = width + 1.0
        if w > 1.0:
            d = x - total / (w - 1.0)
            variance += (w - 1.0) * d * d / w
        width = w
        total += x
        c = cnt[0]
        tot[0, c] = x
        var[0, c] = 0.0
        cnt[0] = c + 1
        if s[4] < 1:
            s[4] = 1
        if c + 1 <= M and tick % clock != 0:
            continue                 # nothing to merge, no test: the common case
        s[0], s[1], s[2], s[3] = width, total, variance, float(tick)
        # merge the two oldest buckets of a size that has max_buckets + 1
        lev = 0
        while lev + 1 < L and cnt[lev] == M + 1:
            size = 2.0 ** lev
            t0 = tot[lev, 0]
            t1 = tot[lev, 1]
            d = t0 / size - t1 / size
            c = cnt[lev + 1]
            tot[lev + 1, c] = t0 + t1
            var[lev + 1, c] = var[lev, 0] + var[lev, 1] + size * size * d * d / (2.0 * size)
            cnt[lev + 1] = c + 1
            for k in range(M - 1):
                tot[lev, k] = tot[lev, k + 2]
                var[lev, k] = var[lev, k + 2]
            cnt[lev] = M - 1
            lev += 1
            if s[4] < lev + 1:
                s[4] = lev + 1
        detected = False
        if int(s[3]) % clock == 0 and s[0] > grace:
            again = True
            while again:
                again = False
                W = s[0]
                if W < 2.0:
                    break
                ln = math.log(2.0 * math.log(W) / delta)
                # |u0/n0 - u1/n1| > sqrt(2 m' s2 ln) + 2/3 m' ln, m' = 1/n0 + 1/n1 = W/(n0 n1),
                # multiplied by n0 n1: |u0 n1 - u1 n0| - c2 > 0 and its square > c1 n0 n1
                c1 = 2.0 * max(s[2] / W, 0.0) * ln * W
                c2 = 2.0 / 3.0 * ln * W
                total = s[1]
                n0 = 0.0
                u0 = 0.0
                top = int(s[4]) - 1
                done = False
                for lev in range(top, -1, -1):
                    size = 2.0 ** lev
                    for k in range(cnt[lev]):
                        n0 += size
                        u0 += tot[lev, k]
                        n1 = W - n0
                        if n1 < mwl:
                            done = True
                            break
                        if n0 >= mwl:
                            D = abs(u0 * n1 - (total - u0) * n0) - c2
                            if D > 0.0 and D * D > c1 * n0 * n1:
                                detected = True
                                again = True
                                done = True
                                _drop_oldest(s, cnt, tot, var)
                                break
                    if done:
                        break
            if detected and clear:
                s[:] = 0.0
                cnt[:] = 0
        width, total, variance, tick = s[0], s[1], s[2], int(s[3])
        if detected:
            flags[i] = 2
            if stop:
                return i + 1
    s[0], s[1], s[2], s[3] = width, total, variance, float(tick)
    return n


@persistable
class ADWIN(DriftDetector):
    """ADWIN (Bifet and Gavalda, SDM 2007): change in the mean of a stream of real values
    (errors, losses, any statistic), with a false-alarm probability bounded by ``delta``.

    Parameters
    ----------
    delta : float in (0, 1), the confidence of the cut test (smaller: fewer false alarms,
        later detections).
    clock : int >= 1, test for a change every ``clock`` values.
    max_buckets : int >= 1, buckets of each size kept before two are merged (more: a
        finer window, more work).
    min_window_length : int >= 1, the smallest sub-window a cut may leave on either side.
    grace_period : int >= 0, no test until the window holds more values than this.
    keep_recent : bool, on a detection keep the newer part of the window (True, the
        paper's rule) or clear the whole window and start afresh (False, River's).

    Notes
    -----
    On a detection the window keeps its newer part (the paper's rule): old buckets are
    dropped until no cut shows a change; ``width`` tells its length.  The pre-change
    values left in it can be cut again a few tests later (a few detections per change,
    see benchmarks/drift.md).  River clears the whole window instead
    (``keep_recent=False``: then one detection per change, as River).  See the module's docstring for the bound and the one place
    where this differs from MOA and River.
    """

    _kernel = staticmethod(_adwin)

    def __init__(self, delta=0.002, clock=32, max_buckets=5, min_window_length=5,
                 grace_period=10, keep_recent=True):
        store_params(self, locals())
        self.reset()

    def _kernel_params(self):
        delta = check_number("delta", self.delta, low=0.0, high=1.0, low_open=True,
                             high_open=True)
        ints = tuple(check_integer(name, getattr(self, name), low)
                     for name, low in (("clock", 1), ("max_buckets", 1),
                                       ("min_window_length", 1), ("grace_period", 0)))
        if not isinstance(self.keep_recent, (bool, np.bool_)):
            raise ValueError(f"keep_recent must be True or False, got {self.keep_recent!r}")
        return (delta,) + ints + (0.0 if self.keep_recent else 1.0,)

    @property
    def slots(self):
        """[width, total, variance, tick, levels in use]; the buckets per level: their
        count, and each bucket's total and variance term (``max_buckets + 1`` a level)."""
        M = int(check_integer("max_buckets", self.max_buckets, 1))
        return (Slot("s", (5,)), Slot("cnt", (LEVELS,), dtype="int64"),
                Slot("tot", (LEVELS, M + 1)), Slot("var", (LEVELS, M + 1)))

    def _check_state(self, state):
        """The exponential histogram a file holds: at most ``max_buckets`` buckets of
        each size, the levels in use an integer covering every non-empty level, the
        width the buckets' sizes, the tick a count, the variance term non-negative (the
        kernel indexes and loops by these)."""
        s, cnt = state[0], state[1]
        M = int(self.max_buckets)
        levels = s[4]
        used = np.flatnonzero(cnt)
        width = float(np.sum(cnt * 2.0 ** np.arange(LEVELS)))
        if (cnt > M).any() or levels != int(levels) or not 0 <= levels <= LEVELS \
                or (used.size and used[-1] >= levels) or s[3] != int(s[3]) or s[3] < 0 \
                or s[2] < 0 or abs(s[0] - width) > 1e-9 * max(width, 1.0):
            raise ValueError("the ADWIN window's buckets are inconsistent")

    @property
    def width(self):
        """The window's length."""
        return int(self._prepared()[0][0])

    @property
    def estimation(self):
        """The mean of the window (0 when empty)."""
        s = self._prepared()[0]
        return float(s[1] / s[0]) if s[0] else 0.0

    @property
    def variance(self):
        """The variance of the values in the window."""
        s = self._prepared()[0]
        return float(s[2] / s[0]) if s[0] else 0.0


__all__ = ["ADWIN", "DRIFT"]
