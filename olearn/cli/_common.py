"""What the subcommands share: reading data files, ``--param`` values, making a
learner, atomic output files, one-line error messages, the learning guard (compile
notice, no numpy warnings, divergence check) and ``--algo NAME --help``.

Start-up: this module and every subcommand module import only the standard library at
import time; numpy, scipy, scikit-learn, numba and the learners are imported inside
``run`` once the cheap checks (file exists, algorithm name known, parameters parse)
have passed, so a mistake is reported at once.
"""
import argparse
import contextlib
import math
import os
import sys
import tempfile


class CLIError(Exception):
    """A usage error found by the command line itself (the message is shown as is)."""


def user_errors():
    """Exceptions shown as one ``olearn: error:`` line instead of a traceback.
    (``ModelFileError`` only if persistence was imported: otherwise none was raised.)"""
    errors = (CLIError, ValueError, KeyError, OSError, TypeError, ImportError, MemoryError)
    persistence = sys.modules.get("olearn.persistence")
    if persistence is not None:
        errors += (persistence.ModelFileError,)
    return errors


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


def split_algos(text):
    """``"pa1, arow"`` -> ``["pa1", "arow"]``."""
    return [a.strip() for a in (text or "").split(",") if a.strip()]


def check_algos(names):
    """Unknown algorithm names fail here, before anything heavy is imported."""
    from ..registry import check_name, other_models
    for name in names:
        try:
            check_name(name)
        except KeyError:
            for kind, (_, known, how) in other_models().items():
                if name in known:   # a recommender, strategy or detector: say where it goes
                    where = "use --format ratings" if kind == "recommender" else how
                    raise CLIError(f"{name!r} is a {kind}, not a learner of this command "
                                   f"({where})") from None
            raise


def make_model(algo, params):
    """A registered learner with its parameters checked before any data is read."""
    from ..registry import lookup, make
    cls, defaults = lookup(algo)
    model = make(algo, **_as_booleans(params, {**cls().get_params(), **defaults}))
    check = getattr(model, "check_params", None)  # (the protocol's; an ensemble has none)
    if check is not None:
        check()
    return model


def _as_booleans(params, defaults):
    """``--param average=1`` (or 0) for a parameter whose default is True or False is
    that boolean (``parse_value`` reads 1 and 0 as numbers)."""
    return {k: (bool(v) if isinstance(defaults.get(k), bool) and not isinstance(v, bool)
                and isinstance(v, int) and v in (0, 1) else v)
            for k, v in params.items()}


def add_algo_args(parser, metavar="NAME"):
    """``--algo`` and ``--param``; ``-h/--help`` then also shows the parameters of the
    learner(s) named by ``--algo`` (wherever ``--algo`` stands on the line)."""
    parser.add_argument("-h", "--help", action=AlgoHelp,
                        help="show this help (with --algo NAME: also that learner's "
                             "parameters) and exit")
    parser.add_argument("--algo", metavar=metavar,
                        help="registered learner name (see 'olearn algos'; "
                             "'--algo NAME --help' shows its parameters)")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="hyper-parameter, repeatable (e.g. --param C=0.5)")


#: the command line being parsed (set by ``olearn.cli.main``), read by ``AlgoHelp``
current_argv = []


def _algo_in_argv(argv):
    for i, arg in enumerate(argv):
        if arg == "--algo" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--algo="):
            return arg.split("=", 1)[1]
    return None


class AlgoHelp(argparse.Action):
    """``--help`` that appends the parameters of the learners named by ``--algo``."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        algos = split_algos(getattr(namespace, "algo", None) or _algo_in_argv(current_argv))
        check_algos(algos)                      # an unknown name: one error line
        text = parser.format_help()
        if algos:
            from ..registry import describe
            text += "".join("\n" + format_description(describe(a)) for a in algos)
        sys.stdout.write(text)
        parser.exit()


def format_value_repr(v):
    return repr(v) if isinstance(v, str) else str(v)


def format_description(d, width=None):
    """A learner's name, class, summary and parameters, as ``olearn algos`` shows them."""
    import shutil
    import textwrap
    width = width or min(100, shutil.get_terminal_size((100, 24)).columns)
    lines = [f"{d.name} ({d.kind}): {d.cls}", f"  {d.summary}" if d.summary else None,
             "  parameters (--param KEY=VALUE):"]
    pad = max((len(p.name) + len(format_value_repr(p.default)) + 3 for p in d.parameters),
              default=0)
    for p in d.parameters:
        head = f"    {p.name}={format_value_repr(p.default)}".ljust(pad + 4) + "  "
        lines.extend(textwrap.wrap(p.meaning or "-", width=width, initial_indent=head,
                                   subsequent_indent=" " * len(head)))
    return "\n".join(line for line in lines if line is not None) + "\n"


