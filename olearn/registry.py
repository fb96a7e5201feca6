"""Registry of learners by name: ``olearn.make("pa1", C=0.5)``.

Each learner module registers its names at import (``register("pa1", PAClassifier,
variant="PA-I")``).  ``make`` and ``available`` import every module of the learner
packages listed in ``LEARNER_PACKAGES``, so a new algorithm file in one of them is
found without any change here.

Cheap questions are answered without importing any learner (so without numpy, numba
or scikit-learn): :func:`names` and :func:`check_name` read the learner files' literal
``register("name", ...)`` lines; a learner module is imported only when its class is
needed (:func:`lookup` imports the one module that registers the name).  A file that
registers a name computed at run time makes these fall back to importing everything.

:func:`describe` gives a learner's class, one-line summary and parameters (default
and one-line meaning, from the class's numpydoc "Parameters" section): the command
line's ``olearn algos`` and ``olearn train --algo NAME --help`` show it.
"""
import difflib
import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
from typing import NamedTuple

LEARNER_PACKAGES = ("olearn.linear", "olearn.second_order", "olearn.multiclass", "olearn.ensemble",
                    "olearn.sparse", "olearn.kernel", "olearn.unsupervised")

_REGISTRY = {}
_loaded = False
_scanned = None

#: meanings of the parameters every learner takes (``OnlineLearner``'s), for the
#: docstrings that only say "see ``OnlineLearner``"
COMMON_PARAMETERS = {
    "fit_intercept": "bool, learn an intercept (a constant feature in the weights).",
    "intercept_scaling": "float > 0, value of that constant feature (1: the seed texts' "
                         "convention; smaller: the intercept weighs less in norms and steps).",
    "epochs": "int, passes over the data in fit() (the command line makes one).",
    "shuffle": "bool, shuffle the rows before each epoch of fit().",
    "random_state": "int or None, seed of the shuffle.",
}


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


# ------------------------------------------------------------------ names, cheaply
_LITERAL = re.compile(r"""^[ \t]*register\(\s*(["'])([^"'\n]+)\1""", re.M)
_ANY = re.compile(r"^[ \t]*register\(", re.M)


def _scan():
    """``({name: module}, complete)`` from the learner files' source, importing nothing
    but the ``olearn`` package itself; ``complete`` is False when some file registers a
    name that is not a string literal (then only importing tells every name)."""
    global _scanned
    if _scanned is not None:
        return _scanned
    found, complete = {}, True
    for package in LEARNER_PACKAGES:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        for info in pkgutil.iter_modules(spec.submodule_search_locations, package + "."):
            path = os.path.join(info.module_finder.path,
                                info.name.rsplit(".", 1)[1] + ".py")
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError:                # a sub-package or a compiled module
                complete = False
                continue
            literal = _LITERAL.findall(text)
            if len(literal) != len(_ANY.findall(text)):
                complete = False
            for _, name in literal:
                found[name] = info.name
    _scanned = (found, complete and bool(found))
    return _scanned


def names():
    """Sorted registered names, read from the source when possible (imports nothing)."""
    found, complete = _scan()
    if complete:
        return sorted(found)
    _load_all()
    return sorted(_REGISTRY)


def unknown_name_message(name, known):
    """``unknown algorithm 'pa3'; did you mean 'pa2'? ...`` (one line)."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    else:
        hint = "available: " + ", ".join(known)
    return f"unknown algorithm {name!r}; {hint} (see 'olearn algos')"


def check_name(name):
    """Raise a KeyError (with the closest names) unless ``name`` is registered; cheap."""
    found, complete = _scan()
    if name in found:
        return
    if complete:
        raise KeyError(unknown_name_message(name, sorted(found)))
    lookup(name)


# ------------------------------------------------------------------ classes
def available(kind=None):
    """Sorted registered names; ``kind`` in {"classifier", "regressor"} filters."""
    _load_all()
    names = sorted(_REGISTRY)
    if kind is not None:
        names = [n for n in names if learner_kind(n) == kind]
    return names


def learner_kind(name):
    """ "classifier", "regressor" or "other" for a registered name."""
    from ._estimator import is_classifier, is_regressor
    cls, defaults = lookup(name)
    est = cls(**defaults)
    return "classifier" if is_classifier(est) else "regressor" if is_regressor(est) else "other"


def lookup(name):
    """(class, default parameters) of a registered name, or a clear KeyError."""
    if name not in _REGISTRY and not _loaded:
        module = _scan()[0].get(name)
        if module is not None:
            importlib.import_module(module)        # only the module that registers it
    if name not in _REGISTRY:
        _load_all()
    if name not in _REGISTRY:
        raise KeyError(unknown_name_message(name, sorted(_REGISTRY)))
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


# ------------------------------------------------------------------ descriptions
class Parameter(NamedTuple):
    name: str
    default: object
    meaning: str


class Description(NamedTuple):
    """What ``olearn algos`` shows of a learner."""
    name: str
    cls: str            # "olearn.linear.PAClassifier"
    kind: str           # "classifier", "regressor" or "other"
    summary: str        # the first line of the class docstring
    parameters: tuple   # of Parameter, in the order of the signature


def _docstring_parameters(doc):
    """``{name: one-line meaning}`` from a numpydoc "Parameters" section: entries
    ``a, b : text`` at the section's indentation, continued by deeper lines; the section
    ends at the first other line at that indentation (free text or the next section)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    for i in range(len(lines) - 1):
        if lines[i].strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}:
            body = lines[i + 2:]
            break
    else:
        return {}
    out, current, indent = {}, (), None
    for line in body:
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip())
        if indent is None:
            indent = width
        if width > indent:
            for n in current:
                out[n] = f"{out[n]} {line.strip()}".strip()
            continue
        head, sep, text = (line.strip() + " ").partition(" : ")
        if width < indent or not sep or not re.fullmatch(r"\*{0,2}\w+(, *\*{0,2}\w+)*", head):
            break
        current = tuple(n.strip().lstrip("*") for n in head.split(","))
        for n in current:
            out[n] = text.strip()
    return out


