"""Validation, done once per call and never per row: the one set of checkers.

* hyper-parameters: ``check_number``, ``check_bool``, ``check_choice`` (a learner's
  ``_check_params`` calls them; they raise ``ValueError`` naming the parameter);
* a batch: ``validate_X`` (scikit-learn's ``validate_data``: finite, 2-D, CSR or
  C-contiguous float64) and ``validate_batch`` (``X``, ``y`` and ``sample_weight``
  together);
* one example's weight: ``check_weight``;
* a seed: ``check_random_state`` (a numpy random generator).
"""
import math
import numbers

import numpy as np


def check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, "
                         f"got {value!r}")


def check_number(name, value, low=None, high=None, low_open=False, high_open=False):
    """A finite real number within the given bounds (open or closed); returns it as float."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and np.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        lo = "" if low is None else (f"> {low}" if low_open else f">= {low}")
        hi = "" if high is None else (f"< {high}" if high_open else f"<= {high}")
        bounds = " and ".join(b for b in (lo, hi) if b)
        raise ValueError(f"{name} must be a finite number{' ' + bounds if bounds else ''}, "
                         f"got {value!r}")
    return float(value)


#: the largest value of a size parameter (units of a layer, random features, a budget
#: of support vectors, selected features): the state it sizes is allocated at the first
#: row, and a value past this asks for more memory than a machine has (one float64
#: array of 2^24 entries is 128 MiB)
MAX_SIZE = 2**24
#: the largest weights a layered model may hold between hidden layers (the products of
#: consecutive sizes), its most hidden layers, and the most units of one
MAX_WEIGHTS = 2**27
MAX_LAYERS = 1000
MAX_UNITS = 2**16
#: the largest penalty or rate a network takes: past it a gradient's square (Adam's
#: second moment) can overflow on weights of ordinary size while every score stays
#: finite, so the state would turn non-finite with no divergence to report
MAX_PENALTY = 1e6
#: the largest constant feature (``intercept_scaling``): past it every row is extreme
#: (``olearn._compiled.finite.HIGH``), its square product with a weight out of range
MAX_CONSTANT = 1e30


def check_size(name, value, high=MAX_SIZE):
    """A size parameter: an integer in 1..``high``, checked before anything is allocated;
    returns it as int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or \
            not 1 <= value <= high:
        if isinstance(value, float) and value.is_integer() and 1 <= value <= high:
            return int(value)  # (3.0 read from JSON or a command line: an integer)
        raise ValueError(f"{name} must be an integer from 1 to {high}, got {value!r}")
    return int(value)


#: the largest sample weight (a step multiplied by more overflows the learners' state)
MAX_WEIGHT = 1e9
#: the largest regression target in absolute value (its square must stay finite)
MAX_TARGET = 1e150


def check_saved_array(name, value, shape, dtype, infinite=False):
    """A state array read from a file, before a compiled kernel may index it: exactly
    ``dtype`` and ``shape``, floats finite (with ``infinite``: not NaN, for a state
    whose running minimum starts at infinity), integers non-negative (counts, sizes);
    raises ValueError naming it."""
    if not isinstance(value, np.ndarray) or value.shape != tuple(shape) \
            or value.dtype != dtype:
        got = f"{value.dtype}{list(value.shape)}" if isinstance(value, np.ndarray) else \
            type(value).__name__
        raise ValueError(f"state array {name} is {got}, expected {np.dtype(dtype)}"
                         f"{list(shape)}")
    if value.dtype.kind == "f" and not (~np.isnan(value) if infinite else
                                        np.isfinite(value)).all():
        raise ValueError(f"state array {name} holds NaN{'' if infinite else ' or infinity'}")
    if value.dtype.kind == "i" and (value < 0).any():
        raise ValueError(f"state array {name} holds a negative count")
    return np.array(value, order="C")


def check_random_state(random_state):
    """A numpy random generator from ``random_state``: a ``Generator`` or
    ``RandomState`` as it is, else ``np.random.default_rng(random_state)`` (None: fresh)."""
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    return np.random.default_rng(random_state)


