"""Prediction with expert advice over online learners (Cesa-Bianchi and Lugosi,
*Prediction, Learning, and Games*, Cambridge 2006, chapters 2 and 4; Freund and
Schapire, "A decision-theoretic generalization of on-line learning and an application
to boosting", JCSS 55, 1997).

Every member learns from every row on its own: its pre-update prediction (and loss) does
not depend on the ensemble, so one chunk is validated once, each member makes its own
compiled progressive pass over it (``predict_learn``), and the ensemble's predictions
are combined afterwards, row by row, from the members' pre-update predictions with the
weights of that row (a small compiled loop, ``_combine.combine``).  A chunk costs one
validation plus N learning passes; members that share a first-order rule (PA-I at
several C, Perceptrons, ALMA: ``olearn.fused``) make one fused pass, with the same
results, and when all do (binary, zero-one or hinge loss, no detector) that pass also
weighs and combines each row (``_combine.combine_sink``): the same rule, row by row.

With ``L_j`` member j's cumulative loss before the row, ``w_j = exp(-eta L_j)``:

* ``"ewa"``, the exponentially weighted average forecaster (C-B & L, section 2.1):
  regression predicts ``sum_j w_j f_j / sum_j w_j``; classification the class with the
  largest total weight of the members predicting it (the weighted average of the
  members' one-hot predictions, then its arg-max: a weighted majority vote);
* ``"hedge"``, the randomised forecaster (C-B & L section 4.2; Freund and Schapire's
  Hedge(beta) with ``beta = exp(-eta)``): predicts as member j drawn with probability
  ``w_j / sum w``; the draw of row t is a fixed function of (``random_state``, t), so
  it does not depend on how the stream is cut into calls;
* ``"follow-the-leader"``: predicts as the member of least cumulative loss (ties: the
  first).  No regret guarantee in general, often the best on stationary data.

Losses of a member's pre-update prediction: classification ``"zero-one"`` (a mistake)
or ``"hinge"``, ``min(1, max(0, 1 - m) / 2)`` with m the margin of its scores (binary
``y s``; multiclass the true class's score minus the best other one), a loss in [0, 1];
regression ``"squared"`` or ``"absolute"``.

``eta=None`` sets the rate from the theory: with losses in [0, 1], ``eta = sqrt(8 ln N /
n)`` makes the regret of EWA (and the expected regret of Hedge) at most
``sqrt(n ln N / 2)`` (Theorem 2.2); the horizon n is unknown, so the doubling trick
(section 2.3): the forecaster restarts at rows 1, 2, 4, 8, ... with ``eta =
sqrt(8 ln N / 2^m)`` on the epoch of length 2^m, regret at most ``sqrt(2)/(sqrt(2) - 1)
sqrt(n ln N / 2)`` (for the loss convex in the prediction: EWA in regression, Hedge
in expectation, and EWA's one-hot average for the 0/1 loss).  Regression losses are not
bounded in advance: they are divided by the largest loss seen so far (an estimate of
the range; a departure from the book's known range).  A given ``eta`` is used as is
(no restarts).

A member whose weights become non-finite (``DivergenceError``) is dropped: its weight
is 0 from the start of the call where it diverged.

Drift (``detector=``, an :mod:`olearn.drift` detector): the detector watches the
ensemble's own pre-update errors (0/1 mistakes; regression: absolute errors), and on a
detection at row i the ensemble is *re-weighted*: from row i + 1 on, every member's loss
counts from zero (uniform weights; follow-the-leader follows the member best since the
drift) and the doubling trick starts a new sequence of epochs (``eta = sqrt(8 ln N)``
again, so the weights move fast).  The members are not reset: they keep what they
learned, and a member that adapts faster (a larger step, a forgetting factor) takes the
lead (see :class:`olearn.drift.OnDrift` to restart a learner instead).  A batch is cut
at each detection and the rows after it re-combined, so the result does not depend on
how the stream is cut into calls.
"""
import numpy as np
from .._estimator import Estimator, check_is_fitted, clone, is_classifier

from .._params import store_params
from .._validation import check_choice, check_number, validate_batch
from .._validation import check_random_state as _rng
from ..base import DivergenceError, OnlineLearner
from .._locking import locked
from .._internals import internals as core
from ..wrapper import Wrapper

