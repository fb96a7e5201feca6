"""Kernel recursive least squares with approximate-linear-dependence sparsification
(Engel, Mannor, Meir, "The Kernel Recursive Least-Squares Algorithm", IEEE Trans.
Signal Processing 52(8), 2004, Table 1).

A dictionary ``D`` of support vectors, its inverse Gram matrix ``K~^{-1}``, the matrix
``P`` and the coefficients ``alpha`` (``f(x) = sum_j alpha_j K(x~_j, x)``).  For each
example: ``a = K~^{-1} k~(x)`` and the ALD test ``delta = K(x, x) - k~(x) . a`` (the
squared distance of ``phi(x)`` to the span of the dictionary, eq. 11).  With
``e = y - f(x)``:

* ``delta > nu``: ``x`` joins; ``K~^{-1} <- [[delta K~^{-1} + a a', -a], [-a', 1]] /
  delta``, ``P <- diag(P, 1)``, ``alpha <- [alpha - a e / delta; e / delta]``;
* otherwise: ``q = P a / (1 + a' P a)``, ``P <- P - q a' P``, ``alpha <- alpha +
  K~^{-1} q e``.

With ``nu = 0`` every example that is not exactly dependent joins and the model is the
least-squares interpolant on the dictionary (kernel ridge regression with a vanishing
ridge).  Cost per row O(m^2) for a dictionary of m vectors (the ALD test bounds m).
No forgetting and no regularisation, as in the paper's Table 1; the first example
starts the dictionary with ``K~^{-1} = 1 / K(x, x)``, ``alpha = y / K(x, x)``.  A sample
weight of 0 skips a row; other weights are not used (the paper's least squares are
unweighted).
"""
from numba import njit

from ..base import OnlineRegressor
from .._params import store_params
from .._validation import check_number
from . import _support as S
from ._base import KERNEL_DOC, SupportModel


@njit(inline="always")
def _rule(alpha, kinv, pmat, kv, n, kxx, out, y, w, task, seen, params, coefs, dvec):
    """Table 1 for one row (``olearn.kernel._support._krls``); a row of weight 0 or with
    ``K(x, x) = 0`` is skipped."""
    for k in range(coefs.shape[0]):
        coefs[k] = 0.0
    if not (w > 0.0 and kxx != 0.0):
        return False, False, kinv, pmat
    add, kinv, pmat = S.krls_step(alpha, kinv, pmat, kv, n, kxx, y - out[0], params.nu,
                                  dvec, coefs)
    return True, add, kinv, pmat


EXPANSION = S.declare_expansion("kernel.krls", _rule, ("nu",))


class KernelRLSRegressor(SupportModel, OnlineRegressor):
    __doc__ = f"""Kernel RLS with the approximate-linear-dependence test (Engel et al. 2004).

    Parameters
    ----------
    nu : float, ALD threshold: x joins the dictionary when its squared distance to the
        dictionary's span exceeds nu (>= 0).
    {KERNEL_DOC}
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _expansion = EXPANSION
    _keeps_matrices = ("kernel RLS keeps the inverse Gram matrix of its dictionary and "
                       "the matrix P of its own stream: two dictionaries do not merge")
    # passes the sample-weight checks every online model declares (None removes them):
    # least squares in feature space, a row of weight h is h copies of it (a copy adds
    # nothing to the dictionary: it is linearly dependent)
    _expected_failed_checks = dict.fromkeys(
        ("check_sample_weight_equivalence_on_dense_data",
         "check_sample_weight_equivalence_on_sparse_data"), None)

    def __init__(self, nu=0.01, kernel="rbf", gamma=0.1, coef0=1.0, degree=3,
                 fit_intercept=False, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _rule_params(self):
        return {"nu": check_number("nu", self.nu, low=0.0)}
