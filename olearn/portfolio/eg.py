"""Exponentiated gradient (EG) portfolio update.

Helmbold, Schapire, Singer, Warmuth, "On-line portfolio selection using multiplicative
updates", Mathematical Finance 8(4), 1998, eq. (3):
``b_{t+1,i} = b_{t,i} exp(eta x_{t,i} / (b_t . x_t)) / Z`` with ``Z`` normalising to the
simplex.  ``eta = 0`` is the uniform CRP.  Default ``eta = 0.05`` as in the OLPS toolbox.
"""
import numpy as np

from .._compiled import njit

from ._base import Strategy, store_params
from .._validation import check_number
from ..persistence import persistable


@njit(cache=True)
def _eg_run(X, B, b, eta):
    n, m = X.shape
    for t in range(n):
        B[t] = b
        r = X[t] @ b
        s = 0.0
        for i in range(m):
            b[i] = b[i] * np.exp(eta * X[t, i] / r)
            s += b[i]
        for i in range(m):
            b[i] /= s


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
