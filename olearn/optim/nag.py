"""NAG, normalized adaptive gradient (Ross, Mineiro and Langford, "Normalized online
learning", UAI 2013, Algorithm 2), the idea behind Vowpal Wabbit's default update.

Per feature ``i`` the largest magnitude seen ``s_i`` and the sum of squared gradients
``G_i``; over the stream ``N = sum_t sum_i x_ti^2 / s_i^2``.  Round ``t``: (1) each
non-zero ``x_i`` with ``|x_i| > s_i`` shrinks the weight to the new scale, ``w_i <- w_i
s_i / |x_i|``, and sets ``s_i <- |x_i|``; (2) predict ``w . x``; (3) ``N <- N + sum_i
x_i^2 / s_i^2``; (4) ``G_i <- G_i + g_i^2``, ``w_i <- w_i - lr sqrt(t / N) g_i / (s_i
sqrt(G_i))``.  Multiplying feature ``i`` by ``c != 0`` divides its weight by ``c`` and
changes no prediction: the step needs no re-tuning when the features' scales change.

Step 1 runs before the prediction, so a rule with this step predicts on the row clipped
to the scales seen (``w . clip(x, -s, s)`` with the current weights): OGD declares its
"nag" kernels with the score and round start of ``olearn.linear.ndag`` (the NAG
learner), and the step (4) is ``olearn._compiled.steps.nag_step``.  Lazy over sparse
rows, exactly (a zero ``x_i`` changes neither ``s_i``, ``G_i`` nor ``w_i``).  State
``S`` (the scales, one per column: ``olearn.mix`` keeps their maximum) and ``G`` (summed);
``N`` is the linear state's free scalar.  ``OGDRegressor``'s default step
(``schedule="nag"``, the same as ``optimizer=NAG(lr=eta)``).
"""
from .._state import Slot
from ._base import Optimizer


class NAG(Optimizer):
    """Normalized adaptive gradient steps (Ross, Mineiro and Langford 2013, Algorithm 2).

    Parameters
    ----------
    lr : float > 0, the learning rate (Vowpal Wabbit's default is 0.5).
    """
    name = "nag"
    mode = "normalized"

    def __init__(self, lr=0.5):
        self.lr = lr

    def slots(self, axes=("K", "d")):
        return (Slot("S", tuple(a for a in axes if a != "K"), 0.0, mix="max"),
                Slot("G", axes, 0.0, mix="sum"))
