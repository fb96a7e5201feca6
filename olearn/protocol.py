"""The model protocol: what every olearn model of every family offers, in one place.

A *model* is an object with the calls of :class:`Model` below.  Learners of every
family (linear, second-order, sparse, kernel expansions, feature maps, networks) get
them from the lean base :class:`olearn.base.OnlineLearner` (with
``OnlineClassifier`` / ``OnlineRegressor``); wrappers (``OneVsRest``, ``Scaled``,
``OnDrift``, ``ExpertAdvice``) offer them over the models they hold.

Calls
-----
batch
    ``fit(X, y, sample_weight=None)`` (start afresh, ``epochs`` passes),
    ``partial_fit(X, y, classes=None, sample_weight=None)`` (go on, rows in order),
    ``predict_learn(X, y, return_scores=False, sample_weight=None, classes=None)`` (the
    progressive protocol: each row's prediction, or score, made before its update),
    ``predict(X)``; classifiers also ``decision_function(X)`` and, where tagged,
    ``predict_proba(X)``.  A batch call is atomic: if it fails the model is as before.
one example
    ``learn_one(x, y, sample_weight=1.0)``, ``predict_one(x)``,
    ``predict_learn_one(x, y, sample_weight=1.0)`` (``predict_one(x)``'s answer, then
    ``learn_one``; the learners take ``return_scores=True`` for the pre-update scores,
    as ``predict_learn``'s), classifiers where tagged ``predict_proba_one(x)``.  ``x`` is a dict
    ``{feature: value}`` (the vocabulary grows) or a 1-D array.
state
    ``export_state() -> (meta, arrays)`` (JSON-able metadata, named numpy arrays) and
    ``cls.from_state(params, meta, arrays)`` (every part checked before a model
    exists); ``save(path)`` writes them (``olearn.persistence``, no pickle).  Round 2's
    ``_export`` / ``_import`` remain as thin aliases.
widening
    ``widen(n_features) -> width or None``: take more columns from now on (a stream
    whose width grows), keeping what was learned.
mixing
    ``explicit_state()``: the state with its lazy parts made explicit (a scale folded
    into the weights, averaged weights formed, owed shrinks settled), name -> array, a
    copy: what ``olearn.mix(models, weights)`` combines slot by slot, by the rule each
    :class:`Slot` declares (``mix=``: weighted mean by default, sums for counters and
    dual-averaging statistics, Jubatus's minimum for diagonal covariances, ...; see
    :mod:`olearn.mixing`).  Every learner with slots offers it; a wrapper whose state
    belongs to its own stream (``Scaled``, ``OnDrift``, ``ExpertAdvice``) inherits
    :class:`NotMixable`, whose ``explicit_state`` raises :class:`CannotMixError` saying
    why.
fitted
    ``__sklearn_is_fitted__()`` (scikit-learn's question): whether the model has
    learned, so that its state can be exported and it can predict.
River
    River's evaluation, pipelines, ensembles and metrics take every model
    (:mod:`olearn._river`: ``_supervised``, ``clone``, its kind for River's
    ``isinstance``, ``learn_one(x, y, w=...)``), River never imported by olearn.
tags
    the class-level capability tags, read through ``olearn.tags(model)`` (the registry
    owns them); the protocol's generic tests ask the tags, never attribute names.

Extension points of the base
----------------------------
A new model derives from ``OnlineClassifier`` or ``OnlineRegressor`` (with a family
base where one fits: ``olearn.linear.LinearModel`` for a linear rule,
:class:`olearn.feature_map.FeatureMapModel` for scores ``W z(x)`` over a feature map)
and writes only these public names, never a private hook:

``slots``
    a tuple of :class:`Slot` (name, axes over ``"K"`` class rows, ``"d"`` weights with
    the constant feature, or ints; initial value): the state, allocated, grown,
    converted and saved by the base.  The first slot with a ``"K"`` axis gives the
    number of class rows, the first with a ``"d"`` axis the model's width.  ``signed``
    slots are negated when the binary labels swap sides and halve into the first two
    class rows at a third class (right for a layer whose output is linear in them).
``kernels``
    ``declare(name, params=..., score=..., begin=..., binary=..., multiclass=...,
    regression=..., scratch=...)``: the compiled rule and a pure score (numba,
    ``@njit(inline="always")``; the score writes the K scores and changes no state but
    the ``scratch`` slots it fills with the row's features), one entry point per task
    made by the base's driver.
``kernel_params()``, ``check_params()``
    the hyper-parameters the rules read, ``{name: number}`` by the names the
    declaration gives (``declare(..., params=("eta",))``; the rules read ``params.eta``;
    a missing or unknown name is an error naming the model), and their validation
    (``olearn._validation`` checkers; raise ``ValueError``), once per call.
``init_state(name, array, start)``
    fill what a constant cannot (random initial weights): called with each slot's
    fresh array (``start = 0``) and, when the width grows, the grown array and the
    first new index along its ``"d"`` axis.
``batch_scores(X)``
    the (n, K) scores of validated rows, changing nothing: what ``decision_function``,
    ``predict`` and ``predict_one`` use (the family bases provide it).

Everything else (labels, class growth, vocabulary growth, atomic batches, divergence,
state export and import, the scikit-learn contract) comes from the base.

Targets
-------
A model class declares what it learns from in one class attribute, ``target``
(:data:`TARGETS`): ``"none"`` (rows alone), ``"value"`` (regression), ``"label"``
(classification); ``"labels"`` (multilabel: ``olearn.multilabel``, whose base, on the
wrapper base, reads label sets through one module, ``olearn.multilabel._labelsets``);
``"sequence"`` (structured output: a tag per token, below).  The base
reads it: validation takes no ``y``
for ``"none"`` (and ignores one, as scikit-learn's clusterers do), the one-example
calls take no label, the driver runs the ``UNLABELLED`` task (``declare(...,
unlabelled=rule)``: the same rule signature, ``y`` zeros and unread), and
``olearn.tags(model).target`` reports it to the generic checks
(``tests/generic_unlabelled.py`` for ``"none"``).  A model without a target derives
from :class:`olearn.base.OnlineUnlabelled` (which only says there is no target: the
y-less signatures ``partial_fit(X)``, ``learn_one(x)``, ``predict_learn(X)``,
``score_one(x)``) and declares, like any learner, ``slots`` (an axis may be a
hyper-parameter's name, ``Slot("C", ("n_clusters", "d"))``: sized by it, checked
against it on load, refused when the parameter changes after learning), ``kernels``,
``outputs`` (the parameter that sizes a row's scores) and ``batch_scores(X)``; its
``slots``' ``mix=`` rules drive ``olearn.mix`` (``"mean:N"``: a mean weighted by the
counts of slot ``N``).  ``olearn.cluster.KMeans`` is the worked example; the
decompositions (``olearn.decomposition``) give a numpy block rule as their entry
point; the drift detectors (a stream of numbers, not rows) declare ``target = "none"``
and ``slots`` (with a ``dtype``), and save, load and check their state from them.

A sequence model (``target = "sequence"``: ``olearn.structured.SequenceTagger``) takes
rows that are sequences (lists of tokens, of feature lists or of feature dicts) and a
target that is a list of tags per sequence: ``partial_fit(sequences, tag_sequences)``,
``predict_learn`` (each sequence tagged before it is learned), ``learn_one(tokens,
tags)``, ``predict_one(tokens)`` (a list of tags), ``score`` (token accuracy).  It keeps
the protocol's state calls (``export_state``/``from_state``, ``explicit_state``, the
lock, ``olearn.mix`` with its tags aligned as a classifier's classes are) but not the
row driver or the slots: its compiled pass decodes a whole sequence (Viterbi) before
it updates, and its state is emission rows by tags plus tag-to-tag transitions with a
boundary, whose tag axis grows in two places.

Not (yet) on this protocol, and why.  Recommenders (``olearn.recommend``) learn a
*value* (a rating) keyed by two growing ids, (user, item): their rows are not feature
vectors but pairs of ids whose tables (``recommend/_ids.py``) grow per user and per
item, and their state has two growing axes (users, items) where the slots have one
(``"d"``); moving them needs a slot axis per id table (``"users"``, ``"items"``,
grown by their own vocabularies), which this round did not add.  Portfolio strategies
(``olearn.portfolio``) learn with no target from rows of price relatives (``target =
"none"`` fits), but their answer is a decision made before the row (the portfolio
``b``, on the simplex), their rows must be positive and dense, they never widen (the
assets are fixed), and several strategies keep a window of past rows whose length is
a parameter: the window fits a parameter-sized axis, the simplex and positivity checks
do not fit the slots' finite-float check, and their one pass (``backtest``) is
accounting as well as learning.  Both keep their own ``_base.py`` for now; the next
step for each is named above.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ._locking import locked
from ._river import RiverTools
from ._state import Slot
from ._tags import TARGETS, target_of  # (what a model learns from: the declaration)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ._typing import Label, Matrix, Path, Row, State, Vector

_M = TypeVar("_M")


def __getattr__(name):
    """The task codes (``BINARY``, ``MULTICLASS``, ``REGRESSION``) from the compiled
    driver, imported on first use: importing the protocol (and ``CannotMixError``) loads
    no numba."""
    if name in ("BINARY", "MULTICLASS", "REGRESSION", "UNLABELLED"):
        from ._compiled import driver
        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Model", "Slot", "CannotMixError", "NotMixable", "Progressive", "Saves",
           "declare", "BINARY", "MULTICLASS", "REGRESSION", "UNLABELLED", "TARGETS",
           "target_of"]


class CannotMixError(ValueError):
    """The model's state has no declared rule to be combined with another's."""


class NotMixable:
    """Mixin: the protocol's mixing hook for a model whose state cannot be combined
    with another's (the wrappers whose statistics belong to their own stream)."""

    def explicit_state(self) -> dict[str, NDArray[Any]]:
        """The state with every lazy part made explicit, what ``olearn.mix`` combines
        slot by slot.  A wrapper's default: this model cannot be mixed."""
        raise CannotMixError(f"{type(self).__name__} cannot be mixed: it declares no "
                             "explicit state (see olearn.protocol, 'mixing')")


