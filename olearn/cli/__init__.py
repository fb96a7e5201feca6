"""The ``olearn`` command.

Each subcommand is a module of this package that defines ``add_parser(subparsers)``
(adds its parser with ``subparsers.add_parser(name, ...)``) and ``run(args)`` (does
the work, returns an exit code or None).  ``main`` finds them by listing the package,
so a new subcommand is a new file here and nothing else.

Errors a user can cause (bad option, unknown algorithm or parameter, missing or
malformed file, NaN, mismatched model) end with one line ``olearn: error: ...`` on
stderr and exit code 2, never a traceback; outputs are written atomically, so a
failed run leaves no half-written model or prediction file.

Layers: a command module imports only the helper modules (the private ones), never
another command, and what two modules share is a public name of a helper:
``_common`` (errors, ``--param``, learner names, output files), ``_input`` (reading
DATA), ``_models`` (the learner made or continued), ``_learning`` (a learning run: compile
notice, progress bar, divergence), ``_pipeline`` (the input record of a model file), and
one module per option group or input kind (``_order``, ``_remote``, ``_distributed``,
``_ratings``, ``_advice``, ``_shell``, ``_startup``).  ``tests/test_layers.py`` checks it.

Start-up is cheap: the subcommand modules import only the standard library, and each
``run`` checks what it can (file exists, algorithm known, parameters parse) before
importing numpy, scikit-learn, numba or a learner.
"""
import argparse
import importlib
import pkgutil
import sys

from . import _common, _shell, _startup, _vw
from ._common import CLIError, one_line, user_errors
from ._parsers import subcommands

#: subcommands listed first in ``olearn --help``; others follow by name
_FIRST = ("train", "predict", "evaluate", "compare", "algos", "datasets", "warmup")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message):
        raise CLIError(f"{message} (see '{self.prog} --help')")


def _subcommand_modules():
    names = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
    names.sort(key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST), n))
    for name in names:
        module = importlib.import_module(f"{__name__}.{name}")
        if hasattr(module, "add_parser") and hasattr(module, "run"):
            yield module


def build_parser():
    from .. import __version__
    parser = _Parser(prog="olearn", description="Online learning from the command line: "
                     "train, predict and evaluate online learners on LIBSVM or CSV files.")
    parser.add_argument("--version", action="version", version=f"olearn {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND",
                                       parser_class=_Parser)
    for module in _subcommand_modules():
        before = set(subparsers.choices)
        module.add_parser(subparsers)
        for name in set(subparsers.choices) - before:
            subparsers.choices[name].set_defaults(command_run=module.run, command_module=module)
    return parser


def _subparsers(parser):
    return subcommands(parser)


def main(argv=None):
    """Run the ``olearn`` command with ``argv`` (default: ``sys.argv[1:]``); returns the
    exit code."""
    whole = argv is None        # the process's own command line: it ends with this call
    argv = sys.argv[1:] if whole else [str(a) for a in argv]
    _common.current_argv = argv
    args = None
    try:
        parser = build_parser()
        _vw.check_argv(argv, _subparsers(parser))   # a vw option olearn has not: one line
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:       # --help, --version
            return exc.code if isinstance(exc.code, int) else 0
        if getattr(args, "command_run", None) is None:
            parser.print_help(sys.stderr)
            return 2
        _shell.resolve(args)                   # -d FILE, --algo PA1
        # (temporary files removed on SIGTERM; the collector paused: olearn/cli/_startup.py)
        with _common.signals_as_interrupts(), _shell.stdout_for(args.command_module), \
                _startup.collector_paused(freeze=whole):
            return args.command_run(args) or 0
    except BrokenPipeError:            # e.g. `olearn predict ... | head`
        _silence_stdout()
        return 1
    except Exception as exc:           # noqa: BLE001 (user errors: one line; others: raise)
        if not isinstance(exc, user_errors()):
            raise
        print(f"olearn: error: {one_line(exc)}{_shell.hint(exc, args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print("olearn: interrupted", file=sys.stderr)
        return 143 if isinstance(exc, _common.Terminated) else 130


def _silence_stdout():
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
