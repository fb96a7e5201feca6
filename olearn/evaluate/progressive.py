"""Progressive validation (test-then-train): every row is first predicted by the
current model, then learned from.  The running mean of those pre-update losses is
an honest estimate of the error on unseen data, with no held-out set (Blum, Kalai and
Langford, "Beating the hold-out", COLT 1999), and the figure Vowpal Wabbit prints.

Loss per row: classification (``sklearn.base.is_classifier``) the 0/1 mistake;
regression the squared error (the mean absolute error is kept beside it).
Checkpoint values are exact: per-row losses are summed with a cumulative sum inside
each chunk, so chunking never changes them.
"""
import time
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp


class Checkpoint(NamedTuple):
    """State after ``rows`` rows: ``mean`` is the cumulative mean loss, ``since_last``
    the mean loss since the previous checkpoint, ``label``/``prediction`` those of the
    checkpoint's own row (the last one counted)."""
    rows: int
    mean: float
    since_last: float
    label: object
    prediction: object


def _is_pair(data):
    return (isinstance(data, tuple) and len(data) == 2 and not isinstance(data[0], tuple)
            and (sp.issparse(data[0]) or np.ndim(data[0]) == 2))


def widening(model, chunks):
    """``chunks`` passed through with ``model`` kept as wide as they are: a stream read
    without a fixed width (``read_libsvm`` on standard input without ``n_features``)
    gives chunks whose width grows, and a wider chunk first widens the model
    (``olearn._estimator.widen``); a narrower one (a later pass over cached chunks) is
    padded with zero columns.  A model outside olearn's protocol
    (:class:`olearn.protocol.Model`, whose ``widen`` this is) gets the chunks as they are."""
    from .._estimator import widen
    from ..protocol import Model
    grows = isinstance(model, Model)
    last = None
    for chunk in chunks:
        X = chunk[0]
        if X.shape[1] != last and grows:
            last = X.shape[1]
            width = widen(model, last)
            if width is not None and width > last:
                if sp.issparse(X):
                    X = X.tocsr()
                    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
                else:
                    X = np.hstack([X, np.zeros((X.shape[0], width - last))])
                chunk = (X, *chunk[1:])
                last = None  # the next chunk of this width is padded too
        yield chunk


def _array_chunks(X, y, chunk_size):
    y = np.asarray(y)
    if sp.issparse(X) and X.format != "csr":
        X = sp.csr_matrix(X)
    n = X.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
    for i in range(0, n, chunk_size):
        yield X[i:i + chunk_size], y[i:i + chunk_size]


class _Doubling:
    """1, 2, 4, 8, ... (Vowpal Wabbit's progress lines)."""
    def __init__(self):
        self.next = 1

    def after(self, n):
        while self.next <= n:
            self.next *= 2
        return self.next