class Progressive(RiverTools):
    """Mixin: the protocol's ``predict_learn``, written once for every model (and, from
    :class:`olearn._river.RiverTools`, what River's tools read of a model).  A model
    defines ``_progressive(X, y, classes, sample_weight, return_scores) -> (scores,
    predictions)`` (one pass, atomic: the pre-update scores and predictions in its own
    form; ``return_scores`` says what the caller asked, for a model that can give only
    one of them) and ``_progressive_output(scores, predictions, return_scores)`` (them
    as the caller gets them)."""

    #: scikit-learn's checks every online model departs from, and why (read by
    #: ``olearn.expected_failed_checks``; scikit-learn's SGD declares the same two)
    _expected_failed_checks = dict.fromkeys(
        ("check_sample_weight_equivalence_on_dense_data",
         "check_sample_weight_equivalence_on_sparse_data"),
        "an online learner's sample weight scales one step: a row of weight 2 is not the "
        "row seen twice (the second visit meets the margin the first has changed)")

    @locked
    def predict_learn(self, X: Matrix, y: Vector, return_scores: bool | str = False,
                      sample_weight: Vector | None = None, classes: Vector | None = None
                      ) -> Any:
        """The online protocol over a batch, in order.

        Returns, for each row, the prediction (or with ``return_scores`` the decision
        value; with ``return_scores="both"`` the pair of them) made before that row's
        update, and leaves the model updated.  ``sample_weight`` (one non-negative
        weight per row, as in ``partial_fit``) scales each row's update; ``classes`` is
        ``partial_fit``'s.
        """
        scores, pred = self._progressive(X, y, classes, sample_weight, return_scores)
        if isinstance(return_scores, str) and return_scores == "both":
            return (self._progressive_output(scores, pred, False),
                    self._progressive_output(scores, pred, True))
        return self._progressive_output(scores, pred, return_scores)


