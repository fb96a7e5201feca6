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
expected cost is minimised).  The labels are the cost matrix's indices 0..K-1.

Per-row costs (Vowpal Wabbit's ``--csoaa`` rows ``label:cost ...``):
``partial_fit(X, costs=Q)`` with ``Q`` (n, K), each row's cost of every class; the row's
class is its cheapest (the first of least cost) and predicting r costs
``Q[i, r] - Q[i, y_i]``, the paper's ``rho(y, r)`` for that row.  The compiled pass:
``olearn.multiclass._cost_kernel``.
"""
import math

import numpy as np
import scipy.sparse as sp

from .._locking import locked
from .._validation import (check_bool, check_choice, check_number, check_saved_array)
from ..wrapper import Wrapper
from ._cost_kernel import cost_pass

VARIANTS = ("PA", "PA-I", "PA-II")


def vw_costs(rows, K):
    """Vowpal Wabbit's ``--csoaa`` costs (``olearn.io.load_vw_multilabel(path,
    costs=True)``'s ``{label: cost}`` per row, labels 1..K) as the (n, K) array
    ``partial_fit(X, costs=...)`` takes: label k in column k - 1, a label a row does not
    list costing the row's largest listed cost (as dear as its worst)."""
    Q = np.empty((len(rows), K))
    for i, row in enumerate(rows):
        if not row or any(not 1 <= int(k) <= K for k in row):
            raise ValueError(f"row {i}: csoaa labels must be 1..{K}, got {sorted(row)[:4]}")
        Q[i] = max(row.values())
        for k, c in row.items():
            Q[i, int(k) - 1] = c
    return Q


def _rows_of(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _csr(X):
    X = X if sp.issparse(X) else sp.csr_matrix(X)
    return X.indptr, X.indices, X.data


class CostSensitivePA(Wrapper):
    """Cost-sensitive multiclass Passive-Aggressive classifier over a cost matrix.

    Parameters
    ----------
    costs : list of K lists of K numbers >= 0, ``costs[y][r]`` the cost of predicting r
        for class y (zero diagonal); the labels are 0..K-1.  An int K: every mistake
        costs 1 (for rows that bring their own costs, ``partial_fit(X, costs=Q)``).  A
        numpy array works too, but ``olearn.save`` stores parameters as JSON: give lists
        to save the model.
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
        if isinstance(self.costs, (int, np.integer)) and not isinstance(self.costs, bool) \
                and 2 <= self.costs <= 1 << 16:
            return 1.0 - np.eye(int(self.costs))
        try:
            M = np.array(self.costs, dtype=np.float64)
        except (TypeError, ValueError):
            M = np.zeros((0, 1))
        if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 2 or \
                not np.isfinite(M).all() or (M < 0).any() or np.diag(M).any():
            raise ValueError("costs must be a square K x K matrix (K >= 2) of finite "
                             "numbers >= 0 with a zero diagonal, or a number of classes K, "
                             f"got {self.costs!r:.60}")
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
        own = self.__dict__.get("_row_roots")  # (partial_fit's costs=, row by row)
        root, ri = (np.sqrt(self._matrix()), y) if own is None else \
            (own, np.arange(n, dtype=np.int64))
        steps = cost_pass(*rows, y, sw, self.W_, root, ri, c, D, self._constant(),
                          self.update == "max-loss", learn, scores, pred)
        if learn:
            if not np.isfinite(self.W_).all():
                raise ValueError("CostSensitivePA diverged (non-finite weights): scale "
                                 "the features")
            self.steps_ += int(steps)
        return pred, scores

    @locked
    def partial_fit(self, X, y=None, classes=None, sample_weight=None, costs=None):
        """Go on learning from a batch, in order; with ``costs`` (n, K) each row's own
        costs (module docstring), ``y`` then being each row's cheapest class (given or
        not)."""
        if costs is None:
            if y is None:
                raise ValueError("partial_fit needs y, or costs (each row's costs)")
            return super().partial_fit(X, y, classes, sample_weight)
        K = self._matrix().shape[0]
        try:
            Q = np.array(costs, dtype=np.float64)
        except (TypeError, ValueError):
            Q = np.zeros((0, 0))
        if Q.ndim != 2 or Q.shape[1] != K or not np.isfinite(Q).all() or (Q < 0).any():
            raise ValueError(f"costs must be an (n, {K}) array of finite numbers >= 0, one "
                             "row of class costs per row")
        cheapest = np.argmin(Q, axis=1)
        if y is not None and not np.array_equal(np.asarray(y), cheapest):
            raise ValueError("y must be each row's cheapest class under costs (or None)")
        self.__dict__["_row_roots"] = np.sqrt(Q - Q[np.arange(len(Q)), cheapest][:, None])
        try:
            if Q.shape[0] != _rows_of(X):
                raise ValueError(f"costs has {Q.shape[0]} rows, X {_rows_of(X)}")
            super().partial_fit(X, cheapest, classes, sample_weight)
        finally:
            self.__dict__.pop("_row_roots", None)
        return self

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
