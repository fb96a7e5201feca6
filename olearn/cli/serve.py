"""``olearn serve --data-dir DIR [--host H] [--port P] [--fsync always|group|none]``

Serves the models of DIR over HTTP (JSON; see docs/guide/service.md):
create models, learn, predict, download and upload model files.  Every acknowledged
learn request is in the model's write-ahead log first (fsynced before the answer with
--fsync always).  On the first start with no token, an admin token is made and printed
once; 'olearn serve token add|list|revoke --data-dir DIR' manages tokens, also while
the server runs.  A model whose files are damaged is not served (503, the reason on
stderr); 'olearn serve repair --data-dir DIR --model M' diagnoses it and, with --keep,
repairs its log.  SIGTERM or SIGINT stops cleanly: the requests in flight finish, every
changed model is snapshotted (the next start replays nothing); a second signal stops at
once.  One process owns DIR (a lock file).  Every snapshot is a numbered version (GET
/models/M/versions, POST /models/M/rollback); a deleted model is kept in DIR/trash.
Options may come from a TOML file (--config); the command line overrides it.
"""
import os
import sys

from ._common import CLIError
from ._parsers import actions

#: the server's options, which a --config file may set too
OPTIONS = ("data_dir", "host", "port", "fsync", "snapshot_rows", "snapshot_seconds",
           "max_body", "max_rows", "max_features", "max_model_bytes", "max_inflight_bytes",
           "idempotency_ids",
           "idempotency_seconds", "grace_seconds", "keep_versions", "keep_deleted",
           "access_log", "log_format", "metrics_public", "ssl_certfile", "ssl_keyfile",
           "workers")
DEFAULTS, CHOICES = {}, {}


