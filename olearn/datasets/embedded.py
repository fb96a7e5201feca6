"""Embedded defaults: small real datasets that ship inside scikit-learn, so they need
no download.  Each loader returns ``(X, y)`` numpy arrays, rows in the file's order,
labels as scikit-learn gives them.

``scale="minmax"`` maps every column to [0, 1] with the column's minimum and maximum
over the whole dataset (a fixed affine map, the usual preparation of LIBSVM's
``*_scale`` files); ``scale="standard"`` to mean 0 and variance 1 over the whole
dataset (what ``olearn evaluate`` and ``olearn compare`` both use, so that their
figures agree); ``scale=None`` (the default) keeps the raw values.
"""
import numpy as np

#: task of each embedded dataset
TASKS = {"breast_cancer": "binary", "diabetes": "regression", "digits": "multiclass",
         "iris": "multiclass", "wine": "multiclass"}


def _minmax(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (X - lo) / span


def _standard(X):
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


_SCALES = {None: lambda X: X, "minmax": _minmax, "standard": _standard}


def _load(name, scale):
    if scale not in _SCALES:
        raise ValueError(f"scale must be None, 'minmax' or 'standard', got {scale!r}")
    import sklearn.datasets
    X, y = getattr(sklearn.datasets, f"load_{name}")(return_X_y=True)
    return _SCALES[scale](np.ascontiguousarray(X, dtype=np.float64)), y


def load_breast_cancer(scale=None):
    """Wisconsin diagnostic breast cancer: 569 rows, 30 features, binary labels 0/1
    (0 = malignant, 1 = benign)."""
    return _load("breast_cancer", scale)


def load_diabetes(scale=None):
    """Diabetes progression: 442 rows, 10 features (already centred and scaled by
    scikit-learn), a real-valued target (regression)."""
    return _load("diabetes", scale)


def load_digits(scale=None):
    """Optical digits: 1,797 rows of 8x8 images (64 features, values 0..16), 10 classes."""
    return _load("digits", scale)


def load_iris(scale=None):
    """Iris: 150 rows, 4 features, 3 classes (sorted by class in the file)."""
    return _load("iris", scale)


def load_wine(scale=None):
    """Wine: 178 rows, 13 features, 3 classes (sorted by class in the file)."""
    return _load("wine", scale)


#: name -> loader, used by the command line
EMBEDDED = {"breast_cancer": load_breast_cancer, "diabetes": load_diabetes,
            "digits": load_digits, "iris": load_iris, "wine": load_wine}


def load_embedded(name, scale=None):
    """``(X, y)`` of an embedded dataset by name (see ``EMBEDDED``)."""
    if name not in EMBEDDED:
        raise KeyError(f"unknown embedded dataset {name!r}; available: "
                       f"{', '.join(sorted(EMBEDDED))}")
    return EMBEDDED[name](scale=scale)
