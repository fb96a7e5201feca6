"""One-vs-rest: K binary learners, "class k versus the rest", in one compiled pass.

For each class k a copy of the base learner learns the binary problem ``y == k``
(label +1 for the rows of class k, -1 for every other row), and the prediction is
the class whose binary model scores highest (Rifkin and Klautau, "In Defense of
One-Vs-All Classification", JMLR 5, 2004).  Unlike the native multiclass rules
(one max-score update per row) every binary model sees, and may update on, every row.

Layout.  The K models are blocks of the same arrays: each state slot of the base
learner (its binary shape, class axis of size 1) gets a leading class axis, so ``W``
is ``(K, 1, d)``; class k's model is the tuple of views ``slot[k]``.  One compiled
loop scores each row with class k's model, records that pre-update score, applies
the base's own binary update rule to class k's block with label +-1, for every k,
then records the arg-max over the classes seen so far as the progressive prediction.

Compiled code.  A ``cache=True`` entry point may not take the base's rule as an
argument (numba does not disk-cache functions passed as arguments, numba issue 6264),
and writing an entry point per learner would tie this module to every learner file.
So the entry point is generated: for a base class whose binary entry point is
``online_pass(..., BINARY, score_fn, rule)``, a three-line module naming that
``score_fn`` and ``rule`` is written once into olearn's kernel cache folder and its
``@njit(cache=True)`` function calls :func:`ovr_pass` with them.  Its file name holds
a hash of the learner's source file and of this file (the kernel folder is already
in the cache folder's hash), so an edit to either gives a new file and a fresh
compile, never a stale kernel; later processes load it from numba's disk cache.

Classes.  The labels follow :class:`olearn.base.OnlineClassifier` (two labels sorted,
later ones appended; ``classes=`` keeps its order), with one model per class from the
first label on, even for two classes: when a second label sorting first arrives, the
two blocks swap places instead of being negated.  A class's model starts at the base's
initial state when its label is registered: with ``classes=`` given up front every
model learns from every row, so the result equals K separate binary learners trained
on ``y == k``; a class discovered mid-stream has missed the rows before it.
``n_updates_`` counts binary updates (up to K per row).

Sample weights, intercept, epochs and shuffling are the base learner's.
"""
import ast
import copy
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from numba import njit
from numba.extending import overload

from ..base import OnlineClassifier, OnlineLearner, Slot
from ..kernels import cache_dir
from ..kernels.driver import (BINARY, MULTICLASS, dense_columns, get_row, masked_argmax,
                              n_rows)


# ---------------------------------------------------------------- compiled loop
def class_state(state, k):
    """The tuple ``(state[0][k], state[1][k], ...)``: class ``k``'s block of every slot."""


_MAX_SLOTS = 8


@overload(class_state, inline="always")
def _class_state(state, k):
    n = len(state.types)
    if n == 1:
        return lambda state, k: (state[0][k],)
    if n == 2:
        return lambda state, k: (state[0][k], state[1][k])
    if n == 3:
        return lambda state, k: (state[0][k], state[1][k], state[2][k])
    if n == 4:
        return lambda state, k: (state[0][k], state[1][k], state[2][k], state[3][k])
    if n == 5:
        return lambda state, k: (state[0][k], state[1][k], state[2][k], state[3][k],
                                 state[4][k])
    if n == 6:
        return lambda state, k: (state[0][k], state[1][k], state[2][k], state[3][k],
                                 state[4][k], state[5][k])
    if n == 7:
        return lambda state, k: (state[0][k], state[1][k], state[2][k], state[3][k],
                                 state[4][k], state[5][k], state[6][k])
    if n == 8:
        return lambda state, k: (state[0][k], state[1][k], state[2][k], state[3][k],
                                 state[4][k], state[5][k], state[6][k], state[7][k])
    return None


@njit(inline="always")
def ovr_pass(X, y, sw, state, params, seen, scores, pred, score_fn, update_fn):
    """One-vs-rest over every row of ``X``; returns the number of binary updates.

    ``state``: the base's slots with a leading class axis; ``y``: class indices;
    ``scores`` (n, K) receives each class model's pre-update score, ``pred`` (n,) the
    arg-max over the classes seen so far (``seen``, updated in place as in
    :func:`olearn.kernels.driver.online_pass`).
    """
    columns = dense_columns(X)
    K = scores.shape[1]
    out = np.empty(1)
    no_seen = np.zeros(1, dtype=np.uint8)
    n_updates = 0
    for i in range(n_rows(X)):
        idx, val = get_row(X, i, columns)
        yi = int(y[i])
        for k in range(K):
            block = class_state(state, k)
            score_fn(block, idx, val, out)
            scores[i, k] = out[0]
            n_updates += update_fn(block, params, idx, val, 1.0 if k == yi else -1.0, sw[i],
                                   out, no_seen)
        pred[i] = masked_argmax(scores[i], seen)
        seen[yi] = 1
    return n_updates


# ---------------------------------------------------------------- generated entry points
_GENERATED = {}

_TEMPLATE = '''"""Generated by olearn.multiclass.ovr: one-vs-rest entry point over the binary rule
of {module}.{entry} (source hash {digest}).  Do not edit: a new file replaces it when
the sources change."""
from numba import njit

import {module} as _learner
from olearn.multiclass.ovr import ovr_pass

_score = _learner.{score}
_rule = _learner.{rule}


@njit(cache=True)
def kernel(X, y, sw, state, params, seen, scores, pred):
    return ovr_pass(X, y, sw, state, params, seen, scores, pred, _score, _rule)
'''


