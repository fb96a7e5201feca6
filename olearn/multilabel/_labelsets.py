"""Label-set targets (``target = "labels"``): the one place where ``y`` of a multilabel
model is read.

A batch's ``y`` is either

* an (n, L) 0/1 indicator matrix, a numpy array or a SciPy sparse matrix: column j is
  label ``j`` (an int), and every column is declared at the batch's first row (as
  ``classes=range(L)`` would), positive or not;
* or a sequence (list, tuple, 1-D object array) of n label sets, each an iterable of
  labels (``{"a", "b"}``, ``[3, 7]``, ``()``) or River's ``{label: bool}`` (every key
  declared, the true ones relevant).  A label is known from the first row that names it.

A Python list of lists is a sequence of label sets (``[[0, 1]]`` is the set {0, 1});
give an indicator as a numpy array.  One example's ``y`` (``learn_one``) is a label set
as above, or a 1-D 0/1 numpy array (an indicator row).  Labels are ints or strings, one
kind per model.  ``classes_`` keeps the known labels sorted (scikit-learn's
convention); a label met later is inserted at its sorted place, and :class:`Batch`
says which columns are new and from which row each takes part.
"""
from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Batch", "batch", "one", "as_dict", "merge", "indicator_of"]


class Batch(NamedTuple):
    """A batch's targets in the model's (new) label order."""
    #: (n, L) int8 indicator, columns in ``classes`` order
    Y: np.ndarray
    #: the sorted labels, old and new
    classes: np.ndarray
    #: (L,) int64: the row that makes each label known (-1: known before the batch); a
    #: label is learned from that row on and takes part in predictions after it
    first: np.ndarray
    #: positions in ``classes`` of the labels new in this batch, ascending
    new: np.ndarray


def _plain(label):
    """A label as a plain int or str; a one-line error for anything else."""
    if isinstance(label, np.generic):
        label = label.item()
    if isinstance(label, bool) or not isinstance(label, (numbers.Integral, str)):
        raise ValueError(f"label {label!r:.40} of type {type(label).__name__}: labels must "
                         "be integers or strings")
    return int(label) if not isinstance(label, str) else label


def _row(value, i):
    """(relevant labels, declared labels) of row ``i``'s label set."""
    if isinstance(value, dict):
        declared = [_plain(k) for k in value]
        return [k for k, v in zip(declared, value.values()) if v], declared
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "biuf":
        ind = _indicator_values(value[None, :], f"y row {i}")[0]
        return np.flatnonzero(ind).tolist(), list(range(len(ind)))
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"y row {i} is {value!r:.40}, not a label set: give each row as "
                         "an iterable of labels (a list, set or {label: bool})")
    labels = [_plain(v) for v in value]
    return labels, labels


def _indicator_values(Y, what):
    """Y (2-D) as int8 0/1, or a one-line error."""
    if Y.dtype.kind not in "biuf":
        raise ValueError(f"{what}: an indicator matrix holds 0/1 numbers, got dtype {Y.dtype}")
    bad = (Y != 0) & (Y != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{what}: an indicator matrix holds 0 or 1, got {Y[i, j]!r} at "
                         f"row {i}, column {j}")
    return Y.astype(np.int8)


def indicator_of(y: Any, n: int | None = None) -> np.ndarray | None:
    """An indicator input as a dense int8 (n, L) array, or None when ``y`` is a sequence
    of label sets; checks its number of rows against ``n``."""
    Y = None
    if hasattr(y, "tocsr") and hasattr(y, "shape"):
        y = y.tocsr()
        if len(y.shape) != 2:
            raise ValueError(f"y has shape {y.shape}: an indicator matrix is (n, L)")
        Y = _indicator_values(np.asarray(y.toarray()), "y")
    elif isinstance(y, np.ndarray) and y.dtype.kind != "O":
        if y.ndim != 2:
            raise ValueError(f"y has shape {y.shape}: give an (n, L) 0/1 indicator matrix "
                             "or a sequence of label sets (one iterable of labels a row)")
        Y = _indicator_values(y, "y")
    if Y is not None and n is not None and Y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {Y.shape[0]}")
    return Y


def _kind(labels):
    kinds = {type(v) for v in labels}
    if len(kinds) > 1:
        raise ValueError("labels mix integers and strings: use one kind")
    return kinds.pop() if kinds else None


def merge(classes: np.ndarray | None, labels: list[Any]) -> np.ndarray:
    """``classes`` (sorted) with ``labels`` added, sorted; a mix of kinds is an error."""
    old = [] if classes is None else [_plain(v) for v in classes]
    every = set(old) | set(labels)
    _kind(every)
    return np.array(sorted(every)) if every else np.array([], dtype=np.int64)


def batch(y: Any, n: int, classes: np.ndarray | None,
          declared: Any = None) -> Batch:
    """The targets of a batch of ``n`` rows (see the module docstring) against the known
    sorted ``classes``; ``declared``: ``partial_fit``'s ``classes=``, known from row 0."""
    extra = [] if declared is None else [_plain(v) for v in declared]
    Y = indicator_of(y, n)
    if Y is not None:
        cols = list(range(Y.shape[1]))
        new_classes = merge(classes, cols + extra)
        out = np.zeros((n, len(new_classes)), dtype=np.int8)
        if len(cols):
            out[:, np.searchsorted(new_classes, cols)] = Y
        first = np.full(len(new_classes), -1, dtype=np.int64)
        first[_new(classes, new_classes)] = 0
        if extra:
            first[np.searchsorted(new_classes, extra)] = -1
        return Batch(out, new_classes, first, _new(classes, new_classes))
    if not hasattr(y, "__len__") or isinstance(y, (str, bytes, dict)):
        raise ValueError(f"y is {type(y).__name__}: give an (n, L) 0/1 indicator matrix or "
                         "a sequence of label sets")
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} label sets")
    rows, seen = [], {v: -1 for v in extra}
    for i, value in enumerate(y):
        relevant, names = _row(value, i)
        rows.append(relevant)
        for v in names:
            seen.setdefault(v, i)
    new_classes = merge(classes, list(seen))
    index = {v: j for j, v in enumerate(new_classes.tolist())}
    out = np.zeros((n, len(new_classes)), dtype=np.int8)
    for i, relevant in enumerate(rows):
        for v in relevant:
            out[i, index[v]] = 1
    first = np.full(len(new_classes), -1, dtype=np.int64)
    known = set() if classes is None else {_plain(v) for v in classes}
    for v, i in seen.items():
        if v not in known:
            first[index[v]] = i
    return Batch(out, new_classes, first, _new(classes, new_classes))


def _new(old, classes):
    known = set() if old is None else {_plain(v) for v in old}
    return np.array([j for j, v in enumerate(classes.tolist()) if v not in known],
                    dtype=np.int64)


def one(y: Any, classes: np.ndarray | None) -> Batch:
    """One example's label set as a one-row :class:`Batch`."""
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind != "O":
        return batch(y[None, :], 1, classes)
    if isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        raise ValueError(f"y is {y!r:.40}, not a label set: give an iterable of labels "
                         "(a list, set or {label: bool})")
    return batch([y], 1, classes)


def as_dict(row: np.ndarray, classes: np.ndarray) -> dict[Any, bool]:
    """River's ``{label: bool}`` of a predicted indicator row, every known label."""
    return {v: bool(r) for v, r in zip(classes.tolist(), row.tolist())}
