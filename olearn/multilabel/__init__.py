"""Multilabel classification: models of label sets (``target = "labels"``).

A row's target is a set of labels: ``partial_fit(X, Y)`` takes an (n, L) 0/1 indicator
(dense or CSR) or a sequence of label sets, ``learn_one(x, {"a", "b"})`` an iterable of
labels or River's ``{label: bool}``; ``predict`` gives the indicator (columns in
``classes_`` order), ``predict_one`` ``{label: bool}``.  Native learners on label
ranking (:class:`MultilabelPA`, :class:`MultilabelPerceptron`, Crammer and Singer 2003;
Crammer et al. 2006, section 6; :class:`MultilabelAROW`, AROW's step on it) and reductions over any binary olearn classifier
(:class:`BinaryRelevance`, :class:`ClassifierChain`).  See ``docs/guide/multilabel.md``.
"""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (MULTILABEL_MODELS,
#: MULTILABEL_UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
