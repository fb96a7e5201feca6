"""Issue 34 item 2: ``olearn train FILE`` against Vowpal Wabbit, whole commands, same run.

a9a (32,561 rows, 14 non-zeros a row) and a9a written again and again in order to about
1,000,000 and 5,000,000 rows, each as LIBSVM and as VW text (``label | index:value ...``:
VW's columns are the indices), generated into a scratch folder (default
``/tmp/olearn-shell-vs-vw``; never committed).  Both sides read the file, learn one pass
with progressive validation and save the model:

* hinge loss: ``olearn train FILE --algo pa1 --model M`` (LIBSVM, and the VW file with
  ``-b 18``) against ``vw -d FILE.vw -b 18 --binary --loss_function hinge -f M``;
* logistic loss: ``olearn train FILE --algo adagrad --param loss=logistic`` (AdaGrad
  steps, VW's default adaptive update) against ``vw ... --loss_function logistic``.

There is no ``vw`` executable here: the ``vowpalwabbit`` wheel ships none, so VW runs as
``python -m vowpalwabbit ARGS`` in a fresh process (the wheel's own command line: the
C++ library, its parser thread included, driven by ``Workspace(arg_list=ARGS)``); its
Python start-up (``import vowpalwabbit``, measured alone in the table) is part of its
wall time as olearn's is of olearn's.  Each command runs ``--reps`` times (default 3),
the commands taking turns so that all see the same load, after one untimed run of each
(olearn's kernels cached, the files in the page cache).  Reported: median wall seconds,
median CPU seconds of the child (user + system), and VW's median wall over olearn's.

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/shell_vs_vw.py \\
        --vw-python /work/benchvenv/bin/python [--sizes 32561,1000000,5000000] \\
        [--only svm|vw] [--out -]

Writes ``benchmarks/shell_vs_vw.md`` (its hand-written "## Notes" section is kept).
"""
import argparse
import datetime
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
LOSSES = {"hinge": (["--algo", "pa1"], "--loss_function hinge"),
          "logistic": (["--algo", "adagrad", "--param", "loss=logistic"],
                       "--loss_function logistic")}


def as_vw(libsvm_text):
    """LIBSVM lines as VW text, ``label | index:value ...``."""
    return b"".join(label + b" | " + rest for label, _, rest in
                    (line.partition(b" ") for line in libsvm_text.splitlines(keepends=True)))


def files(scratch, rows):
    """``(libsvm path, vw path, rows)`` of a9a repeated in order to about ``rows`` rows
    (written once, kept in ``scratch`` for later runs)."""
    text = (DATA / "a9a" / "a9a").read_bytes()
    base = text.count(b"\n")
    copies = max(1, round(rows / base))
    svm, vw = scratch / f"a9a_x{copies}.svm", scratch / f"a9a_x{copies}.vw"
    for path, body in ((svm, text), (vw, as_vw(text))):
        if not path.exists() or path.stat().st_size != copies * len(body):
            with open(path, "wb") as f:
                for _ in range(copies):
                    f.write(body)
    return svm, vw, copies * base


