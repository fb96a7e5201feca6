"""``olearn compare [DATA] [--algos a,b,c] [--permutations N]``

LIBOL's comparison without its optimism: each learner's parameters are tuned on one
random order of the rows (LIBOL's grids: C or r in 2^-4..2^4, eta in 0.55..0.95),
then the mean and standard deviation over N other random orders (default 20) of the
online mistake rate (squared error for regression), the number of updates and the
seconds per pass are printed as a table, and the cumulative mistake rate along the
stream (mean and one standard deviation) is drawn to a PNG in the current folder.

Without --algos: a default set of learners, one or more of every family (first-order,
second-order, sparse, kernel on a budget, ensemble): perceptron, pa1, ogd, adagrad,
ndag, cocob, arow, scw, ftrl, nogd and auto for classes (pa1-reg, adagrad-reg,
ndag-reg, cocob-reg, arow-reg, rls, ftrl-reg, nogd-reg and auto-reg for a regression);
--all compares every registered learner suited to the labels instead.  Kernels not yet
cached compile first, in one process per CPU (--n-jobs), a line per learner on stderr.

Without DATA: the breast-cancer data that ships with scikit-learn (569 rows, 30
features; nothing downloaded), each column standardized to mean 0 and variance 1 over
the whole dataset (a fixed affine map: the raw columns span 0.001 to 4,000, and
first-order learners suffer from that).  DATA may be a file
(LIBSVM, or CSV for .csv/.tsv/.data names), a registered dataset name (see 'olearn
datasets'; --part picks train, test or all) or an embedded one (breast_cancer,
diabetes, digits, iris, wine; standardized the same way).

With anomaly detectors (--algos hst,loda,ocsvm,uniclass: models without a target):
one pass each over the rows in their order, every row scored before it is learned
(the label column, --label, read only for the metrics), their exact ROC AUC and
average precision in the table, and the ROC curves drawn to the PNG; nothing is
permuted or tuned (--permutations, --seed and --no-tune do not apply).

--metric M puts another figure in the table's metric column, and tunes for it:
accuracy, balanced-accuracy, precision, recall, f1 (macro), auc, logloss for
classifiers; mae, rmse, r2 for regressors.  The plot stays the cumulative mistake rate.
"""
import importlib.util
import os
import re
import sys

from ._common import (CLIError, atomic_text, check_algos, check_paths, check_writable,
                      is_detector, split_algos)
from ._input import add_data_args, open_data
from ._learning import Heartbeat, learning

#: a closed standard output (``| head``) drops the printout, not the plot and tables
GOES_ON_WHEN_STDOUT_CLOSES = True

#: the learners compared without --algos: every family of the README's table, at a
#: first-run cost of seconds (the ensemble's members are among them, so its kernels
#: are compiled once); --all compares every registered one
DEFAULT_CLASSIFIERS = ("perceptron", "pa1", "ogd", "adagrad", "ndag", "cocob",  # first order
                       "arow", "scw",                                          # second order
                       "ftrl",                                                 # sparse
                       "nogd",                                                 # kernel, budget
                       "auto")                                                 # ensemble
DEFAULT_REGRESSORS = ("pa1-reg", "adagrad-reg", "ndag-reg", "cocob-reg", "arow-reg", "rls",
                      "ftrl-reg", "nogd-reg", "auto-reg")


def add_parser(subparsers):
    p = subparsers.add_parser("compare", help="compare learners the LIBOL way, with a plot",
                              description=__doc__.split("\n\n", 1)[1])
    add_data_args(p, data_required=False)
    g = p.add_argument_group("comparison")
    g.add_argument("--algos", default=None, metavar="A,B,C",
                   help="comma-separated learner names (default: a set of every family, "
                        "listed above)")
    g.add_argument("--all", action="store_true",
                   help="every registered learner suited to the labels (a first run "
                        "compiles for minutes)")
    g.add_argument("--permutations", type=int, default=20, metavar="N",
                   help="random orders evaluated (default 20; one more is drawn for tuning)")
    g.add_argument("--seed", type=int, default=0, help="seed of the orders (default 0)")
    g.add_argument("--no-tune", action="store_true",
                   help="use the registered default parameters, no grid search")
    g.add_argument("--holdout", type=float, default=None, metavar="FRACTION",
                   help="tune on this fraction of the rows, evaluate on the others")
    g.add_argument("--n-jobs", type=int, default=None, metavar="N",
                   help="worker processes (default: the runs in this process, kernels "
                        "not yet cached compiled one process per CPU; -1: all cores)")
    g.add_argument("--metric", default=None, metavar="M",
                   help="the table's figure (and the tuning criterion): accuracy, "
                        "balanced-accuracy, precision, recall, f1, auc, logloss; mae, rmse, "
                        "r2 (default: mistake rate, or squared error)")
    g.add_argument("--part", choices=("train", "test", "all"), default="train",
                   help="part of a registered dataset (default train)")
    o = p.add_argument_group("output")
    o.add_argument("--plot", default=None, metavar="PNG",
                   help="curve plot file (default: olearn-compare-<data>.png here)")
    o.add_argument("--no-plot", action="store_true", help="do not draw the plot")
    o.add_argument("--bars", default=None, metavar="PNG",
                   help="also draw the updates and time bar charts to this file")
    o.add_argument("--markdown", default=None, metavar="FILE",
                   help="also write the table as markdown ('-' for stdout)")
    o.add_argument("--csv", default=None, metavar="FILE",
                   help="also write the table as CSV ('-' for stdout)")
    o.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _stack(reader):
    import numpy as np
    import scipy.sparse as sp
    Xs, ys = [], []
    for X, y in reader:
        Xs.append(X)
        ys.append(y)
    if not Xs:
        raise CLIError("the data has no rows")
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.concatenate(Xs)
    return X, np.concatenate(ys)


