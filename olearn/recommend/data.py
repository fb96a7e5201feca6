"""Rating streams: a file reader and MovieLens 100K.

``load_ratings(path)`` reads ``user item rating [timestamp]`` lines, separated by tabs,
commas or spaces, with or without a header line (the GroupLens ``u.data`` layout, and
the typed-header ``.inter`` layout of ``../shared/data/movielens100k``: ``user_id:token
item_id:token rating:float timestamp:float``), and returns the events in timestamp
order (stable: ties keep the file's order) when the file has timestamps.

``load_movielens100k()`` finds MovieLens 100K (Harper and Konstan, ACM TiiS 2015;
943 users, 1,682 movies, 100,000 ratings) in, first to last: the ``mirror`` argument,
``$OLEARN_DATA_MIRROR``, the project's shared data folder ``../shared/data`` next to
the repository, and the dataset cache (``olearn.datasets`` ``data_home``), each holding
``movielens100k/ml-100k.inter`` or the GroupLens archive's ``ml-100k/u.data``.  Only a
file with exactly that many ratings, users and movies is accepted.
"""
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = ["Ratings", "load_ratings", "load_movielens100k", "find_movielens100k"]


class Ratings(NamedTuple):
    """A rating stream: parallel arrays (ids as int64 when every id is an integer,
    else str; ratings float64; timestamps float64 or None)."""
    users: np.ndarray
    items: np.ndarray
    ratings: np.ndarray
    timestamps: np.ndarray

    def __len__(self):
        return len(self.ratings)


def _ids(column):
    try:
        return np.array([int(v) for v in column], dtype=np.int64)
    except ValueError:
        return np.array(column, dtype=str)


def load_ratings(path, sort=True):
    """The ratings of a file as :class:`Ratings`, in timestamp order when ``sort`` and
    the file has a fourth column.  Raises ValueError naming the file and line of the
    first malformed line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such ratings file")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    sep = "\t" if lines and "\t" in lines[0] else ("," if lines and "," in lines[0] else None)
    rows = [line.split(sep) for line in lines]
    start = 0
    if rows:
        try:
            float(rows[0][2])
        except (IndexError, ValueError):
            start = 1  # a header line
    rows = [r for r in rows[start:] if r and any(c.strip() for c in r)]
    if not rows:
        raise ValueError(f"{path}: no ratings")
    width = len(rows[0])
    if width < 3:
        raise ValueError(f"{path}, line {start + 1}: expected user, item, rating "
                         f"[, timestamp], got {width} field(s)")
    users, items, ratings, stamps = [], [], [], []
    has_time = width >= 4
    for n, r in enumerate(rows, start=start + 1):
        if len(r) < (4 if has_time else 3):
            raise ValueError(f"{path}, line {n}: expected {4 if has_time else 3} fields, "
                             f"got {len(r)}")
        users.append(r[0].strip())
        items.append(r[1].strip())
        ratings.append(r[2])
        if has_time:
            stamps.append(r[3])
    try:
        rating = np.array(ratings, dtype=np.float64)
        stamp = np.array(stamps, dtype=np.float64) if has_time else None
    except ValueError:
        bad = next(n for n, r in enumerate(rows, start=start + 1)
                   if not _is_number(r[2]) or (has_time and not _is_number(r[3])))
        raise ValueError(f"{path}, line {bad}: rating and timestamp must be numbers") from None
    if not np.all(np.isfinite(rating)):
        raise ValueError(f"{path}: ratings must be finite numbers")
    u, i = _ids(users), _ids(items)
    if sort and stamp is not None:
        o = np.argsort(stamp, kind="stable")
        u, i, rating, stamp = u[o], i[o], rating[o], stamp[o]
    return Ratings(u, i, rating, stamp)


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


_ML100K = ("movielens100k/ml-100k.inter", "ml-100k/u.data", "ml-100k.inter", "u.data",
           "movielens-100k/u.data")


def _candidates(mirror=None):
    roots = []
    for root in (mirror, os.environ.get("OLEARN_DATA_MIRROR")):
        if root:
            roots.append(Path(root).expanduser())
    roots.append(Path(__file__).resolve().parents[2].parent / "shared" / "data")
    try:
        from ..datasets.registry import data_home
        roots.append(data_home())
    except ImportError:  # pragma: no cover - the registry module is part of olearn
        pass
    return [root / name for root in roots for name in _ML100K]


def find_movielens100k(mirror=None):
    """The path of a MovieLens 100K ratings file, or None."""
    return next((p for p in _candidates(mirror) if p.is_file()), None)


def load_movielens100k(mirror=None):
    """MovieLens 100K as :class:`Ratings` in timestamp order (see the module docstring
    for where it is looked for)."""
    path = find_movielens100k(mirror)
    if path is None:
        from ..datasets.registry import DatasetUnavailable
        raise DatasetUnavailable(
            "movielens-100k: not found; put the GroupLens archive's ml-100k/u.data "
            "(https://files.grouplens.org/datasets/movielens/ml-100k.zip) in a folder "
            "and set OLEARN_DATA_MIRROR to it")
    data = load_ratings(path)
    shape = (len(data), len(np.unique(data.users)), len(np.unique(data.items)))
    if shape != (100_000, 943, 1_682):
        raise ValueError(f"{path}: not MovieLens 100K ({shape[0]} ratings, {shape[1]} users,"
                         f" {shape[2]} items; expected 100000, 943, 1682)")
    return data
