"""Sequence taggers from the shell: ``train`` and ``predict`` for CoNLL-U files
(``--task tag``, or a DATA name ending in ``.conllu``; olearn.structured), called by
those commands when the data or the model is a tagger's.

- ``olearn train en_ewt-ud-train.conllu.bz2 --task tag --algo tagger-ap --passes 5 -f
  pos.olm``: the sentences learned one at a time, the first pass in progressive
  validation (each sentence tagged before it is learned), its token and sentence
  accuracy printed at doubling checkpoints as Vowpal Wabbit prints its loss; later
  passes (``--shuffle``: every pass in a random order from ``--seed``) report the
  accuracy of their pre-update tags; the model saved with its input (the CoNLL-U
  column, the tagger's feature template).  ``--init MODEL`` continues a saved tagger.
- ``olearn predict en_ewt-ud-test.conllu -i pos.olm -p out.conllu``: the file written
  back with the predicted tags in the model's column (comments, multiword tokens and
  empty nodes as they were); on stderr (unless ``--quiet``) the time and the accuracy
  against the file's own tags in that column.
- ``olearn evaluate en_ewt-ud-train.conllu.bz2 --task tag --algo tagger-ap``: progressive
  validation only (one pass, each sentence tagged before it is learned; ``--shuffle``
  in a random order from ``--seed``; ``--init MODEL`` continues a saved tagger),
  the token and sentence accuracy at doubling checkpoints and in the summary;
  nothing is saved.
"""
import os
import sys
import time

from ._common import CLIError, atomic_text, check_paths, check_writable, report_stream

#: train options that a tagger's run does not take, and why
_NOT_FOR_TAGGING = {"holdout": "--holdout", "scale": "--scale", "cache": "--cache",
                    "server": "--server", "readable_model": "--readable_model",
                    "predictions": "-p", "testonly": "-t", "oaa": "--oaa"}


def wanted(args, model=None):
    """Whether this command is a tagger's: ``--task tag``, DATA in CoNLL-U (by --format
    or its name), or a saved model that tags."""
    from ._input import data_format
    if getattr(args, "task", None) == "tag" or model is not None and \
            getattr(model, "target", None) == "sequence":
        return True
    return args.data not in (None, "-") and data_format(args) == "conllu"


def check_tagger_name(name, init=False):
    """A one-line error for a name that is not a sequence tagger."""
    from ..registry import SEQUENCE_MODELS, unknown_name_message
    if not name:
        raise CLIError("--task tag needs --algo NAME, a sequence tagger: "
                       f"{', '.join(SEQUENCE_MODELS)}" + (" (or --init MODEL)" if init else ""))
    if name not in SEQUENCE_MODELS:
        raise CLIError(unknown_name_message(name, list(SEQUENCE_MODELS)).replace(
            "unknown algorithm", "not a sequence tagger:"))


def _read(args):
    """The CoNLL-U file of DATA, read whole (its sentences, tags and lines)."""
    from ..io import CoNLLU
    if args.data in (None, "-") or not os.path.isfile(args.data):
        raise CLIError(f"{args.data}: no such file (a tagger reads a CoNLL-U file)")
    return CoNLLU(args.data, column=args.column)


def train(args, params):
    """``olearn train DATA --task tag``: progressive validation over the sentences, more
    passes if asked, then the model saved (only when every pass completed)."""
    for key, flag in _NOT_FOR_TAGGING.items():
        if getattr(args, key, None):
            raise CLIError(f"{flag} is not for --task tag")
    if getattr(args, "workers", None) is not None or getattr(args, "scheduler", None):
        raise CLIError("--workers and --scheduler are not for --task tag from the command "
                       "line (use olearn.distributed.fit from Python)")
    if args.passes < 1:
        raise CLIError(f"--passes must be >= 1, got {args.passes}")
    check_paths([("data", args.data), ("initial model", args.init)], [("model", args.model)])
    if args.model:
        check_writable(args.model, "model")
    model = _model(args, params)
    doc = _read(args)
    X, y = doc.tokens, doc.tags
    name = args.algo or type(model).__name__
    out = report_stream()
    quiet = args.quiet
    from ._learning import learning
    t0 = time.perf_counter()
    from .._compile_notice import seconds
    before = seconds()
    with learning(f"the {name} kernels"):
        first = _progressive(model, X, y, None if quiet else out, args)
        for k in range(1, args.passes):
            order = _order(args, len(X), k)
            pred = model.predict_learn([X[i] for i in order], [y[i] for i in order])
            tokens, hits, _, _ = _counts(pred, [y[i] for i in order])
            if not quiet:
                print(f"pass {k + 1}: token accuracy {hits / max(tokens, 1):.6f} before "
                      "each update (sentences learned in earlier passes: not a "
                      "progressive estimate)", file=out)
    total = time.perf_counter() - t0
    compiled = min(seconds() - before, total)
    if not quiet:
        print(f"\nfinished: {name} on {args.data}", file=out)
        _summary(model, first, args, total - compiled, compiled, args.passes, out)
    if args.model:
        from . import _pipeline
        _pipeline.save(model, args.model, args)
        if not quiet:
            print(f"model saved to {args.model}", file=out)
    return 0


