"""Cost-sensitive multiclass Passive-Aggressive (Crammer, Dekel, Keshet, Shalev-Shwartz
and Singer, "Online Passive-Aggressive Algorithms", JMLR 7, 2006, section 7).

A mistake of class r for the true class y costs ``costs[y][r]`` (zero on the diagonal);
the model asks class y to outscore r by ``sqrt(costs[y][r])``, so that the classes that
are expensive to confuse with y are pushed further from it.  The loss against r is
``l = w_r.x - w_y.x + sqrt(costs[y][r])`` and the step ``w_y += tau x``, ``w_r -= tau x``
with ``tau`` as the multiclass PA's (``2 ||x||^2``: the two classes' feature difference)

* "PA"    : ``tau = l / (2 ||x||^2)``,
* "PA-I"  : ``tau = min(C, l / (2 ||x||^2))``,
* "PA-II" : ``tau = l / (2 ||x||^2 + 1 / (2C))``,

times the sample weight; r is the predicted class (``update="prediction"``, the paper's
prediction-based update) or the class of greatest loss (``update="max-loss"``).  The
prediction is the class of highest score (the paper's; a score is no probability, so no
expected cost is minimised).  The labels are the cost matrix's indices 0..K-1.  The
compiled pass: ``olearn.multiclass._cost_kernel``.
"""
import math

import numpy as np
import scipy.sparse as sp

from .._validation import (check_bool, check_choice, check_number, check_saved_array)
from ..wrapper import Wrapper
from ._cost_kernel import cost_pass

VARIANTS = ("PA", "PA-I", "PA-II")


def _csr(X):
    X = X if sp.issparse(X) else sp.csr_matrix(X)
    return X.indptr, X.indices, X.data


