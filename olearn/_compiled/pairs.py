"""Rows of a weight matrix against one CSR row with a constant feature in column 0 (the
layout of the pair-step learners: ``olearn.multilabel`` ranking, ``olearn.multiclass``
cost-sensitive PA); numpy + numba only, inlined into their passes."""
from numba import njit


@njit(inline="always")
def row_sq(constant, data, a0, a1):
    """``||(constant, x)||^2`` of the row ``data[a0:a1]``."""
    sq = constant * constant
    for t in range(a0, a1):
        sq += data[t] * data[t]
    return sq


@njit(inline="always")
def row_dot(W, k, constant, indices, data, a0, a1):
    """``W[k] . (constant, x)`` (x's column j is W's column j + 1)."""
    acc = W[k, 0] * constant
    for t in range(a0, a1):
        acc += W[k, indices[t] + 1] * data[t]
    return acc


@njit(inline="always")
def move_pair(W, a, b, tau, constant, indices, data, a0, a1):
    """``W[a] += tau (constant, x)``, ``W[b] -= tau (constant, x)``."""
    W[a, 0] += tau * constant
    W[b, 0] -= tau * constant
    for t in range(a0, a1):
        W[a, indices[t] + 1] += tau * data[t]
        W[b, indices[t] + 1] -= tau * data[t]
