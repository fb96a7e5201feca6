"""Online portfolio selection: strategies that rebalance a portfolio of ``m`` assets each
period, learning from the price relatives ``x_t = p_t / p_{t-1}`` (Li and Hoi, "Online
portfolio selection: a survey", ACM Computing Surveys 46(3), 2014).

The protocol: ``predict_one()`` is the portfolio (non-negative, summing to 1) for the
coming period, decided before its relatives are seen; ``learn_one(x)`` takes that
period's relatives.  Every strategy starts from the uniform portfolio.
``backtest(strategy, relatives, fee=0.0)`` runs a whole matrix in the strategy's compiled
loop and returns wealth, APY, Sharpe, drawdown, Calmar and turnover; ``load_relatives``
reads the OLPS benchmark files by name (``"nyse_o"``) or any CSV of prices.

Strategies: benchmarks ``UBAH``, ``BestStock``, ``CRP``, ``BCRP``; follow-the-winner
``UP``, ``EG``, ``ONS``; follow-the-loser ``Anticor``, ``PAMR``, ``CWMR``, ``OLMAR``.
"""
from .anticor import Anticor
from .backtest import BacktestResult, backtest
from .bcrp import BCRP
from .best_stock import BestStock
from .crp import CRP
from .cwmr import CWMR
from .data import load_relatives, read_prices, relatives_from_prices
from .eg import EG
from .olmar import OLMAR
from .ons import ONS
from .pamr import PAMR
from .ubah import UBAH
from .up import UP

#: command-line names -> (class, parameters)
STRATEGIES = {
    "ubah": (UBAH, {}), "best": (BestStock, {}), "crp": (CRP, {}), "bcrp": (BCRP, {}),
    "up": (UP, {}), "eg": (EG, {}), "ons": (ONS, {}), "anticor": (Anticor, {}),
    "pamr": (PAMR, {}), "pamr1": (PAMR, {"variant": "PAMR-1"}),
    "pamr2": (PAMR, {"variant": "PAMR-2"}), "cwmr": (CWMR, {}), "olmar": (OLMAR, {}),
}


def make(name, **params):
    """A strategy by its command-line name (``"pamr"``, ``"olmar"``, ...)."""
    key = name.strip().lower()
    if key not in STRATEGIES:
        raise ValueError(f"unknown portfolio strategy {name!r} (known: "
                         f"{', '.join(STRATEGIES)})")
    cls, defaults = STRATEGIES[key]
    return cls(**{**defaults, **params})


__all__ = ["UBAH", "BestStock", "CRP", "BCRP", "UP", "EG", "ONS", "Anticor", "PAMR",
           "CWMR", "OLMAR", "backtest", "BacktestResult", "load_relatives", "read_prices",
           "relatives_from_prices", "make", "STRATEGIES"]
