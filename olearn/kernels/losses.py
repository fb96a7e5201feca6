"""Losses and step-size schedules of the first-order linear learners (inline helpers).

A loss enters a rule through its gradient with respect to the scores: a function
``grad(r, seen, y, g, eps)`` that writes ``g[k] = dL/dr_k`` for the raw scores ``r``
of one row and returns 1 when some ``g[k]`` is not zero.  Each learner file binds
one such function per loss into its own rule and its own ``cache=True`` entry
points, so the loss is chosen when the kernel is built, never by a switch per row.

Classification (binary: one score, ``y`` in {-1, +1}; the loss is ``phi(z)`` of the
margin ``z = y r``, so ``dL/dr = y phi'(z)``):

==============  ==========================================  =====================
name            phi(z)                                       phi'(z)
==============  ==========================================  =====================
hinge           max(0, 1 - z)                                -1 if z <= 1 else 0
squared_hinge   max(0, 1 - z)^2                              -2 max(0, 1 - z)
logistic        log(1 + exp(-z))                             -1 / (1 + exp(z))
perceptron      max(0, -z)                                   -1 if z <= 0 else 0
modified_huber  -4 z if z < -1, max(0, 1 - z)^2 otherwise    -4, -2 (1 - z) or 0
==============  ==========================================  =====================

At the kinks of "hinge" and "perceptron" the subgradient taken is -1 (as in
scikit-learn's SGD and in the Perceptron, which updates when ``y w.x <= 0``).

Multiclass (K scores, ``y`` the class index; only classes seen so far count):
the margin losses use the max-score margin ``m = r_y - r_s`` against the
highest-scoring wrong class ``s`` (Crammer and Singer 2001): ``g_y = phi'(m)``,
``g_s = -phi'(m)``; "logistic" becomes the softmax (multinomial logistic) loss
``-log p_y`` with ``p = softmax(r)``: ``g_k = p_k - [k = y]``.  With two classes the
softmax loss of ``(w_0, w_1)`` is the logistic loss of ``w_1 - w_0``.

Regression (one score, residual ``e = r - y``; ``eps`` is the loss's width):
"squared" ``e^2 / 2`` (gradient ``e``), "absolute" ``|e|`` (``sign e``),
"epsilon_insensitive" ``max(0, |e| - eps)`` (``sign e`` beyond ``eps``), "huber"
``e^2 / 2`` within ``eps`` and ``eps |e| - eps^2 / 2`` beyond (``e`` clipped to
``[-eps, eps]``).

Schedules (``t`` is the round, from 1): "constant" ``eta``, "invsqrt"
``eta / sqrt(t)``, "power" ``eta t^-power``, "optimal" ``1 / (alpha (t0 + t - 1))``
(Bottou's rate for an L2 term ``alpha``), "adagrad" (``eta``, per-coordinate scaling
done by the rule).  The schedule is a scalar switch once per row.
"""
import math

from numba import njit

from .driver import top_wrong

CLASSIFICATION_LOSSES = ("hinge", "squared_hinge", "logistic", "perceptron",
                         "modified_huber")
REGRESSION_LOSSES = ("squared", "absolute", "epsilon_insensitive", "huber")
SCHEDULES = ("constant", "invsqrt", "power", "optimal", "adagrad")
CONSTANT, INVSQRT, POWER, OPTIMAL, ADAGRAD = 0.0, 1.0, 2.0, 3.0, 4.0


# ------------------------------------------------------------------ margin losses phi'(z)
@njit(inline="always")
def hinge_dz(z):
    return -1.0 if z <= 1.0 else 0.0


@njit(inline="always")
def squared_hinge_dz(z):
    return -2.0 * (1.0 - z) if z < 1.0 else 0.0


@njit(inline="always")
def logistic_dz(z):
    if z > 0.0:
        e = math.exp(-z)
        return -e / (1.0 + e)
    return -1.0 / (1.0 + math.exp(z))


@njit(inline="always")
def perceptron_dz(z):
    return -1.0 if z <= 0.0 else 0.0


@njit(inline="always")
def modified_huber_dz(z):
    if z >= 1.0:
        return 0.0
    if z >= -1.0:
        return -2.0 * (1.0 - z)
    return -4.0


@njit(inline="always")
def margin_grad(r, seen, y, g, dz):
    """Binary: ``g[0] = y phi'(y r)``; multiclass: the max-score margin form."""
    if r.shape[0] == 1:
        d = dz(y * r[0])
        g[0] = y * d
        return 1 if d != 0.0 else 0
    g[:] = 0.0
    yi = int(y)
    s = top_wrong(r, seen, yi)
    if s < 0:
        return 0
    d = dz(r[yi] - r[s])
    g[yi] = d
    g[s] = -d
    return 1 if d != 0.0 else 0


@njit(inline="always")
def softmax_grad(r, seen, y, g):
    """``g_k = p_k - [k = y]`` over the seen classes (0 for the others)."""
    yi = int(y)
    top = r[yi]
    for k in range(r.shape[0]):
        if seen[k] and r[k] > top:
            top = r[k]
    z = 0.0
    for k in range(r.shape[0]):
        if seen[k]:
            g[k] = math.exp(r[k] - top)
            z += g[k]
        else:
            g[k] = 0.0
    any_ = 0
    for k in range(r.shape[0]):
        g[k] /= z
        if k == yi:
            g[k] -= 1.0
        if g[k] != 0.0:
            any_ = 1
    return any_


@njit(inline="always")
def hinge_grad(r, seen, y, g, eps):
    return margin_grad(r, seen, y, g, hinge_dz)


@njit(inline="always")
def squared_hinge_grad(r, seen, y, g, eps):
    return margin_grad(r, seen, y, g, squared_hinge_dz)


@njit(inline="always")
def logistic_grad(r, seen, y, g, eps):
    if r.shape[0] == 1:
        return margin_grad(r, seen, y, g, logistic_dz)
    return softmax_grad(r, seen, y, g)


@njit(inline="always")
def perceptron_grad(r, seen, y, g, eps):
    return margin_grad(r, seen, y, g, perceptron_dz)


@njit(inline="always")
def modified_huber_grad(r, seen, y, g, eps):
    return margin_grad(r, seen, y, g, modified_huber_dz)


# ------------------------------------------------------------------ regression losses
@njit(inline="always")
def squared_grad(r, seen, y, g, eps):
    g[0] = r[0] - y
    return 1 if g[0] != 0.0 else 0


@njit(inline="always")
def absolute_grad(r, seen, y, g, eps):
    e = r[0] - y
    g[0] = 1.0 if e > 0.0 else (-1.0 if e < 0.0 else 0.0)
    return 1 if g[0] != 0.0 else 0


@njit(inline="always")
def epsilon_insensitive_grad(r, seen, y, g, eps):
    e = r[0] - y
    g[0] = 1.0 if e > eps else (-1.0 if e < -eps else 0.0)
    return 1 if g[0] != 0.0 else 0


@njit(inline="always")
def huber_grad(r, seen, y, g, eps):
    e = r[0] - y
    g[0] = eps if e > eps else (-eps if e < -eps else e)
    return 1 if g[0] != 0.0 else 0


# ------------------------------------------------------------------ schedules
@njit(inline="always")
def step_size(kind, eta, power, alpha, t0, t):
    """The step of round ``t`` (>= 1) for a schedule code (see the module docstring)."""
    if kind == INVSQRT:
        return eta / math.sqrt(t)
    if kind == POWER:
        return eta * t ** -power
    if kind == OPTIMAL:
        return 1.0 / (alpha * (t0 + t - 1.0))
    return eta
