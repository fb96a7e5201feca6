"""Registry of learners by name: ``olearn.make("pa1", C=0.5)``.

Each learner module registers its names at import (``register("pa1", PAClassifier,
variant="PA-I")``).  ``make`` and ``available`` import every module of the learner
packages listed in ``LEARNER_PACKAGES``, so a new algorithm file in one of them is
found without any change here.
"""
import importlib
import pkgutil

LEARNER_PACKAGES = ("olearn.linear", "olearn.second_order", "olearn.multiclass",
                    "olearn.sparse", "olearn.kernel", "olearn.unsupervised")

_REGISTRY = {}
_loaded = False


def register(name, cls, **defaults):
    """Make ``cls(**defaults)`` available as ``name`` (to ``make`` and the CLI)."""
    _REGISTRY[name] = (cls, dict(defaults))


def _load_all():
    global _loaded
    if _loaded:
        return
    for package in LEARNER_PACKAGES:
        try:
            pkg = importlib.import_module(package)
        except ModuleNotFoundError as exc:
            if exc.name == package:
                continue
            raise
        for info in pkgutil.iter_modules(pkg.__path__, package + "."):
            importlib.import_module(info.name)
    _loaded = True


def available(kind=None):
    """Sorted registered names; ``kind`` in {"classifier", "regressor"} filters."""
    _load_all()
    names = sorted(_REGISTRY)
    if kind is not None:
        names = [n for n in names if learner_kind(n) == kind]
    return names


def learner_kind(name):
    """ "classifier", "regressor" or "other" for a registered name."""
    from sklearn.base import is_classifier, is_regressor
    cls, defaults = lookup(name)
    est = cls(**defaults)
    return "classifier" if is_classifier(est) else "regressor" if is_regressor(est) else "other"


def lookup(name):
    """(class, default parameters) of a registered name, or a clear KeyError."""
    _load_all()
    if name not in _REGISTRY:
        raise KeyError(f"unknown algorithm {name!r}; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def make(name, **params):
    """A fresh learner registered as ``name`` with ``params`` on top of its defaults."""
    cls, defaults = lookup(name)
    merged = {**defaults, **params}
    valid = cls().get_params()
    unknown = sorted(set(merged) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} for {name}; valid: "
                         f"{', '.join(sorted(valid))}")
    return cls(**merged)


def registered_classes():
    """Every registered learner class (for loading saved models safely)."""
    _load_all()
    return {f"{c.__module__}.{c.__qualname__}": c for c, _ in _REGISTRY.values()}


def warmup(names=None, verbose=False):
    """Compile (or load from the disk cache) every kernel of the named learners."""
    import time

    import numpy as np
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4))
    times = {}
    for name in names or available():
        t0 = time.perf_counter()
        est = make(name)
        kind = learner_kind(name)
        ys = [rng.standard_normal(6)] if kind == "regressor" else \
            [np.array([0, 1] * 3), np.array([0, 1, 2] * 2)]
        for y in ys:
            for data in (X, sp.csr_matrix(X)):
                est.fit(data, y)
        times[name] = time.perf_counter() - t0
        if verbose:
            print(f"{name:<14} {times[name]:6.2f} s", flush=True)
    return times
