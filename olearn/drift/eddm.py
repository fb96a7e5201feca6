"""EDDM, the early drift detection method (Baena-Garcia, del Campo-Avila, Fidalgo,
Bifet, Gavalda and Morales-Bueno, "Early Drift Detection Method", ECML PKDD Workshop on
Knowledge Discovery from Data Streams, 2006).

The stream is a learner's errors x_i in {0, 1}; EDDM watches the distance (in values)
between two consecutive errors: p'_i its mean and s'_i its standard deviation (sample,
n - 1) over the errors so far.  (p'_max, s'_max) are taken where p'_i + 2 s'_i was
largest.  Once ``warm_start`` errors were seen (the paper: 30), at each error

* warning when (p'_i + 2 s'_i) / (p'_max + 2 s'_max) < ``alpha`` (the paper: 0.95),
* drift   when it is < ``beta`` (the paper: 0.90);

on a drift the statistics start afresh.  Departure from River: River tracks the maximum
only after ``warm_start`` values (not errors) and tests after more than ``warm_start``
errors; here the maximum is tracked from the first error and the test starts at the
``warm_start``-th error, as the paper says.  The distance of the first error is counted
from the start of the stream (or of the last drift).
"""
import numpy as np

from .._compiled import njit

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from ._base import Slot, DriftDetector, check_integer


@njit(cache=True)
def _eddm(values, s, params, flags, stop):
    """s = [i, index of the last error, errors, mean distance, M2 of the distances,
    max of p' + 2 s', warning state]."""
    warm = params[0]
    alpha = params[1]
    beta = params[2]
    n = values.shape[0]
    for j in range(n):
        s[0] += 1.0
        if values[j] != 1.0:
            if s[6] > 0.0:
                flags[j] = 1
            continue
        dist = s[0] - s[1]
        s[1] = s[0]
        s[2] += 1.0
        delta = dist - s[3]
        s[3] += delta / s[2]
        s[4] += delta * (dist - s[3])
        sd = np.sqrt(s[4] / (s[2] - 1.0)) if s[2] > 1.0 else 0.0
        level = s[3] + 2.0 * sd
        if level > s[5]:
            s[5] = level
        if s[2] >= warm:
            ratio = level / s[5]
            if ratio < beta:
                flags[j] = 2
                for k in range(7):
                    s[k] = 0.0
                if stop:
                    return j + 1
                continue
            s[6] = 1.0 if ratio < alpha else 0.0
        if s[6] > 0.0:
            flags[j] = 1
    return n


@persistable
class EDDM(DriftDetector):
    """EDDM (Baena-Garcia et al. 2006): drift in the distance between a learner's errors,
    earlier than DDM on gradual changes.

    Parameters
    ----------
    warm_start : int >= 1, errors seen before a change is tested.
    alpha : float in (0, 1], warning when the distance statistic falls below this
        fraction of its maximum.
    beta : float in (0, alpha], drift when it falls below this fraction.

    Notes
    -----
    Feed 0/1 errors (1 = a mistake).  The warning state is re-evaluated at each error
    and holds in between.  On a drift the detector starts afresh.
    """

    _river_kind = "BinaryDriftAndWarningDetector"

    _kernel = staticmethod(_eddm)

    def _check_state(self, state):
        """Counts and positions of errors: non-negative integers, the last error not
        after the count, the distances' statistics non-negative, the warning flag 0/1."""
        s = state[0]
        if not (s[0] >= s[1] >= 0 and s[2] >= 0 and s[3] >= 0 and s[4] >= 0
                and s[5] >= 0 and s[6] in (0.0, 1.0)
                and all(v == int(v) for v in s[:3])):
            raise ValueError("the EDDM state is inconsistent")

    def __init__(self, warm_start=30, alpha=0.95, beta=0.9):
        store_params(self, locals())
        self.reset()

    def _kernel_params(self):
        w = check_integer("warm_start", self.warm_start, 1)
        alpha = check_number("alpha", self.alpha, low=0.0, high=1.0, low_open=True)
        beta = check_number("beta", self.beta, low=0.0, high=alpha, low_open=True)
        return (w, alpha, beta)

    slots = (Slot("s", (7,)),)