# ------------------------------------------------------------------ data files
CSV_SUFFIXES = (".csv", ".tsv", ".data")
VW_SUFFIXES = (".vw",)
_COMPRESSED = (".gz", ".bz2", ".xz")
FORMATS = ("auto", "libsvm", "csv", "vw", "text", "ratings")


def detect_format(path):
    """"csv" for .csv/.tsv/.data, "vw" for .vw (compressed or not), else "libsvm"
    (raw text is read only when asked: --format text)."""
    name = os.fspath(path).lower()
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    if name.endswith(VW_SUFFIXES):
        return "vw"
    return "csv" if name.endswith(CSV_SUFFIXES) else "libsvm"


def add_data_args(parser, data_required=True):
    # DATA or Vowpal Wabbit's -d FILE (olearn/cli/_shell.py checks that one is given)
    parser.add_argument("data", metavar="DATA", nargs="?",
                        help="LIBSVM file; CSV for names ending in .csv/.tsv/.data; Vowpal "
                             "Wabbit text for .vw (.gz/.bz2/.xz read as they are; '-' reads "
                             "stdin)")
    parser.set_defaults(_data_required=data_required)
    g = parser.add_argument_group("input")
    g.add_argument("-d", "--data", dest="data_flag", metavar="FILE", default=None,
                   help="the data, as Vowpal Wabbit's -d (instead of DATA)")
    g.add_argument("--format", choices=FORMATS, default="auto",
                   help="file format (default: from the file name); vw: Vowpal Wabbit text "
                        "'label [importance] [\'tag]|ns feature[:value] ...'; text: "
                        "'label<TAB>raw text' lines, tokens hashed; ratings: 'user item "
                        "rating [timestamp]' lines, replayed in timestamp order "
                        "(evaluate --algo baseline|funk-mf|biased-mf|online-pmf|brand-svd)")
    g.add_argument("--chunk-size", type=int, default=10_000, metavar="N",
                   help="rows read and learned at a time (default 10000)")
    g.add_argument("--n-features", type=int, default=None, metavar="N",
                   help="LIBSVM: number of features (default: the largest index in the "
                        "file; on standard input the model grows as new indices appear)")
    g.add_argument("--zero-based", choices=("auto", "yes", "no"), default="auto",
                   help="LIBSVM: index base (default: 0-based if an index 0 occurs, "
                        "which a first pass over a file finds; given, a file is read "
                        "once and the model grows with the indices)")
    g.add_argument("--label", default="-1", metavar="COL",
                   help="CSV: label column, index or name (default -1, the last)")
    g.add_argument("--header", choices=("infer", "yes", "no"), default="infer",
                   help="CSV: first line is a header (default: inferred)")
    g.add_argument("--delimiter", default=None, metavar="SEP",
                   help="CSV: field separator (default ',' or tab for .tsv; 'space' for "
                        "runs of whitespace)")
    g.add_argument("-b", "--bits", type=int, default=None, metavar="N",
                   help="vw, text: hash features into 2**N columns (default 18, or the "
                        "saved model's width)")
    g.add_argument("-q", "--quadratic", action="append", default=[], metavar="AB",
                   help="vw: pair the features of namespaces A and B (first letters), "
                        "repeatable")
    g.add_argument("--cubic", action="append", default=[], metavar="ABC",
                   help="vw: triples of namespaces A, B and C, repeatable")
    g.add_argument("--ignore", action="append", default=[], metavar="NS",
                   help="vw: drop the namespaces starting with these letters, repeatable")
    g.add_argument("--ngram", type=int, default=1, metavar="N",
                   help="text: also hash runs of 2..N consecutive tokens (default 1)")


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
        _check_delimiter(args.data, delim)
    elif delim in ("space", "whitespace"):
        delim = None
    elif delim in ("tab", "\\t"):
        delim = "\t"
    return dict(label=label, header=header, delimiter=delim)


