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
import math

import numpy as np
import scipy.sparse as sp

__all__ = ["Vocabulary", "hash_dicts", "dicts_to_csr"]

_JSON_NAME_TYPES = (str, int, float, bool)


def _is_finite_number(value):
    if isinstance(value, (str, bytes)):
        return False
    try:
        return math.isfinite(value)
    except (TypeError, OverflowError):
        return False


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


class Vocabulary:
    """Growing map from feature names (any hashable) to columns 0, 1, 2, ...

    ``lookup(x, grow)`` turns a dict into sorted column indices and values;
    ``to_list()``/``from_list()`` save and restore it (e.g. through JSON).
    """

    __slots__ = ("_index", "_names")

    def __init__(self, names=()):
        self._index = {}
        self._names = []
        for name in names:
            self.add(name)

    def __len__(self):
        return len(self._names)

    def __contains__(self, name):
        return name in self._index

    def __iter__(self):
        return iter(self._names)

    def __eq__(self, other):
        return isinstance(other, Vocabulary) and self._names == other._names

    def __repr__(self):
        return f"Vocabulary({len(self._names)} names)"

    def add(self, name):
        """Column of ``name``, appending it if new."""
        j = self._index.get(name)
        if j is None:
            j = self._index[name] = len(self._names)
            self._names.append(name)
        return j

    def index(self, name):
        """Column of a known name (KeyError if unknown)."""
        return self._index[name]

    def _columns(self, x, grow):
        """Lists of columns and values of ``x`` (unknown names dropped unless grow)."""
        index = self._index
        try:  # the common case: every name known already
            return [index[name] for name in x], list(x.values())
        except KeyError:
            pass
        columns, values = [], []
        if grow:
            for name, value in x.items():
                j = index.get(name)
                if j is None:
                    j = index[name] = len(self._names)
                    self._names.append(name)
                columns.append(j)
                values.append(value)
        else:
            for name, value in x.items():
                j = index.get(name)
                if j is not None:
                    columns.append(j)
                    values.append(value)
        return columns, values

    def lookup(self, x, grow=False):
        """``(indices, values)`` of dict ``x``: int64 and float64 arrays,
        indices ascending.  With ``grow=False`` names never seen are dropped (a
        model ignores features it was not trained on); with ``grow=True`` they
        get new columns.  Raises ValueError for a value that is not a finite
        number."""
        known = len(self._names)
        columns, values = self._columns(x, grow)
        try:
            finite = math.isfinite(sum(values))
        except (TypeError, OverflowError):
            finite = False
        if not finite:  # find the culprit (a sum can also overflow)
            for j, value in zip(columns, values):
                if not _is_finite_number(value):
                    name = self._names[j]
                    self._truncate(known)
                    raise ValueError(f"feature {name!r} has value {value!r}, "
                                     "not a finite number")
        if columns != sorted(columns):
            columns, values = zip(*sorted(zip(columns, values)))
        n = len(columns)
        return np.fromiter(columns, np.int64, n), np.fromiter(values, np.float64, n)

    def _truncate(self, n):
        """Forget the names added after the first ``n`` (undo a failed call)."""
        for name in self._names[n:]:
            del self._index[name]
        del self._names[n:]

    def to_list(self):
        """The names in column order, for JSON.  Raises TypeError if a name is
        not a str, int, float or bool (or is a non-finite float)."""
        for name in self._names:
            if not isinstance(name, _JSON_NAME_TYPES) or (
                    isinstance(name, float) and not math.isfinite(name)):
                raise TypeError(
                    f"feature name {name!r} of type {type(name).__name__} cannot be "
                    "saved as JSON: use str, int, float or bool names")
        return list(self._names)

    @classmethod
    def from_list(cls, names):
        """Rebuild a vocabulary from ``to_list()``'s output."""
        vocabulary = cls(names)
        if len(vocabulary) != len(names):
            raise ValueError("duplicate feature names in the list")
        return vocabulary


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
