"""``olearn train DATA --algo NAME [--param K=V ...] [--model FILE]``

Streams DATA through the learner (constant memory), printing the progressive loss at
doubling checkpoints as Vowpal Wabbit does: the mean loss since the start and since
the previous line, the row count, and the label and prediction of that row.  The
loss is the mistake rate for classifiers and the squared error for regressors.  The
model is saved (atomically) only when the whole file was learned and its weights are
all finite: a learner that diverges stops the run with an error and saves nothing.
'olearn train --algo NAME --help' lists the learner's parameters.
"""
import sys

from ._common import (CLIError, add_algo_args, add_data_args, check_algos, check_writable,
                      format_value, learn_progressively, make_model, open_data,
                      parse_params, require_data)


def add_parser(subparsers):
    p = subparsers.add_parser("train", help="learn from a file, printing the progressive loss",
                              description=__doc__.split("\n\n", 1)[1], add_help=False)
    add_data_args(p)
    add_algo_args(p)
    p.add_argument("--model", metavar="FILE", help="save the trained model here (.olm)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    return p


class ProgressPrinter:
    """Vowpal Wabbit's progress table, one line per checkpoint."""

    HEADER = (f"{'average':<10} {'since':<10} {'example':>10} {'current':>12} {'current':>12}\n"
              f"{'loss':<10} {'last':<10} {'counter':>10} {'label':>12} {'predict':>12}")

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.started = False

    def __call__(self, cp):
        if not self.started:                # at the first checkpoint, not before
            print(self.HEADER, file=self.out)
            self.started = True
        print(f"{cp.mean:<10.6f} {cp.since_last:<10.6f} {cp.rows:>10d} "
              f"{_cell(cp.label):>12} {_cell(cp.prediction):>12}", file=self.out, flush=True)


def _cell(v):
    text = format_value(v)
    return text if len(text) <= 12 else f"{float(text):.6g}" if _is_num(text) else text[:11] + "~"


def _is_num(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def summary(result):
    """The closing lines shared by train and evaluate."""
    lines = [f"rows = {result.n_rows:,}"]
    if result.task == "classification":
        lines.append(f"mistake rate = {result.final:.6f} ({result.n_mistakes:,} mistakes)")
    else:
        lines.append(f"squared error = {result.final:.6g}, absolute error = "
                     f"{float(result.mae[-1]):.6g} (means)")
    lines.append(f"updates = {result.n_updates:,}")
    lines.append(f"time = {result.total_seconds:.3f} s ({result.seconds:.3f} s learning, "
                 f"{result.rows_per_second:,.0f} rows/s)")
    return "\n".join(lines)


def run(args):
    # cheap checks first: nothing heavy is imported until they pass
    params = parse_params(args.param)
    require_data(args)
    if not args.algo:
        raise CLIError("train needs --algo NAME (see 'olearn algos')")
    check_algos([args.algo])
    if args.model:
        check_writable(args.model, "model")
    model = make_model(args.algo, params)
    reader = open_data(args)
    printer = None if args.quiet else ProgressPrinter()
    note = "; the model was not saved" if args.model else ""
    result = learn_progressively(model, reader, args, note, on_checkpoint=printer)
    print(f"\nfinished: {args.algo} on {args.data}")
    print(summary(result))
    if args.model:
        model.save(args.model)
        print(f"model saved to {args.model}")
    return 0
