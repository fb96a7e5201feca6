"""Online probabilistic matrix factorisation (Ling, Yang, King and Lyu, "Online learning
for collaborative filtering", IJCNN 2012, section III: online PMF).

PMF (Salakhutdinov and Mnih, NIPS 2008, section 2, eqs. 1-4) models a rating ``y`` of
user ``u`` on item ``i`` as ``g(<x_u, y_i>)``, ``g`` the logistic function, after
mapping ratings to ``[0, 1]`` by ``t(y) = (y - min_rating) / (max_rating - min_rating)``
(their ``(x - 1)/(K - 1)``), with Gaussian priors on the latent vectors, i.e. the
per-rating loss ``(1/2) (t(y) - g(s))^2 + (l2/2) (||x_u||^2 + ||y_i||^2)``, ``s =
<x_u, y_i>``.  The online algorithm of Ling et al. takes one stochastic gradient step
on that loss per rating as it arrives (their eqs. for ``U_i``, ``V_j``)::

    e = (g(s) - t(y)) g(s) (1 - g(s))
    x_u <- x_u - lr (e y_i + l2 x_u)       y_i <- y_i - lr (e x_u + l2 y_i)

(right-hand sides at the old values).  Predictions are ``min_rating + (max_rating -
min_rating) g(s)``.  The seed lecture only cites the paper; the step above is the
gradient of PMF's objective as written, with one ``l2`` for users and items (PMF's
``lambda_U = lambda_V``).  The paper's RMF (top-one probability ranking) variant is
not implemented.  New ids start from the prior as in ``mf.py`` (latent vectors drawn
from Normal(0, init_std^2)); an unknown pair predicts the middle of the scale.
"""
import numpy as np

from .._params import store_params
from .._validation import check_number
from ..persistence import persistable
from .mf import _SGDFactorization

__all__ = ["OnlinePMF"]


@persistable
class OnlinePMF(_SGDFactorization):
    """Online probabilistic matrix factorisation (Ling et al. 2012): one SGD step per
    rating on PMF's logistic-link squared error with Gaussian priors.

    Parameters
    ----------
    n_factors : int, default=10
        Length of the latent vectors.
    lr : float, default=2.0
        Learning rate (ratings are mapped to [0, 1], so the gradients are small).
    l2 : float, default=0.001
        L2 penalty of the latent vectors (PMF's lambda_U = lambda_V).
    init_std : float, default=0.1
        Standard deviation of the normal prior of new latent vectors.
    random_state : int or None, default=0
        Seed of the latent vectors' draws.
    min_rating, max_rating : float, default=1.0, 5.0
        The rating scale (mapped to [0, 1]); predictions lie inside it.
    """
    _use_mean = False
    _logistic = True

    def __init__(self, n_factors=10, lr=2.0, l2=0.001, init_std=0.1, random_state=0,
                 min_rating=1.0, max_rating=5.0):
        store_params(self, locals())

    def _scores_fresh(self, n):
        return np.full(n, 0.5 * (self.min_rating + self.max_rating))

    def _config(self):
        return self.n_factors, 0.0, self.lr, 0.0, self.l2, self.init_std

    def _check_params(self):
        check_number("lr", self.lr, low=0)
        check_number("l2", self.l2, low=0)
        low = check_number("min_rating", self.min_rating)
        if check_number("max_rating", self.max_rating) <= low:
            raise ValueError(f"max_rating ({self.max_rating}) must exceed min_rating "
                             f"({self.min_rating})")
        super()._check_params()
