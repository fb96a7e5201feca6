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
``UP``, ``EG``, ``ONS``; follow-the-loser ``Anticor``, ``PAMR``, ``CWMR``, ``OLMAR``, ``RMR``.
"""
from .._lazy import lazy_names

#: public name -> submodule (imported on first use: ``import olearn.portfolio`` loads no numba)
_LAZY = {"UBAH": "ubah", "BestStock": "best_stock", "CRP": "crp", "BCRP": "bcrp",
         "UP": "up", "EG": "eg", "ONS": "ons", "Anticor": "anticor", "PAMR": "pamr",
         "CWMR": "cwmr", "OLMAR": "olmar", "RMR": "rmr", "backtest": "backtesting",
         "BacktestResult": "backtesting", "load_relatives": "data", "read_prices": "data",
         "relatives_from_prices": "data"}

#: command-line names -> (class name, parameters)
STRATEGIES = {
    "ubah": ("UBAH", {}), "best": ("BestStock", {}), "crp": ("CRP", {}),
    "bcrp": ("BCRP", {}), "up": ("UP", {}), "eg": ("EG", {}), "ons": ("ONS", {}),
    "anticor": ("Anticor", {}), "pamr": ("PAMR", {}),
    "pamr1": ("PAMR", {"variant": "PAMR-1"}), "pamr2": ("PAMR", {"variant": "PAMR-2"}),
    "cwmr": ("CWMR", {}), "olmar": ("OLMAR", {}), "rmr": ("RMR", {}),
}


def check_name(name):
    """The command-line name, normalised; ValueError listing the known ones."""
    key = name.strip().lower()
    if key not in STRATEGIES:
        raise ValueError(f"unknown portfolio strategy {name!r} (known: "
                         f"{', '.join(STRATEGIES)})")
    return key


def make(name, **params):
    """A strategy by its command-line name (``"pamr"``, ``"olmar"``, ...)."""
    cls_name, defaults = STRATEGIES[check_name(name)]
    return __getattr__(cls_name)(**{**defaults, **params})


_lazy_getattr, __dir__ = lazy_names(__name__, _LAZY)


def __getattr__(name):
    """A public name, imported on first use and then kept in the package (a second
    ``olearn.portfolio.backtest`` costs an attribute read, not an import lookup)."""
    value = globals()[name] = _lazy_getattr(name)
    return value


__all__ = [*_LAZY, "make", "check_name", "STRATEGIES"]
