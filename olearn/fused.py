"""Grids of learners fused into one compiled pass: ``olearn.grid(name, **param_lists)``.

``olearn.grid("pa1", C=[0.01, 0.1, 1, 10])`` is a model holding one member per point of
the product of the lists (``settings_``, in ``itertools.product`` order); every call
(``partial_fit``, ``predict_learn``, ``fit``, ``predict``, ``learn_one``,
``predict_one``, ``predict_learn_one``) runs every member and returns the members'
answers side by side (axis 1 of a batch result, a list for one example).
``estimators_`` gives each member as an ordinary model (a copy): equal to the same
learner run alone on the same rows.

How it is fused (:class:`Fused`, also what ``ExpertAdvice`` and ``compare``'s tuning use):
members whose rule is one declared first-order rule (``olearn.protocol.declare``'s
``step``; the same entry point, task, intercept and state shapes; e.g. PA-I at 20 values
of C, ALMA at 9)
run one compiled pass per batch, :mod:`olearn._compiled.grid`: each slot of their state
is one array with the members as its last axis (a feature's G weights side by side), and
each member's ``state_`` holds views of it, so a member is an ordinary model at every
moment.  The row is read once, and each member scores and updates it with its own
hyper-parameters, by the very functions of its own pass: the results are those of
separate passes, number for number.  ``ExpertAdvice`` hands its combination to the
pass (``run``'s ``combiner``): each row is weighted and combined as the members predict.

Not fused (each member runs its own pass, same results): learners with their own pass
(the kernel learners' support sets, ``SupportModel``), members whose parameters change
the rule or its state's shape (``loss``, ``average``, ``fit_intercept``,
``intercept_scaling``, a network's layer sizes: they form separate groups, each
fused), wrappers, and a group of one.  One-example calls run the members one by one.

A member that diverges in a fused pass ends the pass: the call raises
``DivergenceError`` naming the member, and every member is left as before the call
(as a learner's own atomic call; a state beyond ``olearn.base.SNAPSHOT_BYTES`` is not
copied and is left diverged, as a learner's own).
"""
import contextlib
import itertools

import numpy as np

from ._compiled.declare import Kernels
from ._internals import internals as core, runs_base_pass
from ._compiled.grid import grid_entry
from ._estimator import Estimator, clone, is_classifier
from ._locking import locked
from ._params import store_params
from ._labels import LabelMixin
from ._rows import kernel_rows, run_chunks
from ._compiled.driver import BINARY
from .base import OnlineLearner
from .protocol import Progressive

__all__ = ["grid", "Grid", "Fused", "fusable"]


def fusable(model):
    """Whether ``model`` runs the base's declared pass (so that it can share a fused one):
    a subclass that overrides a public pass (``predict_learn``, ``partial_fit``) runs its
    own."""
    t = type(model)
    return (isinstance(model, OnlineLearner) and isinstance(model.kernels, Kernels)
            and runs_base_pass(t, OnlineLearner)
            and all(_core_method(t, name) for name in ("predict_learn", "partial_fit")))


def _core_method(t, name):
    """Whether ``t.name`` is the protocol's or the base's own."""
    owner = next((k for k in t.__mro__ if name in k.__dict__), None)
    return owner is not None and owner.__module__ in ("olearn.protocol", "olearn.base")


