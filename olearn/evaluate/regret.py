"""Regret of an online learner against the best fixed linear predictor in hindsight.

The seed lectures (CMSC5741 "Regret analysis"; the NN course's chapter on online
learning) define, for losses ``l_t`` and the learner's weights ``w_t`` before row ``t``,

    R_T = sum_{t<=T} l_t(w_t) - min_w sum_{t<=T} l_t(w)

(they divide by ``T`` for the average regret).  This module measures it: the learner
runs once over the stream in order (``predict_learn``: each row is scored before it is
learned), its pre-update scores give ``l_t(w_t)``, and a batch solver finds the best
fixed linear predictor (with an intercept when the learner has one) on the same loss:

* ``"hinge"`` ``max(0, 1 - y s)``, ``"absolute"`` ``|y - s|`` and
  ``"epsilon_insensitive"`` ``max(0, |y - s| - epsilon)``: a linear program (scipy's
  HiGHS), exact up to the solver's tolerance;
* ``"squared"`` ``(y - s)^2 / 2``: least squares;
* ``"logistic"`` ``log(1 + exp(-y s))``: L-BFGS.  On separable data the infimum 0 is
  not attained and the comparator is the solver's (tiny) value.

The comparator is not constrained in norm.  Two curves are offered:

* ``comparator="prefix"`` (default): at each of ``points`` checkpoints ``T`` the best
  predictor *for the first T rows*, i.e. ``R_T`` exactly as defined above (one batch
  solve per checkpoint);
* ``comparator="final"``: one predictor, the best for the whole stream, compared with
  the learner at every ``T``.  Only its last point is the regret ``R_n``; before that,
  the curve is the learner's loss minus that fixed predictor's loss on the prefix,
  which may be negative.

Binary classification (labels mapped to -1/+1, the larger label +1 as in
``classes_``) and regression.  Regret can be negative for a learner that tracks a
drifting stream better than any fixed predictor; on a stationary stream it is
expected to be positive and, for online gradient descent with steps ``1/sqrt(t)``,
to grow like ``sqrt(T)``.
"""
import numpy as np
import scipy.sparse as sp

__all__ = ["regret", "RegretResult", "best_fixed", "LOSSES"]

LOSSES = ("hinge", "logistic", "squared", "absolute", "epsilon_insensitive")


def _loss_values(loss, s, y, epsilon=0.0):
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - y * s)
    if loss == "logistic":
        return np.logaddexp(0.0, -y * s)
    if loss == "squared":
        return 0.5 * (y - s) ** 2
    if loss == "absolute":
        return np.abs(y - s)
    if loss == "epsilon_insensitive":
        return np.maximum(0.0, np.abs(y - s) - epsilon)
    raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")


def _design(X, fit_intercept):
    """The comparator's features: X with a leading column of ones when needed."""
    n = X.shape[0]
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        return sp.hstack([sp.csr_matrix(np.ones((n, 1))), X], format="csr") \
            if fit_intercept else X
    X = np.asarray(X, dtype=np.float64)
    return np.hstack([np.ones((n, 1)), X]) if fit_intercept else X


def best_fixed(Z, y, loss, w0=None, epsilon=0.0):
    """(w, total loss) of the best fixed linear predictor ``s = Z w`` on ``loss``."""
    from scipy.optimize import linprog, minimize
    n, p = Z.shape
    if loss in ("hinge", "absolute", "epsilon_insensitive"):
        Zs = sp.csr_matrix(Z)
        eye = sp.identity(n, format="csr")
        if loss == "hinge":
            # min sum xi  s.t.  xi >= 1 - y (Z w),  xi >= 0
            A = sp.hstack([-sp.diags(y) @ Zs, -eye], format="csr")
            b = -np.ones(n)
        else:
            # min sum e  s.t.  e >= y - Z w - eps,  e >= Z w - y - eps,  e >= 0
            eps = epsilon if loss == "epsilon_insensitive" else 0.0
            A = sp.vstack([sp.hstack([-Zs, -eye]), sp.hstack([Zs, -eye])], format="csr")
            b = np.concatenate([eps - y, y + eps])
        c = np.concatenate([np.zeros(p), np.ones(n)])
        bounds = [(None, None)] * p + [(0, None)] * n
        res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"the linear program for the {loss} comparator failed: "
                               f"{res.message}")
        w = res.x[:p]
    elif loss == "squared":
        if sp.issparse(Z) and p * n > 5e7:
            from scipy.sparse.linalg import lsqr
            w = lsqr(Z, y, atol=1e-12, btol=1e-12, iter_lim=100 * p)[0]
        else:
            Zd = Z.toarray() if sp.issparse(Z) else Z
            w = np.linalg.lstsq(Zd, y, rcond=None)[0]
    elif loss == "logistic":
        def f(w):
            m = y * (Z @ w)
            g = -y * np.exp(-np.logaddexp(0.0, m))   # d/ds log(1 + e^{-ys}) = -y sigma(-ys)
            return np.logaddexp(0.0, -m).sum(), Z.T @ g
        res = minimize(f, np.zeros(p) if w0 is None else w0, jac=True, method="L-BFGS-B",
                       options={"maxiter": 10000, "ftol": 1e-15, "gtol": 1e-10})
        w = res.x
    else:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    return w, float(_loss_values(loss, np.asarray(Z @ w).ravel(), y, epsilon).sum())


def _checkpoints(n, points):
    t = np.unique(np.geomspace(1, n, max(2, int(points))).round().astype(np.int64))
    return t


