"""Classifier chains (Read, Pfahringer, Holmes and Frank, "Classifier chains for
multi-label classification", Machine Learning 85(3), 2011, section 4).

The labels are put in a chain ``order_``; the model of the label at position p learns
from x extended by the 0/1 values of the labels at positions 0..p-1: at training the
true ones (the paper's training of h_j on x augmented with y_1..y_{j-1}), at prediction
the chain's own predictions, position by position (its classification).  ``order``
gives the chain's first labels; a label not in it joins the end of the chain when it
becomes known (with ``order=None``: the order in which labels become known, sorted
within a row, as River's ``multioutput.ClassifierChain`` takes the order of the first
target dict).  The extra features come before x's columns (array rows: member p reads
``[y_1 .. y_p, x]``, so that rows that grow wider add columns at the end, as widening
every member does), or are named ``"__label__<label>"`` (dict examples).

``partial_fit`` and ``fit`` run one compiled pass per member over the batch (the true
labels are known up front); ``predict_learn``, whose pre-update predictions need every
member's prediction of each row before the rows after it are learned, goes row by row.

``threshold="calibrated"`` or ``"scut"`` (:mod:`olearn.multilabel._threshold`) cuts the
final scores of the labels where the progressive F1 of the rows before was best; along
the chain each member still reads the predictions of the members before it (their own
cut at 0, as they were trained beside), so the cut changes the output only.  Its counts
need the pre-update scores of every row, so ``partial_fit`` and ``fit`` then go row by
row too.
"""
import numpy as np
import scipy.sparse as sp

from ._base import _pick
from ._members import BINARY, PerLabel, score_one


def _augment(X, extra):
    """``X`` after the columns ``extra`` (n, p), in ``X``'s layout."""
    if extra.shape[1] == 0:
        return X
    if sp.issparse(X):
        return sp.hstack([sp.csr_matrix(extra.astype(np.float64)), X], format="csr")
    return np.ascontiguousarray(np.hstack([extra.astype(np.float64), X]))


