"""What the estimators of ``olearn.linear`` share on the Python side.

* :class:`LinearDecision`: the linear decision function of every linear family
  (first-order, second-order, sparse, one-vs-rest over them): scores ``W x`` from the
  prediction weights (``_predict_weights``, ``W`` (K, d) by default, the constant
  feature in column 0), ``coef_`` and ``intercept_``, the scorer hook
  ``batch_scores`` of the protocol base (which knows no linear algebra);
* the three state arrays of ``olearn._compiled.averaging`` (weights ``W``, averaging
  accumulator ``U``, per-row scratch and counters ``A``) ahead of a learner's own
  slots;
* ``average``: Polyak-Ruppert averaging; the averaged weights
  ``(S W - U) / t`` (the plain mean of the iterates ``w_1 .. w_t``) are what
  ``decision_function``, ``predict``, ``coef_`` and the progressive predictions use,
  while the raw iterate keeps learning;
* a check that hyper-parameters which shape the state (``average``, a schedule that
  needs per-coordinate memory) were not changed after learning started;
* predictions of one example in O(non-zeros) from the lazy state, by the declared
  score (``_row_scores``),
  and an O(1) test of the weights for the divergence check (``_weights_finite``);
* the validation helpers, re-exported from ``olearn._validation``.
"""
import math

import numpy as np

from .._compiled.averaging import AUX_COLUMNS, SCALE_, SQ_, SUM_, T_
from .._compiled.driver import REGRESSION
from .._estimator import check_is_fitted
from .._state import Slot
from .._validation import check_bool, check_choice, check_number  # noqa: F401


#: how ``olearn.mix`` combines ``A``'s columns, the state made explicit (scale 1, ``S`` 0):
#: scratch reset, rounds ``t`` summed, ``||W||^2`` recomputed, the scale 1 (0 only if no
#: member has begun a round: a class block that never learned reads 0), the free
#: column summed (ALMA's update count, NDAG's sum of squared normalised inputs)
AUX_MIX = ("reset", "reset", "sum", "reset", "reset", "max", "sum")


def linear_slots(average):
    """The three leading slots (see ``olearn._compiled.averaging``)."""
    return (Slot("W", ("K", "d"), 0.0, signed=True),
            Slot("U", ("K", "d" if average else 0), 0.0, signed=True),
            Slot("A", ("K", AUX_COLUMNS), 0.0, mix=AUX_MIX))


class LinearDecision:
    """Mixin: a linear model's scores, ``coef_`` and ``intercept_`` from its prediction
    weights (put it before ``OnlineClassifier``/``OnlineRegressor``)."""

    def _predict_weights(self):
        """The (K, d) weights used to predict, the constant feature's in column 0
        (lazy or averaging learners override this)."""
        return self.state_["W"]

    def batch_scores(self, X):
        """Scores ``w_k.x + b_k`` of validated rows, (n, K)."""
        W = self._predict_weights()
        b = int(self.fit_intercept)
        scores = np.asarray(X @ W[:, b:b + X.shape[1]].T)
        if b:
            scores = scores + self._constant() * W[:, 0]
        return scores

    def _row_scores(self, row, n):
        """Scores of the one-row CSR triple ``row`` of length ``n``; O(non-zeros) when
        the prediction weights are at hand (lazy learners override this)."""
        return self._predict_weights()[:, row[1][:n]] @ row[2][:n]

    @property
    def coef_(self):
        """(K, n_features) weights (the intercept's left out); (n_features,) for a
        regressor."""
        check_is_fitted(self, "state_")
        W = self._predict_weights()
        i = int(self.fit_intercept)
        coef = W[:, i:i + self.n_features_in_].copy()
        return coef[0] if self._task() == REGRESSION else coef

    @property
    def intercept_(self):
        """(K,) intercepts ``c w_0`` (zeros without ``fit_intercept``)."""
        check_is_fitted(self, "state_")
        W = self._predict_weights()
        return self._constant() * W[:, 0] if self.fit_intercept else np.zeros(W.shape[0])


class LinearModel(LinearDecision):
    """Mixin for the linear learners (put it before ``OnlineClassifier``/``OnlineRegressor``)."""

    _capabilities = {"linear": True}

    def _extra_slots(self):
        return ()

    @property
    def _slots(self):
        return linear_slots(bool(self.average)) + tuple(self._extra_slots())

    def _check_hyper(self):
        """Validate the learner's own hyper-parameters (override)."""

    def _check_params(self):
        check_bool("average", self.average)
        self._check_hyper()
        state = getattr(self, "state_", None)
        if state is None:
            return
        K, d = state["W"].shape
        for s in self.slots:
            shape = tuple(K if a == "K" else d if a == "d" else a for a in s.axes)
            if s.name not in state or state[s.name].shape != shape:
                raise ValueError(f"a parameter that shapes the model's state (average, "
                                 f"schedule, ...) changed after learning started "
                                 f"(state {s.name!r}); call fit() to start afresh")

    def _predict_weights(self):
        W = self.state_["W"]
        U = self.state_["U"]
        A = self.state_["A"]
        t = A[0, T_]
        s = float(A[0, SCALE_]) if t > 0 else 1.0
        if U.shape[1] == 0 or t == 0:
            return W if s == 1.0 else s * W
        return ((A[0, SUM_] + s) * W - U) / t

    def _row_scores(self, row, n):
        """Scores of one row by the declared score (the pass's own) from the lazy state,
        in O(non-zeros), never materialising the weights; a buffer reused by the next
        call."""
        return self._scorer_row_scores(row, n)

    def _weights_finite(self):
        """The tracked ``||W||^2`` and the scale are finite (an infinite or NaN weight
        makes them so: O(1)), and so is every extra slot (AdaGrad's sums of squared
        gradients, say: O(d))."""
        A = self.state_["A"]
        return math.isfinite(A[0, SQ_]) and math.isfinite(A[0, SCALE_]) and all(
            np.isfinite(self.state_[s.name]).all() for s in self._extra_slots())

    def _explicit_state(self):
        """The lazy state made explicit, in place (for ``olearn.mix``): the scale folded
        into ``W`` (``s = 1``, ``S = 0``, as ``fold`` does) and, when averaging, ``U``
        replaced by the averaged weights ``wbar``; ``_after_mix`` turns a state of that
        form back into the kernels' form."""
        W, U, A = self.state_["W"], self.state_["U"], self.state_["A"]
        t = A[0, T_]
        if t > 0:
            if U.shape[1]:
                U -= A[0, SUM_] * W
            W *= A[0, SCALE_]
            A[0, SCALE_] = 1.0
            if U.shape[1]:
                np.subtract(W, U, out=U)
                U /= t
        A[0, SUM_] = 0.0
        return self.state_

    def _after_mix(self):
        """Back to the kernels' form from ``_explicit_state``'s (``U = W - t wbar``,
        ``t`` the mixed rounds), and ``||W||^2``, which ``A`` tracks."""
        W, U, A = self.state_["W"], self.state_["U"], self.state_["A"]
        if U.shape[1]:
            U *= -A[0, T_]
            U += W
        A[0, SQ_] = float(np.sum(W * W))

    def _to_multiclass(self, old_n, n):
        super()._to_multiclass(old_n, n)
        W = self.state_["W"]
        self.state_["A"][0, SQ_] = float(np.sum(W * W))  # -w/2 and +w/2: ||W||^2 halves


# the validation helpers, now in ``olearn._validation`` (one set of checkers)
__all__ = ["LinearDecision", "LinearModel", "linear_slots", "check_bool", "check_choice",
           "check_number"]
