"""What the command line reads of its ``argparse`` parsers beyond argparse's documented
API, read here only: a parser's actions (its options, positionals and subcommands,
which shell completion, the vw option check and ``olearn serve``'s defaults walk) and
the one-line help of each subcommand (which completion shows)."""
from __future__ import annotations

import argparse
from typing import Any

__all__ = ["actions", "subcommands", "subcommand_helps", "option_strings"]


def actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every action of ``parser``, in the order they were added."""
    # private: argparse lists a parser's actions nowhere else (3.8 to 3.13)
    return list(parser._actions)


def subcommands(parser: argparse.ArgumentParser) -> Any:
    """The action of ``parser``'s subcommands (``add_subparsers``'s, whose ``choices``
    is ``{name: parser}``), or None."""
    return next((a for a in actions(parser) if callable(getattr(a, "add_parser", None))),
                None)


def subcommand_helps(action: Any) -> dict[str, Any]:
    """``{name: help}`` of the subcommands of ``action`` (``subcommands``'s)."""
    # private: argparse keeps a subcommand's help= in these pseudo-actions only
    return {a.dest: a.help for a in action._choices_actions}


def option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string ``parser`` defines (``-h``, ``--help``, ...)."""
    return {s for a in actions(parser) for s in a.option_strings}
