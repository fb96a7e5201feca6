"""Reading price files: ``load_relatives(path_or_name)``.

A file is CSV: an optional header of asset names, then one row of prices per period,
all positive.  Price relatives are ``x_t = p_t / p_{t-1}``; the first row is its own
relative (the prices before it are taken as 1), the convention of the OLPS benchmark
files in ``portfolio/`` (Li and Hoi's NYSE(O), NYSE(N), DJIA, S&P 500, TSX, MSCI),
whose rows are price levels normalised to 1 before the first period.

A name (``"nyse_o"``, ``"msci"``, ...) is looked up as ``portfolio/<name>.csv`` under
``$OLEARN_DATA_MIRROR``, else the user's data folder, else (a source checkout) the
``shared/data`` folder beside the project: ``olearn._datadirs``.
"""
import csv
import os
from pathlib import Path

import numpy as np

NAMES = ("nyse_o", "nyse_n", "djia", "sp500", "tse", "msci")


def _resolve(path_or_name):
    text = os.fspath(path_or_name)
    if os.path.exists(text) or os.sep in text or text.lower().endswith(".csv"):
        return Path(text)
    from .._datadirs import data_roots
    roots = data_roots()     # $OLEARN_DATA_MIRROR, the user's data folder, a checkout's
    for root in roots:
        path = root / "portfolio" / f"{text}.csv"
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"portfolio data set {text!r} not found (looked for portfolio/{text}.csv under "
        f"{', '.join(map(str, roots))}); set OLEARN_DATA_MIRROR to a folder that has it")


def read_prices(path_or_name):
    """``(prices, names)``: the price matrix (periods x assets) and the asset names
    (from the header, else ``"0", "1", ...``); ValueError names a ragged line, a
    non-number or a non-positive price."""
    path = _resolve(path_or_name)
    rows, names = [], None
    with open(path, newline="") as f:
        for lineno, row in enumerate(csv.reader(f), start=1):
            if not row or all(not c.strip() for c in row):
                continue
            try:
                values = [float(c) for c in row]
            except ValueError:
                if names is None and not rows:
                    names = [c.strip() for c in row]
                    continue
                raise ValueError(f"{path}: line {lineno}: not a number in "
                                 f"{','.join(row)[:60]!r}") from None
            width = len(names) if names is not None else len(rows[0]) if rows else None
            if width is not None and len(values) != width:
                raise ValueError(f"{path}: line {lineno} has {len(values)} values, "
                                 f"expected {width} (a ragged file)")
            bad = [v for v in values if not (v > 0 and np.isfinite(v))]
            if bad:
                raise ValueError(f"{path}: line {lineno}: prices must be positive and "
                                 f"finite, got {bad[0]!r}")
            rows.append(values)
    if not rows:
        raise ValueError(f"{path}: no price rows")
    P = np.array(rows, dtype=np.float64)
    if P.shape[1] < 2:
        raise ValueError(f"{path}: {P.shape[1]} asset: portfolio selection needs at least 2")
    return P, names or [str(i) for i in range(P.shape[1])]


def relatives_from_prices(P):
    """``x_1 = p_1`` (prices before the first row are 1), ``x_t = p_t / p_{t-1}``."""
    X = np.array(P, dtype=np.float64)
    X[1:] = P[1:] / P[:-1]
    return X


def load_relatives(path_or_name, return_names=False):
    """The price relatives (periods x assets) of a CSV price file or a named set."""
    P, names = read_prices(path_or_name)
    X = relatives_from_prices(P)
    return (X, names) if return_names else X
