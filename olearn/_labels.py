"""The online class map of a classifier: ``classes_``, the label -> index map, ``seen_``.

Two classes are kept sorted in ``classes_`` and mapped to -1/+1 (``classes_[1]`` is
+1, the side of positive decision values).  Every binary rule is symmetric under
(y, w) -> (-y, -w), so when a second label arrives that sorts before the first,
negating the signed state gives exactly the model learned with that order.  A third
label switches the model to K weight rows (see ``_state.StateMixin._to_multiclass``).
So: the first two labels are kept sorted, and the labels new in a later call are
appended to ``classes_``, sorted among themselves (one example at a time, that is the
order they first appear; ``fit`` sees every label at once and sorts them all,
scikit-learn's convention).  Labels given up front with ``classes=`` keep the given
order.  ``seen_`` flags the classes seen in a row so far: only those take part in
predictions and max-score updates.

:class:`LabelMixin` goes with :class:`olearn._state.StateMixin` (it grows and converts
the state when classes arrive).
"""
import numpy as np

from ._compiled.driver import BINARY, MULTICLASS


class LabelMixin:
    """Label bookkeeping of the online classifiers."""

    def _task(self):
        return MULTICLASS if self.state_["W"].shape[0] > 1 else BINARY

    def _check_targets(self, y):
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity")
        if y.dtype.kind == "f" and np.any(y != np.floor(y)):
            raise ValueError("Unknown label type: continuous (class labels cannot be "
                             "non-integer numbers; use a regressor)")
        if y.dtype.kind == "O":
            for v in y:
                if isinstance(v, float) and not np.isfinite(v):
                    raise ValueError("y contains NaN or infinity")
        return y

    def _n_classes(self):
        """Number of classes known so far (0 before the first label)."""
        return len(self.__dict__.get("classes_", ()))

    def _prepare_labels(self, y, classes):
        """Register new labels and return each row's class index."""
        if len(y) == 1 and classes is None and y[0] in self.__dict__.get("_class_index", ()):
            i = self._class_index[y[0]]  # one known label
            if self._task() == BINARY:
                self.seen_[i] = 1
            return np.array([i], dtype=np.int64)
        if (len(self.__dict__.get("classes_", ())) == 2 and y.dtype.kind in "biuf"
                and self.classes_.dtype.kind in "biuf"):
            positive = y == self.classes_[1]  # two known numeric labels: no sorting
            n_pos, n_neg = np.count_nonzero(positive), np.count_nonzero(y == self.classes_[0])
            if n_pos + n_neg == len(y):
                if self._task() == BINARY:
                    self.seen_[0] |= n_neg > 0
                    self.seen_[1] |= n_pos > 0
                return positive.astype(np.int64)
        if not hasattr(self, "classes_"):
            y = self._check_targets(y)
            self.classes_ = np.asarray(y[:0])
            self._class_index = {}
            self._classes_given = False
            self.seen_ = np.zeros(0, dtype=np.uint8)
            if classes is not None:
                given = list(np.asarray(classes).ravel())
                if len(set(given)) != len(given):
                    raise ValueError("classes contains repeated labels")
                self._classes_given = True
                self._add_classes(given, np.asarray(classes).ravel())
        uniq, inverse = unique_labels(y)
        new = [i for i, u in enumerate(uniq) if u not in self._class_index]
        if new:
            self._check_targets(uniq[new])
            self._add_classes([uniq[i] for i in new], uniq)
        lut = np.array([self._class_index[u] for u in uniq], dtype=np.int64)
        if self._task() == BINARY:
            self.seen_[lut] = 1  # (multiclass passes mark labels row by row)
        return lut[inverse]

    def _add_classes(self, new, like):
        old_n = len(self.classes_)
        labels = list(self.classes_) + list(new)
        flip = False
        if (old_n < 2 and len(labels) >= 2 and not self._classes_given
                and _sorts_before(labels[1], labels[0])):  # the first two labels sorted
            labels[0], labels[1] = labels[1], labels[0]
            flip = old_n == 1
        kinds = {np.asarray(like).dtype.kind, self.classes_.dtype.kind} if old_n else \
            {np.asarray(like).dtype.kind}
        if kinds <= set("biuf") or kinds <= set("U") or kinds <= set("S"):
            dtype = np.result_type(np.asarray(like).dtype, self.classes_.dtype)
        else:
            dtype = object  # numbers and strings together: keep each label as given
        try:
            self.classes_ = np.array(labels, dtype=dtype)
        except (TypeError, ValueError):
            self.classes_ = np.array(labels, dtype=object)
        self._class_index = {c: i for i, c in enumerate(labels)}
        n = len(labels)
        self.seen_ = np.concatenate([self.seen_, np.zeros(n - len(self.seen_), np.uint8)])
        self._state_changed()  # seen_ is a new array
        if flip:
            self.seen_[:2] = self.seen_[1::-1].copy()
            self._negate_signed()
        if n > 2 and self.state_[self._slots[0].name].shape[0] == 1:
            self._to_multiclass(old_n, n)
        elif n > 2:
            self._resize_state(n, self._d)

    def _one_label(self, y):
        """The kernel's label of one example (-1/+1 binary, the class index else),
        registering it if new."""
        d = self.__dict__
        index = d.get("_class_index")
        try:
            i = index.get(y) if index is not None else None
        except TypeError:
            raise ValueError(f"label {y!r} is not hashable") from None
        call = d.get("_one_cache")
        if i is not None and call is not None:  # a known label, the task at hand
            if call.task == BINARY:
                self.seen_[i] = 1
                return 2.0 * i - 1.0
            return float(i)
        if i is None:
            i = int(self._prepare_labels(np.array([y]), None)[0])
        elif self._task() == BINARY:
            self.seen_[i] = 1
            return 2.0 * i - 1.0
        return 2.0 * i - 1.0 if self._task() == BINARY else float(i)

    def _kernel_labels(self, yi):
        if self._task() == BINARY:
            return 2.0 * yi - 1.0
        return yi.astype(np.float64)

    def _seen(self):
        return self.seen_ if self._task() == MULTICLASS else np.zeros(1, dtype=np.uint8)

    def _fit_classes(self, y):
        return unique_labels(self._check_targets(y))[0]

    def _class_of(self, scores):
        """Class indices of a (n, K) score array: sign for binary, masked arg-max else."""
        if self._task() == BINARY:
            return np.minimum((scores[:, 0] > 0).astype(np.int64), len(self.classes_) - 1)
        s = scores.copy()
        s[:, self.seen_ == 0] = -np.inf
        return np.argmax(s, axis=1)

    # ------------------------------------------------------------ persistence
    def _export_labels(self):
        """(JSON-able metadata, arrays) of the class map; empty before the first label."""
        if "classes_" not in self.__dict__:
            return {}, {}
        meta = {"classes_": [_encode_label(c) for c in self.classes_],
                "classes_dtype": self.classes_.dtype.str if self.classes_.dtype.kind != "O"
                else "object",
                "classes_given": bool(self._classes_given)}
        return meta, {"seen_": self.seen_}

    def _import_labels(self, meta, arrays):
        if "classes_" not in meta:
            return
        labels = [_DECODE[t](v) for t, v in meta["classes_"]]
        dtype = object if meta["classes_dtype"] == "object" else np.dtype(meta["classes_dtype"])
        self.classes_ = np.array(labels, dtype=dtype)
        self._class_index = {c: i for i, c in enumerate(labels)}
        self._classes_given = bool(meta["classes_given"])
        self.seen_ = np.ascontiguousarray(arrays["seen_"], dtype=np.uint8)
        if self.seen_.shape != (len(labels),):
            raise ValueError("seen_ does not match classes_")


