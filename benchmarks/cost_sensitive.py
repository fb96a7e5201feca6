"""Cost-sensitive multiclass on letter: olearn's CostSensitivePA against the cost-blind
PA-I and Vowpal Wabbit's ``--csoaa`` with the same costs, written to
``benchmarks/cost_sensitive.md``.

The costs are ``|y - y'|`` with the letters as 0..25 (A..Z).  Protocol: progressive, the
file's order (``letter.scale``, 15,000 rows), one pass; the metric is the average cost of
the predictions made before each row is learned.  olearn: ``predict_learn``; Vowpal
Wabbit: ``predict`` then ``learn`` on each line ``1:c_1 ... 26:c_26 | 1:v ...``.

    python benchmarks/cost_sensitive.py [--out benchmarks/cost_sensitive.md]
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import olearn  # noqa: E402
from olearn.io import load_libsvm  # noqa: E402
from olearn.multiclass import CostSensitivePA  # noqa: E402

from _peers import load_avg, machine  # noqa: E402


def run(model, X, y):
    model.clone().predict_learn(X[:5], y[:5])  # (compiled before the clock)
    t = time.perf_counter()
    pred = np.asarray(model.predict_learn(X, y))
    return pred, time.perf_counter() - t


def run_vw(X, y, K):
    from vowpalwabbit import Workspace
    vw = Workspace(f"--csoaa {K} --quiet")
    X = X.tocsr()
    lines = []
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        costs = " ".join(f"{k + 1}:{abs(int(y[i]) - k)}" for k in range(K))
        feats = " ".join(f"{j}:{v:.6g}" for j, v in zip(X.indices[a:b], X.data[a:b]))
        lines.append(f"{costs} | {feats}")
    pred = np.zeros(len(lines), dtype=np.int64)
    t = time.perf_counter()
    for i, line in enumerate(lines):
        pred[i] = int(vw.predict(line)) - 1
        vw.learn(line)
    secs = time.perf_counter() - t
    vw.finish()
    return pred, secs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    root = Path(os.environ.get("OLEARN_DATA_MIRROR", ROOT.parent / "shared" / "data"))
    X, y = load_libsvm(root / "letter" / "letter.scale")
    y = (y - 1).astype(np.int64)           # letters 1..26 -> 0..25
    K = 26
    costs = [[abs(a - b) for b in range(K)] for a in range(K)]
    runs = {
        "olearn CostSensitivePA PA-I, max-loss": CostSensitivePA(costs),
        "olearn CostSensitivePA PA-I, prediction-based": CostSensitivePA(
            costs, update="prediction"),
        "olearn CostSensitivePA PA-II, max-loss": CostSensitivePA(costs, variant="PA-II"),
        "olearn pa1 (cost-blind multiclass PA-I)": olearn.make("pa1"),
    }
    rows = ["| model | average cost | error rate | seconds |", "|---|---|---|---|"]
    for name, model in runs.items():
        pred, secs = run(model, X, y)
        rows.append(f"| {name} | {np.abs(pred - y).mean():.4f} | {(pred != y).mean():.4f} | "
                    f"{secs:.3f} |")
        print(rows[-1], flush=True)
    pred, secs = run_vw(X, y, K)
    rows.append(f"| Vowpal Wabbit --csoaa 26 | {np.abs(pred - y).mean():.4f} | "
                f"{(pred != y).mean():.4f} | {secs:.3f} |")
    print(rows[-1], flush=True)
    text = "\n".join([f"machine: {machine()}; load {load_avg()}", "", *rows]) + "\n"
    if args.out:
        marker = "<!-- results: written by benchmarks/cost_sensitive.py -->"
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        notes = old.split(marker)[0] if marker in old else old  # (never lose notes)
        out.write_text(f"{notes}{marker}\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
