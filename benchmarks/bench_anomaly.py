"""Anomaly detection on KDD Cup 1999 ``http`` (issue 41): the exact progressive ROC AUC
of each detector's pre-update scores (every row scored before it is learned, rows in
file order, ``sklearn.metrics.roc_auc_score`` over all rows; the label is read only for
the metric), and the time of the pass.

Data: ``kdd99_http/kdd99_http.csv.gz`` of the data folder (567,498 connections, 3
log-scaled features, 2,211 attacks, label column last), found through
``OLEARN_DATA_MIRROR``.

Detectors: olearn's ``OneClassSVM``, ``Loda``, ``HalfSpaceTrees`` and ``UniclassPA``
at their defaults, each by ``score_learn`` (one compiled pass) and one dict at a time
(``score_one`` then ``learn_one``), then one varied choice per row; River's
``HalfSpaceTrees`` after ``MinMaxScaler`` and ``OneClassSVM`` after ``StandardScaler``,
one dict at a time, in the same run, when River is installed and ``--river`` is not 0.

    python benchmarks/bench_anomaly.py              # writes benchmarks/anomaly.md
    python benchmarks/bench_anomaly.py --out -      # prints only
    python benchmarks/bench_anomaly.py --river 0    # without River
"""
import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMMAND = "python benchmarks/bench_anomaly.py"


def load():
    import gzip
    mirror = Path(os.environ.get("OLEARN_DATA_MIRROR", ROOT / "data"))
    with gzip.open(mirror / "kdd99_http" / "kdd99_http.csv.gz", "rt") as f:
        names = f.readline().strip().split(",")
        data = np.loadtxt(f, delimiter=",", dtype=np.float64)
    X = np.ascontiguousarray(data[:, :-1])
    y = data[:, -1].astype(int)
    return X, y, names[:-1]


def _metrics(y, s):
    from sklearn.metrics import average_precision_score, roc_auc_score
    return roc_auc_score(y, s), average_precision_score(y, s)


def compiled(make, what, X, y, note=""):
    """One compiled pass (``score_learn``) of a fresh ``make()``, timed."""
    make().score_learn(X[:2000])  # (compile outside the timing)
    m = make()
    t0 = time.perf_counter()
    s = m.score_learn(X)
    dt = time.perf_counter() - t0
    return (f"olearn {what}{note}", *_metrics(y, s), dt, "one compiled pass (score_learn)")


def per_dict(make, what, X, y, names, fused=False):
    """River's loop, one dict at a time (``score_one``, then ``learn_one``; ``fused``:
    olearn's one call ``predict_learn_one(x, return_scores=True)``, the same score
    before the same update), and the largest difference to the compiled pass's
    scores."""
    rows = [dict(zip(names, map(float, r))) for r in X]
    warm = make()  # (the one-example kernels compiled or loaded outside the timing)
    for x in rows[:500]:
        warm.score_one(x)
        warm.learn_one(x)
        warm.predict_learn_one(x, return_scores=True)
    m = make()
    s = np.empty(len(X))
    t0 = time.perf_counter()
    if fused:
        for i, x in enumerate(rows):
            s[i] = m.predict_learn_one(x, return_scores=True)[0]
    else:
        for i, x in enumerate(rows):
            s[i] = m.score_one(x)
            m.learn_one(x)
    dt = time.perf_counter() - t0
    same = np.abs(s - make().score_learn(X)).max()
    how = ("one dict at a time, one call (predict_learn_one)" if fused else
           "one dict at a time (score_one, learn_one)")
    return (f"olearn {what}, per dict{', fused' if fused else ''} (max difference to the "
            f"compiled pass {same:.1e})", *_metrics(y, s), dt, how)


