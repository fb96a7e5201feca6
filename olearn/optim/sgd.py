"""Plain stochastic gradient descent: ``w -= lr_t g``.

Schedules of the rate (``t`` the round, from 1): "constant" ``lr``; "invsqrt"
``lr / sqrt(t)`` (Zinkevich 2003, the rate of his regret bound); "power" ``lr
t^-power``, inverse scaling (scikit-learn's "invscaling"; ``power`` in (1/2, 1]
satisfies Robbins and Monro's conditions).  A zero gradient changes nothing and the
step is linear in the gradient, so a row is one scaled add, O(non-zeros).
``SGD()`` is ``OGDClassifier``'s default step.
"""
from .._validation import check_choice, check_number
from ._base import Optimizer

SCHEDULES = ("constant", "invsqrt", "power")


class SGD(Optimizer):
    """Gradient descent with a scheduled rate.

    Parameters
    ----------
    lr : float > 0, the base rate.
    schedule : "constant", "invsqrt" (``lr / sqrt(t)``) or "power" (``lr t^-power``).
    power : float in (0, 1], the exponent of "power".
    """
    name = "sgd"
    mode = "row"

    def __init__(self, lr=1.0, schedule="invsqrt", power=0.5):
        self.lr = lr
        self.schedule = schedule
        self.power = power

    def rate(self):
        return float(self.lr), self.schedule, float(self.power)

    def check(self):
        super().check()
        check_choice("schedule", self.schedule, SCHEDULES)
        check_number("power", self.power, low=0.0, high=1.0, low_open=True)
