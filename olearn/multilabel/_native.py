"""The base of the native label-ranking learners (:class:`RankingModel`): one weight row
per label and one for the virtual threshold label, learned by the compiled pass of
:mod:`olearn.multilabel._ranking`; a subclass says only its step (``step()``)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_bool, check_choice, check_number, check_saved_array
from .._vocabulary import Vocabulary
from ._base import MultilabelModel, _pick
from ._ranking import ranking_pass


def _csr(X):
    """Rows as a CSR triple (a dense batch converted once per call)."""
    if not sp.issparse(X):
        X = sp.csr_matrix(X)
    return X.indptr, X.indices, X.data


class RankingModel(MultilabelModel):
    """Base of :class:`~olearn.multilabel.MultilabelPA` and
    :class:`~olearn.multilabel.MultilabelPerceptron`.

    Parameters
    ----------
    pairs : "worst" or "all", the pairs a row moves: its worst-violating pair (the
        paper's max-loss step), or every violated pair, each by its step over their number.
    fit_intercept : bool, a constant feature (each label's bias against the threshold).
    intercept_scaling : float > 0, the value of that constant feature.
    """

    def step(self):
        """``(c, D)`` of the compiled step (see ``olearn.multilabel._ranking``)."""
        raise NotImplementedError

    def check_params(self):
        check_choice("pairs", self.pairs, ("worst", "all"))
        check_bool("fit_intercept", self.fit_intercept)
        check_number("intercept_scaling", self.intercept_scaling, low=0.0, low_open=True)
        self.step()

    def _constant(self):
        return float(self.intercept_scaling) if self.fit_intercept else 0.0

    def start(self):
        self.W_ = np.zeros((1, self.__dict__.get("n_features_in_", 0) + 1))
        self.steps_ = 0
        self.vocabulary_ = None

    def held_learners(self):
        return []

    @property
    def n_updates_(self):
        """The steps taken (rows whose worst pair was violated)."""
        return int(self.__dict__.get("steps_", 0))

    @property
    def coef_(self):
        """(L, d): each label's weights minus the threshold's (its score's weights)."""
        self._fitted()
        return self.W_[1:, 1:] - self.W_[0, 1:]

    @property
    def intercept_(self):
        """(L,): each label's intercept minus the threshold's, times the constant."""
        self._fitted()
        return (self.W_[1:, 0] - self.W_[0, 0]) * self._constant()

    def add_labels(self, new, first):
        self.W_ = np.insert(self.W_, new - np.arange(len(new)) + 1, 0.0, axis=0)

    def _fit_width(self, d):
        if self.W_.shape[1] < d + 1:
            self.W_ = np.hstack([self.W_, np.zeros((self.W_.shape[0],
                                                    d + 1 - self.W_.shape[1]))])

    def _pass(self, rows, Y, sw, first, learn):
        n, L = Y.shape[0], self.W_.shape[0] - 1
        scores, pred = np.empty((n, L)), np.empty((n, L), dtype=np.int8)
        c, D = self.step()
        steps = ranking_pass(*rows, Y, first, sw, self.W_, c, D, self._constant(), learn,
                             scores, pred, self.pairs == "all")
        if learn:
            if not np.isfinite(scores).all() or not np.isfinite(self.W_).all():
                raise ValueError(f"{type(self).__name__} diverged (non-finite scores or "
                                 "weights): scale the features")
            self.steps_ += int(steps)
        return pred, scores

    def learn_rows(self, X, Y, sample_weight, first, return_scores):
        self._fit_width(X.shape[1])
        sw = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        pred, scores = self._pass(_csr(X), Y, sw, first, True)
        return _pick(pred, scores, return_scores)

    def predict_rows(self, X, return_scores=False):
        L = self.W_.shape[0] - 1
        n = X.shape[0]
        pred, scores = self._pass(_csr(X), np.zeros((n, L), dtype=np.int8), np.ones(n),
                                  np.full(L, -1, dtype=np.int64), False)
        return scores if return_scores else pred

    # ------------------------------------------------------------ one example
    def _one(self, x, grow):
        """One example as a one-row CSR triple (a dict through ``vocabulary_``)."""
        d = self.__dict__
        if isinstance(x, dict) and self.vocabulary_ is None and d.get("n_features_in_"):
            cols = list(x)  # (a model of arrays: dict keys are column indices)
            if not all(isinstance(c, (int, np.integer)) and 0 <= c < self.n_features_in_
                       for c in cols):
                raise ValueError("this model was trained on arrays: dict keys must be "
                                 f"integer column indices 0..{self.n_features_in_ - 1}")
            row = np.zeros(self.n_features_in_)
            row[cols] = list(x.values())
            x = row
        if isinstance(x, dict):
            if self.vocabulary_ is None:
                self.vocabulary_ = Vocabulary()
            idx, val = self.vocabulary_.lookup(x, grow)
            if grow:
                self.n_features_in_ = len(self.vocabulary_)
                self._fit_width(self.n_features_in_)
            keep = idx < self.W_.shape[1] - 1
            idx, val = idx[keep], val[keep]
        else:
            if self.vocabulary_ is not None:
                raise ValueError("this model was trained on dicts: give x as a dict")
            if "n_features_in_" not in d:
                self.n_features_in_ = x.shape[0]
                self._fit_width(x.shape[0])
            if x.shape[0] != self.n_features_in_:
                raise ValueError(f"x has {x.shape[0]} features, but the model expects "
                                 f"{self.n_features_in_}")
            idx = np.flatnonzero(x)
            val = x[idx]
        return (np.array([0, len(idx)], dtype=np.int64), idx.astype(np.int64),
                np.ascontiguousarray(val, dtype=np.float64))

    def learn_example(self, x, y, sample_weight, first):
        pred, _ = self._pass(self._one(x, True), y[None, :].astype(np.int8),
                             np.array([float(sample_weight)]), first, True)
        return pred[0]

    def predict_example(self, x):
        L = self.W_.shape[0] - 1
        pred, _ = self._pass(self._one(x, False), np.zeros((1, L), dtype=np.int8),
                             np.ones(1), np.full(L, -1, dtype=np.int64), False)
        return pred[0]

    def widen(self, n_features):
        """Take ``n_features`` columns from now on (new weights 0)."""
        if not self._started():
            return None
        if self.vocabulary_ is None and n_features > self.__dict__.get("n_features_in_", 0):
            self.n_features_in_ = int(n_features)
            self._fit_width(self.n_features_in_)
        return self.__dict__.get("n_features_in_")

    # ------------------------------------------------------------ state
    def own_state(self):
        vocabulary = None if self.vocabulary_ is None else self.vocabulary_.to_list()
        return {"steps": int(self.steps_), "vocabulary": vocabulary}, {"W": self.W_}

    def load_own_state(self, meta, arrays):
        steps, names = meta.get("steps"), meta.get("vocabulary")
        if type(steps) is not int or steps < 0:
            raise ValueError("steps must be a non-negative integer")
        if names is not None:
            if not isinstance(names, list):
                raise ValueError("vocabulary must be a list of feature names")
            self.vocabulary_ = Vocabulary.from_list(names)
        d = len(names) if names is not None else self.__dict__.get("n_features_in_", 0)
        L = len(self.__dict__.get("classes_", ()))
        self.W_ = check_saved_array("W", arrays.get("W"), (L + 1, d + 1), np.float64)
        self.steps_ = steps