def _standardized(name):
    from ..datasets import embedded
    X, y = embedded.load_embedded(name, scale="standard")   # as olearn evaluate does
    return X, y, name, embedded.TASKS.get(name)


def load_data(args):
    """(X, y, label, task or None) for DATA: a file, a registered dataset, or an embedded
    one (whose task is known: integer targets of a regression set stay a regression)."""
    from ..datasets import embedded, registry
    data = args.data
    if data is None:
        return _standardized("breast_cancer")
    if data != "-" and os.path.exists(data):
        X, y = _stack(open_data(args))
        return X, y, os.path.basename(data), None
    if data in embedded.EMBEDDED:
        return _standardized(data)
    if data in registry.list_datasets():
        X, y = registry.load(data, part=args.part, progress=None if not args.quiet else False)
        label = data if args.part == "train" else f"{data} ({args.part})"
        return X, y, label, registry.info(data).task
    raise CLIError(f"{data}: no such file, registered dataset ('olearn datasets') or "
                   f"embedded dataset ({', '.join(sorted(embedded.EMBEDDED))})")


def _say(text):
    print(f"olearn compare: {text}", file=sys.stderr, flush=True)


def run(args):
    # cheap checks first: nothing heavy is imported until they pass
    if args.permutations < 1:
        raise CLIError(f"--permutations must be >= 1, got {args.permutations}")
    algos = split_algos(args.algos) or None
    if algos and args.all:
        raise CLIError("--algos and --all: give one of them")
    detectors = [a for a in algos or () if is_detector(a)]
    if detectors:
        return _compare_detectors(args, algos, detectors)
    check_algos(algos or ())                   # unknown names fail before any work
    metric = None
    if args.metric is not None:
        from ..evaluate.metrics import parse_metrics
        try:
            names = parse_metrics(args.metric)
        except ValueError as exc:
            raise CLIError(f"--metric: {exc}") from None
        if len(names) != 1:
            raise CLIError(f"--metric: compare takes one metric, got {', '.join(names)}")
        metric = names[0]
        if algos:
            _check_learners_metric(algos, metric)
    plot = None
    if not args.no_plot:
        plot = args.plot
    data_file = args.data if args.data and os.path.exists(args.data) else None
    check_paths([("data", data_file)], [("plot", plot), ("bar chart", args.bars),
                                        ("markdown", args.markdown), ("CSV", args.csv)])
    for path, what in ((args.bars, "bar chart"), (args.markdown, "markdown"),
                       (args.csv, "CSV")):
        if path not in (None, "-"):
            check_writable(path, what)
    if (not args.no_plot or args.bars) and importlib.util.find_spec("matplotlib") is None:
        raise CLIError("plotting needs matplotlib (pip install matplotlib), "
                       "or run with --no-plot")
    from ..evaluate.compare import compare, precompile
    X, y, label, task = load_data(args)
    if algos is None:
        algos = _default_algos(y, task, args.all)
        if metric is not None and algos:
            _check_learners_metric(algos, metric)
    if plot is None and not args.no_plot:
        plot = f"olearn-compare-{re.sub(r'[^A-Za-z0-9_.-]+', '_', label)}.png"
    if plot is not None:
        check_writable(plot, "plot")
    who = (f"{len(algos)} learners" if args.all else ", ".join(algos)) if algos else \
        "every registered learner suited to the labels"
    how = "registered parameters (no tuning)" if args.no_tune else \
        f"parameters tuned on {args.holdout:g} of the rows" if args.holdout else \
        "parameters tuned on one more random order"
    _say(f"{who} on {label} ({X.shape[0]:,} rows, {X.shape[1]:,} features); "
         f"{args.permutations} random orders (seed {args.seed}), {how}"
         + (f"; plot to {plot}" if plot else ""))
    with Heartbeat(_say, lambda t: f"  ... still compiling ({t:.0f} s)") as beat:
        precompile(algos, X, y, jobs=args.n_jobs, say=beat.say)  # not yet cached: parallel
    with learning("the kernels of the learners not yet in the cache",
                  "from seconds to a few minutes"):
        result = compare(algos, X, y, permutations=args.permutations,
                         tune=False if args.no_tune else None, random_state=args.seed,
                         n_jobs=args.n_jobs, holdout=args.holdout,
                         progress=False if args.quiet else None, dataset=label,
                         metric=metric)
    out = _print_result(result, args, plot)
    if args.bars:
        result.plot_bars(args.bars)
        print(f"bars: {args.bars}", file=out)
    return 0


