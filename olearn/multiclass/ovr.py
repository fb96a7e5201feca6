"""One-vs-rest: K binary learners, "class k versus the rest", in one compiled pass.

For each class k a copy of the base learner learns the binary problem ``y == k``
(label +1 for the rows of class k, -1 for every other row), and the prediction is
the class whose binary model scores highest (Rifkin and Klautau, "In Defense of
One-Vs-All Classification", JMLR 5, 2004).  Unlike the native multiclass rules
(one max-score update per row) every binary model may update on every row.

Layout.  The K models are blocks of the same arrays: each state slot of the base
learner (its binary shape, class axis of size 1) gets a leading class axis, so ``W``
is ``(K, 1, d)``; class k's model is the tuple of views ``slot[k]``.  One compiled
loop scores each row with class k's model, records that pre-update score, applies
the base's own binary update rule to class k's block with label +-1, for every k,
then records the arg-max over the classes seen so far as the progressive prediction
(the rows of class k are a +1 for block k and a -1 for every other block).

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
two blocks swap places instead of being negated.  As with the native multiclass rules,
only classes already seen take part: class k's model stays at the base's initial state
until the first row of class k, which it learns from (as a +1), and from then on it
learns from every row.  So the model equals K separate binary learners, the k-th trained
on ``y == k`` from the first row of class k on, and it does not depend on how the stream
is cut into batches nor on ``classes=`` being given up front.  ``n_updates_`` counts
binary updates (up to K per row).

Sample weights, intercept, epochs and shuffling are the base learner's.  A learner that
fixes its state layout from its first input (a full or diagonal covariance from the
width) gets the same layout here: a prototype copy of the base receives the first input
and is started as the binary learner would be; its slots define the blocks.
"""
import ast
import copy
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
from numba import njit
from numba.extending import overload
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ..base import OnlineClassifier, OnlineLearner, Slot
from .._compiled import cache_dir
from .._compiled.driver import (BINARY, MULTICLASS, dense_columns, get_row, masked_argmax,
                              n_rows)


# ---------------------------------------------------------------- compiled loop
def class_state(state, k):
    """The tuple ``(state[0][k], state[1][k], ...)``: class ``k``'s block of every slot."""


@overload(class_state, inline="always")
def _class_state(state, k):
    if len(state.types) == 1:
        return lambda state, k: (state[0][k],)
    return lambda state, k: (state[0][k],) + class_state(state[1:], k)


@njit(inline="always")
def no_after(state, n_updates):
    """The end-of-pass step of an entry point that has none."""
    return n_updates


