"""The base of the multilabel models: :class:`MultilabelModel` (``target = "labels"``).

It is :class:`olearn.wrapper.Wrapper` (locking, validation of the rows, nested save and
load, the fitted check, ``rng_``) with the label-set target of
:mod:`olearn.multilabel._labelsets` in place of one label per row: ``partial_fit``,
``predict_learn`` and ``fit`` take an (n, L) indicator or a sequence of label sets,
``predict`` gives the (n, L) indicator in ``classes_`` order, ``decision_function`` the
(n, L) scores (a label is predicted where its score is > 0), ``predict_one`` River's
``{label: bool}``.  ``classes_`` is sorted; a label met for the first time is inserted
at its place, learned from the row that makes it known and predicted after it (before,
its column says 0 with score 0.0), so that a batch learns what the same rows one at a
time learn.

A subclass writes

``add_labels(new, first)``
    make the state of the labels at positions ``new`` of the (already updated, sorted)
    ``classes_``; ``new - arange(len(new))`` are their places in the old order;
    ``first[j]``: the row of the batch that makes label j known.
``learn_rows(X, Y, sample_weight, first, return_scores)``
    validated rows, ``Y`` their (n, L) int8 indicator, ``first`` from
    :class:`~olearn.multilabel._labelsets.Batch`; returns the pre-update (n, L)
    predictions (``return_scores``: scores; ``"both"``: the pair).
``predict_rows(X, return_scores=False)``, ``learn_example(x, y, sample_weight, first)``
    (``return_scores`` None: nothing is wanted back, from ``partial_fit`` and
    ``fit``; one example: ``y`` its (L,) indicator; returns its pre-update (L,) prediction) and
    ``predict_example(x)`` (an (L,) prediction), with ``check_params``, ``start``,
    ``own_state`` / ``load_own_state`` where needed, as the wrapper base says.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._locking import locked
from .._river import weight
from .._validation import check_weight, validate_batch
from ..wrapper import Wrapper
from . import _labelsets as labelsets

__all__ = ["MultilabelModel", "masked"]


def masked(pred, scores, first, offset=0):
    """Zero the predictions and scores of rows ``offset + i <= first[j]``: a label takes
    part in predictions only after the row that made it known."""
    rows = offset + np.arange(pred.shape[0])[:, None]
    late = rows <= first[None, :]
    if late.any():
        pred[late] = 0
        scores[late] = 0.0
    return pred, scores


def _pick(pred, scores, return_scores):
    if isinstance(return_scores, str) and return_scores == "both":
        return pred, scores
    return scores if return_scores else pred


class MultilabelModel(Wrapper):
    """Base of the models of label sets (see the module docstring)."""

    target = "labels"
    members: dict[str, str] = {}
    own_labels = True

    # ------------------------------------------------------------ what a subclass writes
    def add_labels(self, new, first):
        raise NotImplementedError(f"{type(self).__name__} cannot add labels")

    def learn_rows(self, X, Y, sample_weight, first, return_scores):  # type: ignore[override]
        raise NotImplementedError(f"{type(self).__name__} learns no batch")

    def learn_example(self, x, y, sample_weight, first):  # type: ignore[override]
        raise NotImplementedError(f"{type(self).__name__} learns no single example")

    # ------------------------------------------------------------ the protocol
    @classmethod
    def from_state(cls, params, meta, arrays):
        """The wrapper base's, and no array it would not save (a file of another model,
        or tampered); the wrapper base keeps reading round 3's files, which hold arrays
        of older layouts, so this check is the multilabel models' own."""
        model = super().from_state(params, meta, arrays)
        unknown = set(arrays) - set(model.export_state()[1])
        if unknown:
            raise ValueError(f"unknown arrays {sorted(unknown)}")
        return model

    def _estimator_kind(self):
        return "classifier"

    def _note_labels(self, y, classes=None):
        pass

    def _labels(self):
        return self.__dict__.get("classes_")

    def _register(self, b):
        if len(b.new):
            self.classes_ = b.classes
            self.add_labels(b.new, b.first)

    def _learn(self, X, y, classes, sample_weight, return_scores):
        self._check()

        def run():
            n = X.shape[0] if hasattr(X, "shape") else len(X)
            Xv, _, sw = validate_batch(self, X, np.zeros(n), sample_weight,
                                       reset=not self._started())
            b = labelsets.batch(y, Xv.shape[0], self._labels(), classes)
            self._begin()
            self._register(b)
            out = self.learn_rows(Xv, b.Y, sw, b.first, return_scores)
            self.t_ += Xv.shape[0]
            return out
        return self._atomically(run)

    @locked
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Go on learning from a batch, in order; ``classes``: labels known from its
        first row (their columns in ``predict`` from then on)."""
        self._learn(X, y, classes, sample_weight, None)  # (None: no predictions wanted)
        return self

    @locked
    def fit(self, X, y, sample_weight=None):
        """Start afresh, then learn the rows in order (one pass)."""
        self._check()

        def run():
            self._forget()
            self._learn(X, y, None, sample_weight, None)
            if sample_weight is not None and not np.any(sample_weight):
                raise ValueError("Sample weights must contain at least one non-zero number.")
        self._atomically(run)
        return self

    def _predict_rows_checked(self, X, return_scores):
        self._fitted()
        X = self._validate_X(X, reset=False)
        if self._labels() is None:
            empty = np.zeros((X.shape[0], 0))
            return empty.astype(np.int8) if not return_scores else empty
        return self.predict_rows(X, return_scores)

    @locked
    def predict(self, X):
        """The (n, L) 0/1 indicator of the labels predicted for the rows, columns in
        ``classes_`` order, changing nothing."""
        return self._predict_rows_checked(X, False)

    @locked
    def decision_function(self, X):
        """The (n, L) scores of the rows (a label is predicted where > 0)."""
        return self._predict_rows_checked(X, True)

    @locked
    def score(self, X, y, sample_weight=None):
        """Subset accuracy of ``predict`` (scikit-learn's ``accuracy_score`` for label
        sets): the share of rows whose predicted set is exactly ``y``'s."""
        pred = self.predict(X)
        known = self._labels()
        b = labelsets.batch(y, pred.shape[0], known)
        full = np.zeros_like(b.Y)
        if known is not None and len(known):
            full[:, np.searchsorted(b.classes, known)] = pred
        return float(np.average((full == b.Y).all(axis=1), weights=sample_weight))

    @locked
    def predict_learn_one(self, x, y, sample_weight=1.0, w=None):
        """``predict_one(x)``'s answer, then ``learn_one(x, y)``; ``y`` an iterable of
        labels, River's ``{label: bool}`` or an indicator row."""
        sample_weight = weight(sample_weight, w)
        if sample_weight != 1.0:
            sample_weight = check_weight(sample_weight)
        x = self._checked_one(x)
        b = labelsets.one(y, self._labels())

        def run():
            self._begin()
            self._register(b)
            out = self.learn_example(x, b.Y[0], sample_weight, b.first)
            out = np.where(b.first >= 0, 0, out)
            self.t_ += 1
            known = self._labels()  # (None after a first example with no label)
            return {} if known is None else labelsets.as_dict(out, known)
        return self._atomically(run)

    @locked
    def learn_one(self, x, y, sample_weight=1.0, w=None):
        """Learn one example (a dict or a 1-D array) and its label set."""
        self.predict_learn_one(x, y, sample_weight, w=w)
        return self

    @locked
    def predict_one(self, x) -> dict[Any, bool]:  # type: ignore[override]
        """River's ``{label: bool}`` for every known label (``{}`` before any)."""
        x = self._checked_one(x)
        if not self._started() or self._labels() is None:
            return {}
        return labelsets.as_dict(self.predict_example(x), self.classes_)