def _clean(text):
    text = text.replace("``", "")
    if re.fullmatch(r"see \S+\.?", text):      # "see ``OnlineLearner``": no meaning here
        return ""
    return text


def describe(name):
    """A :class:`Description` of the learner registered as ``name``: its parameters
    with their defaults (the signature's, overridden by the registered ones) and their
    meanings (from the class's numpydoc "Parameters" section, or its bases')."""
    cls, defaults = lookup(name)
    meanings = {}
    for klass in reversed(cls.__mro__):
        for key, text in _docstring_parameters(klass.__doc__).items():
            text = _clean(text)
            if text or key not in meanings:
                meanings[key] = text
    params = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = defaults.get(p.name, None if p.default is p.empty else p.default)
        meaning = meanings.get(p.name) or COMMON_PARAMETERS.get(p.name, "")
        params.append(Parameter(p.name, default, meaning))
    doc = inspect.getdoc(cls) or ""
    summary = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    return Description(name, f"{_public_module(cls)}.{cls.__qualname__}", learner_kind(name),
                       summary, tuple(params))


def _public_module(cls):
    """``olearn.linear`` for a class importable from there, else its own module."""
    module = cls.__module__
    parent = module.rsplit(".", 1)[0]
    try:
        if getattr(importlib.import_module(parent), cls.__name__, None) is cls:
            return parent
    except ImportError:
        pass
    return module


def warmup(names=None, jobs=1, report=None):
    """Compile (or load from the disk cache) every kernel of the named learners (default:
    every registered one), ``jobs`` learners at a time in as many processes, which write
    into the shared disk cache; ``report(name, seconds)`` is called as each is done.
    Returns ``{name: seconds}`` in the order of ``names``."""
    names = list(names or available())
    groups = {}  # learners of one class share their kernels: one process compiles them
    for name in names:
        groups.setdefault(lookup(name)[0], []).append(name)
    times = {}
    if jobs <= 1 or len(groups) < 2:
        _collect(map(_warm_all, groups.values()), times, report)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from multiprocessing import get_context
        with ProcessPoolExecutor(min(jobs, len(groups)),
                                 mp_context=get_context("spawn")) as pool:
            pending = [pool.submit(_warm_all, group) for group in groups.values()]
            _collect((done.result() for done in as_completed(pending)), times, report)
    return {name: times[name] for name in names}


def _collect(results, times, report):
    """Record each ``{name: seconds}`` of ``results`` into ``times`` as it comes."""
    for result in results:
        for name, seconds in result.items():
            times[name] = seconds
            if report is not None:
                report(name, seconds)


def _warm_all(names):
    return {name: _warm(name) for name in names}


def _warm(name):
    """Fit learner ``name`` on tiny data in every layout and task that its kind has
    (dense and CSR; binary and multiclass, or regression); returns the seconds taken."""
    import time

    import numpy as np
    import scipy.sparse as sp
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4))
    est = make(name)
    ys = [rng.standard_normal(6)] if learner_kind(name) == "regressor" else \
        [np.array([0, 1] * 3), np.array([0, 1, 2] * 2)]
    for y in ys:
        for data in (X, sp.csr_matrix(X)):
            est.fit(data, y)
    return time.perf_counter() - t0
