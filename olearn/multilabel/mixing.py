"""``olearn.mix`` of models of label sets (called by :func:`olearn.mixing.mix`, which
checks the members and computes their weights first).

The labels are aligned first: the mixed model knows the union of the members' labels
(``classes_`` sorted, as every multilabel model keeps it).  Then

* :class:`~olearn.multilabel.BinaryRelevance`: label by label, the binary models of the
  members that know the label are mixed by ``olearn.mix`` with their own rules (the
  binary learner's declared state: PA's mean weights, AdaGrad's sums, ...); given
  ``weights`` are those members' weights, renormalised; without, each binary model
  weighs the rows it learned (a member that never met a label has nothing to say about
  it, and takes no part in its mix).  ``base`` (iterative parameter mixing): its model
  of the label, where it has one.
* the label-ranking learners (:class:`~olearn.multilabel.MultilabelPA`,
  :class:`~olearn.multilabel.MultilabelPerceptron`): the weight rows (the threshold's
  and each label's, on the union of the columns: dict vocabularies joined in the first
  member's order, array widths widened) are the members' weighted mean, each member
  weighing the rows it learned (``t_``) or its given weight; a label a member never met
  has its initial row there, zeros, as it would have had the label arrived.  The mean
  of the changes from a ``base`` is the mean, so ``base`` changes only the counters.
  :class:`~olearn.multilabel.MultilabelAROW`'s variances are the least of the members'
  (as ``olearn.mix`` takes a diagonal AROW's, Jubatus's rule; 1, the initial variance,
  where a member lacks the label or the column).
* :class:`~olearn.multilabel.ClassifierChain` of one member is copied; of several,
  :class:`~olearn.protocol.CannotMixError` unless the chains hold the same labels in
  the same order over the same width (the model of position p reads the labels before
  it as extra columns after x's: members whose chains differ give those columns
  different meanings).

``t_`` and the steps add up (the base's counted once), and so do the counts of a
reduction's calibrated cut (``threshold="calibrated"`` or ``"scut"``: sums over the rows
each member judged, label by label for ``"scut"``), as if one model had judged them all.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

from .._vocabulary import Vocabulary
from ..protocol import CannotMixError

__all__ = ["mix_label_sets"]


def _union(models):
    every = set()
    for m in models:
        every |= set(m.classes_.tolist())
    kinds = {type(v) for v in every}
    if len(kinds) > 1:
        raise CannotMixError(f"{type(models[0]).__name__} cannot be mixed: the members' "
                             "labels mix integers and strings")
    return np.array(sorted(every))


def _same_settings(models):
    mine = models[0].get_params(deep=False)
    for i, m in enumerate(models[1:], 1):
        theirs = m.get_params(deep=False)
        for key in sorted(mine):
            a, b = mine[key], theirs.get(key)
            if hasattr(a, "get_params") and hasattr(b, "get_params"):
                same = type(a) is type(b) and a.get_params() == b.get_params()
            else:
                same = a == b
            if not same:
                raise ValueError(f"cannot mix: member {i}'s {key}={b!r} differs from member "
                                 f"0's {a!r} (the mixed model has one set of "
                                 "hyper-parameters)")


def mix_label_sets(models: list[Any], lam: np.ndarray, given: bool,
                   rules: dict[str, str], base: Any, mix: Callable[..., Any]) -> Any:
    """The mix of fitted multilabel ``models`` (see the module docstring); ``lam`` their
    normalised weights (``given``: by the caller), ``mix`` olearn's, for the members."""
    from .binary_relevance import BinaryRelevance
    from .chain import ClassifierChain
    from ._native import RankingModel
    _same_settings(models + ([base] if base is not None else []))
    if base is not None and type(base) is not type(models[0]):
        raise ValueError(f"base is a {type(base).__name__}, the members are "
                         f"{type(models[0]).__name__} models")
    first = models[0]
    if isinstance(first, ClassifierChain):
        return _chain(models, lam, given, rules, base, mix)
    if isinstance(first, BinaryRelevance):
        return _per_label(models, lam, given, rules, base, mix)
    if isinstance(first, RankingModel):
        return _ranking(models, lam, rules, base)
    if len(models) == 1:
        return copy.deepcopy(first)
    raise CannotMixError(f"{type(first).__name__} cannot be mixed: no rule for its state")


def _counted(models, base, key):
    extra = 0 if base is None else len(models) - 1
    return int(sum(getattr(m, key) for m in models)) - \
        extra * int(getattr(base, key) if extra else 0)


