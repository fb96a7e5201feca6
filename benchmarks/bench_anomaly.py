"""Anomaly detection on KDD Cup 1999 ``http`` (issue 41): the exact progressive ROC AUC
of each detector's pre-update scores (every row scored before it is learned, rows in
file order, ``sklearn.metrics.roc_auc_score`` over all rows; the label is read only for
the metric), and the time of the pass.

Data: ``kdd99_http/kdd99_http.csv.gz`` of the data folder (567,498 connections, 3
log-scaled features, 2,211 attacks, label column last), found through
``OLEARN_DATA_MIRROR``.

Detectors: olearn's ``UniclassPA`` (PA, PA-I, PA-II at the defaults C = 1, epsilon =
1; and PA-I over a few radii, marked: a radius picked by this table is picked on the
labels), its ``score_learn`` (one compiled pass); River's ``HalfSpaceTrees`` (defaults,
seed 42) after ``MinMaxScaler``, one dict at a time (``score_one`` then ``learn_one``),
when River is installed and ``--river`` is given a row count (default: all rows).

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


def olearn_rows(X, y):
    from sklearn.metrics import average_precision_score, roc_auc_score

    from olearn.anomaly import UniclassPA
    UniclassPA().score_learn(X[:10])  # (compile outside the timing)
    out = []
    runs = [("PA", 1.0, 1.0, ""), ("PA-I", 1.0, 1.0, ""), ("PA-II", 1.0, 1.0, "")]
    runs += [(v, 1.0, e, " (radius picked on the labels)")
             for e in (0.5, 2.0, 3.0, 4.0, 6.0, 8.0) for v in ("PA", "PA-I", "PA-II")]
    for variant, C, eps, note in runs:
        m = UniclassPA(variant=variant, C=C, epsilon=eps)
        t0 = time.perf_counter()
        s = m.score_learn(X)
        dt = time.perf_counter() - t0
        out.append((f"olearn UniclassPA(variant={variant!r}, C={C:g}, epsilon={eps:g})"
                    + note, roc_auc_score(y, s), average_precision_score(y, s), dt,
                    "one compiled pass (score_learn)"))
    # one dict at a time, River's loop (score_one, then learn_one): the same scores
    rows = [dict(zip(("duration", "src_bytes", "dst_bytes"), map(float, r))) for r in X]
    m = UniclassPA()
    s = np.empty(len(X))
    t0 = time.perf_counter()
    for i, x in enumerate(rows):
        s[i] = m.score_one(x)
        m.learn_one(x)
    dt = time.perf_counter() - t0
    same = np.abs(s - UniclassPA().score_learn(X)).max()
    out.append((f"olearn UniclassPA(variant='PA-I', C=1, epsilon=1), per dict (max "
                f"difference to the compiled pass {same:.1e})", roc_auc_score(y, s),
                average_precision_score(y, s), dt,
                "one dict at a time (score_one, learn_one)"))
    return out


def hst_rows(X, y, names):
    """olearn's HalfSpaceTrees: the compiled pass at the defaults (River's 10 trees of
    height 8, window 250; limits from the first window), the paper's 25 trees of height
    15, longer windows; and the defaults one dict at a time."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    from olearn.anomaly import HalfSpaceTrees
    HalfSpaceTrees().score_learn(X[:300])  # (compile outside the timing)
    out = []
    runs = [({}, ""), ({"n_trees": 25, "height": 15}, " (the paper's trees)"),
            ({"window_size": 1000}, ""), ({"window_size": 5000}, "")]
    for kw, note in runs:
        m = HalfSpaceTrees(**kw)
        t0 = time.perf_counter()
        s = m.score_learn(X)
        dt = time.perf_counter() - t0
        args = ", ".join(f"{k}={v}" for k, v in kw.items()) or "defaults"
        out.append((f"olearn HalfSpaceTrees({args}){note}", roc_auc_score(y, s),
                    average_precision_score(y, s), dt, "one compiled pass (score_learn)"))
    rows = [dict(zip(names, map(float, r))) for r in X]
    m = HalfSpaceTrees()
    s = np.empty(len(X))
    t0 = time.perf_counter()
    for i, x in enumerate(rows):
        s[i] = m.score_one(x)
        m.learn_one(x)
    dt = time.perf_counter() - t0
    same = np.abs(s - HalfSpaceTrees().score_learn(X)).max()
    out.append((f"olearn HalfSpaceTrees(defaults), per dict (max difference to the "
                f"compiled pass {same:.1e})", roc_auc_score(y, s),
                average_precision_score(y, s), dt, "one dict at a time (score_one, learn_one)"))
    return out


