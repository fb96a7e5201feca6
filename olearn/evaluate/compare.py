"""Compare online learners the way LIBOL does, without its optimism.

LIBOL (Hoi, Wang and Zhao, JMLR 15, 2014) reports, for each algorithm, the mean and
standard deviation over 20 random orders of the data of the online mistake rate, the
number of updates and the time, with hyper-parameters picked over a grid.  Picking the
parameters with the same runs that are then reported flatters every tuned learner.
Here the protocol is:

1. draw ``permutations + 1`` random orders of the rows from ``random_state``: the first
   is the *tuning order*, the others the *evaluation orders* (with ``holdout=f``, a
   fraction ``f`` of the rows is set aside instead: tuning runs on those rows only and
   evaluation on the others, so tuning never sees an evaluated example);
2. for each learner, one online pass over the tuning order per point of its grid
   (product over its tuned parameters); the point with the lowest progressive mistake
   rate (or loss) wins, ties going to the learner's own value, then to the first point;
3. with those parameters fixed, one online pass per evaluation order: the progressive
   mistake rate (``predict_learn``: each row predicted before it is learned), the
   number of updates (``n_updates_``) and the seconds of the pass.

Grids are defined once, by parameter name, in :data:`DEFAULT_GRIDS` (LIBOL's: ``C``
and ``r`` in 2^-4 .. 2^4, ``eta`` in 0.55 .. 0.95), and applied to whichever of those
parameters a learner has, chosen by the parameter's current value: ``eta`` between 0.5
and 1 is a confidence level (CW, SCW) and gets LIBOL's levels; any other positive
``eta`` is a step size and gets 2^-4 .. 2^4 times its value.  A parameter that does not
reach the kernel (``C`` of plain PA) is not searched; a grid point a learner rejects
scores as the worst.  A learner class may declare ``_tune_grid = {"param": values}``
(``None`` to exclude a parameter) to refine this; ``tune=`` overrides per learner.

``metric=`` (a name of :data:`olearn.evaluate.metrics.METRICS`: accuracy, f1, auc,
logloss, balanced-accuracy, precision, recall; mae, rmse, r2) replaces the mistake rate
(or squared error) in the table and in tuning (the grid point with the best value wins:
the largest accuracy, F1, AUC, R^2; the smallest log-loss, MAE, RMSE); F1 is the macro
F1, precision and recall those of the larger label of a two-class stream (the macro mean
otherwise).  The curves and their plot stay the cumulative mistake rate (or squared
error).

Every registered learner takes part through :mod:`olearn.registry` (``learners=None``:
all classifiers, or regressors, suited to ``y``); nothing here names an algorithm.
Results are identical for a seed whatever ``n_jobs`` (only the seconds vary).

Compiling.  A learner's kernels compile on its first use (about 1 to 3 s each, more
for a few; cached on disk afterwards).  :func:`precompile` (``compare(compile_jobs=)``,
and ``olearn compare``) compiles those not yet cached up front, one learner per task in
``jobs`` worker processes that write numba's disk cache, from which this process then
loads them: on a cold cache the wall time is divided by about the number of CPUs.
Learners that share their kernels go to one task; learners that hold
other learners (a ``learners`` or ``estimator(s)`` parameter: the ensembles) go last,
so that they find their members' kernels cached.  What was compiled is remembered by a
stamp in olearn's cache folder, so a later run spawns no process.
"""
import hashlib
import itertools
import json
import math
import os
import time

import numpy as np
import scipy.sparse as sp

__all__ = ["compare", "precompile", "ComparisonResult", "DEFAULT_GRIDS", "tuning_grid"]

_POW2 = tuple(2.0 ** k for k in range(-4, 5))

#: name -> [(domain, values, relative)]: for a learner parameter of that name, the first
#: entry whose open interval ``domain`` holds the parameter's current value gives its
#: grid; ``relative`` values multiply the current value.  So ``eta`` is searched over
#: LIBOL's confidence levels when it is a probability (CW, SCW: 0.5 < eta < 1) and over
#: 2^-4..2^4 times its value when it is a step size (OGD: eta = 1; LMS: eta = 0.01).
DEFAULT_GRIDS = {
    "C": [((0.0, math.inf), _POW2, False)],
    "r": [((0.0, math.inf), _POW2, False)],
    "a": [((0.0, math.inf), _POW2, False)],
    "eta": [((0.5, 1.0), tuple(round(0.55 + 0.05 * k, 2) for k in range(9)), False),
            ((0.0, math.inf), _POW2, True)],
    "b": [((0.0, 1.0), tuple(round(0.1 * k, 1) for k in range(1, 10)), False),
          ((0.0, math.inf), _POW2, True)],
}


