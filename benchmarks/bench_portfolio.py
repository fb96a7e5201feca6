"""Online portfolio selection: final wealth on the six OLPS benchmark sets, and speed and
wealth against ``universal-portfolios`` on NYSE(O).

Part 1, the OLPS toolbox's protocol (Li, Sahoo, Hoi, JMLR 2016): relatives from the
price files of ``../shared/data/portfolio`` with day 1 its own relative, no transaction
cost, default parameters; every olearn strategy on NYSE(O), NYSE(N), DJIA, S&P 500, TSE
and MSCI.  The figures of the issue (OLPS's published results) are put beside ours.

Part 2, ``universal-portfolios`` (Marigold, ``pip install universal-portfolios``) on
NYSE(O) (5,651 days, 36 stocks), same process, same data.  It takes prices and drops
day 1 (its first row of relatives is all ones), so olearn runs on exactly the matrix it
sees: ``[1, ..., 1]`` then ``p_t / p_{t-1}``.  Wealth: each library's final wealth
(``AlgoResult.total_wealth``, fee 0).  Time: the whole run (``Algo.run``) against
``olearn.portfolio.backtest`` with its kernels compiled beforehand, best of
``--repeats`` (default 3, 1 for universal's slow strategies), CPU seconds of this
process (a shared machine inflates wall-clock times).  Usage::

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_portfolio.py [--repeats 3]
        [--out benchmarks/portfolio.md] [--skip-peer]
"""
import argparse
import logging
import os
import platform
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _peers import timed  # noqa: E402

import olearn.portfolio as op  # noqa: E402

SETS = ["nyse_o", "nyse_n", "djia", "sp500", "tse", "msci"]
STRATS = ["ubah", "best", "crp", "bcrp", "up", "eg", "ons", "anticor", "pamr", "pamr1",
          "pamr2", "cwmr", "olmar", "rmr"]

#: the figures the issue quotes from the OLPS toolbox's published results, and the
#: tolerance it sets (relative)
PUBLISHED = {("nyse_o", "ubah"): "14.50", ("nyse_o", "best"): "54.14",
             ("nyse_o", "bcrp"): "250.6", ("nyse_o", "eg"): "27.09", ("nyse_o", "ons"): "109.2",
             ("nyse_o", "pamr"): "5.14E+15", ("nyse_o", "cwmr"): "6.5E+15",
             ("msci", "pamr"): "15.23", ("msci", "bcrp"): "1.506"}


def fmt(v):
    return f"{v:.4g}" if v < 1e5 else f"{v:.3e}"


def printed_digits(text):
    """How many significant digits a published figure shows ("14.50" -> 4, "6.5E+15" -> 2)."""
    return len(text.upper().split("E")[0].replace(".", "").lstrip("0"))


def part1(lines):
    lines += ["## 1. Final wealth on the OLPS benchmark sets (OLPS protocol, fee 0)", "",
              "Relatives from `../shared/data/portfolio/*.csv`, day 1 its own relative; "
              "default parameters (`olearn portfolio NAME --algo ...` prints the same). "
              "Seconds: one `backtest` with compiled kernels (CPU).", ""]
    data = {s: op.load_relatives(s) for s in SETS}
    for s in STRATS:                       # compile every kernel once, on a small slice
        op.backtest(op.make(s), data["djia"][:80, :6])
    table, secs = {}, {}
    for ds in SETS:
        for s in STRATS:
            t = timed(lambda: op.backtest(op.make(s), data[ds]), 1)
            table[ds, s], secs[ds, s] = t["result"].final_wealth, t["cpu"]
    lines.append("| strategy | " + " | ".join(f"{d} ({data[d].shape[0]}x{data[d].shape[1]})"
                                                for d in SETS) + " | seconds on nyse_o |")
    lines.append("|---|" + "---:|" * (len(SETS) + 1))
    for s in STRATS:
        lines.append(f"| {s} | " + " | ".join(fmt(table[d, s]) for d in SETS)
                     + f" | {secs['nyse_o', s]:.3f} |")
    lines += ["", "### Against the figures the issue quotes (OLPS toolbox, published)", "",
              "The published figures are rounded (3-4 significant digits): agreement is "
              "checked to the digits printed, the issue's tolerance being finer than "
              "that rounding.", "",
              "| set | strategy | published | olearn | relative difference | agrees to the "
              "printed digits |", "|---|---|---:|---:|---:|---|"]
    for (ds, s), text in PUBLISHED.items():
        ours, pub, digits = table[ds, s], float(text), printed_digits(text)
        ok = float(f"{ours:.{digits - 1}e}") == float(f"{pub:.{digits - 1}e}")
        lines.append(f"| {ds} | {s} | {text} | {ours:.7g} | {abs(ours - pub) / pub:.1e} | "
                     f"{'yes' if ok else 'NO'} |")
    return table


