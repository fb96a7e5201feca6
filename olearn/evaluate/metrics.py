"""Streaming metrics for progressive evaluation: over the whole stream, over a sliding
window of the last ``window`` rows, or with a fading factor ``fading`` (each older row
weighs ``fading`` times less: Gama, Sebastiao and Rodrigues, "On evaluating stream
learning algorithms", Machine Learning 90, 2013, section 3: the prequential error
with fading factors, ``E_t = S_t / N_t``, ``S_t = l_t + alpha S_{t-1}``,
``N_t = 1 + alpha N_{t-1}``).

* :func:`running_mean`: the cumulative, windowed or faded mean of per-row losses at
  every row of a chunk, continuing across chunks (what a progressive curve plots);
* :class:`StreamMetrics`: the metrics that imbalanced streams (spam, fraud) need:
  classification accuracy, balanced accuracy, precision / recall / F1 per class (and
  macro F1), log-loss and ROC AUC (binary, from probabilities or scores); regression
  MAE, RMSE and R^2.  Every figure is the weighted version of the usual definition, each
  row weighing 1 (cumulative), 1 inside the window and 0 outside, or ``fading ** age``
  (``age`` 0 for the latest row): with these weights they equal scikit-learn's metrics
  with ``sample_weight`` (tested).

Log-loss clips probabilities to [1e-15, 1 - 1e-15].  ROC AUC counts ties as one half
(the Mann-Whitney statistic); with fading, rows older than where ``fading ** age``
falls below 1e-12 are dropped.
"""
import math

import numpy as np

EPS = 1e-15


def _check_memory(window, fading):
    if window is not None and fading is not None:
        raise ValueError("give window or fading, not both")
    if window is not None and (isinstance(window, bool) or not isinstance(
            window, (int, np.integer)) or window < 1):
        raise ValueError(f"window must be an integer >= 1, got {window!r}")
    if fading is not None:
        try:
            ok = 0.0 < float(fading) <= 1.0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"fading must be a number in (0, 1], got {fading!r}")


class running_mean:  # noqa: N801 (a small stateful function object)
    """Mean of per-row losses after each row: ``update(losses)`` returns, for each row of
    the chunk, the cumulative mean (default), the mean of the last ``window`` rows, or
    the faded mean ``S_t / N_t`` (``fading``), continuing across calls."""

    def __init__(self, window=None, fading=None):
        _check_memory(window, fading)
        self.window, self.fading = window, fading
        self.n = 0
        self.total = 0.0
        self.S = self.N = 0.0
        self.tail = np.zeros(0)

    def update(self, losses):
        x = np.asarray(losses, dtype=np.float64).ravel()
        m = x.shape[0]
        if m == 0:
            return x
        if self.fading is not None:
            from scipy.signal import lfilter
            a = float(self.fading)
            S, _ = lfilter([1.0], [1.0, -a], x, zi=[a * self.S])
            N, _ = lfilter([1.0], [1.0, -a], np.ones(m), zi=[a * self.N])
            self.S, self.N = float(S[-1]), float(N[-1])
            return S / N
        if self.window is None:
            c = self.total + np.cumsum(x)
            counts = self.n + np.arange(1, m + 1)
            self.total = float(c[-1])
            self.n += m
            return c / counts
        W = int(self.window)
        joined = np.concatenate([self.tail, x])
        c = np.concatenate([[0.0], np.cumsum(joined)])
        k = self.tail.shape[0]
        ends = np.arange(k + 1, k + m + 1)
        starts = np.maximum(ends - W, 0)
        counts = self.n + np.arange(1, m + 1)
        out = (c[ends] - c[starts]) / np.minimum(counts, W)
        self.tail = joined[-(W - 1):] if W > 1 else np.zeros(0)
        self.n += m
        return out


def _auc(y, s, w):
    """Weighted Mann-Whitney AUC of scores ``s`` for positives ``y`` (ties count 1/2)."""
    pos, neg = w[y].sum(), w[~y].sum()
    if pos <= 0 or neg <= 0:
        return math.nan
    order = np.argsort(s, kind="mergesort")
    s, y, w = s[order], y[order], w[order]
    # group ties: for each distinct score, weights of negatives below, and within ties
    uniq, start = np.unique(s, return_index=True)
    wneg = np.where(~y, w, 0.0)
    wpos = np.where(y, w, 0.0)
    neg_by = np.add.reduceat(wneg, start)
    pos_by = np.add.reduceat(wpos, start)
    below = np.concatenate([[0.0], np.cumsum(neg_by)[:-1]])
    return float((pos_by * (below + 0.5 * neg_by)).sum() / (pos * neg))


