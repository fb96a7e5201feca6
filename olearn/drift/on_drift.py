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

from .._estimator import is_classifier
from ..base import DivergenceError
from ..wrapper import Wrapper


class OnDrift(Wrapper):
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
    members = {"learner": "model_", "detector": "detector_"}
    gives_scores = False  # (a reset learner's scores would not line up)

    def __init__(self, learner=None, detector=None):
        self.learner = learner
        self.detector = detector

    def check_params(self):
        if not hasattr(self.learner, "predict_learn"):
            raise TypeError("OnDrift needs an olearn learner (with predict_learn)")
        if not hasattr(self.detector, "detect"):
            raise TypeError("OnDrift needs an olearn.drift detector")

    def start(self):
        self.drifts_ = []

    def _errors(self, pred, y):
        if is_classifier(self.learner):
            return (np.asarray(pred) != np.asarray(y)).astype(np.float64)
        return np.abs(np.asarray(pred, dtype=np.float64) - np.asarray(y, dtype=np.float64))

    def _reset_at(self, row):
        self.drifts_.append(int(row))
        self.model_ = self.learner.clone()

    def learn_rows(self, X, y, sample_weight, classes, return_scores):
        """The pre-update prediction of each row, learning as it goes (``sample_weight``
        and ``classes`` to the learner); the detector reads the errors up to its first
        drift, the learner is reset there and the rows after it run again."""
        if return_scores:
            raise ValueError("OnDrift gives the learner's predictions, not scores: call "
                             "predict_learn with return_scores=False")
        n = X.shape[0]
        out = None
        start = 0
        while start < n:
            Xs, ys = X[start:], y[start:]
            kw = {} if sample_weight is None else {"sample_weight": sample_weight[start:]}
            if classes is not None:
                kw["classes"] = classes
            try:
                pred = self.model_.predict_learn(Xs, ys, **kw)
            except DivergenceError as exc:  # its row counted in this batch
                raise exc.moved(start) from None
            flags = self.detector_.detect(self._errors(pred, ys), stop=True)
            k = flags.shape[0]
            if out is None:
                out = np.empty(n, dtype=np.asarray(pred).dtype)
            out[start:start + k] = pred[:k]
            start += k
            if k and flags[-1] == 2:
                self._reset_at(self.t_ + start - 1)
        return out

    def predict_rows(self, X, return_scores=False):
        return self.model_.predict(X)

    def predict_example(self, x):
        return self.model_.predict_one(x)

    def predict_proba_example(self, x):
        return self.model_.predict_proba_one(x)

    def learn_example(self, x, y, sample_weight):
        """Predict ``x``, feed the error to the detector, learn ``x`` (reset on a drift)."""
        pred = self.model_.predict_learn_one(x, y, sample_weight)
        if is_classifier(self.learner):
            err = float(pred != y)
        else:
            err = abs(float(pred) - float(y))
        self.detector_.update(err)  # (None, as River's: read drift_detected)
        if self.detector_.drift_detected:
            self._reset_at(self.t_)
        return pred

    # ------------------------------------------------------------ persistence
    def own_state(self):
        return {"drifts_": [int(i) for i in self.drifts_]}, {}

    def load_own_state(self, meta, arrays):
        drifts = meta["drifts_"]
        if not isinstance(drifts, list) or any(type(i) is not int for i in drifts):
            raise ValueError("drifts_ must be a list of row numbers")
        self.drifts_ = list(drifts)
        if "classes_" not in arrays and is_classifier(self.learner) and \
                self.model_.__sklearn_is_fitted__():  # (round 3's file)
            self.classes_ = np.unique(self.model_.classes_)
