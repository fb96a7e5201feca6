"""What FOBOS and truncated gradient share: the state ``(W, C, A)`` of
``olearn._compiled.lazy`` (weights in units of the scale ``P``, the sum ``Q`` each
weight was settled at) and its materialisation."""
import math

from .._compiled.lazy import P_, Q_, T_
from ._sparse import SparseModel, shrink


def no_threshold(theta):
    """``theta`` as the kernels take it: finite (the state must be finite to be saved),
    the largest float standing for 'no threshold'."""
    return min(float(theta), 1.0e308)


class ShrinkModel(SparseModel):
    _arrays = (("W", True), ("C", False, "reset"))

    def _theta(self):
        return math.inf

    def _hyper(self):
        return (no_threshold(self._theta()),)

    def _weights(self, cols, penalised):
        P, Q = self._scale_sum()
        W = self._cols("W", cols)
        return P * (shrink(W, Q - self._cols("C", cols), self._theta()) if penalised
                    else W)

    def _settle(self):
        Q = self.state_["A"][0, Q_]
        owed = Q - self.state_["C"]
        owed[:, self._free_at(None)] = 0.0
        W = self.state_["W"]
        W[...] = shrink(W, owed, self._theta())
        self.state_["C"][...] = Q

    def _explicit_state(self):
        """Every owed shrink applied and the scale ``P`` folded into ``W`` (``P = 1``,
        ``Q = 0``, nothing owed), in place (for ``olearn.mix``)."""
        self._settle()
        A = self.state_["A"]
        if A[0, T_] > 0:
            self.state_["W"] *= A[0, P_]
            A[0, P_] = 1.0
        A[0, Q_] = 0.0
        self.state_["C"][...] = 0.0
        return self.state_
