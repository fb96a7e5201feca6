"""DDM, the drift detection method (Gama, Medas, Castillo and Rodrigues, "Learning with
Drift Detection", SBIA 2004, LNCS 3171).

The stream is a learner's errors x_i in {0, 1}.  After i values, p_i is the error rate
and s_i = sqrt(p_i (1 - p_i) / i) its standard deviation (section 3 of the paper).
Once more than ``warm_start`` values were seen, (p_min, s_min) are the (p_i, s_i) at which
p_i + s_i was smallest so far, and

* warning when p_i + s_i > p_min + ``warning_threshold`` s_min (the paper: 2),
* drift   when p_i + s_i > p_min + ``drift_threshold`` s_min   (the paper: 3);

on a drift the statistics start afresh (the paper relearns the model from the warning
on).  The paper writes ">="; with a perfect learner (p = s = 0) that would flag a drift
at every value, so the comparison is strict, as in River.  The paper's warm-up is 30
values: on a stationary stream with a low error rate this is too short, and DDM does
raise false alarms there (the minimum is taken while s_i is still unreliable).
"""
import numpy as np

from .._compiled import njit

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from ._base import Slot, DriftDetector, check_integer


@njit(cache=True)
def _ddm(values, s, params, flags, stop):
    """s = [i, p_i, p_min, s_min, p_min + s_min]."""
    warm = params[0]
    warn = params[1]
    drift = params[2]
    n = values.shape[0]
    for j in range(n):
        s[0] += 1.0
        s[1] += (values[j] - s[1]) / s[0]
        p = s[1]
        sd = np.sqrt(p * (1.0 - p) / s[0])
        if s[0] > warm:
            if p + sd <= s[4]:
                s[2] = p
                s[3] = sd
                s[4] = p + sd
            if p + sd > s[2] + drift * s[3]:
                flags[j] = 2
                s[0] = s[1] = s[2] = s[3] = 0.0
                s[4] = np.inf
                if stop:
                    return j + 1
            elif p + sd > s[2] + warn * s[3]:
                flags[j] = 1
    return n


@persistable
class DDM(DriftDetector):
    """DDM (Gama et al., SBIA 2004): drift in a learner's error rate, with a warning level.

    Parameters
    ----------
    warm_start : int >= 0, values seen before the minimum is tracked and a change tested.
    warning_threshold : float > 0, warning at ``p_min + warning_threshold * s_min``.
    drift_threshold : float >= warning_threshold, drift at ``p_min + drift_threshold * s_min``.

    Notes
    -----
    Feed 0/1 errors (1 = a mistake).  On a drift the detector starts afresh.
    ``warning_detected`` tells whether the last value was at the warning level.
    """

    _river_kind = "BinaryDriftAndWarningDetector"

    _kernel = staticmethod(_ddm)

    def __init__(self, warm_start=30, warning_threshold=2.0, drift_threshold=3.0):
        store_params(self, locals())
        self.reset()

    def _kernel_params(self):
        w = check_integer("warm_start", self.warm_start, 0)
        warn = check_number("warning_threshold", self.warning_threshold, low=0.0,
                            low_open=True)
        drift = check_number("drift_threshold", self.drift_threshold, low=warn)
        return (w, warn, drift)

    #: [i, p_i, p_min, s_min, p_min + s_min]
    slots = (Slot("s", (5,), (0.0, 0.0, 0.0, 0.0, np.inf)),)

    @property
    def error_rate(self):
        """p_i: the error rate since the last drift."""
        return float(self._prepared()[0][1])
