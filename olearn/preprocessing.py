"""Streaming standardisation as a stage in front of any learner: ``Scaled(learner)``.

Each feature is divided by its running standard deviation (and, for dense rows, its
running mean is subtracted first), with statistics that include the row being scaled,
as River's ``StandardScaler`` learns one example and then transforms it.  An absent
(sparse) entry is a zero and counts as one: the mean and variance of column j after n
rows are those of its n values, zeros included (scikit-learn's ``StandardScaler``
convention, not River's, which counts only the rows where a dict key occurs).  Sparse
rows are only scaled, never centred, so they stay sparse (scikit-learn's
``with_mean=False`` for sparse input).  A column whose variance is still zero keeps its
values (scale 1, as scikit-learn does).

Per column the scaler keeps the count, mean and sum of squared deviations of its
non-zero entries (Welford's update, Welford 1962, Technometrics 4(3)); the zeros of the
other rows join them by the exact combination of two groups (Chan, Golub and LeVeque
1983): with ``m`` non-zeros of mean ``a`` and sum of squares ``S`` among ``n`` rows,
mean = a m / n and variance = (S + a^2 m (n - m) / n) / n.  So a row costs O(its
non-zeros), whatever the number of columns.

* ``partial_fit`` / ``predict_learn`` / ``learn_one`` / ``predict_learn_one``: each row
  updates the statistics, is scaled with them, and goes to the learner, in order (one
  compiled pass for a batch).
* ``predict`` / ``decision_function`` / ``predict_one``: rows are scaled with the
  statistics as they are, which they do not change.
* ``fit`` starts afresh: the statistics of the whole of ``X``, then the learner's own
  ``fit`` on the scaled rows (scikit-learn's ``make_pipeline(StandardScaler(), model)``).

The stage saves and loads with its learner (``model.save(path)``, ``olearn.load``).
"""
import numpy as np
import scipy.sparse as sp

from ._compiled import njit
from ._estimator import available_if
from ._locking import locked
from .wrapper import Wrapper


@njit(cache=True, nogil=True)
def _scale_rows(indptr, indices, data, n, count, mean, m2, update, out):
    """Scale CSR rows in place into ``out`` (same layout), updating the statistics
    first row by row when ``update``; returns the new row count."""
    for i in range(indptr.shape[0] - 1):
        if update:
            n += 1
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            x = data[p]
            if update and x != 0.0:
                count[j] += 1.0
                delta = x - mean[j]
                mean[j] += delta / count[j]
                m2[j] += delta * (x - mean[j])
            var = 0.0
            if n > 0:
                var = (m2[j] + mean[j] * mean[j] * count[j] * (n - count[j]) / n) / n
            out[p] = x / np.sqrt(var) if var > 0.0 else x
    return n


@njit(cache=True, nogil=True)
def _scale_dense(X, n, count, mean, m2, update, center, out):
    """Dense rows: every entry is present, so the statistics are plain Welford."""
    for i in range(X.shape[0]):
        if update:
            n += 1
        for j in range(X.shape[1]):
            x = X[i, j]
            if update:
                count[j] += 1.0
                delta = x - mean[j]
                mean[j] += delta / count[j]
                m2[j] += delta * (x - mean[j])
            mu = mean[j] * count[j] / n if n > 0 else 0.0
            var = 0.0
            if n > 0:
                var = (m2[j] + mean[j] * mean[j] * count[j] * (n - count[j]) / n) / n
            v = x - mu if center else x
            out[i, j] = v / np.sqrt(var) if var > 0.0 else v
    return n


