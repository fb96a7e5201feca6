"""``olearn train DATA --algo NAME [--param K=V ...] [--model FILE]``

Streams DATA through the learner (constant memory), printing the progressive loss at
doubling checkpoints as Vowpal Wabbit does: the mean loss since the start and since
the previous line, the row count, and the label and prediction of that row.  The
table and the summary go to standard output on a terminal, else to standard error.  The
loss is the mistake rate for classifiers and the squared error for regressors.  The
model is saved (atomically) only when the whole file was learned and its weights are
all finite: a learner that diverges stops the run with an error and saves nothing.
'olearn train --algo NAME --help' lists the learner's parameters.
"""
import contextlib
import io
import os
import sys
import tempfile
import time

from ._common import (CLIError, add_algo_args, check_algos, check_paths, check_writable,
                      is_detector,
                      format_value, parse_params, report_stream)
from ._input import add_data_args, open_data, require_data
from ._learning import learn_progressively, summary
from ._models import initial_model, learner_of, model_width
from ._remote import add_server_args, train_remote
from . import _advice, _multilabel, _order, _vw

#: a closed standard output (``| head``) drops the printout, not the model
GOES_ON_WHEN_STDOUT_CLOSES = True


def add_parser(subparsers):
    p = subparsers.add_parser("train", help="learn from a file, printing the progressive loss",
                              description=__doc__.split("\n\n", 1)[1], add_help=False)
    add_data_args(p)
    add_algo_args(p)
    p.add_argument("-f", "--model", "--final_regressor", metavar="FILE",
                   help="save the trained model here (.olm; Vowpal Wabbit's -f)")
    p.add_argument("--task", choices=("tag", "multilabel"), default=None,
                   help="tag: sequence labelling, a tag per word of a CoNLL-U file "
                        "(--algo tagger-ap, tagger-pa1, ...; the default for a .conllu "
                        "DATA), progressive token and sentence accuracy printed; "
                        + _multilabel.TASK_HELP)
    _multilabel.add_args(p)   # --labels-xml: olearn/cli/_multilabel.py
    p.add_argument("--quiet", action="store_true",
                   help="print nothing but errors (no table, no summary; Vowpal Wabbit's)")
    g = p.add_argument_group("learning")
    g.add_argument("-i", "--init", "--initial_regressor", metavar="MODEL",
                   help="continue learning from a model saved by train (Vowpal Wabbit's -i); "
                        "--algo may be left out, --param changes its parameters")
    g.add_argument("--scale", action="store_true",
                   help="standardise each feature with running statistics before the learner "
                        "(olearn.preprocessing.Scaled: sparse rows scaled, dense rows also "
                        "centred); saved with the model")
    g.add_argument("--holdout", type=int, default=0, metavar="N",
                   help="hold out every N-th row: predicted by the model as it stands at "
                        "the start of its chunk, never learned; its loss is reported")
    g.add_argument("--passes", type=int, default=1, metavar="N",
                   help="passes over the data (default 1); the first writes a binary cache "
                        "that the others read")
    g.add_argument("--cache", metavar="FILE",
                   help="the cache of --passes (default: in olearn's cache folder, "
                        "$OLEARN_CACHE_DIR or ~/.cache/olearn/passes, reused while DATA and "
                        "the reading options are unchanged; with stdin a temporary file)")
    _vw.add_train_args(p)   # --loss_function, -l, --l1, --oaa, -c ...: olearn/cli/_vw.py
    _order.add_args(p)  # --shuffle, --seed: olearn/cli/_order.py
    add_server_args(p)  # --server URL --name NAME: olearn/cli/_remote.py
    from . import _distributed
    _distributed.add_args(p)   # --workers, --scheduler, --mixing, --epochs: on Dask
    return p


class ProgressPrinter:
    """Vowpal Wabbit's progress table, one line per checkpoint."""

    HEADER = (f"{'average':<10} {'since':<10} {'example':>10} {'current':>12} {'current':>12}\n"
              f"{'loss':<10} {'last':<10} {'counter':>10} {'label':>12} {'predict':>12}")

    def __init__(self, out=None):
        self.out = out or report_stream()
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


