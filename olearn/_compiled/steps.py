"""The optimisers' per-coordinate steps, compiled (numba only; the parameter holders are
``olearn.optim``).  Each optimiser is written here once:

* ``prepare(lr, t, params) -> r``: what a step needs that is the same for every
  coordinate of a round (``lr`` the round's base rate, ``t`` the round, from 1): a
  tuple ``(lr, c1, c2)`` (Adam's bias corrections ``1 - beta_1^t``, ``1 - beta_2^t``;
  unused by the others), computed once a row, not once a coordinate;
* ``step(S, k, i, w, g, r, params) -> delta``: coordinate ``(k, i)`` (class row, column)
  with gradient ``g`` and true weight ``w``: update the optimiser's own state ``S`` (a
  tuple of its slot arrays, indexed ``[k, i]``) and return the change of ``w``.

A rule applies the deltas (``olearn.linear.ogd``: through the scaled, averaged weights
of ``olearn._compiled.averaging``).  ``MODES`` says how a rule must call each step:
``"row"``: the step is ``-lr g``, linear in ``g``, so a whole row's change is one
``add_row`` (SGD); ``"lazy"``: a coordinate with ``g = 0`` keeps its state and weight,
so only the row's non-zeros are stepped, O(non-zeros) (AdaGrad, COCOB); ``"dense"``:
a zero gradient still changes the coordinate (a decaying moment moves the weight), so
every coordinate is stepped every round, O(d) (momentum, RMSProp, Adam, AdamW; see each
step).  The rules that call these steps: ``olearn.linear.ogd`` (a weight matrix
``(K, d)``) and ``olearn.neural.mlp`` (each layer's weights, ``S`` that layer's slots).
"""
import math

from numba import njit


@njit(inline="always")
def plain(lr, t, params):
    """The round's constants of a step that needs only the rate."""
    return (lr, 1.0, 1.0)


@njit(inline="always")
def sgd_step(S, k, i, w, g, r, params):
    """Plain gradient descent, ``w -= lr g`` (the rate's schedule is the caller's)."""
    return -r[0] * g


@njit(inline="always")
def momentum_step(S, k, i, w, g, r, params):
    """Gradient descent with momentum (Polyak 1964, the heavy ball; Sutskever, Martens,
    Dahl and Hinton, ICML 2013, eq. (1)-(2)): the velocity ``m = mu m - lr g`` and
    ``w += m``; with Nesterov's accelerated gradient (their eq. (3)-(4) in the form of
    Bengio, Boulanger-Lewandowski and Pascanu 2013, eq. (7), which steps the weights
    themselves, not the look-ahead point) ``w += mu m - lr g`` with the new ``m``.
    scikit-learn's ``SGDOptimizer`` formulas, which ``olearn.neural``'s ``solver="sgd"``
    follows.  State ``S[0] = M``, the velocities."""
    M = S[0]
    v = params.momentum * M[k, i] - r[0] * g
    M[k, i] = v
    if params.nesterov != 0.0:
        return params.momentum * v - r[0] * g
    return v


@njit(inline="always")
def adagrad_move(G, k, i, g, lr, delta, scale):
    """AdaGrad's coordinate step, the one every AdaGrad of olearn runs (Duchi, Hazan and
    Singer, JMLR 12, 2011, eq. (7) with the diagonal ``H_t = delta I +
    diag(G_t)^(1/2)``): ``G += g^2``, ``H = scale sqrt(G) + delta``; returns the change
    ``-lr g / H`` of the weight and ``H`` (AdaFOBOS's l1 step divides by it too).
    ``scale`` is 1 but for the normalised form of NDAG (Ross, Mineiro and Langford 2013,
    the feature's largest magnitude ``s_i``, ``delta = 0``).  ``H = 0`` (``delta = 0`` and
    ``G`` underflowed to 0): no move."""
    G[k, i] += g * g
    den = scale * math.sqrt(G[k, i]) + delta
    if den > 0.0:
        return -lr * g / den, den
    return 0.0, den


@njit(inline="always")
def adagrad_step(S, k, i, w, g, r, params):
    """AdaGrad, diagonal (:func:`adagrad_move`): ``G += g^2``,
    ``w -= lr g / (delta + sqrt(G))``.  With ``delta = 0`` a coordinate whose ``G``
    underflows to 0 does not move."""
    return adagrad_move(S[0], k, i, g, r[0], params.delta, 1.0)[0]


@njit(inline="always")
def rmsprop_step(S, k, i, w, g, r, params):
    """RMSProp (Tieleman and Hinton, Coursera NN lecture 6e, 2012): ``v = rho v +
    (1 - rho) g^2``, ``w -= lr g / (sqrt(v) + epsilon)`` (the lecture divides by
    ``sqrt(v)`` alone; ``epsilon`` outside the root, as PyTorch and Keras, guards a
    coordinate not yet met)."""
    V = S[0]
    V[k, i] = params.rho * V[k, i] + (1.0 - params.rho) * g * g
    return -r[0] * g / (math.sqrt(V[k, i]) + params.epsilon)


