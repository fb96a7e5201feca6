"""AdaGrad, diagonal (Duchi, Hazan and Singer, "Adaptive subgradient methods for online
learning and stochastic optimization", JMLR 12, 2011, Section 1.2 and eq. (7) with
``H_t = delta I + diag(G_t)^(1/2)``): per coordinate ``G += g^2``,
``w -= lr g / (delta + sqrt(G))``.

Lazy over sparse rows, exactly: a coordinate with no gradient keeps ``G`` and ``w``, so
a row costs O(non-zeros).  ``delta = 0`` (the default, olearn's "adagrad" learner):
a coordinate moves only once it has had a gradient.  State ``G`` (the squared
gradients' sums; ``olearn.mix`` adds them).
"""
from .._state import Slot
from .._validation import check_number
from ._base import Optimizer


class AdaGrad(Optimizer):
    """Per-coordinate rates ``lr / (delta + sqrt(sum of squared gradients))``.

    Parameters
    ----------
    lr : float > 0, the base rate.
    delta : float >= 0, added to the root (Duchi et al.'s ``delta``).
    """
    name = "adagrad"
    mode = "lazy"

    def __init__(self, lr=1.0, delta=0.0):
        self.lr = lr
        self.delta = delta

    def slots(self, axes=("K", "d")):
        return (Slot("G", axes, 0.0, mix="sum"),)

    def kernel_params(self):
        return {"delta": float(self.delta)}

    def check(self):
        super().check()
        check_number("delta", self.delta, low=0.0)
