"""Defaults that generalise, regression (issue 44, item 5): the OGD regressor's default
(normalized adaptive steps, ``olearn.optim.NAG``) against scikit-learn's
``SGDRegressor()`` and River's ``linear_model.LinearRegression()`` with their defaults,
on the same unscaled streams (no scaling of features or targets by anyone).

Sets: abalone (LIBSVM's scaled features, targets 1..29), cpusmall (raw features up to
about 10^6, targets 0..99) and California housing (raw features up to about 4 10^4,
targets up to 5 10^5), rows in one seeded random order (seed 0).

* progressive: one pass, each row predicted before it is learned (olearn's
  ``predict_learn``; scikit-learn ``predict`` then ``partial_fit`` row by row; River
  ``predict_one`` then ``learn_one``): mean squared error over the stream;
* held-out: train on the first 75%, then the test MSE on the last 25% (olearn's
  ``fit``, one pass; scikit-learn's ``fit``, its default of up to 1000 epochs with
  ``tol``; River one pass of ``learn_one``).

The table gives R^2 = 1 - MSE / var(y) and each peer's MSE over olearn's (above 1:
olearn's default is better); "diverged" is an overflow or a non-finite prediction.
The old default (``schedule="invsqrt", eta=0.1``) runs beside it.

Usage (repository root)::

    OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/defaults_regression.py

Writes benchmarks/defaults_regression.md.  Figures are errors (no timing).
"""
import os
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("OLEARN_DATA_MIRROR", os.path.join(HERE, "..", "..", "shared", "data"))
SETS = ("abalone", "cpusmall", "cadata")
NOTE = ("scikit-learn's `SGDRegressor()` shuffles its epochs with its default "
        '`random_state=None`, so its held-out figures change from run to run (abalone '
        "0.493-0.499 in two runs). Reading: olearn's default beats both peers on every "
        'progressive figure and on the unscaled sets (where both peers diverge to R^2 '
        "below -10^19); on abalone's held-out rows it ties River (1.00) and misses "
        "scikit-learn's 1000-epoch `fit` (0.86); on California housing its R^2 is -3.2 "
        '(prices up to 5 10^5: a scale-free step moves the intercept by about eta '
        "sqrt(t)), a miss against any tuned model, not against the peers' defaults.")


def stream(name):
    """The set's rows, dense, in the seeded order."""
    from olearn.datasets import load
    X, y = load(name, mirror=DATA, download=False, progress=False)
    X = np.asarray(X.toarray(), dtype=np.float64)
    order = np.random.default_rng(0).permutation(X.shape[0])
    return X[order], np.asarray(y, dtype=np.float64)[order]


def mse(pred, y):
    """Mean squared error, or None when a prediction is not finite (diverged)."""
    pred = np.asarray(pred, dtype=np.float64)
    if pred.shape != y.shape or not np.isfinite(pred).all():
        return None
    with np.errstate(over="ignore"):
        err = float(np.mean((pred - y) ** 2))
    return err if np.isfinite(err) else None


def guarded(run):
    """``run()``'s MSE, None when it diverged (overflow, DivergenceError, non-finite)."""
    try:
        with np.errstate(over="raise", invalid="raise"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run()
    except (FloatingPointError, ArithmeticError, ValueError) as exc:
        if "diverg" in str(exc).lower() or isinstance(exc, ArithmeticError) \
                or "infinity" in str(exc).lower() or "nan" in str(exc).lower():
            return None
        raise


def olearn_runs(make):
    def progressive(X, y):
        return guarded(lambda: mse(make().predict_learn(X, y), y))

    def heldout(X, y, Xt, yt):
        return guarded(lambda: mse(make().fit(X, y).predict(Xt), yt))
    return progressive, heldout


def sklearn_runs():
    from sklearn.linear_model import SGDRegressor

    def progressive(X, y):
        def run():
            m = SGDRegressor()
            pred = np.empty_like(y)
            for t in range(len(y)):
                pred[t] = m.predict(X[t:t + 1])[0] if t else 0.0
                m.partial_fit(X[t:t + 1], y[t:t + 1])
            return mse(pred, y)
        return guarded(run)

    def heldout(X, y, Xt, yt):
        return guarded(lambda: mse(SGDRegressor().fit(X, y).predict(Xt), yt))
    return progressive, heldout


def river_runs():
    from river.linear_model import LinearRegression

    def rows(X):
        return [dict(enumerate(map(float, x))) for x in X]

    def progressive(X, y):
        def run():
            m = LinearRegression()
            pred = np.empty_like(y)
            for t, (x, target) in enumerate(zip(rows(X), y)):
                pred[t] = m.predict_one(x)
                m.learn_one(x, float(target))
            return mse(pred, y)
        return guarded(run)

    def heldout(X, y, Xt, yt):
        def run():
            m = LinearRegression()
            for x, target in zip(rows(X), y):
                m.learn_one(x, float(target))
            return mse([m.predict_one(x) for x in rows(Xt)], yt)
        return guarded(run)
    return progressive, heldout


def learners():
    import olearn
    return [("olearn `ogd-reg` (default: `schedule=\"nag\", eta=2`)",
             olearn_runs(lambda: olearn.make("ogd-reg"))),
            ("olearn `ogd-reg` old default (`schedule=\"invsqrt\", eta=0.1`)",
             olearn_runs(lambda: olearn.make("ogd-reg", schedule="invsqrt", eta=0.1))),
            ("scikit-learn `SGDRegressor()`", sklearn_runs()),
            ("River `LinearRegression()`", river_runs())]


def fmt(err, var, ref):
    if err is None:
        return "diverged", "-"
    def num(v, digits):
        return f"{v:.{digits}f}" if abs(v) < 1e4 else f"{v:.2e}"
    ratio = "-" if ref is None else num(err / ref, 2)
    return num(1.0 - err / var, 3), ratio


def main():
    lines = ["# Defaults on unscaled regression streams", "",
             "R^2 (1 - MSE / var(y)) and the MSE over olearn's default's (above 1: olearn's "
             "default better), one run of `python benchmarks/defaults_regression.py`.", "",
             NOTE, ""]
    for name in SETS:
        X, y = stream(name)
        cut = int(0.75 * len(y))
        var_all, var_test = float(np.var(y)), float(np.var(y[cut:]))
        lines += [f"## {name} ({X.shape[0]:,} rows, {X.shape[1]} features; largest |x| "
                  f"{np.abs(X).max():.3g})", "",
                  "| learner | progressive R^2 | MSE / olearn's | held-out R^2 | "
                  "MSE / olearn's |", "|---|---:|---:|---:|---:|"]
        ref = None
        for label, (progressive, heldout) in learners():
            p = progressive(X, y)
            h = heldout(X[:cut], y[:cut], X[cut:], y[cut:])
            if ref is None:
                ref = (p, h)
            pr, prr = fmt(p, var_all, ref[0])
            hr, hrr = fmt(h, var_test, ref[1])
            lines.append(f"| {label} | {pr} | {prr} | {hr} | {hrr} |")
            print(name, label, pr, prr, hr, hrr, flush=True)
        lines.append("")
    out = os.path.join(HERE, "defaults_regression.md")
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print("wrote", out)


if __name__ == "__main__":
    main()
