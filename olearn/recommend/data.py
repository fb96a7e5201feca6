"""Rating streams: now in :mod:`olearn.datasets.ratings` (the data layer, which the
dataset registry loads MovieLens through), kept here under their former names."""
from ..datasets.ratings import (GROUPLENS_URL, ML100K_SHA256, Ratings,  # noqa: F401
                                fetch_movielens100k, find_movielens100k, fingerprint,
                                load_movielens100k, load_ratings)

__all__ = ["Ratings", "load_ratings", "load_movielens100k", "find_movielens100k",
           "fetch_movielens100k", "fingerprint", "GROUPLENS_URL", "ML100K_SHA256"]
