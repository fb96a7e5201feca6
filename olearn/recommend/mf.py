"""Online matrix factorisation by stochastic gradient descent on a rating stream:
``Baseline``, ``FunkMF`` and ``BiasedMF``, three configurations of one update.

The model (Koren, Bell and Volinsky, "Matrix factorization techniques for recommender
systems", IEEE Computer 2009, eq. 3; Koren and Bell, Recommender Systems Handbook
2011, ch. 5, eq. 5.5)::

    p(u, i) = mu + b_u + b_i + <x_u, y_i>

``mu`` the running mean of the ratings seen (Baseline and BiasedMF), ``b_u``, ``b_i`` the
user and item biases (Baseline and BiasedMF), ``x_u``, ``y_i`` the latent vectors
(FunkMF and BiasedMF; Funk 2006, "Netflix update: try this at home").

One event ``(u, i, y)``, in River's order (``river.reco``), so that the same numbers
give the same model: the running mean takes ``y`` first; ``p`` is the prediction with
the new mean; ``g = 2 (p - y)`` is the derivative of the squared error ``(p - y)^2``
(Koren's papers write the step on ``e = y - p`` with the 2 folded into the rate:
their ``gamma`` is twice ours); then, all right-hand sides at the old values::

    b_u <- b_u - bias_lr (g + l2_bias b_u)         b_i <- b_i - bias_lr (g + l2_bias b_i)
    x_u <- x_u - latent_lr (g y_i + l2_latent x_u) y_i <- y_i - latent_lr (g x_u + l2_latent y_i)

New users and items start from the prior: biases 0, latent vectors drawn from
Normal(0, init_std^2) by ``numpy.random.RandomState(random_state)`` in order of first
appearance in the stream (a user before an item of the same event, as River draws them).
``predict_one`` of an id never learned uses the prior's mean (zeros) and draws nothing.
Predictions (progressive ones included) are clipped to ``[min_rating, max_rating]`` when
given; learning uses the unclipped prediction (as River's ``PredClipper``).
"""
import math

import numpy as np

from .._params import store_params
from .._validation import check_number
from ._base import Recommender, grown
from ..persistence import persistable

__all__ = ["Baseline", "FunkMF", "BiasedMF"]


