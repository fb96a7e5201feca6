"""Learners declared once; every compiled entry point generated from the declarations.

A learner module declares its compiled parts by name, once::

    KERNELS = declare("linear.pa", params=("c", "D"), score=avg_scores,
                      begin=avg_begin, binary=_binary_rule, multiclass=_multiclass_rule)

* ``score(state, idx, val, out)``: the ``K`` scores of one row, written into ``out``
  and nothing else (it changes no state: the same scorer gives the pass's progressive
  prediction, ``predict`` and ``predict_one``; :attr:`Kernels.scorer`);
* ``begin(state, idx, val, out)`` (optional): the round's start, run by the driver after
  the score and before the rule: it counts the round, keeps what the rule needs from the
  scores (the raw scores of an averaged model), settles what a lazy state owes on the
  row; it may refine ``out``, the round's recorded prediction (OFS's partial
  observation); a ``score`` and ``begin`` may come with a ``score_begin`` doing both in
  one, which the pass then runs instead (``round_start``: the averaged linear
  learners' raw and averaged scores from one product with the row);
* ``rule(state, params, idx, val, y, sw, out, seen) -> 0/1`` per task (``binary``,
  ``multiclass``, ``regression``, ``unlabelled``: a model without a target);
  ``after(state, n_updates) -> n_updates``: an end-of-pass step (optional);
* ``params=("c", "D")``: the names of the hyper-parameters, in the order of the tuple
  the rules receive, a named tuple (``params.c``; ``Kernels.pack`` builds it from the
  learner's ``kernel_params()``, a mapping by name, and refuses a missing or unknown
  name);
* ``losses={"hinge": hinge_grad, ...}``: a learner whose rule takes a loss declares
  its rule as ``rule(state, params, idx, val, y, sw, seen, grad)``; each loss then
  gives its own kernels (``KERNELS.loss("hinge")``), with no rule or entry point
  written per loss.

``KERNELS[task]`` (``BINARY``, ``MULTICLASS``, ``REGRESSION``) is the compiled entry
point ``(X, y, sw, state, params, seen, scores, pred) -> n_updates`` running
:func:`olearn._compiled.driver.online_pass` with the declared parts.

How the entry points are made.  numba caches on disk only functions whose identity is
stable between processes; it never caches functions passed as arguments (numba issue
6264).  Here one small factory (:func:`entry`) makes, per (declaration, task, loss), a ``@njit(cache=True)`` closure whose only free variable is a *string*
naming that combination.  numba keys a cached closure on its code and on the pickled
values of its free variables, so every combination has its own stable cache entry,
found again by every later process; the string is a compile-time constant, and
:func:`run_declared` (an ``@overload``) resolves it, at compile time, to the declared
Python functions.  Nothing reads source code, writes modules or touches
``sys.modules``.  Since numba checks only this file's time stamp for a cached entry
point, the cache folder is keyed on a hash of every olearn file that holds compiled
code (``olearn._compiled.cache_dir``).
"""
import copyreg
import hashlib
import inspect
import re
from collections import namedtuple
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from numba import njit, types
from numba.extending import overload

from .driver import BINARY, MULTICLASS, REGRESSION, UNLABELLED, online_pass, score_pass

TASK_NAMES = {BINARY: "binary", MULTICLASS: "multiclass", REGRESSION: "regression",
              UNLABELLED: "unlabelled"}


@njit(inline="always")
def no_after(state, n_updates):
    """The end-of-pass step of a learner that has none."""
    return n_updates


@njit(inline="always")
def no_begin(state, idx, val, out):
    """The round start of a learner that keeps nothing per round."""


class Declaration(NamedTuple):
    name: str
    score: object
    rules: dict        # task -> rule
    after: object
    losses: dict       # loss name -> grad, or {} when the rules take no loss
    begin: object = no_begin
    params: type = None  # the named tuple of the rules' parameters
    scratch: tuple = ()  # slots the score may fill (a row's features), by name
    score_begin: object = None  # score and begin in one, for the pass (round_start)
    step: object = None  # a first-order linear rule's scalar step (olearn._compiled.grid)


_DECLARED = {}
_ROUND_STARTS = {}
_BOUND = {}
_ENTRIES = {}


