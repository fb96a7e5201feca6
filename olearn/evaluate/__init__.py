"""Evaluation: progressive (test-then-train) validation, LIBOL-style comparisons over
random orders, regret against the best fixed predictor, and the Perceptron's mistake
bound.  ``compare`` and ``regret`` are imported eagerly: those functions share their
modules' names, and a lazy attribute would be shadowed by the submodule once it is
imported.  The others (the ratings' evaluation, which loads the recommenders' data
layer, and the mistake bound) are imported on first use, so that the command line's
``olearn.evaluate.progressive`` does not load them."""
from .._lazy import lazy_names
from .compare import compare
from .progressive import Checkpoint, ProgressiveResult, progressive
from .regret import regret

_WHERE = {"mistake_bound": "bounds"}
_OTHER = {"evaluate_ratings": ("olearn.recommend.evaluate", "evaluate_stream"),
          "hit_rate": ("olearn.recommend.evaluate", "hit_rate")}

__all__ = ["progressive", "ProgressiveResult", "Checkpoint", "compare", "regret",
           "mistake_bound", "evaluate_ratings", "hit_rate"]

_local, __dir__ = lazy_names(__name__, {**_WHERE, **{k: "" for k in _OTHER}})


def __getattr__(name):
    if name in _OTHER:
        from importlib import import_module
        module, attr = _OTHER[name]
        return getattr(import_module(module), attr)
    return _local(name)