def _first_line(path, size=1 << 16):
    """The start of the first line of a (maybe compressed) file, as text; "" if it
    cannot be read here (standard input: the reader reports its own errors)."""
    if path in (None, "-") or not os.path.isfile(path):
        return ""
    import bz2
    import gzip
    import lzma
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        os.path.splitext(os.fspath(path))[1].lower(), open)
    try:
        with opener(path, "rb") as f:
            return f.readline(size).decode("utf-8", "replace")
    except (OSError, EOFError, lzma.LZMAError):
        return ""


def _check_delimiter(path, delim):
    """A CSV whose first line has no ``delim`` but another usual separator: say which
    option reads it (a semicolon file gave scikit-learn's "0 feature(s)")."""
    line = _first_line(path)
    if not line.strip() or delim in line:
        return
    for other, option in ((";", "';'"), ("\t", "tab"), ("|", "'|'")):
        if other != delim and other in line:
            raise CLIError(f"{path}: the first line has no {delim!r} but has {other!r}: "
                           f"use --delimiter {option}")


def data_format(args):
    """The format DATA is read in: --format, else from the file name."""
    fmt = getattr(args, "format", "auto")
    return fmt if fmt != "auto" else detect_format(args.data)


def _hash_bits(args, n_features):
    """--bits, else the saved model's width when it is a power of two, else 18."""
    bits = getattr(args, "bits", None)
    if bits is not None:
        if not 1 <= bits <= 31:
            raise CLIError(f"--bits must be from 1 to 31, got {bits}")
        if n_features is not None and n_features != 1 << bits:
            raise CLIError(f"--bits {bits} gives {1 << bits} columns but the model has "
                           f"{n_features}")
        return bits
    if n_features is not None:
        if n_features < 2 or n_features & (n_features - 1):
            raise CLIError(f"the model has {n_features} features, not a power of two: it "
                           "was not trained on hashed features")
        return n_features.bit_length() - 1
    return 18


def require_data(args):
    """Fail at once if DATA is not there or an input option is wrong (before anything
    heavy is imported)."""
    path = args.data
    if path is not None and path != "-" and not os.path.exists(path):
        from .._datadirs import named     # (standard library only)
        there = named(path)
        raise CLIError(f"{path}: no such file" +
                       (f"; the data folder has {path} at {there}" if there else ""))
    if getattr(args, "chunk_size", 1) < 1:
        raise CLIError(f"--chunk-size must be >= 1, got {args.chunk_size}")
    bits = getattr(args, "bits", None)
    if bits is not None and not 1 <= bits <= 31:
        raise CLIError(f"--bits must be from 1 to 31, got {bits}")
    if not 1 <= getattr(args, "ngram", 1) <= 8:
        raise CLIError(f"--ngram must be from 1 to 8, got {args.ngram}")
    if path is not None:
        fmt = data_format(args)
        if fmt != "vw" and (getattr(args, "quadratic", None) or getattr(args, "cubic", None)
                            or getattr(args, "ignore", None)):
            raise CLIError(f"-q/--quadratic, --cubic and --ignore apply to --format vw, not "
                           f"{fmt}")
        if fmt != "text" and getattr(args, "ngram", 1) != 1:
            raise CLIError(f"--ngram applies to --format text, not {fmt}")
        if fmt not in ("vw", "text") and bits is not None:
            raise CLIError(f"--bits applies to --format vw or text, not {fmt}")


