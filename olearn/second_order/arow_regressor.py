"""AROW regression (Crammer, Kulesza, Dredze, NIPS 2009 / Mach. Learn. 2013; the seed
book's section 31.3.3 and Fig. 31.9).

Squared loss on the mean ``mu`` (0 at start), covariance ``Sigma`` (I at start); for
every row, with ``beta = x'Sigma x + r``::

    mu    += (y - mu.x) Sigma x / beta
    Sigma -= Sigma x x' Sigma / beta      (i.e. Sigma^-1 += x x' / r)

This is recursive least squares with ``P = Sigma / r``: AROW regression with
``Sigma = I`` at start equals ``RLSRegressor(lam=r)`` (tested).  A sample weight ``h``
weights the squared loss (``r`` becomes ``r / h``).
"""
from numba import njit

from ..base import OnlineRegressor
from .._compiled.driver import linear_scores
from .._compiled.second_order import cov_x, mean_cov_update, quad, row_buffer
from .._compiled.declare import declare
from .arow import DOC, AROWModel


@njit(inline="always")
def _rule(state, params, idx, val, y, sw, out, seen):
    if not sw > 0.0:
        return 0
    r = params.r / sw
    S = state[1]
    t = cov_x(S, 0, idx, val, row_buffer(state, 0))
    v = quad(S, 0, idx, val, t)
    if not v > 0.0:
        return 0
    mean_cov_update(state[0], S, 0, (y - out[0]) / (v + r), 1.0 / r, idx, val, t, v)
    return 1


KERNELS = declare("second_order.arow_regressor", params=("r",), score=linear_scores,
                  regression=_rule)


class AROWRegressor(AROWModel, OnlineRegressor):
    __doc__ = DOC.format(what="regressor")
    _kernels = KERNELS
    # passes the sample-weight checks every online model declares (None removes them):
    # recursive least squares, a row of weight h adds h x x' / r to Sigma^-1 as h copies do
    _expected_failed_checks = dict.fromkeys(
        ("check_sample_weight_equivalence_on_dense_data",
         "check_sample_weight_equivalence_on_sparse_data"), None)