class _Every:
    def __init__(self, step):
        self.step = self.next = step

    def after(self, n):
        return (n // self.step + 1) * self.step


class _Listed:
    def __init__(self, rows):
        self.rows = sorted({int(r) for r in rows if int(r) >= 1})

    def after(self, n):
        return next((r for r in self.rows if r > n), None)


def _schedule(checkpoints):
    if checkpoints is None:
        return _Doubling()
    if isinstance(checkpoints, (int, np.integer)):
        if checkpoints < 1:
            raise ValueError(f"checkpoints must be >= 1 rows apart, got {checkpoints}")
        return _Every(int(checkpoints))
    return _Listed(checkpoints)


def progressive(model, data, checkpoints=None, chunk_size=10_000, on_checkpoint=None,
                window=None, fading=None, metrics=None, widen=True):
    """Progressive validation of ``model`` on ``data``; returns a :class:`ProgressiveResult`.

    Parameters
    ----------
    model : an olearn learner (anything with ``predict_learn``); it is updated in place.
    data : ``(X, y)`` arrays (dense or sparse), or an iterable of ``(X_chunk, y_chunk)``
        such as ``olearn.io.read_libsvm(path)`` (read in constant memory), or of
        ``(X_chunk, y_chunk, weights)`` (``read_vw(..., sample_weight=True)``): each
        row's update is scaled by its weight (``None``: 1); the progressive loss stays a
        mean over rows.
    checkpoints : None (doubling: 1, 2, 4, ... rows, as Vowpal Wabbit prints), an int
        (every that many rows) or a list of row counts.  The last row is always one.
    chunk_size : rows per ``predict_learn`` call when ``data`` is arrays.
    on_checkpoint : optional callable receiving each :class:`Checkpoint` as it is reached
        (the command line prints progress with it).
    window : int or None, also record the mean loss of the last ``window`` rows at each
        checkpoint (``result.recent``).
    fading : float in (0, 1] or None, or the faded mean loss (Gama et al. 2013).
    metrics : None, or metric names (a list or "accuracy,f1"; see
        :data:`olearn.evaluate.metrics.METRICS`): their progressive values over the whole
        stream (``result.metrics``) and, with ``window`` or ``fading``, over the window or
        faded (``result.recent_metrics``), from the pre-update predictions (and, for
        ``auc`` / ``logloss``, the pre-update scores or probabilities).
    An anomaly detector (a model without a target, with ``score_learn``) is scored
    instead: ``y`` marks the anomalies (1 or True; 0 or False: a normal row) and is read
    only for the metric, never learned from; the result's ``roc_auc`` and
    ``average_precision`` (and ``values`` at each checkpoint: the ROC AUC so far) are
    exact over every row's pre-update score.
    widen : bool, keep the model as wide as the chunks of an iterable ``data``
        (:func:`widening`); False when the chunks come through :func:`widening` already
        (the command line widens before it scores held-out rows), so that the stream is
        widened once.
    """
    from .metrics import (StreamMetrics, check_scores_available, metrics_task,
                          needs_scores, parse_metrics, predict_learn_scored, running_mean)
    from .._estimator import is_classifier
    from .._tags import target_of
    if not hasattr(model, "predict_learn"):
        raise TypeError(f"{type(model).__name__} has no predict_learn: not an online learner")
    if int(chunk_size) < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    if target_of(model) == "none":
        if metrics is not None or window is not None or fading is not None:
            raise ValueError("an anomaly detector's progressive validation reports ROC AUC "
                             "and average precision over the whole stream: metrics=, "
                             "window= and fading= do not apply")
        chunks = _array_chunks(*data, int(chunk_size)) if _is_pair(data) else \
            (widening(model, data) if widen else data)
        return _progressive_anomaly(model, chunks, _schedule(checkpoints), on_checkpoint)
    classify = is_classifier(model)
    need = None
    if metrics is not None:
        metrics = parse_metrics(metrics)
        task = "classification" if classify else "regression"
        if metrics_task(metrics) != task:
            raise ValueError(f"{', '.join(metrics)}: {metrics_task(metrics)} metrics, but "
                             f"{type(model).__name__} does {task}")
        need = needs_scores(metrics)
        check_scores_available(model, need, type(model).__name__)
        stream_all = StreamMetrics(task)
        stream_recent = StreamMetrics(task, window=window, fading=fading) \
            if window is not None or fading is not None else None
    curve = running_mean(window, fading) if window is not None or fading is not None \
        else None
    recent, last_recent = [], None
    if _is_pair(data):
        chunks = _array_chunks(*data, int(chunk_size))
    else:
        chunks = widening(model, data) if widen else data
    schedule = _schedule(checkpoints)
    updates0 = getattr(model, "n_updates_", 0)
    n = 0
    total = total_abs = 0.0
    last_rows, last_sum = 0, 0.0
    nxt = schedule.after(0)
    marks, sums, abs_sums = [], [], []
    learn_seconds = 0.0
    t_start = time.perf_counter()
    last_label = last_pred = None

    def record(rows, s, sa, label, pred):
        nonlocal last_rows, last_sum
        marks.append(rows)
        sums.append(s)
        abs_sums.append(sa)
        cp = Checkpoint(rows, float(s / rows), float((s - last_sum) / (rows - last_rows)),
                        label, pred)
        last_rows, last_sum = rows, s
        if on_checkpoint is not None:
            on_checkpoint(cp)

    for chunk in chunks:
        X, y = chunk[0], np.asarray(chunk[1])
        weights = {} if len(chunk) < 3 or chunk[2] is None else {"sample_weight": chunk[2]}
        t0 = time.perf_counter()
        if need is None:
            pred, values = model.predict_learn(X, y, **weights), None
        else:
            pred, values = predict_learn_scored(model, X, y, need, **weights)
        learn_seconds += time.perf_counter() - t0
        m = len(y)
        if m == 0:
            continue
        if metrics is not None:
            for sm in (stream_all, stream_recent):
                if sm is not None:
                    sm.update(y, np.asarray(pred), values)
        if classify:
            loss = (np.asarray(pred) != y).astype(np.float64)
            cum, cum_abs = np.cumsum(loss), None
        else:
            err = np.asarray(pred, dtype=np.float64) - y.astype(np.float64)
            loss = err * err
            cum, cum_abs = np.cumsum(loss), np.cumsum(np.abs(err))
        run = None if curve is None else curve.update(loss)
        if run is not None:
            last_recent = float(run[-1])
        while nxt is not None and nxt <= n + m:
            j = nxt - n - 1
            if run is not None:
                recent.append(float(run[j]))
            record(nxt, total + cum[j], total_abs + (cum_abs[j] if cum_abs is not None else 0),
                   y[j], pred[j])
            nxt = schedule.after(nxt)
        n += m
        total += cum[-1]
        total_abs += cum_abs[-1] if cum_abs is not None else 0.0
        last_label, last_pred = y[-1], pred[-1]
    if n == 0:
        raise ValueError("no rows to evaluate: the data is empty")
    if not marks or marks[-1] != n:
        if curve is not None:
            recent.append(last_recent)
        record(n, total, total_abs, last_label, last_pred)
    return ProgressiveResult(
        task="classification" if classify else "regression",
        checkpoints=np.array(marks, dtype=np.int64), loss_sums=np.array(sums),
        abs_sums=None if classify else np.array(abs_sums),
        n_updates=int(getattr(model, "n_updates_", 0) - updates0),
        seconds=learn_seconds, total_seconds=time.perf_counter() - t_start,
        model_name=type(model).__name__,
        recent=None if curve is None else np.array(recent),
        recent_label=None if curve is None else
        (f"window {window}" if window is not None else f"fading {fading}"),
        metric_names=metrics,
        metrics=None if metrics is None else stream_all.result(),
        recent_metrics=None if metrics is None or stream_recent is None
        else stream_recent.result())


def _progressive_anomaly(model, chunks, schedule, on_checkpoint):
    """Progressive validation of an anomaly detector: each row's anomaly score from the
    model before the row (``score_learn``: the label never reaches the model), and the
    exact ROC AUC and average precision of those scores against the labels (1 or True:
    an anomaly, 0 or False: a normal row) over the rows so far, at each checkpoint.
    Exact, so every row's score and label are kept (9 bytes a row), unlike River's
    ``ROCAUC`` (a fixed number of thresholds)."""
    from sklearn.metrics import average_precision_score, roc_auc_score
    if not hasattr(model, "score_learn"):
        raise TypeError(f"{type(model).__name__} learns without a target but has no "
                        "score_learn: not an anomaly detector, so no progressive ROC AUC")

    def both(y, s):
        if y.all() or not y.any():
            return float("nan"), float("nan")
        return float(roc_auc_score(y, s)), float(average_precision_score(y, s))

    scores, labels = [], []
    marks = []
    n, nxt, learn_seconds = 0, schedule.after(0), 0.0
    t_start = time.perf_counter()
    updates0 = getattr(model, "n_updates_", 0)
    for chunk in chunks:
        X, y = chunk[0], np.asarray(chunk[1])
        if y.size and not np.isin(y, (0, 1)).all():
            bad = y[~np.isin(y, (0, 1))][0]
            raise ValueError(f"anomaly labels must be 1 (an anomaly) or 0 (a normal row), "
                             f"got {bad.item()!r} at row {n + int(np.flatnonzero(y == bad)[0]) + 1}")
        weights = {} if len(chunk) < 3 or chunk[2] is None else {"sample_weight": chunk[2]}
        t0 = time.perf_counter()
        s = np.asarray(model.score_learn(X, **weights), dtype=np.float64)
        learn_seconds += time.perf_counter() - t0
        scores.append(s)
        labels.append(y.astype(bool))
        m = len(y)
        while nxt is not None and nxt <= n + m:
            marks.append(nxt)
            nxt = schedule.after(nxt)
        n += m
    if n == 0:
        raise ValueError("no rows to evaluate: the data is empty")
    if not marks or marks[-1] != n:
        marks.append(n)
    S, Y = np.concatenate(scores), np.concatenate(labels)
    values = []
    for k in marks:
        auc, ap = both(Y[:k], S[:k])
        values.append(auc)
        if on_checkpoint is not None:
            on_checkpoint(Checkpoint(k, auc, auc, Y[k - 1], S[k - 1]))
    auc, ap = both(Y, S)
    checkpoints = np.array(marks, dtype=np.int64)
    return ProgressiveResult(
        task="anomaly", checkpoints=checkpoints,
        loss_sums=np.array(values) * checkpoints, abs_sums=None,
        n_updates=int(getattr(model, "n_updates_", 0) - updates0),
        seconds=learn_seconds, total_seconds=time.perf_counter() - t_start,
        model_name=type(model).__name__,
        metrics={"roc_auc": auc, "average_precision": ap,
                 "anomalies": float(Y.sum())})


def _plain(d):
    """A metrics dict with JSON-able keys and values (labels as text, NaN as None)."""
    if d is None:
        return None
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out[k] = _plain({str(getattr(c, "item", lambda: c)()): x for c, x in v.items()})
        else:
            v = float(v)
            out[str(k)] = None if v != v else v
    return out


class ProgressiveResult:
    """What :func:`progressive` measured.

    Attributes: ``task`` ("classification", "regression" or "anomaly"), ``metric`` (its
    name; for "anomaly" the ROC AUC so far, with ``roc_auc`` and ``average_precision``
    of the whole stream),
    ``checkpoints`` (row counts), ``values`` (the cumulative mean loss at each),
    ``mae`` (regression: cumulative mean absolute error at each, else None), ``final``,
    ``n_rows``, ``n_mistakes`` (classification), ``n_updates`` (updates made during the
    run), ``seconds`` (time inside ``predict_learn``), ``total_seconds`` (wall time,
    reading the stream included), ``rows_per_second`` (``n_rows / seconds``);
    ``recent`` (the windowed or faded mean loss at each checkpoint) and ``recent_label``;
    with ``metrics=``: ``metric_names``, ``metrics`` (the
    :meth:`~olearn.evaluate.metrics.StreamMetrics.result` dict over the whole stream)
    and ``recent_metrics`` (over the window, or faded; None without either).
    """

    def __init__(self, task, checkpoints, loss_sums, abs_sums, n_updates, seconds,
                 total_seconds, model_name="", recent=None, recent_label=None,
                 metric_names=None, metrics=None, recent_metrics=None):
        self.metric_names = metric_names
        self.metrics = metrics
        self.recent_metrics = recent_metrics
        self.recent = recent              # windowed / faded mean loss at each checkpoint
        self.recent_label = recent_label
        self.task = task
        self.metric = {"classification": "mistake rate",
                       "anomaly": "ROC AUC"}.get(task, "squared error")
        self.checkpoints = checkpoints
        self.loss_sums = loss_sums
        self.values = loss_sums / checkpoints
        self.mae = None if abs_sums is None else abs_sums / checkpoints
        self.n_rows = int(checkpoints[-1])
        self.final = float(self.values[-1])
        self.n_mistakes = int(round(loss_sums[-1])) if task == "classification" else None
        #: anomaly detectors: the exact ROC AUC and average precision of the whole stream
        self.roc_auc = metrics["roc_auc"] if task == "anomaly" else None
        self.average_precision = metrics["average_precision"] if task == "anomaly" else None
        self.n_updates = n_updates
        self.seconds = seconds
        self.total_seconds = total_seconds
        self.rows_per_second = self.n_rows / seconds if seconds > 0 else float("inf")
        self.model_name = model_name

    def to_dict(self):
        """Plain Python values (JSON-serialisable)."""
        return {"task": self.task, "metric": self.metric, "model": self.model_name,
                "n_rows": self.n_rows, "final": self.final, "n_mistakes": self.n_mistakes,
                "final_mae": None if self.mae is None else float(self.mae[-1]),
                "n_updates": self.n_updates, "seconds": self.seconds,
                "total_seconds": self.total_seconds, "rows_per_second": self.rows_per_second,
                "checkpoints": self.checkpoints.tolist(), "values": self.values.tolist(),
                "mae": None if self.mae is None else self.mae.tolist(),
                "recent": None if self.recent is None else self.recent.tolist(),
                "recent_label": self.recent_label,
                "metrics": _plain(self.metrics), "recent_metrics": _plain(self.recent_metrics)}

    def metric_table(self):
        """``[(name, whole-stream value, windowed/faded value or None)]`` for the
        ``metrics=`` asked (per class for precision, recall, F1)."""
        if self.metric_names is None:
            return []
        from .metrics import report
        whole = report(self.metric_names, self.metrics)
        recent = report(self.metric_names, self.recent_metrics) \
            if self.recent_metrics is not None else [(k, None) for k, _ in whole]
        rec = dict(recent)
        return [(k, v, rec.get(k)) for k, v in whole]

    def __repr__(self):
        return (f"ProgressiveResult({self.model_name or 'model'}: {self.metric} "
                f"{self.final:.6g} over {self.n_rows} rows)")

    def __str__(self):
        lines = [f"progressive validation of {self.model_name or 'the model'}: "
                 f"{self.n_rows:,} rows"]
        if self.task == "classification":
            lines.append(f"  mistake rate   {self.final:.4f} ({self.n_mistakes:,} mistakes)")
        elif self.task == "anomaly":
            lines.append(f"  ROC AUC        {self.roc_auc:.4f} (exact, pre-update scores; "
                         f"{int(self.metrics['anomalies']):,} anomalies)")
            lines.append(f"  avg precision  {self.average_precision:.4f}")
        else:
            lines.append(f"  squared error  {self.final:.6g} (mean)")
            lines.append(f"  absolute error {float(self.mae[-1]):.6g} (mean)")
        lines.append(f"  updates        {self.n_updates:,}")
        lines.append(f"  time           {self.seconds:.3f} s learning, "
                     f"{self.total_seconds:.3f} s in all ({self.rows_per_second:,.0f} rows/s)")
        lines += ["  " + line for line in self.metric_lines()]
        return "\n".join(lines)

    def metric_lines(self):
        """The ``metrics=`` figures as aligned text lines: name, whole stream, and the
        windowed or faded value beside it."""
        table = self.metric_table()
        if not table:
            return []
        width = max(len("metric"), *(len(k) for k, _, _ in table))
        extra = self.recent_label if self.recent_metrics is not None else None
        head = f"{'metric':<{width}}  {'progressive':>11}" + \
            (f"  {extra:>14}" if extra else "")
        out = [head]
        for k, v, r in table:
            line = f"{k:<{width}}  {v:>11.4f}"
            if extra:
                line += f"  {r:>14.4f}"
            out.append(line)
        return out

    def plot(self, ax=None, label=None, **kwargs):
        """Draw the cumulative mean loss against rows seen (log x-axis); returns ``ax``."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("plotting needs matplotlib: pip install 'olearn[plot]'") from None
        if ax is None:
            _, ax = plt.subplots()
        line, = ax.plot(self.checkpoints, self.values, marker=".",
                        label=label or self.model_name, **kwargs)
        if self.recent is not None:
            ax.plot(self.checkpoints, self.recent, linestyle="--", color=line.get_color(),
                    label=f"{label or self.model_name} ({self.recent_label})")
        ax.set_xscale("log")
        ax.set_xlabel("rows seen")
        ax.set_ylabel(f"cumulative {self.metric}")
        ax.grid(True, alpha=0.3)
        if label or self.model_name:
            ax.legend()
        return ax
