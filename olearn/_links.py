"""The logistic link of a classifier's scores, written once: ``predict_proba`` of every
classifier whose probabilities are the sigmoid (two classes) or the softmax over the
classes seen (more) of its scores (``olearn.base.OnlineClassifier``'s default, and
``olearn.linear.LogisticProba`` for the learners of a loss), and the same for one row
in plain Python (``predict_proba_one``: no per-call setup, no matrix).

``LOGISTIC_PROBAS`` holds the ``predict_proba`` functions that are this link: a class
whose ``predict_proba`` is one of them takes the one-row path in ``predict_proba_one``.
"""
import math

import numpy as np

__all__ = ["LOGISTIC_PROBAS", "logistic_one", "logistic_proba"]

#: the ``predict_proba`` functions that are the logistic link of the scores (filled as
#: the classes that define them are made)
LOGISTIC_PROBAS: set = set()


def logistic_proba(model, scores):
    """Probabilities from decision values: binary sigmoid or masked softmax."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        p = np.empty(scores.shape[0])
        pos = scores >= 0
        p[pos] = 1.0 / (1.0 + np.exp(-scores[pos]))
        e = np.exp(scores[~pos])
        p[~pos] = e / (1.0 + e)
        if len(model.classes_) == 1:
            return np.ones((scores.shape[0], 1))
        return np.column_stack([1.0 - p, p])
    s = np.where(model.seen_.astype(bool), scores, -np.inf)
    s = np.exp(s - s.max(axis=1, keepdims=True))
    return s / s.sum(axis=1, keepdims=True)


def logistic_one(scores, classes, seen):
    """``{label: probability}`` from one row's scores ``(K,)``: the sigmoid of the one
    score (two classes; a single class known: probability 1), the softmax over the
    classes ``seen`` flags (K > 2 rows); plain Python on the few numbers."""
    keys = classes.tolist()
    if len(scores) == 1:
        if len(keys) == 1:
            return {keys[0]: 1.0}
        s = float(scores[0])
        if s >= 0.0:
            p = 1.0 / (1.0 + math.exp(-s))
        else:
            e = math.exp(s)
            p = e / (1.0 + e)
        return {keys[0]: 1.0 - p, keys[1]: p}
    flags = seen.tolist()
    sc = scores.tolist()
    top = max([v for v, f in zip(sc, flags) if f], default=0.0)
    ex = [math.exp(v - top) if f else 0.0 for v, f in zip(sc, flags)]
    total = sum(ex)
    return {k: e / total for k, e in zip(keys, ex)}


