"""Anomaly detectors side by side on one labelled stream (``olearn compare`` with
detectors): each detector's progressive scores (``score_learn``: every row scored
before it is learned, rows in their order, the label never reaching the model), their
exact ROC AUC and average precision, the pass's time, and the ROC curves in one plot.

One pass each, in the stream's order: a detector's stream is not permuted (attacks
come in runs, and a run is what a detector must survive), and nothing is tuned on the
labels."""
import time

import numpy as np

__all__ = ["compare_detectors", "DetectorComparison"]


def _check_labels(y):
    y = np.asarray(y)
    if not np.isin(y, (0, 1)).all():
        bad = np.flatnonzero(~np.isin(y, (0, 1)))[0]
        raise ValueError(f"anomaly labels must be 1 (an anomaly) or 0 (a normal row), "
                         f"got {y[bad].item()!r} at row {bad + 1}")
    if y.all() or not y.any():
        raise ValueError("the labels must hold both anomalies (1) and normal rows (0) "
                         "for a ROC curve")
    return y.astype(bool)


class DetectorComparison:
    """The result: ``rows`` (name, ROC AUC, average precision, updates, seconds), best
    ROC AUC first; ``scores`` (name -> each row's pre-update score); ``labels``."""

    def __init__(self, scores, labels, seconds, updates, dataset=""):
        from sklearn.metrics import average_precision_score, roc_auc_score
        self.scores, self.labels, self.dataset = scores, labels, dataset
        self.rows = sorted(((name, float(roc_auc_score(labels, s)),
                             float(average_precision_score(labels, s)), updates[name],
                             seconds[name]) for name, s in scores.items()),
                           key=lambda r: -r[1])

    _HEAD = ("detector", "ROC AUC", "average precision", "updates", "seconds")

    def _cells(self):
        return [(n, f"{a:.4f}", f"{p:.4f}", f"{u:,}", f"{t:.3f}")
                for n, a, p, u, t in self.rows]

    def __str__(self):
        cells = [self._HEAD, *self._cells()]
        widths = [max(len(c[i]) for c in cells) for i in range(len(self._HEAD))]
        lines = ["  ".join(c[i].ljust(widths[i]) if i == 0 else c[i].rjust(widths[i])
                           for i in range(len(c))) for c in cells]
        n, k = len(self.labels), int(self.labels.sum())
        return "\n".join([f"anomaly detectors on {self.dataset or 'the data'} ({n:,} rows, "
                          f"{k:,} anomalies; each row scored before it was learned, "
                          "exact ROC AUC)", *lines])

    def to_markdown(self):
        return "\n".join(["| " + " | ".join(self._HEAD) + " |",
                          "|" + "---|" * len(self._HEAD),
                          *("| " + " | ".join(c) + " |" for c in self._cells())]) + "\n"

    def to_csv(self):
        return "\n".join([",".join(self._HEAD),
                          *(f"{n},{a:.6f},{p:.6f},{u},{t:.6f}"
                            for n, a, p, u, t in self.rows)]) + "\n"

    def plot(self, path=None, ax=None):
        """The ROC curves (true positive rate against false positive rate), one per
        detector, with the chance diagonal; saved to ``path`` when given."""
        from sklearn.metrics import roc_curve

        from .._plots import colors, figure_and_axes, finish
        fig, ax = figure_and_axes(ax, figsize=(5.5, 5.0))
        for (name, auc, *_), color in zip(self.rows, colors(len(self.rows))):
            fpr, tpr, _ = roc_curve(self.labels, self.scores[name])
            ax.plot(fpr, tpr, color=color, label=f"{name} (AUC {auc:.4f})")
        ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1)
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.set_title(f"ROC, progressive scores: {self.dataset}" if self.dataset else
                     "ROC, progressive scores")
        ax.legend(loc="lower right", fontsize="small")
        return finish(fig, path)


def compare_detectors(models, X, y, dataset=""):
    """Each detector of ``models`` (name -> a fresh detector with ``score_learn``) on
    the rows ``X`` in order; ``y`` marks the anomalies (1) and is read only for the
    metrics.  Returns a :class:`DetectorComparison`."""
    labels = _check_labels(y)
    if len(labels) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {len(labels)}")
    scores, seconds, updates = {}, {}, {}
    for name, model in models.items():
        if not hasattr(model, "score_learn"):
            raise TypeError(f"{name} has no score_learn: not an anomaly detector")
        t0 = time.perf_counter()
        scores[name] = np.asarray(model.score_learn(X), dtype=np.float64)
        seconds[name] = time.perf_counter() - t0
        updates[name] = int(getattr(model, "n_updates_", 0))
    return DetectorComparison(scores, labels, seconds, updates, dataset)
