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
predictions and max-score updates (``OneVsRest`` flags the declared classes from the
start: each takes part from row 1, as in scikit-learn's one-vs-rest).

:class:`LabelMixin` goes with :class:`olearn._state.StateMixin` (it grows and converts
the state when classes arrive).
"""
import numpy as np

from ._compiled.driver import BINARY, MULTICLASS


class LabelMixin:
    """Label bookkeeping of the online classifiers."""

    def _task(self):
        return MULTICLASS if self._n_rows > 1 else BINARY

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

    def _prepare_labels(self, y, classes, contract=True):
        """Register new labels and return each row's class index.  ``classes`` given
        by the user (``contract``) is the whole set: an unknown label is then an error."""
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
            self._classes_fixed = False
            self.seen_ = np.zeros(0, dtype=np.uint8)
            if classes is not None:
                given = list(np.asarray(classes).ravel())
                check_label_kinds(given)
                if len(_by_value(given)) != len(given):
                    raise ValueError("classes contains repeated labels")
                self._classes_given = True
                self._classes_fixed = bool(contract)
                self._add_classes(given, np.asarray(classes).ravel())
        uniq, inverse = unique_labels(y)
        new = [i for i, u in enumerate(uniq) if u not in self._class_index]
        if new:
            labels = [uniq[i] for i in new]
            if self.__dict__.get("_classes_fixed"):
                raise ValueError(f"y contains {_plain(labels[0])!r}, not among the classes "
                                 f"given to partial_fit ({[_plain(c) for c in self.classes_]})")
            self._check_targets(uniq[new])
            check_label_kinds(list(self.classes_) + labels)
            self._add_classes(labels, uniq)
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
        self._class_index = _index_of(labels)
        n = len(labels)
        self.seen_ = np.concatenate([self.seen_, np.zeros(n - len(self.seen_), np.uint8)])
        self._state_changed()  # seen_ is a new array
        if flip:
            self.seen_[:2] = self.seen_[1::-1].copy()
            self._negate_signed()
        if n > 2 and self._n_rows == 1:
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

    def _label_known(self, y):
        """Whether ``y`` is a known class and the one-example call is set for the task
        (then learning it adds nothing to the model)."""
        try:
            return y in self.__dict__.get("_class_index", ()) and "_one_cache" in self.__dict__
        except TypeError:
            return False

    def _check_one_label(self, y):
        """Raise on a label that cannot join the class map (changes nothing)."""
        index = self.__dict__.get("_class_index")
        try:
            if index is not None and y in index:
                return
        except TypeError:
            raise ValueError(f"label {y!r} is not hashable") from None
        if isinstance(y, float) and not np.isfinite(y):
            raise ValueError("y contains NaN or infinity")
        if isinstance(y, (float, np.floating)) and y != np.floor(y):
            raise ValueError("Unknown label type: continuous (class labels cannot be "
                             "non-integer numbers; use a regressor)")
        known = list(self.__dict__.get("classes_", ()))
        check_label_kinds(known + [y])
        if self.__dict__.get("_classes_fixed"):
            raise ValueError(f"y contains {_plain(y)!r}, not among the classes given to "
                             f"partial_fit ({[_plain(c) for c in known]})")

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
                "classes_given": bool(self._classes_given),
                "classes_fixed": bool(self.__dict__.get("_classes_fixed", False))}
        return meta, {"seen_": self.seen_}

    def _import_labels(self, meta, arrays):
        """The class map from saved metadata, checked: labels of one kind (numbers or
        strings), distinct by value, kept exactly (a stored dtype that would change one
        is refused), ``seen_`` flags of the right length."""
        if "classes_" not in meta:
            if "seen_" in arrays:
                raise ValueError("seen_ without classes_")
            return
        raw = meta["classes_"]
        if not isinstance(raw, list) or not all(
                isinstance(e, list) and len(e) == 2 and e[0] in _DECODE
                and type(e[1]) is _DECODE[e[0]] for e in raw):
            raise ValueError("classes_ must be a list of [type, value] pairs")
        labels = [v for _, v in raw]
        check_label_kinds(labels)
        if len(_by_value(labels)) != len(labels):
            raise ValueError(f"classes_ repeats a label: {labels}")
        dtype = meta.get("classes_dtype")
        try:
            dtype = object if dtype == "object" else np.dtype(dtype)
            classes = np.array(labels, dtype=dtype)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"classes_dtype {meta.get('classes_dtype')!r} is not a "
                             "label type") from None
        if (dtype is not object and dtype.kind not in "biufU") or \
                [_plain(c) for c in classes] != labels:
            raise ValueError(f"classes_dtype {meta.get('classes_dtype')!r} does not hold "
                             f"the labels {labels} exactly")
        self.classes_ = classes
        self._class_index = _index_of(labels)
        if type(meta.get("classes_given")) is not bool:
            raise ValueError("classes_given must be true or false")
        self._classes_given = meta["classes_given"]
        self._classes_fixed = meta.get("classes_fixed", False)
        if type(self._classes_fixed) is not bool:
            raise ValueError("classes_fixed must be true or false")
        seen = arrays.get("seen_")
        if not isinstance(seen, np.ndarray) or seen.shape != (len(labels),) or \
                seen.dtype.kind not in "biu" or not np.isin(seen, (0, 1)).all():
            raise ValueError("seen_ must hold one 0/1 flag per class")
        self.seen_ = np.ascontiguousarray(seen, dtype=np.uint8)

    def _label_arrays(self):
        return ("seen_",) if "classes_" in self.__dict__ else ()

    def _expected_rows(self):
        n = len(self.__dict__.get("classes_", ()))
        return n if n > 2 else 1


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _index_of(labels):
    """``{label: class index}`` keyed by plain Python values: a numpy scalar key costs
    its lookup a numpy comparison (``True in {np.True_: 1}`` took 0.6 us, ``True in
    {True: 1}`` 0.03 us), on every one-example call; numpy scalars hash and compare
    equal to the plain values, so a lookup with either finds the same class."""
    return {_plain(c): i for i, c in enumerate(labels)}


def _by_value(labels):
    """The labels' distinct values (1 == 1.0 == True count once)."""
    out = []
    for v in labels:
        if not any(v == u for u in out):
            out.append(v)
    return out


def check_label_kinds(labels):
    """Labels are all numbers (compared by value) or all strings; never None or a
    mix of both."""
    kinds = set()
    for v in labels:
        v = _plain(v)
        if isinstance(v, (bool, int, float)):
            kinds.add("number")
        elif isinstance(v, str):
            kinds.add("string")
        else:
            raise ValueError(f"class label {v!r} of type {type(v).__name__}: labels must "
                             "be numbers or strings")
    if len(kinds) > 1:
        raise ValueError("class labels mix numbers and strings "
                         f"({', '.join(repr(_plain(v)) for v in list(labels)[:4])}...): "
                         "use one kind")


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
