"""What atomic calls cost per row (issue 45 item 3): a failed call leaves the model as
it was, adaptive statistics included.

One example: ``learn_one`` now (``OnlineLearner._learn_example``: the attributes kept
by reference, the state copied only for an extreme example or a model near overflow)
against the path before it, rebuilt here from the same parts (the row, the kernel,
and the old check after it: the whole state tested when an updating example was
extreme), in the same process, on the same rows; both locked.  Models of 10 dense
features (arrays and dicts) and of 123 (a9a's width, 14 non-zeros a row).

Batches: ``partial_fit`` (a copy of the state on entry, put back if the call fails;
unchanged by this issue) against the same pass without the copy (``_partial``), per
row, for batches of 1, 10 and 1,000 rows.

Times are the calling thread's CPU time (``time.thread_time``), best of ``--repeats``
interleaved runs.  Usage::

    python benchmarks/bench_atomic.py          # writes benchmarks/atomic.md
"""
import argparse
import platform
import time
from pathlib import Path

import numpy as np

import olearn
from olearn._compiled.finite import extreme_row
from olearn._locking import locked

HERE = Path(__file__).resolve().parent
N = 4000


@locked
def old_learn_one(model, x, y):
    """``learn_one`` as it was before (one example, no copy, no put-back)."""
    model._check_one_label(y)
    row, _ = model._one_row(x, grow=True)
    n = model.n_updates_
    model._learn_row(row, y, 1.0)
    if model.n_updates_ - n and extreme_row(row[0], row[2], 1.0) and \
            not model._weights_finite():
        raise AssertionError("diverged")


@locked
def partial_without_copy(model, X, y):
    model._partial(X, y, None, None)


def new_learn_one(model, x, y):
    model.learn_one(x, y)


def rows(width, nnz, dicts, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((N, width))
    for i in range(N):
        cols = rng.choice(width, nnz, replace=False)
        X[i, cols] = rng.normal(size=nnz)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    if dicts:
        return [{f"f{j}": float(X[i, j]) for j in np.flatnonzero(X[i])} for i in range(N)], y
    return list(X), y


CASES = [("pa1", 10, 10, False), ("pa1", 10, 10, True), ("adagrad", 10, 10, False),
         ("ogd-reg", 10, 10, False), ("mlp", 10, 10, False), ("arow", 10, 10, False),
         ("ftrl", 123, 14, True), ("pa1", 123, 14, False)]


def one_example(repeats):
    out = []
    for name, width, nnz, dicts in CASES:
        xs, y = rows(width, nnz, dicts)
        if name.endswith("-reg"):
            y = np.array([float(x.sum()) if not dicts else 0.0 for x in xs])
        best = {"before": np.inf, "now": np.inf}
        for _ in range(repeats):
            for label, step in (("before", old_learn_one), ("now", new_learn_one)):
                model = olearn.make(name)
                step(model, xs[0], y[0])  # (compiled, buffers made)
                t = time.thread_time()
                for x, yi in zip(xs, y):
                    step(model, x, yi)
                best[label] = min(best[label], (time.thread_time() - t) / N)
        out.append((f"{name}, {width} features ({nnz} non-zero), "
                    f"{'dicts' if dicts else 'arrays'}", best["before"], best["now"]))
    return out


def batches(repeats):
    out = []
    X = np.random.default_rng(1).normal(size=(1000, 10))
    y = (X[:, 0] > 0).astype(int)
    for name in ("pa1", "adagrad", "mlp"):
        for n in (1, 10, 1000):
            best = {"without copy": np.inf, "partial_fit": np.inf}
            for _ in range(repeats):
                for label in best:
                    model = olearn.make(name).partial_fit(X[:20], y[:20])
                    calls = max(1, 2000 // n)
                    t = time.thread_time()
                    for k in range(calls):
                        lo = (k * n) % 1000
                        Xb, yb = X[lo:lo + n], y[lo:lo + n]
                        if label == "partial_fit":
                            model.partial_fit(Xb, yb)
                        else:
                            partial_without_copy(model, Xb, yb)
                    best[label] = min(best[label], (time.thread_time() - t) / (calls * n))
            out.append((f"{name}, batches of {n}", best["without copy"], best["partial_fit"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(HERE / "atomic.md"))
    args = ap.parse_args()
    one = one_example(args.repeats)
    batch = batches(args.repeats)
    lines = ["# Atomic calls: the cost per row (issue 45 item 3)", "",
             f"`python benchmarks/bench_atomic.py --repeats {args.repeats}` "
             f"({platform.machine()}, shared CPUs; numpy {np.__version__}); "
             f"{N} rows a case, best thread CPU time of the repeats, interleaved.", "",
             "## One example (`learn_one`)", "",
             "| model, rows | before (us/row) | now (us/row) | ratio |",
             "|---|---:|---:|---:|"]
    lines += [f"| {c} | {a * 1e6:.2f} | {b * 1e6:.2f} | {b / a:.2f}x |" for c, a, b in one]
    lines += ["", "## Batches (`partial_fit`, the copy on entry)", "",
              "| model, batch | without the copy (us/row) | partial_fit (us/row) | ratio |",
              "|---|---:|---:|---:|"]
    lines += [f"| {c} | {a * 1e6:.3f} | {b * 1e6:.3f} | {b / a:.2f}x |" for c, a, b in batch]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
