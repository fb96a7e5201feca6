"""OGD throughput and progressive mistakes: olearn against scikit-learn and Vowpal Wabbit.

Data: a9a (``../shared/data/a9a/a9a``, 32,561 rows, 123 sparse 0/1 features) and the
seeded sparse stream of the foundation issue (``olearn.datasets.make_sparse_stream``:
200,000 rows, 2^18 features, 40 non-zeros a row, labels from a random hyperplane, 5%
flipped, seed 0).

Learners, with the same loss, schedule and averaging:

* olearn ``OGDClassifier(loss, schedule="invsqrt", eta=1.0, average)``: one
  ``predict_learn`` call over the whole data; its output is the progressive prediction
  of every row (made before that row's update);
* scikit-learn ``SGDClassifier(loss, learning_rate="invscaling", eta0=1.0,
  power_t=0.5, penalty=None, average)``.  Throughput: one ``partial_fit`` over the
  whole data (its fastest use).  Progressive mistakes: mini-batches of 1,000 rows, each
  predicted before ``partial_fit`` on it (the first one before any fit counts as
  predicted -1, as olearn's zero weights predict); that protocol's own throughput is
  reported too;
* Vowpal Wabbit through ``from vowpalwabbit import pyvw`` with its default update
  (adaptive, normalized, invariant; learning rate 0.5), ``--loss_function`` hinge or
  logistic, ``-b 24`` on the stream (``-b 18`` on a9a); one example at a time through
  the Python binding (text lines built beforehand, outside the timing), so its
  throughput is that of pyvw's per-example calls, not of the ``vw`` binary.  VW has no
  Polyak averaging in this mode: it runs without.

Both olearn and scikit-learn fit an intercept (scikit-learn damps its intercept steps by
0.01 on sparse input; olearn treats it as a weight).  Times are the best of
``--repeats`` runs, olearn and scikit-learn interleaved, after a warm-up that compiles
olearn's kernel.  Usage::

    .venv/bin/python benchmarks/bench_ogd.py            # writes benchmarks/ogd.md
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDClassifier

import olearn
from olearn.datasets import make_sparse_stream
from olearn.linear import OGDClassifier

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
ETA = 1.0
BATCH = 1000
SK_LOSS = {"hinge": "hinge", "logistic": "log_loss"}
NOTES = """## Reading

* The target of the issue, at least 2.5x scikit-learn's throughput at an equal or
  lower progressive mistake rate, is **not met**: olearn's OGD runs at roughly 0.3x
  to 1x the speed of one scikit-learn `partial_fit` over the whole data (the machine
  is shared with other jobs: single figures move by up to 2x between runs).  It is
  several times (here 3x to 15x) faster than scikit-learn used as an online learner
  (the 1,000-row predict-then-`partial_fit` protocol), and 10x to 45x faster than
  Vowpal Wabbit driven one example at a time from Python.
* Where the time goes: on the sparse stream, copying the CSR input to put the
  intercept column in front costs about as much as the compiled pass itself; on a9a
  the compiled pass costs about 300 ns a row where a hand-written loop doing the same
  arithmetic takes about 50 ns: numba reference-counts the state arrays and the row
  views each time the shared row driver hands them to an inlined score or update
  function (atomic increments and decrements, several per row).  Both costs sit in
  the shared layers (`olearn/_rows.py`, `olearn/_compiled/driver.py`); the changes they
  call for are listed in the report of issue 4.  (Reducing the linear learners'
  state from seven arrays to three, and passing arrays rather than the state tuple
  to the helpers, already made the pass about 5x faster.)
