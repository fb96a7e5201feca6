"""Inline helpers of the second-order learners (``olearn.second_order``).

Every learner there keeps a mean ``W = state[0]`` of shape (K, d) and a covariance
``S = state[1]``, either full, shape (K, d, d), or diagonal, shape (K, d).  numba's type
dispatch on ``S.ndim`` picks the layout at compile time, so one rule serves both.

All the learners' covariance updates are rank-one updates of the precision,
``S_k^-1 <- S_k^-1 + c x x'`` with a learner-specific ``c >= 0``:

* full: ``S_k <- S_k - c / (1 + c x'S_k x) (S_k x)(S_k x)'`` (the matrix inversion lemma:
  no inverse is ever formed).  It is applied as ``S_k -= u u'`` with
  ``u = sqrt(c / (1 + c v)) S_k x``, so the two halves of ``S_k`` get bitwise the same
  products and ``S_k`` stays exactly symmetric without re-symmetrizing; the coefficient
  ``c / (1 + c v)`` has no cancellation.  Cost O(d nnz) for ``S_k x`` plus O(d^2).
* diagonal: the diagonal of the precision takes the update and the off-diagonal part
  is dropped (the diagonalization of Dredze, Crammer, Pereira ICML 2008 and of the
  AROW paper): ``S_k[i] <- S_k[i] / (1 + c S_k[i] x_i^2)`` for the row's non-zeros only,
  O(nnz).  This form has no subtraction, so it stays strictly positive without any
  floor (it reaches zero only if ``c S x^2`` overflows).  For one-hot rows it equals
  the full update exactly.

Multiclass (Crammer, Dredze, Kulesza, EMNLP 2009, single constraint, max-score): the
learner's binary rule runs on the joint vector ``f`` that holds ``x`` in block ``y``
and ``-x`` in block ``s`` (the top-scoring wrong class), so the margin is
``w_y.x - w_s.x`` and its variance ``x'S_y x + x'S_s x``; the means move by
``+alpha S_y x`` and ``-alpha S_s x``, and the covariance keeps one block per class:
the precision update ``c f f'`` is applied to the two diagonal blocks
(``S_y^-1 += c x x'``, ``S_s^-1 += c x x'``) and its cross-block part is dropped.
"""
import math

import numpy as np
from numba import njit
from numba.extending import overload

from .driver import top_wrong


def sigma_x(S, k, idx, val):
    """``S_k x``: full, a length-d vector; diagonal, the row's ``S_k[idx_j] val_j``."""


@overload(sigma_x)
def _sigma_x(S, k, idx, val):
    if S.ndim == 3:
        def impl(S, k, idx, val):
            d = S.shape[2]
            z = np.zeros(d)
            for j in range(idx.shape[0]):
                xj = val[j]
                if xj != 0.0:
                    row = S[k, idx[j]]          # S is symmetric: row idx_j = column idx_j
                    for i in range(d):
                        z[i] += xj * row[i]
            return z
    else:
        def impl(S, k, idx, val):
            z = np.empty(idx.shape[0])
            for j in range(idx.shape[0]):
                z[j] = S[k, idx[j]] * val[j]
            return z
    return impl


def x_dot(S, idx, val, z):
    """``x'z`` for a ``z`` from :func:`sigma_x` (``S`` only selects the layout)."""


@overload(x_dot)
def _x_dot(S, idx, val, z):
    if S.ndim == 3:
        def impl(S, idx, val, z):
            s = 0.0
            for j in range(idx.shape[0]):
                s += val[j] * z[idx[j]]
            return s
    else:
        def impl(S, idx, val, z):
            s = 0.0
            for j in range(idx.shape[0]):
                s += val[j] * z[j]
            return s
    return impl


def mean_cov_update(W, S, k, a, c, idx, val, z, v):
    """``W_k += a S_k x`` then ``S_k^-1 += c x x'`` (see the module docstring).

    ``z = S_k x`` and ``v = x'S_k x`` are the pre-update values from :func:`sigma_x`
    and :func:`x_dot`.
    """


