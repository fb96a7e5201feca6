"""The first run of the README's main job, and the start-up of a cached command.

Measures, each in a fresh process started from an empty temporary folder:

* ``olearn compare`` (the main job, after ``pip install .``; the install is not timed)
  with an EMPTY kernel cache (``NUMBA_CACHE_DIR`` a new temporary folder): the
  first-run cost that issue 28 asks to bring under 30 s on a 2-core machine;
* ``olearn compare`` again, with the cache that run left (the cached cost);
* ``olearn train small.svm --algo pa1`` of a 200-row file with its kernels cached
  (the cost of a cached command: issue 28 asks at most 0.6 s), the median of 5.

For each: the wall seconds and the CPU seconds (user + system, of the process and its
children: the compile workers), which vary less with the machine's load than the wall
time.  The load average is printed with each figure: on a shared machine the wall
time grows with it, so compare checkouts in one call (``--other PATH`` measures another
checkout, for instance the code before a change, right after this one, back to back).

    python benchmarks/firstrun.py                        # this checkout
    python benchmarks/firstrun.py --other ../main        # and another, back to back
    python benchmarks/firstrun.py --all                  # also `olearn compare --all`

It prints a markdown table; benchmarks/firstrun.md keeps the figures measured with it.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _small_file(path, n=200, d=5, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for _ in range(n):
            x = rng.normal(size=d)
            y = 1 if x[0] + x[1] > 0 else -1
            f.write(f"{y} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)) + "\n")


def _timed(cmd, cwd, env):
    """(wall seconds, CPU seconds of the process and its children, stderr) of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def measure(checkout, every=False):
    """{label: (wall, cpu, load)} for one checkout (its olearn first on the path)."""
    checkout = Path(checkout).resolve()
    work = Path(tempfile.mkdtemp(prefix="olearn-firstrun-"))
    env = dict(os.environ, PYTHONPATH=str(checkout), NUMBA_CACHE_DIR=str(work / "cache"),
               MPLBACKEND="Agg")
    olearn = [sys.executable, "-m", "olearn"]
    out = {}
    try:
        jobs = [("compare, empty cache", olearn + ["compare"], 1),
                ("compare, cached", olearn + ["compare"], 1)]
        if every:
            jobs.append(("compare --all, empty cache", olearn + ["compare", "--all"], 1))
        for label, cmd, _ in jobs:
            if "empty cache" in label:
                shutil.rmtree(work / "cache", ignore_errors=True)
            load = os.getloadavg()[0]
            wall, cpu, err = _timed(cmd, work, env)
            out[label] = (wall, cpu, load)
            print(f"{checkout.name:>12}  {label:<28} {wall:7.1f} s wall {cpu:7.1f} s CPU "
                  f"(load {load:.1f})", flush=True)
        _small_file(work / "small.svm")
        train = olearn + ["train", "small.svm", "--algo", "pa1"]
        _timed(train, work, env)                             # compiles (or loads) pa1
        load = os.getloadavg()[0]
        runs = [_timed(train, work, env)[:2] for _ in range(5)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        out["train 200 rows, cached"] = (wall, cpu, load)
        print(f"{checkout.name:>12}  {'train 200 rows, cached':<28} {wall:7.2f} s wall "
              f"{cpu:7.2f} s CPU (load {load:.1f}; median of 5)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--other", default=None, metavar="PATH",
                    help="also measure this checkout, right after this one")
    ap.add_argument("--all", action="store_true", help="also time 'olearn compare --all'")
    args = ap.parse_args()
    results = {"this checkout": measure(REPO, args.all)}
    if args.other:
        results[f"{args.other}"] = measure(args.other, args.all)
    lines = ["| checkout | run | wall s | CPU s (user + sys) | load average |",
             "|---|---|---:|---:|---:|"]
    for who, rows in results.items():
        for label, (wall, cpu, load) in rows.items():
            lines.append(f"| {who} | {label} | {wall:.2f} | {cpu:.2f} | {load:.1f} |")
    print(f"\n{os.cpu_count()} CPUs\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