@njit(inline="always")
def adam_prepare(lr, t, params):
    """Adam's bias corrections of round ``t``; with ``adam_reordered`` (the paper's
    Section 2 order) the rate ``alpha_t = alpha sqrt(1 - beta_2^t) / (1 - beta_1^t)``
    in their place."""
    c1 = 1.0 - params.beta_1 ** t
    if params.adam_reordered != 0.0:
        return (lr * math.sqrt(1.0 - params.beta_2 ** t) / c1, 1.0, 1.0)
    return (lr, c1, 1.0 - params.beta_2 ** t)


@njit(inline="always")
def adam_move(S, k, i, g, r, params):
    """Kingma and Ba (ICLR 2015), Algorithm 1: the moments and ``alpha m_hat /
    (sqrt(v_hat) + epsilon)``, with ``epsilon`` added to ``sqrt(v_hat)`` as in
    Algorithm 1 (PyTorch's form), not to ``sqrt(v)`` as in the paper's "more
    efficient" reordering of Section 2 (scikit-learn's and Keras's form), unless
    ``adam_reordered``: then ``alpha_t m / (sqrt(v) + epsilon)`` (``alpha_t`` from
    :func:`adam_prepare`), that reordering, whose ``epsilon`` is the paper's
    ``epsilon-hat``."""
    M = S[0]
    V = S[1]
    M[k, i] = params.beta_1 * M[k, i] + (1.0 - params.beta_1) * g
    V[k, i] = params.beta_2 * V[k, i] + (1.0 - params.beta_2) * g * g
    if params.adam_reordered != 0.0:
        return r[0] * M[k, i] / (math.sqrt(V[k, i]) + params.epsilon)
    return r[0] * (M[k, i] / r[1]) / (math.sqrt(V[k, i] / r[2]) + params.epsilon)


@njit(inline="always")
def adam_step(S, k, i, w, g, r, params):
    """Adam (Kingma and Ba 2015, Algorithm 1): ``w -= alpha m_hat / (sqrt(v_hat) +
    epsilon)``."""
    return -adam_move(S, k, i, g, r, params)


@njit(inline="always")
def adamw_step(S, k, i, w, g, r, params):
    """AdamW (Loshchilov and Hutter, ICLR 2019, Algorithm 2, line 12, with the
    schedule multiplier ``eta_t = 1``): ``w -= alpha m_hat / (sqrt(v_hat) + epsilon) +
    lambda w``, the decay decoupled from the gradient and not multiplied by the rate
    ``alpha`` (PyTorch's ``AdamW`` decays by ``lr lambda w``)."""
    return -(adam_move(S, k, i, g, r, params) + params.weight_decay * w)


@njit(inline="always")
def cocob_step(S, k, i, w, g, r, params):
    """COCOB-Backprop (Orabona and Tommasi, NIPS 2017, Algorithm 2) with ``w1 = 0``, the
    coin ``c = -g``: ``L = max(L, |c|)``, ``G += |c|``, ``R = max(R + w c, 0)``,
    ``theta += c``, ``w = theta / (L max(G + L, alpha L)) (L + R)``; state ``Q[k, i] =
    (L, G, R)``, ``T[k, i] = theta``.  No learning rate (``r`` is unused)."""
    Q = S[0]
    T = S[1]
    c = -g
    a = abs(c)
    if a > Q[k, i, 0]:
        Q[k, i, 0] = a
    Q[k, i, 1] += a
    Q[k, i, 2] = max(Q[k, i, 2] + w * c, 0.0)
    T[k, i] += c
    L = Q[k, i, 0]
    den = L * max(Q[k, i, 1] + L, params.cocob_alpha * L)
    if den > 0.0:  # underflows for gradients below about 1e-155
        return T[k, i] / den * (L + Q[k, i, 2]) - w
    return 0.0


@njit(inline="always")
def nag_step(S, k, i, w, g, r, params):
    """NAG's update (Ross, Mineiro and Langford, UAI 2013, Algorithm 2, the last line):
    ``G += g^2``, ``w -= r g / (s_i sqrt(G))`` with the feature's scale ``s_i = S[0][i]``
    and the round's normalised rate ``r = lr sqrt(t / N)`` (``olearn.linear.ogd``'s
    "normalized" mode sets the scales, ``N`` and the rate; ``S[1]`` is ``G``).  A
    coordinate whose ``G`` underflows to 0 does not move."""
    G = S[1]
    G[k, i] += g * g
    if G[k, i] > 0.0:
        return -r[0] * g / (S[0][i] * math.sqrt(G[k, i]))
    return 0.0


#: name -> (step, prepare, mode): what a rule needs of each optimiser (module docstring)
STEPS = {"sgd": (sgd_step, plain, "row"), "momentum": (momentum_step, plain, "dense"),
         "adagrad": (adagrad_step, plain, "lazy"),
         "rmsprop": (rmsprop_step, plain, "dense"), "adam": (adam_step, adam_prepare, "dense"),
         "adamw": (adamw_step, adam_prepare, "dense"), "cocob": (cocob_step, plain, "lazy"),
         "nag": (nag_step, plain, "normalized")}
