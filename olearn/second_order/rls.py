"""Recursive least squares (the seed lecture notes' "from batch to online least squares":
Rosasco, MIT 9.520, online learning class; Haykin, Adaptive Filter Theory, ch. 13).

Weights ``w`` (0 at start) and ``P`` (``I / lam`` at start), the inverse of the
regularized, exponentially weighted covariance ``f^t lam I + sum_s f^(t-s) x_s x_s'``.
For each row, with residual ``e = y - w.x`` (``f`` the forgetting factor)::

    k  = P x / (f + x'P x)                (the gain, by the matrix inversion lemma)
    w += k e
    P  = (P - k x'P) / f                  (i.e. P^-1 <- f P^-1 + x x')

With ``f = 1`` the weights after every prefix of the stream are exactly the ridge
solution ``(X'X + lam I)^-1 X'y`` of that prefix (``fit_intercept`` adds a constant
column to ``X``, which the ridge penalty then includes).  With ``f < 1`` old rows are
forgotten exponentially (drifting streams); directions that no row excites then grow
as ``f^-t`` in ``P`` (the classic RLS wind-up), so use ``f`` close to 1.

Diagonal covariance: ``P_ii <- P_ii / (f + P_ii x_i^2)`` for the row's non-zeros only
(forgetting applies to the coordinates a row touches, which keeps the update O(nnz) and
avoids wind-up of absent features; it equals the diagonal of the full recursion on
rows without zeros).  A sample weight ``h`` weights the row's squared error
(weighted least squares: ``P^-1 <- f P^-1 + h x x'``).
"""
import numbers

from numba import njit, types
from numba.extending import overload

from ..base import OnlineRegressor
from .._compiled.driver import linear_scores
from .._compiled.second_order import cov_x, mean_cov_update, quad, row_buffer, scale_cov
from .._compiled.declare import declare
from .._params import store_params
from ._base import COVARIANCE_DOC, SecondOrderMixin, check_positive


def _forget(S, idx, val, f):
    """``P /= f``: full, all of P; diagonal, only the coordinates where the row is non-zero."""


@overload(_forget, inline="always")
def _forget_impl(S, idx, val, f):
    if isinstance(S, types.Array) and S.ndim == 3:
        def impl(S, idx, val, f):
            scale_cov(S, 1.0 / f)
    else:
        def impl(S, idx, val, f):
            g = 1.0 / f
            for j in range(idx.shape[0]):
                if val[j] != 0.0:
                    S[0, idx[j]] *= g
    return impl


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    f = params.forgetting
    if not sw > 0.0:
        return 0
    W = state[0]
    S = state[1]
    t = cov_x(S, 0, idx, val, row_buffer(state, 0))
    v = quad(S, 0, idx, val, t)
    if v > 0.0:
        e = y - out[0]
        mean_cov_update(W, S, 0, sw * e / (f + sw * v), sw / f, idx, val, t, v)
    if f != 1.0:
        _forget(S, idx, val, f)
    return 1 if v > 0.0 else 0


KERNELS = declare("second_order.rls", params=("forgetting",), score=linear_scores,
                  regression=_rule)


class RLSRegressor(SecondOrderMixin, OnlineRegressor):
    __doc__ = f"""Recursive least squares (ridge regression, updated row by row).

    Parameters
    ----------
    lam : float > 0, ridge penalty (``P = I / lam`` at start).
    forgetting : float in (0, 1], exponential forgetting factor (1: plain RLS = ridge).
    {COVARIANCE_DOC}

    Fitted: ``coef_``, ``intercept_``, ``cov_`` (the matrix ``P`` over the features).
    """
    _kernels = KERNELS

    @property
    def _expected_failed_checks(self):
        """Without forgetting (1, the default) the sample-weight checks every online model
        declares pass (None removes them): least squares, a row of weight h is h copies of
        it; with forgetting a copy is forgotten once more than the weighted row."""
        return dict.fromkeys(
            ("check_sample_weight_equivalence_on_dense_data",
         "check_sample_weight_equivalence_on_sparse_data"), None) if self.forgetting == 1.0 else {}

    def __init__(self, lam=1.0, forgetting=1.0, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    @property
    def _sigma0(self):
        return 1.0 / float(self.lam)

    def _check_hyper(self):
        check_positive("lam", self.lam)
        f = self.forgetting
        if not (isinstance(f, numbers.Real) and 0.0 < f <= 1.0):
            raise ValueError(f"forgetting must be a number in (0, 1], got {f!r}")

    def _kernel_params(self):
        return {"forgetting": self.forgetting}
