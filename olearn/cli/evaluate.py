"""``olearn evaluate [DATA] [--algo NAME] [--param K=V ...]``

Progressive validation only (every row predicted, then learned; nothing saved).
With DATA and --algo: one learner on the file, a summary.  Without DATA: every
registered learner of the dataset's task (or those named by --algo, comma separated)
on an embedded dataset that ships with scikit-learn (--dataset, default
breast_cancer), each column min-max scaled to [0, 1] over the whole dataset (raw
breast-cancer features span 0.001 to 4,000, which swamps the unscaled learners), in
the file's row order; a table of the results.  Rows per second are measured after
the compiled kernels are loaded.  A learner whose weights become NaN or infinite is
reported as diverged.  'olearn evaluate --algo NAME --help' lists its parameters.
"""
from ._common import (CLIError, add_algo_args, add_data_args, check_algos, check_finite,
                      learn_progressively, learning, make_model, one_line, open_data,
                      parse_params, require_data, split_algos, user_errors)


def add_parser(subparsers):
    p = subparsers.add_parser("evaluate", help="progressive validation of learners",
                              description=__doc__.split("\n\n", 1)[1], add_help=False)
    add_data_args(p, data_required=False)
    add_algo_args(p, metavar="NAME[,NAME...]")
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="embedded dataset when no DATA is given: breast_cancer (default), "
                        "diabetes, digits, iris, wine")
    return p


def run(args):
    # cheap checks first: nothing heavy is imported until they pass
    params = parse_params(args.param)
    if args.format == "ratings":  # a rating stream: olearn.recommend
        return _ratings(args, params)
    check_algos(split_algos(args.algo))
    if args.data is None:
        return _embedded_table(args, params)
    require_data(args)
    if not args.algo:
        raise CLIError("evaluate DATA needs --algo NAME (see 'olearn algos')")
    if args.dataset:
        raise CLIError("give either DATA or --dataset, not both")
    if len(split_algos(args.algo)) != 1:
        raise CLIError("evaluate DATA takes one --algo NAME (several: without DATA)")
    from .train import summary
    model = make_model(args.algo, params)
    result = learn_progressively(model, open_data(args), args)
    print(f"progressive validation: {args.algo} on {args.data}")
    print(summary(result))
    return 0


def _ratings(args, params):
    require_data(args)
    if not args.algo:
        raise CLIError("evaluate DATA --format ratings needs --algo NAME (baseline, "
                       "funk-mf, biased-mf, online-pmf, brand-svd)")
    from ..recommend.evaluate import evaluate_stream, make_recommender, summary
    model = make_recommender(args.algo, **params)
    with learning(f"the {args.algo} kernels"):
        result = evaluate_stream(model, args.data)
    print(summary(args.algo, args.data, result))
    return 0


def _embedded_table(args, params):
    from ..datasets.embedded import TASKS
    name = args.dataset or "breast_cancer"
    if name not in TASKS:
        raise CLIError(f"unknown --dataset {name!r}; embedded: {', '.join(sorted(TASKS))}")
    from sklearn.base import clone

    from ..datasets.embedded import load_embedded
    from ..evaluate.progressive import progressive
    from ..registry import available
    X, y = load_embedded(name, scale="minmax")
    kind = "regressor" if TASKS[name] == "regression" else "classifier"
    algos = split_algos(args.algo) or available(kind)
    models = [(a, make_model(a, params)) for a in algos]     # bad names fail before any work
    metric = "mistake rate" if kind == "classifier" else "squared error"
    print(f"progressive validation on {name} ({X.shape[0]} rows, {X.shape[1]} features, "
          f"min-max scaled), one pass in file order\n")
    head = f"{'learner':<16} {metric:>14} {'updates':>9} {'rows/s':>12}"
    print(head)
    print("-" * len(head))
    what = f"the {algos[0]} kernels" if len(algos) == 1 else "the kernels not yet cached"
    for algo, model in models:
        try:
            with learning(what):
                clone(model).fit(X, y)              # load or compile the kernels first
                res = progressive(model, (X, y))
                check_finite(model, algo)
        except user_errors() as exc:
            print(f"{algo:<16} {'failed: ' + one_line(exc)}")
            continue
        print(f"{algo:<16} {res.final:>14.4f} {res.n_updates:>9,} "
              f"{res.rows_per_second:>12,.0f}", flush=True)
    return 0
