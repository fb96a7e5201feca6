"""LMS: Adaline / Widrow-Hoff, the online least squares of the seed notes.

Widrow and Hoff ("Adaptive switching circuits", 1960): after predicting ``w_n . x_n``,

    w_{n+1} = w_n + gamma_n x_n (y_n - x_n . w_n),

stochastic gradient descent on the squared loss ``(y - w.x)^2 / 2`` (the MIT 9.520
notes, "From batch to online least squares").  Steps: "constant" ``gamma_n = eta``,
"invsqrt" ``eta / sqrt(n)`` or "power" ``eta n^-power``; the notes' recipe for
convergence to the least squares solution is ``gamma_n = n^-alpha`` with ``alpha`` in
(1/2, 1) together with Polyak averaging (``average=True``): the average of the
iterates then converges about as fast as recursive least squares (Polyak and
Juditsky 1992).

This is ``OGDRegressor(loss="squared")`` with its kernels; a sample weight multiplies
the step.
"""
from .._params import store_params
from ._linear import check_choice
from .ogd import OGDRegressor

LMS_SCHEDULES = ("constant", "invsqrt", "power")


class LMSRegressor(OGDRegressor):
    """Least mean squares (Widrow-Hoff): ``w += eta_n (y - w.x) x``.

    Parameters
    ----------
    eta : float, step (> 0).
    schedule : "constant", "invsqrt" or "power".
    power : float in (0, 1], exponent of the "power" schedule (``eta n^-power``).
    average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    # scikit-learn checks LMS departs from, and why (read by tests/test_estimators)
    _expected_failed_checks = dict.fromkeys(
        ("check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in"),
        "these checks' features (mean 100) make the constant step 0.01 diverge (rows of "
        "squared norm about 10^5: Widrow-Hoff is stable only below 2 / ||x||^2): the "
        "learner raises DivergenceError, as a diverging learner must")
    loss = "squared"
    alpha = 0.0
    radius = None
    epsilon = 0.0

    def __init__(self, eta=0.01, schedule="constant", power=0.5, average=False,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        check_choice("schedule", self.schedule, LMS_SCHEDULES)
        super()._check_hyper()
