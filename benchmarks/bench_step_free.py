"""Step sizes that need no tuning, against the best tuned constant step.

Data: a9a (``../shared/data/a9a/a9a``, 32,561 rows, logistic loss) and cpusmall
(``../shared/data/cpusmall/cpusmall.converted``, 8,192 rows, squared loss), each as
given and with every feature multiplied by a random factor ``10^u``, ``u`` uniform on
[0, 3] (numpy seed 0): factors from 1 to 1e3.

Untuned learners (their defaults, the same on every data set):

* AdaGrad: ``OGDClassifier``/``OGDRegressor(schedule="adagrad")`` (eta 1.0 / 0.1);
* NDAG: ``NDAGClassifier``/``NDAGRegressor`` (normalized adaptive gradient, eta 0.5 / 2);
* COCOB: ``COCOBClassifier``/``COCOBRegressor`` (coin betting, alpha 100).

Baseline: ``OGD(schedule="constant", eta)`` for every ``eta`` in ``10^k``, ``k`` from
-20 to 1 by halves, the best progressive loss kept (tuned on the very stream it is
scored on, so an optimistic baseline).  Progressive loss: the mean over the stream of
the loss of each row's prediction made before learning from it (log loss for a9a,
squared error for cpusmall); one pass, intercept fitted.  The claim checked: an
untuned learner is "within 5%" when its progressive loss is at most 1.05 times the
best constant step's.  Usage::

    .venv/bin/python benchmarks/bench_step_free.py      # writes benchmarks/step_free.md
"""
import argparse
import os
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from olearn.base import DivergenceError  # noqa: E402
from olearn.linear import (COCOBClassifier, COCOBRegressor, NDAGClassifier, NDAGRegressor,
                           OGDClassifier, OGDRegressor)

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
ETAS = 10.0 ** np.arange(-20.0, 1.01, 0.5)
NOTES = """## Reading (the run above)

* The claim holds for NDAG only: with features rescaled by factors up to 1e3 it is
  within 5% of (here: better than) the best constant step tuned on the same stream, on
  both data sets, and its predictions are the same with and without the rescaling
  (scale invariance, also a unit test).  On a9a as given, all three untuned learners
  are within 5%.
* AdaGrad is not scale invariant (a feature times c gets updates of the same size in
  w, where the best w_i shrinks by c): with rescaled features its default step is far
  too large (a9a: 29x the log loss; cpusmall diverges to huge losses).
* COCOB (coin betting per coordinate) adapts its bets to the gradient scale but starts
  each coordinate with a wealth in gradient units, so its first weights are O(1/alpha)
  whatever the feature scale: on features with scales up to 1e3 (a9a rescaled) or 1e6
  (cpusmall as given) its early predictions are far too large; it fails the 5% claim
  (a9a rescaled: 1.5x; cpusmall: orders of magnitude, mostly in the first rows).
* cpusmall as given (raw features up to 2e6, targets 0..99 with mean 84): with Vowpal
  Wabbit's eta 0.5, NDAG's regressor was 3.4x the tuned constant step's squared error
  (1,270): it took a few hundred rows to move the intercept to the target mean.  Its
  default is now eta 2 (326 here, 0.87x), chosen on abalone, cpusmall and California
  housing together (the regressor's docstring): on cpusmall that is tuning on the
  set itself, so the cpusmall NDAG rows are not an untuned result.  The classifier
  keeps eta 0.5.  The rescaled cpusmall run is easier for NDAG only because the tuned
  constant step does worse there (3,910 against 374).
* Steps that make a learner's scores or weights non-finite are skipped in the tuning
  grid (olearn stops such a pass with `DivergenceError`).
"""


def progressive_loss(model, X, y, task):
    """(mean loss, mistake rate) of one progressive pass; (inf, nan) for a learner that
    diverges (olearn raises ``DivergenceError`` when its scores or weights stop being
    finite)."""
    with np.errstate(all="ignore"):
        try:
            s = model.predict_learn(X, y, return_scores=True)
        except DivergenceError:
            return np.inf, float("nan")
        loss = np.logaddexp(0.0, -y * s) if task == "classification" else (s - y) ** 2
        mean = float(np.mean(loss))
        mistakes = float(np.mean(np.where(s > 0, 1.0, -1.0) != y)) \
            if task == "classification" else float("nan")
    return (mean if np.isfinite(mean) else np.inf), mistakes


def rescaled(X, seed=0):
    factors = 10.0 ** np.random.default_rng(seed).uniform(0.0, 3.0, X.shape[1])
    return (X @ sp.diags(factors)).tocsr()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(HERE / "step_free.md"))
    args = ap.parse_args()
    sets = []
    X, y = load_svmlight_file(str(DATA / "a9a" / "a9a"), n_features=123)
    sets.append(("a9a", "classification", X.tocsr(), y))
    X, y = load_svmlight_file(str(DATA / "cpusmall" / "cpusmall.converted"), n_features=12)
    sets.append(("cpusmall", "regression", X.tocsr(), y))

    lines = []
    for name, task, X0, y in sets:
        clf = task == "classification"
        for scaling, X in (("as given", X0), ("x 10^U(0,3) per feature", rescaled(X0))):
            best = (np.inf, None, None)
            for eta in ETAS:
                m = (OGDClassifier(loss="logistic") if clf else OGDRegressor(loss="squared"))
                m.set_params(schedule="constant", eta=float(eta))
                loss, mis = progressive_loss(m, X, y, task)
                if loss < best[0]:
                    best = (loss, eta, mis)
            lines.append((name, scaling, f"OGD constant, best eta = {best[1]:.0e}", "tuned",
                          best[0], 1.0, best[2]))
            learners = ([("AdaGrad", OGDClassifier(loss="logistic", schedule="adagrad")),
                         ("NDAG", NDAGClassifier()), ("COCOB", COCOBClassifier())] if clf else
                        [("AdaGrad", OGDRegressor(schedule="adagrad")),
                         ("NDAG", NDAGRegressor()), ("COCOB", COCOBRegressor())])
            for label, m in learners:
                loss, mis = progressive_loss(m, X, y, task)
                lines.append((name, scaling, label, "none", loss, loss / best[0], mis))
            for row in lines[-4:]:
                print(row, flush=True)

    md = ["# Step sizes that need no tuning", "",
          "Reproduce: `.venv/bin/python benchmarks/bench_step_free.py` (protocol in the "
          "script's docstring).", "",
          "Progressive loss: mean log loss (a9a) or mean squared error (cpusmall) of the "
          "predictions made before each update, one pass. *ratio*: progressive loss over "
          "that of the best constant step tuned on the same stream (a grid of 43 steps "
          "from 1e-20 to 10). *within 5%*: ratio <= 1.05.", "",
          "| data | features | learner | tuning | progressive loss | ratio | within 5% | "
          "progressive mistakes |",
          "|---|---|---|---|---:|---:|---|---:|"]
    for name, scaling, label, tuning, loss, ratio, mis in lines:
        ok = "" if tuning == "tuned" else ("yes" if ratio <= 1.05 else "no")
        shown = f"{loss:.4g} | {ratio:.3f}" if np.isfinite(loss) else "diverged | -"
        md.append(f"| {name} | {scaling} | {label} | {tuning} | {shown} | "
                  f"{ok} | {'' if np.isnan(mis) else f'{mis:.4f}'} |")
    md += ["", NOTES]
    Path(args.out).write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
