"""The base's internal interface: what the modules that drive several models at once
(``olearn.mixing``, which combines members' states, ``olearn.fused``, which runs a
grid's members in one compiled pass, and the wrappers, which load and drive their
members) need of a model beyond the public protocol.

A model's extension points are its public hooks (``olearn.protocol``); these members are
not for extending a model.  They are the base's own steps, named here once so that the
drivers reach them through one documented door, ``internals(model)``, and never
through a model's private names: when the base changes one of them, this file is where
the drivers' side changes too.

``internals(model)`` returns an :class:`Internals` view (it holds nothing but the
model).  Every member forwards to the base (``olearn.base.OnlineLearner`` and its label
and state mixins) or, for the optional hooks a family may define, gives ``None`` when
the model has none.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Internals", "internals", "runs_base_pass"]


class Internals:
    """The internal interface of one model (see the module docstring)."""

    __slots__ = ("model",)

    def __init__(self, model: Any) -> None:
        self.model = model

    # ------------------------------------------------------------ state
    def state_changed(self) -> None:
        """The state arrays were replaced: drop what was derived from the old ones (the
        one-example call, stacked views)."""
        self.model._state_changed()

    def alloc(self, slot: Any, K: int, d: int) -> Any:
        """A fresh array of ``slot`` for ``K`` class rows and width ``d``, at its
        initial value."""
        return self.model._alloc(slot, K, d)

    def fill(self, slot: Any) -> float:
        """The initial value of ``slot`` (a number, or the hyper-parameter it names)."""
        return self.model._fill(slot)

    def start(self, n_features: Any = None, vocabulary: Any = None) -> None:
        """Begin afresh at ``n_features`` columns (a wrapper: with no argument; a
        one-vs-rest model: with its ``vocabulary`` of feature names, or None)."""
        if n_features is None:
            self.model._start()
        elif vocabulary is None:
            self.model._start(n_features)
        else:
            self.model._start(n_features, vocabulary)

    def is_fresh(self) -> bool | None:
        """Whether the model has no state yet (nothing learned); None for an object
        without the base's notion of it."""
        hook = getattr(self.model, "_is_fresh", None)
        return None if hook is None else bool(hook())

    def widen(self, width: int) -> Any:
        """Take ``width`` columns from now on (the state grown in place)."""
        return self.model._widen(width)

    @property
    def n_rows(self) -> int:
        """The number of class rows of the state (1 for a binary or one-output model)."""
        return int(self.model._n_rows)

    @property
    def width(self) -> int:
        """A one-vs-rest model's width (its members')."""
        return int(self.model._width)

    @width.setter
    def width(self, value: int) -> None:
        self.model._width = value

    def check_base(self) -> Any:
        """A one-vs-rest model's ``base``, checked (a binary olearn classifier)."""
        return self.model._base()

    # ------------------------------------------------------------ labels
    def n_classes(self) -> int:
        """The number of classes registered."""
        return int(self.model._n_classes())

    def import_labels(self, meta: dict, arrays: dict) -> None:
        """The classes a saved state names (``meta``'s and ``arrays``' label entries),
        checked and registered, as loading a model takes them."""
        self.model._import_labels(meta, arrays)

    @property
    def class_index(self) -> dict:
        """label -> class row."""
        return self.model._class_index

    @class_index.setter
    def class_index(self, value: dict) -> None:
        self.model._class_index = value

    @property
    def classes_fixed(self) -> bool:
        """Whether the classes were given up front (``classes=``), so that a new label
        is an error rather than a new class."""
        return bool(self.model.__dict__.get("_classes_fixed", False))

    @classes_fixed.setter
    def classes_fixed(self, value: bool) -> None:
        self.model._classes_fixed = value

    def add_classes(self, labels: list, values: Any) -> None:
        """New class rows for ``labels`` (the state grown as a new label would grow it)."""
        self.model._add_classes(labels, values)

    def negate_signed(self) -> None:
        """A binary model's two labels the other way round: its signed slots negated."""
        self.model._negate_signed()

    def prepare_labels(self, y: Any, classes: Any, contract: Any) -> Any:
        """The batch's labels checked and registered (new classes grown)."""
        return self.model._prepare_labels(y, classes, contract)

    def kernel_labels(self, y: Any) -> Any:
        """Registered labels as the compiled rule reads them (+-1, class rows, values)."""
        return self.model._kernel_labels(y)

    def fit_classes(self, y: Any) -> Any:
        """The classes of ``fit``'s labels."""
        return self.model._fit_classes(y)

    def task(self) -> int:
        """The driver's task of the model now (binary, multiclass, regression, ...)."""
        return self.model._task()

    # ------------------------------------------------------------ a pass
    def atomic(self) -> Any:
        """A context in which a failing pass restores the state as before it."""
        return self.model._atomic()

    @property
    def snapshot(self) -> Any:
        """The model's ``atomic`` (called, a context that restores the state when what
        runs in it fails), or None for a model without the base's snapshot."""
        return getattr(self.model, "_atomic", None)

    def validate(self, X: Any, y: Any, sample_weight: Any, reset: bool) -> Any:
        """``(X, y, sample_weight)`` checked as ``partial_fit`` checks them."""
        return self.model._validate(X, y, sample_weight, reset=reset)

    def validate_X(self, X: Any, reset: bool) -> Any:
        """``X`` checked (feature names and count) as the model's own calls check it."""
        return self.model._validate_X(X, reset=reset)

    def run(self, X: Any, y: Any, sample_weight: Any) -> Any:
        """The model's own compiled pass over validated rows and kernel labels."""
        return self.model._run(X, y, sample_weight)

    def progressive(self, X: Any, y: Any, classes: Any, sample_weight: Any,
                    return_scores: Any) -> Any:
        """``predict_learn``'s pass: ``(scores, predictions)`` before each row."""
        return self.model._progressive(X, y, classes, sample_weight, return_scores)

    def progressive_output(self, scores: Any, pred: Any, return_scores: Any) -> Any:
        """``predict_learn``'s answer from the pass's scores and predictions."""
        return self.model._progressive_output(scores, pred, return_scores)

    def packed_params(self) -> Any:
        """The hyper-parameters the compiled rule reads, packed in declaration order."""
        return self.model._packed_params()

    def constant(self) -> float:
        """The value of the constant (intercept) feature."""
        return self.model._constant()

    def diverged(self, row: int, where: str) -> Exception:
        """The ``DivergenceError`` naming ``row`` of a pass (to raise)."""
        return self.model._diverged(row, where)

    def weights_finite(self) -> bool:
        """Whether every state array is finite."""
        return bool(self.model._weights_finite())

    def check_finite(self, scores: Any) -> None:
        """Raise the divergence error when a pass's scores or state are not finite."""
        self.model._check_finite(scores)

    # ------------------------------------------------------------ optional hooks
    @property
    def mix_refusal(self) -> str | None:
        """Why this model's members cannot be mixed (a family's reason), or None."""
        return getattr(self.model, "_mix_refusal", None)

    @property
    def merge_supports(self) -> Any:
        """A kernel expansion's merge of its members' support sets, or None."""
        return getattr(self.model, "_merge_supports", None)

    @property
    def before_mix(self) -> Any:
        """The family's hook run on the members' states before the slots are mixed
        (k-means renumbers clusters), or None."""
        return getattr(self.model, "_before_mix", None)

    @property
    def after_mix(self) -> Any:
        """The family's hook run on the mixed model, or None."""
        return getattr(self.model, "_after_mix", None)

    def explicit_state(self) -> Any:
        """The state with its lazy parts made explicit, in place (the family's
        ``_explicit_state``), else the state as it is."""
        hook = getattr(self.model, "_explicit_state", None)
        return hook() if hook is not None else self.model.state_

    def aligned_state(self, labels: list) -> Any:
        """A sequence tagger's arrays on the tags ``labels`` (a tag it never met at its
        initial values), its averaged weights made explicit."""
        return self.model._aligned_state(labels)

    def take_mixed(self, labels: list, mixed: Any, t: int, n_updates: int,
                   kind: Any) -> None:
        """A fresh sequence tagger takes the mixed arrays (``aligned_state``'s names) on
        the tags ``labels``, at round ``t`` with ``n_updates`` updates, its input ``kind``."""
        self.model._take_mixed(labels, mixed, t, n_updates, kind)

    @property
    def new_state(self) -> Any:
        """A kernel learner's fresh start, called with ``(n_rows, width)``: its
        ``state_`` for ``n_rows`` class rows and ``width`` columns, as a first row would
        start it; None for a model without one."""
        return getattr(self.model, "_new_state", None)

    @property
    def tune_grid(self) -> dict | None:
        """The learner class's declared search grid (``{parameter: values}``, a value
        None dropping a default grid's parameter), or None."""
        return getattr(type(self.model), "_tune_grid", None)

    # ------------------------------------------------------------ save's hooks
    @property
    def saved_pipeline(self) -> Any:
        """A model that saves with its own input pipeline (a ``TextPipeline``): the
        call giving ``(learner, pipeline)`` to save; else None."""
        return getattr(self.model, "_saved_pipeline", None)

    @property
    def saved_form(self) -> Any:
        """A meta-model: the call giving what its file holds (``olearn._nested``'s
        ``Nested``); else None."""
        return getattr(self.model, "_saved_form", None)

    @property
    def saves_infinity(self) -> bool:
        """Whether the model's state may hold infinity (a drift detector's running
        minimum starts there), which ``save`` then accepts (NaN never)."""
        return bool(getattr(self.model, "_saves_infinity", False))

    @property
    def sigma0(self) -> float:
        """A Gaussian learner's prior variance (the covariance's initial diagonal)."""
        return float(self.model._sigma0)


def internals(model: Any) -> Internals:
    """The base's internal interface of ``model`` (module docstring)."""
    return Internals(model)


def runs_base_pass(cls: type, base: type) -> bool:
    """Whether ``cls`` runs ``base``'s own batch pass (its ``_run``, ``_partial`` and
    ``_pass_arrays`` not overridden), so that a fused pass may stand in for it."""
    return all(getattr(cls, name) is getattr(base, name)
               for name in ("_run", "_partial", "_pass_arrays"))
