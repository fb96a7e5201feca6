"""A learner's state: named arrays declared as slots, allocated, grown and converted here.

A learner class declares ``_slots``, a tuple of :class:`Slot` (``W`` (K, d) first for
linear learners); :class:`StateMixin` turns them into ``state_``, a dict name -> float64
array, and is the only code that replaces those arrays:

* ``_new_state(K, d)``: fresh arrays at their initial values;
* ``_resize_state(K, d)``: more class rows (new classes) or more weights (new dict
  features), keeping what was learned; new entries start at the slot's initial value;
* ``_to_multiclass(old_n, n)``: one binary row to ``n`` class rows, ``W[0] = -w/2``,
  ``W[1] = +w/2`` for signed slots (every margin kept), copies for the others;
* ``_export_state()`` / ``_import_state(arrays)``: the arrays for persistence.

Every replacement calls ``_state_changed()`` (the estimator drops what it derived from
the old arrays, such as the one-example call).
"""
from typing import NamedTuple

import numpy as np


class StateLayoutError(ValueError):
    """Saved state arrays whose names are not the learner's slots: a model saved by a
    version of olearn whose learner kept other state."""


class Slot(NamedTuple):
    """One state array of a learner.

    ``axes``: ``"K"`` (class rows), ``"d"`` (weights, intercept included) or an int.
    ``fill``: initial value, a float or the name of a hyper-parameter.
    ``eye``: for two trailing ``"d"`` axes, ``fill`` on the diagonal and 0 elsewhere.
    ``signed``: linear in the weights (flips with the binary label sign, halves into
    the two first class rows when the model becomes multiclass).
    ``mix``: how ``olearn.mix`` combines the members' arrays (``"mean"``, ``"sum"``,
    ``"max"``, ... or a tuple of rules along the last axis; see ``olearn.mixing``).
    """
    name: str
    axes: tuple
    fill: object = 0.0
    eye: bool = False
    signed: bool = False
    mix: object = "mean"


class StateMixin:
    """Allocation, growth and conversion of ``state_`` from the class's ``_slots``."""

    _slots = (Slot("W", ("K", "d"), 0.0, signed=True),)

    def _state_changed(self):
        """Hook: the state arrays were replaced."""

    def _fill(self, slot):
        return float(getattr(self, slot.fill)) if isinstance(slot.fill, str) else slot.fill

    @staticmethod
    def _shape(slot, K, d):
        return tuple(K if a == "K" else d if a == "d" else a for a in slot.axes)

    def _alloc(self, slot, K, d):
        shape = self._shape(slot, K, d)
        if slot.eye:
            arr = np.zeros(shape)
            diag = np.arange(d)
            arr[..., diag, diag] = self._fill(slot)
            return arr
        return np.full(shape, self._fill(slot), dtype=np.float64)

    def _new_state(self, K, d):
        self.state_ = {s.name: self._alloc(s, K, d) for s in self._slots}
        self._state_changed()

    def _resize_state(self, K, d):
        """Grow the class rows to ``K`` and the weight axes to ``d``, keeping what is learned."""
        for s in self._slots:
            old = self.state_[s.name]
            new = self._alloc(s, K, d)
            new[tuple(slice(0, n) for n in old.shape)] = old
            self.state_[s.name] = new
        self._state_changed()

    def _to_multiclass(self, old_n, n):
        """Binary (one weight row) to K rows: ``-w/2`` and ``+w/2`` keep every margin."""
        d = self._d
        for s in self._slots:
            old = self.state_[s.name]
            if "K" not in s.axes:
                continue
            new = self._alloc(s, n, d)
            if s.signed:
                new[0] = -0.5 * old[0]
                if old_n == 2:
                    new[1] = 0.5 * old[0]
            else:
                new[0] = old[0]
                if old_n == 2:
                    new[1] = old[0]
            self.state_[s.name] = new
        self._state_changed()

    def _negate_signed(self):
        """``w -> -w`` for every signed slot (the binary labels swapped sides)."""
        for s in self._slots:
            if s.signed:
                self.state_[s.name] *= -1.0

    @property
    def _n_rows(self):
        """Number of class rows of the state (1 for binary and regression)."""
        return self.state_[self._slots[0].name].shape[0]

    @property
    def _d(self):
        return self.state_["W"].shape[-1] if "W" in self.state_ else self._slot_d()

    def _slot_d(self):
        s = self._slots[0]
        return self.state_[s.name].shape[s.axes.index("d")]

    def _state_tuple(self):
        """The state arrays in slot order, as the kernels take them."""
        return tuple(self.state_[s.name] for s in self._slots)

    # ------------------------------------------------------------ persistence
    def _export_state(self):
        return {f"state/{k}": v for k, v in self.state_.items()}

    def _import_state(self, arrays, K, d):
        """The state from saved arrays, each checked against its slot's declaration
        (real float64, the shape for ``K`` class rows and ``d`` weights, finite): a
        compiled kernel indexes these arrays without bounds checks, so nothing else
        may reach it."""
        given = {k.split("/", 1)[1]: v for k, v in arrays.items() if k.startswith("state/")}
        names = [s.name for s in self._slots]
        if set(given) != set(names):
            missing, extra = set(names) - set(given), set(given) - set(names)
            raise StateLayoutError(
                f"state arrays {sorted(given)} do not match the learner's {names}"
                + (f" (missing {sorted(missing)})" if missing else "")
                + (f" (unknown {sorted(extra)})" if extra else ""))
        state = {}
        for s in self._slots:
            v = given[s.name]
            if not isinstance(v, np.ndarray) or v.dtype != np.float64:
                raise ValueError(f"state array {s.name} must be float64, not "
                                 f"{getattr(v, 'dtype', type(v).__name__)}")
            shape = self._shape(s, K, d)
            if v.shape != shape:
                raise ValueError(f"state array {s.name} has shape {v.shape}, the model "
                                 f"needs {shape}")
            if not np.isfinite(v).all():
                raise ValueError(f"state array {s.name} holds NaN or infinity")
            state[s.name] = np.array(v, dtype=np.float64, order="C")  # own, writable
        self.state_ = state
        self._state_changed()
