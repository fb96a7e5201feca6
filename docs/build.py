"""Build the documentation site (MkDocs + mkdocstrings) into a temporary folder.

    python docs/build.py [--out DIR] [--serve]

The pages are assembled in a temporary folder, never in the checkout: the hand-written
guides of docs/guide/ (a family's page followed by the API reference of its family, read
from the docstrings by mkdocstrings; the names come from each package's ``__all__`` and
its lazy table, so a new learner appears without an edit here; the pages of ``TOPICS``
as written), the CLI reference (the ``--help`` of every ``olearn`` parser, so it stays
true), the server reference (the routes of the app itself), and the committed benchmark tables
(benchmarks/*.md with their plots).  ``mkdocs build --strict``: any warning fails.
Needs the ``docs`` extra (``pip install '.[docs]'``) and, for the server's routes,
the ``serve`` extra.
"""
import argparse
import contextlib
import importlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"

#: guide page -> (title, packages whose public names it documents)
FAMILIES = {
    "linear": ("Linear learners", ["olearn.linear"]),
    "optim": ("Optimisers", ["olearn.optim"]),
    "second_order": ("Second-order learners", ["olearn.second_order"]),
    "sparse": ("Sparse learners", ["olearn.sparse"]),
    "kernel": ("Kernel learners", ["olearn.kernel"]),
    "multiclass": ("Multiclass", ["olearn.multiclass"]),
    "multilabel": ("Multilabel classification", ["olearn.multilabel"]),
    "neural": ("Neural networks", ["olearn.neural"]),
    "recommend": ("Recommenders", ["olearn.recommend"]),
    "decomposition": ("Decomposition", ["olearn.decomposition"]),
    "anomaly": ("Anomaly detection", ["olearn.anomaly"]),
    "portfolio": ("Portfolio selection", ["olearn.portfolio"]),
    "ensemble": ("Ensembles and experts", ["olearn.ensemble"]),
    "drift": ("Drift detection", ["olearn.drift"]),
    "structured": ("Sequence labelling", ["olearn.structured"]),
    "readers": ("Readers", ["olearn.io", "olearn.preprocessing"]),
}

#: guide page -> title, for the pages on a use rather than a family (no API section);
#: the README's quick starts point to them
TOPICS = {
    "models": "Models: protocol, mixing, threads, files",
    "evaluation": "Evaluation",
    "cli": "The command line in practice",
    "river": "River and scikit-learn",
    "service": "Serving models over HTTP",
    "distributed": "Scale-out on Dask",
    "internals": "Internals",
}

#: the core API page: the protocol, making, saving, mixing, evaluating, data, client
CORE = ["olearn.registry.make", "olearn.registry.available", "olearn.registry.warmup",
        "olearn.persistence.save", "olearn.persistence.load", "olearn.mixing.mix",
        "olearn.protocol", "olearn.base.OnlineLearner", "olearn.base.OnlineClassifier",
        "olearn.base.OnlineRegressor"]
EVALUATION = ["olearn.evaluate", "olearn.datasets"]


def public_objects(package):
    """``module.name`` of each public class or function of ``package`` (its ``__all__``,
    placed through its lazy table where it has one; constants are left out), or the
    package itself when it has no ``__all__``."""
    pkg = importlib.import_module(package)
    if not hasattr(pkg, "__all__"):
        return [package]                          # the module whole, its public names
    where = {**getattr(pkg, "_WHERE", {}), **getattr(pkg, "_LAZY", {})}
    out = []
    for name in getattr(pkg, "__all__", []):
        if not callable(getattr(pkg, name)):       # tables of names: their modules say
            continue
        module = f"{package}.{where[name]}" if where.get(name) else package
        out.append(f"{module}.{name}")
    return out


def api(objects):
    return "".join(f"\n::: {o}\n" for o in objects)


def cli_reference():
    """Each parser's ``--help`` (the parsers of ``olearn.cli``), subcommands nested."""
    from olearn.cli import build_parser
    from olearn.cli.completion import Node
    os.environ["COLUMNS"] = "88"              # argparse wraps to the terminal otherwise
    lines = ["# Command line", "",
             "Made from the `olearn` command's own parsers when the site is built: every "
             "subcommand's `--help`.  Shell completion: see "
             "[Shell completion](#olearn-completion).", ""]
    root = build_parser()

    def walk(path, parser):
        title = " ".join(("olearn", *path))
        lines.extend([f"{'#' * min(len(path) + 1, 4)} {title}", "", "```text",
                      _help(parser).rstrip(), "```", ""])
        for name, (node, _) in Node(path, parser).subs.items():
            walk(path + (name,), _subparser(parser, name))

    walk((), root)
    return "\n".join(lines)


