"""Adam (Kingma and Ba, "Adam: a method for stochastic optimization", ICLR 2015,
Algorithm 1): per coordinate ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
``w -= lr m_hat / (sqrt(v_hat) + epsilon)`` with ``m_hat = m / (1 - b1^t)``,
``v_hat = v / (1 - b2^t)``, ``t`` the round.  ``epsilon`` is added to ``sqrt(v_hat)``
as in Algorithm 1 (PyTorch's form); scikit-learn and Keras add it to ``sqrt(v)``, the
paper's Section 2 reordering (``reordered=True``: ``alpha_t = alpha sqrt(1 - b2^t) /
(1 - b1^t)``, ``w -= alpha_t m / (sqrt(v) + epsilon)``, the paper's ``epsilon-hat``),
which differs in ``epsilon``'s scale early on; the MLP's ``solver="adam"`` is that form.

Exact, O(d) a row: a zero gradient still decays ``m`` and ``v``, and the weight moves
while ``m != 0``, so every coordinate steps every round (the decay of skipped rounds is
closed-form, ``m b1^k``, but the weight's path through them is not: a lazy Adam would
be another algorithm).  State ``M``, ``V``.
"""
from .._state import Slot
from .._validation import check_bool, check_number
from ._base import Optimizer, scratch


class Adam(Optimizer):
    """Bias-corrected moment estimates (Kingma and Ba 2015, Algorithm 1).

    Parameters
    ----------
    lr : float > 0, the step ``alpha``.
    beta_1, beta_2 : floats in [0, 1), the moments' decays.
    epsilon : float > 0, added to ``sqrt(v_hat)`` (``reordered``: to ``sqrt(v)``).
    reordered : bool, the paper's Section 2 order of the step (scikit-learn's).
    """
    name = "adam"
    mode = "dense"

    def __init__(self, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-8, reordered=False):
        self.lr = lr
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.reordered = reordered

    def slots(self, axes=("K", "d")):
        return (scratch(axes), Slot("M", axes, 0.0, signed=True), Slot("V", axes, 0.0))

    def kernel_params(self):
        return {"beta_1": float(self.beta_1), "beta_2": float(self.beta_2),
                "epsilon": float(self.epsilon), "adam_reordered": float(bool(self.reordered))}

    def check(self):
        super().check()
        for name in ("beta_1", "beta_2"):
            check_number(name, getattr(self, name), low=0.0, high=1.0, high_open=True)
        check_number("epsilon", self.epsilon, low=0.0, low_open=True)
        check_bool("reordered", self.reordered)