def regret(learner, X, y, loss=None, comparator="prefix", points=40, fit_intercept=None,
           epsilon=None):
    """Cumulative regret of ``learner`` along the stream ``(X, y)`` (module docstring).

    Parameters
    ----------
    learner : a registered name, an online estimator (cloned, then run once), or any
        object with ``predict_learn(X, y, return_scores=True)`` (run as given).
    X, y : the stream, in order (dense or CSR); binary labels or real targets.
    loss : "hinge", "logistic", "squared" or "absolute".  Default: the learner's own
        ``loss`` parameter when it is one of these, else hinge for classifiers and
        squared for regressors.
    comparator : "prefix" (best fixed predictor of each prefix, at ``points``
        geometrically spaced checkpoints and the last row) or "final" (the best for the
        whole stream, at every row).
    fit_intercept : give the comparator an intercept; default: the learner's own
        ``fit_intercept`` (True if it has none).
    epsilon : width of "epsilon_insensitive" ``max(0, |y - s| - epsilon)``; default:
        the learner's own ``epsilon`` (0 if it has none).

    Returns
    -------
    RegretResult
    """
    from sklearn.base import clone, is_classifier
    from sklearn.utils.validation import check_array, column_or_1d
    if comparator not in ("prefix", "final"):
        raise ValueError(f"comparator must be 'prefix' or 'final', got {comparator!r}")
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C")
    y = column_or_1d(np.asarray(y))
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    if isinstance(learner, str):
        from ..registry import make
        name, model = learner, make(learner)
    elif hasattr(learner, "predict_learn"):
        name = type(learner).__name__
        model = clone(learner) if hasattr(learner, "get_params") else learner
    else:
        raise ValueError(f"learner must be a registered name or have predict_learn, "
                         f"got {learner!r}")
    try:
        classifier = is_classifier(model)
    except AttributeError:          # not a scikit-learn estimator: ask it directly
        # private: scikit-learn's own duck-typed mark of a classifier (before its tags)
        classifier = getattr(model, "_estimator_type", None) == "classifier" or \
            hasattr(model, "classes_")
    if loss is None:
        own = getattr(model, "loss", None)
        loss = own if own in LOSSES else ("hinge" if classifier else "squared")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    if fit_intercept is None:
        fit_intercept = bool(getattr(model, "fit_intercept", True))
    if epsilon is None:
        epsilon = float(getattr(model, "epsilon", 0.0) or 0.0)

    scores = np.asarray(model.predict_learn(X, y, return_scores=True), dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError("regret supports binary classification and regression, not "
                         "multiclass")
    if classifier:
        classes = getattr(model, "classes_", None)
        classes = np.unique(y) if classes is None else np.asarray(classes)
        if len(classes) != 2:
            raise ValueError(f"regret needs two classes, found {len(classes)}")
        yk = np.where(y == classes[1], 1.0, -1.0)
    else:
        yk = y.astype(np.float64)
    online = np.cumsum(_loss_values(loss, scores, yk, epsilon))
    Z = _design(X, fit_intercept)
    n = X.shape[0]
    if comparator == "final":
        w, _ = best_fixed(Z, yk, loss, epsilon=epsilon)
        best = np.cumsum(_loss_values(loss, np.asarray(Z @ w).ravel(), yk, epsilon))
        t = np.arange(1, n + 1)
    else:
        t = _checkpoints(n, points)
        best = np.empty(len(t))
        w = None
        for i, k in enumerate(t):
            w, best[i] = best_fixed(Z[:k], yk[:k], loss, w0=w, epsilon=epsilon)
        online = online[t - 1]
    return RegretResult(name=name, loss=loss, comparator=comparator, t=t, online=online,
                        best=best, regret=online - best, coef=w)


class RegretResult:
    """Cumulative regret: ``t`` (rows seen), ``online`` (the learner's cumulative loss),
    ``best`` (the comparator's), ``regret = online - best``, ``coef`` (the comparator's
    weights at the last row, intercept first when it has one), ``loss`` and
    ``comparator``; ``average`` is ``regret / t``."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def average(self):
        return self.regret / self.t

    def __repr__(self):
        return (f"<RegretResult {self.name}, {self.loss} loss, {self.comparator} comparator: "
                f"R_{self.t[-1]} = {self.regret[-1]:.4g}, R/T = {self.average[-1]:.4g}>")

    def plot(self, path=None, ax=None, reference=True, label=None):
        """Regret against rows seen, with a ``c sqrt(t)`` guide through the last point.
        Saved to ``path`` if given; returns the figure."""
        from .._plots import figure_and_axes, finish
        fig, ax = figure_and_axes(ax)
        style = "-" if self.comparator == "final" else "o-"
        ax.plot(self.t, self.regret, style, ms=3, lw=1.6,
                label=label or f"{self.name} ({self.loss} loss)")
        if reference and self.regret[-1] > 0:
            c = self.regret[-1] / np.sqrt(self.t[-1])
            tt = np.linspace(1, self.t[-1], 200)
            ax.plot(tt, c * np.sqrt(tt), "k--", lw=1, alpha=0.6, label=r"$c\sqrt{t}$")
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_xlabel("rows seen  t")
        ax.set_ylabel(r"regret  $R_t$")
        which = "best fixed predictor of each prefix" if self.comparator == "prefix" \
            else "best fixed predictor of the whole stream"
        ax.set_title(f"Regret against the {which}", fontsize=11)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=9)
        return finish(fig, path)
