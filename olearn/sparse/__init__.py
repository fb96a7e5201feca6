"""Sparse online learning at O(non-zeros) per row: truncated gradient, FOBOS, RDA,
FTRL-Proximal, AdaFOBOS, AdaRDA and online feature selection.  Penalties are applied
lazily to a weight when a row touches it (``olearn._compiled.lazy``); the model is
materialised on demand, and ``n_nonzero_`` counts its non-zero weights."""
from .ada_fobos import AdaFOBOSClassifier
from .ada_rda import AdaRDAClassifier
from .fobos import FOBOSClassifier, FOBOSRegressor
from .ftrl import FTRLClassifier, FTRLRegressor
from .ofs import OFSClassifier
from .rda import RDAClassifier, RDARegressor
from .truncated import TruncatedGradientClassifier, TruncatedGradientRegressor

__all__ = ["AdaFOBOSClassifier", "AdaRDAClassifier", "FOBOSClassifier", "FOBOSRegressor",
           "FTRLClassifier", "FTRLRegressor", "OFSClassifier",
           "RDAClassifier", "RDARegressor",
           "TruncatedGradientClassifier", "TruncatedGradientRegressor"]
