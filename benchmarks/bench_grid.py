"""Benchmark of grids fused into one pass (issue 34, build item 3): ``olearn.grid`` and
``ExpertAdvice`` over 20 PA-I settings (C = 1e-3 .. 10, log-spaced) against the 20
separate compiled passes.

* ``memory``: the seeded sparse stream (``make_sparse_stream(200,000 rows, 2^18
  features, 40 non-zeros a row, flip 0.05, seed 0)``) in memory, one progressive pass
  (``predict_learn``) each: 20 separate PA-I models; ``ExpertAdvice`` over them as in
  round 3 (each member its own pass: ``_fused_pass`` switched off); ``ExpertAdvice``
  with its members fused and the rows combined afterwards (round 4: ``_combiner``
  switched off); ``ExpertAdvice`` combining the rows inside the fused pass;
  ``olearn.grid("pa1", C=...)``.  Target: ExpertAdvice at most
  0.5x the 20 separate passes.
* ``file``: the same from LIBSVM files read in chunks (a9a, w8a): 20 separate passes
  each reading the file, against one fused grid reading it once.

CPU seconds (``time.process_time``), best of ``--repeats`` runs, the methods
interleaved in one process (the machine is shared: compare the ratios), kernels
compiled beforehand.

    python benchmarks/bench_grid.py                  # writes benchmarks/grid.md
    python benchmarks/bench_grid.py --rows 50000 --out -
"""
import argparse
import datetime
import gc
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _peers  # noqa: E402

import olearn  # noqa: E402
from olearn.datasets import make_sparse_stream  # noqa: E402
from olearn.ensemble import ExpertAdvice  # noqa: E402
from olearn.ensemble import expert_advice as ea  # noqa: E402
from olearn.io import read_libsvm  # noqa: E402

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
CS = [float(c) for c in np.geomspace(1e-3, 10.0, 20)]


def members():
    return [olearn.make("pa1", C=c) for c in CS]


def cpu(fn):
    gc.collect()
    gc.disable()
    try:
        t = time.process_time()
        fn()
        return time.process_time() - t
    finally:
        gc.enable()


def best_of(methods, repeats):
    """{name: best CPU seconds}, the methods run in turn, ``repeats`` rounds."""
    times = {name: [] for name in methods}
    for _ in range(repeats):
        for name, fn in methods.items():
            times[name].append(cpu(fn))
    return {name: min(t) for name, t in times.items()}


def unfused(fn):
    def run():
        saved = ea.ExpertAdvice._fused_pass
        ea.ExpertAdvice._fused_pass = lambda self, *args: {}
        try:
            fn()
        finally:
            ea.ExpertAdvice._fused_pass = saved
    return run


def combined_after(fn):
    def run():
        saved = ea.ExpertAdvice._combiner
        ea.ExpertAdvice._combiner = lambda self, *args: None
        try:
            fn()
        finally:
            ea.ExpertAdvice._combiner = saved
    return run


def memory_section(rows, repeats, lines):
    X, y = make_sparse_stream(n_samples=rows, n_features=2 ** 18, nnz=40, flip=0.05,
                              random_state=0)
    for m in members():                                     # compile / load first
        m.predict_learn(X[:50], y[:50])
    ExpertAdvice(members()).predict_learn(X[:50], y[:50])
    olearn.grid("pa1", C=CS).predict_learn(X[:50], y[:50])
    methods = {
        "separate": lambda: [m.predict_learn(X, y) for m in members()],
        "ensemble_before": unfused(lambda: ExpertAdvice(members()).predict_learn(X, y)),
        "ensemble_fused": combined_after(
            lambda: ExpertAdvice(members()).predict_learn(X, y)),
        "ensemble_combined": lambda: ExpertAdvice(members()).predict_learn(X, y),
        "grid": lambda: olearn.grid("pa1", C=CS).predict_learn(X, y),
    }
    t = best_of(methods, repeats)
    s = t["separate"]
    lines += [f"## In memory: the seeded sparse stream, {rows:,} rows, 20 PA-I settings", "",
              "| run | CPU s (best of %d) | / 20 separate passes | target |" % repeats,
              "|---|---|---|---|",
              f"| 20 separate compiled passes | {s:.2f} | 1.00x | |",
              f"| ExpertAdvice, each member its own pass (round 3) | "
              f"{t['ensemble_before']:.2f} | {t['ensemble_before'] / s:.2f}x | |",
              f"| ExpertAdvice, members fused, rows combined after (round 4) | "
              f"{t['ensemble_fused']:.2f} | {t['ensemble_fused'] / s:.2f}x | |",
              f"| ExpertAdvice, rows combined inside the fused pass | "
              f"{t['ensemble_combined']:.2f} | {t['ensemble_combined'] / s:.2f}x | <= 0.5x: "
              f"{'met' if t['ensemble_combined'] <= 0.5 * s else 'missed'} |",
              f"| `olearn.grid(\"pa1\", C=...)` | {t['grid']:.2f} | {t['grid'] / s:.2f}x | |",
              ""]
    print("\n".join(lines[-10:]), flush=True)


