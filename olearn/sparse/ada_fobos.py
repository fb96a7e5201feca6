"""AdaFOBOS: FOBOS with AdaGrad's diagonal per-coordinate steps, l1 term.

Duchi, Hazan and Singer, "Adaptive subgradient methods for online learning and
stochastic optimization", JMLR 12, 2011: composite mirror descent with the diagonal
proximal term ``H_t = delta I + diag(G_t)^(1/2)``, ``G_t`` the per-coordinate sums of
squared gradients up to round ``t``, and ``r(w) = lam ||w||_1`` (their Section 5.1):

    v_i = w_{t,i} - eta g_{t,i} / H_{t,ii},     w_{t+1,i} = sign(v_i) [|v_i| - lam eta / H_{t,ii}]_+ .

A coordinate with no gradient this round keeps its ``H_ii`` and shrinks by
``lam eta / H_ii`` (so a coordinate that never had a gradient stays 0).  As in the SOL
library this is the "ada-fobos" learner; the losses are those of
``olearn._compiled.losses`` (max-score or softmax forms for multiclass).  With
``lam = 0`` and ``delta = 0`` it is OGD with the "adagrad" schedule (tested).  The
intercept is free of the l1 term (its own AdaGrad step, no shrink).

Lazy: between two touches a coordinate's ``H_ii`` is fixed, so the rounds of shrink
it owes add up (``olearn._compiled.lazy.ada_fobos_scores``): each weight keeps the round it
was settled in, and a row costs O(non-zeros).
"""
import numpy as np

from ..base import OnlineClassifier
from .._compiled.declare import declare
from .._compiled.lazy import ada_fobos_begin, ada_fobos_rule, ada_fobos_scores
from .._compiled.losses import GRADS
from ._adagrad import DOC, AdaGradL1Model
from ._proba import LogisticProba
from ._sparse import shrink

KERNELS = declare("sparse.ada_fobos", params=("eta", "lam", "delta", "eps"),
                  score=ada_fobos_scores, begin=ada_fobos_begin, binary=ada_fobos_rule,
                  multiclass=ada_fobos_rule, losses=GRADS)


class AdaFOBOSClassifier(LogisticProba, AdaGradL1Model, OnlineClassifier):
    __doc__ = DOC.format(summary="AdaFOBOS: diagonal AdaGrad composite mirror descent "
                         "with l1 (Duchi, Hazan, Singer 2011; see the module docstring).",
                         lam="")
    _arrays = (("W", True), ("G", False, "sum"), ("C", False, "reset"))
    _declared = KERNELS

    def _hyper(self):
        return (float(self.lam) * float(self.eta), float(self.delta))

    def _kernel_params(self):
        return {"eta": self.eta, "lam": self.lam, "delta": self.delta, "eps": 0.0}

    def _owed(self, cols):
        with np.errstate(divide="ignore", invalid="ignore"):
            h = float(self.delta) + np.sqrt(self._cols("G", cols))
            owed = (self._round() - self._cols("C", cols)) * (
                float(self.lam) * float(self.eta) / h)
        return np.where(h > 0, owed, 0.0)

    def _weights(self, cols, penalised):
        W = self._cols("W", cols)
        return shrink(W, self._owed(cols)) if penalised else W.copy()

    def _settle(self):
        self.state_["W"][...] = self._weights_at(None)
        self.state_["C"][...] = self._round()

    def _after_mix(self):
        """Nothing owed by the mixed weights (``olearn.mix`` mixes settled states)."""
        self.state_["C"][...] = self._round()