# ---------------------------------------------------------------- learners and grids
def _resolve_learners(learners, y):
    """[(name, estimator)] from names, instances or a dict."""
    from sklearn.base import clone, is_classifier, is_regressor

    from .. import registry
    if learners is None:
        kind, task = _kind_of_target(y)
        out = []
        for name in registry.available(kind):
            est = registry.make(name)
            if _supports(est, task):
                out.append((name, est))
        if not out:
            raise ValueError(f"no registered {kind} for this target")
        return out
    if isinstance(learners, str):
        learners = [s for s in learners.split(",") if s]
    items = list(learners.items()) if isinstance(learners, dict) else \
        [(None, v) for v in learners]
    out, used = [], set()
    for name, v in items:
        if isinstance(v, str):
            est = registry.make(v)
            name = name or v
        elif hasattr(v, "predict_learn") and hasattr(v, "get_params"):
            est = clone(v)
            name = name or type(v).__name__
        else:
            raise ValueError(f"a learner must be a registered name or an online estimator, "
                             f"got {v!r}")
        base, k = name, 2
        while name in used:
            name, k = f"{base}#{k}", k + 1
        used.add(name)
        out.append((name, est))
    if not out:
        raise ValueError("no learners given")
    kinds = {"classifier" if is_classifier(e) else "regressor" if is_regressor(e) else "other"
             for _, e in out}
    if len(kinds) > 1 or "other" in kinds:
        raise ValueError("learners must be all classifiers or all regressors")
    return out


def _kind_of_target(y):
    from sklearn.utils.multiclass import type_of_target
    t = type_of_target(y)
    if t == "binary":
        return "classifier", "binary"
    if t == "multiclass":
        return "classifier", "multiclass"
    if t in ("continuous",):
        return "regressor", "regression"
    raise ValueError(f"y must be binary, multiclass or continuous, got {t}")


def _supports(est, task):
    from collections.abc import Mapping

    from .._compiled.driver import BINARY, MULTICLASS
    try:
        kernels = getattr(est, "kernels", None)  # the protocol's declared entry points
    except Exception:           # a property that needs more than a fresh estimator
        return True
    if not isinstance(kernels, Mapping) or not kernels:
        return True
    if task == "binary":
        return BINARY in kernels or MULTICLASS in kernels
    if task == "multiclass":
        return MULTICLASS in kernels
    return True


def _in_domain(value, domain):
    try:
        v = float(value)
    except (TypeError, ValueError):
        return False
    return domain[0] < v < domain[1]


def _reaches_kernel(est, param, values):
    """False when every value of ``param`` gives the same kernel parameters and the same
    initial state (``C`` of plain PA): searching it would only repeat one run."""
    from sklearn.base import clone
    if not (hasattr(est, "kernel_params") and hasattr(est, "_new_state")):
        return True
    seen = set()
    for v in values:
        try:
            c = clone(est).set_params(**{param: v})
            c._new_state(1, 3)
            key = (repr(c.kernel_params()),
                   tuple((k, np.asarray(a).tobytes()) for k, a in sorted(c.state_.items())))
        except Exception:  # anything unexpected: search the parameter
            return True
        seen.add(key)
        if len(seen) > 1:
            return True
    return False


def _default_values(value, entries):
    for domain, values, relative in entries:
        if _in_domain(value, domain):
            return [float(value) * v for v in values] if relative else list(values)
    return None


def tuning_grid(est):
    """{parameter: values} searched for ``est`` by default (see the module docstring)."""
    params = est.get_params(deep=False)
    grid = {}
    for p, entries in DEFAULT_GRIDS.items():
        if p in params and not isinstance(params[p], (bool, np.bool_)):
            values = _default_values(params[p], entries)
            if values is not None:
                grid[p] = values
    for p, vals in (getattr(type(est), "_tune_grid", None) or {}).items():
        if vals is None:
            grid.pop(p, None)
        elif p in params:
            grid[p] = list(vals)
    return {p: v for p, v in grid.items() if _reaches_kernel(est, p, v)}


