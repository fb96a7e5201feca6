"""``olearn evaluate [DATA] [--algo NAME] [--param K=V ...]``

Progressive validation only (every row predicted, then learned; nothing saved).
With DATA and --algo: one learner on the file, a summary.  Without DATA: every
registered learner of the dataset's task (or those named by --algo, comma separated)
on an embedded dataset that ships with scikit-learn (--dataset, default
breast_cancer), each column standardized to mean 0 and variance 1 over the whole
dataset, as 'olearn compare' does (raw breast-cancer features span 0.001 to 4,000,
which swamps the unscaled learners), in the file's row order; a table of the
results (on standard output at a terminal, else on standard error, as train's).  Rows per
second are measured after the compiled kernels are loaded.  A learner whose weights become NaN or infinite is
reported as diverged.  'olearn evaluate --algo NAME --help' lists its parameters.

--metric names the figures to print (classification: accuracy, balanced-accuracy,
precision, recall, f1, auc, logloss; regression: mae, rmse, r2), each from the
pre-update predictions; --window N or --fading A prints each also over the last N
rows, or with fading factor A, beside the whole-stream value.  auc needs decision
values (any two-class learner), logloss probabilities (learners with predict_proba).
"""
from ._common import (CLIError, add_algo_args, check_algos, check_paths, is_detector,
                      one_line, parse_params, report_stream, split_algos, user_errors)
from ._input import add_data_args, open_data, require_data
from ._learning import check_finite, learn_progressively, learning, summary
from ._models import initial_model, learner_of, make_model, model_width
from . import _multilabel, _order, _pipeline


def add_parser(subparsers):
    p = subparsers.add_parser("evaluate", help="progressive validation of learners",
                              description=__doc__.split("\n\n", 1)[1], add_help=False)
    add_data_args(p, data_required=False)
    add_algo_args(p, metavar="NAME[,NAME...]")
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="embedded dataset when no DATA is given: breast_cancer (default), "
                        "diabetes, digits, iris, wine")
    _pipeline.add_init_arg(p)   # --init MODEL: olearn/cli/_pipeline.py
    p.add_argument("--task", choices=("tag", "multilabel"), default=None,
                   help="tag: a sequence tagger on a CoNLL-U DATA (the default for .conllu), "
                        "progressive token and sentence accuracy; " + _multilabel.TASK_HELP)
    _multilabel.add_args(p)   # --labels-xml: olearn/cli/_multilabel.py
    add_metric_args(p)
    _order.add_args(p)  # --shuffle, --seed: olearn/cli/_order.py
    return p


def add_metric_args(p):
    g = p.add_argument_group("metrics")
    g.add_argument("--metric", default=None, metavar="M[,M...]",
                   help="figures to report: accuracy, balanced-accuracy, precision, recall, "
                        "f1, auc, logloss (classification); mae, rmse, r2 (regression)")
    g.add_argument("--window", type=int, default=None, metavar="N",
                   help="also report each figure over the last N rows")
    g.add_argument("--fading", type=float, default=None, metavar="A",
                   help="also report each figure with fading factor A in (0, 1]")


def check_metric_args(args):
    """The metric names and the window/fading, checked before any work; the names."""
    window, fading = getattr(args, "window", None), getattr(args, "fading", None)
    if args.metric is None and window is None and fading is None:
        return None                     # (numpy is not imported on the fast paths)
    from ..evaluate.metrics import check_memory, parse_metrics
    try:
        check_memory(window, fading)
    except ValueError as exc:
        raise CLIError(f"--{str(exc)}".replace("--give window or fading, not both",
                                               "give --window or --fading, not both"))
    if args.metric is None:
        return None
    try:
        return parse_metrics(args.metric)
    except ValueError as exc:
        raise CLIError(f"--metric: {exc}") from None


def check_model_metrics(model, names, algo):
    """The learner can give what the metrics need (task, scores, probabilities)."""
    if names is None:
        return
    from .._estimator import is_classifier

    from ..evaluate.metrics import check_scores_available, metrics_task, needs_scores
    task = "classification" if is_classifier(model) else "regression"
    if metrics_task(names) != task:
        raise CLIError(f"--metric {','.join(names)}: {metrics_task(names)} metrics, but "
                       f"{algo} is a {'classifier' if task == 'classification' else 'regressor'}")
    try:
        check_scores_available(model, needs_scores(names), algo)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def run(args):
    # cheap checks first: nothing heavy is imported until they pass
    params = parse_params(args.param)
    from . import _tagging
    if _tagging.wanted(args):       # a sequence tagger (olearn/cli/_tagging.py)
        return _tagging.evaluate(args, params)
    names = check_metric_args(args)
    if args.format == "ratings":  # a rating stream: olearn.recommend
        if names is not None or args.window is not None or args.fading is not None:
            raise CLIError("--metric, --window and --fading are not for --format ratings")
        return _ratings(args, params)
    from . import _multilabel
    if _multilabel.wanted(args):    # label sets (olearn/cli/_multilabel.py)
        return _multilabel.evaluate(args, params)
    check_algos(split_algos(args.algo), detectors=True)
    if is_detector(args.algo) and (names is not None or args.window is not None
                                   or args.fading is not None):
        raise CLIError(f"{args.algo} is an anomaly detector: evaluate reports its exact "
                       "ROC AUC and average precision; --metric, --window and --fading "
                       "are for learners")
    if args.init:                       # olearn/cli/_pipeline.py: the model's own input
        return _from_model(args, params, names)
    if args.data is None:
        if args.shuffle:
            raise CLIError("--shuffle is for DATA (the embedded datasets go in their order)")
        return _embedded_table(args, params, names)
    require_data(args)
    if not args.algo:
        raise CLIError("evaluate DATA needs --algo NAME (see 'olearn algos')")
    if args.dataset:
        raise CLIError("give either DATA or --dataset, not both")
    if len(split_algos(args.algo)) != 1:
        raise CLIError("evaluate DATA takes one --algo NAME (several: without DATA)")
    model = make_model(args.algo, params)
    check_model_metrics(model, names, args.algo)
    reader = _order.ordered(args, open_data(args, weights=True))
    result = learn_progressively(model, reader, args, **_memory_kw(args, names))
    out = report_stream()       # stdout on a terminal, else stderr
    print(f"progressive validation: {args.algo} on {args.data}", file=out)
    print(summary(result), file=out)
    if result.task != "anomaly":  # (a detector's labels come in runs: attacks do)
        _order.warn_runs(reader)
    for line in _recent_lines(result):
        print(line, file=out)
    return 0