def run(args):
    _order.check(args)
    if args.server:
        return train_remote(args)
    # cheap checks first: nothing heavy is imported until they pass
    params = parse_params(args.param)
    if args.format == "ratings":    # a recommender (olearn/cli/_ratings.py)
        from . import _ratings
        return _ratings.train(args, params)
    from . import _tagging
    if _tagging.wanted(args):       # a sequence tagger (olearn/cli/_tagging.py)
        return _tagging.train(args, params)
    from . import _multilabel
    if _multilabel.wanted(args):    # label sets (olearn/cli/_multilabel.py)
        return _multilabel.train(args, params)
    from . import _distributed
    if _distributed.wanted(args):   # a run on Dask (olearn/cli/_distributed.py)
        if args.algo:
            check_algos([args.algo])
        elif not args.init:
            raise CLIError("train needs --algo NAME (see 'olearn algos') or --init MODEL")
        return _distributed.run(args, params)
    require_data(args)
    if args.passes < 1:
        raise CLIError(f"--passes must be >= 1, got {args.passes}")
    if args.holdout < 0 or args.holdout == 1:
        raise CLIError(f"--holdout must be 0 (none) or >= 2, got {args.holdout}")
    _vw.check_train(args)
    if args.testonly and not args.init:
        raise CLIError("-t (test only: nothing learned) needs -i MODEL, the model to test")
    if args.testonly and (args.model or args.passes > 1 or args.holdout):
        raise CLIError("-t learns nothing: -f, --passes and --holdout do not apply "
                       "(the model is the one of -i)")
    if args.init:
        if not os.path.isfile(args.init):
            raise CLIError(f"{args.init}: no such model file")
    elif not args.algo:
        from ._input import data_format
        if data_format(args) != "vw":
            raise CLIError("train needs --algo NAME (see 'olearn algos') or --init MODEL "
                           "(a Vowpal Wabbit file has a default learner: ndag)")
        args.algo = _vw.default_algo(args)   # vw's habit: adaptive, normalised
        params = {**_vw.default_params(args.algo, args), **params}
        if not args.quiet:
            print(f"olearn: no --algo: the default learner {args.algo} (normalised adaptive "
                  "steps, as vw's default)", file=sys.stderr)
    if args.algo and is_detector(args.algo):
        if args.holdout or args.oaa or args.predictions or args.testonly:
            raise CLIError(f"{args.algo} is an anomaly detector: --holdout, --oaa, -p and "
                           "-t are for learners (olearn predict -i MODEL writes its scores)")
    elif args.algo:
        check_algos([args.algo])
        params = _vw.learner_params(args, args.algo, params)
    elif _vw_learning_options(args):
        raise CLIError("--loss_function, -l, --power_t, --l1 and --l2 with -i/--init need "
                       "--algo NAME (the saved learner's name) to map them")
    if args.oaa and args.algo:
        _check_classifier(args.algo)
    from ..io import is_stream
    if args.vw_cache and not args.cache and not is_stream(args.data):
        args.cache = _default_cache(args.data)
    cache = (args.cache or _default_cache(args.data)) if (
        args.passes > 1 or args.cache) and not is_stream(args.data) else None
    if args.readable_model:
        check_writable(args.readable_model, "readable model", in_place=True)
    check_paths([("data", args.data), ("initial model", args.init)],
                [("model", args.model), ("cache", cache), ("predictions", args.predictions),
                 ("readable model", args.readable_model)])
    if args.predictions and args.predictions != "-":
        check_writable(args.predictions, "predictions", in_place=True)
    if args.model:
        check_writable(args.model, "model")
    if args.kill_cache and cache and os.path.isfile(cache):
        os.remove(cache)        # (-k: written afresh)
    model = initial_model(args, params)
    algo = args.algo or type(learner_of(model)).__name__
    args.algo = algo
    width = model_width(model) if args.init else None
    reader = _order.ordered(args, open_data(args, n_features=width, weights=True))
    # stdout on a terminal, else stderr; --quiet: nowhere (a few summary lines kept here)
    out = report_stream() if not args.quiet else io.StringIO()
    if args.testonly:       # vw's -t: predictions of the model as it is, nothing learned
        return _test_only(args, model, reader, out)
    # (a detector's progress is its ROC AUC, known at the end: the summary says it)
    printer = None if args.quiet or is_detector(algo) else ProgressPrinter(out)
    note = "; the model was not saved" if args.model else ""
    held = _Holdout(args.holdout)
    t0 = time.perf_counter()
    with _passes(args, reader) as passes, _progressive_predictions(args, model) as preds:
        for k, chunks in enumerate(passes):
            # held-out rows are scored here, between learning calls (not in the reader's
            # thread, which runs ahead)
            split = (lambda stream: held.split(model, stream)) if args.holdout else None
            result = learn_progressively(model, chunks, args, note, transform=split,
                                         on_checkpoint=printer if k == 0 else None,
                                         file_reader=reader if k == 0 else chunks)
            if k == 0:
                first = result
                if preds is not None:   # (-p: the first pass only, the progressive one)
                    preds["first"] = False
            else:
                print(f"pass {k + 1}: mean loss {result.final:.6f} over {result.n_rows:,} rows "
                      "(rows already learned in earlier passes: not a progressive estimate)",
                      file=out)
    total = time.perf_counter() - t0
    print(f"\nfinished: {algo} on {args.data}", file=out)
    print(summary(first), file=out)
    if args.passes > 1:
        print(f"passes = {args.passes}, whole command {total:.3f} s", file=out)
    if args.holdout:
        print(held.report(), file=out)
    if not args.quiet and not is_detector(algo):  # (attacks come in runs)
        _order.warn_runs(reader)
    if args.model and not args.init and not args.quiet:
        advice = _advice.averaging_note(learner_of(model), params, algo)
        if advice:
            print(advice, file=sys.stderr)
    if args.oaa:
        _vw.check_classes(learner_of(model), args.oaa)
    if args.model:  # with how DATA was read (olearn/cli/_pipeline.py)
        from . import _pipeline
        _pipeline.save(model, args.model, args, reader)
        print(f"model saved to {args.model}", file=out)
    if args.readable_model:
        from ._input import data_format
        width = getattr(learner_of(model), "n_features_in_", 0)
        _vw.write_readable(learner_of(model), args.readable_model, algo,
                           width.bit_length() - 1 if data_format(args) in ("vw", "text")
                           and width and not width & (width - 1) else None)
    return 0


