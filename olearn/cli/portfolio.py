"""``olearn portfolio FILE.csv --algo pamr,olmar,ubah [--fee F] [--plot out.png]``

Backtests online portfolio strategies on a price file and prints, for each, the
final wealth, annualised return (APY), Sharpe ratio, maximum drawdown, Calmar ratio,
turnover and seconds; with --plot, the wealth curves are drawn to that PNG.  FILE is a
CSV of prices (an optional header of asset names, one row per period, all positive,
at least two assets; the first row counts as its own relative) or the name of an
OLPS benchmark set (nyse_o, nyse_n, djia, sp500, tse, msci) found under
$OLEARN_DATA_MIRROR/portfolio.  Strategies: ubah, best, crp, bcrp, up, eg, ons,
anticor, pamr, pamr1, pamr2, cwmr, olmar, rmr (defaults of the OLPS toolbox; --param
KEY=VALUE applies to every strategy named that takes it).
"""
import os

from ._common import CLIError, check_paths, check_writable, parse_params, split_algos
from ._learning import learning

DEFAULT_ALGOS = "ubah,best,bcrp,eg,ons,pamr,cwmr,olmar"


def add_parser(subparsers):
    p = subparsers.add_parser("portfolio", help="backtest online portfolio strategies "
                              "on a price file", description=__doc__.split("\n\n", 1)[1])
    p.add_argument("data", metavar="FILE", help="CSV of prices, or a benchmark set name")
    p.add_argument("--algo", "--algos", dest="algo", default=DEFAULT_ALGOS, metavar="A,B,C",
                   help=f"comma-separated strategies (default {DEFAULT_ALGOS})")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="strategy parameter, repeatable (e.g. --param epsilon=0.8)")
    p.add_argument("--fee", type=float, default=0.0, metavar="F",
                   help="proportional transaction cost, e.g. 0.001 (default 0)")
    p.add_argument("--plot", default=None, metavar="PNG", help="draw the wealth curves here")
    return p


def _row(name, r, seconds):
    return (f"{name:<10} {r.final_wealth:>12.6g} {r.apy:>9.4f} {r.sharpe:>8.3f} "
            f"{r.max_drawdown:>8.4f} {r.calmar:>8.3f} {r.turnover:>9.4f} {seconds:>8.3f}")


def run(args):
    import inspect
    import time

    from ..portfolio import check_name
    params = parse_params(args.param)
    names = split_algos(args.algo)
    if not names:
        raise CLIError("--algo needs at least one strategy name")
    names = [check_name(n) for n in names]
    if not 0.0 <= args.fee < 1.0:
        raise CLIError(f"--fee must be in [0, 1), got {args.fee}")
    if args.plot:
        check_paths([("price file", args.data)], [("plot", args.plot)])
        check_writable(args.plot, "plot")
    if not os.path.exists(args.data) and (os.sep in args.data or "." in args.data):
        raise CLIError(f"{args.data}: no such file")

    from .. import portfolio as op
    X = op.load_relatives(args.data)
    strategies = []
    for name in names:
        cls = getattr(op, op.STRATEGIES[name][0])
        accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
        s = op.make(name, **{k: v for k, v in params.items() if k in accepted})
        s.check_params()
        strategies.append((name, s))
    unused = set(params) - {k for _, s in strategies for k in s.get_params()}
    if unused:
        raise CLIError(f"no strategy named takes parameter(s) {', '.join(sorted(unused))}")

    print(f"{args.data}: {X.shape[0]:,} periods, {X.shape[1]} assets, fee {args.fee:g}")
    print(f"{'strategy':<10} {'wealth':>12} {'apy':>9} {'sharpe':>8} {'mdd':>8} "
          f"{'calmar':>8} {'turnover':>9} {'seconds':>8}")
    results = []
    with learning("the portfolio kernels"):
        for name, s in strategies:
            start = time.perf_counter()
            r = op.backtest(s, X, fee=args.fee, name=name)
            print(_row(name, r, time.perf_counter() - start), flush=True)
            results.append(r)
    if args.plot:
        _plot(results, args.plot, args.data)
        print(f"plot written to {args.plot}")
    return 0


def _plot(results, path, title):
    """Draw the wealth curves to ``path`` all or nothing (a temporary file, renamed)."""
    import tempfile

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5))
    for r in results:
        r.plot(ax=ax)
    ax.set_title(os.path.basename(str(title)))
    fig.tight_layout()
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".olearn-", suffix=os.path.splitext(path)[1] or ".png",
                               dir=folder)
    os.close(fd)
    try:
        fig.savefig(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