@njit(inline="always")
def ovr_pass(X, y, sw, state, params, seen, scores, pred, score_fn, update_fn, after_fn):
    """One-vs-rest over every row of ``X``; returns the number of binary updates.

    ``state``: the base's slots with a leading class axis; ``y``: class indices;
    ``scores`` (n, K) receives each class model's pre-update score, ``pred`` (n,) the
    arg-max over the classes seen so far (``seen``, updated in place as in
    :func:`olearn._compiled.driver.online_pass`).  A class not seen yet takes part in
    nothing (its score is recorded as 0); class k's model learns from the first row of
    class k on.  ``after_fn(block, n_updates)``, the base's end-of-pass step, then
    runs on every class block.
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
            if seen[k] or k == yi:
                block = class_state(state, k)
                score_fn(block, idx, val, out)
                scores[i, k] = out[0]
                n_updates += update_fn(block, params, idx, val, 1.0 if k == yi else -1.0,
                                       sw[i], out, no_seen)
            else:
                scores[i, k] = 0.0
        pred[i] = masked_argmax(scores[i], seen)
        seen[yi] = 1
    for k in range(K):
        after_fn(class_state(state, k), n_updates)
    return n_updates


# ---------------------------------------------------------------- generated entry points
_GENERATED = {}
_ENTRY_ARGS = ("X", "y", "sw", "state", "params", "seen", "scores", "pred")

_TEMPLATE = '''"""Generated by olearn.multiclass.ovr: the one-vs-rest entry point over the
binary rule of {module}.{entry} (source hash {digest}).
Do not edit: a new file replaces it when the sources change."""
import {module} as _ovr_learner
from numba import njit as _ovr_njit
from olearn.multiclass.ovr import no_after as _ovr_no_after
from olearn.multiclass.ovr import ovr_pass as _ovr_pass
{names}
_ovr_score = _ovr_learner.{score}
_ovr_rule = _ovr_learner.{rule}
{after}

@_ovr_njit(cache=True)
def kernel(X, y, sw, state, params, seen, scores, pred):
    return _ovr_pass(X, y, sw, state, params, seen, scores, pred, _ovr_score, _ovr_rule,
                     _ovr_after)
'''

_AFTER = '''

@_ovr_njit(inline="always")
def _ovr_after(state, n_updates):
    return {expr}
'''


def _dotted(node):
    """``a.b.c`` of a Name/Attribute node, or None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _parse_entry(func):
    """Read a binary entry point ``return [wrap(state, ] online_pass(..., BINARY, score,
    rule)[)]``: the score and rule names, the end-of-pass expression (or None) with
    the pass's result renamed ``n_updates``, and the global names it uses."""
    fail = ValueError(f"OneVsRest needs a base whose binary entry point is one 'return' "
                      f"of online_pass(..., BINARY, score_fn, rule), possibly wrapped in a "
                      f"call on (state, result); {func.__module__}.{func.__qualname__} "
                      f"is not")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (TypeError, OSError, SyntaxError):
        raise fail from None
    body = [st for st in tree.body[0].body
            if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        raise fail
    calls = [n for n in ast.walk(body[0].value) if isinstance(n, ast.Call)
             and (_dotted(n.func) or "").split(".")[-1] == "online_pass"]
    if len(calls) != 1:
        raise fail
    call = calls[0]
    args = dict(enumerate(call.args))
    kw = {k.arg: k.value for k in call.keywords}
    task = _dotted(args.get(8, kw.get("task")))
    score = _dotted(args.get(9, kw.get("score_fn")))
    rule = _dotted(args.get(10, kw.get("update_fn")))
    if task is None or task.split(".")[-1] != "BINARY" or not score or not rule:
        raise fail

    class Rename(ast.NodeTransformer):
        def visit_Call(self, node):
            if node is call:
                return ast.Name("n_updates", ast.Load())
            return self.generic_visit(node)

    after = Rename().visit(body[0].value)
    if isinstance(after, ast.Name):
        return score, rule, None, ()
    names = {n.id for n in ast.walk(after) if isinstance(n, ast.Name)}
    if names & (set(_ENTRY_ARGS) - {"state"}):
        raise fail
    return score, rule, ast.unparse(after), tuple(sorted(names - {"state", "n_updates"}))


def _write_once(folder, stem, source):
    """``folder/stem.py`` holding ``source``, written atomically unless already there
    (rewriting an unchanged file would change its time stamp, which numba's cache
    checks)."""
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
    return path


def ovr_kernel(entry):
    """The compiled one-vs-rest entry point over a binary entry point (generated once)."""
    func = entry.py_func
    key = (func.__module__, func.__qualname__)
    if key in _GENERATED:
        return _GENERATED[key]
    score, rule, after, names = _parse_entry(func)
    module = sys.modules[func.__module__]
    h = hashlib.sha256()
    for part in (Path(module.__file__).read_bytes(), Path(__file__).read_bytes(),
                 repr(key).encode()):
        h.update(part)
    digest = h.hexdigest()[:16]
    source = _TEMPLATE.format(
        module=func.__module__, entry=func.__qualname__, score=score, rule=rule,
        digest=digest, names="".join(f"{n} = _ovr_learner.{n}\n" for n in names),
        after="_ovr_after = _ovr_no_after" if after is None else _AFTER.format(expr=after))
    stem = f"ovr_{func.__module__.replace('.', '_')}_{func.__qualname__}_{digest}"
    try:
        path = _write_once(Path(cache_dir()) / "ovr", stem, source)
    except OSError:  # no writable cache folder: a private one, compiled in this process
        path = _write_once(Path(tempfile.mkdtemp(prefix="olearn-ovr-")), stem, source)
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

    ``coef_`` is ``(K, n_features)``: row k is class k's binary model (two rows for
    two classes); ``decision_function`` gives the K binary scores, or for two classes
    their difference (scikit-learn's binary convention).
    """

    def __init__(self, base=None):
        self.base = base

    # -------------------------------------------------------- the base's settings
    def _base(self):
        """``base``, checked: the hyper-parameters."""
        if not isinstance(self.base, OnlineClassifier) or isinstance(self.base, OneVsRest):
            raise ValueError(f"base must be a binary olearn classifier (e.g. "
                             f"olearn.make('pa1')), got {self.base!r}")
        return self.base

    # A learner may fix its state layout from its first input (a full or diagonal
    # covariance from the width, say).  A prototype, a copy of ``base``, receives the
    # same first input as this model (the first batch, or the first example) and is
    # started as a binary learner would be; its slots then define the class blocks.
    # Its hyper-parameters follow ``base`` (synchronised in ``_check_params``).
    def _layout(self):
        """The prototype binary learner once learning started, else ``base``."""
        proto = self.__dict__.get("_proto")
        return self._base() if proto is None else proto

    def _new_proto(self):
        self._proto = clone(self._base())
        return self._proto

    def _validate_X(self, X, reset):
        X = super()._validate_X(X, reset)
        if reset:
            self._new_proto()._validate_X(X, reset=True)
        return X

    def _row_lists(self, x, grow):
        if self._is_fresh():
            self._new_proto()._row_lists(x, grow=False)
        return super()._row_lists(x, grow)

    def _start(self, n_features):
        proto = self.__dict__.get("_proto")
        if proto is None:
            proto = self._new_proto()
        if proto._is_fresh():
            proto._start(n_features)
        super()._start(n_features)

    def _reset(self):
        super()._reset()
        self.__dict__.pop("_proto", None)

    fit_intercept = property(lambda self: self._base().fit_intercept)
    epochs = property(lambda self: self._base().epochs)
    shuffle = property(lambda self: self._base().shuffle)
    random_state = property(lambda self: self._base().random_state)

    @property
    def _slots(self):
        return tuple(Slot(s.name, _block_axes(s.axes), s.fill, s.eye, False)
                     for s in self._layout()._slots)

    @property
    def _kernels(self):
        return {MULTICLASS: ovr_kernel(self._binary_entry())}

    def _binary_entry(self):
        entry = self._layout()._kernels.get(BINARY)
        if entry is None:
            raise ValueError(f"{type(self.base).__name__} has no binary kernel: OneVsRest "
                             "needs a binary olearn classifier")
        return entry

    def set_params(self, **params):
        self.__dict__.pop("_one_cache", None)  # base__C=... changes the kernel's params
        return super().set_params(**params)

    def _synced(self):
        """The prototype (or base) with the hyper-parameters ``base`` has now."""
        base = self._base()
        proto = self.__dict__.get("_proto")
        if proto is None:
            return base
        params = base.get_params(deep=False)
        if proto.get_params(deep=False) != params:
            proto.set_params(**params)
            proto._check_params()  # a parameter that shapes the state must not change
        return proto

    def _check_params(self):
        self._base()._check_params()
        self._synced()
        ovr_kernel(self._binary_entry())

    def _kernel_params(self):
        return self._synced()._kernel_params()

    def _fill(self, slot):
        return self._layout()._fill(slot)

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
            self.__dict__.pop("_one_cache", None)  # (the base swapped seen_ already)

    def _to_multiclass(self, old_n, n):
        self._resize_state(n, self._d)

    # -------------------------------------------------------- prediction
    def decision_function(self, X):
        """The K binary scores, (n, K); for two classes the scikit-learn convention,
        (n,) ``score_1 - score_0`` (> 0 means ``classes_[1]``, the arg-max)."""
        return self._two_as_one(self._decision(X))

    def _progressive_output(self, scores, pred, return_scores):
        if return_scores:
            return self._two_as_one(scores)
        return super()._progressive_output(scores, pred, return_scores)

    @staticmethod
    def _two_as_one(scores):
        if scores.ndim == 2 and scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores[:, 0].copy() if scores.ndim == 2 and scores.shape[1] == 1 else scores

    def _class_of(self, scores):
        if scores.shape[1] == 1 and len(self.classes_) == 2:  # score_1 - score_0
            if not self.seen_.all():
                return np.full(scores.shape[0], int(np.argmax(self.seen_)))
            return (scores[:, 0] > 0).astype(np.int64)
        return super()._class_of(scores)

    def _class_model(self, k):
        """Class ``k``'s binary model, sharing this model's arrays (for prediction)."""
        m = copy.copy(self._layout())
        m.__dict__.pop("_one_cache", None)
        m.state_ = {name: arr[k] for name, arr in self.state_.items()}
        for attr in ("t_", "n_updates_", "n_features_in_", "vocabulary_"):
            setattr(m, attr, getattr(self, attr, None))
        return m

    def _overrides(self, name):
        """Whether the base has its own prediction step ``name`` (NDAG clips the input,
        say): then each class model runs it, else one product with the stacked weights."""
        return getattr(type(self._layout()), name) is not getattr(OnlineClassifier, name)

    def _decision(self, X):
        if not self._overrides("_decision"):
            return super()._decision(X)
        check_is_fitted(self, "state_")
        X = self._validate_X(X, reset=False)
        K = self.state_[self._slots[0].name].shape[0]
        cols = [np.ravel(self._class_model(k)._decision(X)) for k in range(K)]
        return cols[0] if K == 1 else np.column_stack(cols)

    def _scores_one(self, x):
        if self._is_fresh() or not self._overrides("_scores_one"):
            return super()._scores_one(x)
        K = self.state_[self._slots[0].name].shape[0]
        return np.array([np.ravel(self._class_model(k)._scores_one(x))[0] for k in range(K)])

    def _predict_weights(self):
        if type(self._layout())._predict_weights is OnlineLearner._predict_weights:
            return self.state_["W"][:, 0, :]
        K = self.state_[self._slots[0].name].shape[0]
        return np.stack([self._class_model(k)._predict_weights()[0] for k in range(K)])
