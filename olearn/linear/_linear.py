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
* one-line validation helpers.
"""
import numbers

import numpy as np

from ..base import Slot
from .._compiled.averaging import AUX_COLUMNS, SCALE_, SQ_, SUM_, T_


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

    def _to_multiclass(self, old_n, n):
        super()._to_multiclass(old_n, n)
        W = self.state_["W"]
        self.state_["A"][0, SQ_] = float(np.sum(W * W))  # -w/2 and +w/2: ||W||^2 halves


# ---------------------------------------------------------------- validation helpers
def check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, "
                         f"got {value!r}")


def check_number(name, value, low=None, high=None, low_open=False, high_open=False):
    """A finite real number within the given bounds (open or closed)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and np.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        lo = "" if low is None else (f"> {low}" if low_open else f">= {low}")
        hi = "" if high is None else (f"< {high}" if high_open else f"<= {high}")
        bounds = " and ".join(b for b in (lo, hi) if b)
        raise ValueError(f"{name} must be a finite number{' ' + bounds if bounds else ''}, "
                         f"got {value!r}")
    return float(value)
