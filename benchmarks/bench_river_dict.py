"""One dict at a time on elec2: olearn's sparse learners against River's FTRL (issue 32).

The loop River's users write, on the same 45,312 rows of elec2 (6 features as a dict,
label 0/1, in the file's order), in the same process, one model after the other:
``y_pred = model.predict_one(x); model.learn_one(x, y)``.  River's FTRL is
``linear_model.LogisticRegression(optimizer=optim.FTRLProximal(...))`` with the same
alpha, beta, l1, l2 as olearn's ``FTRLClassifier`` (and no intercept learning on either
side's own schedule: River's intercept has its own rate, olearn's is a penalty-free
coordinate).  Reported: rows/s of the whole loop (best of ``REPEATS`` runs, each on a
fresh model, after one warm-up run that compiles olearn's kernels), the ratio to
River's FTRL, and the progressive accuracy.  Also olearn's PA-I (the protocol's fastest
dict path) and the other sparse learners through the same loop.

Run: ``OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/bench_river_dict.py``;
writes ``benchmarks/river_dict.md``.  The machine is shared: compare the ratios, measured
in one process, rather than the absolute rates.
"""
import csv
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _peers import load_avg, machine  # noqa: E402

import olearn  # noqa: E402

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
OUT = HERE / "river_dict.md"
REPEATS = 3
FTRL = dict(alpha=1.0, beta=1.0, l1=0.1, l2=1.0)


def elec2():
    with open(DATA / "elec2" / "elec.csv") as f:
        rows = list(csv.reader(f))
    names = rows[0][:-1]
    return [({n: float(v) for n, v in zip(names, r[:-1])}, int(r[-1])) for r in rows[1:]]


def river_ftrl():
    from river import linear_model, optim
    return linear_model.LogisticRegression(
        optimizer=optim.FTRLProximal(**FTRL), l2=0.0)


def loop(make, stream):
    """Best rows/s of the predict-then-learn loop over ``stream``, and the accuracy."""
    best, acc = 0.0, None
    for _ in range(REPEATS):
        model = make()
        right = 0
        start = time.perf_counter()
        for x, y in stream:
            right += model.predict_one(x) == y
            model.learn_one(x, y)
        rate = len(stream) / (time.perf_counter() - start)
        best, acc = max(best, rate), right / len(stream)
    return best, acc


def main():
    stream = elec2()
    learners = [("River FTRLProximal (LogisticRegression)", river_ftrl),
                ("olearn ftrl", lambda: olearn.make("ftrl", **FTRL)),
                ("olearn pa1", lambda: olearn.make("pa1"))] + [
        (f"olearn {name}", (lambda name=name: olearn.make(name)))
        for name in ("rda", "fobos", "ada-rda", "ada-fobos", "truncated-gradient")]
    for _, make in learners[1:]:           # compile (or load) olearn's kernels first
        loop(make, stream[:200])
    results = [(name, *loop(make, stream)) for name, make in learners]
    river_rate = results[0][1]
    lines = [
        "# One dict at a time on elec2 (issue 32)", "",
        f"`python benchmarks/bench_river_dict.py`; {machine()}, load {load_avg()}; "
        f"{len(stream):,} rows, `predict_one` then `learn_one` per row, best of "
        f"{REPEATS} fresh models, one process (compare the ratios: the machine is shared).",
        "", "| learner | rows/s | / River's FTRL | progressive accuracy |", "|---|---|---|---|"]
    for name, rate, acc in results:
        lines.append(f"| {name} | {rate:,.0f} | {rate / river_rate:.2f} | {acc:.4f} |")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
