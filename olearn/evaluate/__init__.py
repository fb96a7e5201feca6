"""Evaluation: progressive (test-then-train) validation, and (``compare``, ``regret``,
``mistake_bound``) comparisons and theory checks, imported on first use."""
from importlib import import_module

from .progressive import Checkpoint, ProgressiveResult, progressive

_WHERE = {"compare": "compare", "regret": "regret", "mistake_bound": "bounds"}

__all__ = ["progressive", "ProgressiveResult", "Checkpoint", *_WHERE]


def __getattr__(name):
    if name in _WHERE:
        module = f"{__name__}.{_WHERE[name]}"
        try:
            return getattr(import_module(module), name)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            raise AttributeError(f"{__name__}.{name} is not available: {module} is "
                                 "missing") from None
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
