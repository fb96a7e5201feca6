"""``olearn train DATA --server URL --name NAME``: stream a file into a served model.

The file is read as ``train`` reads it (same input options, constant memory) and sent
in requests of ``--request-rows`` rows through :class:`olearn.client.Client`; sparse rows
go as one compressed sparse matrix per request (the server learns it in one compiled
pass; into a model that learned ``{name: value}`` rows, as ``{column: value}``), dense
ones as lists.  The
model is created first from ``--algo``/``--param`` when the server has none of that
name.  Each request carries an idempotency id, so the client's retries never learn a
row twice, and the pipeline the file was read with (format, width or hashing bits,
feature options), which the served model checks against the first it learned (a 409
naming both).  A LIBSVM file streamed into a model of a fixed width is read at that
width, as ``train --model`` reads it.  Rows go to ``predict_learn``: the predictions
made before each row's update give the progressive loss, printed at the end.  Into an
anomaly detector (a model that learns without a target) the rows go without their
labels; the label column is read only for the progressive ROC AUC and average precision
of the scores each row had before it was learned.
"""
import time
import urllib.parse

from ._common import CLIError, parse_params, report_stream
from ._input import hash_bits, data_format, open_data, require_data


def pipeline_of(args, fmt, width, n_features):
    """How the rows of DATA are read, for the server to check (see
    olearn/serve/store.py: merge_pipeline)."""
    if fmt in ("vw", "text"):
        bits = hash_bits(args, n_features)
        features = (" ".join([*(f"-q {q}" for q in args.quadratic),
                              *(f"--cubic {c}" for c in args.cubic),
                              *(f"--ignore {i}" for i in args.ignore)]) if fmt == "vw"
                    else f"--ngram {args.ngram}")
        return {"format": fmt, "hash_bits": bits, "width": 1 << bits, "fixed": True,
                "features": features or None}
    fixed = fmt != "libsvm" or n_features is not None or args.n_features is not None
    return {"format": fmt, "width": int(width), "fixed": fixed}


def progressive(predictions, y, tally):
    """Adds to ``tally`` ([loss sum, rows, kind]) the zero-one error, or the squared
    error when the labels are not classes."""
    import numpy as np
    p, t = np.asarray(predictions), np.asarray(y)
    classes = p.dtype.kind in "iub" or p.dtype.kind in "OU" or (
        p.dtype.kind == "f" and np.all(p == np.round(p)) and np.all(t == np.round(t)))
    if classes and tally[2] != "squared":
        tally[2] = "zero-one"
        tally[0] += float(np.sum(p.astype(str) != t.astype(p.dtype).astype(str))
                          if p.dtype.kind in "OU" else np.sum(p != t))
    else:
        tally[2] = "squared"
        tally[0] += float(np.sum((p.astype(float) - t.astype(float)) ** 2))
    tally[1] += len(p)


def anomaly_summary(scores, labels):
    """``; progressive ROC AUC A, average precision P`` of the pre-update anomaly scores
    (labels 1: an anomaly, 0: a normal row), or "" when one kind is missing."""
    import numpy as np
    from sklearn.metrics import average_precision_score, roc_auc_score
    if not scores:
        return ""
    s, y = np.concatenate(scores), np.concatenate(labels)
    if not np.isin(y, (0, 1)).all():
        raise CLIError("anomaly labels must be 1 (an anomaly) or 0 (a normal row), got "
                       f"{y[~np.isin(y, (0, 1))][0]!r}")
    if y.all() or not y.any():
        return ""
    return (f"; progressive ROC AUC {roc_auc_score(y, s):.4f}, average precision "
            f"{average_precision_score(y, s):.4f}")


def add_server_args(parser):
    g = parser.add_argument_group("served model (olearn serve)")
    g.add_argument("--server", metavar="URL",
                   help="learn into a model of an 'olearn serve' at URL instead of here")
    g.add_argument("--name", metavar="NAME", help="the served model's name")
    g.add_argument("--token", metavar="TOKEN",
                   help="a learn or admin token (default: $OLEARN_TOKEN)")
    g.add_argument("--request-rows", type=int, default=1000, metavar="N",
                   help="rows per request (default 1000)")


def train_remote(args):
    from ..client import Client, ServerError
    params = parse_params(args.param)
    require_data(args)
    if not args.name:
        raise CLIError("--server needs --name NAME (the served model)")
    if args.request_rows < 1:
        raise CLIError(f"--request-rows must be >= 1, got {args.request_rows}")
    try:
        client = Client(args.server, args.token)
    except ValueError as exc:
        raise CLIError(f"--server: {exc}") from None
    rows, seq, t0, t1 = 0, None, time.perf_counter(), None
    fmt, n_features, tally = data_format(args), None, [0.0, 0, None]
    try:
        try:
            info = client.info(args.name)
            have = info.get("pipeline") or {}
            if have.get("format") == fmt and have.get("fixed", True) and \
                    have.get("width") is not None and args.n_features is None:
                n_features = have["width"]  # (read at the model's width)
        except ServerError as exc:
            if exc.status != 404:
                raise
            if not args.algo:
                raise CLIError(f"the server has no model {args.name!r}: give --algo NAME "
                               "to create it") from None
            info = client.create(args.name, args.algo, **params)
        unlabelled = info.get("target") == "none"  # (a detector: no y is sent)
        scores, labels = [], []
        path = f"/models/{urllib.parse.quote(args.name, safe='')}/predict_learn"
        for chunk in open_data(args, n_features, weights=True):
            if t1 is None:      # the first rows in hand: the start-up is over
                t1 = time.perf_counter()
            X, y = chunk[0], chunk[1]
            w = chunk[2] if len(chunk) > 2 else None
            pipeline = pipeline_of(args, fmt, X.shape[1], n_features)
            for i in range(0, X.shape[0], args.request_rows):
                part = slice(i, i + args.request_rows)
                out = client.request("POST", path, client.learn_body(
                    X[part], None if unlabelled else y[part],
                    None if w is None else w[part], None, pipeline, csr=True))
                rows, seq = rows + out["acknowledged"], out["seq"]
                if unlabelled:
                    scores.append(out.get("scores", []))
                    labels.append(y[part])
                else:
                    progressive(out["predictions"], y[part], tally)
    except ServerError as exc:
        raise CLIError(f"{args.server}: {exc.message} (HTTP {exc.status})") from None
    except OSError as exc:
        raise CLIError(f"{args.server}: {exc}") from None
    # as the local command's summary: the rate of reading and learning (here: reading,
    # sending and the server's learning, from the first rows read), the start-up apart
    end = time.perf_counter()
    t1 = end if t1 is None else t1
    took = end - t1
    loss = (f"; progressive {tally[2]} loss {tally[0] / tally[1]:.6g}" if tally[1] else
            anomaly_summary(scores, labels))
    print(f"learned {rows} rows into {args.name} at {args.server} in {took:.2f} s "
          f"({rows / max(took, 1e-9):.0f} rows/s: reading, sending, the server learning; "
          f"{t1 - t0:.2f} s before the first rows: the model found or made, the reader "
          f"started); last seq {seq}{loss}", file=report_stream())
    return 0
