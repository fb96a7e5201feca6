"""Losses and step-size schedules of the first-order linear learners (inline helpers).

A loss enters a rule through its gradient with respect to the scores: a function
``grad(A, seen, y, eps)`` that reads the raw scores ``r_k = A[k, R_]`` of one row
(``olearn._compiled.averaging``), writes ``g_k = dL/dr_k`` into ``A[k, G_]`` and returns
1 when some ``g_k`` is not zero.  A learner declares its rule once with ``GRADS``
(``olearn._compiled.declare``); each loss is bound into it when its kernel is built,
never chosen by a switch per row.

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

#: the scratch columns of every loss-based state (``A`` of ``olearn._compiled.averaging``
#: and of ``olearn._compiled.lazy``): per class row, the raw score and its gradient
R_, G_ = 0, 1


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
def margin_grad(A, seen, y, dz):
    """Binary: ``g = y phi'(y r)``; multiclass: the max-score margin form."""
    if A.shape[0] == 1:
        d = dz(y * A[0, R_])
        A[0, G_] = y * d
        return 1 if d != 0.0 else 0
    for k in range(A.shape[0]):
        A[k, G_] = 0.0
    yi = int(y)
    s = top_wrong(A[:, R_], seen, yi)
    if s < 0:
        return 0
    d = dz(A[yi, R_] - A[s, R_])
    A[yi, G_] = d
    A[s, G_] = -d
    return 1 if d != 0.0 else 0


@njit(inline="always")
def softmax_grad(A, seen, y):
    """``g_k = p_k - [k = y]`` over the seen classes (0 for the others)."""
    yi = int(y)
    top = A[yi, R_]
    for k in range(A.shape[0]):
        if seen[k] and A[k, R_] > top:
            top = A[k, R_]
    z = 0.0
    for k in range(A.shape[0]):
        if seen[k]:
            A[k, G_] = math.exp(A[k, R_] - top)
            z += A[k, G_]
        else:
            A[k, G_] = 0.0
    any_ = 0
    for k in range(A.shape[0]):
        A[k, G_] /= z
        if k == yi:
            A[k, G_] -= 1.0
        if A[k, G_] != 0.0:
            any_ = 1
    return any_


@njit(inline="always")
def hinge_grad(A, seen, y, eps):
    return margin_grad(A, seen, y, hinge_dz)


@njit(inline="always")
def squared_hinge_grad(A, seen, y, eps):
    return margin_grad(A, seen, y, squared_hinge_dz)


@njit(inline="always")
def logistic_grad(A, seen, y, eps):
    if A.shape[0] == 1:
        return margin_grad(A, seen, y, logistic_dz)
    return softmax_grad(A, seen, y)


@njit(inline="always")
def perceptron_grad(A, seen, y, eps):
    return margin_grad(A, seen, y, perceptron_dz)


@njit(inline="always")
def modified_huber_grad(A, seen, y, eps):
    return margin_grad(A, seen, y, modified_huber_dz)


# ------------------------------------------------------------------ regression losses
@njit(inline="always")
def squared_grad(A, seen, y, eps):
    A[0, G_] = A[0, R_] - y
    return 1 if A[0, G_] != 0.0 else 0


@njit(inline="always")
def absolute_grad(A, seen, y, eps):
    e = A[0, R_] - y
    A[0, G_] = 1.0 if e > 0.0 else (-1.0 if e < 0.0 else 0.0)
    return 1 if A[0, G_] != 0.0 else 0


@njit(inline="always")
def epsilon_insensitive_grad(A, seen, y, eps):
    e = A[0, R_] - y
    A[0, G_] = 1.0 if e > eps else (-1.0 if e < -eps else 0.0)
    return 1 if A[0, G_] != 0.0 else 0


@njit(inline="always")
def huber_grad(A, seen, y, eps):
    e = A[0, R_] - y
    A[0, G_] = eps if e > eps else (-eps if e < -eps else e)
    return 1 if A[0, G_] != 0.0 else 0


#: every loss by name: the gradient a learner declares its rule with (``declare(...,
#: losses=GRADS)``); its kernels for one loss are ``KERNELS.loss(name)``
GRADS = {"hinge": hinge_grad, "squared_hinge": squared_hinge_grad,
         "logistic": logistic_grad, "perceptron": perceptron_grad,
         "modified_huber": modified_huber_grad, "squared": squared_grad,
         "absolute": absolute_grad, "epsilon_insensitive": epsilon_insensitive_grad,
         "huber": huber_grad}


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
