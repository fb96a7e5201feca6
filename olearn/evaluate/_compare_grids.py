"""Which learners :func:`olearn.evaluate.compare.compare` runs (registered names,
estimators, or every registered one suited to the target) and the grid each one's
parameters are tuned over (:data:`DEFAULT_GRIDS`, a class's ``_tune_grid``; the
module docstring of :mod:`olearn.evaluate.compare` says how a grid is chosen)."""
import itertools
import math

import numpy as np

from .._internals import internals

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


def resolve_learners(learners, y):
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
    if not (hasattr(est, "kernel_params") and internals(est).new_state is not None):
        return True
    seen = set()
    for v in values:
        try:
            c = clone(est).set_params(**{param: v})
            internals(c).new_state(1, 3)  # a fresh state for one row of 3 columns
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
    own = internals(est).tune_grid  # the learner class's declared grid
    for p, vals in (own or {}).items():
        if vals is None:
            grid.pop(p, None)
        elif p in params:
            grid[p] = list(vals)
    return {p: v for p, v in grid.items() if _reaches_kernel(est, p, v)}


def grid_points(grid):
    keys = sorted(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]