@contextlib.contextmanager
def _progressive_predictions(args, model):
    """-p FILE (vw's, on train): each row's prediction before it is learned, first pass
    only, the vw tag after it (held-out rows are not learned: not written).  The model's
    ``predict_learn`` is wrapped for the run (an instance attribute, removed after)."""
    if not args.predictions:
        yield
        return
    from ._common import atomic_text
    from ._input import data_format
    tags = _vw.tags(args.data) if data_format(args) == "vw" and not args.holdout else None
    learn = model.predict_learn
    state = {"first": True}
    with atomic_text(args.predictions) as f:
        def predict_learn(X, y, **kw):
            pred = learn(X, y, **kw)
            if state["first"]:
                names = [next(tags, "") for _ in range(len(pred))] if tags is not None \
                    else [""] * len(pred)
                f.write("".join(f"{format_value(v)} {n}\n" if n else f"{format_value(v)}\n"
                                for v, n in zip(pred, names)))
            return pred
        model.predict_learn = predict_learn
        try:
            yield state
        finally:
            del model.predict_learn


def _test_only(args, model, reader, out):
    """train -t -i MODEL: each row predicted by the saved model, nothing learned (vw's
    test-only pass): the loss, and -p the predictions with their tags."""
    import numpy as np
    from .._estimator import is_classifier
    from ._common import atomic_text
    from ._input import checked_chunks, data_format
    classify = is_classifier(learner_of(model))
    tags = _vw.tags(args.data) if data_format(args) == "vw" else None
    n, loss = 0, 0.0
    target = atomic_text(args.predictions) if args.predictions else contextlib.nullcontext()
    with target as f:
        for X, y, _ in checked_chunks(reader):
            pred = model.predict(X)
            if classify:
                loss += float(np.sum(np.asarray(pred) != y))
            else:
                loss += float(np.sum((np.asarray(pred, dtype=float) - y) ** 2))
            n += len(y)
            if f is not None:
                names = [next(tags, "") for _ in range(len(pred))] if tags is not None \
                    else [""] * len(pred)
                f.write("".join(f"{format_value(v)} {t}\n" if t else f"{format_value(v)}\n"
                                for v, t in zip(pred, names)))
    what = "mistake rate" if classify else "squared error"
    print(f"test only (nothing learned): {args.algo} from {args.init} on {args.data}\n"
          f"rows = {n:,}\n{what} = {loss / max(n, 1):.6f}", file=out)
    return 0


