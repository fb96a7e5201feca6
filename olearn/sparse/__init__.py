"""Sparse online learning at O(non-zeros) per row: truncated gradient, FOBOS, RDA,
FTRL-Proximal, AdaFOBOS, AdaRDA and online feature selection.  Penalties are applied
lazily to a weight when a row touches it (``olearn._compiled.lazy``); the model is
materialised on demand, and ``n_nonzero_`` counts its non-zero weights."""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
