"""Regenerate the figures of docs/figures/ (run from the repository root):

    python scripts/make_figures.py            # all figures but compare_a9a
    python scripts/make_figures.py pa arow    # some of them

* pa_two_gaussians.png: passive-aggressive classification of two Gaussian classes,
  the seed book's Figs. 31.3/31.4 (Sugiyama, "Introduction to Statistical Machine
  Learning", ch. 31): the boundary after 1, 3, 10 and all 200 examples;
* pa_vs_arow_outliers.png: PA against AROW with two outliers, the book's
  Figs. 31.7/31.8, on the book's draw and over 200 random draws;
* regret_ogd.png: regret of online gradient descent (steps 1/sqrt(t)) against the
  best fixed linear predictor of each prefix, next to the Perceptron's;
* compare_breast_cancer.png, compare_breast_cancer_bars.png: the comparison that
  ``olearn compare --all`` runs (every registered classifier, 20 orders);
* compare_a9a.png (only when asked: ``make_figures.py a9a``, a few minutes): the same
  on a9a (needs the data mirror, OLEARN_DATA_MIRROR or ../shared/data; 5 orders).

Everything is seeded: a rerun gives the same pictures (times aside).
"""
import os
import sys
import time
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import olearn
from olearn.datasets import make_outlier_gaussians, make_two_gaussians
from olearn.evaluate.compare import compare
from olearn.evaluate.regret import regret

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "figures"


def boundary(ax, model, box, **kw):
    """Draw ``w0 + w1 x1 + w2 x2 = 0`` clipped to ``box = (x1lo, x1hi, x2lo, x2hi)``."""
    w1, w2 = model.coef_.ravel()
    w0 = float(model.intercept_.ravel()[0])
    x1lo, x1hi, x2lo, x2hi = box
    if abs(w2) >= abs(w1) * (x2hi - x2lo) / (x1hi - x1lo):
        x1 = np.linspace(x1lo, x1hi, 2)
        x2 = -(w0 + w1 * x1) / w2
    else:
        x2 = np.linspace(x2lo, x2hi, 2)
        x1 = -(w0 + w2 * x2) / w1
    return ax.plot(x1, x2, **kw)


def scatter(ax, X, y):
    ax.plot(X[y == 1, 0], X[y == 1, 1], "o", mfc="none", color="tab:blue", ms=5,
            label="class +1")
    ax.plot(X[y == -1, 0], X[y == -1, 1], "x", color="tab:red", ms=5, label="class -1")


def fig_pa():
    """Figs. 31.3/31.4: PA with the squared hinge and lambda = 1 (PA-II, C = 1/2)."""
    X, y = make_two_gaussians(n=200, random_state=0)
    box = (-10, 10, -10, 10)
    fig = Figure(figsize=(6.2, 6.2), layout="constrained")
    ax = fig.subplots()
    scatter(ax, X, y)
    model = olearn.make("pa2", C=0.5)
    seen = 0
    for stop, alpha, style in ((1, 0.35, ":"), (3, 0.55, "--"), (10, 0.75, "-."),
                               (200, 1.0, "-")):
        model.partial_fit(X[seen:stop], y[seen:stop], classes=[-1, 1])
        seen = stop
        boundary(ax, model, box, color="k", ls=style, alpha=alpha, lw=1.8,
                 label=f"after {stop} example{'s' if stop > 1 else ''}")
    ax.set_xlim(box[:2])
    ax.set_ylim(box[2:])
    ax.set_xlabel("$x^{(1)}$")
    ax.set_ylabel("$x^{(2)}$")
    ax.set_title("Passive-aggressive classification (PA-II, $\\lambda = 1$)\n"
                 "two Gaussian classes, the seed book's Figs. 31.3/31.4", fontsize=10)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3,
               fontsize=8)
    ax.grid(alpha=0.3)
    fig.savefig(OUT / "pa_two_gaussians.png", dpi=120)


def _clean_error(model, X, y, keep):
    return float(np.mean(model.predict(X[keep]) != y[keep]))


