"""Recommenders from the shell: ``train``, ``predict`` and ``--init`` for ``--format
ratings`` ('user item rating [timestamp]' lines; olearn.recommend), called by those
commands when the data or the model is a rating stream.

- ``olearn train ratings.tsv --format ratings --algo biased-mf --model reco.olm``:
  progressive RMSE/MAE and hit rate over the stream (timestamp order), the model saved;
  ``--init reco.olm`` continues a saved recommender.
- ``olearn predict pairs.tsv --model reco.olm``: one predicted rating per line of
  'user item [...]' lines, in the file's order (a recommender reads ratings: --format
  may be left out, another format is an error).
"""
import os

from ._common import (CLIError, atomic_text, check_paths, check_writable, format_value,
                      report_stream)


def check_recommender_name(name, init=False):
    """A one-line error for a name that is not a recommender (with the close ones)."""
    from ..recommend import RECOMMENDERS
    if not name:
        raise CLIError("--format ratings needs --algo NAME, a recommender: "
                       f"{', '.join(sorted(RECOMMENDERS))}" + (" (or --init MODEL)" if init
                                                                else ""))
    if name not in RECOMMENDERS:
        import difflib
        close = difflib.get_close_matches(name.lower(), RECOMMENDERS, n=2, cutoff=0.5)
        hint = f"did you mean {' or '.join(map(repr, close))}?" if close else \
            f"recommenders: {', '.join(sorted(RECOMMENDERS))}"
        raise CLIError(f"--format ratings: {name!r} is not a recommender; {hint} "
                       "(see 'olearn algos')")


def _is_recommender(model):
    return type(model).__module__.startswith("olearn.recommend.")


def train(args, params):
    """``olearn train DATA --format ratings``: progressive validation, then the model
    saved (only when the whole stream was learned)."""
    if args.init:
        if not os.path.isfile(args.init):
            raise CLIError(f"{args.init}: no such model file")
    else:
        check_recommender_name(args.algo, init=True)
    for option in ("holdout", "scale", "cache"):
        if getattr(args, option, None):
            raise CLIError(f"--{option} is not for --format ratings")
    if getattr(args, "passes", 1) != 1:
        raise CLIError("--passes is not for --format ratings (one pass over the stream)")
    if args.data in (None, "-") or not os.path.isfile(args.data):
        raise CLIError(f"{args.data}: no such file (--format ratings reads a file, not "
                       "standard input)")
    check_paths([("data", args.data), ("initial model", args.init)], [("model", args.model)])
    if args.model:
        check_writable(args.model, "model")
    from ..recommend.evaluate import make_recommender
    if args.init:
        from ..persistence import load
        model = load(args.init)
        if not _is_recommender(model):
            raise CLIError(f"{args.init} holds a {type(model).__name__}, not a recommender: "
                           "--format ratings continues only a recommender")
        if args.algo:
            want = type(make_recommender(args.algo))
            if type(model) is not want:
                raise CLIError(f"{args.init} holds a {type(model).__name__}, not the "
                               f"{want.__name__} of --algo {args.algo}")
        if params:
            model.set_params(**params)
    else:
        model = make_recommender(args.algo, **params)
    name = args.algo or type(model).__name__
    out = report_stream()       # stdout on a terminal, else stderr
    print(run_stream(model, name, args.data), file=out)
    if args.model:
        model.save(args.model)
        print(f"model saved to {args.model}", file=out)
    return 0


def predict(args, model):
    """``olearn predict DATA --model RECO``: a predicted rating per 'user item' line."""
    fmt = getattr(args, "format", "auto")
    if not _is_recommender(model):
        raise CLIError(f"--format ratings: {args.model} holds a {type(model).__name__}, "
                       "not a recommender (train one with --format ratings --algo "
                       "biased-mf, ...)")
    if fmt not in ("auto", "ratings"):
        raise CLIError(f"{args.model} is a recommender: it reads 'user item' lines "
                       f"(--format ratings), not --format {fmt}")
    if args.data in (None, "-") or not os.path.isfile(args.data):
        raise CLIError(f"{args.data}: no such file (ratings are read from a file)")
    users, items = read_pairs(args.data)
    with atomic_text(args.output) as out:
        out.write("".join(f"{format_value(v)}\n" for v in model.predict(users, items)))
    return 0


def read_pairs(path):
    """(users, items) of 'user item [rating [timestamp]]' lines, in the file's order
    (ids typed as ``olearn.datasets.load_ratings`` types them: integers when all are)."""
    from ..datasets.ratings import load_ratings
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    sep = "\t" if lines and "\t" in lines[0] else ("," if lines and "," in lines[0] else None)
    rows = [line.split(sep) for line in lines]
    if rows and all(len(r) >= 3 for r in rows[1:] or rows):
        s = load_ratings(path, sort=False)
        return s.users, s.items
    if rows and any(":" in c or c.strip().lower() in ("user", "user_id") for c in rows[0]):
        rows = rows[1:]                       # a header line
    bad = next((n for n, r in enumerate(rows, 1) if len(r) < 2), None)
    if bad is not None or not rows:
        raise CLIError(f"{path}: expected 'user item' lines" +
                       (f" (line {bad} has one field)" if bad else " (the file is empty)"))
    return _typed([r[0].strip() for r in rows]), _typed([r[1].strip() for r in rows])


def _typed(column):
    """Ids as ``load_ratings`` types them: int64 when every one is an integer, else str."""
    import numpy as np
    try:
        return np.array([int(v) for v in column], dtype=np.int64)
    except ValueError:
        return np.array(column, dtype=str)



def run_stream(model, name, data):
    """Progressive validation of a recommender over ``data``: the summary lines, the
    seconds spent compiling kernels left out of the rate and said apart."""
    from .._compile_notice import seconds
    from ..recommend.evaluate import evaluate_stream, summary
    from ._learning import learning
    before = seconds()
    with learning(f"the {name} kernels"):
        result = evaluate_stream(model, data)
    compiled = min(seconds() - before, result["seconds"])
    if compiled > 0.0005:
        spent = result["seconds"] - compiled
        result["events_per_s"] = result["n"] / spent if spent > 0 else float("inf")
    text = summary(name, data, result)
    return text + (f" (and {compiled:.3f} s compiling, first use)" if compiled > 0.0005
                   else "")
