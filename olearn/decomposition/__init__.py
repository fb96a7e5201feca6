"""Online unsupervised learning: ``IncrementalSVD`` (Brand's thin-SVD row updates) and
``OnlinePCA`` (running mean on the incremental SVD, or Oja's rule).  Rows are samples,
as in scikit-learn.  Imported on first use."""
from .._lazy import lazy_names

_WHERE = {"IncrementalSVD": "incremental_svd", "OnlinePCA": "online_pca"}

__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
