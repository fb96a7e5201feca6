"""``olearn predict DATA --model FILE [--output FILE]``

Writes one prediction per line (class label or regression value) for each row of
DATA, using the saved model as it is (no learning).  A LIBSVM file may have fewer
features than the model (missing trailing features are zeros), not more.  The output
file is written atomically: a failed run leaves no partial file.
"""
import contextlib

from ._common import CLIError, atomic_text, check_paths, check_writable, format_value
from ._input import add_data_args, data_format, open_data, reader_name
from . import _vw


def add_parser(subparsers):
    p = subparsers.add_parser("predict", help="predict each row of a file with a saved model",
                              description=__doc__.split("\n\n", 1)[1])
    add_data_args(p)
    p.add_argument("-i", "--model", "--initial_regressor", required=True, metavar="FILE",
                   help="a model saved by train (Vowpal Wabbit's -i)")
    p.add_argument("-p", "--output", "--predictions", metavar="FILE",
                   help="write predictions here (default: stdout; Vowpal Wabbit's -p): one a "
                        "line, a vw line's tag after it as vw does")
    p.add_argument("--scores", action="store_true",
                   help="write each row's score instead of its label: an anomaly "
                        "detector's anomaly score (higher = more anomalous, River's "
                        "score_one), another model's raw score (-r's)")
    p.add_argument("-t", "--testonly", action="store_true",
                   help="accepted for Vowpal Wabbit's habit: predict never learns")
    _vw.add_predict_args(p)   # -r, --link, --probabilities, --quiet: olearn/cli/_vw.py
    from . import _multilabel
    _multilabel.add_args(p)   # --labels-xml: olearn/cli/_multilabel.py
    return p


def run(args):
    from ._pipeline import load  # DATA is read as the model's was: olearn/cli/_pipeline.py
    check_paths([("data", args.data), ("model", args.model)],
                [("output", args.output), ("raw predictions", args.raw_predictions)])
    model = load(args.model, args)
    for what, path in (("output", args.output), ("raw predictions", args.raw_predictions)):
        if path and path != "-":
            check_writable(path, what, in_place=True)
    if args.format == "ratings" or type(model).__module__.startswith("olearn.recommend"):
        from . import _ratings      # a recommender: 'user item' lines
        return _ratings.predict(args, model)
    from . import _tagging
    if _tagging.wanted(args, model):    # a sequence tagger: CoNLL-U written back
        return _tagging.predict(args, model)
    from . import _multilabel
    if _multilabel.wanted(args, model):     # label sets (olearn/cli/_multilabel.py)
        return _multilabel.predict(args, model)
    width = model.n_features_in_
    write = _writer(model, args)
    reader = open_data(args, n_features=width)
    tags = _vw.tags(args.data) if data_format(args) == "vw" else None
    raw = atomic_text(args.raw_predictions) if args.raw_predictions else contextlib.nullcontext()
    with atomic_text(args.output) as out, raw as raw_out:
        for X, _ in reader:
            if X.shape[1] != width:
                raise CLIError(f"{reader_name(reader)} has {X.shape[1]} features but the "
                               f"model {args.model} was trained on {width}")
            names = [next(tags, "") for _ in range(X.shape[0])] if tags is not None else None
            out.write(_lines(write(X), names))
            if raw_out is not None:
                out_raw = _raw(model, X)
                raw_out.write(_lines(out_raw, names))
    return 0


def _lines(texts, names):
    """One line per row, the row's vw tag after a blank where it has one (vw's -p)."""
    if names is None:
        return "".join(f"{t}\n" for t in texts)
    return "".join(f"{t} {n}\n" if n else f"{t}\n" for t, n in zip(texts, names))


def _writer(model, args):
    """What -p writes for a chunk: the labels; with --probabilities 'class:p ...'; with
    --link logistic/glf1 the link of the raw score (checked before any row is read)."""
    if args.probabilities:
        if not hasattr(model, "predict_proba"):
            raise CLIError(f"--probabilities: the model of {args.model} "
                           f"({type(model).__name__}) gives no probabilities")

        def write(X):
            classes = [format_value(c) for c in model.classes_]
            return [" ".join(f"{c}:{p:.6g}" for c, p in zip(classes, row))
                    for row in model.predict_proba(X)]
        return write
    if args.link != "identity":
        if not hasattr(model, "decision_function") or len(getattr(model, "classes_", ())) > 2:
            raise CLIError(f"--link {args.link} needs a binary model with raw scores "
                           f"(decision_function); {args.model} has none")

        def write(X):
            import numpy as np
            s = np.asarray(model.decision_function(X), dtype=float).ravel()
            p = 1.0 / (1.0 + np.exp(-s))
            return [f"{v:.6g}" for v in (p if args.link == "logistic" else 2 * p - 1)]
        return write
    if getattr(args, "scores", False):
        if hasattr(model, "score_many") and getattr(model, "target", None) == "none":
            return lambda X: [f"{v:.6g}" for v in model.score_many(X)]
        if not hasattr(model, "decision_function") and not _is_regressor(model):
            raise CLIError(f"--scores: the model of {args.model} ({type(model).__name__}) "
                           "gives no scores")
        return lambda X: _raw(model, X)
    if args.raw_predictions and not hasattr(model, "decision_function") and \
            not _is_regressor(model):
        raise CLIError(f"-r: the model of {args.model} ({type(model).__name__}) gives no raw "
                       "scores (decision_function)")
    return lambda X: [format_value(v) for v in model.predict(X)]


def _is_regressor(model):
    from .._estimator import is_classifier
    return not is_classifier(model)


def _raw(model, X):
    """The raw scores of a chunk (a regressor's: its predictions)."""
    import numpy as np
    if not hasattr(model, "decision_function"):
        return [format_value(v) for v in model.predict(X)]
    s = np.asarray(model.decision_function(X), dtype=float)
    if s.ndim == 1:
        return [f"{v:.6g}" for v in s]
    classes = [format_value(c) for c in model.classes_]
    return [" ".join(f"{c}:{v:.6g}" for c, v in zip(classes, row)) for row in s]