def file_section(repeats, lines):
    lines += ["## From a file (LIBSVM, read in chunks): 20 PA-I settings", "",
              "| file | rows | 20 separate passes, each reading the file | fused grid, "
              "one read | fused grid in memory | separate / fused (file) |",
              "|---|---|---|---|---|---|"]
    for label, path, nf in (("a9a", DATA / "a9a" / "a9a", 123),
                            ("w8a", DATA / "w8a" / "w8a", 300)):
        if not path.exists():
            continue
        chunks = list(read_libsvm(path, n_features=nf))
        rows = sum(len(c[1]) for c in chunks)
        olearn.grid("pa1", C=CS).predict_learn(*chunks[0])

        def separate():
            for m in members():
                for Xc, yc in read_libsvm(path, n_features=nf):
                    m.predict_learn(Xc, yc)

        def grid_file():
            g = olearn.grid("pa1", C=CS)
            for Xc, yc in read_libsvm(path, n_features=nf):
                g.predict_learn(Xc, yc)

        def grid_memory():
            g = olearn.grid("pa1", C=CS)
            for Xc, yc in chunks:
                g.predict_learn(Xc, yc)
        t = best_of({"separate": separate, "file": grid_file, "memory": grid_memory},
                    repeats)
        lines.append(f"| {label} | {rows:,} | {t['separate']:.2f} s | {t['file']:.2f} s | "
                     f"{t['memory']:.2f} s | {t['separate'] / t['file']:.1f}x |")
        print(lines[-1], flush=True)
    lines.append("")


TUNED = ["perceptron", "pa1", "pa2", "alma"]


def tuning_section(repeats, lines, tuned=TUNED):
    """compare()'s tuning phase on ijcnn1 (train + test) for four LIBOL learners: the
    seconds spent in the tuning passes, fused against a pass per grid point."""
    import importlib
    from olearn.datasets.registry import load
    cmp = importlib.import_module("olearn.evaluate.compare")
    try:
        X, y = load("ijcnn1", part="all", mirror=str(DATA))
    except Exception as exc:  # noqa: BLE001 (no data: no section)
        print(f"ijcnn1 not available: {exc}")
        return
    spent = {"t": 0.0}
    real_run, real_fused = cmp._task_run, cmp._fused_tuning

    def timed_run(tasks, *args, **kw):
        t = time.process_time()
        try:
            return real_run(tasks, *args, **kw)
        finally:
            if args[3] is None:          # checkpoints None: a tuning task
                spent["t"] += time.process_time() - t

    cmp._task_run = timed_run

    def run(fused):
        cmp._fused_tuning = real_fused if fused else (lambda *a: None)
        spent["t"] = 0.0
        res = cmp.compare(learners=tuned, X=X, y=y, permutations=1, random_state=0,
                          progress=False)
        return spent["t"], res.params
    try:
        run(True), run(False)                               # compile / load first
        fused = min(run(True)[0] for _ in range(repeats))
        plain = min(run(False)[0] for _ in range(repeats))
        same = run(True)[1] == run(False)[1]
    finally:
        cmp._task_run, cmp._fused_tuning = real_run, real_fused
    lines += [f"## compare()'s tuning on ijcnn1 ({len(y):,} rows): {', '.join(tuned)}", "",
              "| tuning passes | CPU s (best of %d) |" % repeats, "|---|---|",
              f"| a pass per grid point (before) | {plain:.2f} |",
              f"| fused (one pass per learner: its points share a first-order rule) | "
              f"{fused:.2f} |",
              f"| speed-up | {plain / fused:.2f}x (target 3x: "
              f"{'met' if plain >= 3 * fused else 'missed'}) |", "",
              f"The tuned parameters are the same either way: {same}.", ""]
    print("\n".join(lines[-10:]), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="memory,file,tuning")
    ap.add_argument("--out", default=str(HERE / "grid.md"))
    ap.add_argument("--tuned", default=",".join(TUNED),
                    help="the learners whose tuning is timed")
    args = ap.parse_args(argv)
    lines = ["# Grids fused into one pass (olearn.grid, ExpertAdvice)", "",
             f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
             f"`python benchmarks/bench_grid.py`; {_peers.machine()}; load average "
             f"{os.getloadavg()[0]:.1f} at the start (a shared machine: the methods run "
             "in turn in one process, compare the ratios).", ""]
    only = args.only.split(",")
    if "memory" in only:
        memory_section(args.rows, args.repeats, lines)
    if "file" in only:
        file_section(args.repeats, lines)
    if "tuning" in only:
        tuning_section(args.repeats, lines, args.tuned.split(","))
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
