"""Issue 34 item 2, LIBSVM side: ``olearn train FILE.svm --algo pa1`` before and after
the one-pass parse (``olearn.io._fastparse.parse_csr``, the mapped file, the compiled
index-0 and newline scans), beside Vowpal Wabbit on the same rows, whole commands.

The same files as ``shell_vs_vw.py`` (a9a repeated in order to about 1M and 5M rows,
generated into its scratch folder).  "before" is a checkout of olearn from before the
change, run with ``PYTHONPATH`` pointing at it; "after" this checkout.  The three
commands take turns ``--reps`` times after one untimed run of each (kernels cached,
the files in the page cache); reported: median wall and median CPU (user + system) of
the child, and vw's wall over each olearn's.

    mkdir /tmp/before && git archive e9bf383 olearn | tar -x -C /tmp/before
    python benchmarks/bench_parse.py --before /tmp/before \\
        --vw-python /work/benchvenv/bin/python [--sizes 1000000,5000000] [--reps 5]

Writes ``benchmarks/parse.md``.
"""
import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shell_vs_vw import files, run  # noqa: E402 (the same files and timing)

ROOT = Path(__file__).resolve().parent.parent


def measure(sizes, reps, before, vw_python, scratch):
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m")
        for rows in sizes:
            svm, vw, n = files(scratch, rows)
            train = [sys.executable, "-m", "olearn", "train", svm, "--algo", "pa1",
                     "--model", model + ".olm", "--quiet"]
            cmds = [("before", ["env", f"PYTHONPATH={before}", *train]),
                    ("after", ["env", f"PYTHONPATH={ROOT}", *train]),
                    ("vw", [vw_python, "-m", "vowpalwabbit", "-d", vw, "-b", "18",
                            "--binary", "--loss_function", "hinge", "-f", model + ".vw",
                            "--quiet"])]
            # run from the scratch folder: from a checkout, python -m would import the
            # olearn beside it whatever PYTHONPATH says
            for _, cmd in cmds:            # untimed: kernels compiled, page cache
                run(cmd, cwd=tmp)
            stats = {label: [] for label, _ in cmds}
            for _ in range(reps):
                for label, cmd in cmds:
                    stats[label].append(run(cmd, cwd=tmp)[:2])
            med = {label: (statistics.median(w for w, _ in s),
                           statistics.median(c for _, c in s)) for label, s in stats.items()}
            for label, _ in cmds:
                out.append((n, label, *med[label], med["vw"][0] / med[label][0]))
                print(out[-1], flush=True)
    return out


def table(results):
    lines = ["| rows | command | wall s | CPU s | vw wall / this |",
             "|---:|---|---:|---:|---:|"]
    names = {"before": "`olearn train` before (e9bf383)", "after": "`olearn train` after",
             "vw": "`vw --loss_function hinge -b 18`"}
    for n, label, wall, cpu, ratio in results:
        lines.append(f"| {n:,} | {names[label]} | {wall:.2f} | {cpu:.2f} | {ratio:.2f}x |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a checkout of olearn before the change")
    ap.add_argument("--vw-python", default="/work/benchvenv/bin/python")
    ap.add_argument("--sizes", default="1000000,5000000")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scratch", default="/tmp/olearn-shell-vs-vw")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "parse.md"))
    args = ap.parse_args(argv)
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    results = measure([int(s) for s in args.sizes.split(",")], args.reps, args.before,
                      args.vw_python, scratch)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = (f"# `olearn train FILE.svm`: the one-pass LIBSVM parse, before and after\n\n"
            f"_Produced {datetime.date.today().isoformat()} by `python benchmarks/"
            f"bench_parse.py --sizes {args.sizes} --reps {args.reps}` in "
            f"{time.time() - t0:.0f} s; load average at the end {load} (2 cores shared "
            f"with other work: compare within a row group, same run)._\n\n"
            f"a9a repeated to the row count, `--algo pa1` (hinge loss) against `vw -d FILE.vw "
            f"-b 18 --binary --loss_function hinge`; median of {args.reps} fresh processes "
            f"per command, the three taking turns.  See the script's docstring.\n\n"
            + table(results) + "\n")
    print(text)
    if args.out != "-":
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
