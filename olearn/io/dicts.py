"""Feature dicts: one example as ``{feature name: value}``.

Online estimators take examples one at a time as dicts (``learn_one(x)``).
Two ways turn names into column indices:

* ``Vocabulary``: an explicit, growing name -> column map (columns 0, 1, 2,
  ... in the order names are first seen), saved as a JSON-able list.
* ``hash_dicts``: feature hashing into a fixed number of columns, no state.
  A name is hashed with BLAKE2b (64-bit digest, keyed by ``seed``) of its
  UTF-8 bytes (``str``), its bytes (``bytes``), or of ``type name + ":" +
  repr(name)`` for anything else (so ``1`` and ``"1"`` differ).  Unlike
  Python's ``hash()`` on strings, this is the same in every process.  The low
  bit of the digest gives a sign, the rest the column: signed hashing
  (Weinberger et al., 2009) makes colliding features cancel on average
  instead of adding up, so inner products stay unbiased.  Values that land on
  the same column are summed.

Values must be finite numbers (``bool`` and ints included); anything else
raises ``ValueError`` naming the feature.
"""

import hashlib

import numpy as np
import scipy.sparse as sp

from .._vocabulary import Vocabulary
from .._vocabulary import is_finite_number as _is_finite_number

__all__ = ["Vocabulary", "hash_dicts", "dicts_to_csr"]


def _float_values(values, where):
    """``values`` (a list) as a float64 array; ValueError for the first value
    that is not a finite number, naming it through ``where(k)``."""
    arr = np.array(values) if values else np.zeros(0)
    if arr.dtype.kind in "biuf":
        arr = arr.astype(np.float64, copy=False)
        if np.isfinite(arr).all():
            return arr
    for k, value in enumerate(values):
        if not _is_finite_number(value):
            raise ValueError(f"{where(k)} has value {value!r}, not a finite number")
    return np.array([float(v) for v in values], dtype=np.float64)


def dicts_to_csr(dicts, vocabulary, grow=True):
    """A canonical CSR matrix with one row per dict, columns from ``vocabulary``
    (grown with new names when ``grow``; else unknown names are dropped).
    Its width is ``len(vocabulary)`` after the batch."""
    known = len(vocabulary)
    indptr, columns, values = [0], [], []
    for x in dicts:
        c, v = vocabulary._columns(x, grow)
        columns.extend(c)
        values.extend(v)
        indptr.append(len(columns))
    names = vocabulary._names
    try:
        data = _float_values(values, lambda k: _where(indptr, k, names[columns[k]]))
    except ValueError:
        vocabulary._truncate(known)
        raise
    return _csr(data, columns, indptr, len(vocabulary))


def _where(indptr, k, name):
    row = int(np.searchsorted(indptr, k, side="right")) - 1
    return f"dict {row}: feature {name!r}"


def _csr(data, columns, indptr, width):
    X = sp.csr_matrix((data, np.array(columns, dtype=np.int64), np.array(indptr)),
                      shape=(len(indptr) - 1, width))
    X.sum_duplicates()
    return X


def _name_bytes(name):
    if isinstance(name, str):
        return name.encode("utf-8")
    if isinstance(name, bytes):
        return name
    return f"{type(name).__name__}:{name!r}".encode("utf-8")


def hash_dicts(dicts, n_features=2**18, seed=0):
    """Hash feature dicts into a canonical CSR matrix of shape
    ``(len(dicts), n_features)``; see the module documentation for the scheme.
    The result is the same in every process for the same ``seed``."""
    if isinstance(n_features, bool) or not isinstance(n_features, int) or not (
            1 <= n_features <= 2**62):
        raise ValueError(f"n_features must be an integer in [1, 2**62], got {n_features!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**128:
        raise ValueError(f"seed must be an integer in [0, 2**128), got {seed!r}")
    salt = seed.to_bytes(16, "little")
    slots = {}  # name -> (column, sign), cached for this call
    indptr, columns, signs, values, names = [0], [], [], [], []
    for x in dicts:
        for name, value in x.items():
            slot = slots.get(name)
            if slot is None:
                digest = hashlib.blake2b(_name_bytes(name), digest_size=8, salt=salt).digest()
                h = int.from_bytes(digest, "little")
                slot = slots[name] = ((h >> 1) % n_features, -1.0 if h & 1 else 1.0)
            columns.append(slot[0])
            signs.append(slot[1])
            values.append(value)
            names.append(name)
        indptr.append(len(columns))
    data = _float_values(values, lambda k: _where(indptr, k, names[k]))
    return _csr(data * np.array(signs), columns, indptr, n_features)