class Fused:
    """Runs a list of models over batches: the members that share a declared
    first-order rule (:meth:`fused_indices`) in one compiled pass per group; ``run``
    returns their ``(scores, pred)`` by index (the others are the caller's to run)."""

    def __init__(self, members):
        self.members = list(members)
        self._stacks = {}  # tuple of member ids -> (arrays, views)

    def fused_indices(self, alive=None):
        """The members this runs: fusable, ``alive``, and sharing their declared
        first-order rule with another such member."""
        idx = [j for j, m in enumerate(self.members)
               if fusable(m) and m.kernels.declaration.step is not None
               and (alive is None or alive[j])]
        names = [self.members[j].kernels.name for j in idx]
        return [j for j, name in zip(idx, names) if names.count(name) > 1]

    def run(self, X, y, classes=None, sample_weight=None, alive=None, contract=True,
            combiner=None):
        """One progressive pass of every fusable (and ``alive``) member over a batch:
        ``{index: (scores (n, K), pred (n,))}``, as each member's own pass gives them;
        atomic over all of them (a failure leaves every member as it was).
        ``contract``: ``classes`` is the whole set of labels (``partial_fit``'s), not
        only those of ``fit``'s data.  ``combiner`` (``ExpertAdvice``'s): when every
        member is in one fused group that ``combiner.accepts``, the pass combines each
        row as it goes (``combiner.run``) and the members' answers are not kept: the
        result is ``{index: None}``."""
        idx = self.fused_indices(alive)
        if not idx:
            return {}
        ms = [self.members[j] for j in idx]
        with contextlib.ExitStack() as stack:
            for m in ms:
                stack.enter_context(core(m).atomic())
            X, labels, sw = self._prepare(ms, X, y, classes, sample_weight, contract)
            groups = {}
            for m, yk in zip(ms, labels):
                key = _group_key(m)
                groups.setdefault(key if key is not None else id(m), []).append((m, yk))
            results = {}
            for group in groups.values():
                ms_ = [m for m, _ in group]
                if len(group) == 1:
                    m, yk = group[0]
                    results[id(m)] = core(m).run(X, yk, sw)
                elif combiner is not None and len(group) == len(self.members) \
                        and combiner.accepts(ms_[0]):
                    results.update(self._run_group(ms_, X, group[0][1], sw, combiner))
                else:
                    results.update(self._run_group(ms_, X, group[0][1], sw))
            return {j: results[id(m)] for j, m in zip(idx, ms)}

    @staticmethod
    def _prepare(ms, X, y, classes, sample_weight, contract):
        """``_partial``'s checks, once for the batch, then each member's start and labels."""
        for m in ms:
            m.check_params()
        lead = ms[0]
        X, y, sw = core(lead).validate(X, y, sample_weight, reset=core(lead).is_fresh())
        names = "feature_names_in_" in lead.__dict__
        labels = []
        shared = {}
        for m in ms:
            fresh = core(m).is_fresh()
            if m is not lead:
                if names:
                    core(m).validate_X(X, reset=fresh)
                elif fresh:
                    m.n_features_in_ = X.shape[1]
                elif m.n_features_in_ != X.shape[1]:
                    raise ValueError(f"X has {X.shape[1]} features, but "
                                     f"{type(m).__name__} is expecting "
                                     f"{m.n_features_in_} features as input.")
            if fresh:
                core(m).start(X.shape[1])
            elif m.vocabulary_ is not None and X.shape[1] != m.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but the model has "
                                 f"{m.n_features_in_}")
            labels.append(_labels(m, y, classes, contract, shared))
        return X, labels, sw

    def _stacked(self, group):
        """The group's state arrays with the members as last axis, each member's
        ``state_`` holding views of them (stacked again whenever a member's arrays were
        replaced: grown, converted, restored, loaded)."""
        names = [s.name for s in group[0].slots]
        key = tuple(map(id, group))
        held = self._stacks.get(key)
        if held is not None and all(m.state_.get(n) is v for m, views in zip(group, held[1])
                                    for n, v in zip(names, views)):
            return held[0]
        arrays = tuple(np.stack([m.state_[n] for m in group], axis=-1) for n in names)
        views = []
        for g, m in enumerate(group):
            mine = tuple(a[..., g] for a in arrays)
            for n, v in zip(names, mine):
                m.state_[n] = v
            core(m).state_changed()
            views.append(mine)
        self._stacks = {k: v for k, v in self._stacks.items()
                        if not set(k) & set(key)}
        self._stacks[key] = (arrays, views)
        return arrays

    def _run_group(self, group, X, yk, sw, combiner=None):
        lead = group[0]
        n, G = X.shape[0], len(group)
        state = self._stacked(group)
        P = np.array([tuple(core(m).packed_params()) for m in group], dtype=np.float64)
        rows = kernel_rows(X, lead.fit_intercept, core(lead).constant())
        sw = np.ones(n) if sw is None else sw
        counts = np.zeros(G, dtype=np.int64)
        if combiner is not None:
            done = run_chunks(rows, lambda part, lo, hi: combiner.run(
                lead.kernels.name, part, yk[lo:hi], sw[lo:hi], state, P.reshape(G, -1),
                counts, lo, hi))
            for g, m in enumerate(group):
                m.n_updates_ += int(counts[g])
                m.t_ += n
            if done < n:     # (the caller runs each member on its own: it names it)
                raise core(lead).diverged(done, "batch")
            for m in group:
                if not core(m).weights_finite():
                    raise core(m).diverged(n - 1, "batch")
            return {id(m): None for m in group}
        scores = np.empty((n, G, 1))
        pred = np.zeros((n, G), dtype=np.int64)
        entry = grid_entry(lead.kernels.name)
        done = run_chunks(rows, lambda part, lo, hi: entry(
            part, yk[lo:hi], sw[lo:hi], state, P.reshape(G, -1), scores[lo:hi], pred[lo:hi],
            counts))
        out = {}
        for g, m in enumerate(group):
            m.n_updates_ += int(counts[g])
            m.t_ += n
            if done < n and not np.isfinite(scores[done, g]).all():
                raise core(m).diverged(done, "batch")
            core(m).check_finite(scores[:, g])
            out[id(m)] = (scores[:, g], pred[:, g])
        return out


