"""What every drift detector shares: the parameters (scikit-learn style), the state as a
tuple of numpy arrays, one compiled kernel per detector that both ``update`` (one value)
and ``update_many`` (a whole stream) call, and save/load in the safe format.

On the model protocol for rows without a target (``target = "none"``: a detector
learns from a stream of numbers): the state is declared as ``slots``
(:class:`olearn.protocol.Slot`: name, shape, initial values, dtype), from which a fresh
state is made and a saved one checked (``export_state``/``from_state``, the arrays
``state/<slot>``; a round-3 file's ``state0``, ``state1``, ... are read by slot
order); ``learn_one(x)`` is ``update(x)``; ``detect(values, stop=False)`` gives the
flags; the tags say what is true (``one_example``, no ``sparse_input``: the input is
numbers, not rows); ``olearn.mix`` refuses (a detector's statistics are a record of
its own stream).

A kernel is ``kernel(values, *state, params, flags, stop) -> consumed``: it reads
``values`` in order, changes ``state`` in place, writes ``flags[i]`` (0 nothing,
1 warning, 2 drift) and returns how many values it read (all of them, or, with
``stop``, up to and including the first drift).  So ``update_many`` is exactly the
``update`` loop, and a learner wrapped by :class:`~olearn.drift.OnDrift` can stop at a
detection.
"""
import math

import numpy as np

from .._params import store_params  # noqa: F401 (the subclasses' __init__)
from .._compiled import entry_point as _entry_point
from .._locking import locked
from .._validation import check_saved_array
from ..protocol import NotMixable, Saves, Slot  # noqa: F401 (Slot: the subclasses')

NONE, WARNING, DRIFT = 0, 1, 2


