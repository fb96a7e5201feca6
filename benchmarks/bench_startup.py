"""Start-up of a cached olearn (issue 34 item 1): how long a fresh process takes to make a
learner, and to train one on a9a from the command line, here against an earlier tree.

Each command runs in a fresh interpreter, ``N`` times (default 5), the trees taking
turns (before, after, before, ...) so that both see the same load; one untimed run of
each first fills the numba cache.  Reported: the median wall seconds and the median CPU
seconds of the child (user + system), after / before, and how many olearn modules the
command imports (one more run, under ``python -X importtime``).

    python benchmarks/bench_startup.py --before /tmp/olearn-at-f8c2d96 --out benchmarks/startup.md
    python benchmarks/bench_startup.py --out -         # this tree only, printed

The results file's "## Notes" section (hand-written) is kept.  ``--before`` is a
checkout of an earlier commit (``git archive COMMIT | tar -x -C DIR``);
each tree is imported through ``PYTHONPATH``.  Data: ``$OLEARN_DATA_MIRROR`` or
``../shared/data`` (a9a/a9a).
"""
import argparse
import datetime
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _data():
    base = os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data"
    return Path(base) / "a9a" / "a9a"


def _commands(model):
    a9a = str(_data())
    heart = str(_data().parent.parent / "heart_scale" / "heart_scale")
    return [
        ("`python -c \"import numpy, scipy.sparse, numba\"` (baseline)",
         ["-c", "import numpy, scipy.sparse, numba"]),
        ("`python -c \"import olearn; olearn.make('pa1')\"`",
         ["-c", "import olearn; olearn.make('pa1')"]),
        (f"`olearn train a9a --algo pa1 --model {Path(model).name}`",
         ["-m", "olearn", "train", a9a, "--algo", "pa1", "--model", model]),
        (f"`olearn train heart_scale --algo pa1 --model {Path(model).name}` (issue 28's "
         "0.6 s target)",
         ["-m", "olearn", "train", heart, "--algo", "pa1", "--model", model]),
    ]


def _run(tree, args):
    """(wall s, child CPU s) of one fresh interpreter running ``args`` on ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], env=env, cwd=str(tree),
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed on {tree}:\n{proc.stderr}")
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def _modules(tree, args):
    """How many olearn modules the command imports (``python -X importtime``)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], env=env,
                          cwd=str(tree), capture_output=True, text=True)
    return sum(1 for line in proc.stderr.splitlines()
               if line.rsplit("|", 1)[-1].strip().startswith("olearn."))


#: run in a fresh interpreter on each tree: the steps of a cached ``olearn train a9a
#: --algo pa1 --model M`` one by one, as that tree's command line takes them (its own
#: ``open_data``, its collector settings), with the CPU seconds of each on stdout
BREAKDOWN = r"""
import contextlib, json, sys, time
steps, last = {}, [0.0]
def mark(name):
    now = time.process_time(); steps[name] = now - last[0]; last[0] = now
mark("interpreter start (to the first line)")
paused = contextlib.nullcontext()
try:
    from olearn.cli._startup import collector_paused; paused = collector_paused(True)
except ImportError:
    pass
with paused:
    import numpy, scipy.sparse, numba; mark("import numpy, scipy.sparse, numba")
    from olearn.cli import build_parser
    try:
        from olearn.cli._input import open_data
    except ImportError:     # (olearn before round 6)
        from olearn.cli._common import open_data
    args = build_parser().parse_args(["train", sys.argv[1], "--algo", "pa1",
                                      "--model", sys.argv[2]])
    import olearn; model = olearn.make("pa1"); mark("make('pa1'): olearn's modules")
    reader = open_data(args); mark("open the reader (prescan, or the search for index 0)")
    chunks = iter(reader); X, y = next(chunks)
    mark("first chunk (numba's first dispatch of a cached kernel)")
    rest = list(chunks); mark("parse the other chunks")
    model.partial_fit(X, y, classes=numpy.array([-1.0, 1.0]))
    mark("first partial_fit (the learner's kernel)")
    for X, y in rest:
        if X.shape[1] > model.n_features_in_:
            model.widen(X.shape[1])
        model.partial_fit(X, y)
    mark("learn the other chunks")
    model.save(sys.argv[2]); mark("save")
print(json.dumps(steps))
"""


