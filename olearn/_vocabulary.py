"""The name -> column map of one-example input (``learn_one`` on dicts): the base
keeps one per model that learns from dicts.  Public as ``olearn.io.Vocabulary`` (and
``olearn.io.dicts.Vocabulary``); it lives here, below the estimators and the readers,
so that the base of every learner depends on no reader."""
import math
import numbers

import numpy as np

__all__ = ["Vocabulary", "is_finite_number"]

_JSON_NAME_TYPES = (str, int, float, bool)


def is_finite_number(value):
    """True for a finite real number (bool and ints included), False for anything else."""
    if isinstance(value, (str, bytes)):
        return False
    try:
        return math.isfinite(value)
    except (TypeError, OverflowError):
        return False


def check_values(x):
    """Raise ValueError naming the first feature of the dict example ``x`` whose value
    is not a finite number (one sum when they all are: the common case)."""
    try:
        if math.isfinite(sum(x.values())):
            return
    except (TypeError, OverflowError):
        pass
    for c, v in x.items():
        if not isinstance(v, numbers.Real) or not is_finite_number(v):
            raise ValueError(f"feature {c!r} has value {_short(v)}: x contains NaN, "
                             "infinity, a number beyond the floats' range or a non-number")


def _short(v):
    """``repr(v)``, at most 60 characters (an int of 400 digits is cut)."""
    text = repr(v)
    return text if len(text) <= 60 else text[:40] + f"... ({len(text)} characters)"


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

    def columns(self, x, grow):
        """Lists of columns and values of dict ``x`` in its order, unchecked (unknown names
        dropped unless ``grow``, which gives them new columns): ``lookup``'s first step,
        for a caller that checks the values itself."""
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

    _columns = columns  # the name before round 4

    def lookup(self, x, grow=False):
        """``(indices, values)`` of dict ``x``: int64 and float64 arrays,
        indices ascending.  With ``grow=False`` names never seen are dropped (a
        model ignores features it was not trained on); with ``grow=True`` they
        get new columns.  Raises ValueError for a value that is not a finite
        number."""
        known = len(self._names)
        columns, values = self.columns(x, grow)
        try:
            finite = math.isfinite(sum(values))
        except (TypeError, OverflowError):
            finite = False
        if not finite:  # find the culprit (a sum can also overflow)
            for j, value in zip(columns, values):
                if not is_finite_number(value):
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
