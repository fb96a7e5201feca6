"""Perceptron (Rosenblatt 1958), with an optional margin.

Binary: predict sign(w.x); when ``y (w.x) <= margin`` update ``w += eta y x``
(``margin = 0``: the classic mistake-driven Perceptron; ``margin > 0``: the
margin Perceptron, which also updates on correct but unconfident predictions).

Multiclass (Crammer and Singer, JMLR 2003, max-score form): with ``s`` the
highest-scoring wrong class among those seen and ``m = w_y.x - w_s.x``, when
``m <= margin`` update ``w_y += eta x`` and ``w_s -= eta x``.

A sample weight multiplies the step.  Novikoff (1962): on data separable with margin
gamma inside a ball of radius R, the classic Perceptron makes at most (R/gamma)^2
mistakes.
"""
from numba import njit

from ..base import OnlineClassifier
from ..kernels.driver import (BINARY, MULTICLASS, axpy, linear_scores, online_pass,
                              sq_norm, top_wrong)
from ..registry import register


@njit(inline="always")
def _binary_rule(state, params, idx, val, y, sw, out, seen):
    eta, margin = params
    if y * out[0] > margin or sq_norm(val) == 0.0:
        return 0
    axpy(state[0], 0, eta * sw * y, idx, val)
    return 1


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    eta, margin = params
    yi = int(y)
    s = top_wrong(out, seen, yi)
    if s < 0 or out[yi] - out[s] > margin or sq_norm(val) == 0.0:
        return 0
    axpy(state[0], yi, eta * sw, idx, val)
    axpy(state[0], s, -eta * sw, idx, val)
    return 1


@njit(cache=True)
def _binary(X, y, sw, state, params, seen, scores, pred):
    return online_pass(X, y, sw, state, params, seen, scores, pred, BINARY, linear_scores,
                       _binary_rule)


@njit(cache=True)
def _multiclass(X, y, sw, state, params, seen, scores, pred):
    return online_pass(X, y, sw, state, params, seen, scores, pred, MULTICLASS,
                       linear_scores, _multiclass_rule)


class Perceptron(OnlineClassifier):
    """Perceptron: ``w += eta y x`` whenever ``y w.x <= margin``.

    Parameters
    ----------
    eta : float, step size (> 0).
    margin : float, update when the margin is at most this (>= 0).
    fit_intercept, epochs, shuffle, random_state : see ``OnlineLearner``.
    """
    _kernels = {BINARY: _binary, MULTICLASS: _multiclass}

    def __init__(self, eta=1.0, margin=0.0, fit_intercept=True, epochs=1, shuffle=False,
                 random_state=None):
        self.eta = eta
        self.margin = margin
        self.fit_intercept = fit_intercept
        self.epochs = epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        if not self.eta > 0:
            raise ValueError(f"eta must be > 0, got {self.eta!r}")
        if not self.margin >= 0:
            raise ValueError(f"margin must be >= 0, got {self.margin!r}")

    def _kernel_params(self):
        return (self.eta, self.margin)


register("perceptron", Perceptron)
