"""Sparsity against accuracy: one progressive pass per regularisation strength.

``sparsity_curve(make("fobos"), X, y, param="l1", values=[...])`` runs, for each value,
a fresh copy of the learner over the stream once (``predict_learn``: each row predicted
before it is learned) and records the progressive mistake rate (or mean squared error
for a regressor), the non-zero weights at the end (``n_nonzero_``) and the density
(non-zero weights / weights).  ``plot=True`` or ``path=`` draws the mistake rate
against the density.
"""
from typing import NamedTuple

import numpy as np
from .._estimator import clone, is_classifier


class SparsityPoint(NamedTuple):
    value: float
    score: float
    n_nonzero: int
    density: float


def density_of(model):
    """Non-zero weights / weights of a fitted linear model (intercept excluded)."""
    coef = np.asarray(model.coef_)
    return np.count_nonzero(coef) / max(1, coef.size)


def sparsity_curve(learner, X, y, param="l1", values=(1e-6, 1e-5, 1e-4, 1e-3, 1e-2),
                   path=None, ax=None):
    """A list of :class:`SparsityPoint`, one per value of ``param`` (in the given order);
    with ``path`` or ``ax``, also the plot of the metric against the density."""
    if param not in learner.get_params():
        raise ValueError(f"{type(learner).__name__} has no parameter {param!r}")
    points = []
    for v in values:
        model = clone(learner).set_params(**{param: v})
        pred = model.predict_learn(X, y)
        if is_classifier(model):
            score = float(np.mean(pred != np.asarray(y)))
        else:
            score = float(np.mean((np.asarray(pred, dtype=float) - np.asarray(y)) ** 2))
        n = int(np.count_nonzero(model.coef_))
        points.append(SparsityPoint(float(v), score, n, density_of(model)))
    if path is not None or ax is not None:
        from .._plots import figure_and_axes, finish
        fig, ax = figure_and_axes(ax)
        ax.plot([p.density for p in points], [p.score for p in points], "o-",
                label=type(learner).__name__)
        for p in points:
            ax.annotate(f"{param}={p.value:g}", (p.density, p.score), fontsize=7)
        ax.set_xlabel("density (non-zero weights / weights)")
        ax.set_ylabel("progressive mistake rate" if is_classifier(learner) else
                      "progressive mean squared error")
        ax.legend()
        finish(fig, path)
    return points
