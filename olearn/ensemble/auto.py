"""Learning without tuning: an expert-advice ensemble over a fixed, documented set of
learners and parameter values (``ExpertAdvice``, follow-the-leader by default).

The classifier's members (16): SCW-I (C, eta) in {(0.0625, 0.75), (0.5, 0.8),
(0.5, 0.85)}; AROW r in {0.0625, 0.5, 16}; OGD with AdaGrad steps eta in {0.125, 0.5,
4}; NAROW b in {1, 4}; PA-I C in {0.0625, 0.125}; NDAG eta in {1, 8}; COCOB.  These
are the values the LIBOL-protocol comparison (benchmarks/compare.md) picked on ijcnn1,
a9a and w8a, and their neighbours: the grid covers the scales of those sets.

The regressor's members (8): PA-I (epsilon-insensitive) C in {0.1, 1}; AROW r in
{0.1, 1, 10}; RLS; COCOB; NDAG (registered defaults otherwise).

``combine="follow-the-leader"`` by default: on the stationary sets of the benchmark it
predicts as well as the best member after a few thousand rows (benchmarks/ensemble.md
gives the measured figures of the three rules); "ewa" and "hedge" carry regret bounds
(see ``ExpertAdvice``).
"""
from .._estimator import ClassifierMixin, RegressorMixin

from .._params import store_params
from .expert_advice import ExpertAdvice

CLASSIFIERS = ([("scw", {"C": c, "eta": e}) for c, e in ((0.0625, 0.75), (0.5, 0.8),
                                                          (0.5, 0.85))]
               + [("arow", {"r": r}) for r in (0.0625, 0.5, 16.0)]
               + [("adagrad", {"eta": e}) for e in (0.125, 0.5, 4.0)]
               + [("narow", {"b": b}) for b in (1.0, 4.0)]
               + [("pa1", {"C": c}) for c in (0.0625, 0.125)]
               + [("ndag", {"eta": e}) for e in (1.0, 8.0)]
               + [("cocob", {})])

REGRESSORS = ([("pa1-reg", {"C": c}) for c in (0.1, 1.0)]
              + [("arow-reg", {"r": r}) for r in (0.1, 1.0, 10.0)]
              + [("rls", {}), ("cocob-reg", {}), ("ndag-reg", {})])


def default_learners(kind):
    """Fresh instances of the documented default members ("classifier" or "regressor")."""
    from ..registry import make
    return [make(name, **params) for name, params in
            (CLASSIFIERS if kind == "classifier" else REGRESSORS)]


DOC = """{summary}

    The {n} learners and parameter values (in ``olearn.ensemble.auto``) learn in one
    pass; their predictions are combined by expert advice.

    Parameters
    ----------
    learners : None (the documented default set) or a list of olearn {kind}s.
    combine : "follow-the-leader", "ewa" or "hedge" (see ``ExpertAdvice``).
    eta : float > 0 or None, rate of the weights (None: theory, doubling trick).
    loss : None ("{loss}") or "{other}", the loss that weighs the members.
    epochs : int, passes over the data in fit().
    shuffle : bool, shuffle the rows before each epoch of fit().
    random_state : int (default 0) or None (a fresh draw), seed of the shuffle and of
        Hedge's draws.
    detector : None or an ``olearn.drift`` detector: on a detected drift in the
        ensemble's errors the weights start again from uniform (``ExpertAdvice``).
    """


class _Auto(ExpertAdvice):
    """Expert advice over ``default_learners(_members)`` unless ``learners`` is given."""
    _members = ""

    def __init__(self, learners=None, combine="follow-the-leader", eta=None, loss=None,
                 epochs=1, shuffle=True, random_state=0, detector=None):
        store_params(self, locals())

    def _default_learners(self):
        return default_learners(self._members)

    def _is_classifier(self):
        return self._members == "classifier"


class AutoClassifier(ClassifierMixin, _Auto):
    __doc__ = DOC.format(summary="Classification with no parameter to tune: expert advice "
                         "over 16 learners.", n=16, kind="classifier", loss="zero-one",
                         other="hinge")
    _members = "classifier"


class AutoRegressor(RegressorMixin, _Auto):
    __doc__ = DOC.format(summary="Regression with no parameter to tune: expert advice "
                         "over 8 learners.", n=8, kind="regressor", loss="squared",
                         other="absolute")
    _members = "regressor"


Auto = AutoClassifier  # olearn.ensemble.Auto, the short name
