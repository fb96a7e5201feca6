"""The run-time cost of taking dense batches through the CSR kernels in chunks of rows
(``olearn._rows.run_chunks``) against the dense layout they had: ``partial_fit`` of a
fresh model on a dense float64 array, rows per second, best of ``--reps`` in a process
and of ``--rounds`` fresh processes, the checkouts alternating (a shared machine's load
then falls on both alike).

    python benchmarks/dense_layout.py --checkouts OLD,NEW
    python benchmarks/dense_layout.py --checkouts OLD,NEW --algos pa1 --shapes 200000x50

Each checkout is a folder holding an ``olearn`` package (``git worktree add`` or
``git archive | tar -x`` of a commit); the children run in it.  Prints a markdown table;
benchmarks/compile.md keeps the figures measured with it.
"""
import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
import numpy as np
import olearn
name, n, d, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
X = rng.standard_normal((n, d))
y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(np.int64)
olearn.make(name).partial_fit(X[:50], y[:50], classes=[0, 1])   # (compiled or loaded)
best = float("inf")
for _ in range(reps):
    m = olearn.make(name)
    m.partial_fit(X[:1], y[:1], classes=[0, 1])
    t = time.perf_counter()
    m.partial_fit(X, y)
    best = min(best, time.perf_counter() - t)
print(json.dumps({"seconds": best, "updates": int(m.n_updates_)}))
"""


def _child(checkout, name, n, d, reps):
    env = dict(os.environ, PYTHONPATH=checkout)
    done = subprocess.run([sys.executable, "-c", CHILD, name, str(n), str(d), str(reps)],
                          env=env, cwd=checkout, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{checkout} {name}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkouts", required=True, help="OLD,NEW: two package folders")
    ap.add_argument("--algos", default="pa1,arow,ogd")
    ap.add_argument("--shapes", default="200000x50,200000x500")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    old, new = args.checkouts.split(",")
    loads = []
    rows = ["| learner | rows x columns | before: M rows/s | after: M rows/s | after / before |",
            "|---|---|---:|---:|---:|"]
    for shape in args.shapes.split(","):
        n, d = (int(v) for v in shape.split("x"))
        for name in args.algos.split(","):
            best = {old: float("inf"), new: float("inf")}
            updates = {}
            for _ in range(args.rounds):
                for checkout in (old, new):
                    loads.append(os.getloadavg()[0])
                    out = _child(checkout, name, n, d, args.reps)
                    best[checkout] = min(best[checkout], out["seconds"])
                    updates.setdefault(checkout, out["updates"])
            if updates[old] != updates[new]:
                raise SystemExit(f"{name} {shape}: {updates[old]} updates before, "
                                 f"{updates[new]} after: not the same pass")
            rate = {k: n / v / 1e6 for k, v in best.items()}
            rows.append(f"| {name} | {n:,} x {d} | {rate[old]:.2f} | {rate[new]:.2f} "
                        f"| {rate[new] / rate[old]:.3f} |")
            print(rows[-1], file=sys.stderr, flush=True)
    print(f"\n{os.cpu_count()} CPUs, load average {min(loads):.1f}-{max(loads):.1f} "
          f"({time.strftime('%Y-%m-%d %H:%M')})\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