def declare(name, *, score, binary=None, multiclass=None, regression=None, begin=None,
            after=None, losses=None, params=(), scratch=(), step=None, unlabelled=None):
    """Register a learner's compiled parts under ``name``; returns its :class:`Kernels`.

    ``params``: the names of the rules' hyper-parameters (identifiers), in order.
    ``scratch``: the names of the slots the score fills with the row's features (a
    feature map's work vectors, recomputed every row and read by the rule: FOGD's,
    NOGD's); the score changes no other slot.
    A learner declared outside the olearn package (a user's own) gets the hash of its
    source files in its name, so that an edit to them compiles afresh: the cache
    folder's hash covers only olearn's own files.
    ``step``: the binary rule's scalar step, when the rule is
    ``olearn._compiled.grid.first_order_rule(step)``: what lets a grid of the learner
    run as one vectorised pass (``olearn.grid``).
    ``unlabelled``: the rule of a model without a target (``target = "none"``), with
    the same signature; its ``y`` is 0 and unread."""
    rules = {t: r for t, r in ((BINARY, binary), (MULTICLASS, multiclass),
                               (REGRESSION, regression), (UNLABELLED, unlabelled))
             if r is not None}
    parts = [score, begin, after, *rules.values(), *(losses or {}).values()]
    name = name + _outside_digest(p for p in parts if p is not None)
    begin = begin or _ROUND_STARTS.get(score, (no_begin,))[0]
    both = _ROUND_STARTS.get(score, (None, None))
    _DECLARED[name] = Declaration(name, score, rules, after or no_after, dict(losses or {}),
                                  begin, _params_class(name, params),
                                  tuple(scratch), both[1] if both[0] is begin else None,
                                  step)
    return Kernels(name)


def round_start(score, begin, score_begin=None):
    """Make ``begin`` the round start of every declaration with this shared ``score``
    that names none (the linear learners' ``avg_scores`` goes with ``avg_begin``, so a
    rule declared outside olearn with ``score=avg_scores`` reads its raw scores);
    ``score_begin``, the two in one, is what the pass of a declaration with this
    ``score`` and ``begin`` runs instead of them (one product with the row)."""
    _ROUND_STARTS[score] = (begin, score_begin)


def _params_class(name, fields):
    """The named tuple of a declaration's parameters, checked: identifiers, each once."""
    fields = fields if isinstance(fields, str) else tuple(fields)
    if isinstance(fields, str) or not all(isinstance(f, str) and f.isidentifier() and
                                          not f.startswith("_") for f in fields):
        raise ValueError(f"{name}: params must be a tuple of parameter names, got {fields!r}")
    if len(set(fields)) != len(fields):
        raise ValueError(f"{name}: a parameter is named twice in {fields!r}")
    return params_class("params_" + re.sub(r"\W", "_", name), fields)


class _ParamsType(type):
    """The class of the declared parameter tuples.  Such a tuple is an argument of the
    entry points, and numba's disk cache pickles the argument types of every entry point
    it holds into one index, which any process loads: a ``_ParamsType`` class pickles as
    its name and fields, and loads as the class of that name (made then if its
    declaring module was not imported), so that the index loads everywhere."""


def params_class(cls_name, fields):
    """The parameter tuple class ``cls_name`` with these fields (one per name)."""
    cls = globals().get(cls_name)
    if not isinstance(cls, _ParamsType) or cls._fields != fields:
        base = namedtuple(cls_name, fields)
        cls = _ParamsType(cls_name, (base,), {"__slots__": (), "__module__": __name__})
        globals()[cls_name] = cls
    return cls


copyreg.pickle(_ParamsType, lambda cls: (params_class, (cls.__name__, cls._fields)))


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
    """The declared functions behind an entry-point key ``name|task|loss``."""
    name, task, loss = key.split("|")
    decl = _DECLARED[name]
    task = int(task)
    rule = decl.rules[task]
    if decl.losses:
        rule = _bind(rule, decl.losses[loss])
    return decl, task, rule


def run_declared(key, X, y, sw, state, params, seen, scores, pred):
    """One pass of the declared learner named by the constant string ``key``."""


@overload(run_declared)
def _run_declared(key, X, y, sw, state, params, seen, scores, pred):
    if not isinstance(key, types.Literal):
        return None  # numba retries with the literal string
    decl, task, rule = _parts(key.literal_value)
    score, begin, after = decl.score, decl.begin, decl.after
    if decl.score_begin is not None:  # both in one: the score's part is done there
        score, begin = no_begin, decl.score_begin

    def impl(key, X, y, sw, state, params, seen, scores, pred):
        return after(state, online_pass(X, y, sw, state, params, seen, scores, pred,
                                        task, score, begin, rule))
    return impl


