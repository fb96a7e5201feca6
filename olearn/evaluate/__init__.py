"""Evaluation: progressive (test-then-train) validation, LIBOL-style comparisons over
random orders, regret against the best fixed predictor, and the Perceptron's mistake
bound.  (Imported eagerly: the functions ``compare`` and ``regret`` share their
modules' names, and a lazy attribute would be shadowed by the submodule once it is
imported.)"""
from .bounds import mistake_bound
from .compare import compare
from .progressive import Checkpoint, ProgressiveResult, progressive
from .regret import regret
from ..recommend.evaluate import evaluate_stream as evaluate_ratings, hit_rate

__all__ = ["progressive", "ProgressiveResult", "Checkpoint", "compare", "regret",
           "mistake_bound", "evaluate_ratings", "hit_rate"]
