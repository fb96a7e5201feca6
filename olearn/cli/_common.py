"""What the subcommands share: the one-line errors, ``--param`` values and learner
names, ``--algo NAME --help``, and the files a command writes (atomic output, paths
checked before any work, where the report goes).  Its siblings carry the other shared
concerns: reading DATA (``_input``), making or continuing a learner (``_models``), and
learning with the compile notice, progress bar and divergence checks (``_learning``).

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
    errors = (CLIError, ValueError, KeyError, OSError, TypeError, ImportError, MemoryError,
              OverflowError)
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


def is_detector(algo):
    """One registered model without a target that scores rows (``score_learn``): an
    anomaly detector, which train and evaluate take (the label column, when there is
    one, is read only for the metric)."""
    from ..registry import UNLABELLED_MODELS, lookup
    names = split_algos(algo)
    return len(names) == 1 and names[0] in UNLABELLED_MODELS and \
        hasattr(lookup(names[0])[0], "score_learn")


def check_algos(names, detectors=False):
    """Unknown algorithm names fail here, before anything heavy is imported (with
    ``detectors``, an anomaly detector's name passes: :func:`is_detector`)."""
    from ..registry import check_name, other_models
    for name in names:
        if detectors and is_detector(name):
            continue
        try:
            check_name(name)
        except KeyError:
            for kind, (_, known, how) in other_models().items():
                if name in known:   # a recommender, strategy or detector: say where it goes
                    where = "use --format ratings" if kind == "recommender" else how
                    raise CLIError(f"{name!r} is a {kind}, not a learner of this command "
                                   f"({where})") from None
            raise


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
