"""What the estimators of ``olearn.linear`` share on the Python side.

* the three state arrays of ``olearn._compiled.averaging`` (weights ``W``, averaging
  accumulator ``U``, per-row scratch and counters ``A``) ahead of a learner's own
  slots;
* ``average``: Polyak-Ruppert averaging; the averaged weights
  ``(S W - U) / t`` (the plain mean of the iterates ``w_1 .. w_t``) are what
  ``decision_function``, ``predict``, ``coef_`` and the progressive predictions use,
  while the raw iterate keeps learning;
* a check that hyper-parameters which shape the state (``average``, a schedule that
  needs per-coordinate memory) were not changed after learning started;
* predictions of one example in O(non-zeros) from the lazy state, by the declared
  score (``_row_scores``),
  and an O(1) test of the weights for the divergence check (``_weights_finite``);
* the validation helpers, re-exported from ``olearn._validation``.
"""
import math

import numpy as np

from .._compiled.averaging import AUX_COLUMNS, SCALE_, SQ_, SUM_, T_
from .._state import Slot
from .._validation import check_bool, check_choice, check_number  # noqa: F401


def linear_slots(average):
    """The three leading slots (see ``olearn._compiled.averaging``)."""
    return (Slot("W", ("K", "d"), 0.0, signed=True),
            Slot("U", ("K", "d" if average else 0), 0.0, signed=True),
            Slot("A", ("K", AUX_COLUMNS), 0.0))


class LinearModel:
    """Mixin for the linear learners (put it before ``OnlineClassifier``/``OnlineRegressor``)."""

    def _extra_slots(self):
        return ()

    @property
    def _slots(self):
        return linear_slots(bool(self.average)) + tuple(self._extra_slots())

    def _check_hyper(self):
        """Validate the learner's own hyper-parameters (override)."""

    def _check_params(self):
        check_bool("average", self.average)
        self._check_hyper()
        state = getattr(self, "state_", None)
        if state is None:
            return
        K, d = state["W"].shape
        for s in self._slots:
            shape = tuple(K if a == "K" else d if a == "d" else a for a in s.axes)
            if s.name not in state or state[s.name].shape != shape:
                raise ValueError(f"a parameter that shapes the model's state (average, "
                                 f"schedule, ...) changed after learning started "
                                 f"(state {s.name!r}); call fit() to start afresh")

    def _predict_weights(self):
        W = self.state_["W"]
        U = self.state_["U"]
        A = self.state_["A"]
        t = A[0, T_]
        s = float(A[0, SCALE_]) if t > 0 else 1.0
        if U.shape[1] == 0 or t == 0:
            return W if s == 1.0 else s * W
        return ((A[0, SUM_] + s) * W - U) / t

    def _row_scores(self, row, n):
        """Scores of one row by the declared score (the pass's own) from the lazy state,
        in O(non-zeros), never materialising the weights; a buffer reused by the next
        call."""
        call = self.__dict__.get("_one_cache") or self._one_call()
        if call.scorer is None:
            from ..base import _entry_point
            kernel = self._kernels.scorer
            args = (row, call.state, call.pout[None])
            kernel(*args)
            call.scorer = (_entry_point(kernel, args), args[2])
        else:
            call.scorer[0](row, call.state, call.scorer[1])
        return call.pout

    def _weights_finite(self):
        """The tracked ``||W||^2`` and the scale are finite (an infinite or NaN weight
        makes them so: O(1)), and so is every extra slot (AdaGrad's sums of squared
        gradients, say: O(d))."""
        A = self.state_["A"]
        return math.isfinite(A[0, SQ_]) and math.isfinite(A[0, SCALE_]) and all(
            np.isfinite(self.state_[s.name]).all() for s in self._extra_slots())

    def _to_multiclass(self, old_n, n):
        super()._to_multiclass(old_n, n)
        W = self.state_["W"]
        self.state_["A"][0, SQ_] = float(np.sum(W * W))  # -w/2 and +w/2: ||W||^2 halves


# the validation helpers, now in ``olearn._validation`` (one set of checkers)
__all__ = ["LinearModel", "linear_slots", "check_bool", "check_choice", "check_number"]
