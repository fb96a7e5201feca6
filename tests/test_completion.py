"""``olearn completion``: the scripts come from the parsers, and bash's completion of
the generated script answers what the parsers and the registry say."""
import argparse
import shutil
import subprocess
import sys

import pytest

from olearn.cli import build_parser
from olearn.cli.completion import Node, script
from olearn.registry import names

BASH = shutil.which("bash")


def _olearn(*args):
    return subprocess.run([sys.executable, "-m", "olearn", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory):
    out = _olearn("completion", "bash")
    assert out.returncode == 0, out.stderr
    path = tmp_path_factory.mktemp("completion") / "olearn.bash"
    path.write_text(out.stdout)
    return path


def _complete(script_path, line, cwd=None):
    """bash's reply for the command line ``line`` (the cursor after its last word;
    a line ending in a space completes an empty word)."""
    words = line.split() + ([""] if line.endswith(" ") else [])
    quoted = " ".join(f"'{w}'" for w in words)
    cmd = (f"source '{script_path}'; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; "
           '_olearn; printf "%s\\n" "${COMPREPLY[@]}"')
    out = subprocess.run([BASH, "-c", cmd], capture_output=True, text=True, cwd=cwd,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return [w for w in out.stdout.split("\n") if w]


needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


@needs_bash
def test_bash_completes_as_the_readme_says():
    # the README's way to enable it: source <(olearn completion bash)
    cmd = (f"source <('{sys.executable}' -m olearn completion bash); "
           "COMP_WORDS=(olearn tr); COMP_CWORD=1; _olearn; echo ${COMPREPLY[@]}")
    out = subprocess.run([BASH, "-c", cmd], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["train"]


@needs_bash
def test_bash_subcommands_options_and_values(bash_script, tmp_path):
    parser = build_parser()
    root = Node((), parser)
    assert sorted(_complete(bash_script, "olearn ")) == sorted(root.subs)
    # every option of every subcommand, as its parser has it today
    for name, (node, _) in root.subs.items():
        assert sorted(_complete(bash_script, f"olearn {name} -")) == sorted(node.options)
    # learner names from the registry, after --algo and after --algo= too
    pa = sorted(n for n in names() if n.startswith("pa"))
    assert pa and sorted(_complete(bash_script, "olearn train --algo pa")) == pa
    assert sorted(_complete(bash_script, "olearn evaluate --algo = pa")) == pa
    # an option's choices, after other options and their values
    assert _complete(bash_script, "olearn train data.svm --model m.olm --format li") == \
        ["libsvm"]
    # nested subcommands and their choices
    assert _complete(bash_script, "olearn serve token a") == ["add"]
    assert sorted(_complete(bash_script, "olearn serve token add --scope ")) == \
        ["admin", "learn", "metrics", "predict"]
    assert _complete(bash_script, "olearn datasets f") == ["fetch"]
    # a file after an option naming one, and as the data argument
    (tmp_path / "model-one.olm").write_text("")
    assert _complete(bash_script, "olearn predict x.svm --model model-", cwd=tmp_path) == \
        ["model-one.olm"]
    assert _complete(bash_script, "olearn train mod", cwd=tmp_path) == ["model-one.olm"]


def test_a_new_option_appears_in_every_shell():
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            action.choices["train"].add_argument("--brand-new-option", choices=("x1", "y2"))
    assert '--brand-new-option"' not in script("bash", build_parser())
    bash, zsh, fish = (script(s, parser) for s in ("bash", "zsh", "fish"))
    assert "--brand-new-option" in bash and '" train|--brand-new-option") echo "x1 y2"' in bash
    assert bash in zsh and "bashcompinit" in zsh
    assert ("-n '__fish_seen_subcommand_from train' -l brand-new-option -x -a 'x1 y2'"
            in fish)


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_accepts_its_script(tmp_path):
    path = tmp_path / "olearn.fish"
    path.write_text(script("fish", build_parser()))
    out = subprocess.run(["fish", "-c", f"source {path}; complete -C 'olearn tr'"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("train"), out.stderr


def test_unknown_shell_is_one_line():
    out = _olearn("completion", "tcsh")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "invalid choice" in out.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_runs_the_script_through_bashcompinit(tmp_path):
    path = tmp_path / "olearn.zsh"
    path.write_text(script("zsh", build_parser()))
    # (zsh's completion system filters the words by the prefix itself: the function
    # answers every word that fits the position, as bashcompinit's compgen gives them)
    cmd = (f"source {path} && emulate sh -c 'COMP_WORDS=(olearn serve token a); "
           "COMP_CWORD=3; _olearn; echo ${COMPREPLY[@]}'")
    out = subprocess.run(["zsh", "-f", "-c", cmd], capture_output=True, text=True,
                         timeout=60, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["add", "list", "revoke"]
