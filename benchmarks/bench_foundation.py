"""Benchmark of the foundation issue: PA-I through olearn against scikit-learn, River and
Vowpal Wabbit, in one process, on the same data.

Data: the seeded sparse stream ``olearn.datasets.make_sparse_stream`` (200,000 rows,
2^18 features, 40 non-zeros a row, labels from a random hyperplane, 5% flipped) and
a9a (../shared/data/a9a/a9a, LIBSVM, 32,561 rows, 123 features).

Measured:

* batch throughput (rows/s) and progressive mistakes: olearn ``predict_learn`` (and
  ``partial_fit``), scikit-learn ``SGDClassifier(learning_rate="pa1").partial_fit`` in one
  call over the whole data, River ``PAClassifier(mode=1)`` (``predict_one`` then
  ``learn_one`` on dicts), Vowpal Wabbit through pyvw (text lines, ``learn``);
* one example at a time on dicts: olearn ``predict_one`` then ``learn_one`` against River;
* start-up: cold compile (fresh ``NUMBA_CACHE_DIR``, a subprocess) and cached start (a
  second subprocess on the same cache): import, then the first ``predict_learn`` on a small
  batch, then the first ``learn_one``/``predict_one`` on a dict.

Timings are the best of ``--repeats`` runs (the median is shown beside it); every run
starts from a fresh model.  Conversions (dicts, VW text) are made before timing.

    python benchmarks/bench_foundation.py            # full run, writes benchmarks/foundation.md
    python benchmarks/bench_foundation.py --quick    # small run, prints only
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _peers  # noqa: E402

A9A = ROOT.parent / "shared" / "data" / "a9a" / "a9a"
TARGETS = {"sklearn": 2.5, "river": 150.0, "river_dict": 2.0}


# ---------------------------------------------------------------- data
def load_a9a(limit=None):
    try:
        from olearn.io import load_libsvm
    except ImportError:
        load_libsvm = None
    if load_libsvm is not None:
        X, y = load_libsvm(A9A, n_features=123)
        how = "olearn.io.load_libsvm"
    else:
        from sklearn.datasets import load_svmlight_file
        X, y = load_svmlight_file(str(A9A), n_features=123)
        how = "sklearn.datasets.load_svmlight_file"
    X = X.tocsr()
    # load_svmlight_file gives int64 indices, which SGDClassifier refuses: int32 for all
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    y = np.where(np.asarray(y, dtype=np.float64) > 0, 1.0, -1.0)
    if limit:
        X, y = X[:limit], y[:limit]
    return X, y, how


def load_stream(n):
    from olearn.datasets import make_sparse_stream
    X, y = make_sparse_stream(n_samples=n, n_features=2**18, nnz=40, flip=0.05,
                              random_state=0)
    return X, y


# ---------------------------------------------------------------- olearn runners
def olearn_model(C):
    from olearn.linear import PAClassifier
    return PAClassifier(C=C, variant="PA-I", fit_intercept=False)


def olearn_predict_learn(X, y, C):
    m = olearn_model(C)
    pred = m.predict_learn(X, y)
    return int(np.sum(pred != y)), m


def olearn_partial_fit(X, y, C):
    return olearn_model(C).partial_fit(X, y)


def olearn_dicts(dicts, labels, C):
    """``predict_one`` then ``learn_one`` on every dict.  A fresh olearn classifier knows
    no classes and refuses to predict, so the first example counts as predicted -1 (what
    the zero model predicts once the classes are (-1, 1), and what River predicts)."""
    m = olearn_model(C)
    predict_one, learn_one = m.predict_one, m.learn_one
    x0, y0 = dicts[0], labels[0]
    mistakes = int(y0 != -1)
    learn_one(x0, y0)
    for i in range(1, len(dicts)):
        x, yi = dicts[i], labels[i]
        if predict_one(x) != yi:
            mistakes += 1
        learn_one(x, yi)
    return mistakes, m


# ---------------------------------------------------------------- one data set
def bench_dataset(name, X, y, C, repeats, bits, dict_repeats, slow_repeats):
    n = X.shape[0]
    res = {"name": name, "rows": n, "features": X.shape[1], "nnz": int(X.nnz), "rows_out": []}
    rows = res["rows_out"]

    def add(label, best, med, mistakes, note="", reps=repeats):
        rows.append({"label": label, "best": best, "median": med, "reps": reps,
                     "rate": n / best, "mistakes": mistakes, "note": note})

    # warm the kernel (compiles or loads from the cache) outside the timing
    olearn_model(C).predict_learn(X[:10], y[:10])

    b, md, (mist, m_ol) = _peers.timed(lambda: olearn_predict_learn(X, y, C), repeats)
    add("olearn PAClassifier.predict_learn", b, md, mist, "exact progressive")
    w_ol = m_ol.coef_[0]
    b, md, _ = _peers.timed(lambda: olearn_partial_fit(X, y, C), repeats)
    add("olearn PAClassifier.partial_fit", b, md, None, "no predictions")

    b, md, m_sk = _peers.timed(lambda: _peers.sklearn_fit_once(X, y, C), repeats)
    mist_sk, _ = _peers.sklearn_progressive_mistakes(X, y, C, batch=1000)
    add("scikit-learn SGDClassifier(pa1).partial_fit", b, md, mist_sk,
        "time: one call; mistakes: each 1,000-row batch predicted before partial_fit")
    res["w_diff_sklearn"] = float(np.max(np.abs(m_sk.coef_[0] - w_ol)))

    dicts = _peers.to_dicts(X)
    y_bool = [bool(v > 0) for v in y]
    b, md, (mist_rv, m_rv) = _peers.timed(
        lambda: _peers.river_progressive(dicts, y_bool, C), slow_repeats)
    add("River PAClassifier(mode=1) predict_one+learn_one", b, md, mist_rv, "dicts",
        slow_repeats)
    w_rv = np.zeros(X.shape[1])
    for k, v in m_rv.weights.items():
        w_rv[k] = v
    res["w_diff_river"] = float(np.max(np.abs(w_rv - w_ol)))
    del m_rv

    lines = _peers.to_vw_lines(X, y)
    b, md, (mist_vw, opts) = _peers.timed(lambda: _peers.vw_progressive(lines, bits),
                                          slow_repeats)
    add("Vowpal Wabbit pyvw learn", b, md, mist_vw, f"text lines; `{opts}`", slow_repeats)
    del lines

    # one example at a time on dicts
    labels = [1 if v > 0 else -1 for v in y]
    one = []
    try:
        b, md, (mist_od, _) = _peers.timed(lambda: olearn_dicts(dicts, labels, C),
                                           dict_repeats)
        one.append({"label": "olearn predict_one+learn_one", "best": b, "median": md,
                    "reps": dict_repeats, "mistakes": mist_od})
    except Exception as exc:  # the dict path is not there yet
        one.append({"label": "olearn predict_one+learn_one", "error": f"{exc!r}"})
    river_row = next(r for r in rows if r["label"].startswith("River"))
    one.append({"label": "River predict_one+learn_one", "best": river_row["best"],
                "median": river_row["median"], "reps": river_row["reps"],
                "mistakes": river_row["mistakes"]})
    res["one"] = one
    return res


# ---------------------------------------------------------------- start-up
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import olearn
from olearn.linear import PAClassifier
t1 = time.perf_counter()
import numpy as np, scipy.sparse as sp
rng = np.random.default_rng(0)
X = sp.random(200, 1000, density=0.02, format="csr", random_state=0)
y = np.where(rng.standard_normal(200) > 0, 1.0, -1.0)
t2 = time.perf_counter()
PAClassifier(C=C_VALUE, variant="PA-I", fit_intercept=False).predict_learn(X, y)
t3 = time.perf_counter()
out = {"import": t1 - t0, "first_predict_learn": t3 - t2}
try:
    m = PAClassifier(C=C_VALUE, variant="PA-I", fit_intercept=False)
    t4 = time.perf_counter()
    m.learn_one({1: 1.0, 7: -2.0}, 1)
    m.predict_one({1: 1.0, 9: 0.5})
    out["first_dict"] = time.perf_counter() - t4
except Exception as exc:
    out["first_dict_error"] = repr(exc)
print(json.dumps(out))
"""