class CostSensitivePA(Wrapper):
    """Cost-sensitive multiclass Passive-Aggressive classifier over a cost matrix.

    Parameters
    ----------
    costs : list of K lists of K numbers >= 0, ``costs[y][r]`` the cost of predicting r
        for class y (zero diagonal); the labels are 0..K-1.  A numpy array works too,
        but ``olearn.save`` stores parameters as JSON: give lists to save the model.
    variant : "PA", "PA-I" or "PA-II", the step.
    C : float > 0, aggressiveness of PA-I and PA-II.
    update : "prediction" or "max-loss", which wrong class the step moves away.
    fit_intercept : bool, a constant feature.
    intercept_scaling : float > 0, the value of that constant feature.
    """

    members: dict[str, str] = {}

    def __init__(self, costs=None, variant="PA-I", C=1.0, update="max-loss",
                 fit_intercept=True, intercept_scaling=1.0):
        self.costs, self.variant, self.C, self.update = costs, variant, C, update
        self.fit_intercept, self.intercept_scaling = fit_intercept, intercept_scaling

    # ------------------------------------------------------------ parameters
    def _matrix(self):
        try:
            M = np.array(self.costs, dtype=np.float64)
        except (TypeError, ValueError):
            M = np.zeros((0, 1))
        if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 2 or \
                not np.isfinite(M).all() or (M < 0).any() or np.diag(M).any():
            raise ValueError("costs must be a square K x K matrix (K >= 2) of finite "
                             f"numbers >= 0 with a zero diagonal, got {self.costs!r:.60}")
        return M

    def check_params(self):
        self._matrix()
        check_choice("variant", self.variant, VARIANTS)
        check_choice("update", self.update, ("prediction", "max-loss"))
        check_number("C", self.C, low=0.0, low_open=True)
        check_bool("fit_intercept", self.fit_intercept)
        check_number("intercept_scaling", self.intercept_scaling, low=0.0, low_open=True)

    def _check(self):
        self.check_params()

    def _estimator_kind(self):
        return "classifier"

    def held_learners(self):
        return []

    def _step(self):
        C = float(self.C)
        if self.variant == "PA":
            return math.inf, 0.0
        return (C, 0.0) if self.variant == "PA-I" else (math.inf, 1.0 / (2.0 * C))

    def _constant(self):
        return float(self.intercept_scaling) if self.fit_intercept else 0.0

    # ------------------------------------------------------------ state
    def start(self):
        K = self._matrix().shape[0]
        self.W_ = np.zeros((K, self.__dict__.get("n_features_in_", 0) + 1))
        self.steps_ = 0

    @property
    def n_updates_(self):
        """The steps taken."""
        return int(self.__dict__.get("steps_", 0))

    @property
    def coef_(self):
        """(K, d) class weights."""
        self._fitted()
        return self.W_[:, 1:]

    def _note_labels(self, y, classes=None):
        K = self._matrix().shape[0]
        labels = np.asarray(y)
        if labels.dtype.kind not in "iuf" or (labels != np.round(labels)).any() or \
                (labels < 0).any() or (labels >= K).any():
            raise ValueError(f"labels must be the cost matrix's indices 0..{K - 1}, got "
                             f"{labels[:4].tolist()}")
        self.__dict__["classes_"] = np.arange(K)

    def own_state(self):
        return {"steps": int(self.steps_)}, {"W": self.W_}

    def load_own_state(self, meta, arrays):
        steps = meta.get("steps")
        if type(steps) is not int or steps < 0:
            raise ValueError("steps must be a non-negative integer")
        K = self._matrix().shape[0]
        d = self.__dict__.get("n_features_in_", 0)
        self.W_ = check_saved_array("W", arrays.get("W"), (K, d + 1), np.float64)
        self.steps_ = steps

    # ------------------------------------------------------------ passes
    def _pass(self, rows, y, sw, learn):
        n, K = rows[0].shape[0] - 1, self.W_.shape[0]
        scores, pred = np.empty((n, K)), np.empty(n, dtype=np.int64)
        c, D = self._step()
        root = np.sqrt(self._matrix())
        steps = cost_pass(*rows, y, sw, self.W_, root, c, D, self._constant(),
                          self.update == "max-loss", learn, scores, pred)
        if learn:
            if not np.isfinite(self.W_).all():
                raise ValueError("CostSensitivePA diverged (non-finite weights): scale "
                                 "the features")
            self.steps_ += int(steps)
        return pred, scores

    def _fit_width(self, d):
        if self.W_.shape[1] < d + 1:
            self.W_ = np.hstack([self.W_, np.zeros((self.W_.shape[0],
                                                    d + 1 - self.W_.shape[1]))])

    def learn_rows(self, X, y, sample_weight, classes, return_scores):
        self._fit_width(X.shape[1])
        sw = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        pred, scores = self._pass(_csr(X), y.astype(np.int64), sw, True)
        if isinstance(return_scores, str) and return_scores == "both":
            return pred, scores
        return scores if return_scores else pred

    def predict_rows(self, X, return_scores=False):
        n = X.shape[0]
        pred, scores = self._pass(_csr(X), np.zeros(n, dtype=np.int64), np.ones(n), False)
        return scores if return_scores else pred

    def _one(self, x):
        if isinstance(x, dict):
            row = np.zeros(self.__dict__.get("n_features_in_", 0))
            try:
                row[list(x)] = list(x.values())
            except (IndexError, TypeError, ValueError):
                raise ValueError("dict keys must be integer column indices 0.."
                                 f"{row.shape[0] - 1}") from None
            x = row
        if "n_features_in_" not in self.__dict__:
            self.n_features_in_ = x.shape[0]
            self._fit_width(x.shape[0])
        if x.shape[0] != self.n_features_in_:
            raise ValueError(f"x has {x.shape[0]} features, but the model expects "
                             f"{self.n_features_in_}")
        return sp.csr_matrix(x[None, :])

    def learn_example(self, x, y, sample_weight):
        row = self._one(x)
        self._note_labels(np.array([y]))
        pred, _ = self._pass(_csr(row), np.array([int(y)]), np.array([float(sample_weight)]),
                             True)
        return int(pred[0])

    def predict_example(self, x):
        pred, _ = self._pass(_csr(self._one(x)), np.zeros(1, dtype=np.int64), np.ones(1),
                             False)
        return int(pred[0])
