"""A learner's state: named arrays declared as slots, allocated, grown and converted here.

A model class declares ``slots`` (round 2's ``_slots`` still works), a tuple of
:class:`Slot`; :class:`StateMixin` turns them into ``state_``, a dict name -> float64
array, and is the only code that replaces those arrays.  Nothing here knows a slot's
name: the first slot with a ``"K"`` axis gives the number of class rows (``_n_rows``),
the first with a ``"d"`` axis the width (``_d``).

* ``_new_state(K, d)``: fresh arrays at their initial values (then the model's
  ``init_state`` hook);
* ``_resize_state(K, d)``: more class rows (new classes) or more weights (new dict
  features), keeping what was learned; new entries start at the slot's initial value
  (and new weight columns pass through ``init_state``);
* ``_to_multiclass(old_n, n)``: one binary row to ``n`` class rows, ``W[0] = -w/2``,
  ``W[1] = +w/2`` for signed slots (every margin kept), copies for the others;
* ``_export_state()`` / ``_import_state(arrays)``: the arrays for persistence.

Before any array is made its size is computed from the declaration and checked against
the most bytes one learner's state may take (its feature names counted at
``NAME_BYTES`` each for a model fed ``{name: value}`` rows; :func:`set_max_model_bytes`,
``OLEARN_MAX_MODEL_BYTES``, ``olearn serve --max-model-bytes``; by default the
machine's memory): a state that would not fit is a :class:`ModelTooLarge` naming its
size, before anything is allocated (the call that asked fails and changes nothing).

Every replacement calls ``_state_changed()`` (the estimator drops what it derived from
the old arrays, such as the one-example call).
"""
import os
from typing import NamedTuple

import numpy as np

_MAX_BYTES: list = [None]  # set_max_model_bytes's value (None: the default)


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def max_model_bytes() -> int:
    """The most bytes one learner's state may take: :func:`set_max_model_bytes`'s value,
    else ``$OLEARN_MAX_MODEL_BYTES``, else the machine's physical memory."""
    if _MAX_BYTES[0] is not None:
        return _MAX_BYTES[0]
    env = os.environ.get("OLEARN_MAX_MODEL_BYTES", "").strip()
    if env:
        try:
            value = int(float(env))
        except ValueError:
            raise ValueError(f"OLEARN_MAX_MODEL_BYTES must be a number of bytes, got "
                             f"{env!r}") from None
        if value > 0:
            return value
    return _physical_memory()