def _per_label(models, lam, given, rules, base, mix):
    union = _union(models + ([base] if base is not None else []))
    members = []
    for label in union.tolist():
        leaves, weights = [], []
        for m, w in zip(models, lam):
            known = m.classes_.tolist()
            if label in known:
                leaves.append(m.models_[known.index(label)])
                weights.append(w)
        root = None
        if base is not None and label in base.classes_.tolist():
            root = base.models_[base.classes_.tolist().index(label)]
        if not weights or sum(weights) <= 0:
            weights = [1.0] * len(leaves)
        members.append(mix(leaves, weights=weights if given else None,
                           rules=rules or None, base=root))
    out = copy.deepcopy(models[0])
    out.classes_ = union
    out.models_ = members
    out.t_ = _counted(models, base, "t_")
    if out.threshold != "fixed":
        out.cut_counts_ = _cut_counts(models, base, union)
    widths = [m.__dict__["n_features_in_"] for m in models if "n_features_in_" in m.__dict__]
    if widths:
        out.n_features_in_ = max(widths)
    return out


def _cut_counts(models, base, union):
    """The calibrated cut's counts of the mix: the members' summed (each label's where
    a member knows it), the base's counted once."""
    extra = 0 if base is None else len(models) - 1
    first = models[0].cut_counts_
    if first.ndim == 1:
        total = sum(m.cut_counts_ for m in models)
        return total - extra * base.cut_counts_ if extra else total
    out = np.zeros((len(union),) + first.shape[1:])
    where = {v: j for j, v in enumerate(union.tolist())}
    for m in models:
        out[[where[v] for v in m.classes_.tolist()]] += m.cut_counts_
    if extra:
        out[[where[v] for v in base.classes_.tolist()]] -= extra * base.cut_counts_
    return out


def _chain(models, lam, given, rules, base, mix):
    if len(models) == 1 and base is None:
        return copy.deepcopy(models[0])
    others = models[1:] + ([base] if base is not None else [])
    for m in others:
        if m.order_ != models[0].order_:
            raise CannotMixError(
                "ClassifierChain cannot be mixed: the members' chains differ (order "
                f"{models[0].order_[:6]} against {m.order_[:6]}); the model of each "
                "position reads the labels before it, so only chains of one order mix "
                "(give order=[...] to every member)")
        if m.__dict__.get("n_features_in_") != models[0].__dict__.get("n_features_in_"):
            raise CannotMixError(
                "ClassifierChain cannot be mixed: the members learned different widths "
                "(the labels before each position are columns after x's)")
    return _per_label(models, lam, given, rules, base, mix)


def _columns(models, attr="W_", fill=0.0):
    """Each member's ``attr`` (W_, or AROW's V_) on the union of the columns (a list;
    a column a member lacks: ``fill``), and the union's vocabulary (None for
    array-trained members)."""
    vocabs = [m.vocabulary_ for m in models]
    if all(v is None for v in vocabs):
        width = max(getattr(m, attr).shape[1] for m in models)
        return [np.hstack([getattr(m, attr), np.full((getattr(m, attr).shape[0],
                                                     width - getattr(m, attr).shape[1]),
                                                    fill)])
                for m in models], None
    if any(v is None for v in vocabs):
        raise ValueError("cannot mix a model trained on dict examples with one trained "
                         "on arrays")
    names = list(vocabs[0].to_list())
    seen = set(names)
    for v in vocabs[1:]:
        for n in v.to_list():
            if n not in seen:
                seen.add(n)
                names.append(n)
    place = {n: j for j, n in enumerate(names)}
    out = []
    for m, v in zip(models, vocabs):
        A = getattr(m, attr)
        W = np.full((A.shape[0], len(names) + 1), fill)
        W[:, 0] = A[:, 0]
        cols = [place[n] + 1 for n in v.to_list()]
        W[:, cols] = A[:, 1:len(cols) + 1]
        out.append(W)
    return out, Vocabulary.from_list(names)


def _ranking(models, lam, rules, base):
    if rules and set(rules) - {"W"} or any(r != "mean" for r in (rules or {}).values()):
        raise ValueError(f"{type(models[0]).__name__} mixes its weight rows W by 'mean' "
                         f"only, got rules={rules!r}")
    union = _union(models)
    Ws, vocabulary = _columns(models)
    W = np.zeros((len(union) + 1, Ws[0].shape[1]))
    index = {v: j + 1 for j, v in enumerate(union.tolist())}
    for m, Wm, w in zip(models, Ws, lam):
        rows = [0] + [index[v] for v in m.classes_.tolist()]
        W[rows] += w * Wm
    out = copy.deepcopy(models[0])
    out.classes_ = union
    out.W_ = W
    if "V_" in out.__dict__:  # (AROW's variances: Jubatus's rule, the least of each)
        V = np.ones_like(W)
        for m, Vm in zip(models, _columns(models, "V_", 1.0)[0]):
            rows = [0] + [index[v] for v in m.classes_.tolist()]
            V[rows] = np.minimum(V[rows], Vm)
        out.V_ = V
    out.vocabulary_ = vocabulary
    if vocabulary is not None:
        out.n_features_in_ = len(vocabulary)
    elif "n_features_in_" in out.__dict__:
        out.n_features_in_ = W.shape[1] - 1
    out.t_ = _counted(models, base, "t_")
    out.steps_ = _counted(models, base, "steps_")
    return out
