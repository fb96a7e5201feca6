"""Anomaly scores of a stream of rows without a target: ``UniclassPA`` (the
Passive-Aggressive uniclass prediction of Crammer et al. 2006, section 5),
``HalfSpaceTrees`` (Tan, Ting and Liu 2011), ``OneClassSVM`` (Schoelkopf et al. 2001,
by stochastic steps) and ``Loda`` (Pevny 2016).  Imported on first use; the models are the registry's (``olearn.make("uniclass")``).

The anomaly calls, as River's detectors and scikit-learn's ``IsolationForest``:
``learn_one(x)``, ``score_one(x)`` (higher = more anomalous), ``partial_fit(X)``,
``score_samples(X)`` (lower = more abnormal), ``decision_function(X)`` (negative = an
outlier), ``predict(X)`` (+1 inlier, -1 outlier) and ``score_learn(X)`` (each row's
score before the model learns it, in one compiled pass)."""
from .._lazy import lazy_names
from ..registry import exports

_WHERE = exports(__name__)

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