def check_weight(sample_weight):
    """One example's weight: a finite number >= 0, as float."""
    try:
        w = float(sample_weight)
    except (TypeError, ValueError):
        w = math.nan
    if not 0.0 <= w <= MAX_WEIGHT:
        raise ValueError(f"sample_weight must be a number in [0, {MAX_WEIGHT:g}], got "
                         f"{sample_weight!r}")
    return w


def validate_X(estimator, X, reset):
    """``X`` as CSR or C-contiguous float64, finite, with the estimator's width: what
    scikit-learn's ``validate_data`` makes of it (and its errors).  Input that is
    already so (the readers' chunks, float64 arrays) is checked here, without
    importing scikit-learn; anything else goes to ``validate_data``."""
    if _ready(X) and "feature_names_in_" not in estimator.__dict__:
        width = estimator.__dict__.get("n_features_in_")
        if reset:
            estimator.n_features_in_ = X.shape[1]
            return X
        if width is None or width == X.shape[1]:
            return X
    from sklearn.utils.validation import validate_data
    try:
        return validate_data(estimator, X, reset=reset, accept_sparse="csr",
                             dtype=np.float64, order="C")
    except OverflowError:
        raise ValueError(OVERFLOW.format("X")) from None


#: the error of a number too big for a float (an int of 400 digits)
OVERFLOW = ("{} holds a number beyond the range of floating-point numbers (about 1.8e308): "
            "scale the values")


def as_floats(name, x):
    """``np.asarray(x, dtype=np.float64)``, with a number too big for a float as a
    ValueError naming ``name`` (numpy raises OverflowError)."""
    try:
        return np.asarray(x, dtype=np.float64)
    except OverflowError:
        raise ValueError(OVERFLOW.format(name)) from None


def _ready(X):
    """A non-empty, finite float64 CSR matrix or C-contiguous 2-D array."""
    if type(X) is np.ndarray:
        values = X
        ok = X.ndim == 2 and X.dtype == np.float64 and X.flags.c_contiguous
    else:
        values = getattr(X, "data", None)
        ok = getattr(X, "format", None) == "csr" and X.dtype == np.float64 \
            and type(X).__module__.startswith("scipy.sparse")
    return ok and X.shape[0] > 0 and X.shape[1] > 0 and bool(np.isfinite(values).all())


def column_or_1d(y, warn=True):
    """``y`` as a 1-D array (scikit-learn's ``column_or_1d``, imported only for input
    that is not one already)."""
    if type(y) is np.ndarray and y.ndim == 1:
        return y
    from sklearn.utils.validation import column_or_1d as sk
    return sk(y, warn=warn)


def validate_batch(estimator, X, y, sample_weight, reset):
    """``(X, y, sample_weight)`` of one call, checked together; ``sample_weight`` is
    None or a float64 array of one finite non-negative weight per row."""
    from ._estimator import is_classifier
    X = estimator._validate_X(X, reset)
    if isinstance(y, (list, tuple)) and is_classifier(estimator):
        # numpy would turn [0, "a"] into strings: check the labels as given
        from ._labels import check_label_kinds
        check_label_kinds([u for v in y for u in (v if isinstance(v, list) else [v])])
    y = column_or_1d(y, warn=True)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    if X.shape[0] == 0:
        raise ValueError("Found array with 0 sample(s): need at least one row")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        if sample_weight.ndim == 0:
            sample_weight = np.full(X.shape[0], float(sample_weight))
        if sample_weight.shape != (X.shape[0],):
            raise ValueError(f"sample_weight has shape {sample_weight.shape}, expected "
                             f"({X.shape[0]},)")
        if not (np.all(sample_weight >= 0) and np.all(sample_weight <= MAX_WEIGHT)):
            raise ValueError(f"sample_weight must hold numbers in [0, {MAX_WEIGHT:g}] "
                             "(finite, non-negative)")
    return X, y, sample_weight


def check_int(name, value, low):
    """A count parameter: an integer (not a bool) >= ``low``; returns it as int."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)
