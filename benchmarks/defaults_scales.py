"""Every registered regressor's default on unscaled features (issue 44, item 5): test R^2
on a linear stream (2,000 rows, 5 standard normal features, noise 0.1; train on 1,500
rows with ``fit``, test on the last 500) as given, with every feature plus 100 (the
mean of scikit-learn's checks' features), times 10^3, and scaled per feature by
10^-3 .. 10^3.  A diverging learner raises ``DivergenceError``.

Usage (repository root)::

    python benchmarks/defaults_scales.py

Writes benchmarks/defaults_scales.md.  Figures are errors (no timing).
"""
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    import olearn
    from olearn.registry import learner_kind
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    from test_estimators import _names   # one name per distinct (class, defaults)
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    n, d = 2000, 5
    Z = rng.standard_normal((n, d))
    y = Z @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    cases = {"as given": Z, "mean 100": Z + 100.0, "x 10^3": Z * 1e3,
             "x 10^-3 .. 10^3": Z * np.array([1e-3, 1, 1e3, 1e2, 1e-2])}
    lines = ["# Regressors' defaults on unscaled features", "",
             "Test R^2 after `fit` on 1,500 rows of a linear stream, one run of "
             "`python benchmarks/defaults_scales.py`.", "",
             "| learner | " + " | ".join(cases) + " |", "|---|" + "---:|" * len(cases)]
    for name in [nm for nm in _names() if learner_kind(nm) == "regressor"]:
        row = []
        for X in cases.values():
            try:
                p = olearn.make(name).fit(X[:1500], y[:1500]).predict(X[1500:])
                row.append(f"{1 - np.mean((p - y[1500:]) ** 2) / np.var(y[1500:]):.3f}")
            except olearn.base.DivergenceError:
                row.append("diverged")
        lines.append(f"| `{name}` | " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    with open(os.path.join(HERE, "defaults_scales.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