class Scaled(Wrapper):
    """Standardise each feature with running statistics before ``learner`` sees it.

    Parameters
    ----------
    learner : an olearn learner (classifier or regressor); a fresh copy learns the
        scaled rows.
    with_mean : bool, default True
        Subtract the running mean from dense rows (sparse rows are never centred).

    Attributes
    ----------
    model_ : the learner in use.
    n_seen_ : rows that have updated the statistics.
    mean_, var_ : the running mean and variance of each feature (zeros counted).
    """
    members = {"learner": "model_"}
    own_labels = False  # (its learner's labels, in its order: its scores' columns)
    row_first = True  # (a row is scaled with statistics that include it)

    def __init__(self, learner=None, with_mean=True):
        self.learner = learner
        self.with_mean = with_mean

    # ------------------------------------------------------------ statistics
    def check_params(self):
        if not hasattr(self.learner, "predict_learn"):
            raise TypeError("Scaled needs an olearn learner (with predict_learn)")
        if not isinstance(self.with_mean, (bool, np.bool_)):
            raise ValueError(f"with_mean must be True or False, got {self.with_mean!r}")

    def start(self):
        self.n_seen_ = 0
        self._dict_stats = {}

    def _stats(self, n_features):
        if "_count" not in self.__dict__:
            self._count, self._mean, self._m2 = (np.zeros(n_features) for _ in range(3))
        elif not self._count.flags.writeable:  # (unpickled from a read-only buffer)
            self._count, self._mean, self._m2 = (a.copy() for a in
                                                 (self._count, self._mean, self._m2))
        elif self._count.shape[0] != n_features:
            raise ValueError(f"X has {n_features} features, but Scaled was fed "
                             f"{self._count.shape[0]} before")

    @locked
    def widen(self, n_features):
        """More columns from now on (see ``olearn._estimator.widen``): the statistics of
        the new ones start empty, as the learner's weights do."""
        count = self.__dict__.get("_count")
        if count is not None and n_features > count.shape[0]:
            extra = np.zeros(n_features - count.shape[0])
            self._count, self._mean, self._m2 = (np.concatenate([a, extra]) for a in
                                                 (self._count, self._mean, self._m2))
        width = super().widen(n_features)
        return width if count is None else self._count.shape[0]

    _widen = widen  # round 2's name

    @property
    def mean_(self):
        n = max(self.n_seen_, 1)
        return self._mean * self._count / n

    @property
    def var_(self):
        n = max(self.n_seen_, 1)
        return (self._m2 + self._mean ** 2 * self._count * (n - self._count) / n) / n

    def _scaled(self, X, update):
        """Validated rows ``X`` (dense or CSR) scaled; the statistics updated row by row
        if ``update``."""
        self._stats(X.shape[1])
        if sp.issparse(X):
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
            out = X.copy()
            n = _scale_rows(X.indptr, X.indices, X.data, self.n_seen_, self._count,
                            self._mean, self._m2, update, out.data)
        else:
            out = np.empty_like(X)
            n = _scale_dense(X, self.n_seen_, self._count, self._mean, self._m2, update,
                             bool(self.with_mean), out)
        if update:
            self.n_seen_ = int(n)
        return out

    # ------------------------------------------------------------ the wrapper's hooks
    def learn_rows(self, X, y, sample_weight, classes, return_scores):
        """Scale each row with the statistics including it, then the learner's
        ``predict_learn`` (pre-update predictions or scores of the scaled rows)."""
        kwargs = {k: v for k, v in (("classes", classes), ("sample_weight", sample_weight))
                  if v is not None}
        return self.model_.predict_learn(self._scaled(X, update=True), y,
                                         return_scores=return_scores, **kwargs)

    def fit_rows(self, X, y, sample_weight, classes):
        """``fit``: the statistics of all of ``X``, then the learner's ``fit``."""
        self._scaled(X, update=True)
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.model_.fit(self._scaled(X, update=False), y, **kwargs)
        self.t_ += X.shape[0]

    def predict_rows(self, X, return_scores=False):
        Xs = self._scaled(X, update=False)
        return self.model_.decision_function(Xs) if return_scores else self.model_.predict(Xs)

    @available_if(lambda self: hasattr(self.learner, "predict_proba"))
    @locked
    def predict_proba(self, X):
        self._fitted()
        return self.model_.predict_proba(self._scaled(self._validate_X(X, False), False))

    def _scaled_one(self, x, update):
        """One example (dict, or 1-D array of the model's width) scaled."""
        if isinstance(x, dict):
            return self._scaled_dict(x, update)
        return self._scaled(x.reshape(1, -1), update)[0]

    def _scaled_dict(self, x, update):
        """A dict example: the statistics of each name, an absent name a zero."""
        stats = self._dict_stats
        n = self.n_seen_ + 1 if update else self.n_seen_
        out = {}
        for name, value in x.items():
            value = float(value)
            c, mean, m2 = stats.get(name, (0.0, 0.0, 0.0))
            if update and value != 0.0:
                c += 1.0
                delta = value - mean
                mean += delta / c
                m2 += delta * (value - mean)
                stats[name] = (c, mean, m2)
            var = (m2 + mean * mean * c * (n - c) / n) / n if n > 0 else 0.0
            out[name] = value / np.sqrt(var) if var > 0.0 else value
        if update:
            self.n_seen_ = n
        return out

    def predict_example(self, x):
        """The learner's prediction of ``x`` scaled with the statistics as they are."""
        return self.model_.predict_one(self._scaled_one(x, update=False))

    def predict_proba_example(self, x):
        """The learner's probabilities of ``x`` scaled with the statistics as they are."""
        return self.model_.predict_proba_one(self._scaled_one(x, update=False))

    def learn_example(self, x, y, sample_weight):
        """Update the statistics with ``x``, scale it, predict it, then learn it."""
        saved = self._kept()
        try:
            return self.model_.predict_learn_one(self._scaled_one(x, update=True), y,
                                                 sample_weight)
        except BaseException:
            self.__dict__.update(saved)
            raise

    # ------------------------------------------------------------ persistence
    def own_state(self):
        meta = {"n_seen_": int(self.n_seen_), "dict_names": list(self._dict_stats),
                "dict_stats": [[float(v) for v in st] for st in self._dict_stats.values()]}
        arrays = {}
        if "_count" in self.__dict__:
            arrays = {"scaler.count": self._count, "scaler.mean": self._mean,
                      "scaler.m2": self._m2}
        return meta, arrays

    def load_own_state(self, meta, arrays):
        n = meta["n_seen_"]
        if not isinstance(n, int) or n < 0:
            raise ValueError("n_seen_ must be a non-negative integer")
        self.n_seen_ = n
        if "t_" not in meta:  # (round 3's file: the rows learned are the rows seen)
            self.t_ = n
        names, stats = meta["dict_names"], meta["dict_stats"]
        if not isinstance(names, list) or not isinstance(stats, list) or \
                len(names) != len(stats):
            raise ValueError("damaged dict statistics")
        for name, st in zip(names, stats):
            if not isinstance(st, list) or len(st) != 3 or \
                    not all(isinstance(v, (int, float)) and np.isfinite(v) for v in st):
                raise ValueError("damaged dict statistics")
            self._dict_stats[name] = tuple(float(v) for v in st)
        parts = [arrays.get(f"scaler.{k}") for k in ("count", "mean", "m2")]
        if any(p is not None for p in parts):
            if any(p is None or p.dtype != np.float64 or p.ndim != 1
                   or p.shape != parts[0].shape or not np.all(np.isfinite(p))
                   for p in parts) or np.any(parts[0] < 0) or np.any(parts[0] > n):
                raise ValueError("damaged scaler statistics")
            self._count, self._mean, self._m2 = (p.copy() for p in parts)
