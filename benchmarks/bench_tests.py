"""The test tiers' time with an empty kernel cache (issue 40 item 6): the README's test
command (the default tier) and the full contract tier, each in a fresh interpreter with
``NUMBA_CACHE_DIR`` pointing at a new, empty folder.

    python benchmarks/bench_tests.py                  # the default tier, a row printed
    python benchmarks/bench_tests.py --tier full      # the full tier
    python benchmarks/bench_tests.py --tier default --warm   # the default tier, cache kept
        from a first untimed run (what a second run of the README's command costs)

Printed: one row of benchmarks/tests.md's table (tier, tests collected, wall, CPU, load
average before and after, date, commit, command).  CPU is user + system seconds of
pytest and every process it waited for (the CLI's and the server's subprocesses).  The
machine is shared: on a loaded machine the wall time is longer than an idle one's, and
the CPU time is the better measure of the suite's own work (a serial run's idle wall time
is about its CPU time, plus its waits).  Extra arguments after ``--`` go to pytest.
"""
import argparse
import datetime
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the commands, as the README and .ci/run write them
TIERS = {"default": ["-m", "pytest", "-q"], "full": ["-m", "pytest", "-q", "-m", "full"]}


def _load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _commit():
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                         capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+" if dirty else "")


def _collected(args, env):
    """How many tests the tier selects (pytest --collect-only)."""
    out = subprocess.run([sys.executable, *args, "--collect-only"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    m = re.search(r"(\d+)(?:/\d+)? tests? collected", out.stdout)
    return int(m.group(1)) if m else None


def run(tier, extra=(), warm=False, log=None):
    args = [*TIERS[tier], *extra]
    with tempfile.TemporaryDirectory(prefix="olearn-bench-tests-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        n = _collected(args, env)
        if warm:
            subprocess.run([sys.executable, *args], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        before = _load()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if log:
        Path(log).write_text(proc.stdout + proc.stderr)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    tail = (proc.stdout.strip().splitlines() or [""])[-1]
    command = "python " + " ".join(args)
    return {"tier": tier + (" (warm cache)" if warm else ""), "collected": n,
            "wall": wall, "cpu": cpu, "load": f"{before} / {_load()}",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "commit": _commit(), "command": f"`{command}`", "rc": proc.returncode,
            "summary": tail}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tier", choices=sorted(TIERS), default="default")
    ap.add_argument("--warm", action="store_true",
                    help="time a second run, after one that fills the cache")
    ap.add_argument("--log", help="write pytest's output to this file")
    ap.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    a = ap.parse_args(argv)
    r = run(a.tier, a.pytest_args, a.warm, a.log)
    print("| tier | tests | wall | CPU (user + sys) | load average before / after | "
          "date (UTC) | commit | command |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {r['tier']} | {r['collected']} | {r['wall'] / 60:.1f} min | "
          f"{r['cpu'] / 60:.1f} min | {r['load']} | {r['date']} | {r['commit']} | "
          f"{r['command']} |")
    print(f"pytest exit {r['rc']}: {r['summary']}")
    return 0 if r["rc"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
