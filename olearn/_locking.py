"""One lock per model, so that threads may share it.

A model's public calls that read or change its state (``learn_one``, ``partial_fit``,
``predict``, ``predict_one``, ``save``, ...) are marked :func:`locked`: each runs holding
the model's own re-entrant lock, so a call never sees another half done (the compiled
kernels release the GIL, and a model keeps per-call buffers: ``_one_cache``,
``_row_buf``), no update is lost, and a saved file is one consistent state.  Threads
calling one model thus take turns; to learn in parallel, give each thread its own model.

The lock is made on a model's first locked call and kept in its ``__dict__`` as
``_lock``, a :class:`ModelLock`: it copies and pickles as a new, free lock
(``copy.deepcopy``, ``pickle``), and a learner's ``__getstate__`` leaves it out
(``copy.copy``), so a copy never shares its original's lock; ``clone`` and
``set_params`` do not touch it.  An uncontended acquire and release costs about 0.1 us.

Lock order: a wrapper's lock before its members' (``OneVsRest``, ``ExpertAdvice``,
``Scaled``, ``OnDrift`` reach their members only from their own locked calls, and a
member never calls its wrapper), so no two threads hold them in opposite orders.  The
lock is re-entrant: a locked call may make another on the same model (``predict`` calls
``decision_function``).
"""
from __future__ import annotations

import functools
import inspect
import _thread
from typing import Any, Callable, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["ModelLock", "lock_of", "locked"]

KEY = "_lock"


class ModelLock(_thread.RLock):
    """A re-entrant lock that copies and pickles as a new, free lock."""
    __slots__ = ()

    def __reduce__(self):
        return ModelLock, ()


def lock_of(model):
    """``model``'s lock, made on first use (``dict.setdefault`` is atomic: two threads
    that both find none still share the one that is stored)."""
    d = model.__dict__
    lock = d.get(KEY)
    if lock is None:
        lock = d.setdefault(KEY, ModelLock())
    return lock


class _Text(str):
    """A default value written in the wrapper's text as the name that holds it."""
    def __repr__(self):
        return str(self)


def locked(method: _F) -> _F:
    """``method`` run holding its model's lock (see the module's docstring).

    The wrapper is written with ``method``'s own signature (as ``dataclasses`` writes
    ``__init__``), so that a call passes its arguments on as they came: ``*args`` and
    ``**kwargs`` would cost about as much again as the lock on the one-example path."""
    sig = inspect.signature(method)
    space = {"_locked_method": method, "_lock_of": lock_of, "_KEY": KEY}
    params = []
    for p in sig.parameters.values():
        if p.name in space or p.name == "_lock":
            raise TypeError(f"locked: {method.__qualname__} has a parameter {p.name!r}")
        if p.default is not p.empty:
            key = f"_default{len(params)}"
            space[key] = p.default
            p = p.replace(default=_Text(key))
        params.append(p.replace(annotation=p.empty))
    passed = ", ".join(
        {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name +
        (f"={p.name}" if p.kind is p.KEYWORD_ONLY else "") for p in params)
    this = params[0].name
    signature = sig.replace(parameters=params, return_annotation=sig.empty)
    exec(f"def {method.__name__}{signature}:\n"  # noqa: S102 (text made here)
         f"    _lock = {this}.__dict__.get(_KEY)\n"
         f"    if _lock is None:\n"
         f"        _lock = _lock_of({this})\n"
         f"    with _lock:\n"
         f"        return _locked_method({passed})\n", space)
    return functools.wraps(method)(space[method.__name__])
