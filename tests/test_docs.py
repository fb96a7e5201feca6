"""The documentation's guide pages (docs/guide/*.md): every family has one, and their
code names real things: each ``olearn.make("name", key=...)`` a registered learner and
its parameters, each ``from olearn... import Name`` a name that exists; the "coming from"
page's olearn column names only things that exist.  The pages are tutorials that the
docs build runs (``python docs/build.py``, in CI; mkdocs --strict): here the executor is
checked on a small page (default tier), and every page is run under ``-m full``."""
import ast
import importlib
import importlib.util
import inspect
import re
import shlex
import sys
from pathlib import Path

import pytest

from olearn import registry
from olearn.registry import lookup, names

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
sys.path.insert(0, str(ROOT / "docs"))
import build  # noqa: E402  (docs/build.py)


def _blocks():
    for page in sorted(GUIDE.glob("*.md")):
        for code in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
            yield page.name, ast.parse(code)


def test_every_family_has_its_page():
    assert (sorted(p.stem for p in GUIDE.glob("*.md"))
            == sorted([*build.FAMILIES, *build.TOPICS, "index"]))
    for page, (_, packages) in build.FAMILIES.items():
        for package in packages:
            assert build.public_objects(package), package


def test_the_guides_name_real_learners_parameters_and_imports():
    made = imported = 0
    for page, tree in _blocks():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "make" and getattr(node.func.value, "id", "")
                    == "olearn"):
                if not isinstance(node.args[0], ast.Constant):
                    continue                # olearn.make(name) in a loop over names
                name = node.args[0].value   # (every table olearn.make reads)
                assert name in names() + registry.unlabelled_names() + \
                    registry.multilabel_names() + registry.sequence_names(), \
                    f"{page}: {name}"
                cls, _ = lookup(name)
                valid = set(inspect.signature(cls.__init__).parameters)
                for kw in node.keywords:
                    assert kw.arg in valid, f"{page}: {name} has no parameter {kw.arg}"
                made += 1
            elif isinstance(node, ast.ImportFrom) and node.module.startswith("olearn"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    assert (hasattr(module, alias.name)     # a name, or a submodule
                            or importlib.util.find_spec(f"{node.module}.{alias.name}")), \
                        f"{page}: {node.module}.{alias.name}"
                    imported += 1
    assert made >= 8 and imported >= 6


# ---------------------------------------------------------------- the pages run
def test_the_executor_runs_a_page_and_fails_on_a_block_that_raises(tmp_path):
    """A page's blocks share one namespace in a fresh folder, their printed output is
    kept, a marked block is not run, and a block that raises fails in one line naming
    the page and the block's fence line (and the line that raised)."""
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n```python\nx = 2\nopen('made.txt', 'w').write('x')\nprint(x * 21)\n"
        "```\n\n<!-- not executed: it would raise -->\n```python\nraise SystemError\n```\n"
        "\n```python\nprint(x + 1)\n```\n")
    assert build.execute(page) == {3: "42\n", 14: "3\n"}
    assert not (tmp_path / "made.txt").exists()         # its own temporary folder
    site = build.render(page.read_text(), build.execute(page))
    assert "*Not run by the docs build: it would raise.*" in site
    assert "print(x * 21)\n```\n\nOutput:\n\n```text\n42\n```\n" in site
    assert "<!--" not in site
    page.write_text(page.read_text() + "\n```python\ny = 1\nz = x / 0\n```\n")
    with pytest.raises(build.PageError) as err:
        build.execute(page)
    assert str(err.value) == (f"{page}:18: the block raised (line 20): "
                              "ZeroDivisionError: division by zero")
    assert "\n" not in str(err.value)


@pytest.mark.full
@pytest.mark.parametrize("page", sorted(p.name for p in GUIDE.glob("*.md")))
def test_every_guide_page_runs(page, tmp_path):
    """Each guide page as the docs build runs it (slow: it compiles the page's kernels)."""
    build.execute(GUIDE / page, figures=tmp_path)


def test_a_page_marks_few_blocks_not_executed():
    """Blocks the build does not run are marked, visibly, and few."""
    skipped = {p.name: sum(b.skip is not None for b in build.blocks(p.read_text()))
               for p in GUIDE.glob("*.md")}
    assert sum(skipped.values()) <= 6, skipped
    for page in GUIDE.glob("*.md"):
        for block in build.blocks(page.read_text()):
            assert block.skip is None or block.skip.strip(), (page.name, block.line)


# ------------------------------------------------------ coming from River, VW, sklearn
def _olearn_column(text):
    """The backticked pieces of the last (olearn) column of every table row."""
    for line in text.splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            yield from re.findall(r"`([^`]+)`", cells[-1])


def _methods():
    out = set()
    for name in (*registry.names(), *registry.unlabelled_names()):
        out |= set(dir(registry.lookup(name)[0]))
    return out