_LABEL_STATE = ("classes_", "_class_index", "_classes_given", "_classes_fixed", "seen_")


def _labels(m, y, classes, contract, shared):
    """``m``'s kernel labels of ``y`` (``_prepare_labels``).  A binary member with no
    labels yet whose type already met ``y`` in this batch (a grid's members) takes that
    member's class map, a copy, and its labels: what its own call would make, without
    sorting the labels again."""
    if not isinstance(m, LabelMixin) or "classes_" in m.__dict__:
        return core(m).kernel_labels(core(m).prepare_labels(y, classes, contract))
    src = shared.get(type(m))
    if src is not None:
        for name in _LABEL_STATE:
            value = src[0].__dict__[name]
            m.__dict__[name] = value.copy() if hasattr(value, "copy") else value
        core(m).state_changed()   # (seen_ is a new array, as _add_classes says)
        if core(m).task() == BINARY:
            return src[1]
        for name in _LABEL_STATE:
            del m.__dict__[name]
    out = core(m).kernel_labels(core(m).prepare_labels(y, classes, contract))
    if core(m).task() == BINARY and all(n in m.__dict__ for n in _LABEL_STATE):
        shared[type(m)] = (m, out)
    return out


def _group_key(m):
    """Members with equal keys share one fused pass; None: the member runs alone (a
    rule that is not a first-order step, another task than binary)."""
    if m.kernels.declaration.step is None or core(m).task() != BINARY \
            or tuple(s.name for s in m.slots) != ("W", "U", "A"):
        return None
    return (type(m), m.kernels.name, core(m).task(), m.fit_intercept, core(m).constant(),
            tuple((k, a.shape) for k, a in m.state_.items()),
            tuple(m.classes_.tolist()))


def _settings(param_grid):
    if not isinstance(param_grid, dict) or not param_grid:
        raise ValueError("param_grid must be a non-empty dict {parameter: list of values}")
    lists = {}
    for k, v in param_grid.items():
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise ValueError(f"param_grid[{k!r}] must be a list of values, got {v!r}")
        lists[k] = list(v)
        if not lists[k]:
            raise ValueError(f"param_grid[{k!r}] is empty")
    return [dict(zip(lists, combo)) for combo in itertools.product(*lists.values())]


