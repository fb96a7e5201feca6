"""Exponentiated gradient (EG) portfolio update.

Helmbold, Schapire, Singer, Warmuth, "On-line portfolio selection using multiplicative
updates", Mathematical Finance 8(4), 1998, eq. (3):
``b_{t+1,i} = b_{t,i} exp(eta x_{t,i} / (b_t . x_t)) / Z`` with ``Z`` normalising to the
simplex.  ``eta = 0`` is the uniform CRP.  Default ``eta = 0.05`` as in the OLPS toolbox.

A common factor of the ``exp`` cancels in ``Z``, so the kernel takes
``exp(k (x_i - c))`` with ``k = eta / (b . x)``: ``c = 1`` when every ``|k (x_i - 1)|``
is at most 1/2 (daily relatives: always, for the usual ``eta``), where ``exp`` is its
Taylor polynomial of degree 15 (truncation below 1e-18 relative, within an ulp or two of
the library's ``exp``), a loop the compiler vectorises (the library ``exp``, one call
per weight, was two thirds of EG's time); otherwise ``c`` is the largest ``x_i`` of an
asset held and the library's ``exp``, whose arguments are then at most 0 (no overflow
for a large ``eta``).
"""
import math

import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from .._validation import check_number
from ..persistence import persistable

#: sums may be reassociated (SIMD) and multiply-adds fused; no assumption on NaN or inf
_FAST = {"reassoc", "contract"}


#: 1/15!, 1/14!, ..., 1/1!, 1/0!: the Taylor coefficients of exp, highest first
_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(15, -1, -1))


@njit(cache=True, fastmath=_FAST)
def exp_small(a):
    """``exp(a)`` for ``|a| <= 1/2``: the Taylor polynomial of degree 15 by Horner."""
    p = 0.0
    for c in _TAYLOR:
        p = p * a + c
    return p


@njit(cache=True, fastmath=_FAST)
def _eg_run(X, B, b, eta):
    n, m = X.shape
    for t in range(n):
        r = 0.0
        for i in range(m):
            B[t, i] = b[i]
            r += X[t, i] * b[i]
        k = eta / r
        far = False
        s = 0.0
        for i in range(m):
            a = k * (X[t, i] - 1.0)
            far |= abs(a) > 0.5
            e = b[i] * exp_small(a)
            b[i] = e
            s += e
        if far:                          # the row's own B[t] still holds the old b
            hi = -np.inf                 # (the largest relative of an asset held)
            for i in range(m):
                if B[t, i] > 0.0:
                    hi = max(hi, X[t, i])
            s = 0.0
            for i in range(m):
                e = B[t, i] * np.exp(k * (X[t, i] - hi)) if B[t, i] > 0.0 else 0.0
                b[i] = e
                s += e
        inv = 1.0 / s
        for i in range(m):
            b[i] *= inv


@persistable
class EG(Strategy):
    """Exponentiated gradient (Helmbold et al. 1998).

    Parameters
    ----------
    eta : float, default=0.05
        Learning rate (>= 0); 0 keeps the uniform portfolio.
    """

    _kernel = staticmethod(_eg_run)

    def __init__(self, eta=0.05):
        store_params(self, locals())

    def _check_params(self):
        check_number("eta", self.eta, low=0)

    def _kernel_params(self):
        return (float(self.eta),)
