"""COCOB-Backprop (Orabona and Tommasi, "Training deep networks without learning rates
through coin betting", NIPS 2017, Algorithm 2), with ``w1 = 0``: each coordinate bets
on the sign of its negative gradient ``c = -g``,
``L = max(L, |c|)``, ``G += |c|``, ``R = max(R + w c, 0)``, ``theta += c``,
``w = theta / (L max(G + L, alpha L)) (L + R)``.  No learning rate; ``alpha`` caps the
first bets at ``1 / alpha`` of the wealth (the paper's 100).

Lazy over sparse rows, exactly: a coordinate with ``c = 0`` keeps its state and its
weight.  State ``Q[k, i] = (L, G, R)`` and ``T = theta`` (signed: ``w`` is linear in it).
"""
from .._state import Slot
from .._validation import check_number
from ._base import Optimizer


class COCOB(Optimizer):
    """Parameter-free coin betting per coordinate (COCOB-Backprop).

    Parameters
    ----------
    alpha : float > 0, caps the first bets at ``1 / alpha`` of the wealth.
    """
    name = "cocob"
    mode = "lazy"

    def __init__(self, alpha=100.0):
        self.alpha = alpha

    def slots(self, axes=("K", "d")):
        return (Slot("Q", (*axes, 3), 0.0, mix=("max", "sum", "sum")),
                Slot("T", axes, 0.0, signed=True, mix="sum"))

    def kernel_params(self):
        return {"cocob_alpha": float(self.alpha)}

    def rate(self):
        return 0.0, "constant", 0.5

    def check(self):
        check_number("alpha", self.alpha, low=0.0, low_open=True)
