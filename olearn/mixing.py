"""Mixing models: ``olearn.mix(models, weights=None)``, one model from several.

Models of one learner trained on different streams (threads, machines, shards of a
file) are combined into a NEW model, the members left unchanged; the mixed model
predicts, keeps learning (``partial_fit``, ``learn_one``) and saves like any other.
This is the MIX of Jubatus (Hido, Tokui, Oda, "Jubatus: an open source platform for
distributed online machine learning", NIPS 2013 workshop on Big Learning) and of
iterative parameter mixing (McDonald, Hall, Mann, NAACL 2010), slot by slot, by the
rule each learner declares next to its state (``Slot(..., mix=RULE)``, see
``olearn._state``).

Steps:

1. Checks, each failure one ``ValueError`` saying why: the members are fitted models
   of one class with the same hyper-parameters (``epochs``, ``shuffle`` and
   ``random_state`` may differ; the mixed model takes the first member's).
2. Alignment, on private copies: the columns (dict-trained models: the union of the
   vocabularies, the first member's order then the new names, each member's columns
   moved to their names' places; array-trained models: the widest width, narrower
   members widened as a stream that gets wider does), then the classes (the union of
   the labels, the first member's order then the new labels; a member that has not
   seen a class holds its initial state for it, as it would have had the label
   arrived; the binary orientation and the class rows follow the first member's).
3. The lazy state made explicit (``_explicit_state`` of the family: the linear
   learners' scale folded into ``W`` and their averaged weights ``wbar`` formed from
   ``(S W - U) / t``; the sparse learners' owed shrinks settled and their scale ``P``
   folded), so that a rule sees true weights.
4. Each slot combined by its rule, then the family's ``_after_mix`` writes the
   kernels' lazy form back (``U = W - t wbar``, ``||W||^2``, ...).  ``t_`` and
   ``n_updates_`` add up.

Weights: ``weights=None`` weighs each member by the rows it learned, ``t_`` (so the mean
of two halves' averaged weights is the average over the whole stream); given weights
are normalised to sum 1.

The rules (``olearn.mixing.RULES``):

* ``"mean"`` (the default): the weighted mean ``sum_m lambda_m a_m``: weights, averaged
  weights, dual coefficients;
* ``"sum"``: counters (the rounds ``t``, ALMA's updates) and the sufficient statistics
  of the dual-averaging learners (RDA's and AdaRDA's gradient sums, FTRL's ``z``,
  AdaGrad's sums of squared gradients, COCOB's wealth): the statistics of the union
  of the streams (for RDA the weight is then the closed form of the union's average
  gradient, over ``t = t_1 + t_2`` rounds);
* ``"rss"``: root of the sum of squares (FTRL's ``sqrt(n)``: ``n`` adds up);
* ``"max"``, ``"min"``: per coordinate (NDAG's feature scales, COCOB's largest
  gradient; ``"min"`` on a diagonal covariance is Jubatus's rule);
* ``"same"``: the members must hold equal arrays (FOGD's random directions, NOGD's
  landmarks and map: members started from one ``random_state``, or one model);
* ``"mean:N"``: the mean along the first axis weighted by the counts in slot ``N``
  (times the members' weights when given): a k-means model's centres, each the mean
  of the rows it took, ``c = sum_m n_m c_m / sum_m n_m`` (exact for the means of the
  union of the members' rows); an entry no member counted keeps the first member's;
* ``"first"``: the first member's (flags, hyper-parameters the kernels read);
* ``"reset"``: the slot's initial value (scratch);
* ``"precision"`` (a mean ``W``) with ``"evidence"`` (its covariance, ``S`` diagonal or
  ``L`` full), the second-order regressors (RLS, AROW's regression): their Gaussian
  ``N(w_m, Sigma_m)`` over the weights, started at ``N(0, sigma0 I)`` and updated by
  rank-one increments of the precision ``Sigma^-1`` (``olearn._compiled.second_order``),
  is the posterior of Bayesian ridge regression.  The mix is the product of the
  members' posteriors over the prior counted once: precision ``P = P0 + sum_m c_m (P_m
  - P0)`` (``P0 = I / sigma0``) and mean ``w = P^-1 sum_m c_m P_m w_m``, with ``c_m =
  1`` (a precision already counts its rows: ``weights=None`` does not reweigh it) or,
  given ``weights``, ``c_m = M lambda_m``.  With a full covariance (and no forgetting)
  this is exactly the model of the union of the streams (tested); a coordinate whose
  precision would fall below every member's takes the smallest member precision.  On
  cpusmall (70% for training in two halves) it errs less than Jubatus's rule, diagonal
  and full (tested); on abalone 0.5% more (both within 1% of one model);
* ``"min"`` on the variances ``S``, with ``"mean"`` on ``W``: the second-order
  classifiers (AROW, CW, SCW, NHERD, NAROW, SOP, IELLIP), Jubatus's MIX; full, the
  covariances' weighted mean (``"covariance_mean"``: a minimum per coordinate is no
  covariance).  Their updates are driven by margins, not a likelihood, and the product
  of their Gaussians is worse on a9a (two and four shards: log loss 2.20-2.21 against
  1.17-1.67 for AROW, accuracy within 0.1 point; CW's variances, which shrink toward
  1e-300, make it much worse: accuracy 0.58 against 0.72), so they keep Jubatus's rule
  (tested against the product on a9a).  ``rules=`` picks either for any of them.

``A``, the linear and sparse learners' per-row scratch and counters, declares a rule
per column.  Kernel support sets (``olearn.kernel``) concatenate, each member's
coefficients times its weight, and keep the ``budget`` vectors of largest
``sum_k |alpha_k|``; KRLS and the Forgetron and Projectron budgets keep quantities of
their own stream and refuse.  ``OneVsRest`` mixes class model by class model with its
base's rules; the models of label sets label by label (``olearn.multilabel.mixing``).
``ExpertAdvice`` (and ``Auto``), ``OnDrift`` and ``Scaled`` refuse two or more members
(their combination weights, drift statistics or feature statistics are a record of
their own stream: mix the learners they hold); one member is copied.
For every registered learner ``mix([m])`` equals ``m`` (tested).

Members that continued from one model (``base=``, iterative parameter mixing: every
shard learned from the last mix, ``olearn.distributed``): a member's counters and
sums then hold the base's share too, so ``"sum"`` mixes the changes, ``base + sum_m
(a_m - base)``, and ``"rss"`` the changes of the squares; ``t_`` and ``n_updates_``
likewise; the product of Gaussians takes the base's posterior as the prior counted
once (``P = P_base + sum_m c_m (P_m - P_base)``).  ``"mean"`` is unchanged (the
weighted mean of the changes added to the base is the weighted mean), as are
``"min"``, ``"max"`` and the others.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from ._internals import internals as core
from .protocol import CannotMixError

_M = TypeVar("_M")

__all__ = ["mix", "RULES"]

#: hyper-parameters members may differ in (they do not shape what was learned)
FREE_PARAMETERS = ("epochs", "shuffle", "random_state")


def mix(models: list[_M], weights: Sequence[float] | None = None,
        rules: Mapping[str, str] | None = None, base: Any = None) -> _M:
    """A new model combining ``models`` (fitted models of one learner) slot by slot.

    Parameters
    ----------
    models : list of fitted olearn models of one class, with the same
        hyper-parameters (``epochs``, ``shuffle``, ``random_state`` aside).
    weights : None (each member weighs the rows it learned, ``t_``) or one
        non-negative number per member (normalised to sum 1).
    rules : None, or ``{slot name: rule}`` to override the declared rules (for
        instance ``{"W": "precision", "S": "evidence"}``, the product of Gaussians,
        for a diagonal AROW classifier, which mixes by Jubatus's rule).

    Returns the mixed model; the members are not changed.  See the module docstring.
    """
    models = _members(models)
    lam, given = _weights(models, weights)
    if rules is not None and not isinstance(rules, dict):
        raise ValueError(f"rules must be a dict {{slot name: rule}}, got {rules!r}")
    rules = dict(rules or {})
    first = models[0]
    if getattr(first, "target", None) == "sequence":  # taggers: their tags aligned first
        return _mix_taggers(models, lam, given, rules, base)
    if getattr(first, "target", None) == "labels":  # label sets: olearn/multilabel/mixing.py
        from .multilabel.mixing import mix_label_sets
        return mix_label_sets(models, lam, given, rules,
                              None if base is None else _members([base])[0], mix)
    for rule in rules.values():
        _check_rule(rule)
    name = type(first).__name__
    from .multiclass.ovr import OneVsRest
    if isinstance(first, OneVsRest):
        if base is not None:
            base = _members([base])[0]
            if not isinstance(base, OneVsRest):
                raise ValueError(f"base is a {type(base).__name__}, the members are "
                                 "OneVsRest models")
        return _mix_one_vs_rest(models, lam, given, rules, base)
    if not hasattr(first, "slots") or not hasattr(first, "state_"):
        if len(models) == 1:
            return copy.deepcopy(first)
        if getattr(first, "target", None) == "none" and hasattr(first, "explicit_state"):
            first.explicit_state()  # (a model without a target says its own reason)
        raise CannotMixError(f"{name} cannot be mixed: {_wrapper_reason(first)}")
    if len(models) > 1 and core(first).mix_refusal:
        raise CannotMixError(f"{name} cannot be mixed: {core(first).mix_refusal}")
    if base is not None:
        base = _members([base])[0]
        if type(base) is not type(first):
            raise ValueError(f"base is a {type(base).__name__}, the members are "
                             f"{type(first).__name__} models")
    _check_settings(models + ([base] if base is not None else []))
    copies = [copy.deepcopy(m) for m in models + ([base] if base is not None else [])]
    _align_columns(copies)
    if hasattr(first, "classes_"):
        _align_classes(copies)
    if base is not None:
        base_copy = copies.pop()
    out = copies[0]
    if core(out).merge_supports is not None:  # a kernel expansion over a support set
        if len(copies) > 1:
            core(out).merge_supports(copies, lam)
        else:
            out.state_["alpha"] *= lam[0]
            core(out).state_changed()
    else:
        _mix_leaves(copies, lam, given, rules, None if base is None else base_copy)
    extra = 0 if base is None else len(models) - 1
    out.t_ = int(sum(m.t_ for m in models)) - extra * int(base.t_ if extra else 0)
    out.n_updates_ = int(sum(m.n_updates_ for m in models)) - \
        extra * int(base.n_updates_ if extra else 0)
    out.check_params()
    return out


# ---------------------------------------------------------------- checks
def _members(models):
    if hasattr(models, "get_params") or isinstance(models, (str, bytes)):
        raise ValueError("models must be a list of models, e.g. olearn.mix([a, b])")
    models = list(models)
    if not models:
        raise ValueError("models is empty: nothing to mix")
    first = models[0]
    for i, m in enumerate(models):
        if not hasattr(m, "get_params") or not (
                hasattr(m, "predict") or getattr(m, "target", None) == "none"):
            raise ValueError(f"member {i} ({type(m).__name__}) is not a learner olearn.mix "
                             "can mix (portfolio strategies, detectors and transformers "
                             "are not)")
        if type(m) is not type(first):
            raise ValueError(f"cannot mix a {type(first).__name__} with a "
                             f"{type(m).__name__}: members must be models of one class")
        fresh = core(m).is_fresh()
        if fresh if fresh is not None else not any(
                k.endswith("_") and not k.startswith("_") for k in vars(m)):
            raise ValueError(f"member {i} ({type(m).__name__}) is not fitted: nothing "
                             "to mix")
    return models


def _check_settings(models):
    mine = _settings(models[0])
    for i, m in enumerate(models[1:], 1):
        theirs = _settings(m)
        for key in sorted(set(mine) | set(theirs), key=str):
            if not _equal(mine.get(key), theirs.get(key)):
                raise ValueError(
                    f"cannot mix: member {i}'s {key}={theirs.get(key)!r} differs from "
                    f"member 0's {mine.get(key)!r} (the mixed model has one set of "
                    "hyper-parameters)")


def _equal(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays
        return a is b or (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                          and np.array_equal(a, b))


def _settings(model):
    """The hyper-parameters that must agree, nested models by class and settings."""
    out = {}
    for key, value in model.get_params(deep=False).items():
        if key in FREE_PARAMETERS:
            continue
        if hasattr(value, "get_params"):
            value = (type(value).__name__, _settings(value))
        out[key] = value
    return out


def _weights(models, weights):
    """(normalised weights, whether given)."""
    M = len(models)
    if weights is None:
        t = np.array([float(getattr(m, "t_", 0)) for m in models])
        total = t.sum()
        return (t / total if total > 0 else np.full(M, 1.0 / M)), False
    try:
        w = np.asarray(weights, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        w = None
    if w is None or w.shape != (M,) or not np.isfinite(w).all() or (w < 0).any() \
            or not w.sum() > 0:
        raise ValueError(f"weights must be {M} finite numbers >= 0, not all 0, got "
                         f"{weights!r}")
    return w / w.sum(), True


def _wrapper_reason(model):
    name = type(model).__name__
    if hasattr(model, "members_"):
        return ("its combination (the members' losses, weights and leader) is a record "
                "of its own stream; mix its members instead, "
                "olearn.mix([a.members_[j], b.members_[j]])")
    if hasattr(model, "detector"):
        return ("its drift detector's statistics are a record of its own stream; mix "
                "the learners it holds")
    if hasattr(model, "scaler_") or name == "Scaled":
        return ("its feature statistics and the learner fitted on them go together; "
                "mix the learners it holds")
    return "it is not an online learner with declared state (olearn.make(...))"


# ---------------------------------------------------------------- alignment
def _align_columns(copies):
    """Every copy on the same columns: the union of the vocabularies (dict-trained
    models), else the widest width."""
    vocabs = [getattr(c, "vocabulary_", None) for c in copies]
    if all(v is None for v in vocabs):
        width = max(int(c.n_features_in_) for c in copies)
        for c in copies:
            if int(c.n_features_in_) < width:
                core(c).widen(width)
        return
    if any(v is None for v in vocabs):
        raise ValueError("cannot mix a model trained on dict examples with one trained "
                         "on arrays (their columns cannot be matched by name)")
    from .io.dicts import Vocabulary
    names = list(vocabs[0].to_list())
    where = {n: i for i, n in enumerate(names)}
    for v in vocabs[1:]:
        for n in v.to_list():
            if n not in where:
                where[n] = len(names)
                names.append(n)
    for c in copies:
        b = int(c.fit_intercept)
        cols = np.array(list(range(b)) + [b + where[n] for n in c.vocabulary_.to_list()],
                        dtype=np.intp)
        d = b + len(names)
        if core(c).merge_supports is not None:
            st = c.state_
            n = int(st["ints"][0])
            used = st["sv_ptr"][n]
            st["sv_idx"][:used] = cols[st["sv_idx"][:used]]
        else:
            K = core(c).n_rows
            c.state_ = {s.name: _moved(c, s, c.state_[s.name], cols, K, d)
                        for s in c.slots}
        c.vocabulary_ = Vocabulary.from_list(names)
        c.n_features_in_ = len(names)
        c.__dict__.pop("_row_buf", None)
        core(c).state_changed()


def _moved(model, slot, arr, cols, K, d):
    """``arr`` with its ``"d"`` axes' entries moved to columns ``cols`` of a width ``d``
    array at the slot's initial value elsewhere."""
    if "d" not in slot.axes:
        return arr
    new = core(model).alloc(slot, K, d)
    src, dst = [], []
    for i, a in enumerate(slot.axes):
        if a == "d":
            src.append(np.arange(len(cols)))
            dst.append(cols)
        else:
            src.append(np.arange(arr.shape[i]))
            dst.append(np.arange(arr.shape[i]))
    new[np.ix_(*dst)] = arr[np.ix_(*src)]
    return new


def _align_classes(copies):
    """Every copy with the union of the labels, in one order."""
    union = list(copies[0].classes_)
    n_first = len(union)
    known = set(core(copies[0]).class_index)
    for c in copies[1:]:
        for label in c.classes_:
            if label not in known:
                known.add(label)
                union.append(label)
    for c in copies:
        missing = [label for label in union if label not in core(c).class_index]
        if missing:
            fixed = core(c).classes_fixed
            core(c).classes_fixed = False
            core(c).add_classes(missing, np.asarray(missing))
            core(c).classes_fixed = fixed
    order = [core(copies[0]).class_index[label] for label in union]
    labels = copies[0].classes_[order]
    for c in copies:
        perm = [core(c).class_index[label] for label in union]
        if perm != list(range(len(perm))):
            if core(c).n_rows == 1:  # binary, the two labels the other way round
                core(c).negate_signed()
            else:
                _permute_rows(c, perm)
            c.seen_ = np.ascontiguousarray(c.seen_[perm])
        c.classes_ = labels.copy()
        core(c).class_index = {label: i for i, label in enumerate(union)}
        core(c).state_changed()
    seen = np.zeros_like(copies[0].seen_)
    for c in copies:
        seen |= c.seen_
    out = copies[0]
    out.seen_ = seen
    if len(union) > n_first:  # classes given up front, and more from other members
        core(out).classes_fixed = False


def _mix_one_vs_rest(models, lam, given, rules, base=None):
    """One-vs-rest models: their class models mixed class by class (a class a member
    never met counts as a fresh class model, its initial state, at that member's
    weight), on the union of the labels in the first member's order.  ``base``: the
    model the members continued from, class model by class model likewise."""
    _check_settings(models + ([base] if base is not None else []))
    copies = [copy.deepcopy(m) for m in models + ([base] if base is not None else [])]
    vocabs = [c.vocabulary_ for c in copies]
    if any(v is not None for v in vocabs):
        if any(v != vocabs[0] for v in vocabs):
            raise CannotMixError("OneVsRest cannot be mixed: its members learned dict "
                                 "examples over different vocabularies")
    else:
        width = max(c.n_features_in_ for c in copies)
        for c in copies:
            c.widen(width)
    base_copy = copies.pop() if base is not None else None
    union = list(copies[0].classes_)
    for c in copies[1:]:
        union += [label for label in c.classes_
                  if label not in core(copies[0]).class_index and label not in union]
    out = copies[0]
    members = []
    for label in union:
        leaves = [c.estimators_[core(c).class_index[label]]
                  if label in core(c).class_index else None for c in copies]
        some = next(leaf for leaf in leaves if leaf is not None)
        leaves = [leaf if leaf is not None else _fresh_like(some) for leaf in leaves]
        root = None
        if base_copy is not None:
            index = core(base_copy).class_index
            root = base_copy.estimators_[index[label]] if label in index \
                else _fresh_like(some)
        extra = 0 if root is None else len(leaves) - 1
        t = sum(leaf.t_ for leaf in leaves) - extra * (root.t_ if extra else 0)
        n = sum(leaf.n_updates_ for leaf in leaves) - extra * (root.n_updates_ if extra else 0)
        _check_settings(leaves)
        _align_columns(leaves + ([root] if root is not None else []))
        mixed = _mix_leaves(leaves, lam, given, rules, root)
        mixed.t_, mixed.n_updates_ = int(t), int(n)
        mixed.check_params()
        members.append(mixed)
    labels = np.array(union, dtype=out.classes_.dtype) if len(union) == len(out.classes_) \
        else np.array(union)
    fixed = core(out).classes_fixed and len(union) == len(out.classes_)
    out.classes_ = labels
    core(out).class_index = {label: i for i, label in enumerate(union)}
    core(out).classes_fixed = fixed
    out.seen_ = np.ones(len(union), dtype=np.uint8)
    out.estimators_ = members
    out.t_ = int(sum(m.t_ for m in models)) - \
        (0 if base is None else (len(models) - 1) * int(base.t_))
    core(out).width = max(core(c).width for c in copies)
    return out


#: the rules a sequence tagger's arrays take (``olearn.structured``), and their defaults:
#: the weights by their mean, the averaged weights as the mean of every member's
#: iterates (``"iterates"``), AROW's variances by Jubatus's minimum
TAGGER_RULES = {"W": "mean", "T": "mean", "Wbar": "iterates", "Tbar": "iterates",
                "S": "min", "ST": "min"}


def _mix_taggers(models, lam, given, rules, base=None):
    """Sequence taggers (``olearn.structured.SequenceTagger``): each member's state on
    the union of the tags (the first member's order, then new tags; a tag a member never
    met holds its initial weights and variances there), made explicit (the raw weights
    ``W``, ``T``, and with averaging the averaged ones ``Wbar``, ``Tbar``), mixed by
    :data:`TAGGER_RULES` (``rules`` may name ``"mean"``, ``"min"``, ``"max"`` or
    ``"first"`` for any of them, and ``"iterates"`` for the averaged ones).  The raw
    weights are the members' weighted mean (iterative parameter mixing of the
    structured perceptron, McDonald et al. 2010: the next epoch starts from it).  The
    averaged weights (``"iterates"``) are the mean of every iterate of every member,
    each counted once, the base's too: ``(A_base + sum_m (A_m - A_base)) / t`` with
    ``A = t Wbar`` a model's sum of iterates; the mean of the members' averages instead
    (``"mean"``) weighs the iterates of the first epochs of an ipm run more and more
    (UD English EWT, 4 shards, 5 epochs of ipm, ``tagger-ap``: 92.85% against 93.80%
    UPOS accuracy).  The mixed model's averaging accumulators are written back so that
    it predicts with the mixed ``Wbar`` and learns on from the mixed ``W``.  ``t_`` and
    ``n_updates_`` add up (the base's counted once)."""
    if base is not None:
        base = _members([base])[0]
        if type(base) is not type(models[0]):
            raise ValueError(f"base is a {type(base).__name__}, the members are "
                             f"{type(models[0]).__name__} models")
    _check_settings(models + ([base] if base is not None else []))
    name = type(models[0]).__name__
    kinds = {m.input_ for m in models} - {None}
    if len(kinds) > 1:
        raise CannotMixError(f"{name} cannot be mixed: the members learned from different "
                             f"inputs ({', '.join(sorted(kinds))})")
    unknown = sorted(set(rules) - set(TAGGER_RULES))
    if unknown:
        raise ValueError(f"{name} has no array {unknown[0]!r} to mix (its arrays: "
                         f"{', '.join(TAGGER_RULES)})")
    for key, r in rules.items():
        if r not in ("mean", "min", "max", "first") and not (
                r == "iterates" and key in ("Wbar", "Tbar")):
            raise ValueError(f"{name}'s arrays mix by 'mean', 'min', 'max' or 'first' "
                             f"(the averaged ones also 'iterates'), not {r!r}")
    labels = list(models[0].classes_.tolist())
    known = set(labels)
    for m in models[1:]:
        for label in m.classes_.tolist():
            if label not in known:
                known.add(label)
                labels.append(label)
    states = [core(m).aligned_state(labels) for m in models]
    root = None if base is None else core(base).aligned_state(labels)
    ctx = _Context(models[0], states, lam, given)
    extra = 0 if base is None else len(models) - 1
    t = int(sum(m.t_ for m in models)) - extra * int(base.t_ if extra else 0)
    mixed = {}
    for key in states[0]:
        rule = rules.get(key, TAGGER_RULES[key])
        arrays = [st[key] for st in states]
        if rule != "iterates":
            mixed[key] = RULES[rule](arrays, ctx, None)
            continue
        before = 0.0 if root is None or key not in root else base.t_ * root[key]
        total = before + sum(m.t_ * a - before for m, a in zip(models, arrays))
        mixed[key] = total / t if t > 0 else _mean(arrays, ctx, None)
    n = int(sum(m.n_updates_ for m in models)) - extra * int(base.n_updates_ if extra else 0)
    from ._estimator import clone
    out = clone(models[0])   # (its settings; the state is the mix's)
    core(out).take_mixed(labels, mixed, t, n, next(iter(kinds), None))
    return out


def _fresh_like(model):
    """``model``'s class with its settings, at its width and labels, in its initial
    state (no round begun): what a class model is before its first row."""
    fresh = copy.deepcopy(model)
    core(fresh).start(model.n_features_in_)
    fresh.n_features_in_ = model.n_features_in_
    fresh.check_params()
    return fresh


def _permute_rows(model, perm):
    """The class rows in the order ``perm``: the support set's coefficients, a
    one-vs-rest model's blocks, a learner's per-class slots (``A``, whose row 0 holds
    the counters and other rows scratch, stays)."""
    st = model.state_
    if core(model).merge_supports is not None:
        st["alpha"] = np.ascontiguousarray(st["alpha"][perm])
        return
    for s in model.slots:
        if s.axes and s.axes[0] == "K" and (s.signed or "d" in s.axes):
            st[s.name] = np.ascontiguousarray(st[s.name][perm])


# ---------------------------------------------------------------- the rules
class _Context:
    """What a rule sees besides the arrays: the mixed model, the members' explicit
    states, the weights, and results shared between slots."""

    def __init__(self, model, states, lam, given, base=None):
        self.model, self.states, self.lam, self.given = model, states, lam, given
        self.base = base   # the explicit state the members continued from, or None
        self.column = None  # the column of a per-column rule being mixed
        self.memo = {}


def _mean(arrays, ctx, slot):
    out = arrays[0] * ctx.lam[0]
    for a, w in zip(arrays[1:], ctx.lam[1:]):
        out += w * a
    return out


def _sum(arrays, ctx, slot, base=None):
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    if base is not None and len(arrays) > 1:
        out -= (len(arrays) - 1) * base
    return out


def _based(ctx, slot, arrays):
    """The base's array for this slot (the same column of a per-column rule), or None."""
    if ctx.base is None:
        return None
    b = ctx.base[slot.name]
    return b[..., ctx.column] if ctx.column is not None else b


def _summed(arrays, ctx, slot):
    return _sum(arrays, ctx, slot, _based(ctx, slot, arrays))


def _rss(arrays, ctx, slot):
    if len(arrays) == 1:
        return arrays[0].copy()
    base = _based(ctx, slot, arrays)
    return np.sqrt(np.maximum(_sum([a * a for a in arrays], ctx, slot,
                                   None if base is None else base * base), 0.0))


def _max(arrays, ctx, slot):
    return np.maximum.reduce(arrays)


def _min(arrays, ctx, slot):
    return np.minimum.reduce(arrays)


def _first(arrays, ctx, slot):
    return arrays[0].copy()


def _reset(arrays, ctx, slot):
    return np.full_like(arrays[0], core(ctx.model).fill(slot))


def _same(arrays, ctx, slot):
    for a in arrays[1:]:
        if not np.array_equal(a, arrays[0]):
            raise ValueError(
                f"{type(ctx.model).__name__} cannot be mixed: the members' state "
                f"{slot.name!r} differs and must be shared (random features, landmarks: "
                "members started from one model or one random_state)")
    return arrays[0].copy()


def _precision(arrays, ctx, slot):
    return _gaussian(ctx)[0]


def _evidence(arrays, ctx, slot):
    return _gaussian(ctx)[1]


def _gaussian(ctx):
    """(mean, covariance) of the product of the members' Gaussians over the prior
    counted once (module docstring), memoised for the mean's and covariance's slots."""
    if "gaussian" in ctx.memo:
        return ctx.memo["gaussian"]
    states = ctx.states
    M = len(states)
    c = M * ctx.lam if ctx.given else np.ones(M)
    full = "L" in states[0]
    name = "L" if full else "S"
    if M == 1 and c[0] == 1.0:
        result = (states[0]["W"].copy(), states[0][name].copy())
    elif full:
        if ctx.base is not None:
            raise CannotMixError("a full-covariance Gaussian mix from a base is not "
                                 "supported: mix with base=None")
        result = _gaussian_full(states, c, 1.0 / core(ctx.model).sigma0)
    else:
        P0 = 1.0 / (core(ctx.model).sigma0 if ctx.base is None else ctx.base["S"])
        Pm = [1.0 / st["S"] for st in states]
        P = P0 + sum(cm * (p - P0) for cm, p in zip(c, Pm))
        P = np.maximum(P, np.minimum.reduce(Pm))
        W = sum(cm * p * st["W"] for cm, p, st in zip(c, Pm, states)) / P
        result = (W, 1.0 / P)
    ctx.memo["gaussian"] = result
    return result


def _gaussian_full(states, c, P0):
    W0, L0 = states[0]["W"], states[0]["L"]
    K, d = W0.shape
    W = np.empty_like(W0)
    L = np.empty_like(L0)
    eye = np.eye(d)
    for k in range(K):
        P = P0 * eye
        b = np.zeros(d)
        floor = np.inf
        for cm, st in zip(c, states):
            Lk = st["L"][k]
            vals, vecs = np.linalg.eigh(Lk @ Lk.T)
            vals = np.maximum(vals, vals.max() * 1e-300 if vals.max() > 0 else 1e-300)
            Pk = (vecs / vals) @ vecs.T
            floor = min(floor, 1.0 / vals.max())
            P += cm * (Pk - P0 * eye)
            b += cm * (Pk @ st["W"][k])
        vals, vecs = np.linalg.eigh(0.5 * (P + P.T))
        vals = np.maximum(vals, floor)
        W[k] = (vecs / vals) @ (vecs.T @ b)
        L[k] = vecs / np.sqrt(vals)  # L L' = P^-1
    return W, L


def _covariance_mean(arrays, ctx, slot):
    """The weighted mean of full covariances ``Sigma_m = L_m L_m'``, as a square root."""
    if len(arrays) == 1:
        return arrays[0].copy()
    sigma = _mean([np.matmul(L, np.swapaxes(L, -1, -2)) for L in arrays], ctx, slot)
    out = np.empty_like(arrays[0])
    for k in range(sigma.shape[0]):
        vals, vecs = np.linalg.eigh(0.5 * (sigma[k] + sigma[k].T))
        out[k] = vecs * np.sqrt(np.maximum(vals, 0.0))
    return out


#: the mixing rules by name (see the module docstring)
RULES = {"mean": _mean, "sum": _summed, "rss": _rss, "max": _max, "min": _min,
         "first": _first, "reset": _reset, "same": _same, "precision": _precision,
         "evidence": _evidence, "covariance_mean": _covariance_mean}


def _mean_by(arrays, ctx, slot, counts):
    """``"mean:N"``: the mean along the first axis weighted by the counts of slot
    ``N`` (and the members' weights, when given)."""
    n = [np.asarray(st[counts], dtype=np.float64) for st in ctx.states]
    g = len(arrays) * ctx.lam if ctx.given else np.ones(len(arrays))
    if any(c.shape != (arrays[0].shape[0],) for c in n):
        raise CannotMixError(f"{type(ctx.model).__name__} cannot be mixed: slot "
                             f"{slot.name!r} is weighted by {counts!r}, which does not "
                             "count its rows")
    total = sum(gm * c for gm, c in zip(g, n))
    tail = (1,) * (arrays[0].ndim - 1)
    out = sum((gm * c).reshape(-1, *tail) * a for gm, c, a in zip(g, n, arrays))
    safe = np.where(total > 0, total, 1.0).reshape(-1, *tail)
    return np.where((total > 0).reshape(-1, *tail), out / safe, arrays[0])


def _rule(r):
    """The function of rule ``r`` (a name of ``RULES``, or ``"mean:N"``)."""
    if isinstance(r, str) and r.startswith("mean:"):
        counts = r[5:]
        return lambda arrays, ctx, slot: _mean_by(arrays, ctx, slot, counts)
    return RULES[r]


def _check_rule(rule):
    for r in (rule if isinstance(rule, tuple) else (rule,)):
        if r not in RULES and not (isinstance(r, str) and r.startswith("mean:")
                                   and r[5:].isidentifier()):
            raise ValueError(f"unknown mixing rule {r!r}: one of {', '.join(RULES)}, "
                             "or 'mean:N' (weighted by the counts of slot N)")


def _apply(rule, slot, arrays, ctx):
    ctx.column = None
    if not isinstance(rule, tuple):
        return _rule(rule)(arrays, ctx, slot)
    if not arrays[0].ndim or arrays[0].shape[-1] != len(rule):
        raise ValueError(f"slot {slot.name!r}: {len(rule)} column rules for "
                         f"{arrays[0].shape[-1] if arrays[0].ndim else 0} columns")
    out = np.empty_like(arrays[0])
    for j, r in enumerate(rule):
        ctx.column = j
        out[..., j] = _rule(r)([a[..., j] for a in arrays], ctx, slot)
    ctx.column = None
    return out


def _explicit(leaf):
    return core(leaf).explicit_state()


def _mix_leaves(leaves, lam, given, rules, base=None):
    """Mix learners with declared slots (private copies: their states are made
    explicit in place); the first becomes the mixed model and is returned.  ``base``:
    the (aligned copy of the) model the members continued from, or None."""
    states = [_explicit(leaf) for leaf in leaves]
    base_state = None if base is None else _explicit(base)
    out = leaves[0]
    if core(out).before_mix is not None:
        core(out).before_mix(states)
    ctx = _Context(out, states, lam, given, base_state)
    name = type(out).__name__
    mixed = {}
    for slot in out.slots:
        arrays = [st[slot.name] for st in states]
        shapes = sorted({a.shape for a in arrays})
        if len(shapes) > 1:
            raise CannotMixError(f"{name} cannot be mixed: the members' state {slot.name!r} "
                             f"has shapes {shapes} (a setting that shapes the state, such "
                             "as the covariance layout, differs)")
        _check_rule(rules.get(slot.name, slot.mix))
        mixed[slot.name] = np.ascontiguousarray(
            _apply(rules.get(slot.name, slot.mix), slot, arrays, ctx), dtype=np.float64)
    out.state_ = mixed
    if core(out).after_mix is not None:
        core(out).after_mix()
    core(out).state_changed()
    return out
