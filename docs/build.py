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
the ``serve`` extra; executing the guides needs the ``test`` extra (matplotlib, River,
pandas, Dask, the server).

Every guide page is a tutorial, and the build runs it (``execute``): before the site is
assembled, each page's fenced blocks run in the page's order, one namespace per page,
in a fresh temporary working folder (the page's own files: data it writes, models it
saves, its plots); ``--no-exec`` leaves them out (the site alone, for a quick look).

* A ```` ```python ```` block runs as Python; what it prints is shown under it on the
  site (so a printed figure is always what the code printed: the prose does not quote
  run figures).  matplotlib runs with the Agg backend; every ``.png`` a page writes in
  its folder is put next to the page on the site, where ``![...](name.png)`` shows it.
* A ```` ```console ```` block runs line by line: each ``$ olearn ...`` line is the
  ``olearn`` command (``python -m olearn``) in the page's folder, and must exit 0; the
  site shows each command with what it printed (standard output, then standard error:
  the summaries go there when the output is not a terminal).  Lines without ``$`` in
  the block are shown as written, not compared (run times vary).  Other
  ``$`` commands, and ```` ```bash ````/```` ```sh ```` blocks, are not run: they show
  commands on the reader's files.
* A block whose fence is preceded by ``<!-- not executed: REASON -->`` is not run; it
  is shown as written, with its reason.  Keep them few: a server, a cluster and
  ``../shared/data`` can mostly be replaced by an in-process or subprocess equivalent.

A block that raises (or a command that fails) fails the build with one line naming the
page, the block's fence line and, when it is not the block's first, the line that
raised: ``docs/guide/x.md:12: the block raised (line 15): ValueError: ...``.  The CI
job runs the build after the test tiers, on their kernel cache; ``pytest -m full
tests/test_docs.py`` runs each page as a test.
"""
import argparse
import contextlib
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
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
    "river": "River-style",
    "sklearn": "scikit-learn-style",
    "coming_from": "Coming from River, Vowpal Wabbit or scikit-learn",
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

#: the marker, on the line before a fence, of a block the build does not run
SKIP = re.compile(r"^<!--\s*not executed:\s*(.*?)\s*-->$")


class PageError(Exception):
    """A guide page's block raised or its command failed; the message is one line."""


class Block:
    """A fenced block of a page: its language, the lines of its opening and closing
    fences (from 1), its code, and the reason it is not run (None: it runs)."""

    def __init__(self, lang, line, end, code, skip):
        self.lang, self.line, self.end, self.code, self.skip = lang, line, end, code, skip

    @property
    def runs(self):
        return self.skip is None and (self.lang == "python" or (
            self.lang == "console" and any(c.startswith("olearn")
                                           for c in self.commands())))

    def commands(self):
        """The ``$ `` lines of a console block, without the prompt."""
        return [ln[2:].strip() for ln in self.code.splitlines() if ln.startswith("$ ")]


def blocks(text):
    """Every fenced block of a page's markdown, in order."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            lang, start = lines[i][3:].strip(), i
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            before = next((ln for ln in reversed(lines[:start]) if ln.strip()), "")
            m = SKIP.match(before.strip())
            out.append(Block(lang, start + 1, j + 1, "\n".join(lines[start + 1:j]) + "\n",
                             m.group(1) if m else None))
            i = j + 1
        else:
            i += 1
    return out


def _where(page):
    with contextlib.suppress(ValueError):
        return str(page.resolve().relative_to(ROOT))
    return str(page)


def _fail(page, block, exc):
    """The one line of a block that raised: the page, the block's fence line, and the
    page's line where it raised (the code is compiled at its lines of the page)."""
    at = [f.lineno for f in traceback.extract_tb(exc.__traceback__)
          if f.filename == str(page)]
    where = f" (line {at[-1]})" if at and at[-1] != block.line + 1 else ""
    first = (str(exc).strip().splitlines() or [""])[0]
    return PageError(f"{_where(page)}:{block.line}: the block raised{where}: "
                     f"{type(exc).__name__}: {first}")


def _run_console(page, block, folder):
    """Run a console block's ``$ olearn`` lines in ``folder``; their output, joined."""
    shown = []
    for command in block.commands():
        argv = shlex.split(command, comments=True)
        if not argv or argv[0] != "olearn":
            continue
        proc = subprocess.run([sys.executable, "-m", "olearn", *argv[1:]], cwd=folder,
                              capture_output=True, text=True, env=_env())
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or [""])[-1]
            raise PageError(f"{_where(page)}:{block.line}: `{command}` exited "
                            f"{proc.returncode}: {last}")
        shown.append(f"$ {command}\n{proc.stdout}{proc.stderr}")
    return "".join(shown)


