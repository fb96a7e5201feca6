"""AdaRDA: dual averaging with AdaGrad's diagonal proximal term, l1 term.

Duchi, Hazan and Singer, "Adaptive subgradient methods for online learning and
stochastic optimization", JMLR 12, 2011: primal-dual subgradient update with
``psi_t(w) = <w, H_t w> / 2``, ``H_t = delta I + diag(G_t)^(1/2)`` and ``r(w) = lam
||w||_1`` (their Section 5.1), in closed form per coordinate after ``t`` rounds:

    w_{t+1,i} = -sign(gbar_{t,i}) (eta t / H_{t,ii}) [|gbar_{t,i}| - lam]_+ ,

``gbar_t`` the average gradient.  This is SOL's "ada-rda"; the losses are those of
``olearn._compiled.losses`` (max-score or softmax forms for multiclass).  The intercept
is free of the l1 term (its closed form with ``lam = 0``).

Lazy: the state is the gradient sums ``S = t gbar`` and the squared sums ``G``; a
weight is their closed form at ``t`` (``olearn._compiled.lazy.ada_rda_weight``),
computed where a row needs it: O(non-zeros) per row, nothing owed.
"""
import numpy as np

from ..base import OnlineClassifier
from .._compiled.declare import declare
from .._compiled.lazy import ada_rda_begin, ada_rda_rule, ada_rda_scores
from .._compiled.losses import GRADS
from ._adagrad import DOC, AdaGradL1Model
from ._proba import LogisticProba
from ._sparse import shrink

KERNELS = declare("sparse.ada_rda", params=("eta", "lam", "delta", "eps"),
                  score=ada_rda_scores, begin=ada_rda_begin, binary=ada_rda_rule,
                  multiclass=ada_rda_rule, losses=GRADS)


def ada_rda_weights(S, G, n, eta, lam, delta):
    """The closed form from the sums of ``n`` rounds (numpy)."""
    h = delta + np.sqrt(G)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -eta * shrink(S, lam * n) / h
    return np.where(h > 0, w, 0.0)


class AdaRDAClassifier(LogisticProba, AdaGradL1Model, OnlineClassifier):
    __doc__ = DOC.format(summary="AdaRDA: diagonal AdaGrad dual averaging with l1 (Duchi, "
                         "Hazan, Singer 2011; see the module docstring).",
                         lam=": a weight is 0 while its average gradient is\n        "
                             "within ``lam``")
    _arrays = (("W", True, "sum"), ("G", False, "sum"))
    _capabilities = {"closed_form": True}      # dual averaging: w from the summed gradients
    _declared = KERNELS
    _coordinate_major = True

    def _hyper(self):
        return (float(self.eta), float(self.lam), float(self.delta))

    def _kernel_params(self):
        return {"eta": self.eta, "lam": self.lam, "delta": self.delta, "eps": 0.0}

    def _weights(self, cols, penalised):
        eta, lam, delta = self._hyper()
        return ada_rda_weights(self._cols("W", cols), self._cols("G", cols),
                               self._round(), eta, lam * penalised, delta)
