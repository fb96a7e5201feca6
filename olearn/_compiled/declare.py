"""Learners declared once; every compiled entry point generated from the declarations.

A learner module declares its compiled parts by name, once::

    KERNELS = declare("pa", score=avg_scores, binary=_binary_rule,
                      multiclass=_multiclass_rule)

* ``score(state, idx, val, out)``: the ``K`` scores of one row (the progressive
  prediction); ``rule(state, params, idx, val, y, sw, out, seen) -> 0/1`` per task;
  ``after(state, n_updates) -> n_updates``: an end-of-pass step (optional);
* ``losses={"hinge": hinge_grad, ...}``: a learner whose rule takes a loss declares
  its rule as ``rule(state, params, idx, val, y, sw, seen, grad)``; each loss then
  gives its own kernels (``KERNELS.loss("hinge")``), with no rule or entry point
  written per loss.

``KERNELS[task]`` (``BINARY``, ``MULTICLASS``, ``REGRESSION``) is the compiled entry
point ``(X, y, sw, state, params, seen, scores, pred) -> n_updates`` running
:func:`olearn._compiled.driver.online_pass` with the declared parts, and
``KERNELS.reduction("ovr")`` the one-vs-rest pass over the binary rule
(:func:`olearn._compiled.driver.ovr_pass`).

How the entry points are made.  numba caches on disk only functions whose identity is
stable between processes; it never caches functions passed as arguments (numba issue
6264).  Here one small factory (:func:`entry`) makes, per (declaration, task, loss,
reduction), a ``@njit(cache=True)`` closure whose only free variable is a *string*
naming that combination.  numba keys a cached closure on its code and on the pickled
values of its free variables, so every combination has its own stable cache entry,
found again by every later process; the string is a compile-time constant, and
:func:`run_declared` (an ``@overload``) resolves it, at compile time, to the declared
Python functions.  Nothing reads source code, writes modules or touches
``sys.modules``.  Since numba checks only this file's time stamp for a cached entry
point, the cache folder is keyed on a hash of every olearn file that holds compiled
code (``olearn._compiled.cache_dir``).
"""
import hashlib
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from numba import njit, types
from numba.extending import overload

from .driver import BINARY, MULTICLASS, REGRESSION, online_pass, ovr_pass

NATIVE, OVR = "native", "ovr"
TASK_NAMES = {BINARY: "binary", MULTICLASS: "multiclass", REGRESSION: "regression"}


@njit(inline="always")
def no_after(state, n_updates):
    """The end-of-pass step of a learner that has none."""
    return n_updates


class Declaration(NamedTuple):
    name: str
    score: object
    rules: dict        # task -> rule
    after: object
    losses: dict       # loss name -> grad, or {} when the rules take no loss


_DECLARED = {}
_BOUND = {}
_ENTRIES = {}


def declare(name, *, score, binary=None, multiclass=None, regression=None, after=None,
            losses=None):
    """Register a learner's compiled parts under ``name``; returns its :class:`Kernels`.

    A learner declared outside the olearn package (a user's own) gets the hash of its
    source files in its name, so that an edit to them compiles afresh: the cache
    folder's hash covers only olearn's own files."""
    rules = {t: r for t, r in ((BINARY, binary), (MULTICLASS, multiclass),
                               (REGRESSION, regression)) if r is not None}
    parts = [score, after, *rules.values(), *(losses or {}).values()]
    name = name + _outside_digest(p for p in parts if p is not None)
    _DECLARED[name] = Declaration(name, score, rules, after or no_after, dict(losses or {}))
    return Kernels(name)


def _outside_digest(parts):
    """``"@<hash>"`` of the source files of ``parts`` outside olearn, or ``""``."""
    package = Path(__file__).resolve().parent.parent
    files = set()
    for part in parts:
        func = getattr(part, "py_func", part)
        try:
            path = Path(inspect.getfile(func)).resolve()
        except (TypeError, OSError):
            continue
        if package not in path.parents:
            files.add(path)
    if not files:
        return ""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.read_bytes())
    return "@" + h.hexdigest()[:16]


def _bind(rule, grad):
    """``rule`` with its loss fixed: the driver's rule signature (inlined, not cached)."""
    key = (rule, grad)
    if key not in _BOUND:
        @njit(inline="always")
        def bound(state, params, idx, val, y, sw, out, seen):
            return rule(state, params, idx, val, y, sw, seen, grad)
        _BOUND[key] = bound
    return _BOUND[key]


def _parts(key):
    """The declared functions behind an entry-point key ``name|task|loss|reduction``."""
    name, task, loss, reduction = key.split("|")
    decl = _DECLARED[name]
    task = int(task)
    rule = decl.rules[task]
    if decl.losses:
        rule = _bind(rule, decl.losses[loss])
    return decl, task, rule, reduction


def run_declared(key, X, y, sw, state, params, seen, scores, pred):
    """One pass of the declared learner named by the constant string ``key``."""


@overload(run_declared)
def _run_declared(key, X, y, sw, state, params, seen, scores, pred):
    if not isinstance(key, types.Literal):
        return None  # numba retries with the literal string
    decl, task, rule, reduction = _parts(key.literal_value)
    score, after = decl.score, decl.after
    if reduction == OVR:
        def impl(key, X, y, sw, state, params, seen, scores, pred):
            return ovr_pass(X, y, sw, state, params, seen, scores, pred, score, rule, after)
    else:
        def impl(key, X, y, sw, state, params, seen, scores, pred):
            return after(state, online_pass(X, y, sw, state, params, seen, scores, pred,
                                            task, score, rule))
    return impl


def entry(name, task, loss="", reduction=NATIVE):
    """The cached entry point of a declared learner for one task, loss and reduction
    (it releases the GIL, so a reader thread can parse the next chunk meanwhile)."""
    key = f"{name}|{task}|{loss}|{reduction}"
    kernel = _ENTRIES.get(key)
    if kernel is None:
        def run(X, y, sw, state, params, seen, scores, pred):
            return run_declared(key, X, y, sw, state, params, seen, scores, pred)
        kernel = _ENTRIES[key] = njit(cache=True, nogil=True)(run)
    return kernel


class Kernels(Mapping):
    """A declared learner's entry points by task (compiled on first call)."""

    def __init__(self, name, loss=""):
        self.name = name
        self._loss = loss

    @property
    def declaration(self):
        return _DECLARED[self.name]

    def loss(self, loss):
        """The kernels of one of the declared losses."""
        if loss not in self.declaration.losses:
            raise ValueError(f"{self.name} has no loss {loss!r}")
        return Kernels(self.name, loss)

    def _check_loss(self):
        if bool(self._loss) != bool(self.declaration.losses):
            raise ValueError(f"{self.name}: pick a loss first (.loss(name))")

    def __getitem__(self, task):
        if task not in self.declaration.rules:
            raise KeyError(task)
        self._check_loss()
        return entry(self.name, task, self._loss)

    def __iter__(self):
        return iter(self.declaration.rules)

    def __len__(self):
        return len(self.declaration.rules)

    def reduction(self, kind):
        """The entry point of a reduction over the binary rule (``"ovr"``)."""
        if kind != OVR or BINARY not in self.declaration.rules:
            raise ValueError(f"{self.name} has no binary rule for a {kind!r} reduction")
        self._check_loss()
        return entry(self.name, BINARY, self._loss, OVR)

    def __repr__(self):
        loss = f", loss={self._loss!r}" if self._loss else ""
        return f"Kernels({self.name!r}{loss}: {', '.join(TASK_NAMES[t] for t in self)})"


def declared():
    """Every declaration made so far, by name."""
    return dict(_DECLARED)