def _dotted(node):
    """``a.b.c`` of a Name/Attribute node, or None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _binary_rule_names(entry):
    """The (score_fn, update_fn) names an entry point passes to ``online_pass``."""
    func = getattr(entry, "py_func", None)
    try:
        tree = ast.parse(inspect.getsource(func).lstrip())
    except (TypeError, OSError, SyntaxError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and _dotted(node.func) in ("online_pass",
                                                                "driver.online_pass"):
            args = dict(enumerate(node.args))
            kw = {k.arg: k.value for k in node.keywords}
            task = _dotted(args.get(8, kw.get("task")))
            score = _dotted(args.get(9, kw.get("score_fn")))
            rule = _dotted(args.get(10, kw.get("update_fn")))
            if task is not None and task.split(".")[-1] == "BINARY" and score and rule:
                return score, rule
    name = getattr(func, "__qualname__", repr(entry))
    raise ValueError(f"OneVsRest needs a base whose binary entry point calls online_pass("
                     f"..., BINARY, score_fn, rule); {name} does not")


def ovr_kernel(base_cls):
    """The compiled one-vs-rest entry point for a learner class (generated once)."""
    entry = base_cls._kernels.get(BINARY)
    if entry is None:
        raise ValueError(f"{base_cls.__name__} has no binary kernel: OneVsRest needs a "
                         "binary olearn classifier")
    func = entry.py_func
    key = (func.__module__, func.__qualname__)
    if key in _GENERATED:
        return _GENERATED[key]
    score, rule = _binary_rule_names(entry)
    module = sys.modules[func.__module__]
    h = hashlib.sha256()
    for part in (Path(module.__file__).read_bytes(), Path(__file__).read_bytes(),
                 f"{key}{score}{rule}".encode()):
        h.update(part)
    digest = h.hexdigest()[:16]
    source = _TEMPLATE.format(module=func.__module__, entry=func.__qualname__, score=score,
                              rule=rule, digest=digest)
    stem = f"ovr_{func.__module__.replace('.', '_')}_{func.__qualname__}_{digest}"
    folder = Path(cache_dir()) / "ovr"
    path = folder / f"{stem}.py"
    if not path.exists() or path.read_text() != source:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".ovr-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w") as f:
            f.write(source)
        if path.exists() and path.read_text() == source:  # another process was faster
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    name = f"olearn.multiclass._generated.{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    _GENERATED[key] = mod.kernel
    return mod.kernel


# ---------------------------------------------------------------- estimator
def _block_axes(axes):
    """A slot's axes in one-vs-rest layout: a leading class axis, then the binary shape."""
    return ("K",) + tuple(1 if a == "K" else a for a in axes)


class OneVsRest(OnlineClassifier):
    """One-vs-rest over any binary olearn classifier, in one compiled pass per batch.

    Parameters
    ----------
    base : an olearn classifier (for instance ``olearn.make("pa1")``); its
        hyper-parameters, ``fit_intercept``, ``epochs``, ``shuffle`` and
        ``random_state`` are used; it is never fitted itself.

    ``coef_`` is ``(K, n_features)``: row k is class k's binary model;
    ``decision_function`` gives the K binary scores.
    """

    def __init__(self, base=None):
        self.base = base

    # -------------------------------------------------------- the base's settings
    def _base(self):
        if not isinstance(self.base, OnlineClassifier) or isinstance(self.base, OneVsRest):
            raise ValueError(f"base must be a binary olearn classifier (e.g. "
                             f"olearn.make('pa1')), got {self.base!r}")
        return self.base

    fit_intercept = property(lambda self: self._base().fit_intercept)
    epochs = property(lambda self: self._base().epochs)
    shuffle = property(lambda self: self._base().shuffle)
    random_state = property(lambda self: self._base().random_state)

    @property
    def _slots(self):
        if len(self._base()._slots) > _MAX_SLOTS:
            raise ValueError(f"OneVsRest supports bases with at most {_MAX_SLOTS} state "
                             "slots")
        return tuple(Slot(s.name, _block_axes(s.axes), s.fill, s.eye, False)
                     for s in self._base()._slots)

    @property
    def _kernels(self):
        return {MULTICLASS: ovr_kernel(type(self._base()))}

    def _check_params(self):
        self._base()._check_params()
        ovr_kernel(type(self.base))

    def _kernel_params(self):
        return self._base()._kernel_params()

    def _fill(self, slot):
        return self._base()._fill(slot)

    # -------------------------------------------------------- classes = blocks
    def _task(self):
        return MULTICLASS

    def _add_classes(self, new, like):
        before = list(self.classes_)
        super()._add_classes(new, like)  # labels and seen_; no slot is signed here
        n = len(self.classes_)
        lead = self._slots[0].name
        if self.state_[lead].shape[0] < n:
            self._resize_state(n, self._d)
        if len(before) == 1 and self._class_index[before[0]] == 1:
            # the second label sorts first: the first label's block moves to row 1
            for name, arr in self.state_.items():
                self.state_[name] = np.ascontiguousarray(arr[[1, 0] + list(range(2, n))])
            self.seen_[[0, 1]] = self.seen_[[1, 0]]

    def _to_multiclass(self, old_n, n):
        self._resize_state(n, self._d)

    # -------------------------------------------------------- prediction
    def _class_model(self, k):
        """Class ``k``'s binary model, sharing this model's arrays (for prediction)."""
        m = copy.copy(self._base())
        m.state_ = {name: arr[k] for name, arr in self.state_.items()}
        for attr in ("t_", "n_updates_", "n_features_in_", "vocabulary_"):
            setattr(m, attr, getattr(self, attr, None))
        return m

    def _predict_weights(self):
        if type(self._base())._predict_weights is OnlineLearner._predict_weights:
            return self.state_["W"][:, 0, :]
        K = self.state_[self._slots[0].name].shape[0]
        return np.stack([self._class_model(k)._predict_weights()[0] for k in range(K)])
