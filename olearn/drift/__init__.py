"""Drift detectors: ADWIN, DDM, EDDM, Page-Hinkley, with River's parameter names, and
:class:`OnDrift`, a learner that starts afresh when its detector fires.

Each detector has ``update(value) -> bool`` (a change detected at this value) and a
compiled ``update_many(values) -> indices`` of the detections in a whole stream, the
same as the ``update`` loop; both call one ``@njit(cache=True)`` kernel over the
detector's state (numpy arrays).  What happens on a detection:

* ADWIN keeps the newer part of its window (the paper's rule; River clears it);
* DDM, EDDM, Page-Hinkley start afresh (as in their papers and in River).

DDM and EDDM watch a stream of 0/1 errors (1 = a mistake); ADWIN and Page-Hinkley any
real values.  Detectors save and load with ``olearn.save``/``olearn.load``.
"""
from .._lazy import lazy_names

#: public name -> submodule (imported on first use: ``import olearn.drift`` loads no numba)
_WHERE = {"ADWIN": "adwin", "DDM": "ddm", "EDDM": "eddm", "PageHinkley": "page_hinkley",
          "OnDrift": "on_drift"}

#: the detectors by short name (``olearn algos`` lists them) -> class name
DETECTORS = {"adwin": "ADWIN", "ddm": "DDM", "eddm": "EDDM", "page-hinkley": "PageHinkley"}

__all__ = ["ADWIN", "DDM", "EDDM", "PageHinkley", "OnDrift", "DETECTORS", "make"]


def make(name, **params):
    """A detector by its short name (``"adwin"``, ``"page-hinkley"``, ...)."""
    if name not in DETECTORS:
        raise ValueError(f"unknown drift detector {name!r} (known: {', '.join(DETECTORS)})")
    return __getattr__(DETECTORS[name])(**params)


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
