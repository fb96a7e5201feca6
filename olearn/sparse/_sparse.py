"""What the sparse learners share on the Python side.

* The state: the learner's per-coordinate arrays (``(K, d)`` each, the first named
  ``W`` whatever it holds: weights in scale units, gradient sums or FTRL's ``z``),
  then ``A`` (K, 12), the scratch and counters of ``olearn._compiled.lazy``.
* The weights are materialised on demand from that lazy state: ``_weights_at(cols)``
  gives the true weights of some columns (all when ``cols`` is None) without changing
  the state; ``coef_``, ``intercept_``, ``decision_function`` and save use it for every
  column, ``predict_one`` for the example's columns only (O(non-zeros)).  A learner
  gives its closed form ``_weights(cols, penalised)``; the intercept's column 0 takes
  it without the penalty (``_free_intercept``: the kernels read ``A[0, FREE_]``, see
  ``olearn._compiled.lazy``).
* ``n_nonzero_``: the non-zero weights of ``coef_`` now (the intercept not counted).
* The hyper-parameters the compiled score reads are written into ``A`` before each
  call (``_prime``), so a ``set_params`` between calls is seen by the first row.
* Before a binary model becomes multiclass, owed shrinks are applied (``_settle``),
  so the halving of the signed slots acts on settled weights.
"""
import math

import numpy as np

from .._compiled.lazy import AUX_COLUMNS, FREE_, HYPER_, P_, Q_, T_
from .._state import Slot
from ..linear import LinearDecision, LinearModel
from .._validation import check_bool, check_choice, check_number  # noqa: F401


#: how ``olearn.mix`` combines ``A``'s columns (the shrinks settled and the scale ``P``
#: folded: 1, or 0 before any round): scratch reset, rounds summed, the scale 1 if a
#: member has begun a round, the rest (flags, hyper-parameters) the first member's
AUX_MIX = ("reset", "reset", "sum", "max", "reset") + ("first",) * (AUX_COLUMNS - 5)


