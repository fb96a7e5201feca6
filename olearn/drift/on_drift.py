"""A learner that starts afresh when a drift detector fires on its own errors.

Each row is predicted by the current learner (before it learns the row), the error is
fed to the detector (classification: the 0/1 mistake; regression: the absolute error),
and the row is learned; when the detector fires at row i, the learner is replaced by a
fresh copy (same hyper-parameters) from row i + 1 on.  The detector keeps its own
reaction (ADWIN keeps its newer window; DDM, EDDM, Page-Hinkley start afresh).

A batch runs in compiled passes: the learner's ``predict_learn`` over the rest of the
batch, then the detector over its errors up to its first detection only; after a
detection the learner is reset and the rows after it are run again, so the result is the
same as one row at a time.

Reactions to a drift, and which to choose:

* reset (this class): the learner starts afresh; right for an abrupt change after which
  nothing old helps;
* re-weight: ``olearn.ensemble.ExpertAdvice(learners, detector=...)`` (and
  ``AutoClassifier(detector=...)``) keeps every member learning and, on a detection in
  the ensemble's errors, sets the members' weights back to uniform, so the member that
  adapts fastest to the new concept takes over in a few rows;
* forgetting factors, for learners that have one, forget continuously with no detector:
  ``rls`` (``RLSRegressor(forgetting=f)``, exponentially weighted least squares, f in
  (0, 1]); the kernel learner ``norma`` (its ``lambda`` shrinks every old support term by
  ``1 - eta lambda`` a row); ``ogd``/``adagrad`` with a constant step and L2 ``alpha``
  (weights decay by ``1 - eta alpha`` a row).  The others (Perceptron, PA, ALMA, ROMMA,
  AROW, CW, SCW, NAROW, NHERD, SOP, the sparse learners) keep all their past: put them
  in an ensemble with a detector, or in ``OnDrift``.

``OnDrift`` saves and loads in the safe format (``model.save(path)``, ``olearn.load``):
the learner and the detector are written as nested olearn models, with their state.
"""
import numpy as np
from .._estimator import Estimator, clone, estimator_kind, is_classifier, widen

from .._nested import SavesNested, nested
from .._locking import locked
from ..protocol import Progressive
from ..base import DivergenceError