def score_declared(key, X, state, scores):
    """The declared score of the learner named by the constant ``key`` on every row."""


@overload(score_declared)
def _score_declared(key, X, state, scores):
    if not isinstance(key, types.Literal):
        return None
    score = _DECLARED[key.literal_value.split("|")[0]].score

    def impl(key, X, state, scores):
        score_pass(X, state, scores, score)
    return impl


def entry(name, task, loss=""):
    """The cached entry point of a declared learner for one task and loss (it releases
    the GIL, so a reader thread can parse the next chunk meanwhile)."""
    key = f"{name}|{task}|{loss}"
    kernel = _ENTRIES.get(key)
    if kernel is None:
        def run(X, y, sw, state, params, seen, scores, pred):
            return run_declared(key, X, y, sw, state, params, seen, scores, pred)
        kernel = _ENTRIES[key] = njit(cache=True, nogil=True)(run)
    return kernel


def scorer(name):
    """The cached scorer of a declared learner: ``(X, state, scores)`` writes the declared
    score of every row of ``X`` into ``scores`` (n, K) and changes nothing else."""
    key = f"{name}|score|"
    kernel = _ENTRIES.get(key)
    if kernel is None:
        def run(X, state, scores):
            score_declared(key, X, state, scores)
        kernel = _ENTRIES[key] = njit(cache=True, nogil=True)(run)
    return kernel


def check_names(owner, name, fields, given):
    """Raise unless ``given`` maps exactly the declared parameter names ``fields`` (of the
    declaration ``name``) to values; the error names the learner ``owner`` and the
    parameter."""
    who = f"{owner if isinstance(owner, str) else type(owner).__name__} ({name})"
    if not fields and not isinstance(given, Mapping) and len(given) == 0:
        return  # (no parameters: the base's default ``()`` names none)
    if not isinstance(given, Mapping):
        raise TypeError(f"{who}: kernel_params() must map the declared parameter names "
                        f"{fields} to numbers, got {type(given).__name__}")
    for field in fields:
        if field not in given:
            raise ValueError(f"{who}: kernel parameter {field!r} is declared but "
                             f"kernel_params() does not give it")
    for field in given:
        if field not in fields:
            raise ValueError(f"{who}: kernel_params() gives {field!r}, which is not "
                             f"a declared kernel parameter {fields}")


def pack_params(owner, kernels, given):
    """The parameters a learner ``owner`` gives (``given``: its ``kernel_params()``) as
    its kernels take them: for declared kernels the declared named tuple
    (:meth:`Kernels.pack`), a named tuple already packed as it is, else a tuple of
    floats (kernels that are not declared: a learner's own entry points)."""
    if isinstance(kernels, Kernels):
        return kernels.pack(owner, given)
    if isinstance(given, tuple) and hasattr(given, "_fields"):
        return given
    return tuple(float(p) for p in given)


class Kernels(Mapping):
    """A declared learner's entry points by task (compiled on first call)."""

    def __init__(self, name, loss=""):
        self.name = name
        self._loss = loss

    @property
    def declaration(self):
        return _DECLARED[self.name]

    @property
    def params(self):
        """The named tuple of the rules' parameters (fields: the declared names)."""
        return self.declaration.params

    def pack(self, owner, given):
        """The rules' parameters from ``given``, a mapping ``{name: number}`` (a
        learner's ``kernel_params()``), as the declared named tuple of floats: every
        declared name must be given, and no other (``owner`` names the learner in the
        error)."""
        cls = self.declaration.params
        if isinstance(given, cls):
            return given
        check_names(owner, self.name, cls._fields, given)
        return cls(*(float(given[f]) for f in cls._fields))

    @property
    def scorer(self):
        """The compiled scorer ``(X, state, scores)`` (see :func:`scorer`)."""
        return scorer(self.name)

    @property
    def loss_name(self):
        """The loss these kernels were picked for (``""``: a rule without losses)."""
        return self._loss

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

    def __repr__(self):
        loss = f", loss={self._loss!r}" if self._loss else ""
        return f"Kernels({self.name!r}{loss}: {', '.join(TASK_NAMES[t] for t in self)})"


def declared():
    """Every declaration made so far, by name."""
    return dict(_DECLARED)