def olearn_rows(X, y, names):
    """Every olearn detector at its defaults (compiled and per dict), then the rows
    that show what a parameter does (marked where it was picked on the labels)."""
    from olearn.anomaly import HalfSpaceTrees, Loda, OneClassSVM, UniclassPA
    d = X.shape[1]
    out = [compiled(OneClassSVM, "OneClassSVM(defaults)", X, y),
           compiled(Loda, "Loda(defaults)", X, y),
           compiled(HalfSpaceTrees, "HalfSpaceTrees(defaults)", X, y),
           compiled(UniclassPA, "UniclassPA(defaults)", X, y)]
    for make, what in ((OneClassSVM, "OneClassSVM(defaults)"), (Loda, "Loda(defaults)"),
                       (HalfSpaceTrees, "HalfSpaceTrees(defaults)"),
                       (UniclassPA, "UniclassPA(defaults)")):
        out.append(per_dict(make, what, X, y, names))
        out.append(per_dict(make, what, X, y, names, fused=True))
    runs = [
        (OneClassSVM, {"gamma": 1.0 / d}, " (gamma = 1/n_features, scikit-learn's 'auto')"),
        (OneClassSVM, {"learning_rate": "constant"}, " (River's constant step 0.01)"),
        (OneClassSVM, {"n_components": None}, " (a hyperplane: no feature map)"),
        (OneClassSVM, {"n_components": None, "learning_rate": "constant"},
         " (River's model and steps, scored by the paper's decision)"),
        (Loda, {"window_size": 1000}, ""),
        (Loda, {"n_bins": 16}, " (sqrt(window_size) bins)"),
        (HalfSpaceTrees, {"n_trees": 25, "height": 15}, " (the paper's trees)"),
        (HalfSpaceTrees, {"window_size": 1000}, ""),
        (HalfSpaceTrees, {"window_size": 5000}, ""),
        (UniclassPA, {"variant": "PA"}, ""),
        (UniclassPA, {"variant": "PA-II"}, ""),
    ]
    runs += [(UniclassPA, {"epsilon": None, "B": B}, " (learned radius, bound B)")
             for B in (4.0, 16.0, 64.0)]
    runs += [(UniclassPA, {"epsilon": e}, " (radius picked on the labels)")
             for e in (0.5, 2.0, 4.0, 8.0)]
    for make, kw, note in runs:
        args = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v:g}"
                         if isinstance(v, float) else f"{k}={v}" for k, v in kw.items())
        out.append(compiled(lambda: make(**kw), f"{make.__name__}({args})", X, y, note))
    return out


def river_rows(X, y, names, n):
    """River's HalfSpaceTrees after MinMaxScaler and OneClassSVM after StandardScaler
    (the pipelines of River's documentation), defaults, one dict at a time."""
    try:
        from river import anomaly, preprocessing
    except ImportError:
        return []
    out = []
    for what, model in (
            ("River MinMaxScaler \\| HalfSpaceTrees(seed=42), defaults",
             preprocessing.MinMaxScaler() | anomaly.HalfSpaceTrees(seed=42)),
            ("River StandardScaler \\| OneClassSVM(), defaults",
             preprocessing.StandardScaler() | anomaly.OneClassSVM())):
        rows = [dict(zip(names, map(float, r))) for r in X[:n]]
        scores = np.empty(n)
        t0 = time.perf_counter()
        for i, x in enumerate(rows):
            scores[i] = model.score_one(x)
            model.learn_one(x)
        dt = time.perf_counter() - t0
        if n < len(X):
            what += f" (first {n:,} rows only)"
        out.append((what, *_metrics(y[:n], scores), dt,
                    "one dict at a time (score_one, learn_one)"))
    return out