@nested
class OnDrift(Progressive, SavesNested, Estimator):
    """Reset ``learner`` whenever ``detector`` detects a drift in its progressive errors.

    Parameters
    ----------
    learner : an olearn learner (a classifier or a regressor), the model that is reset.
    detector : an ``olearn.drift`` detector (ADWIN, DDM, EDDM, PageHinkley) watching the
        learner's pre-update errors (0/1 mistakes, or absolute errors in regression).

    Attributes
    ----------
    model_ : the learner now in use.
    detector_ : the detector in use.
    drifts_ : list of the row numbers (0-based, over every row learned) where a drift was
        detected and the learner reset.
    """
    _tags = {"wrapper": True}

    def __init__(self, learner=None, detector=None):
        self.learner = learner
        self.detector = detector

    def __sklearn_is_fitted__(self):
        """Whether the wrapper has learned (the protocol's question)."""
        return "model_" in self.__dict__

    def _check(self):
        if self.learner is None or not hasattr(self.learner, "predict_learn"):
            raise TypeError("OnDrift needs an olearn learner (with predict_learn)")
        if self.detector is None or not hasattr(self.detector, "update_many"):
            raise TypeError("OnDrift needs an olearn.drift detector")
        if "model_" not in self.__dict__:
            self.model_ = clone(self.learner)
            self.detector_ = self.detector.clone()
            self.drifts_ = []
            self.t_ = 0

    def _errors(self, pred, y):
        if is_classifier(self.learner):
            return (np.asarray(pred) != np.asarray(y)).astype(np.float64)
        return np.abs(np.asarray(pred, dtype=np.float64) - np.asarray(y, dtype=np.float64))

    @locked
    def widen(self, n_features):
        """More columns from now on (see ``olearn._estimator.widen``)."""
        model = self.__dict__.get("model_")
        return None if model is None else widen(model, n_features)

    _widen = widen  # round 2's name

    def _progressive(self, X, y, classes, sample_weight, return_scores):
        """``predict_learn``'s pass (``olearn.protocol.Progressive``): the pre-update
        prediction of each row, learning as it goes (``sample_weight`` goes to the
        learner).  Predictions only: a reset learner's scores would not line up."""
        if return_scores:
            raise ValueError("OnDrift gives the learner's predictions, not scores: call "
                             "predict_learn with return_scores=False")
        if classes is not None:
            raise ValueError("OnDrift takes no classes: its learner starts afresh at a "
                             "drift and learns the classes it meets")
        self._check()
        n = X.shape[0]
        y = np.asarray(y)
        w = None if sample_weight is None else np.broadcast_to(
            np.asarray(sample_weight, dtype=np.float64), (n,))
        out = None
        start = 0
        while start < n:
            Xs, ys = X[start:], y[start:]
            try:
                pred = self.model_.predict_learn(Xs, ys) if w is None else \
                    self.model_.predict_learn(Xs, ys, sample_weight=w[start:])
            except DivergenceError as exc:  # its row counted in this batch
                raise exc.moved(start) from None
            flags = self.detector_._flags(self.detector_._values(self._errors(pred, ys)),
                                          stop=True)
            k = flags.shape[0]
            if out is None:
                out = np.empty(n, dtype=np.asarray(pred).dtype)
            out[start:start + k] = pred[:k]
            self.t_ += k
            start += k
            if k and flags[-1] == 2:
                self.drifts_.append(self.t_ - 1)
                self.model_ = clone(self.learner)
        return None, out

    def _progressive_output(self, scores, pred, return_scores):
        return pred

    @locked
    def partial_fit(self, X, y, **kwargs):
        self.predict_learn(X, y)
        return self

    @locked
    def fit(self, X, y):
        for name in ("model_", "detector_", "drifts_", "t_"):
            self.__dict__.pop(name, None)
        return self.partial_fit(X, y)

    @locked
    def predict(self, X):
        return self.model_.predict(X)

    @locked
    def predict_one(self, x):
        self._check()
        return self.model_.predict_one(x)

    @locked
    def learn_one(self, x, y):
        self.predict_learn_one(x, y)
        return self

    @locked
    def predict_learn_one(self, x, y):
        """Predict ``x``, feed the error to the detector, learn ``x`` (reset on a drift)."""
        self._check()
        pred = self.model_.predict_learn_one(x, y)
        if is_classifier(self.learner):
            err = float(pred != y)
        else:
            err = abs(float(pred) - float(y))
        self.t_ += 1
        if self.detector_.update(err):
            self.drifts_.append(self.t_ - 1)
            self.model_ = clone(self.learner)
        return pred

    # ------------------------------------------------------------ persistence
    def export_state(self):
        from .._nested import export_model
        self._check()
        arrays = {}
        meta = {"t_": int(self.t_), "drifts_": [int(i) for i in self.drifts_],
                "model": export_model(self.model_, "model.", arrays),
                "detector": export_model(self.detector_, "detector.", arrays)}
        return meta, arrays

    @classmethod
    def from_state(cls, params, meta, arrays):
        from .._nested import import_model, import_wrapper
        model = import_wrapper(cls, params, meta, arrays)
        model.detector_ = import_model(meta["detector"], "detector.", arrays,
                                       like=model.detector)
        model.t_ = int(meta["t_"])
        model.drifts_ = [int(i) for i in meta["drifts_"]]
        return model

    @property
    def n_updates_(self):
        return getattr(self.__dict__.get("model_"), "n_updates_", 0)

    def _estimator_kind(self):
        return None if self.learner is None else estimator_kind(self.learner)
