"""The best stock in hindsight: all wealth in the asset whose price grew most over the
whole matrix, held (Li and Hoi, ACM Computing Surveys 2014, Section 3.1).  A benchmark,
not an online strategy: ``fit(relatives)`` picks the asset (``backtest`` does it)."""
import numpy as np

from ._base import Strategy, check_relatives, store_params
from .crp import _hold_run
from ..persistence import persistable
from .._locking import locked


@persistable
class BestStock(Strategy):
    """Best stock in hindsight (a benchmark: ``fit`` sees the whole matrix).  It has no
    parameters."""

    _kernel = staticmethod(_hold_run)
    _hindsight = True

    def __init__(self):
        store_params(self, locals())

    @locked
    def fit(self, relatives):
        X = check_relatives(relatives)
        self.asset_ = int(np.argmax(np.log(X).sum(axis=0)))
        b = np.zeros(X.shape[1])
        b[self.asset_] = 1.0
        self.state_, self.n_assets_, self.t_ = {"b": b}, X.shape[1], 0
        return self

    def _kernel_params(self):
        return (False,)