def _grid_points(grid):
    keys = sorted(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


# ---------------------------------------------------------------- one online pass
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


def _warm(est, X, y, classifier):
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


def _pass(est, X, y, order, classifier, checkpoints, metric=None):
    """One online pass over ``X[order]``: (metric, updates, seconds, curve or None,
    density or None)."""
    from sklearn.base import clone
    Xp, yp = X[order], y[order]
    _warm(est, Xp, yp, classifier)
    model = clone(est)
    need = None
    if metric is not None:
        from .metrics import needs_scores
        need = needs_scores([metric])
    t0 = time.perf_counter()
    if need is None:
        pred, values = model.predict_learn(Xp, yp), None
    else:
        from .metrics import predict_learn_scored
        pred, values = predict_learn_scored(model, Xp, yp, need)
    seconds = time.perf_counter() - t0
    err = (pred != yp).astype(np.float64) if classifier else \
        (np.asarray(pred, dtype=np.float64) - yp) ** 2
    curve = None
    if checkpoints is not None:
        curve = np.cumsum(err)[checkpoints - 1] / checkpoints
    density = None  # sparse learners: the fraction of non-zero weights at the end
    if hasattr(type(model), "n_nonzero_"):
        density = model.n_nonzero_ / max(1, np.asarray(model.coef_).size)
    value = float(err.mean())
    if metric is not None:
        from .metrics import StreamMetrics, headline
        sm = StreamMetrics("classification" if classifier else "regression")
        value = headline([metric], sm.update(yp, np.asarray(pred), values).result())
    return value, int(model.n_updates_), seconds, curve, density


def _task_run(tasks, X, y, classifier, checkpoints, metric=None):
    if checkpoints is not None:
        return [_pass(est, X, y, order, classifier, checkpoints, metric)
                for est, order in tasks]
    fused = _fused_tuning(tasks, X, y, classifier, metric)
    if fused is not None:
        return fused
    out = []
    for est, order in tasks:     # tuning: a grid point the learner rejects scores inf
        try:
            res = _pass(est, X, y, order, classifier, None, metric)
        except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError) as exc:
            res = (math.inf, 0, 0.0, exc, None)
        out.append(res)
    return out


def _fused_tuning(tasks, X, y, classifier, metric):
    """A learner's grid points over one tuning order in one fused pass (``olearn.fused``:
    the same results as a pass per point) when every point shares a first-order rule;
    else None (a pass per point)."""
    from ..fused import Fused
    from sklearn.base import clone
    orders = {id(order) for _, order in tasks}
    if metric is not None or len(tasks) < 2 or len(orders) != 1:
        return None
    runner = Fused([clone(est) for est, _ in tasks])
    if len(runner.fused_indices()) != len(tasks):
        return None
    Xp, yp = _permuted(X, y, tasks[0][1])
    t0 = time.perf_counter()
    try:
        done = runner.run(Xp, yp)
    except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError):
        return None      # (each point on its own: the one that fails scores inf)
    seconds = (time.perf_counter() - t0) / len(tasks)
    out = []
    index = {}
    for j, m in enumerate(runner.members):
        if classifier:   # the mistakes, counted on class indices: err.mean() exactly
            key = tuple(m.classes_.tolist())
            if key not in index:
                index[key] = np.full(len(yp), -1, dtype=np.int64)
                for k, c in enumerate(m.classes_):
                    index[key][yp == c] = k
            p = np.minimum(done[j][1], len(m.classes_) - 1)
            value = np.count_nonzero(p != index[key]) / len(yp)
        else:
            pred = m._progressive_output(*done[j], False)
            value = float(((np.asarray(pred, dtype=np.float64) - yp) ** 2).mean())
        out.append((value, int(m.n_updates_), seconds, None, None))
    return out


_PERMUTED = []   # [(X, y, order, X[order], y[order])]: the last tuning order's rows


def _permuted(X, y, order):
    """``X[order], y[order]``, kept for the next learner's tuning over the same order
    (every learner is tuned on one order: one copy of the rows, not one per learner);
    ``compare`` forgets it when it returns."""
    if _PERMUTED and all(a is b for a, b in zip(_PERMUTED[0][:3], (X, y, order))):
        return _PERMUTED[0][3:]
    _PERMUTED[:] = [(X, y, order, X[order], y[order])]
    return _PERMUTED[0][3:]


# ---------------------------------------------------------------- compiling up front
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
            _warm(est, X, y, classifier)
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


