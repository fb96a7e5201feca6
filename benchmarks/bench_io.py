"""Issue 12 (fast input), the readers' part: ``olearn.io.load_libsvm`` (compiled parser)
against scikit-learn's ``load_svmlight_file`` on the same files, in one process,
checking that both give the same matrix and labels.  Writes ``benchmarks/io.md``.

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_io.py
"""
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
FILES = ["a9a/a9a", "w8a/w8a", "ijcnn1/ijcnn1.trn.bz2", "news20/news20.converted.bz2"]


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    from sklearn.datasets import load_svmlight_file

    from olearn.io import load_libsvm
    load_libsvm(DATA / FILES[0])  # compile (or load) the parser first
    rows = []
    for name in FILES:
        path = DATA / name
        if not path.exists():
            print(f"skipped {name}: not found under {DATA}", file=sys.stderr)
            continue
        t_ol, (X, y) = best(lambda: load_libsvm(path))
        t_sk, (X2, y2) = best(lambda: load_svmlight_file(str(path), n_features=X.shape[1]))
        same = X.shape == X2.shape and (X != X2).nnz == 0 and np.array_equal(y, y2)
        size = path.stat().st_size / 1e6
        rows.append((name, X.shape[0], X.nnz, size, t_ol, t_sk, same))
        print(rows[-1], file=sys.stderr)
    lines = ["# Readers: olearn.io.load_libsvm vs scikit-learn load_svmlight_file", "",
             f"Same process, best of 3, {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores; `python benchmarks/bench_io.py`.  Target (issue 12): "
             "at least 5x faster, identical matrices.", "",
             "| file | rows | non-zeros | MB on disk | olearn s | scikit-learn s | ratio | "
             "identical |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, n, nnz, size, a, b, same in rows:
        lines.append(f"| {name} | {n:,} | {nnz:,} | {size:.1f} | {a:.3f} | {b:.3f} | "
                     f"{b / a:.1f}x | {'yes' if same else 'NO'} |")
    lines += ["", "Compressed files include decompression (bz2), which both readers pay."]
    (HERE / "io.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
