"""Clustering of a stream of rows without a target: ``KMeans`` (MacQueen's online
k-means).  Imported on first use; the models are the registry's
(``olearn.make("kmeans")``)."""
from .._lazy import lazy_names
from ..registry import exports

_WHERE = exports(__name__)

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
