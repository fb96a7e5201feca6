"""Inline helpers of the second-order learners (``olearn.second_order``).

Every learner there keeps a mean ``W = state[0]`` of shape (K, d) and a covariance
``state[1]`` per class, in one of two layouts; numba's type dispatch on its ``ndim``
picks the code at compile time, so one rule serves both.  The full layout adds a
scratch ``B = state[2]`` of shape (2, d) for the vectors ``L'x`` of the current row
(allocating them costs more than the update itself at d = 22):

* full, ``L`` of shape (K, d, d): a square root of the covariance, ``Sigma_k = L_k L_k'``
  (``sqrt(sigma0) I`` at start).  ``Sigma`` is then symmetric positive semi-definite by
  construction, whatever the rounding: the learners whose precision increment grows
  with ``v`` (NHERD: ``C (2 + C v)``; CW: about ``(m phi / v)^2``) shrink ``Sigma``
  along ``x`` by factors that float64 cannot resolve in ``Sigma`` itself on badly
  scaled data (features 1e6 apart give ``c v`` near 1e24), while the factor needs only
  their square root.
* diagonal, ``S`` of shape (K, d): the variances.

All the learners' covariance updates are rank-one updates of the precision,
``Sigma_k^-1 <- Sigma_k^-1 + c x x'`` with a learner-specific ``c >= 0``:

* full: with ``b = L'x``, ``v = b'b = x'Sigma x`` and ``s = sqrt(1 + c v)``,
  ``L <- L (I - g b b')`` where ``g = (1 - 1/s) / v = c / (s (s + 1))`` (no
  cancellation), which gives ``Sigma - c/(1 + c v) Sigma x x' Sigma`` (the matrix
  inversion lemma; no inverse is formed).  One pass computes ``b`` (O(d nnz)); a
  second, fused pass computes each ``z_i = (Sigma x)_i = L_i . b``, moves the mean by
  ``a z_i`` and updates row ``i`` of ``L`` while it is in cache: one read of ``L`` for
  ``b`` and one read and one write for the update, O(d^2).  ``Sigma x`` is never stored.
* diagonal (no scratch: ``Sigma x`` is ``S_k[idx_j] x_j``, recomputed where used): the
  diagonal of the precision takes the update and the off-diagonal part
  is dropped (the diagonalization of Dredze, Crammer, Pereira ICML 2008 and of the
  AROW paper): ``S_k[i] <- S_k[i] / (1 + c S_k[i] x_i^2)`` for the row's non-zeros only,
  O(nnz), with no subtraction.  For one-hot rows it equals the full update exactly.
  It can reach zero only by underflow, which CW's exact update does on noisy data (it
  shrinks ``v`` roughly to ``v^2 / m^2`` per update): the result is kept at least
  ``VAR_FLOOR`` (1e-300), a bound no other learner here comes near.

Multiclass (Crammer, Dredze, Kulesza, EMNLP 2009, single constraint, max-score): the
learner's binary rule runs on the joint vector ``f`` that holds ``x`` in block ``y``
and ``-x`` in block ``s`` (the top-scoring wrong class), so the margin is
``w_y.x - w_s.x`` and its variance ``x'Sigma_y x + x'Sigma_s x``; the means move by
``+alpha Sigma_y x`` and ``-alpha Sigma_s x``, and the covariance keeps one block per
class: the precision update ``c f f'`` is applied to the two diagonal blocks
(``Sigma_y^-1 += c x x'``, ``Sigma_s^-1 += c x x'``) and its cross-block part is dropped.
"""
import math

from numba import njit
from numba.extending import overload

from .driver import top_wrong

VAR_FLOOR = 1e-300


def row_buffer(state, j):
    """Row ``j`` of the scratch ``B = state[2]`` (full layout; the diagonal layout needs
    none and gets an unused placeholder)."""


@overload(row_buffer, inline="always")
def _row_buffer(state, j):
    if state.types[1].ndim == 3:
        return lambda state, j: state[2][j]
    return lambda state, j: state[0][0]


def cov_x(S, k, idx, val, buf):
    """Full: ``b = L_k'x``, written into ``buf`` (length d) and returned; diagonal:
    nothing to precompute (``val`` is returned)."""


@overload(cov_x)
def _cov_x(S, k, idx, val, buf):
    if S.ndim == 3:
        def impl(S, k, idx, val, buf):
            d = S.shape[2]
            b = buf[:d]
            for i in range(d):
                b[i] = 0.0
            for j in range(idx.shape[0]):
                xj = val[j]
                if xj != 0.0:
                    r = idx[j]
                    for i in range(d):          # (indexing S directly, not through a
                        b[i] += xj * S[k, r, i]  # row view, lets LLVM vectorize)
            return b
    else:
        def impl(S, k, idx, val, buf):
            return val
    return impl


def quad(S, k, idx, val, t):
    """``v = x'Sigma_k x``, with ``t = cov_x(...)`` for the full layout."""


@overload(quad)
def _quad(S, k, idx, val, t):
    if S.ndim == 3:
        def impl(S, k, idx, val, t):
            v = 0.0
            for i in range(t.shape[0]):
                v += t[i] * t[i]
            return v
    else:
        def impl(S, k, idx, val, t):
            v = 0.0
            for j in range(idx.shape[0]):
                v += val[j] * val[j] * S[k, idx[j]]
            return v
    return impl