class SparseModel(LinearDecision):
    """Mixin for the sparse learners (put it before ``OnlineClassifier``/``OnlineRegressor``)."""

    _capabilities = {"linear": True}

    #: the per-coordinate arrays: (name, signed[, mixing rule]) in kernel order, ``W``
    #: first; the rule (``olearn.mixing``) applies to the state made explicit
    #: (``_explicit_state``) and defaults to the weighted mean
    _arrays = (("W", True),)
    #: no penalty on the intercept's weight (column 0 with ``fit_intercept``)
    _free_intercept = True
    #: the per-coordinate arrays kept coordinate-major (Fortran order of their ``(K,
    #: d)`` shape: a coordinate's ``K`` class entries contiguous), for the learners
    #: whose kernels run over the classes inside the row's entries (FTRL, RDA,
    #: AdaRDA): a softmax row then reads a few cache lines per non-zero, not ``K``
    #: lines strided by ``d``.  Shapes, values and saved files are the same either way
    #: (a state in C order, loaded or mixed, is turned once before the next pass)
    _coordinate_major = False

    @property
    def _slots(self):
        return tuple(Slot(a[0], ("K", "d"), 0.0, signed=a[1], mix=a[2] if len(a) > 2
                          else "mean") for a in self._arrays) + \
            (Slot("A", ("K", AUX_COLUMNS), 0.0, mix=AUX_MIX),)

    def _alloc(self, slot, K, d):
        if self._coordinate_major and slot.axes == ("K", "d"):
            return np.full((K, d), self._fill(slot), dtype=np.float64, order="F")
        return super()._alloc(slot, K, d)

    def _state_tuple(self):
        if self._coordinate_major:
            state = self.state_
            turned = False
            for name, *_ in self._arrays:
                if not state[name].flags.f_contiguous:
                    state[name] = np.asfortranarray(state[name])
                    turned = True
            if turned:
                self._state_changed()
        return super()._state_tuple()

    def _check_hyper(self):
        """Validate the learner's own hyper-parameters (override)."""

    def _hyper(self):
        """The values the compiled score reads from ``A[0, HYPER_:]`` (override)."""
        return ()

    def _check_params(self):
        self._check_hyper()
        state = getattr(self, "state_", None)
        if state is not None and "A" in state:
            self._prime(state)

    def _prime(self, state):
        """Write what the compiled score reads before any rule has run (the
        hyper-parameters) into ``state``: this model's own, or one class block of a
        ``OneVsRest`` over it (which calls this for each block)."""
        h = self._hyper()
        A = state["A"]
        A[0, HYPER_:HYPER_ + len(h)] = h
        if self._free_intercept:
            A[0, FREE_] = float(self.fit_intercept)

    def _start(self, n_features):
        super()._start(n_features)
        self._check_params()  # the fresh state's first row reads the hyper-parameters

    # ------------------------------------------------------------ materialised model
    def _weights_at(self, cols):
        """True weights ``(K, len(cols))`` (every column when None), state unchanged;
        the intercept's free of the penalty."""
        W = self._weights(cols, True)
        at = self._free_at(cols)
        if len(at):
            W[:, at] = self._weights(np.zeros(1, np.intp), False)
        return W

    def _free_at(self, cols):
        """Where the free intercept's column 0 is among ``cols`` (all columns when
        None): positions, none without it."""
        if not (self._free_intercept and self.fit_intercept):
            return ()
        return [0] if cols is None else np.flatnonzero(np.asarray(cols) == 0)

    def _weights(self, cols, penalised):
        """The learner's closed form at ``cols`` (all when None), with its penalty or,
        ``penalised=False``, without it (override)."""
        raise NotImplementedError

    def _predict_weights(self):
        return self._weights_at(None)

    #: one example (``predict_one``) scored by the declared compiled score, the pass's
    #: own, from the lazy state in O(non-zeros), as the linear learners do (the numpy
    #: closed form ``_weights_at`` per example ran FTRL's dict loop at 0.38x River's)
    _row_scores = LinearModel._row_scores

    @property
    def n_nonzero_(self):
        """Number of non-zero weights of ``coef_`` (all class rows; intercept excluded)."""
        return int(np.count_nonzero(self.coef_))

    def _weights_finite(self):
        """O(1) from the running sums in ``A``; every array too (AdaGrad-style sums of
        squared gradients overflow first) when the model is small enough to be copied
        for roll-back anyway (``olearn.base.SNAPSHOT_BYTES``)."""
        from ..base import SNAPSHOT_BYTES
        A = self.state_["A"]
        if not np.isfinite(A[0]).all():
            return False
        if sum(a.nbytes for a in self.state_.values()) > SNAPSHOT_BYTES:
            return True
        return all(np.isfinite(a).all() for a in self.state_.values())

    def _settle(self):
        """Apply every owed shrink to the state (learners with shrinkage override)."""

    def _explicit_state(self):
        """The state with every owed shrink applied, in place (for ``olearn.mix``)."""
        self._settle()
        return self.state_

    def _to_multiclass(self, old_n, n):
        self._settle()
        super()._to_multiclass(old_n, n)

    # ------------------------------------------------------------ helpers
    def _cols(self, name, cols):
        a = self.state_[name]
        return a if cols is None else a[:, cols]

    def _round(self):
        """Rounds completed so far (``t``)."""
        return float(self.state_["A"][0, T_])

    def _scale_sum(self):
        A = self.state_["A"]
        return (float(A[0, P_]) if A[0, T_] > 0 else 1.0), float(A[0, Q_])


def shrink(W, owed, theta=math.inf):
    """``sign(W) max(|W| - owed, 0)`` where ``|W| <= theta`` (``W`` elsewhere)."""
    a = np.abs(W)
    shrunk = np.sign(W) * np.maximum(a - owed, 0.0)
    return shrunk if theta == math.inf else np.where(a <= theta, shrunk, W)