def _find(results, prefix):
    return next((r for r in results if r[0].startswith(prefix)), None)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "anomaly.md"))
    p.add_argument("--river", type=int, default=-1,
                   help="rows for River's detectors (-1: all, 0: skip)")
    a = p.parse_args(argv)
    X, y, names = load()
    results = olearn_rows(X, y, names)
    n = len(X) if a.river < 0 else min(a.river, len(X))
    if n:
        results += river_rows(X, y, names, n)
    import numba
    import sklearn
    try:
        import river
        river_version = river.__version__
    except ImportError:
        river_version = "missing"
    detectors = ("OneClassSVM", "Loda", "HalfSpaceTrees", "UniclassPA")
    at_defaults = [_find(results, f"olearn {d}(defaults)") for d in detectors]
    best = max(at_defaults, key=lambda r: r[1])
    rivers = [r for r in results if r[0].startswith("River")]
    best_river = max(rivers, key=lambda r: r[1], default=None)
    first = ("KDD99 http, exact progressive ROC AUC at defaults (567,498 rows in file "
             "order, each scored before it is learned): "
             + "; ".join(f"olearn {d} {r[1]:.4f} (AP {r[2]:.4f})"
                         for d, r in zip(detectors, at_defaults))
             + "".join(f"; {r[0].split(',')[0].replace(chr(92), '')} {r[1]:.4f} "
                       f"(AP {r[2]:.4f})" for r in rivers)
             + (f"; target best olearn >= River's best and >= 0.95: {best[1]:.4f} vs "
                f"{best_river[1]:.4f}, "
                + ("hit" if best[1] >= max(best_river[1], 0.95) else "missed")
                if best_river else "")
             + f"; `{COMMAND}`.")
    lines = [
        first,
        "",
        "# Anomaly detection: KDD Cup 99 http",
        "",
        f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"`{COMMAND}`; {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"scikit-learn {sklearn.__version__}, river {river_version}.  Timings on a "
        "machine shared with other jobs: ratios within one run only.",
        "",
        f"{len(X):,} rows, {int(y.sum()):,} attacks; ROC AUC and average precision are "
        "exact (scikit-learn over every row's pre-update score, not River's 10-threshold "
        "approximation).  The features are used as stored (log-scaled) by olearn's "
        "detectors (HalfSpaceTrees learns its limits and Loda its bins from the first "
        "window; OneClassSVM and UniclassPA take the rows as they are); River's "
        "pipelines scale as its documentation does.",
        "",
        "| detector | ROC AUC | average precision | seconds | pass |",
        "|---|---|---|---|---|",
    ]
    for what, auc, ap, dt, how in results:
        lines.append(f"| {what} | {auc:.4f} | {ap:.4f} | {dt:.2f} | {how} |")
    river_hst = _find(results, "River MinMax")
    river_svm = _find(results, "River StandardScaler")
    if river_hst and river_svm and n == len(X):
        lines += ["", "## Speed against River (whole file, same run)", "",
                  "| olearn detector | pass | seconds | River HalfSpaceTrees / it | "
                  "River OneClassSVM / it |", "|---|---|---|---|---|"]
        for d in detectors:
            for how, r in (("compiled", _find(results, f"olearn {d}(defaults)")),
                           ("per dict", _find(results, f"olearn {d}(defaults), per dict (")),
                           ("per dict, one call",
                            _find(results, f"olearn {d}(defaults), per dict, fused"))):
                lines.append(f"| {d} | {how} | {r[3]:.2f} | {river_hst[3] / r[3]:,.1f}x | "
                             f"{river_svm[3] / r[3]:,.1f}x |")
        lines += ["", "Targets: one dict at a time at least 10x River's HalfSpaceTrees "
                  "and OneClassSVM; the compiled pass at least 100x River's per-row "
                  "loop.  A ratio below its target above is a miss."]
    lines += [
        "",
        "## Reading the table",
        "",
        "Defaults are the methods', not picked on these labels.  OneClassSVM: nu = 0.1 "
        "(River's), 100 random Fourier features with gamma = 1 (scikit-learn's "
        "RBFSampler), Pegasos's step 1/(nu t), the step its objective's strong convexity "
        "in w gives.  Loda: 100 projections (the paper's order of magnitude), 10 bins "
        "over the first 256 rows' span, one pseudo-row per bin.  The rows under them "
        "vary one choice each, label-free too, except those marked \"picked on the "
        "labels\", which show how much UniclassPA's fixed radius decides (at the default "
        "1 the centre chases every row).  UniclassPA's learned radius needs only an "
        "upper bound B: it grows from 0 and stops below a loose bound (the learned radius "
        "is about 12-15 with B = 16 or 64 here).",
        "",
        "Why Half-Space Trees is low here (River's and olearn's alike): the 2,211 attacks "
        "come in 10 runs, the longest 1,002 and 1,000 consecutive rows.  A window of 250 "
        "rows inside a run holds nothing but attacks, so the next reference profile calls "
        "them normal; longer windows help.  Tan, Ting and Liu's http stream is not this "
        "order (their published files move the anomalies), so their table is not "
        "comparable with a file-order run.  Loda's histograms and OneClassSVM's Pegasos "
        "step forget nothing, so a run of 1,000 attacks stays rare against 200,000 "
        "normal rows.",
        "",
        "River's OneClassSVM row: its `score_one` returns `w.x` (river 0.26.1, "
        "`anomaly/svm.py`: the raw margin `w.x + b` minus `b`), larger the farther a row "
        "lies on the *inlier* side of its hyperplane, the opposite of Schoelkopf et al.'s "
        "decision; it ranks http's attacks high because they are extreme in magnitude.  "
        "olearn's OneClassSVM scores by the paper's decision `rho - w.z(x)`: without a "
        "feature map (the hyperplane rows) that ranks the attacks last, as the paper's "
        "model on these rows should; with the RBF feature map it is the best detector "
        "here.",
    ]
    text = "\n".join(lines) + "\n"
    if a.out == "-":
        print(text)
    else:
        Path(a.out).write_text(text)
        print(text)


if __name__ == "__main__":
    main()
