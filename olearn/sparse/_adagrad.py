"""What AdaFOBOS and AdaRDA share (Duchi, Hazan and Singer 2011, Section 5.1, the
diagonal proximal term ``H_t = delta I + diag(G_t)^(1/2)`` and ``r(w) = lam ||w||_1``):
their parameters, their validation and their docstring."""
from .._params import store_params
from ._proba import LossModel
from ._sparse import SparseModel, check_number

DOC = """{summary}

    Parameters
    ----------
    loss : "hinge", "squared_hinge", "logistic", "perceptron" or "modified_huber".
    eta : float, step (> 0).  The default 1.0 beat 0.1 by 0.4-2.1 points of test
        accuracy (one pass, three seeds) on w8a, reuters money-fx, news20 and ijcnn1,
        and lost 0.4 on a9a.
    lam : float, l1 strength (>= 0){lam}.
    delta : float, added to the root of the squared-gradient sums (>= 0).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """


class AdaGradL1Model(LossModel, SparseModel):
    """Mixin: the parameters of the diagonal AdaGrad learners with an l1 term (the
    subclass gives ``DOC.format(...)`` as its ``__doc__``)."""

    def __init__(self, loss="hinge", eta=1.0, lam=1e-4, delta=1.0, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        self._check_loss()
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("lam", self.lam, low=0.0)
        check_number("delta", self.delta, low=0.0)