def set_max_model_bytes(limit: "int | None") -> None:
    """Limit one learner's state to ``limit`` bytes in this process (None: back to
    ``$OLEARN_MAX_MODEL_BYTES`` or the machine's memory)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise ValueError(f"the model size limit must be a positive number of bytes, got "
                         f"{limit!r}")
    _MAX_BYTES[0] = limit


#: what one feature name of a model fed ``{name: value}`` rows costs beside its weights
#: (its vocabulary's dict entry, list entry and a short string), counted in the limit
NAME_BYTES = 100


class ModelTooLarge(ValueError):
    """A state that would take more bytes than :func:`max_model_bytes` allows."""


class StateLayoutError(ValueError):
    """Saved state arrays whose names are not the learner's slots: a model saved by a
    version of olearn whose learner kept other state."""


class Slot(NamedTuple):
    """One state array of a learner.

    ``axes``: ``"K"`` (class rows), ``"d"`` (weights, intercept included), an int, or
    the name of a hyper-parameter (a positive integer, ``"n_clusters"``): the axis has
    that many entries, read when the state is made and checked again when a saved
    state is loaded (so a k-means model of 3 centres over 2 features declares
    ``Slot("C", ("n_clusters", "d"))`` and round-trips), and the parameter, set on a
    fitted model, is refused as any other that shapes the state.
    ``fill``: initial value, a float or the name of a hyper-parameter.
    ``eye``: for two trailing ``"d"`` axes, ``fill`` on the diagonal and 0 elsewhere.
    ``signed``: linear in the weights (flips with the binary label sign, halves into
    the two first class rows when the model becomes multiclass).
    ``mix``: how ``olearn.mix`` combines the members' arrays (``"mean"``, ``"sum"``,
    ``"max"``, ... or a tuple of rules along the last axis; see ``olearn.mixing``).
    ``dtype``: None (float64, every learner's) or another numpy type (a drift
    detector's bucket counts, ``"int64"``); ``fill`` may then also be a sequence of
    the slot's initial values (a running minimum starting at infinity).
    """
    name: str
    axes: tuple
    fill: object = 0.0
    eye: bool = False
    signed: bool = False
    mix: object = "mean"
    dtype: object = None


class StateMixin:
    """Allocation, growth and conversion of ``state_`` from the class's ``slots``."""

    _slots = (Slot("W", ("K", "d"), 0.0, signed=True),)  # round 2's name

    @property
    def slots(self):
        """The state's declaration, a tuple of :class:`Slot` (the public extension point
        that every reader calls; by default round 2's ``_slots``)."""
        return tuple(self._slots)

    def _state_changed(self):
        """Hook: the state arrays were replaced."""

    def init_state(self, name, array, start):
        """Fill the entries of slot ``name`` that a constant cannot (random initial
        weights, say), in place: ``array`` is the slot's fresh array (``start`` = 0) or,
        when the width grows, its grown array, whose entries from index ``start`` along
        the slot's ``"d"`` axis are new.  Default: the declared ``fill`` only."""

    def _fill(self, slot):
        return float(getattr(self, slot.fill)) if isinstance(slot.fill, str) else slot.fill

    def _axis_param(self, name):
        """The size of an axis named by a hyper-parameter: that parameter, a positive
        integer (a ValueError naming it otherwise)."""
        value = getattr(self, name, None)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{type(self).__name__}: {name} must be a positive integer "
                             f"(it sizes the state), got {value!r}")
        return int(value)

    def _shape(self, slot, K, d):
        return tuple(K if a == "K" else d if a == "d" else
                     self._axis_param(a) if isinstance(a, str) else a for a in slot.axes)

    def state_nbytes(self, K, d):
        """The bytes of the state at ``K`` class rows and width ``d``, from the
        declaration (nothing is allocated)."""
        return sum(int(np.prod(self._shape(s, K, d), dtype=np.float64)) *
                   np.dtype(s.dtype or np.float64).itemsize for s in self.slots)

    def _check_nbytes(self, K, d):
        """A :class:`ModelTooLarge` when the state at ``(K, d)`` would not fit."""
        limit = max_model_bytes()
        need = self.state_nbytes(K, d)
        if getattr(self, "vocabulary_", None) is not None:
            need += NAME_BYTES * d  # (its names: a Python dict and list)
        if need > limit:
            big = max(self.slots, key=lambda s: np.prod(self._shape(s, K, d),
                                                          dtype=np.float64))
            raise ModelTooLarge(
                f"{type(self).__name__}: its state would take {need:,} bytes ({K} class "
                f"row(s), width {d:,}; slot {big.name} {self._shape(big, K, d)}), over the "
                f"limit of {limit:,} bytes (olearn.set_max_model_bytes, "
                "OLEARN_MAX_MODEL_BYTES, olearn serve --max-model-bytes)")

    def _alloc(self, slot, K, d):
        shape = self._shape(slot, K, d)
        if slot.eye:
            arr = np.zeros(shape)
            diag = np.arange(d)
            arr[..., diag, diag] = self._fill(slot)
            return arr
        return np.full(shape, self._fill(slot), dtype=np.float64)

    def _new_state(self, K, d):
        self._check_nbytes(K, d)
        self.state_ = {s.name: self._alloc(s, K, d) for s in self.slots}
        for s in self.slots:
            self.init_state(s.name, self.state_[s.name], 0)
        self._record_layout()
        self._state_changed()

    # ------------------------------------------------------------ layout
    def _layout(self):
        """What shapes the state beyond its class rows and width: each slot's name and
        fixed axes, and whether weight column 0 is the constant feature."""
        return (bool(getattr(self, "fit_intercept", False)),
                tuple((s.name, tuple(a if a in ("K", "d") else
                                     (a, getattr(self, a, None)) if isinstance(a, str)
                                     else int(a) for a in s.axes))
                      for s in self.slots))

    def _record_layout(self):
        """Remember the layout the state was made in, and the hyper-parameters then (to
        name the one that changed)."""
        params = getattr(self, "get_params", None)
        self.__dict__["_made_as"] = (self._layout(),
                                     dict(params(deep=False)) if params else {})

    def check_layout(self):
        """Raise ValueError if a hyper-parameter set since the state was made changes
        its layout (``fit_intercept``, ``average``, a number of random features, ...):
        the compiled kernels would index the old arrays with the new layout.  Such a
        parameter set on a fitted model leaves every call but ``fit()`` (which starts
        afresh) refused until it is set back.  Once per call, O(number of slots)."""
        d = self.__dict__
        made = d.get("_made_as")
        state = d.get("state_")
        if made is None or state is None:
            return
        if self._layout() == made[0]:
            return
        now = self.get_params(deep=False) if hasattr(self, "get_params") else {}
        before = made[1]
        changed = [f"{k} {before[k]!r} -> {now[k]!r}" for k in now
                   if k in before and repr(now[k]) != repr(before[k])]
        raise ValueError(
            f"{type(self).__name__}: a parameter that shapes the learned state changed "
            f"after learning started ({', '.join(changed) or 'the state arrays'}); set it "
            "back, or call fit() to start afresh")

    def _resize_state(self, K, d):
        """Grow the class rows to ``K`` and the weight axes to ``d``, keeping what is learned."""
        self._check_nbytes(K, d)
        for s in self.slots:
            old = self.state_[s.name]
            new = self._alloc(s, K, d)
            new[tuple(slice(0, n) for n in old.shape)] = old
            self.state_[s.name] = new
            if "d" in s.axes:
                start = old.shape[s.axes.index("d")]
                if start < d:
                    self.init_state(s.name, new, start)
        self._state_changed()

    def _to_multiclass(self, old_n, n):
        """Binary (one weight row) to K rows: ``-w/2`` and ``+w/2`` keep every margin."""
        d = self._d
        self._check_nbytes(n, d)
        for s in self.slots:
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
        for s in self.slots:
            if s.signed:
                self.state_[s.name] *= -1.0

    def _axis_size(self, axis, default):
        """The size of ``axis`` ("K", "d" or a parameter's name) in the first slot that
        declares it."""
        for s in self.slots:
            if axis in s.axes:
                return self.state_[s.name].shape[s.axes.index(axis)]
        return default

    @property
    def _n_rows(self):
        """Number of class rows of the state (1 for binary and regression): the first
        slot with a ``"K"`` axis."""
        return self._axis_size("K", 1)

    @property
    def _d(self):
        """Number of weights per row (the constant feature included): the first slot
        with a ``"d"`` axis."""
        return self._axis_size("d", 0)

    def _state_tuple(self):
        """The state arrays in slot order, as the kernels take them."""
        return tuple(self.state_[s.name] for s in self.slots)

    # ------------------------------------------------------------ persistence
    def _export_state(self, d=None):
        """The state arrays for persistence; with ``d``, their weight axes cut to ``d``
        (a dict-fed model grows its arrays by doubling, ahead of its vocabulary: the
        entries past the width hold only the slots' initial values, and ``load`` checks
        the shape for the width)."""
        if d is None:
            return {f"state/{k}": v for k, v in self.state_.items()}
        axes = {s.name: s.axes for s in self.slots}
        out = {}
        for name, v in self.state_.items():
            cut = tuple(slice(0, d) if a == "d" else slice(None)
                        for a in axes.get(name, ()))
            out[f"state/{name}"] = v[cut] if cut and v.ndim == len(cut) else v
        return out

    def _import_state(self, arrays, K, d):
        """The state from saved arrays, each checked against its slot's declaration
        (real float64, the shape for ``K`` class rows and ``d`` weights, finite): a
        compiled kernel indexes these arrays without bounds checks, so nothing else
        may reach it."""
        given = {k.split("/", 1)[1]: v for k, v in arrays.items() if k.startswith("state/")}
        names = [s.name for s in self.slots]
        for s in self.slots:        # a slot a newer olearn added that holds nothing here
            if s.name not in given and 0 in self._shape(s, K, d):   # (COCOB's empty G)
                given[s.name] = np.zeros(self._shape(s, K, d))
        if set(given) != set(names):
            missing, extra = set(names) - set(given), set(given) - set(names)
            raise StateLayoutError(
                f"state arrays {sorted(given)} do not match the learner's {names}"
                + (f" (missing {sorted(missing)})" if missing else "")
                + (f" (unknown {sorted(extra)})" if extra else ""))
        state = {}
        for s in self.slots:
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
        self._record_layout()
        self._state_changed()
