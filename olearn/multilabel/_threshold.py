"""Calibrated thresholds of the reductions (``threshold=`` of
:class:`~olearn.multilabel.BinaryRelevance` and :class:`~olearn.multilabel.ClassifierChain`).

A reduction's label j has a score ``s_j`` (its binary model's decision function), and by
default is predicted where its binary model predicts it (``threshold="fixed"``: the
score's cut at 0).  Score-based thresholding (Yang, "A Study of Thresholding Strategies
for Text Categorization", SIGIR 2001, section 2: SCut chooses each category's threshold
that optimises its own F1 on a validation set; Fan and Lin, "A Study on Threshold
Selection for Multi-label Classification", 2007, section 2) chooses the cut from data.
Here it is made progressive: the validation set of row i is the rows before it, with
the scores those rows had before they were learned (the scores ``predict_learn``
returns), so no row is held out and a cut is never chosen with the row it judges.
The cut is chosen among the candidates ``cuts`` (default 41 points evenly from -1 to
1: a margin learner's scores are pushed to +-1); a row's weight multiplies what it adds.

``"calibrated"`` (one cut for every label: SCut's choice made once for all labels, for
the example-based F1 that the row-wise metrics report): before row i, the cut t is the candidate that
maximises the sum over the rows r < i of ``w_r F1_r(t)``, where ``F1_r(t) = 2 |P & Y| /
(|P| + |Y|)`` with ``P = {j : s_rj > t}`` (1 where both sets are empty).  State: the (K,)
sums, one per candidate.

``"scut"`` (Yang's SCut, one cut a label, chosen for the label's F1): before row i, label
j's cut is the candidate that maximises ``2 TP / (2 TP + FP + FN)`` of the rows r < i
predicted ``s_rj > t`` (1 where ``2 TP + FP + FN = 0``: the label never relevant nor
predicted).  State: (L, 3, K) weighted counts TP, FP, FN of each label and candidate.

Ties go to the candidate nearest 0 (the fixed cut), then the lower one; before any row,
every candidate ties and the cut is the candidate nearest 0.  A label takes part in a row
only once it is predictable there (after the row that makes it known; before, it is never
predicted, and a relevant one counts as missed).  The label predicted is ``s_j > t_j``,
and the scores returned (``decision_function``, ``predict_learn``) are ``s_j - t_j``.
The cut changes no binary model: it is chosen after them, from their scores.
"""
from __future__ import annotations

import numpy as np

#: the choices of ``threshold``
THRESHOLDS = ("fixed", "calibrated", "scut")

#: the candidate cuts when ``cuts`` is None
DEFAULT_CUTS = np.linspace(-1.0, 1.0, 41)

#: rows x labels x candidates held at once in :func:`learn`
_BLOCK = 1 << 21


def check_cuts(cuts):
    """The candidate cuts as a 1-D float array (None: :data:`DEFAULT_CUTS`)."""
    if cuts is None:
        return DEFAULT_CUTS
    try:
        out = np.asarray(cuts, dtype=np.float64)
    except (TypeError, ValueError):
        out = None
    if out is None or out.ndim != 1 or out.size == 0 or not np.isfinite(out).all() or \
            len(np.unique(out)) != out.size:
        raise ValueError(f"cuts must be a non-empty list of distinct finite numbers or "
                         f"None, got {cuts!r:.60}")
    return out


def preference(cuts):
    """The candidates' indices in the order ties are broken: nearest 0 first, then the
    lower."""
    return np.lexsort((cuts, np.abs(cuts)))


def fresh(mode, L, K):
    """The counts before any row."""
    return np.zeros(K) if mode == "calibrated" else np.zeros((L, 3, K))


def grow(counts, mode, new):
    """The counts with zero rows for labels inserted at positions ``new`` (of the new
    label order)."""
    if mode != "scut" or not len(new):
        return counts
    return np.insert(counts, np.asarray(new) - np.arange(len(new)), 0.0, axis=0)


def _f1(tp, fp, fn):
    den = 2.0 * tp + fp + fn
    return np.where(den == 0, 1.0, 2.0 * tp / np.where(den == 0, 1.0, den))


def current(mode, counts, cuts, L):
    """The (L,) cuts the counts choose now."""
    order = preference(cuts)
    if mode == "calibrated":
        return np.full(L, cuts[order[np.argmax(counts[order])]])
    f1 = _f1(counts[:, 0], counts[:, 1], counts[:, 2])
    return cuts[order[np.argmax(f1[:, order], axis=1)]]


def learn(mode, counts, cuts, S, Y, w, late):
    """The (n, L) cut of each row's labels (chosen from the rows before it) and the
    counts after the rows: ``S`` the rows' pre-update scores, ``Y`` their indicator,
    ``w`` their weights, ``late`` where a label is not predictable."""
    n, L = S.shape
    K = len(cuts)
    order = preference(cuts)
    T = np.empty((n, L))
    Sm = np.where(late, -np.inf, S)
    step = max(1, _BLOCK // max(L * K, 1))
    for a in range(0, n, step):
        b = min(n, a + step)
        Z = Sm[a:b, :, None] > cuts[None, None, :]
        Yb = Y[a:b].astype(bool)[:, :, None]
        wb = np.asarray(w[a:b], dtype=np.float64)
        if mode == "calibrated":
            P = Z.sum(axis=1)
            TP = (Z & Yb).sum(axis=1)
            den = P + Yb.sum(axis=1)
            g = np.where(den == 0, 1.0, 2.0 * TP / np.maximum(den, 1)) * wb[:, None]
            cum = np.cumsum(np.concatenate([counts[None], g]), axis=0)
            T[a:b] = cuts[order[np.argmax(cum[:-1][:, order], axis=1)]][:, None]
        else:
            inc = np.stack([Z & Yb, Z & ~Yb, ~Z & Yb], axis=2) * wb[:, None, None, None]
            cum = np.cumsum(np.concatenate([counts[None], inc]), axis=0)
            f1 = _f1(cum[:-1, :, 0], cum[:-1, :, 1], cum[:-1, :, 2])
            T[a:b] = cuts[order[np.argmax(f1[:, :, order], axis=2)]]
        counts = cum[-1]
    return T, counts


def apply(S, T, late):
    """Predictions ``S > T`` and scores ``S - T`` (0 and 0.0 where ``late``)."""
    pred = ((S > T) & ~late).astype(np.int8)
    return pred, np.where(late, 0.0, S - T)