def _help(parser):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        parser.print_help()
    return buf.getvalue()


def _subparser(parser, name):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def server_reference():
    """The routes of the app and the client's API (the guide page says how to run it)."""
    lines = ["# Server", "", "How to run it, tokens, durability and measurements: "
             "[Serving models over HTTP](guide/service.md).", "", "## Routes", "",
             "Read from the app that `olearn serve` runs:", "",
             "| method | path |", "| --- | --- |"]
    from olearn.serve.app import create_app
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(tmp)
        inner = getattr(app, "app", app)
        for route in inner.routes:
            for method in sorted(route.methods - {"HEAD"}):
                lines.append(f"| {method} | `{route.path}` |")
        with contextlib.suppress(Exception):
            inner.state.store.close()
    lines += ["", "## Python client", "", "::: olearn.client", "",
              "## Server modules", "", api(["olearn.serve.app", "olearn.serve.store"])]
    return "\n".join(lines)


def assemble(src):
    """Write the site's pages into ``src``; returns the navigation."""
    shutil.copytree(ROOT / "docs" / "figures", src / "figures")
    (src / "index.md").write_text((GUIDE / "index.md").read_text())
    nav = [{"Home": "index.md"}]
    guides = []
    for page, (title, packages) in FAMILIES.items():
        text = (GUIDE / f"{page}.md").read_text().rstrip()
        objects = [o for p in packages for o in public_objects(p)]
        (src / "guide").mkdir(exist_ok=True)
        (src / "guide" / f"{page}.md").write_text(
            f"{text}\n\n## API\n{api(objects)}")
        guides.append({title: f"guide/{page}.md"})
    for page, title in TOPICS.items():
        shutil.copy(GUIDE / f"{page}.md", src / "guide" / f"{page}.md")
        guides.append({title: f"guide/{page}.md"})
    nav.append({"User guide": guides})
    (src / "api.md").write_text("# Core API\n\n## Models, files, mixing\n" + api(CORE) +
                                "\n## Evaluation and data\n" + api(EVALUATION))
    nav.append({"Core API": "api.md"})
    (src / "cli.md").write_text(cli_reference())
    nav.append({"Command line": "cli.md"})
    (src / "server.md").write_text(server_reference())
    nav.append({"Server": "server.md"})
    bench = src / "benchmarks"
    bench.mkdir()
    pages = []
    for path in sorted((ROOT / "benchmarks").iterdir()):
        if path.is_file():          # tables, plots, and the scripts they link to
            shutil.copy(path, bench / path.name)
        if path.suffix == ".md" and path.name != "README.md":
            pages.append({path.stem: f"benchmarks/{path.name}"})
    nav.append({"Benchmarks": [{"Overview": "benchmarks/README.md"}, *pages]})
    return nav


def config(src, nav):
    import json
    # YAML is a superset of JSON: no YAML writer needed
    return json.dumps({
        "site_name": "olearn", "docs_dir": str(src), "nav": nav,
        "strict": True, "theme": {"name": "mkdocs"},
        "markdown_extensions": ["tables", "fenced_code", "toc", "admonition"],
        "validation": {"links": {"not_found": "warn", "anchors": "warn",
                                 "absolute_links": "warn", "unrecognized_links": "warn"}},
        "plugins": [{"search": {}}, {"mkdocstrings": {"handlers": {"python": {
            "paths": [str(ROOT)],
            "options": {"docstring_style": "numpy", "show_source": False,
                        "show_root_heading": True, "heading_level": 3,
                        "show_signature_annotations": True, "separate_signature": True,
                        "members_order": "source", "filters": ["!^_"],
                        "show_if_no_docstring": False,
                        "docstring_options": {"warn_unknown_params": False,
                                              "warn_missing_types": False}}}}}}],
    }, indent=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="the site's folder (default: a temporary one)")
    parser.add_argument("--serve", action="store_true", help="mkdocs serve instead")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="olearn-docs-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        (Path(tmp) / "mkdocs.yml").write_text(config(src, assemble(src)))
        out = args.out or str(Path(tmp) / "site")
        cmd = [sys.executable, "-m", "mkdocs", "serve" if args.serve else "build",
               "-f", str(Path(tmp) / "mkdocs.yml")]
        if not args.serve:
            cmd += ["--strict", "-d", out]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
        code = subprocess.call(cmd, env=env)
        if code == 0 and not args.serve:
            pages = sum(1 for _ in Path(out).rglob("*.html"))
            print(f"docs: {pages} pages built without warnings in {out}")
        return code


if __name__ == "__main__":
    sys.exit(main())
