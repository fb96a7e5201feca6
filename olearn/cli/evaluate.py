"""``olearn evaluate [DATA] [--algo NAME] [--param K=V ...]``

Progressive validation only (every row predicted, then learned; nothing saved).
With DATA and --algo: one learner on the file, a summary.  Without DATA: every
registered learner of the dataset's task (or those named by --algo, comma separated)
on an embedded dataset that ships with scikit-learn (--dataset, default
breast_cancer), each column min-max scaled to [0, 1] over the whole dataset (raw
breast-cancer features span 0.001 to 4,000, which swamps the unscaled learners), in
the file's row order; a table of the results.  Rows per second are measured after
the compiled kernels are loaded.
"""
from ._common import (CLIError, USER_ERRORS, add_algo_args, add_data_args, checked_chunks,
                      make_model, one_line, open_data, parse_params)


def add_parser(subparsers):
    p = subparsers.add_parser("evaluate", help="progressive validation of learners",
                              description=__doc__.split("\n\n", 1)[1])
    add_data_args(p, data_required=False)
    add_algo_args(p, required=False)
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="embedded dataset when no DATA is given: breast_cancer (default), "
                        "diabetes, digits, iris, wine")
    return p


def run(args):
    from ..evaluate import progressive
    from .train import summary
    params = parse_params(args.param)
    if args.data is None:
        return _embedded_table(args, params)
    if not args.algo:
        raise CLIError("evaluate DATA needs --algo NAME")
    if args.dataset:
        raise CLIError("give either DATA or --dataset, not both")
    model = make_model(args.algo, params)
    result = progressive(model, checked_chunks(open_data(args)))
    print(f"progressive validation: {args.algo} on {args.data}")
    print(summary(result))
    return 0


def _embedded_table(args, params):
    from sklearn.base import clone

    from ..datasets.embedded import TASKS, load_embedded
    from ..evaluate import progressive
    from ..registry import available
    name = args.dataset or "breast_cancer"
    X, y = load_embedded(name, scale="minmax")
    kind = "regressor" if TASKS[name] == "regression" else "classifier"
    algos = [a.strip() for a in args.algo.split(",") if a.strip()] if args.algo \
        else available(kind)
    models = [(a, make_model(a, params)) for a in algos]     # bad names fail before any work
    metric = "mistake rate" if kind == "classifier" else "squared error"
    print(f"progressive validation on {name} ({X.shape[0]} rows, {X.shape[1]} features, "
          f"min-max scaled), one pass in file order\n")
    head = f"{'learner':<16} {metric:>14} {'updates':>9} {'rows/s':>12}"
    print(head)
    print("-" * len(head))
    for algo, model in models:
        try:
            clone(model).fit(X, y)                  # load or compile the kernels first
            res = progressive(model, (X, y))
        except USER_ERRORS as exc:
            print(f"{algo:<16} {'failed: ' + one_line(exc)}")
            continue
        print(f"{algo:<16} {res.final:>14.4f} {res.n_updates:>9,} "
              f"{res.rows_per_second:>12,.0f}", flush=True)
    return 0
