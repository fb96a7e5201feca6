"""Clean layers, checked from the source and in fresh processes.

The import graph is read from olearn/'s source with ``ast``: every ``import`` and
``from ... import`` statement, at module level and inside functions alike (a lazy
import is still a dependency).  Imports by a computed name (``importlib.import_module``
of a string, as the registry loads the learner packages) are not statements and are not
counted.

A *package* here is a folder ``olearn/<name>/`` or a module ``olearn/<name>.py``; the
package ``olearn`` itself (its ``__init__``) is one more.
"""
import ast
import os
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "olearn"


def _module_name(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def package(module):
    """``olearn.io.dicts`` -> ``olearn.io``; ``olearn.base`` -> ``olearn.base``."""
    return ".".join(module.split(".")[:2])


def imports():
    """``(importer, module, name, line)`` for every import of an olearn module: ``name``
    is the imported name, None when what is imported is a module of olearn
    (``import olearn.x``, ``from olearn import x``): then ``module`` is that module."""
    found = []
    for importer, path in MODULES.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for block in ast.walk(tree) if _type_checking(block)
                       for stmt in block.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                found += [(importer, a.name, None, node.lineno) for a in node.names
                          if a.name.split(".")[0] == "olearn"]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = importer.split(".")[:len(importer.split(".")) + is_package
                                                 - node.level]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != "olearn":
                    continue
                for a in node.names:
                    sub = f"{source}.{a.name}"
                    found.append((importer, sub, None, node.lineno) if sub in MODULES
                                 else (importer, source, a.name, node.lineno))
    return found


def _type_checking(node):
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


IMPORTS = imports()


def cycles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read_and_a_cycle_would_be_found():
    """The checks below see real edges (lazy ones too), and the cycle finder finds one."""
    edges = {(package(a), package(b)) for a, b, _, _ in IMPORTS}
    assert ("olearn.cli", "olearn.evaluate") in edges
    assert ("olearn.recommend", "olearn.datasets") in edges     # a lazy import in data
    assert ("olearn.base", "olearn._compiled") in edges
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert cycles({("a", "b"), ("b", "c")}) == []


def test_no_import_cycle_between_packages():
    edges = {(package(a), package(b)) for a, b, _, _ in IMPORTS if package(a) != package(b)}
    found = cycles(edges)
    where = [f"{a}:{line} imports {b}" for a, b, _, line in IMPORTS
             if any(package(a) in c and package(b) in c and package(a) != package(b)
                    for c in found)]
    assert not found, f"import cycles between packages: {found}; {where}"


def _private(part):
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def shared_layer(module):
    """The shared internal layer: the private modules and packages at the top of
    olearn/ (``olearn._compiled``, ``olearn._state``, ``olearn._validation``, ...)."""
    parts = module.split(".")
    return len(parts) >= 2 and _private(parts[1])


def test_no_private_name_is_imported_across_packages():
    """The rule: a package may import from another package only its public modules and
    public names.  The shared internal layer (the private modules and packages at the
    top of olearn/: ``olearn._compiled`` and its modules, ``olearn._estimator``,
    ``olearn._state``, ``olearn._validation``, ``olearn._plots``, ...) is there to be
    imported by every package: its modules count as public, but not its private names.
    A private module inside a package (``olearn.linear._proba``) and a private name
    (``_name``; ``__dunder__`` names are not private) stay inside their package: what
    other packages need is made public where it is owned (``olearn.linear.LogisticProba``)
    or moved to the shared layer."""
    leaks = []
    for importer, module, name, line in IMPORTS:
        if package(importer) == package(module):
            continue
        inner = [] if shared_layer(module) else module.split(".")[2:]
        if any(map(_private, inner)) or (name is not None and _private(name)):
            leaks.append(f"{importer}:{line} imports {name or module} from {module}")
    assert not leaks, "private names imported across packages:\n" + "\n".join(leaks)


def test_the_core_depends_on_no_reader_learner_or_tool_package():
    """``olearn.base`` and the shared internal layer import no package folder of olearn/
    but ``olearn._compiled`` (the base keeps its dict vocabulary in
    ``olearn._vocabulary``, not in ``olearn.io``)."""
    folders = {f"olearn.{p.name}" for p in ROOT.iterdir()
               if (p / "__init__.py").is_file() and not _private(p.name)}
    core = [m for m in MODULES if m == "olearn.base" or shared_layer(m)]
    leaks = [f"{a}:{line} imports {b}" for a, b, _, line in IMPORTS
             if a in core and package(b) in folders]
    assert not leaks, leaks


CLI = "olearn.cli"


def cli_layers(imports=None):
    """The command line's own layering: ``(commands, helpers, wrong)``.  A *command* is a
    public module of ``olearn.cli`` (``train``, ``evaluate``, ...: ``main`` finds them by
    listing the package), a *helper* a private one (``_common``, ``_input``,
    ``_learning``, ``_models``, ``_pipeline``, ...).  ``wrong`` lists each import of a
    command module by another CLI module (a helper or another command: the package's
    ``__init__``, which dispatches to them, is the only one that may), and each private
    name taken from another CLI module (what two modules share is public in a helper)."""
    imports = IMPORTS if imports is None else imports
    inside = {m for m in MODULES if m.startswith(CLI + ".")}
    commands = {m for m in inside if not _private(m.rsplit(".", 1)[1])}
    wrong = []
    for importer, module, name, line in imports:
        if importer not in inside or importer == module:
            continue
        if module in commands:
            wrong.append(f"{importer}:{line} imports the command module {module}")
        elif (module == CLI or module.startswith(CLI + ".")) and name is not None \
                and _private(name):
            wrong.append(f"{importer}:{line} imports the private {name} from {module}")
    return commands, inside - commands, wrong


def test_no_cli_module_imports_a_command_module():
    """The commands share their helpers through the helper modules and import no command
    from another; the CLI's modules form no import cycle."""
    commands, helpers, wrong = cli_layers()
    assert {"olearn.cli.train", "olearn.cli.evaluate", "olearn.cli.predict"} <= commands
    assert {"olearn.cli._common", "olearn.cli._pipeline"} <= helpers
    assert not wrong, "\n".join(wrong)
    edges = {(a, b) for a, b, _, _ in IMPORTS if a.startswith(CLI + ".")
             and b.startswith(CLI + ".") and a != b}
    assert ("olearn.cli.train", "olearn.cli._pipeline") in edges    # (the graph is read)
    assert not cycles(edges), cycles(edges)


def test_a_command_importing_a_command_would_be_found():
    fake = [("olearn.cli._pipeline", "olearn.cli.train", "summary", 1),
            ("olearn.cli.evaluate", "olearn.cli.train", None, 2),
            ("olearn.cli.train", "olearn.cli._common", "_csv_options", 3),
            ("olearn.cli.train", "olearn.cli._common", "CLIError", 4)]
    assert len(cli_layers(fake)[2]) == 3


def _module_reaches(module):
    """``alias._name`` where ``alias`` is an olearn module imported by ``module``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    aliases = {}
    for importer, target, name, _ in IMPORTS:
        if importer == module and name is None:
            aliases[target.rsplit(".", 1)[1]] = target
    return [f"{module}:{n.lineno} {n.value.id}.{n.attr}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id in aliases and _private(n.attr)]


def test_no_cli_module_reaches_a_private_name_of_another_module():
    """``_pipeline`` took ``train._initial_model`` and ``evaluate._recent_lines``: what is
    shared is a public name of a helper module."""
    reach = [r for m in MODULES if m == CLI or m.startswith(CLI + ".")
             for r in _module_reaches(m)]
    assert not reach, reach


def test_every_cached_kernel_module_imports_njit_from_the_compiled_layer():
    """numba picks a function's cache folder when its decorator runs, so olearn's cache
    locator (registered by ``olearn._compiled``) must be in place by then: a module
    outside olearn/_compiled/ with ``cache=True`` kernels imports from
    ``olearn._compiled`` at module level, above its first one, whatever imported it."""
    late = []
    for module, path in MODULES.items():
        if module.startswith("olearn._compiled"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        cached = [k.value.lineno for k in ast.walk(tree) if isinstance(k, ast.keyword)
                  and k.arg == "cache" and getattr(k.value, "value", None) is True]
        if not cached:
            continue
        mine = {line for a, b, _, line in IMPORTS
                if a == module and b.startswith("olearn._compiled")}
        top = {n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))}
        if not any(line < min(cached) for line in mine & top):
            late.append(f"{module}: cache=True at line {min(cached)}")
    assert not late, late
    assert sum(1 for m in MODULES if m.startswith("olearn.portfolio.")) > 5  # files seen


# ------------------------------------------------------------------ numba's cache
def _fresh_env(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES")}
    env["OLEARN_CACHE_DIR"] = str(tmp_path / "olearn-cache")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path / "user"), str(ROOT.parent)] + env.get("PYTHONPATH", "").split(os.pathsep))
    return env


def _python(code, env):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_olearn_caches_its_own_kernels_only(tmp_path):
    """After ``import olearn`` and an olearn kernel compiled, numba's process-wide cache
    folder is unchanged and a user's own ``@njit(cache=True)`` function caches next to
    its file (numba's ``__pycache__``), while olearn's kernel lands in olearn's folder;
    a second process compiles neither."""
    user = tmp_path / "user"
    user.mkdir()
    (user / "user_kernels.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    code = """
        import os
        import numba.core.config as config
        before = config.CACHE_DIR
        import olearn
        from olearn.io import hashing
        from olearn._compiled import cache_dir
        assert hashing.hash_many(["a", "bc"]).shape == (2,)
        import user_kernels
        assert user_kernels.twice(21) == 42
        mine, theirs = hashing._hash_spans, user_kernels.twice
        print(config.CACHE_DIR == before, mine._cache.cache_path.startswith(cache_dir()),
              theirs._cache.cache_path == os.path.join(
                  os.path.dirname(user_kernels.__file__), "__pycache__"),
              *(sum(getattr(k.stats, s).values()) for k in (mine, theirs)
                for s in ("cache_hits", "cache_misses")))
    """
    env = _fresh_env(tmp_path)
    assert _python(code, env) == ["True", "True", "True", "0", "1", "0", "1"]
    olearn_files = [p.name for p in (tmp_path / "olearn-cache").rglob("*.nbi")]
    assert any(name.startswith("hashing._hash_spans") for name in olearn_files)
    assert not [n for n in olearn_files if n.startswith("user_kernels")]
    assert list((user / "__pycache__").glob("user_kernels.twice*.nbi"))
    assert _python(code, env) == ["True", "True", "True", "1", "0", "1", "0"]


def test_every_cached_kernel_of_olearn_uses_olearn_folder(tmp_path):
    """Every ``cache=True`` dispatcher of every olearn module (imported in a fresh
    process, nothing compiled) has its cache in ``cache_dir()``."""
    code = """
        import importlib, pkgutil
        import olearn
        from numba.core.caching import FunctionCache
        from numba.core.registry import CPUDispatcher
        from olearn._compiled import cache_dir
        seen, outside = 0, []
        for info in pkgutil.walk_packages(olearn.__path__, "olearn."):
            if info.name == "olearn.__main__":
                continue
            module = importlib.import_module(info.name)
            for f in vars(module).values():
                if isinstance(f, CPUDispatcher) and f.__module__ == info.name \\
                        and isinstance(f._cache, FunctionCache):
                    seen += 1
                    if not f._cache.cache_path.startswith(cache_dir()):
                        outside.append(f"{info.name}.{f.__name__}")
        print(seen, *outside)
    """
    out = _python(code, _fresh_env(tmp_path))
    assert int(out[0]) >= 40 and out[1:] == []


# ------------------------------------------------------------------ widening
def _growing_libsvm(n=300, d=40, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        hi = 3 + (d - 3) * i // n
        k = np.sort(rng.choice(np.arange(1, hi + 1), size=3, replace=False))
        lines.append(f"{int(rng.integers(2)) * 2 - 1} "
                     + " ".join(f"{a}:{b:.4f}" for a, b in zip(k, rng.normal(size=3))))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("path", ["library", "command line"])
def test_a_growing_stream_is_widened_once(path, monkeypatch):
    """``progressive`` over a reader, and the command line's pass (which widens before
    it scores held-out rows), each widen the model once per change of width."""
    import io
    from types import SimpleNamespace

    from olearn.cli._learning import learn_progressively
    from olearn.evaluate.progressive import progressive
    from olearn.io import read_libsvm
    from olearn.registry import make

    text = _growing_libsvm()
    widths = [X.shape[1] for X, _ in read_libsvm(io.BytesIO(text), chunk_size=25)]
    changes = sum(1 for a, b in zip([None] + widths, widths) if a != b)
    assert changes > 3
    model = make("pa1")
    calls = []
    grow = model._widen

    def counted(n_features):
        calls.append(n_features)
        return grow(n_features)

    monkeypatch.setattr(model, "_widen", counted, raising=False)
    reader = read_libsvm(io.BytesIO(text), chunk_size=25)
    if path == "library":
        result = progressive(model, reader)
    else:
        args = SimpleNamespace(algo="pa1", quiet=True, data="-")
        result = learn_progressively(model, reader, args)
    assert result.n_rows == 300 and model.n_features_in_ == max(widths)
    assert len(calls) == changes, calls