def _precompile(named, X, y, classifier, jobs, say=None):
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


def precompile(learners=None, X=None, y=None, jobs=None, say=None):
    """Compile up front, in ``jobs`` worker processes (None or -1: one per CPU; 1: in
    this process), the kernels that ``compare(learners, X, y)`` will need and that are
    not cached yet (module docstring); ``say(line)``, when given, hears of it: a line
    first, then one per learner as it is done.  Returns ``{name: seconds}`` of the
    learners compiled (empty when all were cached)."""
    from sklearn.base import is_classifier
    X, y = _check_data(X, y)
    named = _resolve_learners(learners, y)
    classifier = is_classifier(named[0][1])
    return _precompile(named, X, y if classifier else y.astype(np.float64), classifier,
                       jobs, say)


def _execute(jobs, X, y, classifier, checkpoints, n_jobs, bar, metric=None):
    """Run ``jobs`` (each a list of (estimator, order)) in order, maybe in parallel."""
    if n_jobs is None or n_jobs == 1:
        out = []
        for job in jobs:
            out.append(_task_run(job, X, y, classifier, checkpoints, metric))
            bar.step(len(job))
        return out
    from joblib import Parallel, delayed
    gen = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_task_run)(job, X, y, classifier, checkpoints, metric) for job in jobs)
    out = []
    for job, res in zip(jobs, gen):
        out.append(res)
        bar.step(len(job))
    return out


def _say(line):
    import sys
    print(f"compare: {line}", file=sys.stderr, flush=True)


class _Progress:
    """``compare  [#####-----]  45/120  12 s`` on stderr, drawn only after a second."""

    def __init__(self, total, show, label="compare"):
        from .._progress import StatusLine
        self.total, self.done, self.label = total, 0, label
        self.line = StatusLine(show)
        self.delay = 1.0 if show is None else 0.0

    def step(self, k=1):
        self.done += k
        line = self.line
        if not line.active or line.clock() - line.t0 < self.delay:
            return
        if line.due(force=self.done >= self.total):
            width = 30
            fill = int(width * self.done / max(1, self.total))
            line.write(f"{self.label}  [{'#' * fill}{'-' * (width - fill)}]  "
                       f"{self.done}/{self.total}  {line.last - line.t0:.0f} s")

    def close(self):
        self.line.close()


# ---------------------------------------------------------------- the protocol
def _check_data(X, y):
    from sklearn.utils.validation import check_array, column_or_1d
    if X is None or y is None:
        raise ValueError("compare needs X and y")
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C")
    y = column_or_1d(np.asarray(y))
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    return X, y