def run_child(cache_dir, C):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("OLEARN_CACHE_DIR", None)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD.replace("C_VALUE", repr(float(C)))],
                          env=env, capture_output=True, text=True, cwd=str(ROOT))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"start-up child failed: {proc.stderr.strip().splitlines()[-1]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process"] = wall
    return out


def bench_startup(C, repeats):
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="olearn-bench-cache-") as d:
            cold.append(run_child(d, C))
            for _ in range(repeats):
                warm.append(run_child(d, C))
    return cold, warm


# ---------------------------------------------------------------- report
def fmt_rate(r):
    return f"{r:,.0f}"


def fmt_mist(m, n):
    return "n/a" if m is None else f"{m:,} ({100.0 * m / n:.2f}%)"


def report(results, startup, args, wall, quick):
    out = []
    cmd = "python benchmarks/bench_foundation.py" + (" --quick" if quick else "")
    if args.repeats != (1 if quick else 3):
        cmd += f" --repeats {args.repeats}"
    out.append("# Foundation benchmark: PA-I against scikit-learn, River and Vowpal Wabbit\n")
    out.append(f"Command (from the repository root, the venv's python): `{cmd}`  ")
    out.append(f"Date: {datetime.date.today().isoformat()}; total wall time {wall:.0f} s  ")
    out.append(f"Machine: {_peers.machine()}  ")
    out.append(f"Load average at the end: {_peers.load_avg()} (a shared 2-core box: "
               "several developers run jobs on it, so absolute times are noisy; the ratios "
               "are measured in one process on the same data, minutes apart)\n")
    out.append(f"Learner: PA-I, C = {args.C}, no intercept, binary labels -1/+1, rows in "
               "file order, every run from a fresh model.  Times: best of N runs (N in the "
               "table; the median beside it), garbage collector off during a run; "
               "building dicts or VW text happens before timing.  `rate` = rows / best "
               "time; `olearn x` = olearn predict_learn's rate / this row's rate.\n")
    checks = []
    for res in results:
        n = res["rows"]
        out.append(f"## {res['name']}: {n:,} rows, {res['features']:,} features, "
                   f"{res['nnz']:,} non-zeros\n")
        out.append("| implementation | N | best s | median s | rows/s | olearn x | "
                   "progressive mistakes | note |")
        out.append("|---|---|---|---|---|---|---|---|")
        base = res["rows_out"][0]["rate"]
        for r in res["rows_out"]:
            out.append(f"| {r['label']} | {r['reps']} | {r['best']:.3f} | {r['median']:.3f} | "
                       f"{fmt_rate(r['rate'])} | {base / r['rate']:.2f} | "
                       f"{fmt_mist(r['mistakes'], n)} | {r['note']} |")
        out.append("")
        out.append(f"Same learner, same order: max |w_olearn - w_sklearn| = "
                   f"{res['w_diff_sklearn']:.2e}, max |w_olearn - w_River| = "
                   f"{res['w_diff_river']:.2e} after the pass (scikit-learn's progressive "
                   "mistakes differ only because it predicts a whole batch before learning "
                   "from it).\n")
        out.append("One example at a time, dicts `{column: value}`:\n")
        out.append("| implementation | N | best s | us/example | examples/s | olearn x | "
                   "progressive mistakes |")
        out.append("|---|---|---|---|---|---|---|")
        ol = res["one"][0]
        for r in res["one"]:
            if "error" in r:
                out.append(f"| {r['label']} | - | - | - | - | - | not run: {r['error']} |")
                continue
            ratio = (f"{r['best'] / ol['best']:.2f}" if "best" in ol else "n/a")
            out.append(f"| {r['label']} | {r['reps']} | {r['best']:.3f} | "
                       f"{1e6 * r['best'] / n:.2f} | {fmt_rate(n / r['best'])} | {ratio} | "
                       f"{fmt_mist(r['mistakes'], n)} |")
        out.append("")
        rates = {r["label"].split()[0]: r["rate"] for r in res["rows_out"][2:]}
        checks.append((res["name"], "predict_learn vs scikit-learn partial_fit",
                       base / rates["scikit-learn"], TARGETS["sklearn"]))
        checks.append((res["name"], "predict_learn vs River", base / rates["River"],
                       TARGETS["river"]))
        if "best" in ol:
            checks.append((res["name"], "dicts: olearn vs River per example",
                           res["one"][1]["best"] / ol["best"], TARGETS["river_dict"]))
    out.append("## Start-up (subprocesses)\n")
    cold, warm = startup
    out.append("Each figure is the best of the runs (N given).  `import` = `import olearn` + "
               "`from olearn.linear import PAClassifier`; `first predict_learn` = the first "
               "call on a 200-row CSR batch; `first dict` = the first `learn_one` + "
               "`predict_one` on dicts (another compiled signature: int64 indices); "
               "`process` = the whole subprocess, interpreter start to exit, seen from "
               "the parent.\n")
    out.append("| start | N | import s | first predict_learn s | first dict s | process s |")
    out.append("|---|---|---|---|---|---|")
    for label, runs in (("cold: fresh NUMBA_CACHE_DIR (compiles)", cold),
                        ("cached: same cache, next process (loads)", warm)):
        def best(key):
            vals = [r[key] for r in runs if key in r]
            return f"{min(vals):.3f}" if vals else "n/a"
        out.append(f"| {label} | {len(runs)} | {best('import')} | "
                   f"{best('first_predict_learn')} | {best('first_dict')} | "
                   f"{best('process')} |")
    out.append("")
    out.append("## Targets\n")
    out.append("| data | comparison | measured | target | |")
    out.append("|---|---|---|---|---|")
    for name, what, got, want in checks:
        out.append(f"| {name} | {what} | {got:.1f}x | {want:g}x | "
                   f"{'met' if got >= want else 'MISSED'} |")
    out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small run (20,000 stream rows, 5,000 a9a rows, 1 repeat); "
                         "prints, writes nothing unless --out is given")
    ap.add_argument("--repeats", type=int, default=None, help="runs per timing (default 3)")
    ap.add_argument("--C", type=float, default=0.1, help="PA-I aggressiveness (default 0.1)")
    ap.add_argument("--out", default=None,
                    help="markdown file to write (default benchmarks/foundation.md on a "
                         "full run)")
    args = ap.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    out = args.out or (None if args.quick else str(HERE / "foundation.md"))
    t0 = time.perf_counter()
    results = []
    n_stream = 20_000 if args.quick else 200_000
    X, y = load_stream(n_stream)
    print(f"stream: {X.shape}, nnz {X.nnz}", flush=True)
    results.append(bench_dataset("Sparse stream (make_sparse_stream, seed 0)", X, y, args.C,
                                 args.repeats, 18, args.repeats, args.repeats))
    del X, y
    print("stream done", flush=True)
    if A9A.exists():
        X, y, how = load_a9a(5_000 if args.quick else None)
        results.append(bench_dataset(f"a9a (../shared/data/a9a/a9a via {how})", X, y, args.C,
                                     max(args.repeats, 5 if not args.quick else 1), 18,
                                     args.repeats, args.repeats))
        print("a9a done", flush=True)
    else:
        print(f"a9a skipped: {A9A} not found", flush=True)
    startup = bench_startup(args.C, max(1, min(args.repeats, 2)))
    text = report(results, startup, args, time.perf_counter() - t0, args.quick)
    print(text)
    if out:
        Path(out).write_text(text + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