def _from_model(args, params, names):
    """``olearn evaluate DATA --init MODEL``: progressive validation of a saved model
    continued on DATA, read as the model's own input was (olearn/cli/_pipeline.py);
    nothing is saved."""
    if args.data is None:
        raise CLIError("evaluate --init MODEL needs DATA")
    if args.dataset:
        raise CLIError("give either --init MODEL with DATA or --dataset, not both")
    require_data(args)
    check_paths([("data", args.data), ("initial model", args.init)])
    args.scale = False
    model = initial_model(args, params)
    args.algo = args.algo or type(learner_of(model)).__name__
    check_model_metrics(learner_of(model), names, args.algo)
    reader = open_data(args, n_features=model_width(model), weights=True)
    result = learn_progressively(model, reader, args, **_memory_kw(args, names))
    out = report_stream()       # stdout on a terminal, else stderr
    print(f"progressive validation: {args.algo} from {args.init} on {args.data}", file=out)
    print(summary(result), file=out)
    for line in _recent_lines(result):
        print(line, file=out)
    return 0


def _memory_kw(args, names):
    kw = {}
    if args.window is not None:
        kw["window"] = args.window
    if args.fading is not None:
        kw["fading"] = args.fading
    if names is not None:
        kw["metrics"] = names
    return kw


def _recent_lines(result):
    """The windowed/faded loss beside the cumulative one, then the metric table."""
    out = []
    if result.recent is not None:
        what = "mistake rate" if result.task == "classification" else "squared error"
        out.append(f"{what} ({result.recent_label}) = {float(result.recent[-1]):.6g}")
    out += result.metric_lines()
    return out


def _ratings(args, params):
    require_data(args)
    from ._ratings import check_recommender_name, run_stream
    check_recommender_name(args.algo)
    from ..recommend.evaluate import make_recommender
    model = make_recommender(args.algo, **params)
    print(run_stream(model, args.algo, args.data), file=report_stream())
    return 0


def _embedded_table(args, params, names=None):
    from ..datasets.embedded import TASKS
    name = args.dataset or "breast_cancer"
    if name not in TASKS:
        raise CLIError(f"unknown --dataset {name!r}; embedded: {', '.join(sorted(TASKS))}")
    from .._estimator import clone

    from ..datasets.embedded import load_embedded
    from ..evaluate.progressive import progressive
    from ..registry import available
    X, y = load_embedded(name, scale="standard")    # as olearn compare does
    kind = "regressor" if TASKS[name] == "regression" else "classifier"
    algos = split_algos(args.algo) or available(kind)
    models = [(a, make_model(a, params)) for a in algos]     # bad names fail before any work
    if names is not None and len(models) == 1:
        check_model_metrics(models[0][1], names, models[0][0])
    elif names is not None:
        from ..evaluate.metrics import metrics_task
        if metrics_task(names) != TASKS[name]:
            raise CLIError(f"--metric {','.join(names)}: {metrics_task(names)} metrics, but "
                           f"{name} is a {TASKS[name]} dataset")
    metric = "mistake rate" if kind == "classifier" else "squared error"
    out = report_stream()       # stdout on a terminal, else stderr
    print(f"progressive validation on {name} ({X.shape[0]} rows, {X.shape[1]} features, "
          f"standardized), one pass in file order\n", file=out)
    mem = _memory_kw(args, names)
    extra = [] if names is None else [n for n in names]
    head = f"{'learner':<16} {metric:>14} {'updates':>9} {'rows/s':>12}" + \
        "".join(f" {n:>17}" for n in extra)
    print(head, file=out)
    print("-" * len(head), file=out)
    what = f"the {algos[0]} kernels" if len(algos) == 1 else "the kernels not yet cached"
    for algo, model in models:
        try:
            with learning(what):
                clone(model).fit(X, y)              # load or compile the kernels first
                res = progressive(model, (X, y), **mem)
                check_finite(model, algo)
        except user_errors() as exc:
            print(f"{algo:<16} {'failed: ' + one_line(exc)}", file=out)
            continue
        print(f"{algo:<16} {res.final:>14.4f} {res.n_updates:>9,} "
              f"{res.rows_per_second:>12,.0f}" + _cells(res, extra), file=out, flush=True)
    if extra and (args.window is not None or args.fading is not None):
        print("\n(metric cells: whole stream / "
              f"{'window ' + str(args.window) if args.window else 'fading ' + str(args.fading)})",
              file=out)
    return 0


def _cells(res, names):
    """One cell per metric: the whole-stream value, and the windowed/faded one after a
    slash (per-class metrics: macro F1, or the larger label's precision/recall)."""
    if not names:
        return ""
    from ..evaluate.metrics import headline
    out = ""
    for n in names:
        text = f"{headline([n], res.metrics):.4f}"
        if res.recent_metrics is not None:
            text += f" / {headline([n], res.recent_metrics):.4f}"
        out += f" {text:>17}"
    return out
