"""Uniform buy-and-hold (UBAH, the market): invest ``1/m`` in each asset at the start
and never trade; the portfolio drifts with prices, ``b_{t+1} = b_t * x_t / (b_t . x_t)``,
and the wealth is the mean of the assets' price relatives' products (Li and Hoi,
Online Portfolio Selection: A Survey, ACM Computing Surveys 2014, Section 3.1)."""
from ._base import Strategy, store_params
from .crp import _hold_run
from ..persistence import persistable


@persistable
class UBAH(Strategy):
    """Uniform buy-and-hold: the market index of the assets, never rebalanced.  It has
    no parameters."""

    _kernel = staticmethod(_hold_run)

    def __init__(self):
        store_params(self, locals())

    def _kernel_params(self):
        return (False,)