class ClassifierChain(PerLabel):
    """A chain of binary ``base`` models, each seeing x and the labels before it.

    Parameters
    ----------
    base : an olearn binary classifier (cloned once per label); None: PA-II with
        C = 0.012 and ``intercept_scaling=1`` (as ``BinaryRelevance``'s).
    order : list of labels or None, the chain's first labels (the rest join in the
        order they become known).
    threshold : "fixed", "calibrated" or "scut", as ``BinaryRelevance``'s (the output's
        cut; the chain passes its members' own predictions along).
    cuts : list of floats or None, the candidate cuts (None: 41 from -1 to 1).
    """

    def __init__(self, base=None, order=None, threshold="fixed", cuts=None):
        self.base, self.order, self.threshold, self.cuts = base, order, threshold, cuts

    def check_params(self):
        super().check_params()
        if self.order is not None:
            if not isinstance(self.order, (list, tuple)) or \
                    len(set(self.order)) != len(self.order):
                raise ValueError("order must be a list of distinct labels or None, got "
                                 f"{self.order!r:.60}")

    def start(self):
        super().start()
        self.order_ = []

    def own_state(self):
        meta, arrays = super().own_state()
        meta["order"] = [v.item() if hasattr(v, "item") else v for v in self.order_]
        return meta, arrays

    def load_own_state(self, meta, arrays):
        order = meta.get("order")
        known = set(self.classes_.tolist())
        if not isinstance(order, list) or set(order) != known or len(order) != len(known):
            raise ValueError("order: the chain must hold every label once")
        self.order_ = order
        super().load_own_state(meta, arrays)

    def _columns(self):
        """The ``classes_`` column of each chain position."""
        return np.searchsorted(self.classes_, np.array(self.order_)) if self.order_ else \
            np.zeros(0, dtype=np.int64)

    def add_labels(self, new, first):
        new = sorted(new, key=lambda j: first[j])  # (the order they become known)
        labels = [self.classes_[j].item() for j in new]
        given = [v for v in (self.order or []) if v in labels]
        for v in given + [v for v in labels if v not in given]:
            self.order_.append(v)
            self.models_.append(self.fresh())

    def _extra_columns(self, model):
        return self.models_.index(model)

    # ------------------------------------------------------------ batches
    def learn_rows(self, X, Y, sample_weight, first, return_scores):
        cols = self._columns()
        n = X.shape[0]
        if return_scores is None and self.threshold == "fixed":  # (partial_fit, fit)
            for p, m in enumerate(self.models_):
                j, a = cols[p], max(int(first[cols[p]]), 0)
                if a < n:
                    sw = None if sample_weight is None else sample_weight[a:]
                    m.partial_fit(_augment(X, Y[:, cols[:p]])[a:], Y[a:, j],
                                  classes=BINARY, sample_weight=sw)
            return None
        pred, scores = np.zeros(Y.shape, dtype=np.int8), np.zeros(Y.shape)
        fitted = self._fitted_labels()
        for i in range(n):
            x = X[i:i + 1]
            p_row, s_row = self._chain(x)
            late = i <= first
            pred[i], scores[i] = np.where(late, 0, p_row), np.where(late, 0.0, s_row)
            for p, m in enumerate(self.models_):
                j = cols[p]
                if i >= first[j]:
                    m.partial_fit(_augment(x, Y[i:i + 1, cols[:p]]), Y[i:i + 1, j],
                                  classes=BINARY, sample_weight=None if sample_weight is None
                                  else sample_weight[i:i + 1])
        late = self._late(n, first, fitted)
        pred, scores = self._cut(pred, scores, Y, sample_weight, late)
        return None if return_scores is None else _pick(pred, scores, return_scores)

    def _chain(self, X):
        """Predictions and scores of rows ``X``, position by position."""
        cols = self._columns()
        n = X.shape[0]
        pred, scores = np.zeros((n, len(cols)), dtype=np.int8), np.zeros((n, len(cols)))
        for p, m in enumerate(self.models_):
            if m.__sklearn_is_fitted__():
                Xp = _augment(X, pred[:, cols[:p]])
                scores[:, cols[p]] = m.decision_function(Xp)
                pred[:, cols[p]] = m.predict(Xp)
        return pred, scores

    def predict_rows(self, X, return_scores=False):
        pred, scores = self._chain(X)
        pred, scores = self._cut_now(pred, scores, self._fitted_labels())
        return scores if return_scores else pred

    # ------------------------------------------------------------ one example
    def _augment_one(self, x, values, p):
        labels = self.order_[:p]
        if isinstance(x, dict):
            return {**x, **{f"__label__{v}": float(values[k]) for k, v in enumerate(labels)}}
        return np.concatenate([np.asarray(values[:p], dtype=np.float64), x])

    def _fitted_labels(self):
        fitted = np.zeros(len(self.models_), dtype=bool)
        fitted[self._columns()] = [m.__sklearn_is_fitted__() for m in self.models_]
        return fitted

    def _chain_one(self, x):
        """Predictions, scores and fitted marks of one example, in ``classes_`` order."""
        cols = self._columns()
        chain, s, fitted = np.zeros(len(cols), dtype=np.int8), np.zeros(len(cols)), \
            np.zeros(len(cols), dtype=bool)
        for p, m in enumerate(self.models_):
            if m.__sklearn_is_fitted__():
                xp = self._augment_one(x, chain, p)
                chain[p] = int(m.predict_one(xp) or 0)
                fitted[p] = True
                if self.threshold != "fixed":
                    s[p] = score_one(m, xp)
        out, scores, known = np.zeros_like(chain), np.zeros_like(s), np.zeros_like(fitted)
        out[cols], scores[cols], known[cols] = chain, s, fitted
        return out, scores, known

    def predict_example(self, x):
        out, scores, fitted = self._chain_one(x)
        return self._cut_now(out[None, :], scores[None, :], fitted)[0][0]

    def learn_example(self, x, y, sample_weight, first):
        out, scores, fitted = self._chain_one(x)
        cols = self._columns()
        truth = y[cols]
        for p, m in enumerate(self.models_):
            xp = self._augment_one(x, truth, p)
            if isinstance(xp, dict):
                m.learn_one(xp, int(truth[p]), sample_weight)
            else:
                m.partial_fit(xp[None, :], truth[p:p + 1], classes=BINARY,
                              sample_weight=None if sample_weight == 1.0 else
                              np.array([sample_weight]))
        if self.threshold != "fixed":  # (scores and fitted exist only then)
            out = self._cut_example(out, scores, y, first, fitted, sample_weight)
        return out

