"""Gradient descent with momentum: the heavy ball (Polyak, "Some methods of speeding up
the convergence of iteration methods", USSR Comp. Math. 4, 1964) and Nesterov's
accelerated gradient, in the form of Sutskever, Martens, Dahl and Hinton ("On the
importance of initialization and momentum in deep learning", ICML 2013, eq. (1)-(4)):
per coordinate the velocity ``m = mu m - lr g`` and ``w += m``; ``nesterov=True``:
``w += mu m - lr g`` with the new ``m`` (the step of the weights themselves, Bengio,
Boulanger-Lewandowski and Pascanu 2013, eq. (7)).  scikit-learn's ``SGDOptimizer``
formulas: the MLP's ``solver="sgd"`` with ``momentum > 0`` is this optimiser.

Exact, O(d) a row: a zero gradient still moves the weight by the velocity, so every
coordinate steps every round.  State ``M`` (the velocities).  The rate is constant.
"""
from .._state import Slot
from .._validation import check_bool, check_number
from ._base import Optimizer, scratch


class Momentum(Optimizer):
    """Gradient descent with a velocity (heavy ball or Nesterov).

    Parameters
    ----------
    lr : float > 0, the rate.
    momentum : float in [0, 1), ``mu``, the velocity's decay.
    nesterov : bool, Nesterov's accelerated form.
    """
    name = "momentum"
    mode = "dense"

    def __init__(self, lr=0.01, momentum=0.9, nesterov=False):
        self.lr = lr
        self.momentum = momentum
        self.nesterov = nesterov

    def slots(self, axes=("K", "d")):
        return (scratch(axes), Slot("M", axes, 0.0, signed=True))

    def kernel_params(self):
        return {"momentum": float(self.momentum), "nesterov": float(bool(self.nesterov))}

    def check(self):
        super().check()
        check_number("momentum", self.momentum, low=0.0, high=1.0, high_open=True)
        check_bool("nesterov", self.nesterov)