COMBINE = ("ewa", "hedge", "follow-the-leader")
CLASSIFY_LOSSES = ("zero-one", "hinge")
REGRESS_LOSSES = ("squared", "absolute")


class ExpertAdvice(Wrapper):
    """Prediction with expert advice: many online learners in one pass, weighted by their
    progressive losses (EWA, Hedge or follow the leader).

    Parameters
    ----------
    learners : list of olearn learners (all classifiers or all regressors), the experts;
        each is cloned (the given objects are not changed).
    combine : "ewa", "hedge" or "follow-the-leader", how the members' predictions are
        combined (see the module's docstring).
    eta : float > 0 or None, the learning rate of the weights; None: from the theory,
        ``sqrt(8 ln N / 2^m)`` with the doubling trick.
    loss : None, "zero-one", "hinge", "squared" or "absolute", the loss that weighs the
        members (None: zero-one for classifiers, squared for regressors).
    epochs : int, passes over the data in fit().
    shuffle : bool, shuffle the rows before each epoch of fit().
    random_state : int (default 0) or None (a fresh draw), seed of the shuffle and of
        Hedge's draws.
    detector : None or an ``olearn.drift`` detector (ADWIN, DDM, EDDM, PageHinkley)
        watching the ensemble's errors; on a detection the weights start again from
        uniform (see the module's docstring).

    Attributes
    ----------
    members_ : the fitted members.  weights_ : their weights for the next row.
    cumulative_loss_ : each member's loss since the start (or the last detected drift).
    detector_, drifts_ : with ``detector``: the detector in use, and the rows (0-based)
        where a drift was detected and the ensemble re-weighted.
    """
    _capabilities = {"multiclass": "members"}
    members = {"learners": "members_"}  # (the detector, optional, is held by hand)

    def __init__(self, learners=None, combine="ewa", eta=None, loss=None, epochs=1,
                 shuffle=True, random_state=0, detector=None):
        store_params(self, locals())

    # ------------------------------------------------------------ set-up
    def _default_learners(self):
        raise ValueError("ExpertAdvice needs a list of learners")

    def _learners(self):
        learners = self.learners
        if learners is None:
            learners = self._default_learners()
        if isinstance(learners, Estimator) or not hasattr(learners, "__len__") \
                or len(learners) == 0:
            raise ValueError("learners must be a non-empty list of olearn learners")
        for m in learners:
            if not hasattr(m, "predict_learn"):
                raise TypeError(f"{type(m).__name__} is not an online learner "
                                "(no predict_learn)")
        return list(learners)

    def _is_classifier(self):
        learners = self.learners if self.learners is not None else self._default_learners()
        return bool(learners) and is_classifier(learners[0])

    def _params(self):
        check_choice("combine", self.combine, COMBINE)
        classify = self._is_classifier()
        loss = self.loss or ("zero-one" if classify else "squared")
        check_choice("loss", loss, CLASSIFY_LOSSES if classify else REGRESS_LOSSES)
        eta = 0.0 if self.eta is None else check_number("eta", self.eta, low=0.0,
                                                         low_open=True)
        seed = self.random_state if isinstance(self.random_state, (int, np.integer)) else 0
        det = getattr(self, "detector", None)
        if det is not None and not hasattr(det, "update_many"):
            raise TypeError(f"detector must be an olearn.drift detector, got {det!r}")
        return COMBINE.index(self.combine), eta, loss, int(seed) & 0x7FFFFFFF

    def _start(self):
        learners = self._learners()
        kinds = {self._kind(m) for m in learners}
        if len(kinds) != 1:
            raise ValueError("learners must be all classifiers or all regressors")
        self.members_ = [clone(m) for m in learners]
        N = len(self.members_)
        self.alive_ = np.ones(N, dtype=np.bool_)
        self._comb = np.array([0.0, 1.0, 0.0, 0.0])
        self._L = np.zeros(N)
        self._Ltot = np.zeros(N)
        self.t_ = 0
        if self._is_classifier():
            self.classes_ = None
        det = getattr(self, "detector", None)
        self.detector_ = None if det is None else det.clone()
        self.drifts_ = []

    @staticmethod
    def _kind(m):
        return is_classifier(m)

    def _is_fresh(self):
        return "members_" not in self.__dict__

    def _reset(self):
        for name in ("members_", "alive_", "_comb", "_L", "_Ltot", "t_", "classes_",
                     "n_features_in_", "state_", "detector_", "drifts_"):
            self.__dict__.pop(name, None)

    # ------------------------------------------------------------ fitted views
    @property
    def cumulative_loss_(self):
        """Each member's loss over every row it learned (progressive)."""
        check_is_fitted(self, "members_")
        return self._Ltot.copy()

    @property
    def weights_(self):
        """The members' normalised weights for the next row."""
        check_is_fitted(self, "members_")
        N = len(self.members_)
        combine, _, _, _ = self._params()
        w = np.zeros(N)
        self._combine(np.zeros((1, N), np.int64), np.zeros((1, N)), np.zeros((1, N)),
                      False, w_out=w)
        return w / w.sum() if combine == 0 else w

    def _weighted(self, name):
        """The members' ``name`` (coef_ or intercept_) averaged with the current weights:
        follow-the-leader's and Hedge's is the model of one member, EWA's a summary (its
        predictions are a vote, not this linear model)."""
        w = self.weights_
        parts = [wj * np.asarray(getattr(m, name)) for wj, m in zip(w, self.members_)
                 if wj > 0]
        return sum(parts[1:], parts[0])

    @property
    def coef_(self):
        """The members' weights averaged with the ensemble's current weights."""
        check_is_fitted(self, "members_")
        return self._weighted("coef_")

    @property
    def intercept_(self):
        """The members' intercepts averaged with the ensemble's current weights."""
        check_is_fitted(self, "members_")
        return self._weighted("intercept_")

    # ------------------------------------------------------------ combining
    def _combine(self, votes, values, losses, learn, w_out=None):
        from ._combine import combine
        mode, eta, _, seed = self._params()
        n, N = losses.shape
        K = len(self.classes_) if self._is_classifier() and self.classes_ is not None else 0
        if self._is_classifier() and K == 0:
            K = 1
        out_cls = np.zeros(n, dtype=np.int64)
        out_val = np.zeros(n)
        scores = np.zeros((n, max(K, 1)))
        w = np.zeros(N) if w_out is None else w_out
        self._writable()
        combine(votes, values, losses, self.alive_, self._comb, self._L, self._Ltot,
                np.array([mode, eta, float(K), float(seed), 1.0 if learn else 0.0]), w,
                out_cls, out_val, scores)
        return out_cls, out_val, scores

    def reweight(self):
        """Uniform weights from the next row on: every member's loss counts from zero
        and the doubling trick starts again (what a detected drift does)."""
        check_is_fitted(self, "members_")
        self._L[:] = 0.0
        self._Ltot[:] = 0.0
        self._comb[1] = 1.0                 # the next row starts an epoch of length 1
        self._comb[3] = self._comb[0]       # epochs counted from here
        return self

    def _combine_watched(self, votes, values, losses, yi, y):
        """:meth:`_combine` (learning) with the detector watching the ensemble's errors:
        at a detection the rows up to it are combined, the weights reset, and the rest
        combined again."""
        det = self.__dict__.get("detector_")
        if det is None:
            return self._combine(votes, values, losses, True)
        n = losses.shape[0]
        classify = yi is not None
        parts = []
        s = 0
        while s < n:
            snap = (self._L.copy(), self._Ltot.copy(), self._comb.copy())

            def rows(a, stop=None):
                return a[s:stop] if a.shape[0] == n else a
            oc, ov, sc = self._combine(rows(votes), rows(values), losses[s:], True)
            err = (oc != yi[s:]).astype(np.float64) if classify else np.abs(ov - y[s:])
            flags = det.detect(err, stop=True)
            k = flags.shape[0]
            if k and flags[-1] == 2:                          # a drift at row s + k - 1
                self._L[:], self._Ltot[:], self._comb[:] = snap
                oc, ov, sc = self._combine(rows(votes, s + k), rows(values, s + k),
                                           losses[s:s + k], True)
                self.drifts_.append(int(self.t_ + s + k - 1))
                self.reweight()
            parts.append((oc[:k], ov[:k], sc[:k]))
            s += k
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))

    def _losses(self, labels_idx, scores, values, yi, y):
        """(n, N) losses of the members' pre-update predictions."""
        loss = self._params()[2]
        if loss == "zero-one":
            return (labels_idx != yi[:, None]).astype(np.float64)
        if loss == "hinge":
            out = np.empty(labels_idx.shape)
            for j, s in enumerate(scores):
                s = np.asarray(s, dtype=np.float64)
                if s.ndim == 1 or s.shape[1] == 1:
                    s = s.reshape(-1)
                    m = np.where(yi == 1, s, -s)
                else:
                    rows = np.arange(s.shape[0])
                    true = s[rows, np.minimum(yi, s.shape[1] - 1)]
                    other = s.copy()
                    other[rows, np.minimum(yi, s.shape[1] - 1)] = -np.inf
                    m = true - other.max(axis=1)
                out[:, j] = np.minimum(1.0, np.maximum(0.0, 1.0 - m) / 2.0)
            return out
        err = values - y[:, None]
        return err * err if loss == "squared" else np.abs(err)

    # ------------------------------------------------------------ a batch
    def _register(self, y, classes):
        """The ensemble's sorted classes grow with the labels (as the members' do)."""
        labels = np.unique(y) if classes is None else np.unique(np.concatenate(
            [np.asarray(classes), np.unique(y)]))
        if self.classes_ is None:
            self.classes_ = labels
        else:
            new = np.setdiff1d(labels, self.classes_)
            if len(new):
                self.classes_ = np.union1d(self.classes_, new)

    def _pass(self, X, y, classes=None, sample_weight=None):
        """One progressive pass of every member over a validated chunk; returns the
        ensemble's (predicted class indices or values, scores)."""
        classify = self._is_classifier()
        loss = self._params()[2]
        n, N = X.shape[0], len(self.members_)
        if classify:
            self._register(y, classes)
        else:
            y = np.asarray(y, dtype=np.float64)
            if not np.isfinite(y).all():
                raise ValueError("y contains NaN or infinity")
        combiner = self._combiner(n, loss) if classify else None
        fused = self._fused_pass(X, y, classes, sample_weight, combiner)
        if combiner is not None and combiner.done:     # combined in the fused pass
            self.t_ += n
            return combiner.out_cls, combiner.scores
        if classify:
            yi = np.searchsorted(self.classes_, y)
            votes = np.zeros((n, N), dtype=np.int64)
            values = np.zeros((1, N))
        else:
            yi = None
            votes = np.zeros((1, N), dtype=np.int64)
            values = np.zeros((n, N))
        member_scores = []
        for j, m in enumerate(self.members_):
            if not self.alive_[j]:
                member_scores.append(np.zeros(n))
                continue
            if j in fused:  # (its pass was a member's of a fused grid: olearn.fused)
                s, p = fused[j]
                if classify:
                    same = np.array_equal(m.classes_, self.classes_)  # (index = vote)
                    votes[:, j] = np.minimum(p, len(m.classes_) - 1) if same else \
                        np.searchsorted(self.classes_, core(m).progressive_output(s, p, False))
                    member_scores.append(core(m).progressive_output(s, p, True)
                                         if loss == "hinge" else None)
                else:
                    values[:, j] = core(m).progressive_output(s, p, True)
                    member_scores.append(None)
                continue
            try:
                if not isinstance(m, OnlineLearner):  # a meta-model member (OnDrift, ...)
                    if sample_weight is not None or loss == "hinge":
                        raise ValueError(f"{type(m).__name__} members take no sample "
                                         "weights and no hinge loss")
                    out = m.predict_learn(X, y)
                    if classify:
                        votes[:, j] = np.searchsorted(self.classes_, out)
                    else:
                        values[:, j] = out
                    member_scores.append(None)
                elif classify:  # (atomic: a diverging member keeps its last state)
                    labels, s = m.predict_learn(X, y, return_scores="both",
                                                sample_weight=sample_weight, classes=classes)
                    votes[:, j] = np.searchsorted(self.classes_, labels)
                    member_scores.append(s if loss == "hinge" else None)
                else:
                    values[:, j] = m.predict_learn(X, y, return_scores=True,
                                                   sample_weight=sample_weight)
                    member_scores.append(None)
            except DivergenceError:
                self.alive_[j] = False
                member_scores.append(np.zeros(n))
        if not self.alive_.any():
            raise DivergenceError(f"{type(self).__name__}: every member diverged")
        losses = self._losses(votes, member_scores, values, yi,
                              None if classify else y)
        if classify:
            losses[:, ~self.alive_] = 0.0
        else:
            losses[:, ~self.alive_] = 0.0
            values[:, ~self.alive_] = 0.0
        out_cls, out_val, scores = self._combine_watched(votes, values, losses, yi,
                                                         None if classify else y)
        self.t_ += n
        return (out_cls if classify else out_val), scores

    def _fused_pass(self, X, y, classes, sample_weight, combiner=None):
        """The members that share a first-order rule, in one compiled pass per group
        (``olearn.fused.Fused``; the same results as their own passes): ``{index:
        (scores, pred)}``; ``{}`` when a member diverged there (the members are then as
        before, and each runs its own pass, as before).  With a ``combiner``
        (:meth:`_combiner`), a pass of all the members in one group combines the rows
        too (``combiner.done``)."""
        from ..fused import Fused
        fused = self.__dict__.get("_fused")
        if fused is None or len(fused.members) != len(self.members_) or \
                any(a is not b for a, b in zip(fused.members, self.members_)):
            fused = self._fused = Fused(self.members_)
        try:
            return fused.run(X, y, classes, sample_weight, alive=self.alive_,
                             combiner=combiner)
        except DivergenceError:
            if combiner is not None:
                combiner.undo()
            return {}

    def _combiner(self, n, loss):
        """The ensemble's combination, to run inside the members' fused pass
        (``_combine.combine_sink``): binary, every member alive and fused in one group,
        no detector (which cuts the batch at a drift), the zero-one or hinge loss."""
        if self.__dict__.get("detector_") is not None or not self.alive_.all() \
                or len(self.classes_) != 2 or loss not in ("zero-one", "hinge") \
                or len(self.members_) < 2:
            return None
        self._writable()
        mode, eta, _, seed = self._params()
        return _Combiner(self, (self._L, self._Ltot, self._comb), n,
                         np.array([mode, eta, 2.0, float(seed), 1.0]), loss == "hinge")

    def _writable(self):
        for name in ("_L", "_Ltot", "_comb", "alive_"):   # read-only after unpickling
            a = getattr(self, name)
            if not a.flags.writeable:
                setattr(self, name, a.copy())

    def _partial(self, X, y, classes=None, sample_weight=None):
        fresh = self._is_fresh()
        self._params()
        X, y, sample_weight = validate_batch(self, X, y, sample_weight, reset=fresh)
        if fresh:
            self._start()
        return self._pass(X, y, classes, sample_weight)

    def _atomically(self, run, x, sample_weight=None):
        """``run()``, the ensemble as it was if it raises: its attributes copied before,
        the members whole when the input is extreme (``olearn.wrapper.extreme_input``:
        one member can then fail after others learned; a member's own call is atomic)."""
        from ..wrapper import extreme_input, whole_copy
        d = self.__dict__
        kept = whole_copy(self) if extreme_input(x, sample_weight) else {
            k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in d.items()}
        try:
            return run()
        except BaseException:
            d.clear()
            d.update(kept)
            raise

    @locked
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue learning from a batch, one row at a time, in order."""
        self._atomically(lambda: self._partial(X, y, classes, sample_weight), X,
                         sample_weight)
        return self

    @locked
    def fit(self, X, y, sample_weight=None):
        """Start afresh, then ``epochs`` passes (shuffled when ``shuffle``)."""
        self._reset()
        self._params()
        X, y, sample_weight = validate_batch(self, X, y, sample_weight, reset=True)
        if sample_weight is not None and not np.any(sample_weight):
            raise ValueError("Sample weights must contain at least one non-zero number.")
        self._start()
        classes = np.unique(y) if self._is_classifier() else None
        rng = _rng(self.random_state) if self.shuffle else None
        for _ in range(max(1, int(self.epochs))):
            if rng is not None:
                order = rng.permutation(X.shape[0])
                sw = None if sample_weight is None else np.asarray(sample_weight)[order]
                self._pass(X[order], y[order], classes, sw)
            else:
                self._pass(X, y, classes, sample_weight)
        return self

    def _progressive(self, X, y, classes, sample_weight, return_scores):
        """``predict_learn``'s pass (``olearn.protocol.Progressive``): the ensemble's
        scores and pre-update predictions, learning as it goes."""
        out, scores = self._atomically(
            lambda: self._partial(X, y, classes, sample_weight), X, sample_weight)
        return scores, out

    def _progressive_output(self, scores, out, return_scores):
        return self._output(out, scores, return_scores)

    def _output(self, out, scores, return_scores):
        if not self._is_classifier():
            return out
        if return_scores:
            return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else \
                (scores[:, 0].copy() if scores.shape[1] == 1 else scores)
        return self.classes_[np.minimum(out, len(self.classes_) - 1)]

    # ------------------------------------------------------------ predicting
    def _member_votes(self, X):
        N = len(self.members_)
        n = X.shape[0]
        classify = self._is_classifier()
        votes = np.zeros((n if classify else 1, N), dtype=np.int64)
        values = np.zeros((1 if classify else n, N))
        for j, m in enumerate(self.members_):
            if not self.alive_[j]:
                continue
            if classify:
                votes[:, j] = np.searchsorted(self.classes_, m.predict(X))
            else:
                values[:, j] = m.predict(X)
        return votes, values

    def predict_rows(self, X, return_scores=False):
        """The ensemble's predictions (scores: each class's weight) with the current
        weights, learning nothing."""
        votes, values = self._member_votes(X)
        out_cls, out_val, scores = self._combine(
            votes, values, np.zeros((X.shape[0], len(self.members_))), False)
        return self._output(out_cls if self._is_classifier() else out_val, scores,
                            return_scores)

    # ------------------------------------------------------------ one at a time
    def _one(self, x, y, learn):
        classify = self._is_classifier()
        if self._is_fresh():
            if not learn:
                return None
            self._params()
            self._start()
            if classify:
                self.classes_ = None
        N = len(self.members_)
        preds = []
        for j, m in enumerate(self.members_):
            if not self.alive_[j]:
                preds.append(None)
                continue
            try:
                preds.append(m.predict_learn_one(x, y) if learn else m.predict_one(x))
            except DivergenceError:
                if not learn:
                    raise
                self.alive_[j] = False
                preds.append(None)
        if learn:
            self.n_features_in_ = self.members_[0].n_features_in_
        if classify:
            if learn:
                before = self.classes_
                self._register(np.array([y]), None)
            else:
                before = self.classes_
            if before is None and not learn:
                return None
            votes = np.zeros((1, N), dtype=np.int64)
            for j, p in enumerate(preds):
                if p is not None:
                    votes[0, j] = np.searchsorted(self.classes_, p)
            yi = np.searchsorted(self.classes_, np.array([y])) if learn else None
            losses = (votes != yi[:, None]).astype(float) if learn else np.zeros((1, N))
            if learn:   # no prediction (no class known yet): a mistake
                losses[0, [p is None for p in preds]] = 1.0
            losses[:, ~self.alive_] = 0.0
            values = np.zeros((1, N))
        else:
            values = np.array([[0.0 if p is None else float(p) for p in preds]])
            votes = np.zeros((1, N), dtype=np.int64)
            losses = (values - float(y)) ** 2 if learn and self._params()[2] == "squared" \
                else (np.abs(values - float(y)) if learn else np.zeros((1, N)))
            losses[:, ~self.alive_] = 0.0
        if learn and self.__dict__.get("detector_") is not None and \
                (not classify or before is not None):
            out, val, scores = self._combine_watched(
                votes, values, losses, np.searchsorted(self.classes_, np.array([y]))
                if classify else None, None if classify else np.array([float(y)]))
        else:
            out, val, scores = self._combine(votes, values, losses, learn)
        if learn:
            self.t_ += 1
        if classify and (before is None or all(p is None for p in preds)):
            return None
        if classify:
            return self.classes_[min(int(out[0]), len(self.classes_) - 1)]
        return float(val[0])

    @locked
    def learn_one(self, x, y, sample_weight=1.0):
        """Learn from one example (dict or 1-D array)."""
        self._atomically(lambda: self._one(x, y, True), x)
        return self

    @locked
    def predict_learn_one(self, x, y, sample_weight=1.0):
        """Predict one example, then learn from it (one call per member)."""
        return self._atomically(lambda: self._one(x, y, True), x)

    @locked
    def predict_one(self, x):
        """The ensemble's prediction for one example (None / 0.0 before any)."""
        if self._is_fresh():
            return None if self._is_classifier() else 0.0
        return self._one(x, None, False)

    # ------------------------------------------------------------ persistence
    def export_state(self):
        from .._nested import export_model
        check_is_fitted(self, "members_")
        arrays = {"losses": self._L, "total_losses": self._Ltot, "combine": self._comb,
                  "alive": self.alive_.astype(np.uint8)}
        meta = {"t_": int(self.t_), "n_features_in_": int(self.n_features_in_),
                "members": [export_model(m, f"m{j}.", arrays)
                            for j, m in enumerate(self.members_)]}
        if self._is_classifier():
            arrays["classes_"] = np.asarray(self.classes_)
        det = self.__dict__.get("detector_")
        if det is not None:
            meta["detector"] = export_model(det, "detector.", arrays)
            meta["drifts_"] = [int(i) for i in self.drifts_]
        return meta, arrays

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = cls(**params)
        cls._take_state(model, meta, arrays)  # the class's own step, on its new instance
        return model

    def _take_state(self, meta, arrays):
        """``from_state``'s work on the fresh model ``self``: every part checked."""
        from .._nested import import_model
        learners = self._learners()
        if len(learners) != len(meta["members"]):
            raise ValueError("the number of members does not match the learners")
        self._params()
        self._start()
        self.members_ = [import_model(info, f"m{j}.", arrays, like=proto)
                         for j, (info, proto) in enumerate(zip(meta["members"], learners))]
        N = len(learners)
        for name, attr, dtype in (("losses", "_L", np.float64),
                                  ("total_losses", "_Ltot", np.float64),
                                  ("combine", "_comb", np.float64),
                                  ("alive", "alive_", np.bool_)):
            a = np.array(arrays[name], dtype=dtype)
            want = (4,) if name == "combine" else (N,)
            if a.shape != want or (dtype is np.float64 and not np.isfinite(a).all()):
                raise ValueError(f"{name} must be {want} finite values")
            setattr(self, attr, a)
        if self._is_classifier():
            self.classes_ = arrays["classes_"]
        self.t_ = int(meta["t_"])
        self.n_features_in_ = int(meta["n_features_in_"])
        if "detector" in meta:
            self.detector_ = import_model(meta["detector"], "detector.", arrays)
            self.drifts_ = [int(i) for i in meta["drifts_"]]

    def _estimator_kind(self):
        try:
            return "classifier" if self._is_classifier() else "regressor"
        except (TypeError, ValueError):
            return None


