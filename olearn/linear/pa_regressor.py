"""Passive-Aggressive regression (Crammer et al., JMLR 7, 2006, section 4).

Epsilon-insensitive loss ``l = max(0, |y - w.x| - epsilon)`` and the update
``w += sign(y - w.x) tau x`` with tau as for classification: "PA" ``l / ||x||^2``,
"PA-I" ``min(C, l / ||x||^2)``, "PA-II" ``l / (||x||^2 + 1/(2C))``.
The seed book's l2 and l1 passive-aggressive regressions (its section 31.2.2) are the
epsilon = 0 cases.  A row of zeros makes no update; a sample weight multiplies tau.
``average=True``: Polyak-Ruppert averaging (see ``olearn._compiled.averaging``).
"""
from numba import njit

from ..base import OnlineRegressor
from .._compiled.averaging import R_, add_row, avg_begin, avg_scores
from .._compiled.declare import declare
from .._params import store_params
from ._linear import LinearModel, check_number
from .pa import pa_step_params, pa_tau


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    c, D, epsilon = params.c, params.D, params.epsilon
    A = state[2]
    r = y - A[0, R_]
    tau = pa_tau(c, D, abs(r) - epsilon, val, 1.0, sw)
    if tau < 0.0:
        return 0
    add_row(state[0], state[1], A, 0, tau if r > 0 else -tau, idx, val)
    return 1


KERNELS = declare("linear.pa_regressor", params=("c", "D", "epsilon"), score=avg_scores,
                  begin=avg_begin, regression=_rule)


class PARegressor(LinearModel, OnlineRegressor):
    """Passive-Aggressive regressor on the epsilon-insensitive loss.

    Parameters
    ----------
    C : float, aggressiveness (> 0; unused by "PA").
    epsilon : float, width of the insensitive zone (>= 0).
    variant : "PA", "PA-I" or "PA-II".
    average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _kernels = KERNELS

    @property
    def _expected_failed_checks(self):
        """scikit-learn checks PA regression departs from, and why (read by
        tests/test_estimators): PA and PA-I (C=1 is not reached there: the same
        iterates) at the check's seed 0; PA-II passes (0.542)."""
        if self.variant == "PA-II":
            return {}
        return {"check_regressors_train":
                "one pass: the last iterate's R^2 on the check's 200 rows depends on the "
                "row order; at fit's shuffle seed 0 (the check's) PA and PA-I reach 0.492, "
                "under the check's 0.5 (seeds 1-4: 0.604, 0.505, 0.714, 0.754; 0.69 "
                "unshuffled)"}

    def __init__(self, C=1.0, epsilon=0.1, variant="PA-I", average=False,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        pa_step_params(self.variant, self.C)
        check_number("epsilon", self.epsilon, low=0.0)

    def _kernel_params(self):
        c, D = pa_step_params(self.variant, self.C)
        return {"c": c, "D": D, "epsilon": self.epsilon}