def _vw_learning_options(args):
    return any(getattr(args, k) is not None for k in
               ("loss_function", "learning_rate", "power_t", "l1", "l2"))


def _check_classifier(algo):
    from ..registry import lookup
    from .._estimator import is_classifier
    cls, _ = lookup(algo)
    if not is_classifier(cls()):
        raise CLIError(f"--oaa: {algo} is a regressor; give a classifier (e.g. ndag)")


class _Holdout:
    """Every ``period``-th row of the stream is held out: scored, never learned."""

    def __init__(self, period):
        self.period = period
        self.offset = 0
        self.n = 0
        self.loss = 0.0
        self.task = None

    def split(self, model, chunks):
        import numpy as np
        from .._estimator import is_classifier
        classify = is_classifier(learner_of(model))
        self.task = "mistake rate" if classify else "squared error"
        for X, y, w in chunks:
            rows = np.arange(self.offset, self.offset + len(y))
            self.offset += len(y)
            hold = rows % self.period == self.period - 1
            if hold.any() and _has_learned(model):
                pred = model.predict(X[hold])
                if classify:
                    self.loss += float(np.sum(np.asarray(pred) != y[hold]))
                else:
                    self.loss += float(np.sum((np.asarray(pred, dtype=float) - y[hold]) ** 2))
                self.n += int(hold.sum())
            keep = ~hold
            if keep.any():
                yield X[keep], y[keep], (None if w is None else w[keep])

    def report(self):
        if not self.n:
            return f"holdout: no row scored (every {self.period}th row, after the first chunk)"
        return (f"holdout {self.task} = {self.loss / self.n:.6f} over {self.n:,} rows "
                f"(every {self.period}th row, never learned)")


def _has_learned(model):
    return bool(model.__sklearn_is_fitted__())  # (the protocol's question)


def _default_cache(data):
    """A cache file for ``data`` in olearn's own cache folder (never beside the data,
    whose folder may be shared or read-only), named from the data's absolute path."""
    import hashlib
    base = os.environ.get("OLEARN_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "olearn")
    folder = os.path.join(base, "passes")
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha256(os.path.abspath(data).encode()).hexdigest()[:20]
    return os.path.join(folder, f"{os.path.basename(data)[:40]}-{name}.cache")


@contextlib.contextmanager
def _passes(args, reader):
    """The chunks of each pass: the reader, then (--passes > 1) the binary cache that the
    first pass writes (under a temporary name, renamed once the pass is complete)."""
    if args.passes == 1 and not args.cache:
        yield [reader]
        return
    from ..io.pipeline import cache_matches, cached, read_cache, source_key
    options = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in vars(args).items()
               if k in ("format", "chunk_size", "n_features", "zero_based", "label", "header",
                        "delimiter", "bits", "quadratic", "cubic", "ignore", "ngram",
                        "shuffle", "seed")}
    options["width"] = getattr(reader, "n_features", None)
    temporary = None
    from ..io import is_stream
    if is_stream(args.data):     # (stdin, <(zcat f): nothing to key a kept cache on)
        fd, temporary = tempfile.mkstemp(prefix="olearn-", suffix=".cache")
        os.close(fd)
        path, key = temporary, {"source": "<stdin>", "pid": os.getpid(), "options": options}
    else:
        path = args.cache or _default_cache(args.data)
        check_writable(path, "cache")
        key = source_key(args.data, **options)

    def passes():
        if cache_matches(path, key) and temporary is None:
            if not args.quiet:
                print(f"olearn: reading the cache {path}", file=sys.stderr)
            yield read_cache(path, key)
        else:
            yield cached(reader, path, key)
        for _ in range(args.passes - 1):
            yield read_cache(path, key)
    try:
        yield passes()
    finally:
        if temporary is not None and os.path.exists(temporary):
            os.remove(temporary)
