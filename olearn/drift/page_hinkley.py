"""The Page-Hinkley test (Page, "Continuous Inspection Schemes", Biometrika 41, 1954),
in the form used for streams (Gama, Sebastiao and Rodrigues, "On evaluating stream
learning algorithms", Machine Learning 90, 2013, section 4.1), with River's fading
factor ``alpha``.

With x_bar_T the mean of the values x_1 .. x_T seen so far (x_T included),

    m_T = alpha m_{T-1} + (x_T - x_bar_T - delta),   M_T = min_t m_t,

an increase of the mean is detected when m_T - M_T > ``threshold`` (lambda); a decrease
with the mirror statistic (x_T - x_bar_T + delta, against its maximum).  ``mode`` picks
"up", "down" or "both" (River's default).  No test before ``min_instances`` values.
On a detection the test starts afresh (River does the same).  ``alpha = 1`` is Page's
test without forgetting.
"""
import numpy as np

from .._compiled import njit

from .._params import store_params
from .._validation import check_choice, check_number
from ..persistence import persistable
from ._base import Slot, DriftDetector, check_integer

MODES = ("both", "up", "down")


@njit(cache=True)
def _page_hinkley(values, s, params, flags, stop):
    """s = [T, mean, m (increase), m' (decrease), min m, max m']."""
    min_n = params[0]
    delta = params[1]
    lam = params[2]
    alpha = params[3]
    mode = int(params[4])
    n = values.shape[0]
    for j in range(n):
        x = values[j]
        s[0] += 1.0
        s[1] += (x - s[1]) / s[0]
        dev = x - s[1]
        s[2] = alpha * s[2] + dev - delta
        s[3] = alpha * s[3] + dev + delta
        if s[2] < s[4]:
            s[4] = s[2]
        if s[3] > s[5]:
            s[5] = s[3]
        if s[0] >= min_n:
            up = s[2] - s[4] > lam
            down = s[5] - s[3] > lam
            if (mode == 0 and (up or down)) or (mode == 1 and up) or (mode == 2 and down):
                flags[j] = 2
                s[0] = s[1] = s[2] = s[3] = 0.0
                s[4] = np.inf
                s[5] = -np.inf
                if stop:
                    return j + 1
    return n


@persistable
class PageHinkley(DriftDetector):
    """Page-Hinkley test (Page 1954): a change in the mean of a stream of real values.

    Parameters
    ----------
    min_instances : int >= 1, values seen before a change is tested.
    delta : float >= 0, the magnitude of change tolerated.
    threshold : float > 0, lambda: the cumulative deviation that signals a change.
    alpha : float in (0, 1], fading factor of the cumulative deviation (1: none).
    mode : "both", "up" or "down", the direction of the change looked for.

    Notes
    -----
    On a detection the test starts afresh.
    """

    _kernel = staticmethod(_page_hinkley)

    def __init__(self, min_instances=30, delta=0.005, threshold=50.0, alpha=1 - 0.0001,
                 mode="both"):
        store_params(self, locals())
        self.reset()

    def _kernel_params(self):
        m = check_integer("min_instances", self.min_instances, 1)
        check_choice("mode", self.mode, MODES)
        return (m, check_number("delta", self.delta, low=0.0),
                check_number("threshold", self.threshold, low=0.0, low_open=True),
                check_number("alpha", self.alpha, low=0.0, high=1.0, low_open=True),
                float(MODES.index(self.mode)))

    slots = (Slot("s", (6,), (0.0, 0.0, 0.0, 0.0, np.inf, -np.inf)),)
