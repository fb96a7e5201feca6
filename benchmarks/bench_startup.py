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
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = (f"# Start-up of a cached olearn\n\n_Produced "
            f"{datetime.date.today().isoformat()} by `python benchmarks/bench_startup.py"
            f"{' --before ' + str(args.before) if args.before else ''}` in "
            f"{time.time() - t0:.0f} s; load average {load}._\n\n"
            f"Median of {args.reps} fresh processes per command, the trees taking turns, "
            "after one untimed run of each (numba cache filled).  CPU: user + system "
            "seconds of the child; olearn modules: how many the command imports.\n\n" + table(results, trees, args.reps) + "\n")
    print(text)
    if args.out != "-":
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        notes = old[old.index("\n## Notes"):] if "\n## Notes" in old else ""
        out.write_text(text + notes)          # the hand-written notes are kept


if __name__ == "__main__":
    main()