def _env():
    return {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def execute(page, figures=None):
    """Run a guide page as a tutorial: every block that runs, in order, in one namespace,
    in a fresh temporary working folder.  Returns ``{fence line: printed output}``;
    the ``.png`` files the page wrote are copied into ``figures`` when given.  Raises
    ``PageError`` (one line) at the first block that fails."""
    page = Path(page).resolve()
    os.environ["MPLBACKEND"] = "Agg"
    with contextlib.suppress(ImportError):
        import matplotlib
        matplotlib.use("Agg")
    namespace = {"__name__": "__main__", "__file__": str(page)}
    printed = {}
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix=f"olearn-page-{page.stem}-") as folder:
        os.chdir(folder)
        try:
            for block in blocks(page.read_text()):
                if not block.runs:
                    continue
                if block.lang == "console":
                    printed[block.line] = _run_console(page, block, folder)
                    continue
                code = compile("\n" * block.line + block.code, str(page), "exec")
                out = io.StringIO()
                try:
                    with contextlib.redirect_stdout(out):
                        exec(code, namespace)
                except Exception as exc:
                    raise _fail(page, block, exc) from None
                printed[block.line] = out.getvalue()
            if figures is not None:
                for png in sorted(Path(folder).rglob("*.png")):
                    Path(figures).mkdir(parents=True, exist_ok=True)
                    if (Path(figures) / png.name).exists():
                        raise PageError(f"{_where(page)}: {png.name} is a figure of an "
                                        "earlier page too: name it after the page")
                    shutil.copy(png, Path(figures) / png.name)
        finally:
            os.chdir(here)
            if "matplotlib.pyplot" in sys.modules:
                sys.modules["matplotlib.pyplot"].close("all")
    return printed


def render(text, printed):
    """A page as the site shows it: each block's printed output under it, and each
    not-executed marker made visible."""
    lines, out = text.splitlines(), []
    by_end = {}
    for block in blocks(text):
        if printed.get(block.line):
            by_end[block.end] = printed[block.line]
    for number, line in enumerate(lines, 1):
        m = SKIP.match(line.strip())
        if m:
            out.append(f"*Not run by the docs build: {m.group(1)}.*")
            out.append("")
            continue
        out.append(line)
        if number in by_end:
            out += ["", "Output:", "", "```text", by_end[number].rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


def run_guides(figures=None, pages=None):
    """Execute every guide page (or ``pages``); ``{stem: printed}``.  Prints each page's
    seconds on stderr."""
    ran = {}
    for page in pages or sorted(GUIDE.glob("*.md")):
        start = time.perf_counter()
        ran[page.stem] = execute(page, figures)
        print(f"docs: ran {page.name} in {time.perf_counter() - start:.1f} s",
              file=sys.stderr, flush=True)
    return ran


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


def assemble(src, ran=None):
    """Write the site's pages into ``src``; returns the navigation.  ``ran``: each guide
    page's printed output (``run_guides``), shown under its blocks."""
    ran = ran or {}
    shutil.copytree(ROOT / "docs" / "figures", src / "figures")
    (src / "guide").mkdir(exist_ok=True)

    def page_text(page):
        return render((GUIDE / f"{page}.md").read_text(), ran.get(page, {}))

    (src / "index.md").write_text(page_text("index"))
    nav = [{"Home": "index.md"}]
    guides = []
    for page, (title, packages) in FAMILIES.items():
        text = page_text(page).rstrip()
        objects = [o for p in packages for o in public_objects(p)]
        (src / "guide" / f"{page}.md").write_text(
            f"{text}\n\n## API\n{api(objects)}")
        guides.append({title: f"guide/{page}.md"})
    for page, title in TOPICS.items():
        (src / "guide" / f"{page}.md").write_text(page_text(page))
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
    parser.add_argument("--no-exec", action="store_true",
                        help="do not run the guide pages (the site alone)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="olearn-docs-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        ran = {}
        if not args.no_exec:
            start = time.perf_counter()
            try:
                ran = run_guides(figures=src / "guide")
            except PageError as exc:
                print(f"docs: {exc}", file=sys.stderr)
                return 1
            print(f"docs: ran every guide page in {time.perf_counter() - start:.0f} s",
                  file=sys.stderr)
        (Path(tmp) / "mkdocs.yml").write_text(config(src, assemble(src, ran)))
        out = args.out or str(Path(tmp) / "site")
        cmd = [sys.executable, "-m", "mkdocs", "serve" if args.serve else "build",
               "-f", str(Path(tmp) / "mkdocs.yml")]
        if not args.serve:
            cmd += ["--strict", "-d", out]
        code = subprocess.call(cmd, env=_env())
        if code == 0 and not args.serve:
            pages = sum(1 for _ in Path(out).rglob("*.html"))
            print(f"docs: {pages} pages built without warnings in {out}")
        return code


if __name__ == "__main__":
    sys.exit(main())
