"""The public API's annotations: every public function of the modules mypy checks is
annotated (parameters and return), and the package says so (``py.typed``).  mypy itself
runs in CI (.ci/run, ``[tool.mypy]`` in pyproject.toml)."""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:                                   # pragma: no cover (3.10)
    tomllib = None


def _config():
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def public_functions(path):
    """``(qualified name, fully annotated?)`` of each public function and method (and
    ``__init__``) of the module at ``path``, in public classes."""
    out = []

    def visit(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("_") and node.name not in (
                        "__init__", "__sklearn_is_fitted__"):
                    continue
                a = node.args
                args = a.posonlyargs + a.args + a.kwonlyargs
                if args and args[0].arg in ("self", "cls"):
                    args = args[1:]
                args += [v for v in (a.vararg, a.kwarg) if v is not None]
                full = node.returns is not None and all(v.annotation is not None
                                                        for v in args)
                out.append((f"{prefix}{node.name}", full))

    visit(ast.parse(path.read_text()).body, "")
    return out


def test_every_public_function_mypy_checks_is_annotated():
    files = [f for f in _config()["tool"]["mypy"]["files"] if f.startswith("olearn/")]
    assert "olearn/protocol.py" in files and "olearn/base.py" in files
    found = {f"{f}:{name}": full for f in files
             for name, full in public_functions(ROOT / f)}
    missing = sorted(name for name, full in found.items() if not full)
    assert not missing, f"not annotated: {', '.join(missing)}"
    # the protocol's calls and the entry points are among them
    for name in ("olearn/protocol.py:Model.learn_one", "olearn/base.py:OnlineLearner.fit",
                 "olearn/registry.py:make", "olearn/persistence.py:load",
                 "olearn/mixing.py:mix", "olearn/datasets/registry.py:load",
                 "olearn/client.py:Client.learn"):
        assert found.get(name), name
    print(f"{len(found)} public functions annotated")


def test_the_package_ships_py_typed():
    assert (ROOT / "olearn" / "py.typed").is_file()
    assert "py.typed" in _config()["tool"]["setuptools"]["package-data"]["olearn"]


def test_the_check_can_fail(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f(x: int) -> int:\n    return x\n\n"
                    "class C:\n    def g(self, y):\n        return y\n")
    assert public_functions(path) == [("f", True), ("C.g", False)]