class _SGDFactorization(Recommender):
    _use_mean = True
    _logistic = False

    # configuration: (n_factors, bias_lr, latent_lr, l2_bias, l2_latent, init_std)
    def _config(self):
        raise NotImplementedError

    def _check_params(self):
        names = ("n_factors", "bias_lr", "latent_lr", "l2_bias", "l2_latent", "init_std")
        for name, value in zip(names, self._config()):
            check_number(name, value, low=0)
        k = self._config()[0]
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
            raise ValueError(f"n_factors must be an integer >= 0, got {k!r}")
        for name in ("min_rating", "max_rating"):
            if getattr(self, name) is not None:
                check_number(name, getattr(self, name))
        if self.min_rating is not None and self.max_rating is not None \
                and self.min_rating > self.max_rating:
            raise ValueError(f"min_rating ({self.min_rating}) must not exceed max_rating "
                             f"({self.max_rating})")
        rs = getattr(self, "random_state", None)
        if rs is not None and (not isinstance(rs, (int, np.integer)) or isinstance(rs, bool)):
            raise ValueError(f"random_state must be None or an integer, got {rs!r}")

    def _init_model(self):
        k = int(self._config()[0])
        self._bu = np.zeros(0)
        self._bi = np.zeros(0)
        self._P = np.zeros((0, k))
        self._Q = np.zeros((0, k))
        self._stats = np.zeros(2)  # running count and mean of the ratings
        self._rng = np.random.RandomState(getattr(self, "random_state", None))

    def _grow(self, n_users, n_items, kinds, codes):
        self._bu = grown(self._bu, n_users, 0.0)
        self._bi = grown(self._bi, n_items, 0.0)
        self._P = grown(self._P, n_users, 0.0)
        self._Q = grown(self._Q, n_items, 0.0)
        k, std = self._P.shape[1], self._config()[5]
        if k:
            draws = self._rng.normal(0.0, std, size=(len(codes), k))
            users = kinds == 0
            self._P[codes[users]] = draws[users]
            self._Q[codes[~users]] = draws[~users]

    def _kernel_params(self):
        _, bias_lr, latent_lr, l2_bias, l2_latent, _ = self._config()
        low = -math.inf if self.min_rating is None else float(self.min_rating)
        high = math.inf if self.max_rating is None else float(self.max_rating)
        return np.array([float(self._use_mean), bias_lr, latent_lr, l2_bias, l2_latent,
                         low, high, float(self._logistic)])

    def _learn(self, u, i, r, out):
        from ._kernels import sgd_pass
        sgd_pass(u, i, r, self._bu, self._bi, self._P, self._Q, self._stats,
                 self._validated(), out)

    def _prior_value(self):
        return self._stats[1] if self._use_mean and self._started() else 0.0

    def _scores(self, u, i):
        ku, ki = u >= 0, i >= 0
        uu, ii = np.where(ku, u, 0), np.where(ki, i, 0)
        s = np.full(len(u), self._prior_value())
        if len(self._bu):
            s = s + np.where(ku, self._bu[uu], 0.0) + np.where(ki, self._bi[ii], 0.0)
        if self._P.shape[1] and len(self._bu) and len(self._bi):
            both = ku & ki
            s[both] += np.einsum("nf,nf->n", self._P[u[both]], self._Q[i[both]])
        if self._logistic:
            s = self.min_rating + (self.max_rating - self.min_rating) / (1.0 + np.exp(-s))
        return s

    # -- the learned model, for users and inspection ----------------------------------
    @property
    def global_mean_(self):
        """The running mean of the ratings (Baseline, BiasedMF; 0 for FunkMF)."""
        return float(self._prior_value()) if self._started() else 0.0

    def user_factors(self, user):
        """``(bias, latent vector)`` of a user (the prior's for an unknown user)."""
        return self._factors(self._users, self._bu, self._P, user)

    def item_factors(self, item):
        """``(bias, latent vector)`` of an item (the prior's for an unknown item)."""
        return self._factors(self._items, self._bi, self._Q, item)

    def _factors(self, ids, b, V, key):
        k = int(self._config()[0])
        c = ids.code(key, grow=False) if self._started() else -1
        if c < 0:
            return 0.0, np.zeros(k)
        return float(b[c]), V[c].copy()

    def _export_model(self):
        nu, ni = len(self._users), len(self._items)
        state = self._rng.get_state()
        fitted = {"n": float(self._stats[0]), "mean": float(self._stats[1]),
                  "rng_pos": int(state[2]), "rng_has_gauss": int(state[3]),
                  "rng_gauss": float(state[4])}
        arrays = {"bu": self._bu[:nu].copy(), "bi": self._bi[:ni].copy(),
                  "P": self._P[:nu].copy(), "Q": self._Q[:ni].copy(),
                  "rng_keys": np.asarray(state[1], dtype=np.uint32)}
        return fitted, arrays

    def _import_model(self, fitted, arrays):
        k = int(self._config()[0])
        nu, ni = len(self._users), len(self._items)
        self._bu = np.array(arrays["bu"], dtype=np.float64).reshape(nu)
        self._bi = np.array(arrays["bi"], dtype=np.float64).reshape(ni)
        self._P = np.array(arrays["P"], dtype=np.float64).reshape(nu, k)
        self._Q = np.array(arrays["Q"], dtype=np.float64).reshape(ni, k)
        self._stats = np.array([fitted["n"], fitted["mean"]], dtype=np.float64)
        n, mean = self._stats.tolist()
        if not (np.isfinite(mean) and n == int(n) and 0 <= n <= 2.0 ** 53):
            raise ValueError(f"the rating count {n!r} and mean {mean!r} must be a "
                             "non-negative integer and a finite number")
        self._rng.set_state(("MT19937", np.asarray(arrays["rng_keys"], dtype=np.uint32),
                             int(fitted["rng_pos"]), int(fitted["rng_has_gauss"]),
                             float(fitted["rng_gauss"])))


