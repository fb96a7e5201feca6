"""One dict at a time against River (issue 47 item 2): the loop River's users write.

Data, as River's users hold it: the first 20,000 rows of a9a as dicts keyed by strings
(``{"f12": 1.0, ...}``, 14 names a row of 123), labels as booleans; and River's own
Phishing (1,250 rows of 9 named features, the package's copy) read 8 times over.  In one
process, on the same dicts, CPU time per example (``time.process_time``), best of
``--repeats`` passes, each on a fresh model after one untimed pass (olearn's kernels
loaded):

* ``predict_one`` then ``learn_one`` per example, and olearn's fused
  ``predict_learn_one``: olearn's PA-I against River's ``PAClassifier(C=1, mode=1)`` (the
  same algorithm) and ``LogisticRegression()`` (River's default linear classifier);
  targets: ``predict_one`` + ``learn_one`` at least 3x River's, ``predict_learn_one`` at
  least 5x;
* ``predict_proba_one`` of every linear and second-order classifier (``olearn.linear``,
  ``olearn.sparse``, ``olearn.second_order``) after 2,000 examples, against River's
  ``LogisticRegression.predict_proba_one`` after the same; target: at least River's
  speed (ratio >= 1).

    python benchmarks/bench_one.py [--repeats 3] [--out benchmarks/one.md | -]

``OLEARN_DATA_MIRROR`` (or ``../shared/data``) holds a9a; River must be installed (the
``bench`` extra).  The machine is shared: read the ratios, measured in one process.
"""
import argparse
import gc
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _peers import load_avg, machine  # noqa: E402

import olearn  # noqa: E402
from olearn import registry  # noqa: E402

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
NOTES = "## Reading (hand-written)"
FAMILIES = ("olearn.linear.", "olearn.sparse.", "olearn.second_order.")


def a9a_dicts(n=20_000):
    from olearn.io import load_libsvm
    X, y = load_libsvm(DATA / "a9a" / "a9a")[:2]
    X, y = X[:n], y[:n]
    rows = []
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        rows.append({f"f{j}": float(v) for j, v in zip(X.indices[lo:hi].tolist(),
                                                         X.data[lo:hi].tolist())})
    return rows, [bool(v > 0) for v in y.tolist()]


def phishing(times=8):
    from river import datasets
    pairs = list(datasets.Phishing())
    return [dict(x) for x, _ in pairs] * times, [bool(t) for _, t in pairs] * times


def per_example(fn, n, repeats):
    """Best CPU microseconds per example of ``fn()`` (one pass over ``n`` examples)."""
    fn()  # (untimed: kernels loaded, caches warm)
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best / n * 1e6


def loops(make, rows, labels):
    """The River user's loop and olearn's fused one, on a fresh model each pass."""
    def separate():
        m = make()
        for x, t in zip(rows, labels):
            m.predict_one(x)
            m.learn_one(x, t)

    def fused():
        m = make()
        for x, t in zip(rows, labels):
            m.predict_learn_one(x, t)
    return separate, fused


def section_loops(repeats):
    from river import linear_model
    out = ["## 1. `predict_one` + `learn_one` per example", "",
           "| data | implementation | us/example (CPU) | / River PA | / River LR | target |",
           "|---|---|---:|---:|---:|---|"]
    for name, (rows, labels) in (("a9a (20,000 rows, string keys)", a9a_dicts()),
                                 ("Phishing (1,250 rows x 8)", phishing())):
        n = len(rows)
        r_pa = per_example(loops(lambda: linear_model.PAClassifier(C=1, mode=1), rows,
                                 labels)[0], n, repeats)
        r_lr = per_example(loops(linear_model.LogisticRegression, rows, labels)[0], n,
                           repeats)
        sep, fused = loops(lambda: olearn.make("pa1"), rows, labels)
        o_sep, o_fused = per_example(sep, n, repeats), per_example(fused, n, repeats)
        out += [f"| {name} | River PAClassifier(C=1, mode=1) | {r_pa:.2f} | 1.00 | "
                f"{r_lr / r_pa:.2f} | |",
                f"| {name} | River LogisticRegression() | {r_lr:.2f} | {r_pa / r_lr:.2f} | "
                f"1.00 | |"]
        for label, us, target in (("olearn pa1 predict_one + learn_one", o_sep, 3),
                                  ("olearn pa1 predict_learn_one", o_fused, 5)):
            ratio = r_pa / us
            out.append(f"| {name} | {label} | {us:.2f} | {ratio:.2f} | {r_lr / us:.2f} | "
                       f">= {target}x River: {'hit' if ratio >= target else 'missed'} |")
    return out


def section_proba(repeats):
    from river import linear_model
    rows, labels = a9a_dicts()
    train, rows = (rows[:2000], labels[:2000]), rows[2000:12000]
    river = linear_model.LogisticRegression()
    for x, t in zip(*train):
        river.learn_one(x, t)

    def proba(m):
        def run():
            for x in rows:
                m.predict_proba_one(x)
        return run
    r = per_example(proba(river), len(rows), repeats)
    out = ["## 2. `predict_proba_one` after 2,000 examples (a9a, string keys)", "",
           f"River `LogisticRegression.predict_proba_one`: **{r:.2f} us** an example.", "",
           "| learner | us/example (CPU) | River's time / this | target (>= 1) |",
           "|---|---:|---:|---|"]
    for name in registry.names():
        d = registry.describe(name)
        if d.kind != "classifier" or not d.cls.startswith(FAMILIES):
            continue
        m = olearn.make(name)
        for x, t in zip(*train):
            m.learn_one(x, t)
        us = per_example(proba(m), len(rows), repeats)
        out.append(f"| {name} | {us:.2f} | {r / us:.2f} | {'hit' if us <= r else 'missed'} |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "one.md"))
    args = ap.parse_args()
    t0 = time.time()
    body = section_loops(args.repeats) + [""] + section_proba(args.repeats)
    head = ["# One dict at a time against River (issue 47 item 2)", "",
            f"`python benchmarks/bench_one.py --repeats {args.repeats}`; {machine()}; "
            f"load {load_avg()}; {time.time() - t0:.0f} s.  CPU time per example, best "
            "of the passes, one process (read the ratios: the machine is shared).", ""]
    text = "\n".join(head + body) + "\n"
    if args.out == "-":
        print(text)
    else:
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        kept = old[old.find(NOTES):] if NOTES in old else ""  # (hand-written: kept)
        out.write_text(text + ("\n" + kept if kept else ""))
        print(text)


if __name__ == "__main__":
    main()