def mean_cov_update(W, S, k, a, c, idx, val, t, v):
    """``W_k += a Sigma_k x`` then ``Sigma_k^-1 += c x x'`` (see the module docstring);
    ``t`` and ``v`` are the pre-update values from :func:`cov_x` and :func:`quad`."""


# reassociation lets LLVM vectorize the dot products of the fused pass (2x at d = 300);
# the order of the sums is still fixed by the code, the same for dense and CSR rows
@overload(mean_cov_update, jit_options={"fastmath": {"reassoc", "contract"}})
def _mean_cov_update(W, S, k, a, c, idx, val, t, v):
    if S.ndim == 3:
        def impl(W, S, k, a, c, idx, val, t, v):
            d = t.shape[0]
            g = 0.0
            if c > 0.0:
                s = math.sqrt(1.0 + c * v)
                g = c / (s * (s + 1.0))
            for i in range(d):
                zi = 0.0
                for j in range(d):
                    zi += S[k, i, j] * t[j]
                W[k, i] += a * zi
                h = g * zi
                if h != 0.0:
                    for j in range(d):
                        S[k, i, j] -= h * t[j]
    else:
        def impl(W, S, k, a, c, idx, val, t, v):
            for j in range(idx.shape[0]):
                i = idx[j]
                s = S[k, i]
                W[k, i] += a * s * val[j]
                if c > 0.0:
                    S[k, i] = max(s / (1.0 + c * s * val[j] * val[j]), VAR_FLOOR)
    return impl


def scale_cov(S, f):
    """``Sigma *= f`` for every class (full: ``L *= sqrt(f)``)."""


@overload(scale_cov)
def _scale_cov(S, f):
    if S.ndim == 3:
        def impl(S, f):
            g = math.sqrt(f)
            for k in range(S.shape[0]):
                S[k] *= g
    else:
        def impl(S, f):
            for k in range(S.shape[0]):
                S[k] *= f
    return impl


# ---------------------------------------------------------------- classifier rules
# A second-order classifier supplies two small inline functions:
#   wants(params, m) -> bool : cheap test on the margin m alone (False: no update, and
#                              the O(d nnz) product S x is not even computed);
#   step(params, m, v, sw) -> (update, alpha, c) : its paper's formulas, given the margin
#                              m, its variance v and the sample weight; the mean moves by
#                              alpha (Sigma x) along the label, the precision gains c x x'.
#                              A non-finite alpha or c (only CW's exact step, once its
#                              variance has collapsed) skips the update.
# and calls cw_binary / cw_multiclass below from its driver rules.

@njit(inline="always")
def cw_binary(state, params, idx, val, y, sw, out, wants, step):
    """Binary rule: ``y`` in {-1, +1}, one row ``W[0]``, ``m = y w.x``."""
    if not sw > 0.0:
        return 0
    m = y * out[0]
    if not wants(params, m):
        return 0
    S = state[1]
    t = cov_x(S, 0, idx, val, row_buffer(state, 0))
    v = quad(S, 0, idx, val, t)
    if not v > 0.0:
        return 0
    update, alpha, c = step(params, m, v, sw)
    if not (update and math.isfinite(alpha) and math.isfinite(c)):
        return 0
    mean_cov_update(state[0], S, 0, alpha * y, c, idx, val, t, v)
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
    S = state[1]
    ty = cov_x(S, yi, idx, val, row_buffer(state, 0))
    ts = cov_x(S, s, idx, val, row_buffer(state, 1))
    vy = quad(S, yi, idx, val, ty)
    vs = quad(S, s, idx, val, ts)
    v = vy + vs
    if not v > 0.0:
        return 0
    update, alpha, c = step(params, m, v, sw)
    if not (update and math.isfinite(alpha) and math.isfinite(c)):
        return 0
    mean_cov_update(state[0], S, yi, alpha, c, idx, val, ty, vy)
    mean_cov_update(state[0], S, s, -alpha, c, idx, val, ts, vs)
    return 1


@njit(inline="always")
def cw_alpha(m, v, phi, psi, zeta):
    """The exact CW / SCW-I step before clipping (Crammer, Dredze, Pereira NIPS 2008;
    Wang, Zhao, Hoi ICML 2012 eq. for alpha): ``(-m psi + sqrt(m^2 phi^4/4 + v phi^2
    zeta)) / (v zeta)``; positive exactly when ``m < phi sqrt(v)``."""
    phi2 = phi * phi
    return (-m * psi + math.sqrt(0.25 * m * m * phi2 * phi2 + v * phi2 * zeta)) / (v * zeta)


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


def cw_rules(wants, step):
    """The binary and multiclass rules of a confidence-weighted learner from its test
    ``wants(params, m)`` and its step ``step(params, m, v, sw)``, as keyword arguments
    of ``declare`` (inlined into the learner's generated entry points)."""
    @njit(inline="always")
    def binary(state, params, idx, val, y, sw, out, seen):
        return cw_binary(state, params, idx, val, y, sw, out, wants, step)

    @njit(inline="always")
    def multiclass(state, params, idx, val, y, sw, out, seen):
        return cw_multiclass(state, params, idx, val, y, sw, out, seen, wants, step)

    return {"binary": binary, "multiclass": multiclass}
