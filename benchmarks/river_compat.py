"""River compatibility in numbers (issue 44): ``predict_proba_one`` per call against
River's ``LogisticRegression`` (one dict of River's Phishing, warm: each model has
learned the first 300 rows), ``BaggingClassifier(ftrl, 10)`` against the same ensemble
of River's ``LogisticRegression`` on all of Phishing, and each classifier's progressive
accuracy and log loss on Phishing (probabilities before each row is learned).  Every
ratio is taken in the same run (the machine is shared: compare the ratios).  Writes
``benchmarks/river_compat.md``.

    python benchmarks/river_compat.py [--quick]
"""
import os
import platform
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import olearn  # noqa: E402
from olearn.registry import LEARNERS  # noqa: E402

from river import datasets, ensemble, evaluate, linear_model, metrics  # noqa: E402
import river  # noqa: E402

QUICK = "--quick" in sys.argv
DATA = list(datasets.Phishing())
WARM = DATA[:300]
X0 = DATA[5][0]


def per_call(f, number=5000, repeat=7):
    """Best-of-``repeat`` seconds per call, in microseconds."""
    f()
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


def warm(model):
    for x, y in WARM:
        model.learn_one(x, y)
    return model


def proba_timings(names):
    """(name, us per call, us of River's LogisticRegression measured just before)."""
    ref_model = warm(linear_model.LogisticRegression())
    rows = []
    for name in names:
        m = warm(olearn.make(name))
        ref = per_call(lambda: ref_model.predict_proba_one(X0))
        ours = per_call(lambda: m.predict_proba_one(X0))
        ref = min(ref, per_call(lambda: ref_model.predict_proba_one(X0)))
        rows.append((name, ours, ref))
    return rows


def progressive(model):
    acc, ll = metrics.Accuracy(), metrics.LogLoss()
    for x, y in DATA:
        p = model.predict_proba_one(x)
        if p:
            ll.update(y, p)
            acc.update(y, max(p, key=p.get))
        model.learn_one(x, y)
    return acc.get(), ll.get()


def bagging(make, seed=42):
    model = ensemble.BaggingClassifier(make(), n_models=10, seed=seed)
    t = time.perf_counter()
    m = evaluate.progressive_val_score(DATA, model, metrics.Accuracy())
    return time.perf_counter() - t, m.get()


def main():
    classifiers = [n for n in LEARNERS if olearn.tags(olearn.make(n)).task == "classifier"
                   and n != "auto"]
    linear = [n for n in classifiers if olearn.tags(olearn.make(n)).linear]
    lines = ["# River compatibility (issue 44)", "",
             f"`python benchmarks/river_compat.py`; {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy "
             f"{np.__version__}, river {river.__version__}, load "
             f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}.  River's Phishing "
             f"({len(DATA)} rows).  Ratios are taken in the same run (the machine is "
             "shared).", "",
             "## `predict_proba_one`, one dict, warm (300 rows learned)", "",
             "Target: at most 3x River's `LogisticRegression` for every linear and "
             "second-order classifier.  River's time is measured beside each model's.", "",
             "| learner | olearn us/call | River LR us/call | ratio |", "|---|---|---|---|"]
    worst = 0.0
    for name, ours, ref in proba_timings(linear[:4] if QUICK else linear):
        worst = max(worst, ours / ref)
        lines.append(f"| {name} | {ours:.2f} | {ref:.2f} | {ours / ref:.2f} |")
    lines += ["", f"Largest ratio: {worst:.2f}.", ""]

    lines += ["## `BaggingClassifier(model, n_models=10)` on Phishing", "",
              "Target: olearn's ftrl at most 2x River's `LogisticRegression` in the same "
              "ensemble (River's `progressive_val_score`, seed 42).", "",
              "| member | seconds | accuracy | ratio |", "|---|---|---|---|"]
    t_ref, a_ref = bagging(linear_model.LogisticRegression)
    t_ftrl, a_ftrl = bagging(lambda: olearn.make("ftrl"))
    t_ref = min(t_ref, bagging(linear_model.LogisticRegression)[0])
    lines.append(f"| River LogisticRegression | {t_ref:.2f} | {a_ref:.4f} | 1.00 |")
    lines.append(f"| olearn ftrl | {t_ftrl:.2f} | {a_ftrl:.4f} | {t_ftrl / t_ref:.2f} |")
    lines += [""]

    lines += ["## Probabilities on Phishing (progressive: before each row is learned)", "",
              "A coin's log loss is 0.693; a classifier whose accuracy beats a coin should "
              "beat it on log loss too.  Links: the logistic of the margin (margin "
              "learners, as River's `PAClassifier`; the model itself for the logistic "
              "loss), the probit predictive `Phi(m / sqrt(1 + v))` (CW, SCW, AROW), the "
              "networks' own softmax.", "",
              "| learner | accuracy | log loss | beats a coin |", "|---|---|---|---|"]
    ref = linear_model.LogisticRegression()
    a, ll = progressive(ref)
    lines.append(f"| River LogisticRegression | {a:.4f} | {ll:.4f} | "
                 f"{'yes' if ll < np.log(2) else 'no'} |")
    for name in (classifiers[:6] if QUICK else classifiers):
        a, ll = progressive(olearn.make(name))
        ok = ll < np.log(2) or a <= 0.5
        lines.append(f"| {name} | {a:.4f} | {ll:.4f} | {'yes' if ok else '**no**'} |")
    text = "\n".join(lines) + "\n"
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "river_compat.md")
    if not QUICK:
        with open(out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