def river_ocsvm_rows(X, y, names, n):
    from sklearn.metrics import average_precision_score, roc_auc_score
    try:
        from river import anomaly, preprocessing
    except ImportError:
        return []
    model = preprocessing.StandardScaler() | anomaly.OneClassSVM()
    rows = [dict(zip(names, map(float, r))) for r in X[:n]]
    scores = np.empty(n)
    t0 = time.perf_counter()
    for i, x in enumerate(rows):
        scores[i] = model.score_one(x)
        model.learn_one(x)
    dt = time.perf_counter() - t0
    what = "River StandardScaler \\| OneClassSVM(), defaults"
    if n < len(X):
        what += f" (first {n:,} rows only)"
    return [(what, roc_auc_score(y[:n], scores), average_precision_score(y[:n], scores), dt,
             "one dict at a time (score_one, learn_one)")]


def river_rows(X, y, names, n):
    from sklearn.metrics import average_precision_score, roc_auc_score
    try:
        from river import anomaly, preprocessing
    except ImportError:
        return []
    model = preprocessing.MinMaxScaler() | anomaly.HalfSpaceTrees(seed=42)
    rows = [dict(zip(names, map(float, r))) for r in X[:n]]
    scores = np.empty(n)
    t0 = time.perf_counter()
    for i, x in enumerate(rows):
        scores[i] = model.score_one(x)
        model.learn_one(x)
    dt = time.perf_counter() - t0
    what = "River MinMaxScaler \\| HalfSpaceTrees(seed=42), defaults"
    if n < len(X):
        what += f" (first {n:,} rows only)"
    return [(what, roc_auc_score(y[:n], scores), average_precision_score(y[:n], scores), dt,
             "one dict at a time (score_one, learn_one)")]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "anomaly.md"))
    p.add_argument("--river", type=int, default=-1,
                   help="rows for River's HalfSpaceTrees (-1: all, 0: skip)")
    a = p.parse_args(argv)
    X, y, names = load()
    results = olearn_rows(X, y) + hst_rows(X, y, names)
    n = len(X) if a.river < 0 else min(a.river, len(X))
    if n:
        results += river_rows(X, y, names, n) + river_ocsvm_rows(X, y, names, n)
    import numba
    import sklearn
    try:
        import river
        river_version = river.__version__
    except ImportError:
        river_version = "missing"
    default = next(r for r in results if "'PA-I', C=1, epsilon=1)" in r[0])
    per_dict = next(r for r in results if "per dict" in r[0])
    picked = max((r for r in results if "picked" in r[0]), key=lambda r: r[1])
    river_row = [r for r in results if r[0].startswith("River MinMax")]
    hst = next(r for r in results if r[0] == "olearn HalfSpaceTrees(defaults)")
    hst_dict = next(r for r in results if r[0].startswith("olearn HalfSpaceTrees(defaults), per"))
    best_river = max((r for r in results if r[0].startswith("River")), key=lambda r: r[1],
                     default=None)
    first = (f"KDD99 http, exact progressive ROC AUC (567,498 rows in file order, each "
             f"scored before it is learned): olearn UniclassPA at its defaults (PA-I, C = "
             f"1, epsilon = 1) {default[1]:.4f}"
             + (f"; River MinMaxScaler | HalfSpaceTrees at its defaults "
                f"{river_row[0][1]:.4f}" if river_row else "")
             + f"; olearn HalfSpaceTrees at its defaults {hst[1]:.4f}"
             + (f"; River's best {best_river[1]:.4f}" if best_river else "")
             + f"; UniclassPA with a radius picked on the labels ({picked[0].split('(', 1)[1].split(')')[0]}) "
             f"{picked[1]:.4f}; `{COMMAND}`.")
    lines = [
        first,
        "",
        "# Anomaly detection: KDD Cup 99 http",
        "",
        f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"`{COMMAND}`; {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"scikit-learn {sklearn.__version__}, river {river_version}.",
        "",
        f"{len(X):,} rows, {int(y.sum()):,} attacks; ROC AUC and average precision are "
        "exact (scikit-learn over every row's pre-update score, not River's 10-threshold "
        "approximation).  The features are used as stored (log-scaled); UniclassPA's "
        "centre starts at 0 (the paper's w_1), so the first rows score high.",
        "",
        "| detector | ROC AUC | average precision | seconds | pass |",
        "|---|---|---|---|---|",
    ]
    for what, auc, ap, dt, how in results:
        lines.append(f"| {what} | {auc:.4f} | {ap:.4f} | {dt:.2f} | {how} |")
    if river_row and river_row[0][0].endswith("defaults"):
        lines += ["", f"Time of the whole file: UniclassPA's compiled pass {default[3]:.3f} s, "
                  f"River's per-dict loop {river_row[0][3]:.1f} s "
                  f"({river_row[0][3] / default[3]:,.0f}x); one dict at a time, "
                  f"UniclassPA {per_dict[3]:.1f} s ({river_row[0][3] / per_dict[3]:.1f}x; "
                  "different models: a ball's distance against River's 10 trees).  The radius decides everything here: at "
                  "the default (1, below the spread of the log-scaled rows) the centre "
                  "chases every row and the score is no better than chance; a radius that "
                  "covers the normal traffic leaves the centre still and the attacks far. "
                  "The rows marked \"picked on the labels\" show that dependence; they "
                  "are not a tuned figure.",
                  "",
                  f"Half-Space Trees, same trees as River's defaults (10, height 8, window "
                  f"250): olearn's compiled pass {hst[3]:.2f} s against River's per-dict "
                  f"loop {river_row[0][3]:.1f} s ({river_row[0][3] / hst[3]:,.0f}x); one "
                  f"dict at a time {hst_dict[3]:.1f} s "
                  f"({river_row[0][3] / hst_dict[3]:.1f}x River's).",
                  "",
                  "Why every Half-Space Trees figure here is low (River's and olearn's "
                  "alike, and far from the paper's): in this file the 2,211 attacks come "
                  "in 10 runs, the longest 1,002 and 1,000 consecutive rows, two of 100 "
                  "and 101.  A window of 250 rows inside a run holds nothing but attacks, "
                  "so the next reference profile calls them normal; longer windows help "
                  "(the rows with window_size=1000 and 5000).  Tan, Ting and Liu's "
                  "http stream is not this order: their published data files move the "
                  "anomalies to other parts of the stream (their project page says so), "
                  "so their table is not comparable with a file-order run, and no "
                  "paper figure is set beside these.",
                  "",
                  "River's OneClassSVM row (its best here) scores a row by `w.x - intercept` (river 0.26.1, `anomaly/svm.py`, `score_one`): larger the farther a row lies on the *inlier* side of the one-class hyperplane, the opposite of Schölkopf et al.'s decision (an outlier is a row with `w.x < rho`).  It ranks http's attacks high because they are extreme in magnitude (large byte counts), not because the SVM calls them outliers; a one-class SVM scored by the paper's decision gets an AUC near 0.01-0.05 on this file in a numpy check of ours.  olearn has no one-class SVM yet (issue 41 item 2, not built)."]
    text = "\n".join(lines) + "\n"
    if a.out == "-":
        print(text)
    else:
        Path(a.out).write_text(text)
        print(text)


if __name__ == "__main__":
    main()