* Progressive mistakes: on a9a olearn (row by row) is slightly below scikit-learn's
  mini-batch protocol for every configuration.  On the sparse stream without
  averaging olearn is higher (0.453 against 0.421 for the hinge loss): each row has
  mostly unseen features, so the intercept decides many predictions, and
  scikit-learn damps its intercept steps by 0.01 on sparse input while olearn steps
  the intercept like any weight.  Vowpal Wabbit's normalized adaptive update has the
  lowest mistake rates on both sets (olearn's NDAG learner implements that update).
"""


def load_a9a():
    X, y = load_svmlight_file(str(DATA / "a9a" / "a9a"), n_features=123)
    X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                      shape=X.shape)  # scikit-learn's SGD takes 32-bit indices only
    return X, y


def olearn_run(X, y, loss, average):
    m = OGDClassifier(loss=loss, schedule="invsqrt", eta=ETA, average=average)
    t = time.perf_counter()
    pred = m.predict_learn(X, y)
    return time.perf_counter() - t, float(np.mean(pred != y))


def sklearn_model(loss, average):
    return SGDClassifier(loss=SK_LOSS[loss], learning_rate="invscaling", eta0=ETA,
                         power_t=0.5, penalty=None, average=average, shuffle=False)


def sklearn_once(X, y, loss, average):
    s = sklearn_model(loss, average)
    t = time.perf_counter()
    s.partial_fit(X, y, classes=[-1.0, 1.0])
    return time.perf_counter() - t


def sklearn_progressive(X, y, loss, average):
    s = sklearn_model(loss, average)
    mistakes = 0
    t = time.perf_counter()
    for lo in range(0, X.shape[0], BATCH):
        Xb, yb = X[lo:lo + BATCH], y[lo:lo + BATCH]
        pred = s.predict(Xb) if lo else np.full(len(yb), -1.0)
        mistakes += int(np.sum(pred != yb))
        s.partial_fit(Xb, yb, classes=[-1.0, 1.0])
    return time.perf_counter() - t, mistakes / X.shape[0]


def olearn_breakdown(X, y, loss, repeats):
    """Seconds spent in olearn's compiled pass alone and in building its rows (the CSR
    copy that puts the intercept column in front), best of ``repeats``."""
    from olearn._rows import kernel_rows
    from olearn._compiled.driver import BINARY
    rows = kernel_rows(X, True)
    n = X.shape[0]
    t_kernel, t_rows = np.inf, np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        kernel_rows(X, True)
        t_rows = min(t_rows, time.perf_counter() - t)
        m = OGDClassifier(loss=loss, schedule="invsqrt", eta=ETA)
        m.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
        state = tuple(m.state_[s.name] for s in m._slots)
        params = m._packed_params()
        args = (rows, y, np.ones(n), state, params, m._seen(), np.empty((n, 1)),
                np.zeros(n, dtype=np.int64))
        t = time.perf_counter()
        m._kernels[BINARY](*args)
        t_kernel = min(t_kernel, time.perf_counter() - t)
    return t_kernel, t_rows


def vw_lines(X, y):
    out = []
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        feats = " ".join(f"{j}:{v:.17g}" for j, v in zip(X.indices[lo:hi], X.data[lo:hi]))
        out.append(f"{int(y[i])} | {feats}")
    return out


def vw_run(lines, y, loss, bits):
    from vowpalwabbit import pyvw
    vw = pyvw.Workspace(f"--loss_function {loss} -b {bits} --quiet")
    pred = np.empty(len(lines))
    t = time.perf_counter()
    for i, line in enumerate(lines):
        ex = vw.parse(line)
        vw.learn(ex)
        pred[i] = ex.get_simplelabel_prediction()
        vw.finish_example(ex)
    elapsed = time.perf_counter() - t
    vw.finish()
    return elapsed, float(np.mean(np.where(pred > 0, 1.0, -1.0) != y))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rows", type=int, default=200_000, help="rows of the sparse stream")
    ap.add_argument("--no-vw", action="store_true")
    ap.add_argument("--out", default=str(HERE / "ogd.md"))
    args = ap.parse_args()

    sets = [("a9a", load_a9a(), 18), ("sparse stream", make_sparse_stream(args.rows), 24)]
    # warm-up: compile every kernel used below
    for loss in SK_LOSS:
        for average in (False, True):
            olearn_run(sets[0][1][0][:50], sets[0][1][1][:50], loss, average)
    rows, vw_rows, parts = [], [], []
    for name, (X, y), bits in sets:
        for loss in SK_LOSS:
            for average in (False, True):
                t_o, t_s = [], []
                for _ in range(args.repeats):
                    t, mist_o = olearn_run(X, y, loss, average)
                    t_o.append(t)
                    t_s.append(sklearn_once(X, y, loss, average))
                t_p, mist_s = sklearn_progressive(X, y, loss, average)
                n = X.shape[0]
                rows.append((name, loss, average, n / min(t_o), n / min(t_s),
                             min(t_s) / min(t_o), mist_o, mist_s, n / t_p))
                print(rows[-1], flush=True)
                if not average:
                    t_k, t_r = olearn_breakdown(X, y, loss, args.repeats)
                    parts.append((name, loss, min(t_o), t_k, t_r, min(t_s)))
            if not args.no_vw:
                lines = vw_lines(X, y)
                t_v, mist_v = vw_run(lines, y, loss, bits)
                vw_rows.append((name, loss, X.shape[0] / t_v, mist_v, bits))
                print(vw_rows[-1], flush=True)

    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    md = ["# OGD against scikit-learn SGDClassifier and Vowpal Wabbit", "",
          "Reproduce: `.venv/bin/python benchmarks/bench_ogd.py` (protocol in the script's "
          "docstring).", "",
          f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
          f"shared with other jobs (load average {load[0]:.1f} at the end of the run); "
          f"Python {platform.python_version()}, numpy {np.__version__}, olearn "
          f"{olearn.__version__}, scikit-learn {__import__('sklearn').__version__}; best of "
          f"{args.repeats} interleaved runs.", "",
          "Schedule `invsqrt` (eta_t = 1/sqrt(t)) in both, with an intercept. Throughput in "
          "rows per second over the whole data, input validation included. *speed-up*: "
          "olearn's rows/s over scikit-learn's (one `partial_fit` over the whole data). "
          "Progressive mistakes: olearn row by row; scikit-learn by 1,000-row mini-batches "
          "(predict, then `partial_fit`).", "",
          "| data | loss | averaged | olearn rows/s | sklearn rows/s | speed-up | "
          "olearn progressive mistakes | sklearn progressive mistakes | sklearn mini-batch "
          "protocol rows/s |",
          "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, loss, avg, r_o, r_s, sp, m_o, m_s, r_p in rows:
        md.append(f"| {name} | {loss} | {'yes' if avg else 'no'} | {r_o:,.0f} | {r_s:,.0f} | "
                  f"{sp:.2f}x | {m_o:.4f} | {m_s:.4f} | {r_p:,.0f} |")
    md += ["", "Where olearn's time goes (no averaging; milliseconds, best of the repeats): the "
           "whole `predict_learn` call, its compiled pass alone, and the copy of the CSR "
           "input that puts the intercept column in front (`olearn._rows.kernel_rows`); "
           "scikit-learn's `partial_fit` for scale.", "",
           "| data | loss | predict_learn | compiled pass | intercept copy | other (validation, "
           "labels) | sklearn partial_fit |", "|---|---|---:|---:|---:|---:|---:|"]
    for name, loss, t_all, t_k, t_r, t_s in parts:
        md.append(f"| {name} | {loss} | {1e3 * t_all:.1f} | {1e3 * t_k:.1f} | {1e3 * t_r:.1f} | "
                  f"{1e3 * max(t_all - t_k - t_r, 0.0):.1f} | {1e3 * t_s:.1f} |")
    if vw_rows:
        md += ["", "Vowpal Wabbit (pyvw, default adaptive normalized invariant update, one "
               "example per Python call, no averaging):", "",
               "| data | loss | bits | VW rows/s | VW progressive mistakes |",
               "|---|---|---:|---:|---:|"]
        for name, loss, r_v, m_v, bits in vw_rows:
            md.append(f"| {name} | {loss} | {bits} | {r_v:,.0f} | {m_v:.4f} |")
    md += ["", NOTES]
    Path(args.out).write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
