"""The documentation's guide pages (docs/guide/*.md): every family has one, and their
code names real things: each ``olearn.make("name", key=...)`` a registered learner and
its parameters, each ``from olearn... import Name`` a name that exists.  (The site
itself is built in CI by ``python docs/build.py``, mkdocs --strict.)"""
import ast
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

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
