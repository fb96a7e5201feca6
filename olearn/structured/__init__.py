"""Structured output: sequence labelling with a linear-chain model.

``SequenceTagger(algorithm=...)``: emission weights over hashed token features and
tag-to-tag transitions (with a start and an end), decoded exactly by Viterbi in
compiled code, trained online one sequence at a time by the structured Perceptron and
its averaged form (Collins 2002), PA, PA-I and PA-II with the Hamming cost (Crammer et
al. 2006) and AROW with a diagonal covariance (as CRFsuite's ``arow``).  The registry
names the usual settings: ``olearn.make("tagger-ap")``, ``"tagger-perceptron"``,
``"tagger-pa"``, ``"tagger-pa1"``, ``"tagger-pa2"``, ``"tagger-arow"``.

A sequence is a list of raw tokens (strings: the default template of
:mod:`olearn.structured.template` makes their features), of lists of feature names
(CRFsuite's ``xseq``) or of feature dicts; its tags a list of the same length.
``olearn.io.read_conllu`` reads Universal Dependencies files into such lists.

Imported on first use.
"""
from .._lazy import lazy_names
from ..registry import exports

_WHERE = {**exports(__name__), "token_features": "template"}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
