"""Write the README's learner table from the registry (run from the repository root):

    python scripts/learner_table.py           # rewrite the table in README.md
    python scripts/learner_table.py --check   # exit 1, saying why, if it is stale

The table sits between the two marker comments of README.md.  It has one row per
class that a registered name makes (``olearn.registry.LEARNERS``, and the models
without a target where the registry has a table of them): the names that make it (in
the table's order), the class, its task and the first sentence of its docstring.  A
name added to the registry appears after a rerun; ``tests/test_docs.py`` fails until
then, and fails for a name in the table that is not registered.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BEGIN = "<!-- learner table: written by scripts/learner_table.py from the registry -->"
END = "<!-- end of learner table -->"


def _summary(cls):
    """The docstring's first sentence (up to a full stop outside brackets), without
    pointers to the module docstring."""
    text = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    depth, end = 0, len(text)
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and ch == "." and text[i + 1:i + 2] in (" ", ""):
            end = i
            break
    text = re.sub(r" \(see the module docstring\)|[;,] see the module docstring", "",
                  text[:end])
    return text.replace("``", "`").replace("|", "\\|").strip() + "."


def registered():
    """``{name: ("module:Class", task)}`` of every name the registry's tables give
    ``olearn.make``: the learners of labelled rows (``LEARNERS``), then any table of
    models without a target (``UNLABELLED_MODELS``), of label sets
    (``MULTILABEL_MODELS``) and sequence taggers (``SEQUENCE_MODELS``), in the tables'
    order."""
    sys.path.insert(0, str(ROOT))
    from olearn import registry
    out = {name: (where, None) for name, (where, _) in registry.LEARNERS.items()}
    for name, (where, _) in getattr(registry, "UNLABELLED_MODELS", {}).items():
        out[name] = (where, "unlabelled")
    for name, (where, _) in getattr(registry, "MULTILABEL_MODELS", {}).items():
        out[name] = (where, "multilabel")
    for name, (where, _) in getattr(registry, "SEQUENCE_MODELS", {}).items():
        out[name] = (where, "sequence")
    return out


def rows():
    """``[(names, "olearn.package.Class", task, summary)]``, one per class, in the
    order of the registry's tables."""
    from olearn.registry import describe_class, lookup
    by_class = {}
    for name, (where, task) in registered().items():
        by_class.setdefault((where, task), []).append(name)
    out = []
    for (where, task), names in by_class.items():
        cls, defaults = lookup(names[0])
        d = describe_class(names[0], cls, defaults, task or "")
        if task is None:
            from olearn.registry import learner_kind
            task = learner_kind(names[0])
        out.append((names, d.cls, task, _summary(cls)))
    return out


def table():
    lines = ["| names | class (`olearn.`...) | task | what it is (its docstring) |",
             "|---|---|---|---|"]
    for names, cls, kind, summary in rows():
        cells = [", ".join(f"`{n}`" for n in names), f"`{cls.removeprefix('olearn.')}`",
                 kind]
        lines.append("| " + " | ".join([*cells, summary]) + " |")
    return "\n".join(lines)


def split(text):
    """(before, table, after) of the README's text; ValueError without the markers."""
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"README.md needs the markers {BEGIN} and {END}, once each")
    before, rest = text.split(BEGIN)
    inside, after = rest.split(END)
    return before, inside.strip("\n"), after


def listed(text):
    """The learner names the README's table lists (first column, in backquotes)."""
    _, inside, _ = split(text)
    out = []
    for line in inside.splitlines()[2:]:
        out += re.findall(r"`([^`]+)`", line.split("|")[1])
    return out


def problems(text=None):
    """What is wrong with the README's table: names missing, names not registered,
    or a table that differs from what the registry writes now (empty list: none)."""
    names = registered()
    text = README.read_text() if text is None else text
    shown = listed(text)
    out = [f"registered but not in the README's table: {n}"
           for n in names if n not in shown]
    out += [f"in the README's table but not registered: {n}"
            for n in shown if n not in names]
    if not out and split(text)[1] != table():
        out.append("the README's learner table is stale")
    return out


def main(argv):
    if "--check" in argv:
        found = problems()
        for p in found:
            print(f"learner_table: {p} (run python scripts/learner_table.py)",
                  file=sys.stderr)
        return 1 if found else 0
    before, _, after = split(README.read_text())
    README.write_text(f"{before}{BEGIN}\n{table()}\n{END}{after}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
