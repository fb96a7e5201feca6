"""RMSProp (Tieleman and Hinton, "Lecture 6.5: divide the gradient by a running average
of its recent magnitude", COURSERA Neural Networks for Machine Learning, 2012): per
coordinate ``v = rho v + (1 - rho) g^2``, ``w -= lr g / (sqrt(v) + epsilon)``.  The
lecture divides by ``sqrt(v)``; ``epsilon`` outside the root is PyTorch's and Keras's
guard for a coordinate with ``v = 0``.

Exact, O(d) a row: every coordinate's ``v`` decays every round.  (A zero gradient does
not move the weight, so a lazy form is exact too: ``v *= rho^k`` on the next touch
after ``k`` silent rounds; it needs a round stamp per coordinate that ``olearn.mix``
and widening would have to honour, and is not done.)
"""
from .._state import Slot
from .._validation import check_number
from ._base import Optimizer, scratch


class RMSProp(Optimizer):
    """Rates divided by a running root mean square of the gradients.

    Parameters
    ----------
    lr : float > 0, the base rate.
    rho : float in [0, 1), the decay of the mean square.
    epsilon : float > 0, added to its root.
    """
    name = "rmsprop"
    mode = "dense"

    def __init__(self, lr=0.001, rho=0.9, epsilon=1e-8):
        self.lr = lr
        self.rho = rho
        self.epsilon = epsilon

    def slots(self, axes=("K", "d")):
        return (scratch(axes), Slot("V", axes, 0.0))

    def kernel_params(self):
        return {"rho": float(self.rho), "epsilon": float(self.epsilon)}

    def check(self):
        super().check()
        check_number("rho", self.rho, low=0.0, high=1.0, high_open=True)
        check_number("epsilon", self.epsilon, low=0.0, low_open=True)