class _Combiner:
    """``ExpertAdvice``'s combination of a batch's rows inside its members' fused pass
    (``olearn.fused.Fused.run``'s ``combiner``): the same rule as ``_combine.combine``
    (``combine_row``), row by row as the members predict, with no (n, N) arrays of
    votes and losses; :meth:`undo` puts the weights back when the pass fails."""

    def __init__(self, ens, weights, n, params, hinge):
        self.ens = ens
        #: the ensemble's running losses, total losses and combination state (its
        #: ``_L``, ``_Ltot``, ``_comb``), written in place by the pass
        self.weights = weights
        self.params = params
        self.hinge = hinge
        self.out_cls = np.zeros(n, dtype=np.int64)
        self.scores = np.zeros((n, 2))
        self.done = False
        self._saved = tuple(a.copy() for a in weights)

    def accepts(self, lead):
        """Whether the fused group led by ``lead`` votes in the ensemble's classes."""
        return np.array_equal(lead.classes_, self.ens.classes_)

    def run(self, name, rows, yk, sw, state, P, counts, lo, hi):
        """The fused pass over rows ``lo:hi`` of the batch (``rows``, ``yk``, ``sw``
        theirs: a chunk, ``olearn._rows.run_chunks``); returns the rows it did."""
        from ._combine import combined_entry
        e = self.ens
        N = len(e.members_)
        losses, total, comb = self.weights
        out = (e.alive_, comb, losses, total, self.params, np.zeros(N), self.out_cls[lo:hi],
               np.zeros(1), self.scores[lo:hi], np.zeros(N, dtype=np.int64), np.zeros(N),
               np.zeros(N), self.hinge)
        done = combined_entry(name)(rows, yk, sw, state, P, counts, out)
        self.done = lo + done == len(self.out_cls)
        return done

    def undo(self):
        for a, saved in zip(self.weights, self._saved):
            a[:] = saved
        self.done = False