def open_data(args, n_features=None, weights=False):
    """A reader over ``args.data``: iterate to get ``(X_chunk, y_chunk)``, constant memory
    (with ``weights``, Vowpal Wabbit input gives ``(X_chunk, y_chunk, importance)``).

    ``n_features`` (a saved model's width) overrides ``--n-features``; a LIBSVM file
    with fewer features is padded, one with more fails on the line that has them.  For
    vw and text input the width is ``2**--bits`` (by default the model's width).
    """
    from .. import io
    path = args.data
    require_data(args)
    fmt = data_format(args)
    if fmt == "csv":
        return io.read_csv(path, chunk_size=args.chunk_size, **_csv_options(args))
    if fmt == "vw":
        return io.read_vw(path, n_bits=_hash_bits(args, n_features),
                          quadratic=args.quadratic, cubic=args.cubic,
                          ignore=args.ignore, chunk_size=args.chunk_size,
                          sample_weight=weights)
    if fmt == "text":
        return io.read_text(path, n_bits=_hash_bits(args, n_features), ngram=args.ngram,
                            chunk_size=args.chunk_size)
    width = n_features if n_features is not None else args.n_features
    zero = {"auto": "auto", "yes": True, "no": False}[args.zero_based]
    if width is None:
        width = "grow"  # no first pass for the width: the model widens as rows come
    return io.read_libsvm(path, chunk_size=args.chunk_size, n_features=width,
                          zero_based=zero)


def checked_chunks(reader):
    """``(X, y, weights)`` of each of the reader's chunks (``weights`` None where every
    row weighs 1), with non-finite labels of a stream reported clearly."""
    import numpy as np
    for chunk in reader:
        X, y = chunk[0], chunk[1]
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise CLIError(f"{reader_name(reader)}: a label is NaN or infinite (or missing)")
        weights = chunk[2] if len(chunk) > 2 else None   # Vowpal Wabbit importance
        yield X, y, (None if weights is None or np.all(weights == 1) else weights)


def reader_name(reader):
    return getattr(reader, "name", None) or getattr(reader, "path", "data")


