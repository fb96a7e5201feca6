"""Online unsupervised learning: ``IncrementalSVD`` (Brand's thin-SVD row updates) and
``OnlinePCA`` (running mean on the incremental SVD, or Oja's rule).  Rows are samples,
as in scikit-learn.  Imported on first use."""
from importlib import import_module

_WHERE = {"IncrementalSVD": "incremental_svd", "OnlinePCA": "online_pca"}

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
