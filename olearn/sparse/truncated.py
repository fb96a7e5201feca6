"""Truncated gradient: sparse online learning by gradual l1 shrinkage.

Langford, Li and Zhang, "Sparse online learning via truncated gradient", JMLR 10,
2009, Algorithm 1 (written there for least squares; here with any loss of
``olearn._compiled.losses``, their Section 3.1, and the max-score or softmax forms for
multiclass).  Trial ``i``: every weight with ``|w_j| <= theta`` shrinks toward 0 by
``g_i eta`` (not past 0), where the gravity sequence is ``g_i = period * gravity`` when
``i`` is a multiple of ``period`` (their K) and 0 otherwise; then the prediction
``w . x``, then the gradient step ``w <- w - eta dL/dp x`` (for the squared loss
``(p - y)^2`` of the lecture's Algorithm 1 this is ``w + 2 eta (y - p) x``; olearn's
"squared" loss is ``(p - y)^2 / 2``, so its step is half of that: pass twice the
``eta``).  ``theta=None`` means no threshold (every weight shrinks: l1 truncation,
the "simple coefficient rounding" limit being ``theta = gravity = large``).  With
``gravity = 0`` this is plain constant-step SGD.  The intercept is never truncated
(a constant column with ``fit_intercept=False`` is, like any feature).

The trials are counted in the model's state, across calls, epochs and save/load, so
truncation happens every ``period``-th example of the stream however it is cut into
calls (one example at a time = one batch = chunks).  The model after ``t`` examples
(``coef_``, ``predict``, ``predict_one``) is the one that predicts example ``t + 1``:
it includes that trial's truncation when ``t + 1`` is a multiple of ``period`` (nothing
happens between trial ``t``'s update and it, so it is applied then, with the
hyper-parameters of trial ``t``).

Lazy: the truncations a weight owes since it was last touched add up (a weight below
``theta`` stays below it while it shrinks, one above it is left alone), so they are
applied in one step when a row touches it or the model is read: a row costs
O(non-zeros) (``olearn._compiled.lazy``).
"""
import math

from ..base import OnlineClassifier, OnlineRegressor
from .._compiled.declare import declare
from .._compiled.lazy import SHRINK_PARAMS, shrink_begin, shrink_rule, shrink_scores
from .._compiled.losses import GRADS
from .._params import store_params
from ._proba import LogisticProba, LossModel
from ._shrink import ShrinkModel, no_threshold
from ._sparse import check_number

KERNELS = declare("sparse.truncated", params=SHRINK_PARAMS,
                  score=shrink_scores, begin=shrink_begin, binary=shrink_rule,
                  multiclass=shrink_rule, regression=shrink_rule, losses=GRADS)


class _Truncated(LossModel, ShrinkModel):
    _declared = KERNELS

    def _theta(self):
        return math.inf if self.theta is None else float(self.theta)

    def _check_hyper(self):
        self._check_loss()
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("gravity", self.gravity, low=0.0)
        if self.theta is not None:
            check_number("theta", self.theta, low=0.0)
        if isinstance(self.period, bool) or check_number("period", self.period, low=1) \
                != int(self.period):
            raise ValueError(f"period must be an integer >= 1, got {self.period!r}")

    def _kernel_params(self):
        return {"eta": self.eta, "invsqrt": 0.0, "l1": 0.0, "l2": 0.0,
                "gravity": self.gravity, "period": self.period,
                "theta": no_threshold(self._theta()), "eps": self.epsilon}


class TruncatedGradientClassifier(LogisticProba, _Truncated, OnlineClassifier):
    """Truncated gradient (Langford, Li, Zhang 2009; see the module docstring).

    Parameters
    ----------
    loss : "hinge", "squared_hinge", "logistic", "perceptron" or "modified_huber".
    eta : float, step (> 0).
    gravity : float, l1 shrink per trial (>= 0), applied ``period`` at a time.
    theta : float or None, only weights with ``|w| <= theta`` shrink (None: all).
    period : int, truncate every ``period`` trials (the paper's K).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """

    def __init__(self, loss="hinge", eta=0.1, gravity=1e-4, theta=None, period=1,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())


class TruncatedGradientRegressor(_Truncated, OnlineRegressor):
    """Truncated gradient regressor (Langford, Li, Zhang 2009, Algorithm 1).

    Parameters
    ----------
    loss : "squared", "absolute", "epsilon_insensitive" or "huber".
    eta : float, step (> 0).
    gravity : float, l1 shrink per trial (>= 0).
    theta : float or None, only weights with ``|w| <= theta`` shrink (None: all).
    period : int, truncate every ``period`` trials (the paper's K).
    epsilon : float, width of the "epsilon_insensitive" and "huber" losses (>= 0).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """

    def __init__(self, loss="squared", eta=0.01, gravity=1e-4, theta=None, period=1,
                 epsilon=0.1, fit_intercept=True, intercept_scaling=1.0, epochs=1,
                 shuffle=True, random_state=0):
        store_params(self, locals())
