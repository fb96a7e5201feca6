"""Count the private members of other objects that olearn's outer layers reach.

    python scripts/private_reach.py [--max N] [--quiet] [PATH ...]

Read by ``ast`` over the areas of issue 40 item 4 (the wrappers, the command line,
persistence, evaluation, serve, distributed, ``mixing.py`` and ``fused.py``), or over the
files and folders given.  A *reach* is one of:

- ``obj._name`` where ``obj`` is not the object itself (``self``, ``cls``, ``super()``,
  ``type(self)``) nor a class of the same module: another object's private member (a
  model's ``_atomic``, a module's ``train._initial_model``);
- ``getattr(obj, "_name", ...)``, ``hasattr``, ``setattr``, ``delattr`` with such a
  literal name: the same reach spelled as a string;
- ``from X import _name`` of a name (not a module: a package's private modules such as
  ``olearn._estimator`` are its own structure) defined in another module.

A dunder (``__dict__``) is not private; nor are the documented names of a named tuple
(``_replace``, ``_asdict``, ``_fields``, ``_make``), nor the standard library's documented
``os._exit``.  A comment ``# private: <reason>`` on the statement of a reach (or on the
comment lines just above it) excuses nothing -- it is still counted -- but its reason is
printed beside the site.  Prints the count per
file and each site, then per area and the total; with ``--max N`` exits 1 when the total
is above N.
"""
import argparse
import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the areas counted by default (issue 40 item 4), relative to the repository
AREAS = {
    "wrappers": ("olearn/ensemble", "olearn/multiclass", "olearn/preprocessing.py",
                 "olearn/drift/on_drift.py", "olearn/_nested.py"),
    "cli": ("olearn/cli",),
    "persistence": ("olearn/persistence.py",),
    "evaluation": ("olearn/evaluate",),
    "serve": ("olearn/serve",),
    "distributed": ("olearn/distributed.py",),
    "mixing": ("olearn/mixing.py",),
    "fused": ("olearn/fused.py",),
}

#: named tuples' public API, spelled with an underscore so as not to clash with fields
PUBLIC_UNDERSCORED = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}
#: the standard library's documented functions spelled with an underscore (``os._exit``:
#: leave at once, without clean-up, as a child process or a server's last resort must)
PUBLIC_STDLIB = {("os", "_exit")}
ATTR_CALLS = {"getattr", "hasattr", "setattr", "delattr"}
REASON = re.compile(r"#\s*private:\s*(.*)$")


def private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) \
        and name not in PUBLIC_UNDERSCORED


def files_of(paths):
    out = []
    for p in paths:
        p = Path(p)
        if not p.is_absolute():
            p = ROOT / p
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p] if p.exists() else []
    return out


def _is_module(source, name):
    """True when ``source.name`` is a module or package of the repository."""
    base = ROOT.joinpath(*source.split("."), name) if source else ROOT / name
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _own(node, own):
    """True when ``node`` (the object before ``._name``) is the object itself (``own``:
    the first parameter of the methods around it, the classes of the module)."""
    if isinstance(node, ast.Name):
        return node.id in own
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "super":
            return True
        if node.func.id == "type" and len(node.args) == 1:
            return _own(node.args[0], own)
    return False


def _owners(tree, classes):
    """``{id(node): names}``: for each node, the names that are the object itself there:
    the first parameter of each method it is in (closures inside a method too; a plain
    function's ``cls`` parameter is another object) and the module's classes."""
    out = {}

    def visit(node, own, in_class):
        out[id(node)] = own
        for child in ast.iter_child_nodes(node):
            inner, below_class = own, isinstance(node, ast.ClassDef)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and below_class:
                first = (child.args.posonlyargs + child.args.args)[:1]
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                             for d in child.decorator_list)
                if first and not static:
                    inner = own | {first[0].arg}
            visit(child, inner, below_class)
    visit(tree, frozenset(classes), False)
    return out


def _module_of(path):
    rel = path.resolve().relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return parts, is_package


def reaches(path):
    """``(line, what, reason)`` for every reach in the file at ``path``."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    spans = _statement_spans(tree)
    owners = _owners(tree, classes)
    found = []
    for node in ast.walk(tree):
        what = None
        own = owners[id(node)]
        if isinstance(node, ast.Attribute) and private(node.attr) \
                and not _own(node.value, own) and not (
                    isinstance(node.value, ast.Name)
                    and (node.value.id, node.attr) in PUBLIC_STDLIB):
            what = f"{ast.unparse(node.value)}.{node.attr}"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ATTR_CALLS and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and private(node.args[1].value) \
                and not _own(node.args[0], own):
            what = f"{node.func.id}({ast.unparse(node.args[0])}, {node.args[1].value!r})"
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts, is_package = _module_of(path)
                base = parts[:len(parts) + is_package - node.level]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if private(alias.name) and not _is_module(source, alias.name):
                    found.append((node.lineno, f"from {source} import {alias.name}",
                                  _reason(lines, spans, node.lineno)))
            continue
        if what is not None:
            found.append((node.lineno, what, _reason(lines, spans, node.lineno)))
    return sorted(found)


def _statement_spans(tree):
    """``(first, last)`` lines of each statement (of a compound one, its header)."""
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            body = getattr(node, "body", None)
            last = body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
            spans.append((node.lineno, max(node.lineno, last)))
    return spans


def _reason(lines, spans, lineno):
    """The ``# private: why`` on the lines of the statement that holds ``lineno``, or on
    the comment lines just above it."""
    first, last = min((s for s in spans if s[0] <= lineno <= s[1]),
                      key=lambda s: s[1] - s[0], default=(lineno, lineno))
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    for text in lines[first - 1:last]:
        match = REASON.search(text)
        if match:
            return match.group(1).strip()
    return None


def _name(what):
    """The private name of a reach as printed (``m._run``, ``getattr(m, '_run')``)."""
    return re.findall(r"_\w+", what.replace("import ", "."))[-1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="files or folders (default: the areas)")
    parser.add_argument("--max", type=int, default=None, metavar="N",
                        help="exit 1 when more than N reaches are found")
    parser.add_argument("--quiet", action="store_true", help="the counts only")
    args = parser.parse_args(argv)
    areas = {"given": tuple(args.paths)} if args.paths else AREAS
    total, per_area, names = 0, Counter(), set()
    for area, paths in areas.items():
        for path in files_of(paths):
            found = reaches(path)
            if not found:
                continue
            rel = path.resolve().relative_to(ROOT)
            print(f"{rel}: {len(found)}")
            if not args.quiet:
                for line, what, reason in found:
                    print(f"    {line:>5}  {what}" + (f"    # {reason}" if reason else ""))
            total += len(found)
            names |= {(rel, _name(what)) for _, what, _ in found}
            per_area[area] += len(found)
    if len(areas) > 1:
        print("per area: " + ", ".join(f"{a} {per_area[a]}" for a in areas))
    print(f"total: {total} private members of other objects reached "
          f"({len(names)} distinct names per file)")
    if args.max is not None and total > args.max:
        print(f"more than --max {args.max}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
