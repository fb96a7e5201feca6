"""Ids of any hashable type, mapped to dense integer codes in order of first appearance.

Codes index the rows of a recommender's arrays; a new id gets the next code.  Arrays
of integers or strings are encoded at numpy speed (one ``np.unique`` and one dict look-up
per distinct id); anything else goes through a Python loop.  Numpy scalars are stored
as the equal Python value, so ``196`` and ``np.int64(196)`` are the same id.
"""
import numpy as np

#: id types that a model file can hold (JSON's)
SAVEABLE = (str, int, float, bool)


_INT64 = (-(1 << 63), (1 << 63) - 1)


def check_id(key):
    """``key`` if it can be an id: not NaN or infinite (a NaN is unequal to itself, so
    every NaN became a new user), an integer within int64 (2^63 overflowed the coder);
    else ValueError."""
    if isinstance(key, (float, np.floating)):
        if not np.isfinite(key):
            raise ValueError(f"ids must not be NaN or infinite, got {key!r}")
    elif isinstance(key, (int, np.integer)) and not isinstance(key, bool) \
            and not _INT64[0] <= int(key) <= _INT64[1]:
        raise ValueError(f"integer ids must fit in 64 bits (signed), got {key!r}")
    return key


def check_ids(arr):
    """The same for an array of ids, at numpy speed."""
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("ids must not be NaN or infinite")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > _INT64[1]:
        raise ValueError(f"integer ids must fit in 64 bits (signed), got {int(arr.max())}")
    if arr.dtype.kind == "O":
        for key in arr.tolist():
            check_id(key)
    return arr


def first_positions(codes, n_codes):
    """``first[c]``: the position of the first ``c`` in ``codes`` (ints in
    ``[0, n_codes)``), -1 where absent; O(n) (a reversed scatter: the first write of
    each value comes last)."""
    first = np.full(n_codes, -1, dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1, dtype=np.int64)
    return first


class IdMap:
    """A growing map id -> code (``ids[code]`` is the id)."""

    def __init__(self, ids=()):
        self.ids = [check_id(key) for key in ids]
        self.index = {key: code for code, key in enumerate(self.ids)}
        if len(self.index) != len(self.ids):
            raise ValueError("duplicate ids")
        self._table = None  # id -> code for small non-negative int ids (see int_table)

    def int_table(self, arr):
        """For an int array of small non-negative ids, while every id so far is such
        an int: the array ``table[id] = code`` (-1: new), grown to cover ``arr``;
        else None.  The compiled coder fills it (``add_coded`` records the new ids)."""
        if arr.ndim == 1:
            check_ids(arr)
        if arr.dtype.kind not in "iu" or not arr.size:
            return None
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= max(1 << 20, 4 * (arr.size + len(self.ids))):
            return None
        t = self._table
        if t is None:
            if not all(type(k) is int and 0 <= k < hi + 1 for k in self.ids):
                return None
            t = np.full(max(hi + 1, 16), -1, dtype=np.int64)
            if self.ids:
                t[np.array(self.ids, dtype=np.int64)] = np.arange(len(self.ids))
        elif t.shape[0] <= hi:
            t = np.concatenate([t, np.full(max(hi + 1, 2 * t.shape[0]) - t.shape[0], -1,
                                           dtype=np.int64)])
        self._table = t
        return t

    def add_coded(self, values):
        """Record new int ids that the compiled coder gave the next codes."""
        start = len(self.ids)
        self.ids.extend(values)
        self.index.update(zip(values, range(start, start + len(values))))

    def __len__(self):
        return len(self.ids)

    def code(self, key, grow):
        """The code of one id; a new id gets the next code when ``grow``, else -1."""
        if isinstance(key, np.generic):
            key = key.item()
        c = self.index.get(key)
        if c is None:
            if not grow:
                return -1
            check_id(key)
            c = self.index[key] = len(self.ids)
            self.ids.append(key)
            if self._table is not None:
                if type(key) is int and 0 <= key < self._table.shape[0]:
                    self._table[key] = c
                else:
                    self._table = None
        return c

    def _codes(self, keys, grow):
        """Codes of distinct ``keys`` (Python values, in order of first appearance)."""
        got = list(map(self.index.get, keys))
        if None in got:
            if not grow:
                return np.array([-1 if c is None else c for c in got], dtype=np.int64)
            new = [k for k, c in zip(keys, got) if c is None]
            start = len(self.ids)
            self.index.update(zip(new, range(start, start + len(new))))
            self.ids.extend(new)
            self._table = None  # rebuilt from the ids on the next compiled coding
            got = list(map(self.index.get, keys))
        return np.array(got, dtype=np.int64)

    def encode(self, values, grow):
        """int64 codes of a sequence of ids (-1 for an unknown id when not ``grow``)."""
        arr = values if isinstance(values, np.ndarray) else None
        if arr is None:
            try:
                arr = np.asarray(values)
            except (ValueError, TypeError):
                arr = None
        if arr is not None and arr.ndim == 1:
            check_ids(arr)
        if arr is not None and arr.ndim == 1 and arr.dtype.kind in "iu" and arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo <= 4 * arr.size + 4096:   # O(n): a table over the id range
                off = (arr - lo).astype(np.int64)
                first = first_positions(off, hi - lo + 1)
                present = np.flatnonzero(first >= 0)
                present = present[np.argsort(first[present], kind="stable")]
                table = np.empty(hi - lo + 1, dtype=np.int64)
                table[present] = self._codes((present + lo).tolist(), grow)
                return table[off]
        if arr is not None and arr.ndim == 1 and arr.dtype.kind in "iuU" and arr.size:
            uniq, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
            o = np.argsort(first, kind="stable")
            codes = np.empty(len(uniq), dtype=np.int64)
            codes[o] = self._codes(uniq[o].tolist(), grow)
            return codes[inverse.reshape(-1)]
        return np.fromiter((self.code(v, grow) for v in values), dtype=np.int64)

    def check_saveable(self, what):
        for key in self.ids:
            if not isinstance(key, SAVEABLE):
                raise TypeError(f"cannot save a {what} id of type {type(key).__name__} "
                                f"({key!r}): model files hold str, int, float or bool ids")
