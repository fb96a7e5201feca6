"""Benchmark of the "Core 2.0" issue: the compiled driver against a hand-written loop, one
example at a time against River, per-call costs on a wide model, start-up, intercept
defaults on news20, and the duplicate-code count.

Every comparison runs in this one process, on the same arrays, with the compile excluded
(each kernel is warmed up first); timings are the best of N runs of CPU time
(``time.process_time``; the box is shared) with the wall time beside it, and every table
gives ratios, not only seconds.  Sections (``--only`` picks some; the others already in
the results file are kept as they are):

* ``driver``: PA-I (C = 1) ``partial_fit`` on the seeded sparse stream against a
  hand-written ``@njit`` loop of the same rule over the same CSR arrays (weights checked
  equal), and olearn against scikit-learn's ``SGDClassifier.partial_fit`` for the
  learners both have (perceptron, PA-I, OGD hinge and logistic);
* ``one``: ``predict_one`` + ``learn_one`` (and the fused ``predict_learn_one`` where the
  model has it) on dicts against River's ``PAClassifier(C=1, mode=1)``: a9a, the sparse
  stream and news20 (binary: newsgroups 1-10 against 11-20), first rows only;
* ``percall``: ``learn_one`` and ``predict_one`` on a model with 10^6 features, rows of 20
  non-zeros: OGD ``alpha=0`` vs ``1e-4``, PA ``average=False`` vs ``True``;
* ``startup``: ``import numpy, scipy.sparse, numba`` vs ``olearn train heart_scale --algo
  pa1`` (cached) vs ``olearn train missing.svm``, fresh subprocesses;
* ``intercept``: progressive error of one pass (seed-0 order) with the intercept as a
  constant column c = 1 and c = 0.1, for PA-I, perceptron, ALMA, ROMMA, OGD, COCOB, NDAG,
  AROW, SCW on news20 (rows L2-normalised), a9a, w8a, ijcnn1;
* ``rules``: PA-I on news20 (rows L2-normalised, one permutation, seed 0) with the
  constant 1 (the default before), without intercept, and candidate intercept rules,
  against scikit-learn's PA one-vs-rest; the same candidates on LIBOL's ijcnn1, a9a, w8a
  (20 orders each);
* ``defaults``: news20 (rows L2-normalised, three orders, chunks of 100) with every
  model's defaults: olearn's PA-I, native and one-vs-rest (classes discovered or
  declared), against scikit-learn's PA-I one-vs-rest;
* ``duplicates``: pairs reported by ``duplicates --repo olearn --most 200`` now and at
  commit 602b400 (round 1).

Data: ``$OLEARN_DATA_MIRROR`` or ``../shared/data`` (a data set that is absent is skipped);
peers that are not installed give "n/a".

    python benchmarks/bench_core.py                    # everything, writes benchmarks/core.md
    python benchmarks/bench_core.py --only driver,one  # those sections only (others kept)
    python benchmarks/bench_core.py --quick --out -    # small run, prints only
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numba import njit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _peers  # noqa: E402

SECTIONS = ("driver", "one", "percall", "startup", "intercept", "rules", "defaults",
            "duplicates")
TITLES = {"driver": "1. Driver vs hand-written loop; olearn vs scikit-learn",
          "one": "2. One example at a time vs River",
          "percall": "3. Per-call costs at d = 10^6",
          "startup": "4. Start-up",
          "intercept": "5. Intercept constant c = 1 vs 0.1, every linear and second-order "
                       "classifier (news20, a9a, w8a, ijcnn1)",
          "rules": "5b. Intercept rules, PA-I (news20 vs scikit-learn; LIBOL's binary sets)",
          "defaults": "5c. news20 with the defaults against scikit-learn",
          "duplicates": "6. Duplicated code"}
NOTES = "<!-- notes: kept as they are when the script rewrites the tables above -->"
SUMMARY = "<!-- targets: hand-written summary, kept as it is when the script rewrites -->"
BEFORE_COMMIT = "602b400"
TARGETS = {"driver": 0.90, "one": 2.0, "fused": 3.0, "startup": 1.5}


# ---------------------------------------------------------------- data
def data_root():
    root = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
    return root if root.is_absolute() else (ROOT / root).resolve()


def _csr32(X):
    X = sp.csr_matrix(X)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def load_set(name):
    """(X, y) of a data set of the mirror, or None when its files are absent.  Binary
    sets get labels -1/+1; news20 keeps its labels 1..20."""
    from olearn.io import load_libsvm
    files = {"a9a": (["a9a/a9a", "a9a/a9a.t"], 123),
             "w8a": (["w8a/w8a"], 300),
             "ijcnn1": (["ijcnn1/ijcnn1.trn.bz2", "ijcnn1/ijcnn1.tst.bz2"], 22),
             "news20": (["news20/news20.converted.bz2"], None),
             "heart_scale": (["heart_scale/heart_scale"], 13)}[name]
    paths = [data_root() / f for f in files[0]]
    if not paths[0].exists():
        return None
    parts = [load_libsvm(p, n_features=files[1]) for p in paths if p.exists()]
    X = _csr32(sp.vstack([p[0] for p in parts], format="csr"))
    y = np.concatenate([np.asarray(p[1], dtype=np.float64) for p in parts])
    if name != "news20":
        y = np.where(y > 0, 1.0, -1.0)
    return X, y


def load_stream(n):
    from olearn.datasets import make_sparse_stream
    return make_sparse_stream(n_samples=n, n_features=2**18, nnz=40, flip=0.05,
                              random_state=0)


def normalize_rows(X):
    X = _csr32(X).copy()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    X.data /= np.repeat(norms, np.diff(X.indptr))
    return X


# ---------------------------------------------------------------- hand-written loops
@njit(cache=False)
def hand_pa1(indptr, indices, data, y, d, C, c):
    """PA-I, binary, one pass, written out: olearn's rule with the intercept as a
    constant feature of value ``c`` inside the norm (``c = 0``: no intercept).  Returns
    (w, intercept, n_updates); the intercept is ``c`` times the constant's weight, as
    olearn's ``intercept_``."""
    w = np.zeros(d)
    b = 0.0
    updates = 0
    for i in range(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        s = b * c
        sq = c * c
        for j in range(lo, hi):
            s += w[indices[j]] * data[j]
            sq += data[j] * data[j]
        loss = 1.0 - y[i] * s
        if loss > 0.0 and sq > 0.0:
            step = min(C, loss / sq) * y[i]
            for j in range(lo, hi):
                w[indices[j]] += step * data[j]
            b += step * c
            updates += 1
    return w, b * c, updates


@njit(cache=False)
def hand_pa_general(indptr, indices, data, yk, K, mode, C, nb, g):
    """PA-I progressive pass with a configurable intercept (the candidates of section 5b).

    ``mode`` 0: binary (``yk`` in {-1, +1}, K = 1); 1: multiclass max-score (``yk`` the
    class index); 2: one-vs-rest (K binary models); 3: one-vs-rest with every class
    known from the first row (scikit-learn's layout when ``classes=`` is given).  The
    intercept ``b`` adds to each score; ``nb`` is what it adds to ``||x||^2`` and ``g``
    the factor of its step:

    * ``nb = 0, g = 0``: no intercept;
    * ``nb = 1, g = 1``: a constant feature 1 (olearn's default before 0.1);
    * ``nb = c^2, g = c^2``: a constant feature c (liblinear's intercept_scaling);
    * ``nb = 0, g = 1``: intercept outside the norm (River; SOL's bias_eta = 1);
    * ``nb = 0, g = 0.01``: scikit-learn's SGD on sparse input (intercept decay 0.01).

    Classes follow olearn: the prediction is the arg-max over the classes seen before
    the row (lowest index on ties; 0 when none), a class takes part in updates once
    seen, and (one-vs-rest) class k's model learns from the first row of class k on.
    Returns the number of mistakes.
    """
    W = np.zeros((K, max(1, int(indices.max()) + 1) if indices.shape[0] else 1))
    b = np.zeros(K)
    seen = np.zeros(K, dtype=np.uint8)
    if mode == 3:
        seen[:] = 1
    sc = np.zeros(K)
    mistakes = 0
    for i in range(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        sq = nb
        for j in range(lo, hi):
            sq += data[j] * data[j]
        for k in range(K):
            s = b[k]
            for j in range(lo, hi):
                s += W[k, indices[j]] * data[j]
            sc[k] = s
        if mode == 0:
            y = yk[i]
            if (1.0 if sc[0] > 0.0 else -1.0) != y:
                mistakes += 1
            loss = 1.0 - y * sc[0]
            if loss > 0.0 and sq > 0.0:
                step = min(C, loss / sq) * y
                for j in range(lo, hi):
                    W[0, indices[j]] += step * data[j]
                b[0] += step * g
            continue
        yi = int(yk[i])
        best = -1
        for k in range(K):
            if seen[k] and (best < 0 or sc[k] > sc[best]):
                best = k
        if best < 0:
            best = 0
        if best != yi:
            mistakes += 1
        seen[yi] = 1
        if sq <= 0.0:
            continue
        if mode == 1:
            s_ = -1
            for k in range(K):
                if k != yi and seen[k] and (s_ < 0 or sc[k] > sc[s_]):
                    s_ = k
            if s_ < 0:
                continue
            loss = 1.0 - (sc[yi] - sc[s_])
            if loss <= 0.0:
                continue
            tau = min(C, loss / (2.0 * sq))
            for j in range(lo, hi):
                W[yi, indices[j]] += tau * data[j]
                W[s_, indices[j]] -= tau * data[j]
            b[yi] += tau * g
            b[s_] -= tau * g
        else:
            for k in range(K):
                if not seen[k]:
                    continue
                y = 1.0 if k == yi else -1.0
                loss = 1.0 - y * sc[k]
                if loss > 0.0:
                    step = min(C, loss / sq) * y
                    for j in range(lo, hi):
                        W[k, indices[j]] += step * data[j]
                    b[k] += step * g
    return mistakes


# ---------------------------------------------------------------- helpers
def timed(fn, reps):
    t = _peers.timed(fn, reps)
    return t


def fmt_rate(n, sec):
    return f"{n / sec:,.0f}" if sec else "n/a"


def met(got, want, higher=True):
    ok = got >= want if higher else got <= want
    return "met" if ok else "missed"


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


# ---------------------------------------------------------------- 1. driver
def section_driver(args):
    from olearn.linear import OGDClassifier, PAClassifier, Perceptron
    n = 20_000 if args.quick else args.rows
    X, y = load_stream(n)
    d = X.shape[1]
    ip, ix, dv = X.indptr, X.indices, X.data
    out = [f"Data: `make_sparse_stream(n_samples={n:,}, n_features=2**18, nnz=40, flip=0.05, "
           f"random_state=0)` ({X.nnz:,} non-zeros), one pass in row order, a fresh model "
           f"each run, best of {args.repeats} (CPU s).  The hand-written loop "
           "(`hand_pa1` in this file: score, hinge loss, `tau = min(C, loss / ||x||^2)`, "
           "`w += tau y x`; with the intercept a constant feature c inside the norm, c = "
           "olearn's `intercept_scaling`, read from the model: 0.1, PA's default) "
           "reads the same CSR arrays; olearn's time "
           "includes its input checks (its driver adds the constant per row, no copy of "
           "the batch).\n",
           "| learner | implementation | N | best CPU s | best wall s | rows/s | "
           "hand-written / this (rows/s ratio) | max \\|w - w_hand\\| | target | |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    hand_pa1(ip[:3], ix[:ip[2]], dv[:ip[2]], y[:2], d, 1.0, 1.0)  # compile
    for fi in (False, True):
        m0 = PAClassifier(C=1.0, variant="PA-I", fit_intercept=fi)
        c = float(m0.intercept_scaling) if fi else 0.0
        label = (f"PA-I, C=1, fit_intercept={fi}"
                 + (f" (constant c = {c:g}, the default)" if fi else ""))
        m0.partial_fit(X[:10], y[:10])
        th = timed(lambda: hand_pa1(ip, ix, dv, y, d, 1.0, c), args.repeats)
        w_h, b_h, _ = th["result"]
        runs = [("hand-written @njit loop", th, 0.0)]
        for how in ("partial_fit", "predict_learn"):
            def go(how=how):
                m = PAClassifier(C=1.0, variant="PA-I", fit_intercept=fi)
                if how == "partial_fit":
                    m.partial_fit(X, y)
                else:
                    m.predict_learn(X, y)
                return m
            t = timed(go, args.repeats)
            m = t["result"]
            diff = float(max(np.max(np.abs(m.coef_[0] - w_h)), abs(m.intercept_[0] - b_h)))
            runs.append((f"olearn PAClassifier.{how}", t, diff))
        for what, t, diff in runs:
            ratio = th["cpu"] / t["cpu"]
            tgt = "" if what.startswith("hand") else f">= {TARGETS['driver']:.2f}"
            ok = "" if not tgt else met(ratio, TARGETS["driver"])
            out.append(f"| {label} | {what} | {t['reps']} | {t['cpu']:.4f} | {t['wall']:.4f} "
                       f"| {fmt_rate(n, t['cpu'])} | {ratio:.2f} | {diff:.1e} | {tgt} | {ok} |")
    out.append("")
    out.append("Ratio: the hand-written loop's CPU time divided by this row's (1.00 = as "
               "fast; the issue's target is olearn within 10%, i.e. >= 0.90).\n")

    # olearn vs scikit-learn
    out.append("olearn against scikit-learn on the same data (one `partial_fit` call over "
               "all rows each, no intercept, no regularisation, `shuffle=False`; scikit-learn "
               "through `SGDClassifier`, since `PassiveAggressiveClassifier` is deprecated in "
               "1.8):\n")
    out.append("| learner | olearn | scikit-learn | N | olearn CPU s | scikit-learn CPU s | "
               "olearn rows/s | scikit-learn rows/s | olearn x | max \\|w_olearn - w_sk\\| |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    if not have("sklearn"):
        out.append("| all | | scikit-learn not installed | | | | | | n/a | |")
        return "\n".join(out) + "\n"
    from sklearn.linear_model import SGDClassifier
    pairs = [
        ("perceptron", "`Perceptron(eta=1)`",
         lambda: Perceptron(eta=1.0, fit_intercept=False),
         "`SGDClassifier(loss='perceptron', learning_rate='constant', eta0=1)`",
         lambda: SGDClassifier(loss="perceptron", penalty=None, learning_rate="constant",
                               eta0=1.0, fit_intercept=False, shuffle=False)),
        ("PA-I, C=1", "`PAClassifier(C=1)`",
         lambda: PAClassifier(C=1.0, variant="PA-I", fit_intercept=False),
         "`SGDClassifier(loss='hinge', learning_rate='pa1', eta0=1)`",
         lambda: SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0,
                               fit_intercept=False, shuffle=False)),
        ("OGD hinge, constant step 0.01", "`OGDClassifier(loss='hinge', schedule='constant', "
         "eta=0.01)`",
         lambda: OGDClassifier(loss="hinge", eta=0.01, schedule="constant",
                               fit_intercept=False),
         "`SGDClassifier(loss='hinge', learning_rate='constant', eta0=0.01)`",
         lambda: SGDClassifier(loss="hinge", penalty=None, learning_rate="constant",
                               eta0=0.01, fit_intercept=False, shuffle=False)),
        ("OGD logistic, constant step 0.01", "`OGDClassifier(loss='logistic', "
         "schedule='constant', eta=0.01)`",
         lambda: OGDClassifier(loss="logistic", eta=0.01, schedule="constant",
                               fit_intercept=False),
         "`SGDClassifier(loss='log_loss', learning_rate='constant', eta0=0.01)`",
         lambda: SGDClassifier(loss="log_loss", penalty=None, learning_rate="constant",
                               eta0=0.01, fit_intercept=False, shuffle=False)),
    ]
    classes = np.array([-1.0, 1.0])
    for label, oname, ofac, sname, sfac in pairs:
        ofac().partial_fit(X[:10], y[:10])
        sfac().partial_fit(X[:10], y[:10], classes=classes)
        to = timed(lambda: ofac().partial_fit(X, y), args.repeats)
        ts = timed(lambda: sfac().partial_fit(X, y, classes=classes), args.repeats)
        diff = float(np.max(np.abs(to["result"].coef_[0] - ts["result"].coef_[0])))
        out.append(f"| {label} | {oname} | {sname} | {to['reps']} | {to['cpu']:.4f} | "
                   f"{ts['cpu']:.4f} | {fmt_rate(n, to['cpu'])} | {fmt_rate(n, ts['cpu'])} | "
                   f"{ts['cpu'] / to['cpu']:.2f} | {diff:.1e} |")
    out.append("")
    out.append("`olearn x` = scikit-learn's CPU time / olearn's (> 1: olearn faster).  "
               "A weight difference near 0 says both ran the same learner.\n")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 2. one at a time
def _olearn_plain(dicts, labels):
    from olearn.linear import PAClassifier
    m = PAClassifier(C=1.0, variant="PA-I")
    predict_one, learn_one = m.predict_one, m.learn_one
    mistakes = int(labels[0] != -1)  # a fresh classifier cannot predict: count -1
    learn_one(dicts[0], labels[0])
    for i in range(1, len(dicts)):
        x, yi = dicts[i], labels[i]
        if predict_one(x) != yi:
            mistakes += 1
        learn_one(x, yi)
    return mistakes


def _olearn_fused(dicts, labels):
    from olearn.linear import PAClassifier
    m = PAClassifier(C=1.0, variant="PA-I")
    fused = m.predict_learn_one
    mistakes = 0
    for x, yi in zip(dicts, labels):
        p = fused(x, yi)
        if p is None or p != yi:
            mistakes += 1
    return mistakes


def _river(dicts, y_bool):
    from river import linear_model
    m = linear_model.PAClassifier(C=1.0, mode=1)
    predict_one, learn_one = m.predict_one, m.learn_one
    mistakes = 0
    for x, yi in zip(dicts, y_bool):
        if predict_one(x) != yi:
            mistakes += 1
        learn_one(x, yi)
    return mistakes


def section_one(args):
    from olearn.linear import PAClassifier
    rows = 2_000 if args.quick else args.one_rows
    sets = []
    a9a = load_set("a9a")
    if a9a is not None:
        X, y = a9a
        lim = 2_000 if args.quick else 32_561
        sets.append((f"a9a (first {min(lim, X.shape[0]):,} rows: the training file)",
                     X[:lim], y[:lim]))
    X, y = load_stream(rows)
    sets.append((f"sparse stream (first {rows:,} rows)", X, y))
    news = load_set("news20")
    if news is not None:
        X, y = news
        sets.append((f"news20 (first {rows:,} rows, binary: groups 1-10 = +1)",
                     X[:rows], np.where(y[:rows] <= 10, 1.0, -1.0)))
    fused_ok = hasattr(PAClassifier(), "predict_learn_one")
    river_ok = have("river")
    out = ["Dicts `{column index: value}` built before timing; progressive: predict, then "
           "learn, each example in order.  olearn `PAClassifier(C=1, variant='PA-I')` and "
           "River `PAClassifier(C=1, mode=1)`, both with their default intercept (River's "
           "is outside the norm with the full step, olearn's a constant feature 0.1 inside "
           f"it, so the mistakes differ).  Best of {args.slow_repeats} (CPU).  `x River` = River's "
           "time per example / olearn's.\n",
           "| data | implementation | N | us/example (CPU) | best wall s | examples/s | "
           "x River | mistakes | target | |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name, X, y in sets:
        n = X.shape[0]
        dicts = _peers.to_dicts(X)
        labels = [1 if v > 0 else -1 for v in y]
        y_bool = [v > 0 for v in y]
        _olearn_plain(dicts[:5], labels[:5])
        rv = timed(lambda: _river(dicts, y_bool), args.slow_repeats) if river_ok else None
        pl = timed(lambda: _olearn_plain(dicts, labels), args.slow_repeats)
        fu = None
        if fused_ok:
            _olearn_fused(dicts[:5], labels[:5])
            fu = timed(lambda: _olearn_fused(dicts, labels), args.slow_repeats)
        for what, t, tgt in (("River predict_one + learn_one", rv, None),
                             ("olearn predict_one + learn_one", pl, TARGETS["one"]),
                             ("olearn predict_learn_one (fused)", fu, TARGETS["fused"])):
            if t is None:
                why = "River not installed" if what.startswith("River") else \
                    "n/a: no `predict_learn_one`"
                out.append(f"| {name} | {what} | - | - | - | - | n/a | {why} | "
                           f"{'' if tgt is None else f'>= {tgt:g}x'} | |")
                continue
            ratio = rv["cpu"] / t["cpu"] if rv is not None else None
            rs = "n/a" if ratio is None else f"{ratio:.2f}"
            ok = "" if tgt is None or ratio is None else met(ratio, tgt)
            out.append(f"| {name} | {what} | {t['reps']} | {1e6 * t['cpu'] / n:.2f} | "
                       f"{t['wall']:.3f} | {fmt_rate(n, t['cpu'])} | {rs} | "
                       f"{t['result']:,} ({100.0 * t['result'] / n:.2f}%) | "
                       f"{'' if tgt is None else f'>= {tgt:g}x'} | {ok} |")
    out.append("")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 3. per call at d = 1e6
def _per_call(fn, items, budget=0.4, cap=2000):
    """Best-of-3 CPU microseconds per call of ``fn`` over ``items`` (as many as fit in
    about ``budget`` seconds, at least 20)."""
    import time as _t
    c0 = _t.process_time()
    for x in items[:20]:
        fn(x)
    per = max((_t.process_time() - c0) / 20, 1e-7)
    n = int(min(cap, max(20, budget / per)))
    best = None
    for _ in range(3):
        c0 = _t.process_time()
        for x in items[:n]:
            fn(x)
        t = (_t.process_time() - c0) / n
        best = t if best is None else min(best, t)
    return 1e6 * best, n


def section_percall(args):
    from olearn.linear import OGDClassifier, PAClassifier
    d = 10**6
    nnz = 20
    rng = np.random.default_rng(0)
    n_items = 2000
    keys = np.sort(rng.choice(d, size=(n_items, nnz)), axis=1)
    dicts = [dict(zip(k.tolist(), rng.standard_normal(nnz).tolist())) for k in keys]
    labels = rng.choice([-1, 1], size=n_items).tolist()
    X0 = sp.csr_matrix((np.ones(2), np.array([0, d - 1]), np.array([0, 1, 2])), shape=(2, d))
    y0 = np.array([-1.0, 1.0])
    models = [("OGD hinge, alpha=0", lambda: OGDClassifier(loss="hinge", alpha=0.0)),
              ("OGD hinge, alpha=1e-4", lambda: OGDClassifier(loss="hinge", alpha=1e-4)),
              ("PA-I, average=False", lambda: PAClassifier(C=1.0, average=False)),
              ("PA-I, average=True", lambda: PAClassifier(C=1.0, average=True))]
    out = [f"A model started with `partial_fit` on a 2-row CSR matrix of width {d:,} "
           f"(so it has {d:,} features and both classes), then called on dicts of {nnz} "
           "non-zeros with integer keys drawn in 0..10^6-1 (seeded).  CPU microseconds per "
           "call, best of 3 passes over the first N dicts (N: as many as fit in ~0.4 s).  "
           "A cost far above the plain model's means work proportional to d per call.\n",
           "| model | learn_one us/call | N | predict_one us/call | N | learn_one / plain | "
           "predict_one / plain |",
           "|---|---|---|---|---|---|---|"]
    base = {}
    for label, fac in models:
        m = fac()
        m.partial_fit(X0, y0)
        state = {"i": 0}

        def learn(x, m=m):
            i = state["i"] = (state["i"] + 1) % n_items
            m.learn_one(x, labels[i])
        lu, ln = _per_call(learn, dicts)
        pu, pn = _per_call(m.predict_one, dicts)
        key = label.split(",")[0]
        if key not in base:
            base[key] = (lu, pu)
        bl, bp = base[key]
        out.append(f"| {label} | {lu:.2f} | {ln} | {pu:.2f} | {pn} | {lu / bl:.1f} | "
                   f"{pu / bp:.1f} |")
    out.append("")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 4. start-up
def _olearn_cmd():
    exe = Path(sys.executable).parent / "olearn"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "olearn"]


def _best_wall(cmd, reps, env):
    """Best wall and best CPU (user + system of the child) seconds, and the exit code."""
    import resource
    walls, cpus, rc = [], [], None
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=env, cwd=str(ROOT), capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        rc = p.returncode
    return min(walls), min(cpus), rc


def section_startup(args):
    heart = data_root() / "heart_scale" / "heart_scale"
    env = dict(os.environ)
    reps = 2 if args.quick else 5
    olearn = _olearn_cmd()
    cmds = [("`python -c \"import numpy, scipy.sparse, numba\"` (baseline)",
             [sys.executable, "-c", "import numpy, scipy.sparse, numba"])]
    if heart.exists():
        cmds.append(("`olearn train heart_scale --algo pa1` (cached kernels, after a first run)",
                     olearn + ["train", str(heart), "--algo", "pa1"]))
    cmds.append(("`olearn train missing.svm --algo pa1` (error path)",
                 olearn + ["train", "missing.svm", "--algo", "pa1"]))
    if heart.exists():
        subprocess.run(cmds[1][1], env=env, cwd=str(ROOT), capture_output=True)  # fill cache
    out = [f"Wall seconds of a fresh subprocess, interpreter start to exit, best of {reps} "
           f"(the numba cache in `NUMBA_CACHE_DIR`="
           f"`{env.get('NUMBA_CACHE_DIR', '(default)')}` filled by one untimed run first).  "
           f"olearn run as `{' '.join(Path(c).name for c in olearn)}`.\n",
           "| command | N | best wall s | best CPU s (child) | exit code | wall / baseline | "
           "CPU / baseline | target | |",
           "|---|---|---|---|---|---|---|---|---|"]
    base = None
    for label, cmd in cmds:
        t, c, rc = _best_wall(cmd, reps, env)
        base = base or (t, c)
        r, rc_ = t / base[0], c / base[1]
        tgt = "" if cmd is cmds[0][1] else f"<= {TARGETS['startup']:g}x (wall)"
        ok = "" if not tgt else met(r, TARGETS["startup"], higher=False)
        out.append(f"| {label} | {reps} | {t:.3f} | {c:.3f} | {rc} | {r:.2f} | {rc_:.2f} | "
                   f"{tgt} | {ok} |")
    if not heart.exists():
        out.append("| `olearn train heart_scale` | skipped: heart_scale not found | | | | | | | |")
    out.append("")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 5. intercept, 5b. rules
def _chunked_errors(make, X, y, chunk, **fit):
    """Mistakes of chunk-wise progressive evaluation: each chunk predicted with
    ``predict``, then learned with ``partial_fit(..., **fit)`` (none for the first)."""
    m = make()
    mist = 0
    for lo in range(0, X.shape[0], chunk):
        Xb, yb = X[lo:lo + chunk], y[lo:lo + chunk]
        if lo:
            mist += int(np.sum(m.predict(Xb) != yb))
        m.partial_fit(Xb, yb, **fit)
    return mist


def _chunked_sklearn(fit_intercept, X, y, chunk):
    from sklearn.linear_model import SGDClassifier
    m = SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=1.0,
                      fit_intercept=fit_intercept, shuffle=False)
    classes = np.unique(y)
    mist = 0
    for lo in range(0, X.shape[0], chunk):
        Xb, yb = X[lo:lo + chunk], y[lo:lo + chunk]
        if lo:
            mist += int(np.sum(m.predict(Xb) != yb))
        m.partial_fit(Xb, yb, classes=classes)
    return mist


def _with_constant(X, c):
    return _csr32(sp.hstack([sp.csr_matrix(np.full((X.shape[0], 1), c)), X], format="csr"))


#: the candidate intercept rules: (label, nb, g) of ``hand_pa_general``
RULES = [("no intercept (`fit_intercept=False`)", 0.0, 0.0),
         ("constant feature 1 inside the norm (the default before)", 1.0, 1.0),
         ("(a) outside the norm, step tau y", 0.0, 1.0),
         ("(a') outside the norm, step 0.01 tau y (scikit-learn's sparse decay)", 0.0, 0.01),
         ("(b) constant feature 0.1 (`intercept_scaling=0.1`, now PA's default)", 0.01, 0.01),
         ("(b) constant feature 0.3", 0.09, 0.09),
         ("(b) constant feature 0.03", 0.0009, 0.0009)]


#: section 5: data sets and registry names, as in the study that chose the defaults
ICPT_SETS = ("news20", "a9a", "w8a", "ijcnn1")
ICPT_LEARNERS = ("pa1", "perceptron", "alma", "romma", "ogd", "cocob", "ndag", "arow", "scw")
ICPT_FILES = {"a9a": "a9a/a9a", "w8a": "w8a/w8a", "ijcnn1": "ijcnn1/ijcnn1.trn.bz2",
              "news20": "news20/news20.converted.bz2"}


def section_intercept(args):
    """Progressive error of one pass in one fixed order (seed 0) with the intercept as an
    explicit constant column c in {1, 0.1} (``fit_intercept=False``), for each learner."""
    import olearn
    from olearn.io import load_libsvm
    out = ["One pass, one fixed order (seed 0: `np.random.default_rng(0).permutation`), "
           "constant column c in {1, 0.1} prepended, `fit_intercept=False` + the explicit "
           "column (the same arithmetic as `intercept_scaling=c`); progressive error of "
           "`olearn.make(name, fit_intercept=False).predict_learn`; news20 rows "
           "L2-normalised, the others as read; a9a, w8a and ijcnn1 their training files "
           "only.  `default c`: the learner's `intercept_scaling` default.\n",
           "| data | learner | default c | c = 1 | c = 0.1 | c = 0.1 - c = 1 | |",
           "|---|---|---|---|---|---|---|"]
    for ds in ICPT_SETS:
        path = data_root() / ICPT_FILES[ds]
        if not path.exists():
            out.append(f"| {ds} | absent | | | |")
            continue
        X, y = load_libsvm(path)
        X = _csr32(X)
        if ds == "news20":
            X = normalize_rows(X)
        order = np.random.default_rng(0).permutation(X.shape[0])
        X, y = X[order], np.asarray(y)[order]
        if args.quick:
            X, y = X[:2000], y[:2000]
        for name in ICPT_LEARNERS:
            errs = []
            for c in (1.0, 0.1):
                p = olearn.make(name, fit_intercept=False).predict_learn(_with_constant(X, c), y)
                errs.append(float(np.mean(p != y)))
            dflt = olearn.make(name).intercept_scaling
            flag = ("c = 0.1 worse" if errs[1] > errs[0] else
                    "c = 0.1 better" if errs[1] < errs[0] else "equal")
            out.append(f"| {ds} | {name} | {dflt:g} | {errs[0]:.4f} | {errs[1]:.4f} | "
                       f"{errs[1] - errs[0]:+.4f} | {flag} |")
    out.append("")
    return "\n".join(out) + "\n"


def section_rules(args):
    from olearn.linear import PAClassifier
    from olearn.multiclass import OneVsRest
    out = []
    news = load_set("news20")
    chunk = 100
    if news is None:
        out.append("news20 not found: skipped.\n")
    else:
        X, y = news
        order = np.random.default_rng(0).permutation(X.shape[0])
        X = normalize_rows(X)[order]
        y = y[order]
        n = X.shape[0]
        classes = np.unique(y)
        yk = np.searchsorted(classes, y).astype(np.float64)
        K = len(classes)
        hand_pa_general(X.indptr[:3], X.indices[:X.indptr[2]], X.data[:X.indptr[2]],
                        yk[:2], K, 1, 1.0, 1.0, 1.0)
        out.append(f"news20: {n:,} rows, rows scaled to unit L2 norm, one permutation "
                   f"(`np.random.default_rng(0).permutation`), PA-I C = 1, one pass.  "
                   f"`exact` = mistakes of the online protocol (each row predicted before it "
                   f"is learned) over all {n:,} rows; `chunks of {chunk}` = each chunk "
                   f"predicted with `predict`, then learned with `partial_fit`, error over "
                   f"rows {chunk + 1}..{n} (the first chunk has no model to predict it).  "
                   "`hand` rows run `hand_pa_general` of this file (validated by the "
                   "olearn rows it reproduces).\n")
        out.append("| learner | intercept | exact error (olearn) | exact error (hand) | "
                   f"chunks of {chunk} |")
        out.append("|---|---|---|---|---|")
        nc = n - chunk

        def pct(m, tot):
            return f"{m / tot:.4f}"
        ip, ix, dv = X.indptr, X.indices, X.data
        for mode, mname in ((1, "olearn PA-I native multiclass (max-score)"),
                            (2, "olearn OneVsRest(PAClassifier())")):
            for fi, rule in ((True, 1), (False, 0)):
                def fac(fi=fi, mode=mode):
                    base = PAClassifier(C=1.0, variant="PA-I", fit_intercept=fi,
                                        intercept_scaling=1.0)
                    return base if mode == 1 else OneVsRest(base)
                ex = int(np.sum(fac().predict_learn(X, y) != y))
                lab, nb, g = RULES[rule]
                hm = hand_pa_general(ip, ix, dv, yk, K, mode, 1.0, nb, g)
                ch = _chunked_errors(fac, X, y, chunk)
                out.append(f"| {mname} | {'fit_intercept=True, intercept_scaling=1 (the default before)' if fi else lab} | "
                           f"{pct(ex, n)} | {pct(hm, n)} | {pct(ch, nc)} |")
            for lab, nb, g in RULES[2:]:
                hm = hand_pa_general(ip, ix, dv, yk, K, mode, 1.0, nb, g)
                if lab.startswith("(b)"):
                    c = np.sqrt(nb)
                    Xc = _with_constant(X, c)

                    def facb(mode=mode):
                        base = PAClassifier(C=1.0, variant="PA-I", fit_intercept=False)
                        return base if mode == 1 else OneVsRest(base)
                    ex = pct(int(np.sum(facb().predict_learn(Xc, y) != y)), n)
                    ch = pct(_chunked_errors(facb, Xc, y, chunk), nc)
                else:
                    ex, ch = "-", "-"
                out.append(f"| {mname} | {lab} | {ex} | {pct(hm, n)} | {ch} |")
        for lab, nb, g in RULES[:5]:
            hm = hand_pa_general(ip, ix, dv, yk, K, 3, 1.0, nb, g)
            out.append(f"| hand: one-vs-rest, every class learning from row 1 (scikit-learn's "
                       f"layout) | {lab} | - | {pct(hm, n)} | - |")
        if have("sklearn"):
            for fi in (True, False):
                ch = _chunked_sklearn(fi, X, y, chunk)
                out.append(f"| scikit-learn `SGDClassifier(loss='hinge', learning_rate='pa1', "
                           f"eta0=1)` (one-vs-rest) | fit_intercept={fi}"
                           f"{' (outside the norm, step 0.01 tau y on sparse input)' if fi else ''}"
                           f" | - | - | {pct(ch, nc)} |")
        else:
            out.append("| scikit-learn | not installed | - | - | n/a |")
        out.append("")

    # LIBOL's binary sets
    runs = 3 if args.quick else 20
    out.append(f"LIBOL's binary sets, PA-I C = 1, as read (not normalised): mean progressive "
               f"error over {runs} random permutations (seeds 0..{runs - 1}), one pass each "
               "(the hand loop; its first rows reproduce olearn's `predict_learn` on seed 0, "
               "checked in the last column).\n")
    out.append("| intercept rule | " + " | ".join(["ijcnn1", "a9a", "w8a"]) + " |")
    out.append("|---|---|---|---|")
    results, check = {}, []
    for name in ("ijcnn1", "a9a", "w8a"):
        data = load_set(name)
        if data is None:
            results[name] = None
            continue
        X, y = data
        errs = {r[0]: [] for r in RULES}
        for seed in range(runs):
            o = np.random.default_rng(seed).permutation(X.shape[0])
            Xs, ys = X[o], y[o]
            for lab, nb, g in RULES:
                m = hand_pa_general(Xs.indptr, Xs.indices, Xs.data, ys, 1, 0, 1.0, nb, g)
                errs[lab].append(m / X.shape[0])
            if seed == 0:
                for fi, (lab, nb, g) in ((True, RULES[1]), (False, RULES[0])):
                    ol = int(np.sum(PAClassifier(C=1.0, fit_intercept=fi,
                                                 intercept_scaling=1.0)
                                    .predict_learn(Xs, ys) != ys))
                    check.append(f"{name} fit_intercept={fi}: olearn {ol:,}, hand "
                                 f"{int(round(errs[lab][0] * X.shape[0])):,} mistakes")
        results[name] = errs
    for lab, _, _ in RULES:
        cells = []
        for name in ("ijcnn1", "a9a", "w8a"):
            e = results[name]
            cells.append("absent" if e is None else
                         f"{np.mean(e[lab]):.4f} ± {np.std(e[lab]):.4f}")
        out.append(f"| {lab} | " + " | ".join(cells) + " |")
    out.append("")
    if check:
        out.append("Check (seed 0): " + "; ".join(check) + ".\n")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 5c. defaults
def section_defaults(args):
    """The issue's item 7 as stated: every model with its default settings (olearn's
    PA-I, natively multiclass and one-vs-rest, against scikit-learn's PA-I one-vs-rest
    through ``SGDClassifier``), news20 rows L2-normalised, one pass, chunks of 100."""
    from olearn.linear import PAClassifier
    from olearn.multiclass import OneVsRest
    news = load_set("news20")
    if news is None:
        return "news20 not found: skipped.\n"
    X, y = news
    X = normalize_rows(X)
    seeds = range(1 if args.quick else 3)
    chunk = 100
    rows = {"olearn `PAClassifier()` (native multiclass)": [],
            "olearn `OneVsRest(PAClassifier())`, classes discovered": [],
            "olearn `OneVsRest(PAClassifier())`, `classes=` declared": []}
    sk = []
    for seed in seeds:
        order = np.random.default_rng(seed).permutation(X.shape[0])
        Xs, ys = X[order], y[order]
        classes = np.unique(ys)
        n = Xs.shape[0] - chunk
        errs = (_chunked_errors(PAClassifier, Xs, ys, chunk),
                _chunked_errors(lambda: OneVsRest(PAClassifier()), Xs, ys, chunk),
                _chunked_errors(lambda: OneVsRest(PAClassifier()), Xs, ys, chunk,
                                classes=classes))
        for key, e in zip(rows, errs):
            rows[key].append(e / n)
        if have("sklearn"):
            sk.append(_chunked_sklearn(True, Xs, ys, chunk) / n)
    out = [f"news20 ({X.shape[0]:,} rows, each scaled to unit L2 norm), orders "
           f"`np.random.default_rng(seed).permutation` for seeds "
           f"{', '.join(map(str, seeds))}; chunk-wise progressive error: each chunk of "
           f"{chunk} predicted with `predict`, then learned with `partial_fit` (error over "
           f"rows {chunk + 1}..).  scikit-learn: `SGDClassifier(loss='hinge', penalty=None, "
           "learning_rate='pa1', eta0=1, shuffle=False)`, its defaults otherwise "
           "(one-vs-rest, intercept outside the norm), `classes=` declared as it requires.  "
           "Target: olearn's default at least as accurate.\n",
           "| model | " + " | ".join(f"seed {s}" for s in seeds) + " | mean | "
           "mean - scikit-learn |", "|---|" + "---|" * (len(seeds) + 2)]
    ref = np.mean(sk) if sk else None
    for key, e in list(rows.items()) + ([("scikit-learn PA-I one-vs-rest", sk)] if sk else []):
        diff = "" if ref is None else f"{np.mean(e) - ref:+.4f}"
        out.append(f"| {key} | " + " | ".join(f"{v:.4f}" for v in e)
                   + f" | {np.mean(e):.4f} | {diff} |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 6. duplicates
def _dup_count(repo):
    p = subprocess.run(["duplicates", "--repo", str(repo), "--most", "200", "--seconds", "120"],
                       capture_output=True, text=True, cwd=str(ROOT))
    text = p.stdout
    rows = len(re.findall(r"^D\d+ ", text, flags=re.M))
    head = text.splitlines()[0] if text else ""
    m = re.match(r"(\d+) pairs", head)
    return rows, (int(m.group(1)) if m else None), head


def section_duplicates(args):
    if shutil.which("duplicates") is None:
        return "`duplicates` not installed: n/a.\n"
    now_rows, now_total, now_head = _dup_count(ROOT / "olearn")
    before = "n/a"
    with tempfile.TemporaryDirectory(prefix="olearn-before-") as tmp:
        arch = Path(tmp) / "before.tar"
        p = subprocess.run(["git", "archive", "-o", str(arch), BEFORE_COMMIT, "olearn"],
                           cwd=str(ROOT), capture_output=True, text=True)
        if p.returncode == 0:
            with tarfile.open(arch) as tf:
                tf.extractall(tmp, filter="data")
            b_rows, b_total, b_head = _dup_count(Path(tmp) / "olearn")
            before = f"{b_rows}"
    out = ["`duplicates --repo olearn --most 200`: pair rows listed (`D<n>` lines), for the "
           f"working tree as it is now and for commit {BEFORE_COMMIT} (round 1, extracted "
           "with `git archive`).\n",
           "| tree | pair rows | first line |", "|---|---|---|",
           f"| {BEFORE_COMMIT} (before) | {before} | {b_head if before != 'n/a' else ''} |",
           f"| working tree now | {now_rows} | {now_head} |", ""]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- report
def header(command, wall):
    return "\n".join([
        "# Core 2.0 benchmark: driver, one-at-a-time, per-call costs, start-up, intercept, "
        "duplicates\n",
        f"Command (repository root, the project's venv): `{command}`  ",
        f"Last run: {datetime.date.today().isoformat()}, {wall:.0f} s wall  ",
        f"Machine: {_peers.machine()}  ",
        f"Load average at the end: {_peers.load_avg()} (a shared 2-core box: the ratios use "
        "CPU time of this process, which contention inflates much less than wall time).  "
        "Each section below says when and by which command it was last produced; "
        "`--only` re-runs some sections and keeps the others.\n"])


def merge(path, new_sections, head):
    """The results file with ``new_sections`` replaced and the others kept."""
    old, notes, summary = {}, "", ""
    if path.exists():
        text = path.read_text()
        if NOTES in text:
            text, rest = text.split(NOTES, 1)
            notes = NOTES + rest
        if SUMMARY in text:
            rest = text.split(SUMMARY, 1)[1]
            summary = SUMMARY + rest.split("<!-- section ", 1)[0].rstrip() + "\n"
        for m in re.finditer(r"<!-- section (\w+) -->\n(.*?)(?=<!-- section \w+ -->|\Z)",
                             text, flags=re.S):
            old[m.group(1)] = m.group(2).rstrip() + "\n"
    parts = [head] + ([summary] if summary else [])
    for name in SECTIONS:
        body = new_sections.get(name, old.get(name))
        if body:
            parts.append(f"<!-- section {name} -->\n{body.rstrip()}\n")
    return "\n".join(parts) + ("\n" + notes if notes else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help=f"comma-separated sections (default all: {','.join(SECTIONS)})")
    ap.add_argument("--quick", action="store_true", help="small sizes and few repeats")
    ap.add_argument("--rows", type=int, default=200_000, help="sparse stream rows (driver)")
    ap.add_argument("--one-rows", type=int, default=5_000,
                    help="rows of the stream and news20 in the one-at-a-time section")
    ap.add_argument("--repeats", type=int, default=None, help="compiled runs (default 5)")
    ap.add_argument("--slow-repeats", type=int, default=None,
                    help="per-example Python loops (default 3)")
    ap.add_argument("--out", default=str(HERE / "core.md"),
                    help="results file (default benchmarks/core.md; '-' prints only)")
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    bad = [s for s in only if s not in SECTIONS]
    if bad:
        ap.error(f"unknown section(s) {', '.join(bad)}; choose from {', '.join(SECTIONS)}")
    args.repeats = args.repeats or (1 if args.quick else 5)
    args.slow_repeats = args.slow_repeats or (1 if args.quick else 3)
    command = ("python benchmarks/bench_core.py " + " ".join(
        sys.argv[1:] if argv is None else argv)).strip()
    t0 = time.perf_counter()
    new = {}
    for name in SECTIONS:
        if name not in only:
            continue
        s0 = time.perf_counter()
        body = globals()[f"section_{name}"](args)
        stamp = (f"_Produced {datetime.date.today().isoformat()} by `{command}` in "
                 f"{time.perf_counter() - s0:.0f} s; load average {_peers.load_avg()}._\n")
        new[name] = f"## {TITLES[name]}\n\n{stamp}\n{body}"
        print(new[name], flush=True)
    head = header(command, time.perf_counter() - t0)
    if args.out != "-":
        path = Path(args.out)
        path.write_text(merge(path, new, head))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
