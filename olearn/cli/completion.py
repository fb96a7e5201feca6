"""``olearn completion bash|zsh|fish``

Prints a shell completion script for olearn, made from the command's own argparse
parsers (every subcommand, option and choice they define today) and the registry
(learner names after '--algo', portfolio strategies after 'portfolio --algo', dataset
names after '--dataset').  Enable it once per shell:

  bash: source <(olearn completion bash)          (e.g. in ~/.bashrc)
  zsh:  source <(olearn completion zsh)           (e.g. in ~/.zshrc)
  fish: olearn completion fish > ~/.config/fish/completions/olearn.fish
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ._parsers import actions, subcommand_helps

SHELLS = ("bash", "zsh", "fish")
_WORD = re.compile(r"^[A-Za-z0-9_.,:+@/-]+$")   # words safe inside the generated scripts


def add_parser(subparsers: Any) -> argparse.ArgumentParser:  # (what add_subparsers gives)
    p = subparsers.add_parser("completion", help="print a shell completion script",
                              description=__doc__.split("\n\n", 1)[1],
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    return p


def run(args: argparse.Namespace) -> int:
    from . import build_parser
    print(script(args.shell, build_parser()), end="")
    return 0


# ------------------------------------------------------------------ the parsers' tree
class Node:
    """One (sub)command: its path of names, subcommands, options and their values."""

    def __init__(self, path: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        self.path = path                # ("serve", "token") ...
        self.subs: dict[str, tuple[Node, str]] = {}  # name -> (Node, help)
        self.flags: list[str] = []      # option strings taking no value
        self.valued: dict[str, list[str] | None] = {}  # option string -> choices (list) or None (a file)
        self.helps: dict[str, str] = {}  # option string -> one-line help
        self.positional: list[str] | None = None  # choices of a positional argument, if any
        for action in actions(parser):
            if isinstance(action.choices, dict):    # the subcommands: {name: parser}
                helps = subcommand_helps(action)
                for name, sub in action.choices.items():
                    self.subs[name] = (Node(path + (name,), sub), helps.get(name) or "")
            elif action.option_strings:
                for opt in action.option_strings:
                    self.helps[opt] = _one_line(action.help)
                    if action.nargs == 0:
                        self.flags.append(opt)
                    else:
                        self.valued[opt] = _values(path, action)
            elif action.choices:
                self.positional = [str(c) for c in action.choices]

    def walk(self) -> Iterator[Node]:
        yield self
        for node, _ in self.subs.values():
            yield from node.walk()

    @property
    def options(self) -> list[str]:
        return [*self.flags, *self.valued]


def _one_line(text: str | None) -> str:
    text = (text or "").split("\n")[0]
    return re.sub(r"\s*\(default[^)]*\)|%\([a-z_]+\)s", "", text).strip()


def _values(path: tuple[str, ...], action: argparse.Action) -> list[str] | None:
    """The words that may follow an option: its choices, names from the registry for
    the options naming learners, strategies or datasets, else None (a file)."""
    if action.choices:
        return [str(c) for c in action.choices]
    if action.dest in ("algo", "algos"):
        if path[:1] == ("portfolio",):
            from ..registry import other_models
            return list(other_models()["portfolio"][1])
        from ..registry import names
        return names()
    if action.dest == "dataset":
        from ..datasets.registry import list_datasets
        return list_datasets()
    return None


def _words(words: Iterable[str]) -> str:
    return " ".join(w for w in words if _WORD.match(w))


# ------------------------------------------------------------------ bash (and zsh)
_BASH_MAIN = r'''
_olearn() {
    local cur prev path w i skip subs opts vals words
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev=""
    [[ $COMP_CWORD -gt 0 ]] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ "$cur" == "=" ]]; then
        cur=""
    elif [[ "$prev" == "=" && $COMP_CWORD -gt 1 ]]; then
        prev="${COMP_WORDS[COMP_CWORD-2]}"
    fi
    path=""
    skip=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        if [[ $skip -eq 1 ]]; then skip=0; continue; fi
        if [[ "$w" == -* ]]; then
            _olearn_spec "$path"
            [[ " $vals " == *" $w "* ]] && skip=1
            continue
        fi
        _olearn_spec "$path"
        [[ " $subs " == *" $w "* ]] && path="$path $w"
    done
    _olearn_spec "$path"
    if [[ -n "$prev" && "$prev" == -* && " $vals " == *" $prev "* ]]; then
        if words="$(_olearn_values "$path" "$prev")"; then
            COMPREPLY=($(compgen -W "$words" -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return 0
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ -n "$subs" ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    elif words="$(_olearn_values "$path" "")"; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return 0
}
complete -o filenames -F _olearn olearn
'''


def bash(root: Node) -> str:
    """The bash script: ``_olearn_spec PATH`` sets the subcommands, options and valued
    options of a command path; ``_olearn_values PATH OPTION`` prints an option's words
    (OPTION empty: the positional argument's), or fails for a file."""
    spec, values = [], []
    for node in root.walk():
        key = "".join(f" {n}" for n in node.path)
        spec.append(f'        "{key}") subs="{_words(node.subs)}"\n'
                    f'            opts="{_words(node.options)}"\n'
                    f'            vals="{_words(node.valued)}" ;;')
        for opt, words in [*node.valued.items(), ("", node.positional)]:
            if words is not None:
                values.append(f'        "{key}|{opt}") echo "{_words(words)}" ;;')
    return ("# olearn completion for bash, made by 'olearn completion bash'\n"
            "_olearn_spec() {\n    case \"$1\" in\n" + "\n".join(spec) +
            '\n        *) subs=""; opts=""; vals="" ;;\n    esac\n}\n'
            "_olearn_values() {\n    case \"$1|$2\" in\n" + "\n".join(values) +
            "\n        *) return 1 ;;\n    esac\n}\n" + _BASH_MAIN)


def zsh(root: Node) -> str:
    """zsh runs the bash script through its ``bashcompinit``."""
    return ("#compdef olearn\n# olearn completion for zsh, made by 'olearn completion zsh'\n"
            "autoload -U +X compinit && compinit\n"
            "autoload -U +X bashcompinit && bashcompinit\n" + bash(root))


# ------------------------------------------------------------------ fish
def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(root: Node) -> str:
    lines = ["# olearn completion for fish, made by 'olearn completion fish'",
             "complete -c olearn -f"]
    for node in root.walk():
        if not node.path:
            cond = "__fish_use_subcommand"
        else:
            cond = "__fish_seen_subcommand_from " + node.path[-1]
            if node.subs:
                cond += "; and not __fish_seen_subcommand_from " + " ".join(node.subs)
        head = f"complete -c olearn -n {_fish_quote(cond)}"
        for name, (_, help_) in node.subs.items():
            lines.append(f"{head} -a {name} -d {_fish_quote(_one_line(help_))}")
        for opt in node.options:
            if opt.startswith("--"):
                flag = f"-l {opt[2:]}"
            elif len(opt) == 2:
                flag = f"-s {opt[1]}"
            else:
                flag = f"-o {opt[1:]}"
            if opt in node.valued:
                words = node.valued[opt]
                flag += f" -x -a {_fish_quote(_words(words))}" if words is not None else " -r -F"
            lines.append(f"{head} {flag} -d {_fish_quote(node.helps.get(opt, ''))}")
        if node.positional:
            lines.append(f"{head} -a {_fish_quote(_words(node.positional))}")
        elif not node.subs and node.path:
            lines.append(f"{head} -F")
    return "\n".join(lines) + "\n"


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script of ``shell`` for the ``olearn`` parser ``parser``."""
    return {"bash": bash, "zsh": zsh, "fish": fish}[shell](Node((), parser))
