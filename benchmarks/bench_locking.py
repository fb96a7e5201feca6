"""The cost of the per-model lock on the one-example path (issue 28, item 6).

Times ``learn_one``, ``predict_one`` and ``predict_learn_one`` of ``olearn.make("pa1")``
on the first 20,000 rows of a9a as dicts ``{column index: value}`` (built before
timing), best of ``--repeats`` runs of CPU time, one fresh model per run.  Run it on the
code before and after a change and compare the us/example columns: the script prints
one markdown table (nothing is written).

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_locking.py [--rows 20000] [--repeats 7]
"""
import argparse
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def a9a_dicts(n):
    from olearn.io import load_libsvm
    root = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
    X, y = load_libsvm(root / "a9a" / "a9a", n_features=123)
    X = X[:n].tocsr()
    rows = [dict(zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                     X.data[X.indptr[i]:X.indptr[i + 1]].tolist())) for i in range(X.shape[0])]
    return rows, np.where(np.asarray(y[:n]) > 0, 1, -1).tolist()


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    import olearn
    rows, labels = a9a_dicts(args.rows)
    warm = olearn.make("pa1")
    for x, y in zip(rows[:100], labels[:100]):  # load the kernels before timing
        warm.predict_learn_one(x, y)
        warm.predict_one(x)
    n = len(rows)

    def learn():
        m = olearn.make("pa1")
        f = m.learn_one
        for x, y in zip(rows, labels):
            f(x, y)

    trained = olearn.make("pa1")
    for x, y in zip(rows, labels):
        trained.learn_one(x, y)

    def predict():
        f = trained.predict_one
        for x in rows:
            f(x)

    def fused():
        m = olearn.make("pa1")
        f = m.predict_learn_one
        for x, y in zip(rows, labels):
            f(x, y)

    print(f"| call (pa1, a9a first {n:,} rows as dicts) | us/example (CPU, best of "
          f"{args.repeats}) |\n|---|---|")
    for name, fn in (("learn_one", learn), ("predict_one", predict),
                     ("predict_learn_one", fused)):
        print(f"| {name} | {best(fn, args.repeats) / n * 1e6:.3f} |")


if __name__ == "__main__":
    main()
