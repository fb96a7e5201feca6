"""Issue 34 item 2, the VW-text path: ``olearn train FILE.vw`` before and after the
one-scan VW parser, beside the LIBSVM path and Vowpal Wabbit, whole commands, same run.

The files are ``benchmarks/shell_vs_vw.py``'s (a9a repeated in order to about 1,000,000
and 5,000,000 rows, as LIBSVM and as VW text ``label | index:value ...``, in a scratch
folder, never committed); its ``files`` and ``run`` are used here.  Commands (hinge loss):

* ``olearn train FILE.vw --algo pa1 -b 18`` with the olearn of ``--before`` (a git
  revision, extracted with ``git archive`` into a temporary folder and put first on
  ``PYTHONPATH``) and with this checkout's;
* ``olearn train FILE.svm --algo pa1`` with this checkout's (the LIBSVM path, for
  reference);
* ``vw -d FILE.vw -b 18 --binary --loss_function hinge`` (``python -m vowpalwabbit``,
  see ``shell_vs_vw.py``), when ``--vw-python`` has the wheel.

Each command runs ``--reps`` times, the commands taking turns, after one untimed run of
each (kernels compiled and cached, files in the page cache).  Reported: median wall and
child CPU seconds, and the cost of one more million rows, ``(t(5M) - t(1M)) / 4`` in
millions of rows, which leaves out the fixed start-up (Python, imports, kernels loaded
from the cache, the model written).

    OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/bench_vwparse.py \\
        --before e9bf383 [--reps 3] [--vw-python /work/benchvenv/bin/python]

Writes ``benchmarks/vwparse.md``.
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from shell_vs_vw import files, run  # noqa: E402


def extract(rev, folder):
    """The ``olearn`` package of git revision ``rev`` under ``folder``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "olearn"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)


def with_path(path, cmd):
    env = "PYTHONPATH=" + os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])
    return ["env", env, *map(str, cmd)]


def commands(svm, vw, before, vw_python, model):
    olearn = [sys.executable, "-m", "olearn", "train"]
    vw_args = [vw, "--algo", "pa1", "-b", "18", "--model", model, "--quiet"]
    cmds = [("before: olearn train .vw", with_path(before, olearn + vw_args)),
            ("after: olearn train .vw", with_path(ROOT, olearn + vw_args)),
            ("after: olearn train .svm (LIBSVM)",
             with_path(ROOT, olearn + [svm, "--algo", "pa1", "--model", model, "--quiet"]))]
    if vw_python:
        cmds.append(("vw -d .vw -b 18 --binary --loss_function hinge",
                     [vw_python, "-m", "vowpalwabbit", "-d", vw, "-b", "18", "--binary",
                      "--loss_function", "hinge", "-f", model + ".vw", "--quiet"]))
    return cmds


def measure(sizes, reps, before, vw_python, scratch):
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m.olm")
        os.chdir(tmp)  # (``python -m`` puts the working folder first on the path)
        for rows in sizes:
            svm, vw, n = files(scratch, rows)
            cmds = commands(svm, vw, before, vw_python, model)
            for _, cmd in cmds:       # untimed: kernels compiled, files in the page cache
                run(cmd)
            stats = {label: [] for label, _ in cmds}
            for _ in range(reps):
                for label, cmd in cmds:
                    stats[label].append(run(cmd)[:2])
            for label, _ in cmds:
                results[n, label] = (statistics.median(w for w, _ in stats[label]),
                                     statistics.median(c for _, c in stats[label]))
                print(n, label, results[n, label], flush=True)
    return results


def table(results):
    sizes = sorted({n for n, _ in results})
    labels = list(dict.fromkeys(label for _, label in results))
    head = "| command | " + " | ".join(f"{n:,} rows: wall s / CPU s" for n in sizes)
    lines = [head + " | per 1M more rows: wall s / CPU s |",
             "|---|" + "---:|" * (len(sizes) + 1)]
    for label in labels:
        cells = [f"{results[n, label][0]:.2f} / {results[n, label][1]:.2f}" for n in sizes]
        lo, hi = sizes[0], sizes[-1]
        scale = (hi - lo) / 1e6
        per = [(results[hi, label][k] - results[lo, label][k]) / scale for k in (0, 1)]
        lines.append(f"| `{label}` | " + " | ".join(cells) +
                     f" | {per[0]:.3f} / {per[1]:.3f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="git revision to compare against")
    ap.add_argument("--vw-python", default="/work/benchvenv/bin/python",
                    help="a Python with the vowpalwabbit wheel ('' to leave vw out)")
    ap.add_argument("--sizes", default="1000000,5000000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scratch", default="/tmp/olearn-shell-vs-vw")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "vwparse.md"))
    args = ap.parse_args(argv)
    scratch = Path(args.scratch).resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    vw_python = args.vw_python if args.vw_python and os.path.exists(args.vw_python) else ""
    sizes = [int(s) for s in args.sizes.split(",")]
    t0 = time.time()
    with tempfile.TemporaryDirectory() as before:
        extract(args.before, before)
        results = measure(sizes, args.reps, before, vw_python, scratch)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = (f"# The VW-text path of `olearn train`: before and after\n\n_Produced "
            f"{datetime.date.today().isoformat()} by `python benchmarks/bench_vwparse.py "
            f"--before {args.before} --sizes {args.sizes} --reps {args.reps}` in "
            f"{time.time() - t0:.0f} s; load average at the end {load} (2 shared cores: "
            "compare rows of the same run)._\n\n"
            f"Median of {args.reps} fresh processes per command, the commands taking turns, "
            "after one untimed run of each; `before` is olearn at the revision above, "
            "`after` this checkout.  See the script's docstring.\n\n" + table(results) + "\n")
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