# ------------------------------------------------------------------ output
def check_writable(path, what, in_place=False):
    """Fail before any work if ``path`` cannot be created, or if it exists and is not a
    regular file (a device, a FIFO, a socket): a file olearn writes is renamed into
    place, which would replace such a node, so it is refused, or, with ``in_place``
    (text output), written through (``atomic_text``)."""
    if os.fspath(path).endswith(("/", os.sep)) or os.path.basename(path) in ("", ".", ".."):
        raise CLIError(f"cannot write {what} {path}: give a file name, not a folder")
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise CLIError(f"cannot write {what} {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise CLIError(f"cannot write {what} {path}: it is a folder")
    if os.path.exists(path) and not os.path.isfile(path):
        if in_place:
            return
        raise CLIError(f"cannot write {what} {path}: not a regular file (a device, FIFO or "
                       "socket would be replaced)")
    if not os.access(folder, os.W_OK):
        raise CLIError(f"cannot write {what} {path}: folder {folder} is not writable")


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:  # (one of them does not exist yet)
        return os.path.realpath(a) == os.path.realpath(b)


def check_paths(inputs=(), outputs=()):
    """Refuse, before any work, an output path that names an input or another output
    (the same file under any name: links, ``./``, symbolic links): ``--model`` equal to
    the data replaced the data with the model.  ``inputs`` and ``outputs`` are pairs
    (what, path); None and ``-`` (standard input and output) are skipped.  Every
    command calls this once with all its paths, then ``check_writable`` for each output."""
    ins = [(w, p) for w, p in inputs if p not in (None, "-")]
    outs = [(w, p) for w, p in outputs if p not in (None, "-")]
    for i, (what, path) in enumerate(outs):
        for other, there in ins + outs[:i]:
            if _same_file(path, there):
                raise CLIError(f"{what} {path} is also the {other}: writing it would destroy "
                               f"the {other}; choose another path")


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread so that every ``finally`` runs
    (temporary files removed) before the command exits."""


@contextlib.contextmanager
def signals_as_interrupts():
    """While a command runs: SIGTERM and SIGHUP raise :class:`Terminated` (SIGINT
    already raises KeyboardInterrupt), so no temporary file outlives a killed run."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated(signum)
    saved = {}
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            saved[sig] = signal.signal(sig, stop)
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def report_stream():
    """Where a command's progress table and summary go: standard output when it is a
    terminal, standard error otherwise (piped, redirected, captured), as Vowpal Wabbit
    does -- so ``olearn train ... | head`` or ``> log`` never mixes the report with data,
    and a closed pipe cannot stop a run.  Asked at each use (tests swap ``sys.stdout``)."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):    # no stream, or a closed one
        tty = False
    return sys.stdout if tty else sys.stderr


@contextlib.contextmanager
def atomic_text(path):
    """Write text to ``path`` (or stdout for None/'-') all or nothing: a temporary file
    in the same folder is renamed into place only when the block succeeds."""
    if path is None or path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    if os.path.exists(path) and not os.path.isfile(path):  # a device, a FIFO: in place
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            yield f
        return
    path = os.path.realpath(path)  # (a symbolic link's target is written, the link kept)
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


# ------------------------------------------------------------------ progress bar
class ProgressBar:
    """The share of a file of known size read, rows, rows/s and the time left, on one
    :class:`olearn._progress.StatusLine` (stderr, on a terminal only) redrawn at most
    every ``every`` seconds.  Nothing for a stream (standard input: no size), nor with
    ``show=False`` (``--quiet``)."""

    def __init__(self, reader, out=None, every=0.25, clock=None, show=True):
        from .._progress import StatusLine
        self.source = getattr(reader, "_source", None)
        self.line = StatusLine(None, out, every, clock)
        self.line.active &= show and bool(getattr(self.source, "size", None))

    @property
    def active(self):
        return self.line.active

    def update(self, rows):
        if not self.line.due():
            return
        share = min(1.0, self.source.done / self.source.size)
        elapsed = self.line.last - self.line.t0
        rate = rows / elapsed if elapsed > 0 else 0.0
        left = elapsed * (1 - share) / share if share > 0 else float("nan")
        width = 24
        bar = "#" * int(round(share * width))
        self.line.write(f"[{bar:<{width}}] {100 * share:5.1f}%  {rows:,} rows  "
                        f"{rate:,.0f} rows/s" + (f"  {left:,.0f} s left" if left == left
                                                 else ""))

    def clear(self):
        """Erase the line (before other output, and at the end)."""
        self.line.clear()

    def rows(self, chunks):
        """``chunks`` passed through, the bar redrawn after each one is learned."""
        n = 0
        for chunk in chunks:
            yield chunk
            n += len(chunk[1])
            self.update(n)


# ------------------------------------------------------------------ learning guard
class _CompileNotice:
    """A numba event listener printing one line on stderr when an olearn kernel starts
    compiling (numba fires "numba:compile" only on a miss of its disk cache)."""

    def __init__(self, what, how_long):
        self.what = what
        self.how_long = how_long
        self.shown = False

    def listener(self):
        from numba.core import event

        notice = self

        class Listener(event.Listener):
            def on_start(self, ev):
                dispatcher = (ev.data or {}).get("dispatcher")
                module = getattr(getattr(dispatcher, "py_func", None), "__module__", "")
                if not notice.shown and module.startswith("olearn"):
                    notice.shown = True
                    print(f"olearn: compiling {notice.what} (first use, {notice.how_long}; "
                          "cached afterwards)", file=sys.stderr, flush=True)

            def on_end(self, ev):
                pass

        return Listener()


@contextlib.contextmanager
def learning(what, how_long="seconds to minutes; the time is reported apart"):
    """Around the learning part of a command: one stderr line if kernels compile (``what``:
    e.g. "the pa1 kernels"), and no numpy RuntimeWarning reaching the terminal (a model
    that overflows is reported by :func:`guarded`, in one line)."""
    import warnings

    import numpy as np
    from numba.core import event
    notice = _CompileNotice(what, how_long)
    listener = notice.listener()
    event.register("numba:compile", listener)
    from .._compile_notice import quiet
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), quiet():
            warnings.simplefilter("ignore", RuntimeWarning)
            yield notice
    finally:
        event.unregister("numba:compile", listener)


def divergence_error():
    """``olearn.base.DivergenceError`` when the learners raise it, else None."""
    base = sys.modules.get("olearn.base")
    return getattr(base, "DivergenceError", None) if base is not None else None


def non_finite(model):
    """Name of the first float array of the model's exported state (the protocol's
    ``export_state``: a wrapper's includes its members') with a NaN or infinity, else
    None (also before the model has learned)."""
    import numpy as np
    if not model.__sklearn_is_fitted__():
        return None
    for name, value in model.export_state()[1].items():
        if isinstance(value, np.ndarray) and value.dtype.kind in "fc" \
                and not np.isfinite(value).all():
            return name.rpartition("/")[2]
    return None


class Diverged(CLIError):
    """The learner's weights became NaN or infinite."""


