"""``olearn train DATA --server URL --name NAME``: stream a file into a served model.

The file is read as ``train`` reads it (same input options, constant memory) and sent
in requests of ``--request-rows`` rows through :class:`olearn.client.Client`; a sparse
row goes as ``{column: value}`` (column numbers as names), a dense one as a list.  The
model is created first from ``--algo``/``--param`` when the server has none of that
name.  Each request carries an idempotency id, so the client's retries never learn a
row twice.
"""
import time

from ._common import CLIError, parse_params, report_stream
from ._input import open_data, require_data


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
    rows, seq, t0 = 0, None, time.perf_counter()
    try:
        try:
            client.info(args.name)
        except ServerError as exc:
            if exc.status != 404:
                raise
            if not args.algo:
                raise CLIError(f"the server has no model {args.name!r}: give --algo NAME "
                               "to create it") from None
            client.create(args.name, args.algo, **params)
        for chunk in open_data(args, weights=True):
            X, y = chunk[0], chunk[1]
            w = chunk[2] if len(chunk) > 2 else None
            for i in range(0, X.shape[0], args.request_rows):
                part = slice(i, i + args.request_rows)
                out = client.learn(args.name, X[part], y[part],
                                   None if w is None else w[part])
                rows, seq = rows + out["acknowledged"], out["seq"]
    except ServerError as exc:
        raise CLIError(f"{args.server}: {exc.message} (HTTP {exc.status})") from None
    except OSError as exc:
        raise CLIError(f"{args.server}: {exc}") from None
    took = time.perf_counter() - t0
    print(f"learned {rows} rows into {args.name} at {args.server} in {took:.2f} s "
          f"({rows / max(took, 1e-9):.0f} rows/s); last seq {seq}", file=report_stream())
    return 0