def _summary(model, first, args, spent, compiled, passes, out):
    """The summary lines: counts, the progressive accuracies, updates, time."""
    tokens, hits, sentences, whole = first
    print(f"sentences = {sentences:,}, tokens = {tokens:,}, tags = "
          f"{len(model.classes_)} ({args.column})", file=out)
    print(f"progressive token accuracy = {hits / max(tokens, 1):.6f}\n"
          f"progressive sentence accuracy = {whole / max(sentences, 1):.6f}", file=out)
    print(f"updates = {model.n_updates_:,} of {model.t_:,} rounds", file=out)
    print(f"time = {spent:.3f} s ({passes * tokens / spent if spent > 0 else 0:,.0f}"
          f" tokens/s over {passes} pass{'es' if passes > 1 else ''})" +
          (f", and {compiled:.3f} s compiling (first use)" if compiled > 0.0005 else ""),
          file=out)


def evaluate(args, params):
    """``olearn evaluate DATA --task tag``: progressive validation over the sentences
    (one pass, each tagged before it is learned), token and sentence accuracy; nothing
    is saved."""
    for flag, given in (("--metric", args.metric), ("--window", args.window),
                        ("--fading", args.fading), ("--dataset", args.dataset)):
        if given is not None:
            raise CLIError(f"{flag} is not for --task tag (it reports token and sentence "
                           "accuracy on DATA)")
    if args.data is None:
        raise CLIError("evaluate --task tag needs DATA, a CoNLL-U file")
    check_paths([("data", args.data), ("initial model", args.init)])
    model = _model(args, params)
    doc = _read(args)
    name = args.algo or type(model).__name__
    out = report_stream()
    from ._learning import learning
    from .._compile_notice import seconds
    t0, before = time.perf_counter(), seconds()
    with learning(f"the {name} kernels"):
        first = _progressive(model, doc.tokens, doc.tags, out, args)
    total = time.perf_counter() - t0
    compiled = min(seconds() - before, total)
    print(f"\nprogressive validation: {name}" +
          (f" from {args.init}" if args.init else "") + f" on {args.data}", file=out)
    _summary(model, first, args, total - compiled, compiled, 1, out)
    return 0


def _model(args, params):
    """The tagger of --algo (with --param), or the saved one of --init (its parameters
    changed by --param)."""
    if args.init:
        if not os.path.isfile(args.init):
            raise CLIError(f"{args.init}: no such model file")
        if args.algo:
            check_tagger_name(args.algo)
    else:
        check_tagger_name(args.algo, init=True)
    if args.init:
        from . import _pipeline
        model = _pipeline.load(args.init, args)
        if getattr(model, "target", None) != "sequence":
            raise CLIError(f"{args.init} holds a {type(model).__name__}, not a sequence "
                           "tagger: --task tag continues only a tagger")
        if params:
            model.set_params(**params)
    else:
        from ._models import make_model
        model = make_model(args.algo, params)
    return model


def _order(args, n, k):
    """The order of pass ``k``: the file's, or with --shuffle a random one from --seed."""
    if not getattr(args, "shuffle", False):
        return range(n)
    import numpy as np
    return np.random.default_rng([args.seed, k]).permutation(n).tolist()


def _counts(pred, gold):
    """(tokens, tokens right, sentences, sentences wholly right)."""
    tokens = hits = whole = 0
    for p, g in zip(pred, gold):
        right = sum(a == b for a, b in zip(p, g))
        tokens += len(g)
        hits += right
        whole += right == len(g)
    return tokens, hits, len(gold), whole


def _progressive(model, X, y, out, args):
    """The first pass: each sentence tagged, then learned; the accuracies at doubling
    checkpoints (sentences 1, 2, 4, ...: one ``predict_learn`` call between two)."""
    order = list(_order(args, len(X), 0))
    if out is not None:
        print(f"{'token':<10} {'since':<10} {'sentence':<10} {'sentences':>10} "
              f"{'tokens':>10}\n{'accuracy':<10} {'last':<10} {'accuracy':<10}", file=out)
    tokens = hits = whole = 0
    start, step = 0, 1
    while start < len(order):
        part = order[start:start + step]
        gold = [y[i] for i in part]
        pred = model.predict_learn([X[i] for i in part], gold)
        t, h, _, w = _counts(pred, gold)
        tokens, hits, whole = tokens + t, hits + h, whole + w
        start += len(part)
        if out is not None:
            print(f"{hits / max(tokens, 1):<10.6f} {h / max(t, 1):<10.6f} "
                  f"{whole / start:<10.6f} {start:>10d} {tokens:>10d}", file=out, flush=True)
        step *= 2
    return tokens, hits, len(order), whole


def predict(args, model):
    """``olearn predict DATA -i TAGGER``: DATA written back as CoNLL-U with the predicted
    tags in the model's column."""
    if getattr(model, "target", None) != "sequence":
        raise CLIError(f"{args.model} holds a {type(model).__name__}, not a sequence "
                       "tagger: a CoNLL-U file is tagged by a tagger (train one with "
                       "--task tag --algo tagger-ap)")
    model.predict([["."]])   # (the compiled kernels loaded: start-up, not tagging)
    t0, c0 = time.perf_counter(), time.process_time()
    doc = _read(args)
    pred = model.predict(doc.tokens)
    with atomic_text(args.output) as out:
        doc.write(pred, out)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if not getattr(args, "quiet", False):
        tokens, hits, sentences, whole = _counts(pred, doc.tags)
        print(f"tagged {sentences:,} sentences, {tokens:,} tokens in {seconds:.3f} s, "
              f"{cpu:.3f} s CPU ({tokens / max(seconds, 1e-9):,.0f} tokens/s, "
              f"{tokens / max(cpu, 1e-9):,.0f} per CPU second; reading and writing "
              f"included); against the file's {args.column}: token accuracy "
              f"{hits / max(tokens, 1):.6f}, sentence accuracy "
              f"{whole / max(sentences, 1):.6f}", file=sys.stderr)
    return 0
