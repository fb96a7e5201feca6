"""Shared helpers for the benchmark scripts: timing, data conversion, and the peer loops
(scikit-learn, River, Vowpal Wabbit) run in the same process on the same data.

Every runner returns plain numbers (seconds, mistakes) so that a script can put them in
a table.  Conversions (CSR -> dicts, CSR -> VW text) happen before any timing.
"""
import gc
import os
import platform
import statistics
import time

import numpy as np
import scipy.sparse as sp


# ---------------------------------------------------------------- timing
def timed(fn, repeats):
    """Run ``fn()`` ``repeats`` times; return a dict with the best and median wall-clock
    seconds (``wall``, ``wall_median``), the best and median CPU seconds of this process
    (``cpu``, ``cpu_median``: ``time.process_time``, which a busy shared machine inflates
    far less than the wall clock) and ``result``, the last run's return value.

    The garbage collector is off during each run (and collected before it) so that one
    run does not pay for the garbage of the previous one.
    """
    walls, cpus, result = [], [], None
    for _ in range(max(1, int(repeats))):
        gc.collect()
        gc.disable()
        try:
            w0, c0 = time.perf_counter(), time.process_time()
            result = fn()
            cpus.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
        finally:
            gc.enable()
    return {"wall": min(walls), "wall_median": statistics.median(walls), "cpu": min(cpus),
            "cpu_median": statistics.median(cpus), "reps": len(walls), "result": result}


def machine():
    """One line describing the machine and the library versions."""
    import numba
    import sklearn
    parts = [platform.processor() or platform.machine(), f"{os.cpu_count()} cores",
             f"Python {platform.python_version()}", f"numpy {np.__version__}",
             f"numba {numba.__version__}", f"scikit-learn {sklearn.__version__}"]
    for mod in ("river", "vowpalwabbit"):
        try:
            parts.append(f"{mod} {__import__(mod).__version__}")
        except ImportError:
            parts.append(f"{mod} missing")
    return ", ".join(parts)


def load_avg():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "n/a"


# ---------------------------------------------------------------- conversions
def csr_rows(X):
    X = sp.csr_matrix(X)
    return X.indptr, X.indices, X.data


def to_dicts(X):
    """The rows of a CSR matrix as ``{column index: value}`` dicts (int keys, float values)."""
    indptr, indices, data = csr_rows(X)
    idx = indices.tolist()
    val = data.tolist()
    ptr = indptr.tolist()
    return [dict(zip(idx[ptr[i]:ptr[i + 1]], val[ptr[i]:ptr[i + 1]]))
            for i in range(len(ptr) - 1)]


def to_vw_lines(X, y):
    """Vowpal Wabbit text lines ``"<label> | <col>:<value> ..."``, labels in {-1, 1}.

    Numeric feature names in the default namespace map to their own index in VW, so
    with ``-b`` at least log2(n_features) the columns do not collide.
    """
    indptr, indices, data = csr_rows(X)
    lines = []
    for i in range(len(indptr) - 1):
        lo, hi = indptr[i], indptr[i + 1]
        feats = " ".join(f"{j}:{v:.17g}" for j, v in zip(indices[lo:hi].tolist(),
                                                         data[lo:hi].tolist()))
        lines.append(f"{1 if y[i] > 0 else -1} | {feats}")
    return lines


# ---------------------------------------------------------------- scikit-learn
def sklearn_pa1(C):
    from sklearn.linear_model import SGDClassifier
    # shuffle=False: partial_fit must see the rows in the given order, like every peer.
    return SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=C,
                         fit_intercept=False, shuffle=False)


def sklearn_fit_once(X, y, C):
    """One ``partial_fit`` call over the whole data (the throughput figure)."""
    m = sklearn_pa1(C)
    m.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
    return m


def sklearn_progressive_mistakes(X, y, C, batch=1000):
    """Mistakes of scikit-learn's PA-I when each mini-batch of ``batch`` rows is
    predicted before ``partial_fit`` learns from it (the first batch is predicted by the
    zero model: class -1 for every row, as a zero score gives with classes (-1, 1))."""
    m = sklearn_pa1(C)
    classes = np.array([-1.0, 1.0])
    mistakes = 0
    for lo in range(0, X.shape[0], batch):
        Xb, yb = X[lo:lo + batch], y[lo:lo + batch]
        if lo == 0:
            pred = np.full(len(yb), -1.0)
        else:
            pred = m.predict(Xb)
        mistakes += int(np.sum(pred != yb))
        m.partial_fit(Xb, yb, classes=classes)
    return mistakes, m


# ---------------------------------------------------------------- River
def river_pa1(C):
    from river import linear_model
    return linear_model.PAClassifier(C=C, mode=1, learn_intercept=False)


def river_progressive(dicts, y_bool, C):
    """``predict_one`` then ``learn_one`` on every dict, in order; returns (mistakes, model)."""
    m = river_pa1(C)
    predict_one, learn_one = m.predict_one, m.learn_one
    mistakes = 0
    for x, yi in zip(dicts, y_bool):
        if predict_one(x) != yi:
            mistakes += 1
        learn_one(x, yi)
    return mistakes, m


# ---------------------------------------------------------------- Vowpal Wabbit
VW_OPTIONS = "--quiet --binary --loss_function hinge --noconstant -b {bits}"


def vw_progressive(lines, bits):
    """Feed the text lines to a fresh pyvw workspace with ``learn``; returns (mistakes,
    options).  With ``--binary`` VW's own progressive loss is the 0/1 loss of its
    prediction made before each update, so its sum is the number of mistakes."""
    from vowpalwabbit import pyvw
    opts = VW_OPTIONS.format(bits=bits)
    ws = pyvw.Workspace(opts)
    learn = ws.learn
    for line in lines:
        learn(line)
    mistakes = int(round(ws.get_sum_loss()))
    ws.finish()
    return mistakes, opts
