"""What every drift detector shares: the parameters (scikit-learn style), the state as a
tuple of numpy arrays, one compiled kernel per detector that both ``update`` (one value)
and ``update_many`` (a whole stream) call, and save/load in the safe format.

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
from ..protocol import Saves

NONE, WARNING, DRIFT = 0, 1, 2


def check_integer(name, value, low):
    """A detector's count parameter: an integer >= ``low``; returns it as float (the
    kernels take floats)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return float(value)


class DriftDetector(Saves):
    """Base class: ``update(value) -> bool``, ``update_many(values) -> indices``.

    Attributes (after updates): ``drift_detected`` and ``warning_detected`` (of the
    last value), ``n_detections_`` (drifts so far), ``n_`` (values seen so far).
    """

    _saves_infinity = True  # (DDM's and Page-Hinkley's running minima start at inf)

    _kernel = None          # the subclass's @njit(cache=True) kernel

    # ------------------------------------------------------------ subclass hooks
    def _check_params(self):
        pass

    def _kernel_params(self):
        """The hyper-parameters as a float64 array (checked)."""
        raise NotImplementedError

    def _new_state(self):
        """A fresh state: a tuple of numpy arrays."""
        raise NotImplementedError

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
        """Feed one value; returns True when a drift is detected at this value."""
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
        return self.drift_detected

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
    def _export(self):
        st = self._prepared()
        meta = {"n_": int(self.n_), "n_detections_": int(self.n_detections_),
                "drift_detected": bool(self.drift_detected),
                "warning_detected": bool(self.warning_detected)}
        return meta, {f"state{i}": a for i, a in enumerate(st)}

    @classmethod
    def _import(cls, params, meta, arrays):
        det = cls(**params)
        fresh = det._prepared()
        state = []
        if set(arrays) != {f"state{i}" for i in range(len(fresh))}:
            raise ValueError(f"state arrays {sorted(arrays)} are not state0..state"
                             f"{len(fresh) - 1}")
        for i, a in enumerate(fresh):
            state.append(check_saved_array(f"state{i}", arrays[f"state{i}"], a.shape,
                                           a.dtype, infinite=True))
        det._check_state(tuple(state))
        det._state = tuple(state)
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

    def _check_state(self, state):
        """Raise ValueError if loaded state arrays (shapes, dtypes, finite values and
        non-negative counts already checked) break the detector's invariants
        (override: the ranges its kernel indexes or loops by)."""
