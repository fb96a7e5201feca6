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

Metric names (``olearn evaluate/compare --metric``, :data:`METRICS`): classification
``accuracy``, ``balanced-accuracy``, ``precision``, ``recall``, ``f1`` (per class, and
macro F1), ``auc``, ``logloss``; regression ``mae``, ``rmse``, ``r2``.
:func:`predict_learn_scored` gives the pre-update labels and, for ``auc``, the
pre-update decision values of any two-class learner, or, for ``logloss``, pre-update
probabilities:

* calibrated probabilities, a function of the decision value (exact and free in the
  compiled pass): the learners trained with the logistic loss that have
  ``predict_proba`` (``ogd``/``adagrad``, ``cocob`` and ``ndag`` with
  ``loss="logistic"`` (the default of the last two), ``ftrl``, and ``rda``, ``ada-rda``,
  ``fobos``, ``ada-fobos``, ``truncated-gradient`` with ``loss="logistic"``; multiclass:
  the softmax over the classes seen):
  the sigmoid of the margin;
* the Gaussian-margin classifiers ``cw``, ``scw``, ``scw2`` and ``arow``
  (``Phi(mu.x / sqrt(x'Sx))``, two classes): the probability needs the margin's variance before the update, so
  those rows are run one at a time (exact, but slow: about 2 ms a row, 32,561 rows of
  a9a in two minutes on a loaded 2-core box).  Measured there, these probit
  probabilities are far from calibrated: SCW's progressive log-loss on a9a is 4.6
  (FTRL's logistic 0.33), its margin over the margin's deviation being large;
* no probabilities: the margin learners (Perceptron, PA, ALMA, ROMMA, NAROW,
  NHERD, SOP, IELLIP, OFS, kernel learners, hinge-loss OGD/sparse) and the ensembles:
  their scores are margins or votes, not probabilities, so ``logloss`` is refused in
  one line (``auc`` needs only a ranking and works for every two-class learner).
"""
import math

import numpy as np

EPS = 1e-15

#: metric name -> (task, key of :meth:`StreamMetrics.result`, higher is better)
METRICS = {
    "accuracy": ("classification", "accuracy", True),
    "balanced-accuracy": ("classification", "balanced_accuracy", True),
    "precision": ("classification", "precision", True),
    "recall": ("classification", "recall", True),
    "f1": ("classification", "f1", True),
    "auc": ("classification", "roc_auc", True),
    "logloss": ("classification", "log_loss", False),
    "mae": ("regression", "mae", False),
    "rmse": ("regression", "rmse", False),
    "r2": ("regression", "r2", True),
}


def parse_metrics(text):
    """``"accuracy,f1"`` (or a list) -> ``["accuracy", "f1"]``; an unknown name is a
    ValueError naming it and the known ones; mixing classification and regression
    metrics too."""
    names = [m.strip().lower().replace("_", "-") for m in
             (text.split(",") if isinstance(text, str) else list(text or ()))]
    names = [m for m in names if m]
    if not names:
        raise ValueError("no metric named; known: " + ", ".join(METRICS))
    aliases = {"balanced": "balanced-accuracy", "log-loss": "logloss",
               "roc-auc": "auc", "f1-score": "f1"}
    out = []
    for m in names:
        m = aliases.get(m, m)
        if m not in METRICS:
            raise ValueError(f"unknown metric {m!r}; known: {', '.join(METRICS)}")
        if m not in out:
            out.append(m)
    if len({METRICS[m][0] for m in out}) > 1:
        raise ValueError("metrics mix classification and regression: "
                         + ", ".join(out))
    return out


def metrics_task(names):
    """"classification" or "regression": the task of (parsed) metric names."""
    return METRICS[names[0]][0]


def needs_scores(names):
    """None, "score" (auc: decision values) or "proba" (logloss: probabilities)."""
    if "logloss" in names:
        return "proba"
    return "score" if "auc" in names else None


def _proba_from_score(model):
    """True when the model's probability is the sigmoid of its decision value (the
    logistic loss), so the pass's pre-update scores give it exactly."""
    if not hasattr(model, "predict_proba") or getattr(model, "loss", None) != "logistic":
        return False
    from ..linear import LogisticProba
    return isinstance(model, LogisticProba)


def check_scores_available(model, need, name="the learner"):
    """A clear ValueError when ``model`` cannot give what ``need`` asks for."""
    if need is None:
        return
    from .._estimator import is_classifier
    if not is_classifier(model):
        raise ValueError("auc and logloss are classification metrics")
    if need == "score" and not _can_score(model):
        raise ValueError(f"auc needs decision values: {name} has no decision_function")
    if need == "proba" and not hasattr(model, "predict_proba"):
        raise ValueError(f"logloss needs probabilities: {name} has no predict_proba "
                         "(learners with one: ogd, adagrad, cocob, ndag, ftrl, rda, ada-rda, "
                         "fobos, ada-fobos, truncated-gradient with loss=logistic; cw, scw, "
                         "scw2, arow); "
                         "use auc for a ranking")


def _can_score(model):
    return hasattr(model, "decision_function") or hasattr(model, "members_") or \
        hasattr(model, "learners")


def _labels_of_scores(model, s):
    """The labels ``predict_learn`` gives, from its pre-update binary scores (the
    compiled pass predicts index ``score > 0`` among the classes seen)."""
    classes = np.asarray(model.classes_)
    return classes[np.minimum((s > 0).astype(np.int64), len(classes) - 1)]


def predict_learn_scored(model, X, y, need, sample_weight=None):
    """``model.predict_learn(X, y)`` that also returns, for each row, the pre-update
    decision value (``need="score"``) or probability of the larger label
    (``need="proba"``) of a two-class stream: ``(labels, values)``.  A multiclass
    stream is a ValueError (auc and logloss are binary here)."""
    if need == "proba" and not _proba_from_score(model):
        if not hasattr(model, "predict_proba"):
            check_scores_available(model, need, type(model).__name__)
        return _one_at_a_time(model, X, y, sample_weight)
    known = model.__dict__.get("classes_")
    known = [] if known is None else list(known)
    weights = {} if sample_weight is None else {"sample_weight": sample_weight}
    s = np.asarray(model.predict_learn(X, y, return_scores=True, **weights),
                   dtype=np.float64)
    if s.ndim == 2 and s.shape[1] > 1:
        raise ValueError("auc and logloss are for two-class streams: this one has "
                         f"{s.shape[1]} classes")
    s = s.reshape(-1)
    labels = _labels_of_scores(model, s)
    if need == "proba":
        from ..linear import logistic_proba as _proba
        if len(model.classes_) < 2:
            return labels, np.full(s.shape[0], 0.5)
        p = _proba(model, s)[:, -1]
        if len(known) < 2:      # rows up to the second label's first: 1/2 (no model yet)
            y = np.asarray(y)
            first = known[0] if known else y[0]
            other = np.flatnonzero(y != first)
            p[:int(other[0]) + 1 if len(other) else len(p)] = 0.5
        return labels, p
    return labels, s


def _one_at_a_time(model, X, y, sample_weight=None):
    """Pre-update probabilities of a learner whose probability is not a function of its
    score alone (CW/SCW: the margin's variance too): one row at a time.  Before two
    classes are known the probability is 1/2."""
    y = np.asarray(y)
    n = X.shape[0]
    labels = np.empty(n, dtype=y.dtype if y.dtype.kind != "U" else object)
    p = np.full(n, 0.5)
    known = model.__dict__.get("classes_")
    start = 0
    w = None if sample_weight is None else np.broadcast_to(
        np.asarray(sample_weight, dtype=np.float64), (n,))

    def learn(rows):
        return model.predict_learn(X[rows], y[rows]) if w is None else \
            model.predict_learn(X[rows], y[rows], sample_weight=w[rows])

    if known is None or len(known) < 2:   # no model yet: up to the second label, at once
        first = known[0] if known is not None and len(known) else y[0]
        other = np.flatnonzero(y != first)
        start = int(other[0]) + 1 if len(other) else n
        labels[:start] = learn(slice(0, start))
    for i in range(start, n):
        p[i] = model.predict_proba(X[i:i + 1])[0, 1]
        labels[i] = learn(slice(i, i + 1))[0]
    if labels.dtype == object:
        labels = labels.astype(y.dtype)
    return labels, p


def report(names, result):
    """``[(label, value)]``: the figures of ``names`` from a :meth:`StreamMetrics.result`
    dict (precision, recall, F1 per class; F1 also macro)."""
    out = []
    for m in names:
        key = METRICS[m][1]
        v = result.get(key, math.nan)
        if isinstance(v, dict):
            for c, x in v.items():
                out.append((f"{m} [{_label_text(c)}]", x))
            if m == "f1":
                out.append(("macro f1", result.get("macro_f1", math.nan)))
        else:
            out.append((m, v))
    return out


def _label_text(c):
    c = c.item() if hasattr(c, "item") else c
    if isinstance(c, float) and c.is_integer() and abs(c) < 1e15:
        return str(int(c))
    return str(c)


def headline(names, result):
    """One number for ``names[0]`` (per-class metrics: the macro mean; the larger
    label's for precision and recall of a two-class stream)."""
    m = names[0]
    v = result.get(METRICS[m][1], math.nan)
    if isinstance(v, dict):
        if m == "f1":
            return float(result.get("macro_f1", math.nan))
        vals = list(v.values())
        return float(vals[-1]) if len(vals) == 2 else float(np.nanmean(vals))
    return float(v)


def check_memory(window, fading):
    """ValueError unless ``window`` (an int >= 1) and ``fading`` (in (0, 1]) are valid,
    at most one of them given (None: not given)."""
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
        check_memory(window, fading)
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

    Memory: a windowed or faded stream keeps only the rows that still weigh something.
    A cumulative one keeps counts: the (label, prediction) pairs seen, with their
    numbers, or for regression running sums (Chan, Golub and LeVeque's pairwise update
    of the mean and the sum of squares); only scores (for ROC AUC and log-loss) are
    kept row by row, 8 bytes a row, since the exact AUC needs every score.
    """

    def __init__(self, task="classification", window=None, fading=None, classes=None):
        if task not in ("classification", "regression"):
            raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
        check_memory(window, fading)
        self.task, self.window, self.fading = task, window, fading
        self.classes = None if classes is None else list(classes)
        self._y, self._p, self._s, self._w = [], [], [], []
        self._sums = None  # cumulative regression: n, mean of y, its M2, sum |e|, sum e^2
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
        if self.window is None and self.fading is None:
            self._compress()
        self._trim()
        return self

    def _compress(self):
        """Cumulative stream: rows to counts (or sums); scores, when given, stay."""
        if self.task == "regression":
            y = np.concatenate(self._y).astype(np.float64)
            e = np.concatenate(self._p).astype(np.float64) - y
            self._y, self._p = [], []
            m, mean, m2 = y.shape[0], float(y.mean()), float(((y - y.mean()) ** 2).sum())
            if self._sums is None:
                self._sums = [m, mean, m2, float(np.abs(e).sum()), float((e * e).sum())]
                return
            n0, mean0, m20, ae, se = self._sums
            n = n0 + m
            delta = mean - mean0
            self._sums = [n, mean0 + delta * m / n, m20 + m2 + delta * delta * n0 * m / n,
                          ae + float(np.abs(e).sum()), se + float((e * e).sum())]
            return
        if self._s:  # the AUC needs each row's score: rows stay
            return
        y, p = np.concatenate(self._y), np.concatenate(self._p)
        counted = np.concatenate(self._w) if self._w else np.zeros(0)
        w = np.concatenate([counted, np.ones(y.shape[0] - counted.shape[0])])
        yu, yi = np.unique(y, return_inverse=True)
        pu, pi = np.unique(p, return_inverse=True)
        codes = yi.ravel() * len(pu) + pi.ravel()
        kept, inverse = np.unique(codes, return_inverse=True)
        self._y = [yu[kept // len(pu)]]
        self._p = [pu[kept % len(pu)]]
        self._w = [np.bincount(inverse.ravel(), weights=w, minlength=len(kept))]
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
        if self._w:
            w = np.concatenate(self._w)
        elif self.fading is not None:
            w = float(self.fading) ** np.arange(m - 1, -1, -1, dtype=np.float64)
        else:
            w = np.ones(m)
        return y, p, s, w

    def result(self):
        """The figures over the rows that count (a dict; NaN where undefined)."""
        if self._sums is not None:
            n, _, m2, ae, se = self._sums
            return {"mae": ae / n, "rmse": math.sqrt(se / n),
                    "r2": float(1 - se / m2) if m2 > 0 else math.nan, "rows": int(n)}
        y, p, s, w = self._rows()
        if y.shape[0] == 0:
            raise ValueError("no rows yet")
        W = w.sum()
        rows = self.n if self.window is None and self.fading is None else len(y)
        if self.task == "regression":
            y, p = y.astype(np.float64), p.astype(np.float64)
            e = p - y
            mean = (w * y).sum() / W
            sst = (w * (y - mean) ** 2).sum()
            sse = (w * e * e).sum()
            return {"mae": float((w * np.abs(e)).sum() / W), "rmse": math.sqrt(sse / W),
                    "r2": float(1 - sse / sst) if sst > 0 else math.nan, "rows": rows}
        classes = self.classes if self.classes is not None else \
            np.unique(np.concatenate([y, p])).tolist()
        out = {"accuracy": float((w * (y == p)).sum() / W), "rows": rows}
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
