"""Capability tags: what a model can do, declared on its class, asked as ``olearn.tags(x)``.

A class declares the tags that differ from its bases' in a class attribute
``_capabilities = {"linear": True}`` (not ``_tags``: River's tools read that name as
River's own set of tag strings, ``olearn._river``); :func:`tags` merges the declarations
along the method resolution order (a subclass overrides its bases), on top of the defaults of
:class:`Tags`.  A model whose tags depend on its parameters (a one-vs-rest over its
``base``, online feature selection's ``partial``) answers for an instance in
``_instance_tags()`` (a dict of the tags that change); ``probabilistic`` is, for a model,
whether its ``predict_proba`` exists (OGD has one for the logistic loss only).  The
registry (a learner's kind) and the generic tests ask these tags, never module names or
tables of learner names.
"""
from dataclasses import dataclass, fields
from typing import Any

#: what a model learns from, declared once on its class (``target = "none"``):
#: ``"none"`` (rows alone: clustering, decomposition, anomaly detection, drift
#: detectors), ``"value"`` (a real number: regression), ``"label"`` (one class label),
#: ``"labels"`` (a set of labels: multilabel, ``olearn.multilabel``, whose one module
#: ``_labelsets`` reads such targets) and ``"sequence"`` (a sequence of tags:
#: ``olearn.structured``).
TARGETS = ("none", "value", "label", "labels", "sequence")


def target_of(model_or_class: Any) -> str | None:
    """The declared ``target`` of a model or model class (one of :data:`TARGETS`), or
    None for a class that declares none; an undeclared value is an error naming it."""
    target = getattr(model_or_class, "target", None)
    if target is not None and target not in TARGETS:
        name = getattr(model_or_class, "__name__", type(model_or_class).__name__)
        raise TypeError(f"{name}.target = {target!r}: one of {', '.join(TARGETS)}")
    return target


@dataclass(frozen=True)
class Tags:
    """The capability tags of an olearn model, with their defaults."""

    #: "classifier", "regressor" (from the classifier and regressor mixins), or None
    task: str = None
    #: what the model learns from: the class's ``target`` declaration (``"none"``,
    #: ``"value"``, ``"label"``, ...: ``olearn.protocol.TARGETS``), None if it declares none
    target: str = None
    #: the model is weights over the input features (``coef_``, ``intercept_``), learned
    #: by a declared rule that a reduction (``OneVsRest``) can reuse
    linear: bool = False
    #: how a classifier handles K > 2 classes: "native" (its own K rows and rule),
    #: "ovr" (a one-vs-rest reduction), "members" (an ensemble of other classifiers)
    multiclass: str = None
    #: None, "support" (a support set of past examples, maybe on a budget) or "features"
    #: (explicit random or Nystrom features)
    kernel: str = None
    #: ``predict_proba`` exists (for some parameters: ``tags(model)`` says for a model)
    probabilistic: bool = False
    #: takes SciPy CSR rows as they are (no densifying)
    sparse_input: bool = True
    #: the one-example calls: ``learn_one``, ``predict_one``, ``predict_learn_one``
    one_example: bool = True
    #: the model's weights are a closed form of accumulated sums (dual averaging, FTRL),
    #: not updated in place
    closed_form: bool = False
    #: why the model depends on the input width itself ("" when it does not: a stream
    #: that widens as it is read then gives the model the final width would give)
    width_dependent: str = ""
    #: the model holds other models (parameters or members) and delegates to them
    wrapper: bool = False


_NAMES = frozenset(f.name for f in fields(Tags))


def declared(cls):
    """The tags ``cls`` declares with its bases, merged (``{}`` where nothing is)."""
    merged = {}
    for klass in reversed(cls.__mro__):
        own = klass.__dict__.get("_capabilities")
        if own:
            unknown = set(own) - _NAMES
            if unknown:
                raise TypeError(f"{klass.__qualname__}._capabilities: unknown tag "
                                f"{sorted(unknown)[0]!r} (known: {', '.join(sorted(_NAMES))})")
            merged.update(own)
    return merged


def _task_of_class(cls):
    from ._estimator import ClassifierMixin, RegressorMixin
    return "classifier" if issubclass(cls, ClassifierMixin) else \
        "regressor" if issubclass(cls, RegressorMixin) else None


def tags(model_or_class):
    """The :class:`Tags` of an olearn model or model class."""
    if isinstance(model_or_class, type):
        cls, model = model_or_class, None
    else:
        cls, model = type(model_or_class), model_or_class
    merged = {"task": _task_of_class(cls), **declared(cls), "target": target_of(cls)}
    if model is not None:
        kind = getattr(model, "_estimator_kind", None)
        if kind is not None:
            merged["task"] = kind()
        own = getattr(model, "_instance_tags", None)
        if own is not None:
            merged.update(own())
        if merged.get("probabilistic"):
            merged["probabilistic"] = hasattr(model, "predict_proba")
    if merged.get("task") == "classifier" and merged.get("multiclass") is None:
        merged["multiclass"] = "native"
    if merged.get("task") != "classifier":
        merged["multiclass"] = None
    return Tags(**merged)


def expected_failed_checks(model_or_class):
    """scikit-learn's estimator checks that ``model_or_class`` is declared to fail, name ->
    why: the ``_expected_failed_checks`` of its class and bases, merged (a subclass's
    reason wins).  Every model of the protocol declares the two sample-weight
    equivalence checks (``olearn.protocol.Progressive``: an online step scaled by a weight
    is not the same as the row repeated, as scikit-learn's own SGD declares); learners
    add their own; a subclass's ``None`` removes a base's entry (a check it passes), and a
    class whose failures depend on its parameters declares them as a property (read on
    the instance, or on the class's default instance).  scikit-learn 1.9's tags have no
    field for this: pass it as
    ``check_estimator(model, expected_failed_checks=olearn.expected_failed_checks(model))``
    (or to ``parametrize_with_checks``)."""
    cls = model_or_class if isinstance(model_or_class, type) else type(model_or_class)
    merged = {}
    for member in getattr(model_or_class, "held_learners", lambda: ())():
        merged.update(expected_failed_checks(member))  # (a wrapper: its learners' too)
    for klass in reversed(cls.__mro__):
        own = klass.__dict__.get("_expected_failed_checks")
        if isinstance(own, property):
            own = own.fget(cls() if model_or_class is cls else model_or_class)
        merged.update(own or {})
    return {name: why for name, why in merged.items() if why is not None}