def check_integer(name, value, low):
    """A detector's count parameter: an integer >= ``low``; returns it as float (the
    kernels take floats)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return float(value)


class DriftDetector(NotMixable, Saves):
    """Base class: ``update(value)`` (River 0.26's: returns None; read
    ``drift_detected``), ``update_many(values) -> indices``, ``detect(values,
    stop=False) -> flags``, ``learn_one(x)`` (River's name), ``_reset()`` (River's).

    Attributes (after updates): ``drift_detected`` and ``warning_detected`` (of the
    last value), ``n_detections_`` (drifts so far), ``n_`` (values seen so far).

    Not an instance of River's ``river.base.DriftDetector``: River's detector bases are
    not ABCs (no ``register``), and answering a River-derived class from ``__class__``
    made ``clone`` build that class, which neither pickled nor loaded as the olearn one.
    """

    #: River's base class of this detector (``river.base.<name>``; informative)
    _river_kind = "DriftDetector"

    @property
    def drift_detected(self):
        """Whether the last value was a drift (River's attribute)."""
        return self.__dict__.get("_drift_detected", False)

    @drift_detected.setter
    def drift_detected(self, value):
        self.__dict__["_drift_detected"] = bool(value)

    @property
    def warning_detected(self):
        """Whether the last value was at the warning level."""
        return self.__dict__.get("_warning_detected", False)

    @warning_detected.setter
    def warning_detected(self, value):
        self.__dict__["_warning_detected"] = bool(value)

    def _reset(self):
        """River's name of :meth:`reset` (returns None, as River's)."""
        self.reset()

    #: what a detector learns from: a stream of numbers, no target
    target = "none"
    _capabilities = {"sparse_input": False, "one_example": True}

    _saves_infinity = True  # (DDM's and Page-Hinkley's running minima start at inf)

    _kernel = None          # the subclass's @njit(cache=True) kernel

    #: the state, in the kernel's argument order: a tuple of :class:`Slot` (name, shape
    #: as ints, initial value or values, dtype); a property where a parameter shapes it
    slots = ()

    # ------------------------------------------------------------ subclass hooks
    def _check_params(self):
        pass

    def _kernel_params(self):
        """The hyper-parameters as a float64 array (checked)."""
        raise NotImplementedError

    def _new_state(self):
        """A fresh state from the ``slots``: a tuple of numpy arrays."""
        return tuple(np.full(tuple(int(a) for a in slot.axes), slot.fill,
                             dtype=slot.dtype or np.float64) for slot in self.slots)

    # ------------------------------------------------------------ parameters
    def get_params(self, deep=True):
        import inspect
        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params):
        valid = self.get_params()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"unknown parameter {key!r} for {type(self).__name__}; "
                                 f"valid: {', '.join(sorted(valid))}")
            setattr(self, key, value)
        self.reset()
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def clone(self):
        """A fresh detector with the same parameters."""
        return type(self)(**self.get_params())

    # ------------------------------------------------------------ state
    @locked
    def reset(self):
        """Forget everything seen (the parameters stay)."""
        for name in ("_state", "_params_arr", "_one"):
            self.__dict__.pop(name, None)
        self.drift_detected = self.warning_detected = False
        self.n_detections_ = 0
        self.n_ = 0
        return self

    def __sklearn_is_fitted__(self):
        """Whether the detector has seen a value (its state exists)."""
        return "_state" in self.__dict__

    def _prepared(self):
        st = self.__dict__.get("_state")
        if st is None:
            self._params_arr = np.asarray(self._kernel_params(), dtype=np.float64)
            st = self._state = self._new_state()
            self.__dict__.setdefault("n_", 0)
            self.__dict__.setdefault("n_detections_", 0)
        return st

    def _call(self, values, flags, stop):
        st = self._prepared()
        try:
            return int(type(self)._kernel(values, *st, self._params_arr, flags, stop))
        except ZeroDivisionError:  # (only a state no stream can reach: a tampered one)
            raise ValueError(f"{type(self).__name__}: its state is inconsistent (a "
                             "division by zero); call reset()") from None

    # ------------------------------------------------------------ public API
    @locked
    def update(self, value):
        """Feed one value; returns None, as River 0.26's ``update`` (``drift_detected``
        then tells whether a drift was detected at this value; earlier versions
        returned it)."""
        one = self.__dict__.get("_one")
        if one is None:
            st = self._prepared()
            buf, flag = np.zeros(1), np.zeros(1, dtype=np.int8)
            one = self._one = [buf, flag, (buf, *st, self._params_arr, flag, False), None]
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise TypeError(f"value must be a number, got {value!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"value must be finite, got {value!r}")
        one[0][0] = v
        one[1][0] = NONE
        entry = one[3]
        if entry is None:       # the first call compiles; later ones skip the dispatch
            kernel = type(self)._kernel
            kernel(*one[2])
            one[3] = _entry_point(kernel, one[2])
        else:
            entry(*one[2])
        flag = int(one[1][0])
        self.n_ += 1
        self.drift_detected = flag == DRIFT
        self.warning_detected = flag == WARNING
        self.n_detections_ += flag == DRIFT

    @locked
    def learn_one(self, x):
        """River's name of :meth:`update` (``x`` a number); returns the detector."""
        self.update(x)
        return self

    @locked
    def detect(self, values, stop=False):
        """Feed ``values`` in one compiled call; returns their flags, int8 (0 nothing,
        1 warning, 2 drift), one per value read: every value, or with ``stop`` up to and
        including the first drift (the values after it are not read)."""
        return self._flags(self._values(values), bool(stop))

    def explicit_state(self):
        """A detector cannot be mixed (``olearn.mix`` asks this): its statistics are a
        record of its own stream."""
        from ..protocol import CannotMixError
        raise CannotMixError(f"{type(self).__name__} cannot be mixed: a detector's "
                             "statistics (its window, minima, counts) are a record of "
                             "its own stream")

    def widen(self, n_features):
        """A detector reads numbers, not columns: it has no width (None)."""
        return None

    @locked
    def update_many(self, values, return_warnings=False):
        """Feed a whole stream in one compiled call; returns the indices (into ``values``)
        at which a drift was detected: the same as calling ``update`` on each value in
        order.  With ``return_warnings``: ``(drifts, warnings)``."""
        flags = self._flags(self._values(values))
        drifts = np.flatnonzero(flags == DRIFT)
        if return_warnings:
            return drifts, np.flatnonzero(flags == WARNING)
        return drifts

    @locked
    def detect(self, values, stop=False):
        """Feed values in order (validated as ``update_many``'s); returns the int8 flags
        of the values read (0 none, 1 warning, 2 drift): all of them, or with ``stop``
        up to and including the first drift (what a wrapper reacting to it reads)."""
        return self._flags(self._values(values), stop=bool(stop))

    @staticmethod
    def _values(values):
        try:
            v = np.ascontiguousarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("values must be numbers") from None
        if v.ndim != 1:
            raise ValueError(f"values must be one-dimensional, got shape {v.shape}")
        if not np.isfinite(v).all():
            raise ValueError(f"values must be finite: value {int(np.argmin(np.isfinite(v)))} "
                             "is NaN or infinite")
        return v

    def _flags(self, v, stop=False):
        """Run the kernel over ``v`` (validated); the flags of the values read."""
        flags = np.zeros(v.shape[0], dtype=np.int8)
        if v.shape[0] == 0:
            return flags
        k = self._call(v, flags, stop)
        flags = flags[:k]
        self.n_ += k
        self.n_detections_ += int(np.count_nonzero(flags == DRIFT))
        last = int(flags[-1]) if k else NONE
        self.drift_detected, self.warning_detected = last == DRIFT, last == WARNING
        return flags

    # ------------------------------------------------------------ persistence
    def export_state(self):
        """(metadata, arrays): the counters and flags, and each slot's array as
        ``state/<name>`` (what ``save`` writes)."""
        st = self._prepared()
        meta = {"n_": int(self.n_), "n_detections_": int(self.n_detections_),
                "drift_detected": bool(self.drift_detected),
                "warning_detected": bool(self.warning_detected)}
        return meta, {f"state/{slot.name}": a for slot, a in zip(self.slots, st)}

    def _export(self):  # round 2's name
        return self.export_state()

    @classmethod
    def from_state(cls, params, meta, arrays):
        """A detector from ``export_state``'s output, every array checked against its
        slot (dtype, shape, no NaN) and the detector's invariants (``_check_state``)
        before a kernel may read it.  A round-3 file (arrays ``state0``, ``state1``, ...
        in slot order) is read as well."""
        if not isinstance(params, dict) or not isinstance(meta, dict):
            raise ValueError("parameters and metadata must be JSON objects")
        det = cls(**params)
        fresh = det._prepared()
        slots = det.slots
        names = [f"state/{slot.name}" for slot in slots]
        legacy = [f"state{i}" for i in range(len(slots))]
        if set(arrays) == set(legacy):
            names = legacy
        elif set(arrays) != set(names):
            raise ValueError(f"state arrays {sorted(arrays)} are not the detector's "
                             f"{names}")
        state = tuple(check_saved_array(name.rpartition("/")[2], arrays[name], a.shape,
                                        a.dtype, infinite=True)
                      for name, a in zip(names, fresh))
        det._check_state(state)
        det._state = state
        det.__dict__.pop("_one", None)
        for key in ("n_", "n_detections_"):
            if type(meta.get(key)) is not int or meta[key] < 0:
                raise ValueError(f"{key} must be a non-negative integer")
        for key in ("drift_detected", "warning_detected"):
            if type(meta.get(key)) is not bool:
                raise ValueError(f"{key} must be true or false")
        det.n_ = meta["n_"]
        det.n_detections_ = meta["n_detections_"]
        det.drift_detected = meta["drift_detected"]
        det.warning_detected = meta["warning_detected"]
        return det

    @classmethod
    def _import(cls, params, meta, arrays):  # round 2's name
        return cls.from_state(params, meta, arrays)

    def _check_state(self, state):
        """Raise ValueError if loaded state arrays (shapes, dtypes, finite values and
        non-negative counts already checked) break the detector's invariants
        (override: the ranges its kernel indexes or loops by)."""
