"""Compiling a comparison's kernels before it is timed: each pass's kernels loaded (or
compiled) once per process, untimed, on a few rows (:func:`warm`); and up front, those
not yet in numba's disk cache, in worker processes (:func:`compile_up_front`, behind
:func:`olearn.evaluate.compare.precompile`), remembered by a stamp in olearn's cache
folder.  The module docstring of :mod:`olearn.evaluate.compare` says why and how."""
import hashlib
import os
import time

import numpy as np
import scipy.sparse as sp

_WARMED = set()


def _warm_key(est, X, y, classifier):
    """What decides the kernels a pass loads: the learner's class and parameters, the
    input layout and the number of labels."""
    cls = type(est)
    return (f"{cls.__module__}.{cls.__qualname__}",
            repr(sorted(est.get_params(deep=False).items())), sp.issparse(X),
            len(np.unique(y)) if classifier else 0)


def _warm_rows(y, classifier):
    """A few rows that show a pass every label: the first row of each (two for a
    regressor)."""
    if classifier:
        return np.sort(np.unique(y, return_index=True)[1])
    return np.arange(min(2, len(y)))


def warm(est, X, y, classifier):
    """Compile or load every kernel this pass needs, untimed, on a few rows (once per
    process, learner, parameters and input layout)."""
    from sklearn.base import clone
    key = _warm_key(est, X, y, classifier)
    if key in _WARMED:
        return
    _WARMED.add(key)
    rows = _warm_rows(y, classifier)
    try:
        clone(est).predict_learn(X[rows], y[rows])
    except BaseException:
        _WARMED.discard(key)
        raise


def _stamp(key):
    """The file that says the kernels of ``key`` (:func:`_warm_key`) are in the disk
    cache: in olearn's cache folder, which is keyed on the compiled sources, so an edit
    or an emptied cache forgets it."""
    from .._compiled import cache_dir
    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:24]
    return os.path.join(cache_dir(), "compare-warm", digest)


def _write_stamp(key):
    path = _stamp(key)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(repr(key) + "\n")
    except OSError:         # a read-only cache: the next run compiles up front again
        pass


def _holds_learners(est):
    """True for a learner made of other learners (an ensemble): its members' kernels
    are compiled first, so that its own task loads them instead of compiling them again."""
    params = est.get_params(deep=False)
    return any(p in params for p in ("learners", "estimators", "estimator")) or \
        any(hasattr(v, "get_params") for v in params.values())


def _shared_kernels(est):
    """Learners with equal keys share compiled code, so one task compiles it for all:
    the name of the declared kernels (ogd and adagrad, pa1 and pa2), else, for kernels
    not declared by name, the learner's package (the kernel expansions' one support
    pass), else the class."""
    from collections.abc import Mapping
    try:
        kernels = getattr(est, "kernels", None)  # the protocol's declared entry points
    except Exception:           # a property that needs more than a fresh estimator
        kernels = None
    name = getattr(kernels, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(kernels, Mapping) and not kernels and not _holds_learners(est):
        return type(est).__module__.rpartition(".")[0]
    return type(est)


def _compile_job(group, X, y, classifier):
    """In a worker: compile (or load) the kernels of each ``(name, est, key)`` of
    ``group`` for this data; returns ``[(name, key, seconds, error or None)]`` (a
    learner that fails here fails again, with its usual message, in the runs)."""
    out = []
    for name, est, key in group:
        t0 = time.perf_counter()
        try:
            warm(est, X, y, classifier)
            error = None
        except Exception as exc:  # reported, not raised: the comparison raises it
            error = f"{type(exc).__name__}: {exc}".splitlines()[0]
        out.append((name, key, time.perf_counter() - t0, error))
    return out


def _cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


def compile_up_front(named, X, y, classifier, jobs, say=None):
    """Compile the kernels that the passes over ``X, y`` will need, for the learners
    whose kernels are neither loaded in this process nor stamped as cached, ``jobs``
    learners at a time in worker processes (``jobs`` 1: here); ``say(line)`` hears
    of it, one line first and one per learner as it is done.  Returns
    ``{name: seconds}`` of the learners compiled."""
    rows = _warm_rows(y, classifier)
    Xr, yr = X[rows], y[rows]
    todo = []
    for name, est in named:
        key = _warm_key(est, Xr, yr, classifier)
        if key not in _WARMED and not os.path.exists(_stamp(key)):
            todo.append((name, est, key))
    if not todo:
        return {}
    groups = {}  # one task per set of shared kernels (see below)
    for t in todo:
        groups.setdefault(_shared_kernels(t[1]), []).append(t)
    groups = sorted(groups.values(), key=lambda g: (_holds_learners(g[0][1]), -len(g)))
    jobs = min(_cpus() if jobs is None or jobs < 0 else max(1, int(jobs)), len(groups))
    say = say or (lambda line: None)
    where = "in this process" if jobs == 1 else f"{jobs} processes at a time"
    say(f"compiling the kernels of {len(todo)} learner{'s' if len(todo) > 1 else ''} "
        f"not yet in the cache, {where} (once: they are cached on disk)")
    width = max(len(name) for name, _, _ in todo)
    done = {}

    def record(results):
        for result in results:
            for name, key, seconds, error in result:
                if error is not None:
                    say(f"  {name:<{width}} not compiled ({error})")
                    continue
                _write_stamp(key)
                done[name] = seconds
                say(f"  {name:<{width}} {seconds:5.1f} s")

    # learners that share kernels in one task (one compiles them, the others load them),
    # larger tasks first; the ensembles last: by the time a worker takes one, its
    # members' kernels are cached or compiling in the other workers
    if jobs == 1:
        record(_compile_job(group, Xr, yr, classifier) for group in groups)
        return done
    from joblib import Parallel, delayed
    try:
        parallel = Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)
    except (TypeError, ValueError):   # joblib < 1.4: the lines come at the end
        parallel = Parallel(n_jobs=jobs, batch_size=1)
    record(parallel(delayed(_compile_job)(group, Xr, yr, classifier) for group in groups))
    return done
