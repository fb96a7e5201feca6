"""Averaged PA-I across source trees: one pass over the seeded sparse stream.

The issue-28 target "averaged PA-I no slower than before Core 3.0": this script times
``PAClassifier(C=1, average=True)`` (``partial_fit`` and ``predict_learn``, one call over
all rows, a fresh model each run, best of ``--repeats`` CPU seconds) in one child
process per source tree, the trees alternating ``--rounds`` times (so that the load of
a shared machine falls on each alike), and checks that every tree learns the same
weights.  Usage (repository root)::

    git archive f8c2d96 olearn | tar -x -C /tmp/pre3     # the tree before Core 3.0
    python benchmarks/averaged.py /tmp/pre3 /path/to/main .

Each tree's kernels compile (or load from its own cache folder) before the timing.
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time, hashlib
import numpy as np
from olearn.datasets import make_sparse_stream
from olearn.linear import PAClassifier
X, y = make_sparse_stream(n_samples=ROWS, n_features=2**18, nnz=40, flip=0.05,
                          random_state=0)
PAClassifier(C=1.0, average=True).partial_fit(X[:10], y[:10])        # compile or load
PAClassifier(C=1.0, average=True).predict_learn(X[:10], y[:10])
out = {}
for how in ("partial_fit", "predict_learn"):
    best = None
    for _ in range(REPEATS):
        m = PAClassifier(C=1.0, average=True)
        t0 = time.process_time()
        getattr(m, how)(X, y)
        t = time.process_time() - t0
        best = t if best is None else min(best, t)
    out[how] = best
out["coef"] = hashlib.sha256(np.ascontiguousarray(m.coef_).tobytes()).hexdigest()[:16]
print(json.dumps(out))
"""


def run(tree, rows, repeats):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    code = CHILD.replace("ROWS", str(rows)).replace("REPEATS", str(repeats))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd="/", timeout=1800)
    if res.returncode:
        sys.exit(f"{tree}: {res.stderr.strip()[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", help="folders holding an olearn package")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    best = {t: {} for t in args.trees}
    coefs = {}
    for r in range(args.rounds):
        for t in args.trees:
            got = run(t, args.rows, args.repeats)
            coefs[t] = got.pop("coef")
            for how, sec in got.items():
                best[t][how] = min(best[t].get(how, sec), sec)
            print(f"round {r + 1}: {t}: " + ", ".join(f"{k} {v:.4f} s" for k, v in got.items()),
                  flush=True)
    print(f"\nbest CPU s over {args.rounds} rounds x {args.repeats} runs, "
          f"{args.rows:,} rows; load average {os.getloadavg()[0]:.2f}")
    print("| tree | partial_fit | predict_learn | weights (sha256) |")
    print("|---|---|---|---|")
    for t in args.trees:
        print(f"| {t} | {best[t]['partial_fit']:.4f} | {best[t]['predict_learn']:.4f} | "
              f"{coefs[t]} |")
    if len(set(coefs.values())) > 1:
        print("WEIGHTS DIFFER between trees")


if __name__ == "__main__":
    main()