def breakdown(trees, reps, model):
    """``{step: {tree label: median CPU s}}``; the last step, "exit", is the child's
    whole CPU time (rusage) less the steps measured inside it."""
    import json
    out = {}
    for tree in trees.values():
        _run(tree, ["-c", BREAKDOWN, str(_data()), model])       # caches
    for _ in range(reps):
        for t, tree in trees.items():
            env = dict(os.environ, PYTHONPATH=str(tree))
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc = subprocess.run([sys.executable, "-c", BREAKDOWN, str(_data()), model],
                                  env=env, cwd=str(tree), capture_output=True, text=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                raise SystemExit(f"breakdown failed on {tree}:\n{proc.stderr}")
            steps = json.loads(proc.stdout.strip().splitlines()[-1])
            whole = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
            steps["interpreter exit (the rest of the child's CPU)"] = whole - sum(
                steps.values())
            steps["whole"] = whole
            for step, seconds in steps.items():
                out.setdefault(step, {}).setdefault(t, []).append(seconds)
    return {step: {t: statistics.median(v) for t, v in by.items()} for step, by in out.items()}


def breakdown_table(steps, trees):
    names = list(trees)
    head = "| step (CPU s) | " + " | ".join(names)
    if len(names) == 2:
        head += " | after - before"
    lines = [head + " |", "|" + "---|" * head.count("|")]
    for step, by in steps.items():
        cells = [f"{by[n]:.3f}" for n in names]
        if len(names) == 2:
            cells.append(f"{by[names[1]] - by[names[0]]:+.3f}")
        label = f"**{step}**" if step == "whole" else step
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def measure(trees, reps):
    """``{label: {tree label: (median wall, median CPU, olearn modules imported)}}``."""
    with tempfile.TemporaryDirectory() as tmp:
        commands = _commands(os.path.join(tmp, "m.olm"))
        for _, args in commands:                       # fill the numba caches
            for tree in trees.values():
                _run(tree, args)
        out = {}
        for label, args in commands:
            times = {t: [] for t in trees}
            for _ in range(reps):
                for t, tree in trees.items():
                    times[t].append(_run(tree, args))
            out[label] = {t: (statistics.median(w for w, _ in v),
                              statistics.median(c for _, c in v),
                              _modules(trees[t], args)) for t, v in times.items()}
    return out


def table(results, trees, reps):
    names = list(trees)
    head = "| command | " + " | ".join(f"{n}: wall s | {n}: CPU s | {n}: olearn modules"
                                        for n in names)
    if len(names) == 2:
        head += " | wall after / before | CPU after / before"
    lines = [head + " |", "|" + "---|" * (head.count("|"))]
    for label, by_tree in results.items():
        cells = [f"{by_tree[n][0]:.3f} | {by_tree[n][1]:.3f} | {by_tree[n][2]}" for n in names]
        if len(names) == 2:
            (wb, cb, _), (wa, ca, _) = by_tree[names[0]], by_tree[names[1]]
            cells.append(f"{wa / wb:.2f} | {ca / cb:.2f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="a checkout of an earlier commit to compare with")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "startup.md"),
                    help="the results file ('-': print only)")
    args = ap.parse_args(argv)
    trees = {"before": Path(args.before).resolve()} if args.before else {}
    trees["after" if args.before else "this tree"] = ROOT
    t0 = time.time()
    results = measure(trees, args.reps)
    with tempfile.TemporaryDirectory() as tmp:
        steps = breakdown(trees, args.reps, os.path.join(tmp, "m.olm"))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = (f"# Start-up of a cached olearn\n\n_Produced "
            f"{datetime.date.today().isoformat()} by `python benchmarks/bench_startup.py"
            f"{' --before ' + str(args.before) if args.before else ''}` in "
            f"{time.time() - t0:.0f} s; load average {load}._\n\n"
            f"Median of {args.reps} fresh processes per command, the trees taking turns, "
            "after one untimed run of each (numba cache filled).  CPU: user + system "
            "seconds of the child; olearn modules: how many the command imports.\n\n" + table(results, trees, args.reps) + "\n"
            "\n## Where the CPU time of a cached `olearn train a9a --algo pa1 --model M` goes\n\n"
            "Each tree's steps of that command taken one by one in a fresh interpreter (its "
            "own `open_data`, its own collector settings: `BREAKDOWN` in the script), median "
            f"CPU seconds of {args.reps} runs, same run as the table above.\n\n"
            + breakdown_table(steps, trees) + "\n")
    print(text)
    if args.out != "-":
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        notes = old[old.index("\n## Notes"):] if "\n## Notes" in old else ""
        out.write_text(text + notes)          # the hand-written notes are kept


if __name__ == "__main__":
    main()
