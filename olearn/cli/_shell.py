"""The command line as people type it: what ``main`` does between parsing and running a
command, and around its output.

- Vowpal Wabbit's spellings where they mean the same: ``-d FILE`` for the data (the
  positional DATA or ``-d``, not both); the commands add ``-i``, ``-f``, ``-p``, ``-t``.
- ``--algo PA1`` is ``--algo pa1``: a learner or recommender name is matched without
  regard to case when only one registered name fits.
- A closed standard output (``olearn train big.svm --model m.olm | head -3``) does not
  stop a command that writes a file (``GOES_ON_WHEN_STDOUT_CLOSES`` in its module): the
  rest of its printout is dropped, one line on stderr says so, the model is saved.
- Hints added to a data error where the cause is likely another format.

Standard library only (imported at start-up).
"""
import contextlib
import os
import sys


def resolve(args):
    """Reconcile the aliases of ``args`` after parsing (raises ``CLIError``)."""
    from ._common import CLIError
    flag = getattr(args, "data_flag", None)
    if flag is not None:
        if getattr(args, "data", None) is not None:
            raise CLIError(f"DATA given twice: {args.data} and -d {flag}; give one")
        args.data = flag
    if getattr(args, "data_required", False) and getattr(args, "data", None) is None:
        raise CLIError(f"the following arguments are required: DATA (or -d FILE) "
                       f"(see 'olearn {args.command} --help')")
    for attr in ("algo", "algos"):
        value = getattr(args, attr, None)
        if isinstance(value, str) and value:
            setattr(args, attr, ",".join(_canonical(n.strip()) for n in value.split(",")))
    if isinstance(getattr(args, "names", None), list) and args.command == "algos":
        args.names = [_canonical(n) for n in args.names]


@contextlib.contextmanager
def stdout_for(module):
    """While a command of ``module`` runs: a standard output that may close under it if
    the module says ``GOES_ON_WHEN_STDOUT_CLOSES = True`` (it writes a file that must
    not be lost); otherwise the plain one (a closed pipe ends the command)."""
    if not getattr(module, "GOES_ON_WHEN_STDOUT_CLOSES", False) \
            or isinstance(sys.stdout, _ClosableStdout):
        yield
        return
    saved = sys.stdout
    sys.stdout = _ClosableStdout(saved)
    try:
        yield
    finally:
        if sys.stdout.closed_pipe is False:
            with contextlib.suppress(BrokenPipeError):
                saved.flush()
        sys.stdout = saved


def _canonical(name):
    """``name``, or the one registered name (learner or recommender) equal to it up to
    case; imports nothing heavy."""
    from ..registry import names
    known = set(names())
    if not name or name in known:
        return name
    recommenders = _recommender_names()
    if name in recommenders:
        return name
    matches = [k for k in known | recommenders if k.lower() == name.lower()]
    return matches[0] if len(matches) == 1 else name


def _recommender_names():
    try:
        from ..recommend import RECOMMENDERS
    except ImportError:
        return set()
    return set(RECOMMENDERS)


class _ClosableStdout:
    """Standard output that survives its reader going away: on a broken pipe it is
    pointed at the null device (one line on stderr says so) and the command goes on."""

    def __init__(self, stream):
        self._stream = stream
        self.closed_pipe = False

    def _call(self, name, *a):
        try:
            return getattr(self._stream, name)(*a)
        except BrokenPipeError:
            if not self.closed_pipe:
                self.closed_pipe = True
                try:
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, self._stream.fileno())
                except (OSError, ValueError):
                    pass
                print("olearn: standard output was closed; the rest of the printout is "
                      "dropped, the run goes on", file=sys.stderr, flush=True)
            return None

    def write(self, text):
        if self.closed_pipe:
            return len(text)
        return self._call("write", text)

    def flush(self):
        if not self.closed_pipe:
            self._call("flush")

    def __getattr__(self, name):
        return getattr(self._stream, name)


def hint(exc, args):
    """A hint to append to the one-line message of ``exc``, or ""."""
    text = str(exc)
    fmt = getattr(args, "format", None)
    if fmt in ("auto", "libsvm", "csv") and "label" in text and "is not a number" in text:
        return " (is this a text file? use --format text)"
    return ""
