"""Recommendation from a stream of ``(user, item, rating)`` events.

Models (ids of any hashable type; new users and items may appear at any time):

* ``Baseline``: global mean plus user and item biases;
* ``FunkMF``: latent factors only;
* ``BiasedMF``: Koren's biased matrix factorisation;
* ``OnlinePMF``: online probabilistic matrix factorisation (Ling et al. 2012);
* ``BrandSVD``: Brand's online SVD recommender (rank-1 SVD modifications);

all learned online (one update per rating), with ``learn_one``, ``predict_one``,
``predict_learn`` (a whole stream in one compiled pass, progressive predictions),
``recommend(user, k)`` and safe ``olearn.persistence.save``/``load``.

Data and evaluation: ``load_ratings(path)``, ``load_movielens100k()``,
``progressive_ratings``, ``hit_rate``, ``evaluate_stream``.

Everything is imported on first use.
"""
from .._lazy import lazy_names

#: command-line name -> (module, class) of each recommender (here, not in ``evaluate``:
#: the command line reads the names without importing numpy)
RECOMMENDERS = {
    "baseline": ("mf", "Baseline"),
    "funk-mf": ("mf", "FunkMF"),
    "biased-mf": ("mf", "BiasedMF"),
    "online-pmf": ("pmf", "OnlinePMF"),
    "brand-svd": ("brand_svd", "BrandSVD"),
}

_WHERE = {
    "Baseline": "mf", "FunkMF": "mf", "BiasedMF": "mf", "OnlinePMF": "pmf",
    "BrandSVD": "brand_svd",
    "load_ratings": "data", "load_movielens100k": "data", "Ratings": "data",
    "fetch_movielens100k": "data",
    "progressive_ratings": "evaluate", "hit_rate": "evaluate", "evaluate_stream": "evaluate",
    "make_recommender": "evaluate", "summary": "evaluate",
}

__all__ = sorted([*_WHERE, "RECOMMENDERS"])


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
