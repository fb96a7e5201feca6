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
import math
import time

import numpy as np

from ._compare_compile import compile_up_front, warm
from .._internals import internals
from ._compare_grids import DEFAULT_GRIDS, grid_points, resolve_learners, tuning_grid
from ._compare_result import ComparisonResult

__all__ = ["compare", "precompile", "ComparisonResult", "DEFAULT_GRIDS", "tuning_grid"]


# ---------------------------------------------------------------- one online pass
def _pass(est, X, y, order, classifier, checkpoints, metric=None):
    """One online pass over ``X[order]``: (metric, updates, seconds, curve or None,
    density or None)."""
    from sklearn.base import clone
    Xp, yp = X[order], y[order]
    warm(est, Xp, yp, classifier)
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
            pred = internals(m).progressive_output(*done[j], False)  # fused's raw outputs
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


def precompile(learners=None, X=None, y=None, jobs=None, say=None):
    """Compile up front, in ``jobs`` worker processes (None or -1: one per CPU; 1: in
    this process), the kernels that ``compare(learners, X, y)`` will need and that are
    not cached yet (module docstring); ``say(line)``, when given, hears of it: a line
    first, then one per learner as it is done.  Returns ``{name: seconds}`` of the
    learners compiled (empty when all were cached)."""
    from sklearn.base import is_classifier
    X, y = _check_data(X, y)
    named = resolve_learners(learners, y)
    classifier = is_classifier(named[0][1])
    return compile_up_front(named, X, y if classifier else y.astype(np.float64), classifier,
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
    named = resolve_learners(learners, y)
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
    points = {name: grid_points(grids[name]) if grids[name] else [] for name, _ in named}
    total = sum(len(p) if len(p) > 1 else 0 for p in points.values()) + \
        len(named) * permutations
    bar = _Progress(total, progress)
    if compile_jobs is not None:
        compile_up_front(named, X, y, classifier, compile_jobs,
                    None if progress is False else _say)
    elif n_jobs is not None and n_jobs != 1:   # each learner compiles once, in one worker;
        compile_up_front(named, X, y, classifier, n_jobs)          # the others load it
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
