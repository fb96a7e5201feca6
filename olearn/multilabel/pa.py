"""Passive-Aggressive label ranking for multilabel classification (Crammer, Dekel,
Keshet, Shalev-Shwartz and Singer, "Online Passive-Aggressive Algorithms", JMLR 7,
2006, section 6; the ranking loss of Crammer and Singer, JMLR 3, 2003).

Every relevant label must outscore every irrelevant one by 1; a virtual threshold label,
ranked between them, is learned with the labels and decides the predicted set (the labels
scoring above it; so an empty set can be predicted).  The loss of a row is that of its
worst-violating pair (a, b), ``l = max(0, 1 - (w_a.x - w_b.x))``, and the step
``w_a += tau x``, ``w_b -= tau x`` with (the pair's feature difference has squared norm
``2 ||x||^2``)

* "PA"    : ``tau = l / (2 ||x||^2)``                (eq. 6 of the paper)
* "PA-I"  : ``tau = min(C, l / (2 ||x||^2))``        (eq. 7)
* "PA-II" : ``tau = l / (2 ||x||^2 + 1 / (2C))``     (eq. 8)

times the sample weight.  The constant feature (``fit_intercept``) is part of x.  By default
only the worst pair moves (the paper's max-loss form); ``pairs="all"`` moves every
violated pair by its own step divided by their number (the uniform update of Crammer and
Singer 2003 with PA's step per pair, a departure from JMLR 2006), which corrects many
labels a row and lowers the Hamming loss (``benchmarks/multilabel.md``).  The compiled pass and the pair's choice on
ties: ``olearn.multilabel._ranking``.
"""
import math

from .._params import store_params
from .._validation import check_choice, check_number
from ._native import RankingModel

VARIANTS = ("PA", "PA-I", "PA-II")


class MultilabelPA(RankingModel):
    """Passive-Aggressive multilabel classifier on label ranking with a learned threshold.

    Parameters
    ----------
    variant : "PA", "PA-I" or "PA-II", the step (see the module docstring).
    C : float > 0, aggressiveness of PA-I and PA-II.
    pairs : "worst" (the paper's step) or "all" (every violated pair, the step split).
    fit_intercept : bool, a constant feature (each label's bias against the threshold).
    intercept_scaling : float > 0, the value of that constant feature.
    """

    def __init__(self, variant="PA-I", C=1.0, pairs="worst", fit_intercept=True,
                 intercept_scaling=1.0):
        store_params(self, locals())

    def step(self):
        check_choice("variant", self.variant, VARIANTS)
        C = check_number("C", self.C, low=0.0, low_open=True)
        if self.variant == "PA":
            return math.inf, 0.0
        return (C, 0.0) if self.variant == "PA-I" else (math.inf, 1.0 / (2.0 * C))