def compare(learners=None, X=None, y=None, permutations=20, tune=None, random_state=0,
            n_jobs=None, holdout=None, progress=None, n_points=200, dataset=None,
            metric=None, compile_jobs=None):
    """LIBOL's comparison protocol with a separate tuning order (module docstring).

    Parameters
    ----------
    learners : None (every registered learner suited to ``y``), a list of registered
        names and/or estimator instances, a comma-separated string of names, or a dict
        ``{display name: name or estimator}``.
    X, y : the data (dense or CSR) and labels (or targets).
    permutations : number of evaluation orders (one more order is drawn for tuning).
    tune : None (default grids, :func:`tuning_grid`), False (no tuning: parameters as
        given), or a dict ``{learner name: {param: values}}`` overriding the grid of
        those learners (``{}`` for none); others keep the default.
    random_state : seed of the orders; equal seeds give equal results.
    n_jobs : None or 1 runs in this process; otherwise joblib workers (-1: all cores).
    holdout : None, or a fraction in (0, 1) of rows used only for tuning and left out
        of evaluation.
    progress : show a progress bar on stderr (default: on a terminal, after 1 s).
    n_points : number of points of the cumulative curves kept for plots.
    dataset : a label for titles and tables.
    metric : None (mistake rate, or squared error) or a metric name (module docstring):
        the table's figure and the tuning criterion.
    compile_jobs : None (each learner's kernels compile in this process on first use;
        with ``n_jobs``, in that many workers up front) or a number of worker processes
        that compile the kernels not yet cached up front (-1: one per CPU), with a line
        on stderr per learner unless ``progress`` is False (:func:`precompile`).

    Returns
    -------
    ComparisonResult
    """
    from sklearn.base import clone, is_classifier
    X, y = _check_data(X, y)
    n = X.shape[0]
    if n < 2:
        raise ValueError("compare needs at least 2 rows")
    if not (isinstance(permutations, (int, np.integer)) and permutations >= 1):
        raise ValueError(f"permutations must be an integer >= 1, got {permutations!r}")
    if holdout is not None and not (0.0 < holdout < 1.0):
        raise ValueError(f"holdout must be a fraction in (0, 1), got {holdout!r}")
    if tune is not None and tune is not False and not isinstance(tune, dict):
        raise ValueError("tune must be None, False or a dict {learner: {param: values}}")
    named = _resolve_learners(learners, y)
    classifier = is_classifier(named[0][1])
    if not classifier:
        y = y.astype(np.float64)
    higher = False
    if metric is not None:
        from .metrics import (METRICS, check_scores_available, metrics_task, needs_scores,
                              parse_metrics)
        names_m = parse_metrics(metric)
        if len(names_m) != 1:
            raise ValueError(f"compare takes one metric, got {', '.join(names_m)}")
        metric = names_m[0]
        task = "classification" if classifier else "regression"
        if metrics_task(names_m) != task:
            raise ValueError(f"metric {metric} is for {metrics_task(names_m)}, but the "
                             f"learners do {task}")
        for name, est in named:
            check_scores_available(est, needs_scores(names_m), name)
        higher = METRICS[metric][2]

    rng = np.random.default_rng(random_state)
    if holdout is None:
        tune_order = rng.permutation(n)
        eval_rows = np.arange(n)
    else:
        split = rng.permutation(n)
        k = max(1, min(n - 1, int(round(holdout * n))))
        tune_order, eval_rows = split[:k], np.sort(split[k:])
    itype = np.int32 if n < 2**31 else np.int64          # P orders of n rows are kept
    orders = np.array([eval_rows[rng.permutation(len(eval_rows))]
                       for _ in range(permutations)], dtype=itype)
    m = len(eval_rows)
    checkpoints = np.unique(np.linspace(1, m, min(m, n_points)).astype(np.int64))

    grids = {}
    for name, est in named:
        if tune is False:
            grids[name] = {}
        elif isinstance(tune, dict) and name in tune:
            grids[name] = {p: list(v) for p, v in tune[name].items()}
        else:
            grids[name] = tuning_grid(est)
    points = {name: _grid_points(grids[name]) if grids[name] else [] for name, _ in named}
    total = sum(len(p) if len(p) > 1 else 0 for p in points.values()) + \
        len(named) * permutations
    bar = _Progress(total, progress)
    if compile_jobs is not None:
        _precompile(named, X, y, classifier, compile_jobs,
                    None if progress is False else _say)
    elif n_jobs is not None and n_jobs != 1:   # each learner compiles once, in one worker;
        _precompile(named, X, y, classifier, n_jobs)          # the others load it
    try:
        # 1. tuning, on the tuning order only
        tune_jobs = [[(clone(est).set_params(**pt), tune_order) for pt in points[name]]
                     for name, est in named if len(points[name]) > 1]
        tune_out = iter(_execute(tune_jobs, X, y, classifier, None, n_jobs, bar, metric))
        chosen, tuning = {}, {}
        for name, est in named:
            pts = points[name]
            if len(pts) <= 1:
                chosen[name] = clone(est).set_params(**(pts[0] if pts else {}))
                tuning[name] = []
                continue
            res = next(tune_out)
            sign = -1.0 if higher else 1.0       # tuning minimises sign * value
            scores = [sign * r[0] if np.isfinite(r[0]) else math.inf for r in res]
            if all(s == math.inf for s in scores):
                failed = next((r[3] for r in res if isinstance(r[3], Exception)), None)
                raise ValueError(f"{name}: every point of its grid {grids[name]} failed"
                                 + (f" ({failed})" if failed else ""))
            tuning[name] = [(pt, sign * sc if np.isfinite(sc) else sc)
                            for pt, sc in zip(pts, scores)]
            best = min(scores)
            own = {p: est.get_params()[p] for p in pts[0]}
            ties = [i for i, s in enumerate(scores) if s == best]
            pick = next((i for i in ties if pts[i] == own), ties[0])
            chosen[name] = clone(est).set_params(**pts[pick])
        # 2. evaluation, one job per order (every learner in it)
        jobs = [[(chosen[name], order) for name, _ in named] for order in orders]
        out = _execute(jobs, X, y, classifier, checkpoints, n_jobs, bar, metric)
    finally:
        bar.close()
        _PERMUTED.clear()

    names = [name for name, _ in named]
    res = ComparisonResult(
        names=names,
        params={nm: {p: chosen[nm].get_params()[p] for p in grids[nm]} for nm in names},
        estimators=chosen,
        grids=grids, tuning=tuning,
        metric=metric or ("mistake rate" if classifier else "mean squared error"),
        curve_metric="mistake rate" if classifier else "mean squared error",
        higher_is_better=higher,
        scores={nm: np.array([o[i][0] for o in out]) for i, nm in enumerate(names)},
        updates={nm: np.array([o[i][1] for o in out]) for i, nm in enumerate(names)},
        seconds={nm: np.array([o[i][2] for o in out]) for i, nm in enumerate(names)},
        curves={nm: np.vstack([o[i][3] for o in out]) for i, nm in enumerate(names)},
        densities={nm: [o[i][4] for o in out] for i, nm in enumerate(names)},
        checkpoints=checkpoints, tuning_order=tune_order, orders=orders,
        n_samples=n, n_features=X.shape[1], random_state=random_state, holdout=holdout,
        dataset=dataset)
    return res