def universal_algos():
    from universal import algos
    return {
        "ubah": (algos.BAH(), op.UBAH()),
        "crp": (algos.CRP(), op.CRP()),
        "bcrp": (algos.BCRP(), op.BCRP()),
        "up": (algos.UP(eval_points=1e4), op.UP(n_samples=10000)),
        "eg": (algos.EG(eta=0.05), op.EG(eta=0.05)),
        "ons": (algos.ONS(delta=0.125, beta=1.0, eta=0.0), op.ONS()),
        "anticor(30), one window": (algos.Anticor(window=30), op.Anticor(30, bah=False)),
        "pamr": (algos.PAMR(eps=0.5, variant=0), op.PAMR()),
        "pamr1": (algos.PAMR(eps=0.5, C=500, variant=1), op.PAMR(variant="PAMR-1")),
        "pamr2": (algos.PAMR(eps=0.5, C=500, variant=2), op.PAMR(variant="PAMR-2")),
        "cwmr (universal: CWMR_VAR)": (algos.CWMR_VAR(), op.CWMR()),
        "olmar": (algos.OLMAR(window=5, eps=10), op.OLMAR()),
        "rmr (epsilon 5)": (algos.RMR(window=5, eps=5.0), op.RMR(epsilon=5.0)),
    }


def part2(lines, repeats):
    import pandas as pd
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    P, names = op.read_prices("nyse_o")
    S = pd.DataFrame(P, columns=names, index=pd.RangeIndex(len(P)))
    X = np.vstack([np.ones(P.shape[1]), P[1:] / P[:-1]])    # what universal sees
    import universal
    lines += ["", "## 2. Against universal-portfolios on NYSE(O), its convention", "",
              f"universal-portfolios {getattr(universal, '__version__', '')} "
              f"(pip), pandas {pd.__version__}. Relatives `[1..1]` then `p_t/p_(t-1)` "
              "(day 1 dropped, as universal does). CPU seconds, best of the repeats "
              f"(olearn {repeats}, universal {repeats} for the fast ones, 1 for those over "
              "5 s).", "",
              "| strategy | universal wealth | olearn wealth | relative difference | "
              "universal s | olearn s | speed-up |", "|---|---:|---:|---:|---:|---:|---:|"]
    rows = []
    for label, (u, o) in universal_algos().items():
        first = timed(lambda: u.run(S, log_progress=False), 1)
        ut = first if first["cpu"] > 5 else timed(lambda: u.run(S, log_progress=False),
                                                  repeats)
        uw = float(ut["result"].total_wealth)
        op.backtest(type(o)(**o.get_params()), X[:60])          # compiled beforehand
        ot = timed(lambda: op.backtest(type(o)(**o.get_params()), X), repeats)
        ow = ot["result"].final_wealth
        rows.append((label, uw, ow, ut["cpu"], ot["cpu"]))
        lines.append(f"| {label} | {fmt(uw)} | {fmt(ow)} | {abs(ow - uw) / uw:.1e} | "
                     f"{ut['cpu']:.3f} | {ot['cpu']:.4f} | {ut['cpu'] / ot['cpu']:,.0f}x |")
        print(lines[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "portfolio.md"))
    ap.add_argument("--skip-peer", action="store_true")
    args = ap.parse_args()
    lines = ["# Online portfolio selection (`olearn.portfolio`)", "",
             f"Generated by `benchmarks/bench_portfolio.py` on {platform.node() or 'host'}, "
             f"{platform.processor() or platform.machine()}, Python "
             f"{platform.python_version()}, numpy {np.__version__}; "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", ""]
    part1(lines)
    print("\n".join(lines), flush=True)
    if not args.skip_peer:
        part2(lines, args.repeats)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