def _crossing(model, x2=0.0):
    """x1 where the boundary crosses the line x2 = 0."""
    w1, w2 = model.coef_.ravel()
    return -(float(model.intercept_.ravel()[0]) + w2 * x2) / w1


def fig_arow():
    """Figs. 31.7/31.8: PA and AROW (both lambda = r = 1) with two outliers."""
    box = (-20, 0, -2, 2)
    X, y = make_outlier_gaussians(n=50, random_state=0, shuffle=False)
    outliers = np.arange(2)                                 # the first two +1 rows
    order = np.random.default_rng(0).permutation(len(y))
    pa = olearn.make("pa2", C=0.5).fit(X[order], y[order])
    arow = olearn.make("arow", r=1.0).fit(X[order], y[order])
    fig = Figure(figsize=(11.5, 5.2), layout="constrained")
    ax, bx = fig.subplots(1, 2, width_ratios=[1.3, 1])
    scatter(ax, X, y)
    ax.plot(X[outliers, 0], X[outliers, 1], "o", ms=13, mfc="none", color="0.4",
            label="outliers (+1 moved by +10)")
    boundary(ax, pa, box, color="tab:orange", lw=2, ls="--", label="passive-aggressive")
    boundary(ax, arow, box, color="k", lw=2, label="AROW")
    cross = _crossing(pa)
    if not box[0] <= cross <= box[1]:
        ax.annotate(f"PA's boundary crosses $x^{{(2)}} = 0$ at $x^{{(1)}} = {cross:.1f}$:\n"
                    "it calls every point here "
                    f"{'-1' if pa.predict(X[:1])[0] == -1 else '+1'}",
                    xy=(0.98, 0.97), xycoords="axes fraction", ha="right", va="top",
                    fontsize=8, color="tab:orange",
                    bbox=dict(boxstyle="round", fc="white", ec="tab:orange", alpha=0.9))
    ax.set_xlim(box[:2])
    ax.set_ylim(box[2:])
    ax.set_xlabel("$x^{(1)}$")
    ax.set_ylabel("$x^{(2)}$")
    ax.set_title("One draw (seed 0), as in the book's Fig. 31.8", fontsize=10)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower left", ncol=5,
               fontsize=8)
    ax.grid(alpha=0.3)
    # 200 draws and orders, with and without the two outliers: error on the clean rows
    names = ("passive-aggressive", "AROW")
    errs = {(n, w): [] for n in names for w in (True, False)}
    for seed in range(200):
        Xd, yd = make_outlier_gaussians(n=50, random_state=seed, shuffle=False)
        p = np.random.default_rng(seed).permutation(len(yd))
        keep = np.ones(len(yd), bool)
        keep[outliers] = False
        for with_outliers in (True, False):
            rows = p if with_outliers else p[keep[p]]
            for name, make in zip(names, (lambda: olearn.make("pa2", C=0.5),
                                          lambda: olearn.make("arow", r=1.0))):
                m = make().fit(Xd[rows], yd[rows])
                errs[(name, with_outliers)].append(_clean_error(m, Xd, yd, keep))
    pos = np.arange(2)
    for k, (with_outliers, hatch) in enumerate(((True, ""), (False, "//"))):
        means = [np.mean(errs[(n, with_outliers)]) for n in names]
        stds = [np.std(errs[(n, with_outliers)]) for n in names]
        bars = bx.bar(pos + (k - 0.5) * 0.38, means, 0.36, yerr=[np.minimum(stds, means),
                                                                stds],
                      color=["tab:orange", "0.3"], hatch=hatch, edgecolor="white",
                      capsize=3, label="with the 2 outliers" if with_outliers
                      else "without them")
        for bar, m in zip(bars, means):
            bx.text(bar.get_x() + bar.get_width() / 2, m + 0.01, f"{m:.3f}",
                    ha="center", va="bottom", fontsize=8)
    bx.set_xticks(pos, names)
    bx.set_ylabel("error of the final model on the 48 clean rows")
    bx.set_title("200 draws and orders: mean and std", fontsize=10)
    bx.legend(fontsize=8)
    bx.grid(axis="y", alpha=0.3)
    fig.suptitle("Passive-aggressive against AROW, the seed book's Figs. 31.7/31.8 "
                 "($\lambda = r = 1$, one pass over 50 rows)", fontsize=11)
    fig.savefig(OUT / "pa_vs_arow_outliers.png", dpi=120)