@overload(mean_cov_update)
def _mean_cov_update(W, S, k, a, c, idx, val, z, v):
    if S.ndim == 3:
        def impl(W, S, k, a, c, idx, val, z, v):
            d = z.shape[0]
            for i in range(d):
                W[k, i] += a * z[i]
            if c > 0.0:
                g = math.sqrt(c / (1.0 + c * v))
                u = np.empty(d)
                for i in range(d):
                    u[i] = g * z[i]
                for i in range(d):
                    ui = u[i]
                    if ui != 0.0:
                        row = S[k, i]
                        for j in range(d):
                            row[j] -= ui * u[j]
    else:
        def impl(W, S, k, a, c, idx, val, z, v):
            for j in range(idx.shape[0]):
                i = idx[j]
                W[k, i] += a * z[j]
                if c > 0.0:
                    s = S[k, i]
                    S[k, i] = s / (1.0 + c * s * val[j] * val[j])
    return impl


@njit(inline="always")
def scale_all(S, f):
    """``S *= f`` over every class and entry (a global rescaling of the covariance)."""
    for k in range(S.shape[0]):
        S[k] *= f


# ---------------------------------------------------------------- classifier rules
# A second-order classifier supplies two small inline functions:
#   wants(params, m) -> bool : cheap test on the margin m alone (False: no update, and
#                              the O(d nnz) product S x is not even computed);
#   step(params, m, v, sw) -> (update, alpha, c) : its paper's formulas, given the margin
#                              m, its variance v and the sample weight; the mean moves by
#                              alpha (S x) along the label, and the precision gains c x x'.
# and calls cw_binary / cw_multiclass below from its driver rules.

@njit(inline="always")
def cw_binary(state, params, idx, val, y, sw, out, wants, step):
    """Binary rule: ``y`` in {-1, +1}, one row ``W[0]``, ``m = y w.x``."""
    if not sw > 0.0:
        return 0
    m = y * out[0]
    if not wants(params, m):
        return 0
    W = state[0]
    S = state[1]
    z = sigma_x(S, 0, idx, val)
    v = x_dot(S, idx, val, z)
    if not v > 0.0:
        return 0
    update, alpha, c = step(params, m, v, sw)
    if not update:
        return 0
    mean_cov_update(W, S, 0, alpha * y, c, idx, val, z, v)
    return 1


@njit(inline="always")
def cw_multiclass(state, params, idx, val, y, sw, out, seen, wants, step):
    """Multiclass rule (single constraint against the top-scoring wrong class ``s``)."""
    if not sw > 0.0:
        return 0
    yi = int(y)
    s = top_wrong(out, seen, yi)
    if s < 0:
        return 0
    m = out[yi] - out[s]
    if not wants(params, m):
        return 0
    W = state[0]
    S = state[1]
    zy = sigma_x(S, yi, idx, val)
    zs = sigma_x(S, s, idx, val)
    vy = x_dot(S, idx, val, zy)
    vs = x_dot(S, idx, val, zs)
    v = vy + vs
    if not v > 0.0:
        return 0
    update, alpha, c = step(params, m, v, sw)
    if not update:
        return 0
    mean_cov_update(W, S, yi, alpha, c, idx, val, zy, vy)
    mean_cov_update(W, S, s, -alpha, c, idx, val, zs, vs)
    return 1


@njit(inline="always")
def cw_alpha(m, v, phi, psi, zeta):
    """The exact CW / SCW-I step before clipping (Crammer, Dredze, Pereira NIPS 2008;
    Wang, Zhao, Hoi ICML 2012 eq. for alpha): ``(-m psi + sqrt(m^2 phi^4/4 + v phi^2
    zeta)) / (v zeta)``; positive exactly when ``m < phi sqrt(v)``."""
    return (-m * psi + math.sqrt(m * m * phi ** 4 / 4.0 + v * phi * phi * zeta)) / (v * zeta)


@njit(inline="always")
def cw_precision(alpha, v, phi):
    """Precision increment ``c = alpha phi / sqrt(u)`` of CW and SCW, with
    ``sqrt(u) = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v)) / 2`` computed without
    cancellation as ``2 v / (sqrt(alpha^2 v^2 phi^2 + 4 v) + alpha v phi)``.  In the
    papers' form the covariance update is ``S -= beta S x x'S`` with
    ``beta = alpha phi / (sqrt(u) + v alpha phi)``, which equals ``c / (1 + c v)``."""
    avp = alpha * v * phi
    sqrt_u = 2.0 * v / (math.sqrt(avp * avp + 4.0 * v) + avp)
    return alpha * phi / sqrt_u
