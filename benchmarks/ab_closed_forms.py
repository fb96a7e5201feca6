"""Before/after in one run for the closed-form sparse learners (FTRL, RDA, AdaRDA).

``python benchmarks/ab_closed_forms.py REV DATA [ROUNDS]``: the package as of git
revision ``REV`` (unpacked into a temporary folder) and this checkout's run alternately,
one process each, ``ROUNDS`` times; each prints the CPU seconds of one ``partial_fit``
over DATA (a9a, w8a or news20, as in ``bench_sparse.py``'s ftrl section), best of 3,
per learner, and the best of all of a side is kept.  Prints rows/s before and after and
their ratio (noisy machine: compare the ratios, not the rates).  The figures are quoted
in sparse.md's FTRL section.
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LEARNERS = {"ftrl l1=0.01": ("ftrl", {"alpha": 1.0, "l1": 0.01}),
            "ftrl l1=1": ("ftrl", {"alpha": 1.0, "l1": 1.0}),
            "rda": ("rda", {}), "rda logistic": ("rda", {"loss": "logistic"}),
            "ada-rda": ("ada-rda", {}), "ada-rda logistic": ("ada-rda", {"loss": "logistic"})}


def one(data, reps=3):
    """This process's best CPU seconds per learner (run by ``main`` in each tree)."""
    import numpy as np
    import olearn
    sys.path.insert(0, str(HERE))
    import bench_sparse as B
    if data == "a9a":
        X, y = B.libsvm("a9a", "a9a", n_features=123)
    elif data == "w8a":
        X, y = B.split(*B.libsvm("w8a", "w8a"), 0.7)[:2]
    else:
        X, y = B.libsvm("news20", "news20.converted.bz2")
        X, y = B.split(B.normalize_rows(X), y, 0.7)[:2]
    classes = np.unique(y)
    best = {}
    for name, (algo, params) in LEARNERS.items():
        olearn.make(algo, shuffle=False, **params).partial_fit(X[:50], y[:50], classes=classes)
    for _ in range(reps):
        for name, (algo, params) in LEARNERS.items():
            m = olearn.make(algo, shuffle=False, **params)
            c0 = time.process_time()
            m.partial_fit(X, y, classes=classes)
            best[name] = min(best.get(name, float("inf")), time.process_time() - c0)
    print(json.dumps({"n": X.shape[0], "best": best}))


def main(rev, data, rounds=2):
    repo = HERE.parent
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(repo), "archive", rev, "olearn"],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        trees = {"before": tmp, "after": str(repo)}
        best = {}
        for _ in range(rounds):
            for side, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=tree)
                out = subprocess.run([sys.executable, __file__, "--one", data], env=env,
                                     check=True, capture_output=True, text=True).stdout
                res = json.loads(out.strip().splitlines()[-1])
                for name, t in res["best"].items():
                    best[name, side] = min(best.get((name, side), float("inf")), t)
    n = res["n"]
    print(f"{data}: {rev} -> this checkout, rows/s (CPU), best of {rounds}x3 passes a side")
    for name in LEARNERS:
        b, a = best[name, "before"], best[name, "after"]
        print(f"  {name}: {n / b / 1e3:.0f}k -> {n / a / 1e3:.0f}k ({b / a:.2f}x)")


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        one(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2], *map(int, sys.argv[3:4]))