def fig_regret():
    """Regret of OGD (eta_t = 1/sqrt(t), hinge) against the best fixed predictor of each
    prefix, on a fixed noisy stream; the Perceptron for contrast."""
    rng = np.random.default_rng(1)
    n, d = 4000, 5
    w = rng.normal(size=d)
    X = rng.uniform(-1, 1, (n, d))
    y = np.where(X @ w + 0.3 * rng.normal(size=n) > 0, 1, -1)
    learner = "ogd" if "ogd" in olearn.available() else "pa1"
    if learner != "ogd":
        print("  olearn.linear.OGDClassifier is not registered: showing PA-I instead")
    runs = [(regret(olearn.make(learner, schedule="invsqrt", eta=1.0, loss="hinge")
                    if learner == "ogd" else learner, X, y, points=24),
             "OGD, $\\eta_t = 1/\\sqrt{t}$" if learner == "ogd" else "PA-I", "tab:blue"),
            (regret("perceptron", X, y, points=24), "Perceptron", "tab:red")]
    fig = Figure(figsize=(11, 4.4), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    for r, label, c in runs:
        ax.plot(r.t, r.regret, "o-", ms=3, color=c, label=label)
        bx.loglog(r.t, r.average, "o-", ms=3, color=c, label=label)
    r = runs[0][0]
    tt = np.linspace(1, n, 300)
    ax.plot(tt, r.regret[-1] / np.sqrt(n) * np.sqrt(tt), "k--", lw=1,
            label="$c\\sqrt{t}$ through the last OGD point")
    late = r.t >= 100
    bx.loglog(r.t[late], r.average[-1] * np.sqrt(n / r.t[late]), "k--", lw=1,
              label="slope $-1/2$")
    ax.set_xlabel("rows seen  $T$")
    ax.set_ylabel("regret  $R_T$ (hinge loss)")
    ax.set_title("Regret against the best fixed linear predictor of each prefix",
                 fontsize=10)
    bx.set_xlabel("rows seen  $T$")
    bx.set_ylabel("average regret  $R_T / T$")
    bx.set_title("Average regret (log-log)", fontsize=10)
    for a in (ax, bx):
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=8)
    fig.suptitle(f"A fixed stream: {n} rows, {d} uniform features, noisy linear labels; "
                 "comparator by linear programming", fontsize=11)
    fig.savefig(OUT / "regret_ogd.png", dpi=120)


def fig_compare():
    from olearn.datasets import load_breast_cancer
    X, y = load_breast_cancer()
    std = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    res = compare(None, X, y, permutations=20, random_state=0, dataset="breast_cancer")
    print(res)
    res.plot(OUT / "compare_breast_cancer.png")
    res.plot_bars(OUT / "compare_breast_cancer_bars.png")


def fig_compare_a9a():
    from olearn.datasets.registry import DatasetUnavailable, load
    mirror = os.environ.get("OLEARN_DATA_MIRROR") or str(ROOT.parent / "shared" / "data")
    try:
        X, y = load("a9a", mirror=mirror, download=False)
    except DatasetUnavailable as exc:
        print(f"  skipped: {exc}")
        return
    res = compare(None, X, y, permutations=5, random_state=0, dataset="a9a",
                  progress=True)
    print(res)
    res.plot(OUT / "compare_a9a.png")


FIGURES = {"pa": fig_pa, "arow": fig_arow, "regret": fig_regret, "compare": fig_compare,
           "a9a": fig_compare_a9a}


DEFAULT = ("pa", "arow", "regret", "compare")


def main(names):
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or DEFAULT:
        if name not in FIGURES:
            sys.exit(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
        t0 = time.perf_counter()
        print(f"{name} ...", flush=True)
        FIGURES[name]()
        print(f"  {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