def read_config(path):
    """The options of a TOML file, as ``{dest: value}``, checked (unknown keys, types,
    choices), or a :class:`CLIError` of one line."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise CLIError("--config needs Python 3.11+ (tomllib) or, on 3.10, "
                           "'pip install tomli'") from None
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as exc:
        raise CLIError(f"--config {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CLIError(f"--config {path}: not TOML: {exc}") from None
    doc = doc.get("serve", doc)  # (the options may sit under [serve])
    out = {}
    for key, value in doc.items():
        dest = key.replace("-", "_")
        if dest not in OPTIONS:
            raise CLIError(f"--config {path}: unknown option {key!r} (known: "
                           f"{', '.join(OPTIONS)})")
        default = DEFAULTS.get(dest)
        if isinstance(default, bool) or dest == "metrics_public":
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = float(value) if ok else value
        else:
            ok = isinstance(value, str)
        if not ok:
            raise CLIError(f"--config {path}: {key} must be "
                           f"{type(default).__name__ if default is not None else 'a string'}"
                           f", got {value!r}")
        if CHOICES.get(dest) and value not in CHOICES[dest]:
            raise CLIError(f"--config {path}: {key} must be one of "
                           f"{', '.join(CHOICES[dest])}, got {value!r}")
        out[dest] = value
    return out


def resolve(args):
    """Each server option from the command line, else the config file, else its
    default."""
    config = read_config(args.config) if args.config else {}
    for dest in OPTIONS:
        if getattr(args, dest, None) is None:
            setattr(args, dest, config.get(dest, DEFAULTS.get(dest)))


def add_parser(subparsers):
    # (no abbreviations: 'serve repair --keep' must not be read as --keep-versions)
    p = subparsers.add_parser("serve", help="serve models over HTTP (learn, predict)",
                              description=__doc__.split("\n\n", 1)[1], allow_abbrev=False)
    p.add_argument("--data-dir", metavar="DIR", help="the folder of models, logs, tokens")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8470)
    p.add_argument("--fsync", choices=("always", "group", "none"), default="always",
                   help="always: fsync before each acknowledgement (concurrent requests "
                        "share one); group: every 5 ms, a power loss may lose the last "
                        "few ms; none: never (tests)")
    p.add_argument("--snapshot-rows", type=int, default=1_000_000, metavar="N",
                   help="snapshot a model after N rows (default 1,000,000)")
    p.add_argument("--snapshot-seconds", type=float, default=60.0, metavar="T",
                   help="or T seconds after its last snapshot (default 60)")
    p.add_argument("--max-body", type=int, default=32 << 20, metavar="BYTES")
    p.add_argument("--max-rows", type=int, default=100_000, metavar="N",
                   help="rows per request (default 100,000)")
    p.add_argument("--max-features", type=int, default=100_000, metavar="N",
                   help="features per row (default 100,000)")
    p.add_argument("--max-model-bytes", type=int, default=0, metavar="BYTES",
                   help="the most bytes one learner's state may take: a request that would "
                        "grow a model beyond is a 413 and changes nothing (default 0: the "
                        "machine's memory, or $OLEARN_MAX_MODEL_BYTES)")
    p.add_argument("--max-inflight-bytes", type=int, default=256 << 20, metavar="BYTES",
                   help="request bodies held at once over every connection; beyond, a 503 "
                        "that clients retry (default 268,435,456)")
    p.add_argument("--idempotency-ids", type=int, default=100_000, metavar="N",
                   help="a learn request's id is remembered (a retry is answered with "
                        "its first acknowledgement) for the last N ids of a model "
                        "(default 100,000) ...")
    p.add_argument("--idempotency-seconds", type=float, default=86_400.0, metavar="T",
                   help="... and at most T seconds (default 86,400); kept across restarts")
    p.add_argument("--grace-seconds", type=float, default=5.0, metavar="T",
                   help="at SIGTERM or SIGINT, wait at most T seconds for the requests "
                        "in flight (default 5), then snapshot the changed models")
    p.add_argument("--keep-versions", type=int, default=5, metavar="N",
                   help="each snapshot is a numbered version; keep the last N (default 5)")
    p.add_argument("--keep-deleted", type=float, default=7 * 86400.0, metavar="T",
                   help="a deleted model is kept in DIR/trash for T seconds (default "
                        "604,800: a week), restorable")
    p.add_argument("--access-log", metavar="FILE",
                   help="one line per request (time, client, token id, method, path, "
                        "status, bytes, ms, model, seq) appended to FILE; '-': stderr")
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="the access log's lines: text, or one JSON object a line")
    p.add_argument("--metrics-public", action="store_true",
                   help="GET /metrics needs no token (a scraper on a trusted network); "
                        "else a metrics or admin token")
    p.add_argument("--ssl-certfile", metavar="FILE",
                   help="serve https with this certificate (PEM; with --ssl-keyfile)")
    p.add_argument("--ssl-keyfile", metavar="FILE", help="the certificate's private key")
    p.add_argument("--config", metavar="FILE",
                   help="a TOML file of these options (data_dir = \"/srv/olearn\", port = "
                        "8470, metrics_public = true, ...); the command line overrides it")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="only 1: one process owns a data folder (its models learn on "
                        "threads); run one server per data folder")
    # every option's default is None, so that run() tells what the command line gave
    # from what the config file gives (DEFAULTS: the defaults when neither does)
    for action in actions(p):
        if action.dest in OPTIONS:
            DEFAULTS[action.dest] = action.default
            CHOICES[action.dest] = action.choices
            action.default = None
    sub = p.add_subparsers(dest="serve_command", metavar="token|repair")
    rp = sub.add_parser("repair", help="diagnose a model whose log is damaged; rewrite "
                                       "it keeping the good prefix or every whole record",
                        description=(
                            "Diagnose model M's log (the damage: file, byte offset, seq; "
                            "what each choice keeps) and change nothing; with --keep, "
                            "rewrite it: 'prefix' keeps the records before the first "
                            "damage, 'valid' every record whose CRC holds (naming each "
                            "skipped byte range). The damaged file is kept aside as "
                            "log.wal.damaged-TIME."))
    rp.add_argument("--data-dir", metavar="DIR", required=True)
    rp.add_argument("--model", metavar="M", required=True)
    rp.add_argument("--keep", choices=("prefix", "valid"))
    t = sub.add_parser("token", help="add, list or revoke tokens")
    tsub = t.add_subparsers(dest="token_command", metavar="add|list|revoke")
    add = tsub.add_parser("add", help="add a token; prints it alone, once")
    add.add_argument("--data-dir", metavar="DIR", required=True)
    add.add_argument("--scope", choices=("admin", "learn", "predict", "metrics"),
                     required=True)
    add.add_argument("--model", metavar="NAME", help="restrict the token to this model")
    ls = tsub.add_parser("list", help="list tokens (never their secrets)")
    ls.add_argument("--data-dir", metavar="DIR", required=True)
    rv = tsub.add_parser("revoke", help="revoke a token by its id")
    rv.add_argument("--data-dir", metavar="DIR", required=True)
    rv.add_argument("id", help="the token's id, as 'token list' shows it")
    return p


def run(args):
    from ..serve.tokens import Tokens
    if args.serve_command == "repair":
        from ..serve.repair import RepairError, repair
        try:
            return repair(args.data_dir, args.model, args.keep)
        except RepairError as exc:
            raise CLIError(str(exc)) from None
    if args.serve_command == "token":
        if args.token_command is None:
            raise CLIError("olearn serve token: say add, list or revoke")
        return _token(args, Tokens(args.data_dir))
    resolve(args)
    if not args.data_dir:
        raise CLIError("--data-dir DIR is needed")
    if (args.ssl_certfile is None) != (args.ssl_keyfile is None):
        raise CLIError("--ssl-certfile and --ssl-keyfile go together")
    for flag in ("ssl_certfile", "ssl_keyfile"):
        path = getattr(args, flag)
        if path is not None and not os.access(path, os.R_OK):
            raise CLIError(f"--{flag.replace('_', '-')} {path}: not a readable file")
    if args.ssl_certfile:
        import ssl
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                args.ssl_certfile, args.ssl_keyfile)
        except (ssl.SSLError, OSError) as exc:
            raise CLIError(f"--ssl-certfile {args.ssl_certfile} --ssl-keyfile "
                           f"{args.ssl_keyfile}: not a certificate and its key "
                           f"({getattr(exc, 'reason', None) or exc})") from None
    if not args.idempotency_seconds > 0:  # (NaN too)
        raise CLIError("--idempotency-seconds must be > 0")
    if not args.keep_deleted >= 0:
        raise CLIError("--keep-deleted must be >= 0")
    for flag in ("keep_versions", "snapshot_rows", "max_body", "max_rows", "max_features",
                 "idempotency_ids", "max_inflight_bytes"):
        if getattr(args, flag) < 1:
            raise CLIError(f"--{flag.replace('_', '-')} must be >= 1")
    if args.max_model_bytes < 0:
        raise CLIError("--max-model-bytes must be >= 0 (0: the machine's memory)")
    if args.workers != 1:
        raise CLIError("--workers: one process owns a data folder (a second would "
                       "write the same logs); olearn serve runs 1, its models learn on "
                       "threads; for more, run one server per data folder")
    if not args.grace_seconds >= 0:
        raise CLIError("--grace-seconds must be >= 0")
    if not (0 < args.port < 65536):
        raise CLIError(f"--port must be in 1..65535, got {args.port}")
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise CLIError("olearn serve needs Starlette and uvicorn: "
                       "pip install 'olearn[serve]'") from None
    os.makedirs(args.data_dir, exist_ok=True)
    from ..serve import FolderLocked, Limits, lock_data_dir, run as serve
    try:
        lock = lock_data_dir(args.data_dir)  # noqa: F841 (held until the process ends)
    except FolderLocked as exc:
        raise CLIError(str(exc)) from None
    tokens = Tokens(args.data_dir)
    if not tokens.current():
        _, token = tokens.add("admin")
        print(f"admin token (shown once; only its hash is kept): {token}", flush=True)
    scheme = "https" if args.ssl_certfile else "http"
    print(f"olearn serve: {args.data_dir} on {scheme}://{args.host}:{args.port} "
          f"(fsync {args.fsync})", file=sys.stderr, flush=True)
    if args.max_model_bytes:
        from .._state import set_max_model_bytes
        set_max_model_bytes(args.max_model_bytes)
    access = None
    if args.access_log == "-":
        access = sys.stderr
    elif args.access_log:
        try:
            access = open(args.access_log, "a", buffering=1, encoding="utf-8")
        except OSError as exc:
            raise CLIError(f"--access-log {args.access_log}: {exc.strerror}") from None
    saved, failed = serve(
        args.data_dir, args.host, args.port, args.fsync,
        limits=Limits(args.max_body, args.max_rows, args.max_features,
                      args.max_inflight_bytes),
        snapshot_rows=args.snapshot_rows, snapshot_seconds=args.snapshot_seconds,
        ids_count=args.idempotency_ids, ids_seconds=args.idempotency_seconds,
        grace_seconds=args.grace_seconds, access_log=access, log_format=args.log_format,
        metrics_public=args.metrics_public, keep_versions=args.keep_versions,
        keep_deleted=args.keep_deleted, ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile)
    line = (f"olearn serve: stopped; {len(saved)} model(s) snapshotted"
            + (f" ({', '.join(saved)})" if saved else "") + ", the others unchanged")
    if failed:
        line += f"; NOT snapshotted (their logs keep them): {'; '.join(failed)}"
    print(line, file=sys.stderr, flush=True)
    return 1 if failed else 0


def _token(args, tokens):
    if args.token_command == "add":
        _, token = tokens.add(args.scope, args.model)
        print(token)
    elif args.token_command == "list":
        for t in tokens.list():
            state = "revoked" if t["revoked"] else "live"
            print(f"{t['id']}\t{t['scope']}\t{t['model'] or '*'}\t{t['created']}\t{state}")
    else:
        try:
            tokens.revoke(args.id)
        except KeyError as exc:
            raise CLIError(str(exc).strip("'\"")) from None
        print(f"revoked {args.id}")
    return 0