def _encode_label(v):
    v = v.item() if isinstance(v, np.generic) else v
    for kind in (bool, int, float, str):
        if type(v) is kind:
            return [kind.__name__, v]
    raise TypeError(f"cannot save a class label of type {type(v).__name__}: labels must be "
                    "bool, int, float or str")


_DECODE = {"bool": bool, "int": int, "float": float, "str": str}


def unique_labels(y):
    """Sorted unique labels and the inverse map; falls back to first-seen order for
    labels that cannot be sorted together (mixed types).  One or two numeric labels
    (the common binary case) take two linear passes instead of a sort."""
    if y.dtype.kind in "biuf" and len(y):
        lo, hi = y.min(), y.max()
        if lo == hi:
            return y[:1].copy(), np.zeros(len(y), dtype=np.int64)
        upper = y == hi
        if np.count_nonzero(upper) + np.count_nonzero(y == lo) == len(y):
            return np.array([lo, hi], dtype=y.dtype), upper.astype(np.int64)
    try:
        return np.unique(y, return_inverse=True)
    except TypeError:
        index = {}
        inverse = np.empty(len(y), dtype=np.int64)
        for i, v in enumerate(y):
            inverse[i] = index.setdefault(v, len(index))
        return np.array(list(index), dtype=object), inverse


def _sorts_before(a, b):
    try:
        return bool(a < b)
    except TypeError:
        return False
