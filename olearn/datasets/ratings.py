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
``movielens100k/ml-100k.inter`` or the GroupLens archive's ``ml-100k/u.data``; when none
has it, the GroupLens archive is downloaded into the cache.  Whatever the source, the
content must match a recorded SHA-256 (``fingerprint``: of the sorted rating rows, so
the ``.inter`` and ``u.data`` layouts of the same ratings agree).
"""
import hashlib
import os
import shutil
import urllib.request
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = ["Ratings", "load_ratings", "load_movielens100k", "find_movielens100k",
           "fetch_movielens100k", "fingerprint", "GROUPLENS_URL", "ML100K_SHA256"]

#: the GroupLens archive
GROUPLENS_URL = "https://files.grouplens.org/datasets/movielens/ml-100k.zip"
#: SHA-256 of MovieLens 100K's content (``fingerprint``): checked on every load, so a
#: download, a mirror and a cached copy are all the same ratings whatever their layout
ML100K_SHA256 = "ec862504a8c24b195f5194e51fb18bb2d59428d00d96d6d1c63433a3bd5f2f47"


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
    """Integer ids as int64; else (a name, an integer beyond int64: 1e20 written out)
    the ids as text."""
    try:
        return np.array([int(v) for v in column], dtype=np.int64)
    except (ValueError, OverflowError):
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
    fast = _numeric(lines[start:], sep)
    if fast is not None:
        u, i, rating = fast[:, 0].astype(np.int64), fast[:, 1].astype(np.int64), fast[:, 2]
        stamp = fast[:, 3].copy() if fast.shape[1] >= 4 else None
        if not np.all(np.isfinite(rating)):
            raise ValueError(f"{path}: ratings must be finite numbers")
        if sort and stamp is not None:
            o = np.argsort(stamp, kind="stable")
            u, i, rating, stamp = u[o], i[o], rating[o], stamp[o]
        return Ratings(u, i, np.ascontiguousarray(rating), stamp)
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


def _numeric(lines, sep):
    """All fields numeric, integer ids, 3 or 4 columns: the array (C speed), else None."""
    if not any(line.strip() for line in lines[:1]):
        return None
    try:
        a = np.loadtxt(lines, delimiter=sep, ndmin=2, dtype=np.float64)
    except ValueError:
        return None
    if a.shape[0] == 0 or a.shape[1] not in (3, 4) \
            or not np.array_equal(a[:, :2], np.round(a[:, :2])) \
            or np.abs(a[:, :2]).max() >= 2.0 ** 53:
        return None
    return a


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


_ML100K = ("movielens100k/ml-100k.inter", "ml-100k/u.data", "ml-100k.inter", "u.data",
           "movielens-100k/u.data")


def _candidates(mirror=None):
    from .._datadirs import data_roots
    roots = data_roots(mirror)   # the mirror, the user's data folder, a checkout's
    from .registry import data_home
    roots.append(data_home())
    return [root / name for root in roots for name in _ML100K]


def find_movielens100k(mirror=None):
    """The path of a MovieLens 100K ratings file, or None."""
    return next((p for p in _candidates(mirror) if p.is_file()), None)


def fingerprint(data):
    """SHA-256 of a rating stream's content: the int64 rows (user, item, rating,
    timestamp) sorted by user, item, timestamp, as bytes (little-endian)."""
    rows = np.stack([np.asarray(data.users, dtype=np.int64),
                     np.asarray(data.items, dtype=np.int64),
                     np.asarray(data.ratings).astype(np.int64),
                     np.asarray(data.timestamps).astype(np.int64)], axis=1)
    rows = rows[np.lexsort((rows[:, 3], rows[:, 1], rows[:, 0]))]
    return hashlib.sha256(rows.astype("<i8").tobytes()).hexdigest()


def _cache_file(data_home=None):
    from .registry import data_home as home
    return home(data_home) / "movielens-100k" / "ml-100k" / "u.data"


def fetch_movielens100k(data_home=None, url=None, timeout=60.0):
    """Download the GroupLens archive (``url``, default :data:`GROUPLENS_URL`) into the
    dataset cache, keep its ``ml-100k/u.data``, check its content against
    :data:`ML100K_SHA256`; returns the path.  A failed check deletes the file and raises
    ``olearn.datasets.registry.ChecksumError``."""
    from .registry import ChecksumError, DatasetUnavailable
    dest = _cache_file(data_home)
    if dest.is_file():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp_zip = dest.parent / ".ml-100k.zip.part"
    tmp = dest.parent / ".u.data.part"
    try:
        try:
            with urllib.request.urlopen(url or GROUPLENS_URL, timeout=timeout) as r, \
                    open(tmp_zip, "wb") as f:
                shutil.copyfileobj(r, f)
        except OSError as exc:
            raise DatasetUnavailable(
                f"movielens-100k: download from {url or GROUPLENS_URL} failed ({exc}); put "
                "the archive's ml-100k/u.data in a folder and set OLEARN_DATA_MIRROR to it"
            ) from None
        try:
            with zipfile.ZipFile(tmp_zip) as z, z.open("ml-100k/u.data") as src, \
                    open(tmp, "wb") as out:
                shutil.copyfileobj(src, out)
        except (zipfile.BadZipFile, KeyError) as exc:
            raise ChecksumError(f"movielens-100k: the download is not the GroupLens "
                                f"archive ({exc})") from None
        try:
            data = load_ratings(tmp)
        except ValueError as exc:
            raise ChecksumError(f"movielens-100k: the download is not MovieLens 100K "
                                f"({exc})") from None
        _checked(url or GROUPLENS_URL, data)
        os.replace(tmp, dest)
    finally:
        for p in (tmp_zip, tmp):
            if p.exists():
                p.unlink()
    return dest


def _checked(path, data):
    from .registry import ChecksumError
    if len(data) != 100_000 or data.timestamps is None or data.users.dtype.kind != "i" \
            or data.items.dtype.kind != "i" or fingerprint(data) != ML100K_SHA256:
        raise ChecksumError(f"{path}: not MovieLens 100K (its content does not match the "
                            "recorded SHA-256)")
    return data


def load_movielens100k(mirror=None, data_home=None, download=True, url=None):
    """MovieLens 100K as :class:`Ratings` in timestamp order, from a mirror, the shared
    data folder or the cache (see the module docstring), else downloaded from GroupLens
    when ``download``; the content is checked against :data:`ML100K_SHA256`."""
    path = find_movielens100k(mirror)
    if path is None and _cache_file(data_home).is_file():
        path = _cache_file(data_home)
    if path is None:
        if not download:
            from .registry import DatasetUnavailable
            raise DatasetUnavailable(
                "movielens-100k: not found; put the GroupLens archive's ml-100k/u.data "
                f"({GROUPLENS_URL}) in a folder and set OLEARN_DATA_MIRROR to it")
        path = fetch_movielens100k(data_home, url)
    return _checked(path, load_ratings(path))