def run(cmd, cwd=None):
    """(wall s, child CPU s, stdout) of one fresh process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr[-2000:]}")
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, proc.stdout + proc.stderr


def commands(svm, vw, loss, vw_python, model, formats=("svm", "vw")):
    """The commands of one size and loss: olearn on each of ``formats``, then vw."""
    olearn_args, vw_loss = LOSSES[loss]
    olearn = [sys.executable, "-m", "olearn", "train"]
    ours = {"svm": (f"olearn train {svm.name} {' '.join(olearn_args)}",
                    olearn + [svm, *olearn_args, "--model", model, "--quiet"]),
            "vw": (f"olearn train {vw.name} {' '.join(olearn_args)} -b 18",
                   olearn + [vw, *olearn_args, "-b", "18", "--model", model, "--quiet"])}
    return [ours[f] for f in formats] + [
        (f"vw -d {vw.name} -b 18 --binary {vw_loss}",
         [vw_python, "-m", "vowpalwabbit", "-d", vw, "-b", "18", "--binary",
          *vw_loss.split(), "-f", model + ".vw"]),
    ]


def errors(label, out):
    """Progressive mistakes printed by the command (olearn's summary, vw's average loss
    with --binary: the error rate)."""
    if label.startswith("olearn"):
        return float(re.search(r"mistake rate = ([\d.]+)", out).group(1))
    return float(re.search(r"average loss = ([\d.]+)", out).group(1))


def measure(sizes, losses, reps, vw_python, scratch, formats=("svm", "vw")):
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m.olm")
        baseline = [vw_python, "-c", "import vowpalwabbit"]
        for rows in sizes:
            svm, vw, n = files(scratch, rows)
            for loss in losses:
                cmds = commands(svm, vw, loss, vw_python, model, formats)
                vw_label = cmds[len(formats)][0]
                if rows == sizes[0] and loss == losses[0]:
                    cmds.append(("`python -c \"import vowpalwabbit\"` (VW's start-up)",
                                 baseline))
                stats = {label: [] for label, _ in cmds}
                rate = {}
                for label, cmd in cmds:                 # untimed: caches, page cache
                    # (olearn's --quiet silences the summary the error rate is read from)
                    _, _, text = run([a for a in cmd if a != "--quiet"])
                    if "import" not in label:
                        rate[label] = errors(label, text)
                for _ in range(reps):
                    for label, cmd in cmds:
                        stats[label].append(run(cmd)[:2])
                vw_wall = statistics.median(w for w, _ in stats[vw_label])
                for label, _ in cmds:
                    wall = statistics.median(w for w, _ in stats[label])
                    cpu = statistics.median(c for _, c in stats[label])
                    out.append((n, loss, label, rate.get(label), wall, cpu, vw_wall / wall))
                    print(out[-1], flush=True)
    return out


def table(results):
    lines = ["| rows | loss | command | progressive error | wall s | CPU s | vw wall / this "
             "| target (>= 1; 1.5 from 1M rows) |", "|---:|---|---|---:|---:|---:|---:|---|"]
    for n, loss, label, rate, wall, cpu, ratio in results:
        if label.startswith("olearn"):
            need = 1.5 if n >= 1_000_000 else 1.0
            verdict = "hit" if ratio >= need else "missed"
        else:
            verdict = "-"
        label = label if label.startswith("`") else f"`{label}`"
        rate = "-" if rate is None else f"{rate:.4f}"
        lines.append(f"| {n:,} | {loss} | {label} | {rate} | {wall:.2f} | {cpu:.2f} | "
                     f"{ratio:.2f}x | {verdict} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vw-python", default="/work/benchvenv/bin/python",
                    help="a Python with the vowpalwabbit wheel")
    ap.add_argument("--sizes", default="32561,1000000,5000000")
    ap.add_argument("--losses", default="hinge,logistic")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", choices=["svm", "vw"],
                    help="olearn on the LIBSVM file only, or on the VW file only")
    ap.add_argument("--scratch", default="/tmp/olearn-shell-vs-vw")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "shell_vs_vw.md"))
    args = ap.parse_args(argv)
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    t0 = time.time()
    formats = (args.only,) if args.only else ("svm", "vw")
    results = measure(sizes, args.losses.split(","), args.reps, args.vw_python, scratch,
                      formats)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = (f"# `olearn train FILE` against Vowpal Wabbit\n\n_Produced "
            f"{datetime.date.today().isoformat()} by `python benchmarks/shell_vs_vw.py "
            f"--sizes {args.sizes} --reps {args.reps}"
            f"{' --only ' + args.only if args.only else ''}` in {time.time() - t0:.0f} s; load "
            f"average at the end {load} (2 shared cores: read the ratios)._\n\n"
            f"Median of {args.reps} fresh processes per command, the commands taking turns, "
            "after one untimed run of each.  See the script's docstring for the commands.\n\n"
            + table(results) + "\n")
    print(text)
    if args.out != "-":
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        notes = old[old.index("\n## Notes"):] if "\n## Notes" in old else ""
        out.write_text(text + notes)


if __name__ == "__main__":
    main()