# the last lines of the latent-factor models' "Parameters" (``__doc__ = f"""..."""``)
LATENT_DOC = """init_std : float, default=0.1
        Standard deviation of the normal prior of new latent vectors.
    random_state : int or None, default=0
        Seed of the latent vectors' draws.
    min_rating, max_rating : float or None, default=None
        Predictions are clipped to this range (learning is not)."""


@persistable
class Baseline(_SGDFactorization):
    """Global mean plus user and item biases, learned online by SGD.

    ``p(u, i) = mu + b_u + b_i`` (Koren 2008, "Factorization meets the neighborhood",
    eq. 1), ``mu`` the running mean; the biases step on the gradient of ``(p - y)^2``
    (see the module docstring: River's ``reco.Baseline`` with ``optim.SGD(lr)``).

    Parameters
    ----------
    lr : float, default=0.025
        Learning rate of the biases (multiplies the gradient of ``(p - y)^2``).
    l2 : float, default=0.0
        L2 penalty of the biases.
    min_rating, max_rating : float or None, default=None
        Predictions are clipped to this range (learning is not).
    """
    _use_mean = True

    def __init__(self, lr=0.025, l2=0.0, min_rating=None, max_rating=None):
        store_params(self, locals())

    def _config(self):
        return 0, self.lr, 0.0, self.l2, 0.0, 0.0

    def _check_params(self):
        check_number("lr", self.lr, low=0)
        check_number("l2", self.l2, low=0)
        super()._check_params()


@persistable
class FunkMF(_SGDFactorization):
    __doc__ = f"""Funk's matrix factorisation: ``p(u, i) = <x_u, y_i>``, no mean, no biases.

    Simon Funk, "Netflix update: try this at home" (2006); the L2-regularised form is
    Koren et al. 2009, eq. 2.  Steps on the gradient of ``(p - y)^2`` (River's
    ``reco.FunkMF`` with ``optim.SGD(latent_lr)`` and ``l2=l2_latent``).

    Parameters
    ----------
    n_factors : int, default=10
        Length of the latent vectors.
    latent_lr : float, default=0.05
        Learning rate of the latent vectors.
    l2_latent : float, default=0.1
        L2 penalty of the latent vectors.
    {LATENT_DOC}
    """
    _use_mean = False

    def __init__(self, n_factors=10, latent_lr=0.05, l2_latent=0.1, init_std=0.1,
                 random_state=0, min_rating=None, max_rating=None):
        store_params(self, locals())

    def _config(self):
        return self.n_factors, 0.0, self.latent_lr, 0.0, self.l2_latent, self.init_std


@persistable
class BiasedMF(_SGDFactorization):
    __doc__ = f"""Koren's biased matrix factorisation, learned online by SGD.

    ``p(u, i) = mu + b_u + b_i + <x_u, y_i>`` (Koren, Bell and Volinsky 2009, eq. 3;
    eq. 5 for the regularised squared error), ``mu`` the running mean.  Steps on the
    gradient of ``(p - y)^2`` (River's ``reco.BiasedMF`` with ``optim.SGD(bias_lr)``
    and ``optim.SGD(latent_lr)``); Koren's step size is twice ours.

    Parameters
    ----------
    n_factors : int, default=10
        Length of the latent vectors.
    bias_lr : float, default=0.025
        Learning rate of the user and item biases.
    latent_lr : float, default=0.05
        Learning rate of the latent vectors.
    l2_bias : float, default=0.0
        L2 penalty of the biases.
    l2_latent : float, default=0.0
        L2 penalty of the latent vectors.
    {LATENT_DOC}
    """
    _use_mean = True

    def __init__(self, n_factors=10, bias_lr=0.025, latent_lr=0.05, l2_bias=0.0,
                 l2_latent=0.0, init_std=0.1, random_state=0, min_rating=None,
                 max_rating=None):
        store_params(self, locals())

    def _config(self):
        return (self.n_factors, self.bias_lr, self.latent_lr, self.l2_bias,
                self.l2_latent, self.init_std)
