"""Packages whose public names are imported on first use (``import olearn.x`` stays
cheap: no numba, scipy or scikit-learn until a name is asked for)."""
import sys
from importlib import import_module


def lazy_names(package, where):
    """``(__getattr__, __dir__)`` for the package ``package``: each name of ``where``
    (``{name: submodule}``) is read from ``package.submodule`` when first asked for."""
    def __getattr__(name):
        if name in where:
            return getattr(import_module(f"{package}.{where[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