class StreamMetrics:
    """Classification or regression metrics of a stream of (label, prediction) pairs,
    cumulative, windowed or faded.

    Parameters
    ----------
    task : "classification" or "regression".
    window : int >= 1 or None, only the last ``window`` rows count.
    fading : float in (0, 1] or None, a row of age a weighs ``fading ** a``.
    classes : labels to report (classification), or None: every label seen.

    ``update(y_true, y_pred, scores=None)`` adds a chunk in order (``scores``: the
    positive class's probability or decision value, binary only; probabilities in
    [0, 1] give the log-loss too); ``result()`` returns a dict of the figures.
    """

    def __init__(self, task="classification", window=None, fading=None, classes=None):
        if task not in ("classification", "regression"):
            raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
        _check_memory(window, fading)
        self.task, self.window, self.fading = task, window, fading
        self.classes = None if classes is None else list(classes)
        self._y, self._p, self._s = [], [], []
        self.n = 0

    def update(self, y_true, y_pred, scores=None):
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        if y_true.shape != y_pred.shape or y_true.ndim != 1:
            raise ValueError("y_true and y_pred must be 1-D and of the same length")
        if scores is not None:
            scores = np.asarray(scores, dtype=np.float64).ravel()
            if scores.shape != y_true.shape:
                raise ValueError("scores must give one value per row")
        elif self._s:
            raise ValueError("scores were given before: give them for every chunk")
        if self.n and scores is not None and not self._s:
            raise ValueError("scores were not given before: give them from the start")
        self._y.append(y_true)
        self._p.append(y_pred)
        if scores is not None:
            self._s.append(scores)
        self.n += y_true.shape[0]
        self._trim()
        return self

    def _trim(self):
        """Keep only the rows that still weigh something."""
        keep = self.window
        if self.fading is not None and self.fading < 1.0:
            keep = int(math.ceil(math.log(1e-12) / math.log(self.fading))) + 1
        if keep is None:
            return
        for lst in (self._y, self._p, self._s):
            if lst:
                a = np.concatenate(lst)
                lst[:] = [a[-keep:]]

    def _rows(self):
        y = np.concatenate(self._y) if self._y else np.zeros(0)
        p = np.concatenate(self._p) if self._p else np.zeros(0)
        s = np.concatenate(self._s) if self._s else None
        m = y.shape[0]
        if self.fading is not None:
            w = float(self.fading) ** np.arange(m - 1, -1, -1, dtype=np.float64)
        else:
            w = np.ones(m)
        return y, p, s, w

    def result(self):
        """The figures over the rows that count (a dict; NaN where undefined)."""
        y, p, s, w = self._rows()
        if y.shape[0] == 0:
            raise ValueError("no rows yet")
        W = w.sum()
        if self.task == "regression":
            y, p = y.astype(np.float64), p.astype(np.float64)
            e = p - y
            mean = (w * y).sum() / W
            sst = (w * (y - mean) ** 2).sum()
            sse = (w * e * e).sum()
            return {"mae": float((w * np.abs(e)).sum() / W), "rmse": math.sqrt(sse / W),
                    "r2": float(1 - sse / sst) if sst > 0 else math.nan, "rows": len(y)}
        classes = self.classes if self.classes is not None else \
            np.unique(np.concatenate([y, p])).tolist()
        out = {"accuracy": float((w * (y == p)).sum() / W), "rows": len(y)}
        prec, rec, f1 = {}, {}, {}
        for c in classes:
            tp = (w * ((p == c) & (y == c))).sum()
            pp = (w * (p == c)).sum()
            ap = (w * (y == c)).sum()
            prec[c] = float(tp / pp) if pp > 0 else 0.0
            rec[c] = float(tp / ap) if ap > 0 else math.nan
            r = rec[c] if ap > 0 else 0.0
            f1[c] = float(2 * prec[c] * r / (prec[c] + r)) if prec[c] + r > 0 else 0.0
        present = [c for c in classes if not math.isnan(rec[c])]
        out["balanced_accuracy"] = float(np.mean([rec[c] for c in present]))
        out.update(precision=prec, recall=rec, f1=f1,
                   macro_f1=float(np.mean([f1[c] for c in classes])))
        if s is not None:
            if len(classes) > 2:
                raise ValueError("scores are for binary streams (the positive class's)")
            positive = classes[-1]
            pos = y == positive
            out["roc_auc"] = _auc(pos, s, w)
            if s.min() >= 0.0 and s.max() <= 1.0:
                q = np.clip(s, EPS, 1 - EPS)
                out["log_loss"] = float(-(w * np.where(pos, np.log(q), np.log1p(-q))).sum()
                                        / W)
        return out
