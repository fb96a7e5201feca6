"""AdamW (Loshchilov and Hutter, "Decoupled weight decay regularization", ICLR 2019,
Algorithm 2): Adam's step plus a decay ``lambda w`` that does not pass through the
moments, ``w -= lr m_hat / (sqrt(v_hat) + epsilon) + lambda w`` (line 12 with the
schedule multiplier ``eta_t = 1``).  As in the paper the decay is not multiplied by
``lr`` (PyTorch's ``AdamW`` decays by ``lr lambda w``): ``weight_decay`` is the
fraction of the weights removed each round.  Exact, O(d) a row, as :mod:`adam`.
"""
from .._validation import check_number
from .adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter 2019, Algorithm 2).

    Parameters
    ----------
    lr : float > 0, the step ``alpha``.
    beta_1, beta_2 : floats in [0, 1), the moments' decays.
    epsilon : float > 0, added to ``sqrt(v_hat)``.
    weight_decay : float in [0, 1), ``lambda``: the weights shrink by ``1 - lambda`` a
        round besides Adam's step.
    reordered : bool, Adam's step in the paper's Section 2 order (see ``Adam``).
    """
    name = "adamw"

    def __init__(self, lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 weight_decay=1e-4, reordered=False):
        super().__init__(lr, beta_1, beta_2, epsilon, reordered)
        self.weight_decay = weight_decay

    def kernel_params(self):
        return {**super().kernel_params(), "weight_decay": float(self.weight_decay)}

    def check(self):
        super().check()
        check_number("weight_decay", self.weight_decay, low=0.0, high=1.0, high_open=True)
