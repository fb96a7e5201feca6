"""olearn: online learning, one example at a time, at compiled speed.

Importing the package is cheap: numba, scipy and scikit-learn are loaded only when
a learner is first used, and kernels are compiled on first use and then cached on
disk (see ``olearn warmup``).
"""
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the names below are lazy: type checkers read them from here
    from . import (base, cli, datasets, decomposition, drift, ensemble, evaluate, io,  # noqa: F401
                   kernel, linear, mixing, multiclass, persistence, portfolio,
                   preprocessing, recommend, registry, second_order, sparse)
    from ._tags import Tags, tags  # noqa: F401
    from .mixing import mix  # noqa: F401
    from .persistence import load, save  # noqa: F401
    from .registry import available, make, warmup  # noqa: F401
    from ._state import max_model_bytes, set_max_model_bytes  # noqa: F401

__version__ = "0.1.0"

_SUBMODULES = {"linear", "io", "datasets", "evaluate", "registry", "persistence",
               "base", "cli", "second_order", "multiclass", "sparse", "kernel",
               "portfolio", "recommend", "decomposition", "drift", "ensemble", "preprocessing",
               "mixing", "fused", "optim"}
_FUNCTIONS = {"make": "registry", "available": "registry", "load": "persistence",
              "save": "persistence",
              "warmup": "registry", "tags": "_tags", "Tags": "_tags", "mix": "mixing",
              "grid": "fused", "Grid": "fused",
              "expected_failed_checks": "_tags",
              "set_max_model_bytes": "_state", "max_model_bytes": "_state"}  # (scikit-learn's checks declared failed)
_FUNCTIONS["Wrapper"] = "wrapper"  # the base of the models that hold models


def __getattr__(name):
    if name in _SUBMODULES:
        return import_module(f"olearn.{name}")
    if name in _FUNCTIONS:
        return getattr(import_module(f"olearn.{_FUNCTIONS[name]}"), name)
    raise AttributeError(f"module 'olearn' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_FUNCTIONS))