class Saves:
    """Mixin: the protocol's ``save(path)``, written once for every model."""

    @locked
    def save(self, path: Path) -> None:
        """Write the model to ``path`` in olearn's safe format (arrays + JSON metadata,
        no pickle; atomic); ``olearn.load(path)`` reads it back."""
        from .persistence import save
        save(self, path)


def declare(name: str, **parts: Any) -> Any:
    """Declare a model's compiled parts (``score``, ``binary``, ``multiclass``,
    ``regression``, ``after``, ``losses``) under ``name``; returns its entry points by
    task, for ``kernels``.  See :func:`olearn._compiled.declare.declare`."""
    from ._compiled.declare import declare as _declare
    return _declare(name, **parts)


@runtime_checkable
class Model(Protocol):
    """The calls every model offers (see the module docstring)."""

    def fit(self: _M, X: Matrix, y: Vector, sample_weight: Vector | None = None) -> _M: ...

    def partial_fit(self: _M, X: Matrix, y: Vector, classes: Vector | None = None,
                    sample_weight: Vector | None = None) -> _M: ...

    def predict_learn(self, X: Matrix, y: Vector, return_scores: bool | str = False,
                      sample_weight: Vector | None = None,
                      classes: Vector | None = None) -> Any: ...

    def predict(self, X: Matrix) -> NDArray[Any]: ...

    def learn_one(self: _M, x: Row, y: Label, sample_weight: float = 1.0) -> _M: ...

    def predict_one(self, x: Row) -> Label: ...

    def predict_learn_one(self, x: Row, y: Label, sample_weight: float = 1.0) -> Label: ...

    def export_state(self) -> State: ...

    @classmethod
    def from_state(cls: type[_M], params: dict[str, Any], meta: dict[str, Any],
                   arrays: dict[str, NDArray[Any]]) -> _M: ...

    def save(self, path: Path) -> None: ...

    def widen(self, n_features: int) -> int | None: ...

    def explicit_state(self) -> dict[str, NDArray[Any]]: ...

    def __sklearn_is_fitted__(self) -> bool: ...