def _problem(code, methods):
    """What is wrong with one olearn-column name, or None."""
    from olearn.cli import build_parser
    from olearn.cli._parsers import option_strings
    if code.startswith("olearn "):                      # a command line
        argv = shlex.split(code)[1:]
        parser = build._subparser(build_parser(), argv[0])
        known = option_strings(parser)
        for i, arg in enumerate(argv[1:], 1):
            if arg.startswith("-") and not re.fullmatch(r"-[\d.e-]+", arg) \
                    and arg not in known:
                return f"{code}: olearn {argv[0]} has no option {arg}"
            if argv[i - 1] == "--algo" and arg not in registry.names():
                return f"{code}: no learner {arg}"
        return None
    if code.startswith("olearn.make("):
        call = ast.parse(code).body[0].value
        name = call.args[0].value
        everything = (registry.names() + registry.unlabelled_names()
                      + registry.multilabel_names() + registry.sequence_names())
        if name not in everything:
            return f"{code}: no learner {name!r}"
        valid = set(inspect.signature(registry.lookup(name)[0].__init__).parameters)
        bad = [kw.arg for kw in call.keywords if kw.arg not in valid]
        return f"{code}: {name} has no parameter {bad[0]}" if bad else None
    if re.fullmatch(r"olearn(\.\w+)+", code):
        parts = code.split(".")
        obj = importlib.import_module(parts[0])
        for i, part in enumerate(parts[1:], 1):
            if not hasattr(obj, part):
                try:
                    obj = importlib.import_module(".".join(parts[:i + 1]))
                    continue
                except ImportError:
                    return f"{code}: no {part} in {'.'.join(parts[:i])}"
            obj = getattr(obj, part)
        return None
    if re.fullmatch(r"\.\w+", code):
        return None if code[1:] in methods else f"{code}: no olearn model has it"
    return f"{code}: not an olearn name this test can check"


def test_the_coming_from_page_names_only_what_exists():
    text = (GUIDE / "coming_from.md").read_text()
    names = list(_olearn_column(text))
    methods = _methods()
    assert len(names) >= 80
    assert [p for p in (_problem(c, methods) for c in names) if p] == []
    # the check sees each kind of mistake
    wrong = ['olearn.make("pa7")', 'olearn.make("pa1", D=3)', "olearn.drift.ADWYN",
             ".learn_two", "olearn train -d x.vw --no_such_flag", "olearn train --algo x",
             "river.anything"]
    assert all(_problem(c, methods) for c in wrong)


def test_the_answers_to_vw_options_name_real_learners_and_parameters():
    """Each ``--algo NAME`` and ``--param P=`` that the one-line answers to vw's options
    (and every subcommand's ``--help``) tell a user to type exists: the coming-from
    page's vw table sent readers to ``--algo ozabag``, ``--algo ovr`` and ``--param
    hidden``, none of which did."""
    from olearn.cli import _vw
    texts = [t for t in _vw.ANSWERS.values() if t]
    texts.append(build.cli_reference())
    from olearn.portfolio import STRATEGIES
    from olearn.recommend import RECOMMENDERS
    known = set(registry.names() + registry.unlabelled_names() + registry.multilabel_names()
                + registry.sequence_names()) | set(STRATEGIES) | set(RECOMMENDERS)
    checked = 0
    for text in texts:
        for algo, params in re.findall(r"--algo ([a-z][\w-]*)((?: with --param \w+=)?)",
                                       text):
            if algo == "may":               # prose: "--algo may be left out"
                continue
            assert algo in known, (algo, text[:80])
            for param in re.findall(r"--param (\w+)=", params):
                valid = inspect.signature(lookup(algo)[0].__init__).parameters
                assert param in valid, (algo, param)
            checked += 1
    assert checked >= 8


def test_the_cli_reference_has_every_subcommand():
    from olearn.cli import build_parser
    from olearn.cli.completion import Node
    text = build.cli_reference()
    for node in Node((), build_parser()).walk():
        assert f" {' '.join(('olearn', *node.path))}\n" in text


# ---------------------------------------------------------------- README, ARCHITECTURE
sys.path.insert(0, str(ROOT / "scripts"))
import learner_table  # noqa: E402  (scripts/learner_table.py)


def test_the_readme_learner_table_is_the_registry():
    """Every name of the registry's table is in the README's learner table, every name
    there is registered, and the table is what scripts/learner_table.py writes now."""
    from olearn.registry import LEARNERS
    assert learner_table.problems() == [], "run python scripts/learner_table.py"
    text = (ROOT / "README.md").read_text()
    assert set(LEARNERS) <= set(learner_table.listed(text)) == set(learner_table.registered())
    # the check sees a name missing, a name not registered, and a stale row
    first = next(n for n in LEARNERS)
    missing = text.replace(f"`{first}`", "`not-a-learner`", 1)
    assert learner_table.problems(missing) == [
        f"registered but not in the README's table: {first}",
        "in the README's table but not registered: not-a-learner"]
    stale = text.replace(" | classifier | ", " | classifier | an old summary; ", 1)
    assert learner_table.problems(stale) == ["the README's learner table is stale"]


def test_readme_and_architecture_read_in_ten_minutes():
    """Issue 40: README.md at most 300 lines, ARCHITECTURE.md at most 200, and no prose
    line over 100 characters (the generated table's rows may be longer)."""
    for name, most in (("README.md", 300), ("ARCHITECTURE.md", 200)):
        lines = (ROOT / name).read_text().splitlines()
        assert len(lines) <= most, f"{name}: {len(lines)} lines"
        long = [i + 1 for i, line in enumerate(lines)
                if len(line) > 100 and not line.startswith("|")]
        assert not long, f"{name}: lines over 100 characters: {long}"
