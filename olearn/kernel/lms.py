"""Kernel least-mean-squares (Liu, Pokharel, Principe, "The Kernel Least-Mean-Square
Algorithm", IEEE Trans. Signal Processing 56(2), 2008, eq. 11 / Algorithm 1).

``e = y - f(x)`` (the pre-update error); every example with ``e != 0`` joins the
support set with ``alpha = eta e`` (times its sample weight): the LMS step in the
feature space, ``f <- f + eta e K(x, .)``.  With ``kernel="linear"`` it is
``olearn.linear.LMSRegressor``'s plain LMS.  Cost per row O(n_support nnz); the set
grows by one per example (no sparsification, as in the paper's basic algorithm).
"""
from numba import njit

from ..base import OnlineRegressor
from .._params import store_params
from .._validation import check_number
from . import _support as S
from ._base import KERNEL_DOC, SupportModel


@njit(inline="always")
def _test(out, y, w, kxx, task, seen, params, coefs):
    r = y - out[0]
    if r == 0.0:
        return False
    coefs[0] = params.eta * r * w
    return True


EXPANSION = S.declare_expansion("kernel.lms", S.margin_rule(_test), ("eta",))


class KernelLMSRegressor(SupportModel, OnlineRegressor):
    __doc__ = f"""Kernel LMS: ``f <- f + eta (y - f(x)) K(x, .)``.

    Parameters
    ----------
    eta : float, step size (> 0).
    {KERNEL_DOC}
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _expansion = EXPANSION

    def __init__(self, eta=0.5, kernel="rbf", gamma=0.1, coef0=1.0, degree=3,
                 fit_intercept=False, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _rule_params(self):
        return {"eta": check_number("eta", self.eta, low=0.0, low_open=True)}
