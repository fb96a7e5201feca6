"""Datasets: embedded defaults (shipped inside a dependency, no download), seeded
synthetic generators, (``load``, ``fetch``, ``list_datasets``, ``loadable``) the
registry of real datasets and the data folder's other sets (``folder``), and rating streams (``load_ratings``, ``load_movielens100k``).

Everything is imported on first use, so ``import olearn.datasets`` stays cheap.
"""
from importlib import import_module

_WHERE = {
    "make_sparse_stream": "synthetic",
    "make_two_gaussians": "synthetic",
    "make_outlier_gaussians": "synthetic",
    "make_separable": "synthetic",
    "make_syn8": "synthetic",
    "make_cd1": "synthetic",
    "make_cd2": "synthetic",
    "load_breast_cancer": "embedded",
    "load_diabetes": "embedded",
    "load_digits": "embedded",
    "load_iris": "embedded",
    "load_wine": "embedded",
    "load_embedded": "embedded",
    "EMBEDDED": "embedded",
    "load": "registry",
    "fetch": "registry",
    "list_datasets": "registry",
    "loadable": "registry",
    "load_ratings": "ratings",
    "load_movielens100k": "ratings",
    "Ratings": "ratings",
}

__all__ = sorted(_WHERE)


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