def _step_hint(model):
    params = model.get_params() if hasattr(model, "get_params") else {}
    for key in ("eta", "C", "alpha"):
        value = params.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return f"try a smaller step, e.g. --param {key}={value / 10:g}"
    return "try a smaller step"


def divergence_message(algo, model, where, saved_note):
    """One line: which learner, where, what happened to the file, what to try."""
    return (f"{algo} diverged (non-finite weights {where}){saved_note} "
            f"({_step_hint(model)})")


class guarded:
    """``chunks`` passed through, counting the rows learned: ``start`` is the number of
    rows before the chunk being learned, to place a learner's ``DivergenceError`` (whose
    ``row`` counts from the start of its batch) in the file.  A learner checks its
    weights after every chunk itself (``olearn.base``); the command line checks the
    whole model once, at the end (:func:`check_finite`), not after every chunk."""

    def __init__(self, model, chunks, algo, saved_note=""):
        self.model, self.chunks, self.algo, self.note = model, chunks, algo, saved_note
        self.start = 0

    def __iter__(self):
        for chunk in self.chunks:
            yield chunk
            self.start += len(chunk[1])

    def error(self, exc, data):
        """A :class:`CLIError` for the learner's ``DivergenceError`` ``exc``: the row of
        the file from its fields (``row`` of ``where="batch"``), else its message."""
        name = os.path.basename(os.fspath(data)) if data not in (None, "-") else "the input"
        hint = _step_hint(self.model)
        if getattr(exc, "where", None) == "batch" and exc.row is not None:
            text = (f"{exc.learner} diverged at row {self.start + exc.row + 1:,} of {name} "
                    f"(counting from 1): the weights became non-finite ({hint})")
        else:
            text = one_line(exc)
            if "smaller" not in text:
                text += f" ({hint})"
        return Diverged(f"{self.algo}: {text}{self.note}")


def check_finite(model, algo, where="", saved_note=""):
    """Raise :class:`Diverged` if the model's weights are not all finite."""
    if non_finite(model) is not None:
        raise Diverged(divergence_message(algo, model, where or "at the end", saved_note))


def learn_progressively(model, reader, args, note="", on_checkpoint=None, transform=None,
                        file_reader=None, **progressive_kw):
    """Progressive validation of ``model`` over the chunks of ``reader`` (train and
    evaluate): the compile notice, the progress bar (of ``file_reader``, by default
    ``reader``), the finiteness checks, and a learner's own ``DivergenceError`` turned
    into one line that names the file's row.  Other keywords go to
    :func:`olearn.evaluate.progressive.progressive`.  ``transform`` maps the chunks, on
    this thread, after the reader's (which runs a chunk ahead in its own)."""
    from ..evaluate.progressive import progressive, widening
    from ..io.pipeline import prefetch
    diverged = divergence_error()
    bar = ProgressBar(reader if file_reader is None else file_reader,
                      show=not getattr(args, "quiet", False))
    # the next chunks are read (and checked) in a thread while this one is learned; the
    # model grows with a stream read without a fixed width, before the held-out rows
    # are scored
    stream = widening(model, prefetch(checked_chunks(reader)))
    if transform is not None:
        stream = transform(stream)
    stream = guarded(model, bar.rows(stream), args.algo, note)
    if on_checkpoint is not None:
        printer = on_checkpoint

        def on_checkpoint(cp):
            bar.clear()
            printer(cp)
    from .._compile_notice import seconds
    compiled = seconds()
    # one snapshot for the whole run, not one per chunk: a run that diverges saves
    # nothing, so the model a chunk's rollback would keep is never used (a copy of the
    # state per chunk cost 0.2 s per 1M rows at 2^18 hashed columns)
    whole_run = getattr(model, "_atomic", None) or contextlib.nullcontext
    try:
        with learning(f"the {args.algo} kernels"), whole_run():
            result = progressive(model, stream, on_checkpoint=on_checkpoint, widen=False,
                                 **progressive_kw)
            check_finite(model, args.algo, saved_note=note)
        result.compile_seconds = seconds() - compiled    # (train's summary leaves it out)
    except Diverged:
        raise
    except ValueError as exc:
        if diverged is not None and isinstance(exc, diverged):
            raise stream.error(exc, args.data) from exc
        raise
    finally:
        bar.clear()
    return result