class Grid(Progressive, Estimator):
    """``learner`` (a registered name or an olearn learner) at every point of
    ``param_grid`` (``{parameter: list of values}``; the product of the lists), run
    in one fused pass per batch (see the module's docstring: which learners fuse).

    Attributes: ``settings_`` (one dict per member), ``members_`` (the members, whose
    state is held by the grid), ``estimators_`` (a copy of each member: an ordinary
    model).  Batch calls return one column per member: ``predict_learn`` (n, G) labels
    or scores ((n, G, K) multiclass scores); one-example calls a list of G answers.
    """

    def __init__(self, learner="pa1", param_grid=None):
        store_params(self, locals())

    def _base(self):
        if isinstance(self.learner, str):
            from .registry import make
            return make(self.learner)
        if not isinstance(self.learner, OnlineLearner):
            raise TypeError(f"learner must be a registered name or an olearn learner, "
                            f"got {type(self.learner).__name__}")
        return clone(self.learner)

    def _start(self):
        settings = _settings(self.param_grid)
        base = self._base()
        members = []
        for s in settings:
            m = clone(base)
            m.set_params(**s)
            m.check_params()
            members.append(m)
        self.settings_ = settings
        self.members_ = members
        self._fused = Fused(members)

    def _is_fresh(self):
        return "members_" not in self.__dict__

    def __sklearn_is_fitted__(self):
        return not self._is_fresh() and all(m.__sklearn_is_fitted__() for m in self.members_)

    def _reset(self):
        for k in ("settings_", "members_", "_fused"):
            self.__dict__.pop(k, None)

    @property
    def estimators_(self):
        """Each member as an ordinary model (a copy, its state in contiguous arrays)."""
        import copy
        out = []
        for m in self.members_:
            c = copy.deepcopy(m)
            if "state_" in c.__dict__:
                c.state_ = {k: np.ascontiguousarray(v) for k, v in c.state_.items()}
                core(c).state_changed()
            out.append(c)
        return out

    # ------------------------------------------------------------ batches
    def _pass(self, X, y, classes, sample_weight):
        if self._is_fresh():
            self._start()
        done = self._fused.run(X, y, classes, sample_weight)
        out = []
        for j, m in enumerate(self.members_):
            if j not in done:  # (not fusable: its own pass)
                s, p = core(m).progressive(X, y, classes, sample_weight, True)
                done[j] = (s, p)
            out.append(done[j])
        return out

    @locked
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Every member learns from the batch (one fused pass per group)."""
        self._pass(X, y, classes, sample_weight)
        return self

    def _progressive(self, X, y, classes, sample_weight, return_scores):
        return self._pass(X, y, classes, sample_weight), None

    def _progressive_output(self, results, _, return_scores):
        return np.stack([core(m).progressive_output(s, p, return_scores)
                         for m, (s, p) in zip(self.members_, results)], axis=1)

    @locked
    def fit(self, X, y, sample_weight=None):
        """Every member's ``fit``: start afresh, its ``epochs`` passes (fused when the
        members share ``epochs``, ``shuffle`` and ``random_state``)."""
        from .base import fit_passes
        self._reset()
        self._start()
        lead = self.members_[0]
        order = {(m.epochs, m.shuffle, m.random_state) if hasattr(m, "epochs") else None
                 for m in self.members_}
        if len(order) != 1 or None in order or not all(map(fusable, self.members_)):
            for m in self.members_:
                m.fit(X, y, sample_weight=sample_weight)
            return self
        X, y, sample_weight = core(lead).validate(X, y, sample_weight, reset=True)
        classes = core(lead).fit_classes(y) if is_classifier(lead) else None
        del lead.n_features_in_
        fit_passes(X, y, sample_weight, lead.epochs, lead.shuffle, lead.random_state,
                   lambda X, y, sw, order: self._fused.run(X, y, classes, sw,
                                                           contract=False))
        return self

    @locked
    def predict(self, X):
        """Each member's predictions, (n, G)."""
        return np.stack([m.predict(X) for m in self.members_], axis=1)

    @locked
    def decision_function(self, X):
        """Each member's scores, (n, G) (or (n, G, K))."""
        return np.stack([m.decision_function(X) for m in self.members_], axis=1)

    # ------------------------------------------------------------ one example
    @locked
    def learn_one(self, x, y, sample_weight=1.0):
        """Every member learns from one example."""
        if self._is_fresh():
            self._start()
        for m in self.members_:
            m.learn_one(x, y, sample_weight)
        return self

    @locked
    def predict_one(self, x):
        """Each member's prediction of one example (a list)."""
        if self._is_fresh():
            self._start()
        return [m.predict_one(x) for m in self.members_]

    @locked
    def predict_learn_one(self, x, y, sample_weight=1.0, return_scores=False):
        """Each member's ``predict_learn_one`` (a list)."""
        if self._is_fresh():
            self._start()
        return [m.predict_learn_one(x, y, sample_weight, return_scores=return_scores)
                for m in self.members_]


def grid(learner, **param_lists):
    """A :class:`Grid`: ``learner`` (a registered name or a learner) at every point of the
    product of ``param_lists`` (``C=[0.1, 1, 10], average=[False, True]``), run in one
    fused compiled pass per batch where the members share a rule."""
    g = Grid(learner, dict(param_lists))
    core(g).start()
    return g
