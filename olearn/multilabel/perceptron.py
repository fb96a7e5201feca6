"""The multilabel Perceptron on label ranking (Crammer and Singer, "A Family of Additive
Online Algorithms for Category Ranking", JMLR 3, 2003, the uniform update of its
family restricted to the worst pair; the Perceptron of Crammer et al., JMLR 7, 2006,
section 6, with a zero margin).

A row is a mistake when its worst pair is mis-ranked, ``w_a.x - w_b.x <= 0`` for the
least-scored relevant label (or the threshold) a and the best-scored irrelevant label
(or the threshold) b; then ``w_a += sw x``, ``w_b -= sw x``.  The threshold is a virtual
label ranked between the relevant and the irrelevant labels, learned with them; the
predicted set is the labels scoring above it.  The compiled pass:
``olearn.multilabel._ranking``.
"""
from .._params import store_params
from ._native import RankingModel


class MultilabelPerceptron(RankingModel):
    """Perceptron multilabel classifier on label ranking with a learned threshold.

    Parameters
    ----------
    pairs : "worst" (the worst pair's step) or "all" (every mis-ranked pair, ``sw / k`` each
        of the k: Crammer and Singer 2003's uniform update).
    fit_intercept : bool, a constant feature (each label's bias against the threshold).
    intercept_scaling : float > 0, the value of that constant feature.
    """

    def __init__(self, pairs="worst", fit_intercept=True, intercept_scaling=1.0):
        store_params(self, locals())

    def step(self):
        return -1.0, 0.0