# ---------------------------------------------------------------- the result
def _mean_or_none(values):
    return None if any(v is None for v in values) else float(np.mean(values))


def _fmt_value(v):
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


class ComparisonResult:
    """What :func:`compare` measured.

    Attributes: ``names`` (learners in the given order), ``params`` (the tuned values),
    ``estimators`` (unfitted, with those values), ``grids`` and ``tuning`` (each grid
    point with its score on the tuning order), ``metric``, and per learner the arrays
    over evaluation orders ``scores``, ``updates``, ``seconds`` (and ``densities``, the
    fraction of non-zero weights of a sparse learner, None for others); ``curves[name]`` is
    ``(permutations, len(checkpoints))``: the cumulative mistake rate (or loss) after
    ``checkpoints`` rows.  ``tuning_order`` and ``orders`` are the row orders used.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def permutations(self):
        return len(self.orders)

    def rows(self):
        """One dict per learner, best mean score first."""
        out = []
        for nm in self.names:
            s, u, t = self.scores[nm], self.updates[nm], self.seconds[nm]
            out.append({"learner": nm,
                        "params": ", ".join(f"{k}={_fmt_value(v)}"
                                            for k, v in self.params[nm].items()),
                        "score_mean": float(s.mean()), "score_std": float(s.std()),
                        "updates_mean": float(u.mean()), "updates_std": float(u.std()),
                        "seconds_mean": float(t.mean()), "seconds_std": float(t.std()),
                        "density_mean": _mean_or_none(self.__dict__.get("densities", {})
                                                      .get(nm, [None]))})
        sign = -1.0 if self.__dict__.get("higher_is_better") else 1.0
        order = np.argsort([sign * r["score_mean"] for r in out], kind="stable")
        return [out[i] for i in order]

    def _cells(self):
        head = ["learner", "tuned", f"{self.metric}", "updates", "seconds"]
        rows = self.rows()
        body = [[r["learner"], r["params"] or "-",
                 f"{r['score_mean']:.4f} ± {r['score_std']:.4f}",
                 f"{r['updates_mean']:.1f} ± {r['updates_std']:.1f}",
                 f"{r['seconds_mean']:.4f} ± {r['seconds_std']:.4f}"] for r in rows]
        if any(r["density_mean"] is not None for r in rows):  # sparse learners compared
            head.append("density")
            for cells, r in zip(body, rows):
                d = r["density_mean"]
                cells.append("-" if d is None else f"{d:.4f}")
        return head, body

    def _title(self):
        data = f"{self.dataset}: " if self.dataset else ""
        held = f", {self.holdout:g} of rows held out for tuning" if self.holdout else \
            ", tuned on a separate order"
        return (f"{data}{self.n_samples} rows, {self.n_features} features; mean ± std over "
                f"{self.permutations} random orders{held} (seed {self.random_state})")

    def __str__(self):
        head, body = self._cells()
        widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
        line = "  ".join(h.ljust(w) for h, w in zip(head, widths))
        out = [self._title(), line, "-" * len(line)]
        out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
        return "\n".join(out)

    def __repr__(self):
        return f"<ComparisonResult {len(self.names)} learners>\n{self}"

    def to_markdown(self):
        """The table in GitHub markdown, under a line saying how it was made."""
        head, body = self._cells()
        out = [self._title(), "", "| " + " | ".join(head) + " |",
               "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(out) + "\n"

    def to_csv(self, path=None):
        """The table as CSV (one row per learner, means and stds); written to ``path``
        when given.  Returns the text."""
        import csv
        import io
        buf = io.StringIO()
        rows = self.rows()
        fields = ["learner", "params", "score_mean", "score_std", "updates_mean",
                  "updates_std", "seconds_mean", "seconds_std"]
        if any(r["density_mean"] is not None for r in rows):
            fields.append("density_mean")
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n",
                           extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "params": json.dumps(self.params[r["learner"]])})
        text = buf.getvalue()
        if path is not None:
            with open(path, "w", newline="") as f:
                f.write(text)
        return text

    def plot(self, path=None, ax=None, band=None):
        """Cumulative mistake rate (or loss) along the stream: for every learner the mean
        over orders and (``band``; default: when at most 6 learners) a band of one
        standard deviation.  Learners are listed best first.  Saved to ``path`` if
        given; returns the figure."""
        from .._plots import colors, figure_and_axes, finish
        ranked = [r["learner"] for r in self.rows()]
        many = len(ranked) > 8
        # the legend beside the axes, in as many columns of at most 18 entries as it
        # takes to fit the figure's height (a longer single column was cut off)
        ncol = -(-len(ranked) // 18)
        fig, ax = figure_and_axes(ax, figsize=(7.5 + 2.0 * ncol, 5.2) if many else (7.0, 4.5))
        if band is None:
            band = len(ranked) <= 6
        t = self.checkpoints
        tail = []
        styles = ("-", "--", "-.", ":")
        for i, (nm, c) in enumerate(zip(ranked, colors(len(ranked)))):
            curves = self.curves[nm]
            mean, std = curves.mean(axis=0), curves.std(axis=0)
            ax.plot(t, mean, color=c, lw=1.7, ls=styles[(i // 10) % 4] if many else "-",
                    label=f"{nm} ({mean[-1]:.4f})")
            if band and len(curves) > 1:
                ax.fill_between(t, mean - std, mean + std, color=c, lw=0, alpha=0.15)
            tail.append(mean[len(t) // 10:])
        ax.set_xlabel("examples seen")
        curve_metric = self.__dict__.get("curve_metric", self.metric)
        ax.set_ylabel(f"cumulative {curve_metric}")
        top = max(float(np.max(v)) for v in tail if len(v)) if tail else 1.0
        ax.set_ylim(0, top * 1.15 if top > 0 else 1.0)
        ax.set_xlim(1, t[-1])
        ax.grid(alpha=0.3)
        ax.set_title(f"Online {curve_metric}" + (f" on {self.dataset}" if self.dataset
                                                else "") +
                     f": mean over {self.permutations} random orders" +
                     (" (band: one std)" if band else ""), fontsize=11)
        if many:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=ncol,
                      title="best first (final value)", title_fontsize=8)
        else:
            ax.legend(fontsize=8, loc="upper right")
        return finish(fig, path)

    def plot_bars(self, path=None):
        """Two bar charts: mean number of updates and mean seconds per pass (with one
        standard deviation).  Saved to ``path`` if given; returns the figure."""
        from .._plots import colors, figure_and_axes, finish
        fig, (a1, a2) = figure_and_axes(ncols=2, figsize=(10.0, 4.2))
        ranked = [r["learner"] for r in self.rows()]
        cols = colors(len(ranked))
        pos = np.arange(len(ranked))
        for ax, data, label in ((a1, self.updates, "updates per pass"),
                                (a2, self.seconds, "seconds per pass")):
            means = [data[nm].mean() for nm in ranked]
            stds = [data[nm].std() for nm in ranked]
            low = np.minimum(stds, means)  # a bar's error never goes below zero
            ax.bar(pos, means, yerr=[low, stds], color=cols, capsize=3)
            ax.set_xticks(pos, ranked, rotation=45, ha="right", fontsize=8)
            ax.set_ylabel(label)
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle("Updates and time" + (f" on {self.dataset}" if self.dataset else "")
                     + f" ({self.permutations} orders)", fontsize=11)
        return finish(fig, path)
