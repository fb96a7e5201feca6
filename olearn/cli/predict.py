"""``olearn predict DATA --model FILE [--output FILE]``

Writes one prediction per line (class label or regression value) for each row of
DATA, using the saved model as it is (no learning).  A LIBSVM file may have fewer
features than the model (missing trailing features are zeros), not more.  The output
file is written atomically: a failed run leaves no partial file.
"""
from ._common import CLIError, atomic_text, check_paths, check_writable, format_value
from ._input import add_data_args, open_data, reader_name


def add_parser(subparsers):
    p = subparsers.add_parser("predict", help="predict each row of a file with a saved model",
                              description=__doc__.split("\n\n", 1)[1])
    add_data_args(p)
    p.add_argument("-i", "--model", required=True, metavar="FILE",
                   help="a model saved by train (Vowpal Wabbit's -i)")
    p.add_argument("-p", "--output", metavar="FILE",
                   help="write predictions here (default: stdout; Vowpal Wabbit's -p)")
    p.add_argument("-t", "--testonly", action="store_true",
                   help="accepted for Vowpal Wabbit's habit: predict never learns")
    return p


def run(args):
    from ._pipeline import load  # DATA is read as the model's was: olearn/cli/_pipeline.py
    check_paths([("data", args.data), ("model", args.model)], [("output", args.output)])
    model = load(args.model, args)
    if args.output and args.output != "-":
        check_writable(args.output, "output", in_place=True)
    if args.format == "ratings" or type(model).__module__.startswith("olearn.recommend"):
        from . import _ratings      # a recommender: 'user item' lines
        return _ratings.predict(args, model)
    width = model.n_features_in_
    reader = open_data(args, n_features=width)
    with atomic_text(args.output) as out:
        for X, _ in reader:
            if X.shape[1] != width:
                raise CLIError(f"{reader_name(reader)} has {X.shape[1]} features but the "
                               f"model {args.model} was trained on {width}")
            out.write("".join(f"{format_value(v)}\n" for v in model.predict(X)))
    return 0