def _compare_detectors(args, algos, detectors):
    """``olearn compare DATA --algos hst,loda,...``: anomaly detectors, one pass each in
    the rows' order (:mod:`olearn.evaluate.detectors`)."""
    if len(detectors) != len(algos):
        others = ", ".join(a for a in algos if a not in detectors)
        raise CLIError(f"compare takes learners or anomaly detectors, not both: "
                       f"{others} {'is not a detector' if ',' not in others else 'are not'}")
    for flag, given in (("--metric", args.metric), ("--holdout", args.holdout),
                        ("--bars", args.bars), ("--all", args.all)):
        if given:
            raise CLIError(f"{flag} is for learners; detectors are compared by their exact "
                           "ROC AUC and average precision")
    if args.data is None:
        raise CLIError("comparing anomaly detectors needs DATA with a label column "
                       "(1 an anomaly, 0 a normal row)")
    plot = None if args.no_plot else args.plot
    data_file = args.data if os.path.exists(args.data) else None
    check_paths([("data", data_file)], [("plot", plot), ("markdown", args.markdown),
                                        ("CSV", args.csv)])
    for path, what in ((args.markdown, "markdown"), (args.csv, "CSV")):
        if path not in (None, "-"):
            check_writable(path, what)
    if not args.no_plot and importlib.util.find_spec("matplotlib") is None:
        raise CLIError("plotting needs matplotlib (pip install matplotlib), "
                       "or run with --no-plot")
    from ..evaluate.detectors import compare_detectors
    from ..registry import make
    X, y, label, _ = load_data(args)
    if plot is None and not args.no_plot:
        plot = f"olearn-compare-{re.sub(r'[^A-Za-z0-9_.-]+', '_', label)}.png"
    if plot is not None:
        check_writable(plot, "plot")
    _say(f"{', '.join(algos)} on {label} ({X.shape[0]:,} rows, {X.shape[1]:,} features); "
         "one pass each in the rows' order, each row scored before it is learned"
         + (f"; plot to {plot}" if plot else ""))
    with learning("the kernels of the detectors not yet in the cache",
                  "from seconds to a few minutes"):
        try:
            result = compare_detectors({a: make(a) for a in algos}, X, y, dataset=label)
        except ValueError as exc:
            raise CLIError(f"{args.data}: {exc}") from None
    _print_result(result, args, plot)
    return 0


def _print_result(result, args, plot):
    """The table (on stderr when standard output carries the markdown or CSV table),
    the files asked for, the plot; returns the stream the table went to."""
    out = sys.stderr if "-" in (args.markdown, args.csv) else sys.stdout
    print(result, file=out)
    if args.markdown:
        _write(args.markdown, result.to_markdown())
    if args.csv:
        _write(args.csv, result.to_csv())
    if plot is not None:
        result.plot(plot)
        print(f"plot: {plot}", file=out)
    return out


def _default_algos(y, task, every):
    """The learners compared without --algos: the default set of the labels' kind, or
    with --all every registered one (None: every classifier suited to the labels)."""
    from sklearn.utils.multiclass import type_of_target
    regression = task == "regression" or (task is None and
                                          type_of_target(y) == "continuous")
    if every:
        from ..registry import available
        return available("regressor") if regression else None
    return list(DEFAULT_REGRESSORS if regression else DEFAULT_CLASSIFIERS)


def _check_learners_metric(algos, metric):
    """Named learners that cannot give what ``metric`` needs fail before any work."""
    from sklearn.base import is_classifier

    from ..evaluate.metrics import check_scores_available, metrics_task, needs_scores
    from ..registry import make
    for a in algos:
        est = make(a)
        task = "classification" if is_classifier(est) else "regression"
        if metrics_task([metric]) != task:
            raise CLIError(f"--metric {metric}: a {metrics_task([metric])} metric, but {a} "
                           f"does {task}")
        try:
            check_scores_available(est, needs_scores([metric]), a)
        except ValueError as exc:
            raise CLIError(str(exc)) from None


def _write(path, text):
    with atomic_text(path) as f:
        f.write(text)
