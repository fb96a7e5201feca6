"""The issue-47 first-run targets, as a new user meets them: a fresh clone of this
checkout's committed branch, a fresh virtual environment, an empty kernel cache.

* ``pip install .`` (wall and CPU, and the longest silence between two lines of its
  output: pip shows a build's output only with ``-v``, so both are timed);
* ``olearn compare`` in an empty folder with an empty cache (wall, CPU, longest silence);
* the first ``learn_one`` of a dict in a fresh process, installed kernels, empty user
  cache: the learners of the target (pa1, arow, ftrl, ogd) and some outside the
  shipped set (``--outside``): the call's seconds and the process's wall.

    python benchmarks/compile_install.py                      # the default install
    python benchmarks/compile_install.py --kernels 1          # kernels shipped: the runtime
                                          # dependencies first, then --no-build-isolation

Needs a package index that pip can reach (wheels of numba, numpy, ...).  Prints a
markdown table; benchmarks/compile.md keeps the figures measured with it.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ONE = r"""
import sys, time
t0 = time.perf_counter()
import olearn
from olearn import _compile_notice
m = olearn.make(sys.argv[1])
t1 = time.perf_counter()
m.learn_one({"free": 1.0, "money": 2.0}, "spam")
t2 = time.perf_counter()
print(f"{t2 - t1:.3f} {_compile_notice.seconds():.2f}")
"""


def _run(cmd, cwd, env):
    """(wall, CPU of the children, longest gap between output lines, last line)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = last = time.perf_counter()
    gap, tail = 0.0, ""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        now = time.perf_counter()
        gap, last, tail = max(gap, now - last), now, line.strip() or tail
    proc.wait()
    wall = time.perf_counter() - t0
    gap = max(gap, time.perf_counter() - last)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed: {tail}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, gap, tail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default="0", help="OLEARN_BUILD_KERNELS for the install")
    ap.add_argument("--outside", default="romma,nherd,pa2")
    ap.add_argument("--verbose-pip", action="store_true", help="pip install -v")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="olearn-install-"))
    rows = ["| step | wall s | CPU s | longest silence s | load |", "|---|---:|---:|---:|---:|"]
    try:
        subprocess.run(["git", "clone", "-q", str(REPO), str(work / "clone")], check=True)
        subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
        py = str(work / "venv" / "bin" / "python")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("NUMBA_", "OLEARN_", "PYTHON"))}
        env.update(OLEARN_BUILD_KERNELS=args.kernels, MPLBACKEND="Agg",
                   NUMBA_CACHE_DIR=str(work / "cache"))
        pip = [py, "-m", "pip", "install"] + (["-v"] if args.verbose_pip else []) + ["."]
        if args.kernels not in ("0", ""):   # (the build runs olearn: its dependencies first)
            subprocess.run([py, "-m", "pip", "install", "-q", "setuptools", "numpy", "scipy",
                            "numba", "scikit-learn", "matplotlib"], check=True)
            pip.insert(-1, "--no-build-isolation")
        load = os.getloadavg()[0]
        wall, cpu, gap, _ = _run(pip, work / "clone", env)
        rows.append(f"| pip install . (kernels: {args.kernels}) | {wall:.1f} | {cpu:.1f} "
                    f"| {gap:.1f} | {load:.1f} |")
        print(rows[-1], file=sys.stderr, flush=True)
        (work / "empty").mkdir()
        load = os.getloadavg()[0]
        wall, cpu, gap, _ = _run([str(work / "venv" / "bin" / "olearn"), "compare"],
                                 work / "empty", env)
        rows.append(f"| olearn compare, empty cache | {wall:.1f} | {cpu:.1f} | {gap:.1f} "
                    f"| {load:.1f} |")
        print(rows[-1], file=sys.stderr, flush=True)
        rows += ["", "| first learn_one, fresh process, empty user cache | call s "
                 "| compiled s | process wall s | load |", "|---|---:|---:|---:|---:|"]
        for name in ["pa1", "arow", "ftrl", "ogd"] + args.outside.split(","):
            shutil.rmtree(work / "cache", ignore_errors=True)
            load = os.getloadavg()[0]
            wall, _, _, tail = _run([py, "-c", ONE, name], work / "empty", env)
            call, compiled = tail.split()
            rows.append(f"| {name} | {call} | {compiled} | {wall:.2f} | {load:.1f} |")
            print(rows[-1], file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{os.cpu_count()} CPUs\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
