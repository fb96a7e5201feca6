"""What the subcommands share: reading data files, ``--param`` values, making a
learner, atomic output files, one-line error messages."""
import contextlib
import math
import os
import sys
import tempfile


class CLIError(Exception):
    """A usage error found by the command line itself (the message is shown as is)."""


def _user_errors():
    from ..persistence import ModelFileError
    return (CLIError, ModelFileError, ValueError, KeyError, OSError, TypeError, ImportError,
            MemoryError)


#: exceptions shown as one ``olearn: error:`` line instead of a traceback
USER_ERRORS = _user_errors()


def one_line(exc):
    """The message of ``exc`` on one line."""
    if isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        text = exc.args[0]              # str(KeyError) would add quotes
    elif isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    elif isinstance(exc, MemoryError):
        text = "out of memory (try a smaller --chunk-size)"
    else:
        text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    # scikit-learn's NaN message goes on with advice about imputers: keep its first line
    return lines[0] if "contains NaN" in lines[0] or "contains inf" in lines[0] \
        else " ".join(lines)


# ------------------------------------------------------------------ parameters
def parse_value(text):
    """``--param`` value: int, float, bool, None, or the string itself."""
    low = text.strip().lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_params(items):
    """``["C=0.5", "variant=PA-II"]`` -> ``{"C": 0.5, "variant": "PA-II"}``."""
    params = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"--param expects KEY=VALUE, got {item!r}")
        params[key.strip()] = parse_value(value)
    return params


def make_model(algo, params):
    """A registered learner with its parameters checked before any data is read."""
    from ..registry import make
    model = make(algo, **params)
    check = getattr(model, "_check_params", None)
    if check is not None:
        check()
    return model


def add_algo_args(parser, required=True):
    parser.add_argument("--algo", required=required, metavar="NAME",
                        help="registered learner name (see 'olearn warmup --list')")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="hyper-parameter, repeatable (e.g. --param C=0.5)")


# ------------------------------------------------------------------ data files
CSV_SUFFIXES = (".csv", ".tsv", ".data")
_COMPRESSED = (".gz", ".bz2", ".xz")


def detect_format(path):
    """"csv" for .csv/.tsv/.data (compressed or not), else "libsvm"."""
    name = os.fspath(path).lower()
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    return "csv" if name.endswith(CSV_SUFFIXES) else "libsvm"


def add_data_args(parser, data_required=True):
    nargs = None if data_required else "?"
    parser.add_argument("data", metavar="DATA", nargs=nargs,
                        help="LIBSVM file, or CSV for names ending in .csv/.tsv/.data "
                             "(.gz/.bz2/.xz read as they are; '-' reads stdin)")
    g = parser.add_argument_group("input")
    g.add_argument("--format", choices=("auto", "libsvm", "csv"), default="auto",
                   help="file format (default: from the file name)")
    g.add_argument("--chunk-size", type=int, default=10_000, metavar="N",
                   help="rows read and learned at a time (default 10000)")
    g.add_argument("--n-features", type=int, default=None, metavar="N",
                   help="LIBSVM: number of features (default: the largest index in the file)")
    g.add_argument("--zero-based", choices=("auto", "yes", "no"), default="auto",
                   help="LIBSVM: index base (default: 0-based if an index 0 occurs)")
    g.add_argument("--label", default="-1", metavar="COL",
                   help="CSV: label column, index or name (default -1, the last)")
    g.add_argument("--header", choices=("infer", "yes", "no"), default="infer",
                   help="CSV: first line is a header (default: inferred)")
    g.add_argument("--delimiter", default=None, metavar="SEP",
                   help="CSV: field separator (default ',' or tab for .tsv; 'space' for "
                        "runs of whitespace)")


def _csv_options(args):
    label = args.label
    try:
        label = int(label)
    except ValueError:
        pass
    header = {"infer": "infer", "yes": True, "no": False}[args.header]
    delim = args.delimiter
    if delim is None:
        delim = "\t" if ".tsv" in os.fspath(args.data).lower() else ","
    elif delim in ("space", "whitespace"):
        delim = None
    elif delim in ("tab", "\\t"):
        delim = "\t"
    return dict(label=label, header=header, delimiter=delim)


def open_data(args, n_features=None):
    """A reader over ``args.data``: iterate to get ``(X_chunk, y_chunk)``, constant memory.

    ``n_features`` (a saved model's width) overrides ``--n-features``; a LIBSVM file
    with fewer features is padded, one with more fails on the line that has them.
    """
    from .. import io
    path = args.data
    if args.chunk_size < 1:
        raise CLIError(f"--chunk-size must be >= 1, got {args.chunk_size}")
    if path != "-" and not os.path.exists(path):
        raise CLIError(f"{path}: no such file")
    fmt = args.format if args.format != "auto" else detect_format(path)
    if fmt == "csv":
        return io.read_csv(path, chunk_size=args.chunk_size, **_csv_options(args))
    width = n_features if n_features is not None else args.n_features
    zero = {"auto": "auto", "yes": True, "no": False}[args.zero_based]
    return io.read_libsvm(path, chunk_size=args.chunk_size, n_features=width,
                          zero_based=zero)


def checked_chunks(reader):
    """The reader's chunks, with non-finite labels of a stream reported clearly."""
    import numpy as np
    for X, y in reader:
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise CLIError(f"{reader_name(reader)}: a label is NaN or infinite")
        yield X, y


def reader_name(reader):
    return getattr(reader, "name", None) or getattr(reader, "path", "data")


# ------------------------------------------------------------------ output
def check_writable(path, what):
    """Fail before any work if ``path`` cannot be created."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise CLIError(f"cannot write {what} {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise CLIError(f"cannot write {what} {path}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise CLIError(f"cannot write {what} {path}: folder {folder} is not writable")


@contextlib.contextmanager
def atomic_text(path):
    """Write text to ``path`` (or stdout for None/'-') all or nothing: a temporary file
    in the same folder is renamed into place only when the block succeeds."""
    if path is None or path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".olearn-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def format_value(v):
    """A label or prediction as text: integral floats without '.0', else shortest repr."""
    if isinstance(v, (bool,)) or hasattr(v, "dtype") and v.dtype.kind == "b":
        return str(bool(v))
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    return str(v)
