"""The scikit-learn estimator contract, kept without importing scikit-learn.

Importing scikit-learn costs about 1.2 s (``sklearn.base`` pulls in ``scipy.stats``
and more), twice what numpy, scipy.sparse and numba cost together, and the command
line and ``olearn.make`` need none of it.  So olearn's learners derive from the small
classes here, which give what scikit-learn's ``BaseEstimator`` and its mixins give an
estimator (``get_params``/``set_params`` over the ``__init__`` parameters, nested
``a__b`` keys included; a repr of the changed parameters; ``__sklearn_tags__``;
``score``) and scikit-learn's ``clone``, ``check_is_fitted``, ``is_classifier`` and
``available_if`` work on them unchanged.  scikit-learn itself is imported only where
it is really used: building tags (its own checks and meta-estimators ask for them),
``score``, and raising its ``NotFittedError``.

The helpers of the same names here (``clone``, ``check_is_fitted``, ``is_classifier``,
``is_regressor``, ``available_if``) behave as scikit-learn's on olearn's estimators and
hand anything else to scikit-learn.
"""
import copy
import functools
import inspect
from collections import defaultdict


class Estimator:
    """Parameters are the ``__init__`` arguments, stored unchanged as attributes."""

    def _estimator_kind(self):
        """"classifier", "regressor" or None: the mixins below say; a wrapper answers
        for the learner it wraps."""
        return None

    @classmethod
    def _get_param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for p in inspect.signature(init).parameters.values():
            if p.name == "self" or p.kind == p.VAR_KEYWORD:
                continue
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__}: estimators take no *args in __init__")
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep=True):
        out = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params):
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = defaultdict(dict)
        for key, value in params.items():
            key, delim, sub_key = key.partition("__")
            if key not in valid:
                raise ValueError(f"Invalid parameter {key!r} for estimator {self}. Valid "
                                 f"parameters are: {self._get_param_names()!r}.")
            if delim:
                nested[key][sub_key] = value
            else:
                setattr(self, key, value)
                valid[key] = value
        for key, sub in nested.items():
            valid[key].set_params(**sub)
        return self

    def __repr__(self):
        defaults = {name: p.default for name, p in
                    inspect.signature(type(self).__init__).parameters.items()}
        changed = [f"{k}={v!r}" for k, v in self.get_params(deep=False).items()
                   if k not in defaults or not _same(v, defaults[k])]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, RegressorTags, Tags, TargetTags
        kind = self._estimator_kind()
        tags = Tags(estimator_type=kind, target_tags=TargetTags(required=False))
        if kind == "classifier":
            tags.classifier_tags = ClassifierTags()
            tags.target_tags.required = True
        elif kind == "regressor":
            tags.regressor_tags = RegressorTags()
            tags.target_tags.required = True
        return tags


def _same(value, default):
    """A parameter left at its default (as scikit-learn's repr judges it: equal reprs,
    or both NaN)."""
    if value is default:
        return True
    try:
        if value != value and default != default:        # NaN
            return True
    except (TypeError, ValueError):
        pass
    return repr(value) == repr(default)


class ClassifierMixin:
    """``score`` is the accuracy; tags say classifier."""

    def _estimator_kind(self):
        return "classifier"

    def score(self, X, y, sample_weight=None):
        from sklearn.metrics import accuracy_score
        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)


class RegressorMixin:
    """``score`` is R^2; tags say regressor."""

    def _estimator_kind(self):
        return "regressor"

    def score(self, X, y, sample_weight=None):
        from sklearn.metrics import r2_score
        return r2_score(y, self.predict(X), sample_weight=sample_weight)


def estimator_kind(estimator):
    """"classifier", "regressor" or None, as scikit-learn's tags say."""
    if isinstance(estimator, Estimator):
        return estimator._estimator_kind()
    from sklearn.utils import get_tags
    return get_tags(estimator).estimator_type


def is_classifier(estimator):
    return estimator_kind(estimator) == "classifier"


def is_regressor(estimator):
    return estimator_kind(estimator) == "regressor"


def clone(estimator):
    """A new, unfitted estimator with the same parameters (scikit-learn's ``clone``)."""
    if not isinstance(estimator, Estimator):
        from sklearn.base import clone as sk
        return sk(estimator)
    params = {k: _clone_param(v) for k, v in estimator.get_params(deep=False).items()}
    return type(estimator)(**params)


def _clone_param(value):
    if isinstance(value, Estimator) or hasattr(value, "get_params") \
            and not isinstance(value, type):
        return clone(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(_clone_param(v) for v in value)
    return copy.deepcopy(value)


def check_is_fitted(estimator, attribute):
    """scikit-learn's ``NotFittedError`` unless ``estimator`` has ``attribute``."""
    if not hasattr(estimator, attribute):
        from sklearn.exceptions import NotFittedError
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. "
                             "Call 'fit' with appropriate arguments before using this "
                             "estimator.")


def available_if(check):
    """A method that exists on an instance only where ``check(instance)`` is true (as
    scikit-learn's ``available_if``: ``hasattr`` is False otherwise)."""
    return functools.partial(_AvailableIf, check=check)


class _AvailableIf:
    def __init__(self, fn, check):
        self.fn, self.check = fn, check
        functools.update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        try:
            available = self.check(obj)
        except Exception as exc:
            raise AttributeError(self._missing(obj)) from exc
        if not available:
            raise AttributeError(self._missing(obj))
        return self.fn.__get__(obj, owner)

    def _missing(self, obj):
        return f"This {type(obj).__name__!r} has no attribute {self.fn.__name__!r}"


def widen(model, n_features):
    """Make a model that has started learning take ``n_features`` columns from now on
    (its width only grows; what it learned is kept); returns its width, None before it
    has learned.  Every olearn learner and wrapper can; anything else raises."""
    method = getattr(model, "widen", None)  # the protocol's (olearn.protocol)
    if not callable(method):
        raise ValueError(f"{type(model).__name__} cannot take new features as they appear: "
                         "read the data with a fixed width (n_features)")
    from ._locking import lock_of
    with lock_of(model):  # (the model's calls take turns: olearn._locking)
        return method(n_features)
