"""Online feature selection (OFS): a linear model that never uses more than B features.

Wang, Zhao, Hoi and Jin, "Online feature selection and its applications", IEEE TKDE
26(3), 2014.

Full inputs (their "OFS via sparse projection"): predict ``sign(w_t . x_t)``; when
``y_t w_t . x_t <= 1``

    w~ = (1 - lam eta) w_t + eta y_t x_t,    w^ = min(1, 1 / (sqrt(lam) ||w~||)) w~,
    w_{t+1} = Truncate(w^, B)       (keep the B largest |w_i|, zero the others),

else ``w_{t+1} = (1 - lam eta) w_t``.

Partial inputs (``partial=True``, their OFS_P): the learner observes only B features of
each example: with probability ``epsilon`` B features drawn uniformly (exploration),
otherwise the features of the current support; it predicts with ``w_t . x~_t`` on the
observed part, and on ``y_t w_t . x~_t <= 1`` steps with the unbiased
``x^_i = x~_i / ((B/d) epsilon + [w_{t,i} != 0] (1 - epsilon))``, projects onto the
ball of radius ``1 / sqrt(lam)`` and truncates to B (no decay, as in their algorithm).
The random draws come from a small generator in the state, seeded by
``random_state``; ``predict`` and ``decision_function`` use every feature (the model
has at most B non-zero weights anyway).

Multiclass (an extension, not in the paper): the max-score hinge (Crammer and Singer),
``w_y += eta x``, ``w_s -= eta x`` for the highest-scoring wrong class ``s``, the
projection in the Frobenius norm, and the truncation keeps the B feature columns of
largest norm over the classes: B features in all.  The intercept's constant feature
is a feature like the others (it counts in B).

Cost: the support (at most B columns) is kept as a list beside the weights, so an
update costs O(K (B + non-zeros)) (the union of the support and the row; the B-th
largest norm by selection, ``np.partition``), never O(d); the decay and the projection
are a scale factor (O(1)); a row without an update costs O(K non-zeros).
"""
import math

import numpy as np
from numba import njit

from ..base import OnlineClassifier, Slot
from .._compiled.declare import declare
from .._compiled.driver import top_wrong
from .._compiled.lazy import AUX_COLUMNS, HYPER_, P_, R_, T_, begin
from .._params import store_params
from .._validation import check_bool, check_number, check_size
from ._sparse import SparseModel

NSUP_, RNG_ = 4, 5
PARTIAL_, EPS_, B_, EXPLORE_ = HYPER_, HYPER_ + 1, HYPER_ + 2, HYPER_ + 3
MASK48 = (1 << 48) - 1


@njit(inline="always")
def _uniform(A):
    """drand48's generator, its 48-bit state kept exactly in a float of ``A``."""
    x = np.int64(A[0, RNG_])
    x = (np.int64(0x5DEECE66D) * x + np.int64(11)) & np.int64(MASK48)
    A[0, RNG_] = float(x)
    return x / 281474976710656.0


@njit(inline="always")
def _explore(F, E, A, B, d):
    """Draw B distinct features of ``d`` (Floyd's method): flags in ``F[0]``, list in
    ``E[0]``."""
    n = 0
    for j in range(d - B, d):
        t = min(int(_uniform(A) * (j + 1)), j)
        if F[0, t] != 0.0:
            t = j
        F[0, t] = 1.0
        E[0, n] = t
        n += 1


@njit(inline="always")
def _observed(W, A, mask, masked, idx, val, out):
    """``out[k] = s W_k . x`` over the row's features, or over those flagged in
    ``mask`` when ``masked``."""
    s = A[0, P_] if A[0, T_] > 0.0 else 1.0
    for k in range(W.shape[0]):
        a = 0.0
        for j in range(idx.shape[0]):
            i = idx[j]
            if not masked or mask[0, i] != 0.0:
                a += W[k, i] * val[j]
        out[k] = s * a


@njit(inline="always")
def ofs_scores(state, idx, val, out):
    """``s W . x`` on the whole row (full inputs) or on the support's features (partial
    inputs: the features observed when not exploring; the weights outside the support
    are 0, so it is also the whole row's score)."""
    _observed(state[0], state[5], state[1], state[5][0, PARTIAL_] != 0.0, idx, val, out)


@njit(inline="always")
def ofs_begin(state, idx, val, out):
    """The round start: count it; with partial inputs, draw whether to explore, and
    when exploring the B features observed, and score the row on them."""
    W = state[0]
    F = state[3]
    A = state[5]
    begin(A)
    explore = False
    if A[0, PARTIAL_] != 0.0:
        B = int(A[0, B_])
        d = W.shape[1]
        explore = _uniform(A) < A[0, EPS_]
        if explore:
            _explore(F, state[4], A, min(B, d), d)
            _observed(W, A, F, True, idx, val, out)
    A[0, EXPLORE_] = 1.0 if explore else 0.0
    for k in range(W.shape[0]):
        A[k, R_] = out[k]


@njit(inline="always")
def _add(W, M, A, k, c, idx, val, partial, explore, F, frac, eps, cand, n):
    """``w_k += c x`` (or the partial ``x^``), listing the new support columns."""
    s = A[0, P_]
    for j in range(idx.shape[0]):
        i = idx[j]
        v = val[j]
        if partial:
            observed = F[0, i] != 0.0 if explore else M[0, i] == 1.0
            if not observed:
                continue
            v = v / (frac * eps + (1.0 - eps if M[0, i] == 1.0 else 0.0))
        if v == 0.0:
            continue
        W[k, i] += c * v / s
        if M[0, i] == 0.0:
            M[0, i] = 2.0  # new this round (set to 1 below)
            cand[n] = i
            n += 1
    return n


@njit(inline="always")
def ofs_rule(state, params, idx, val, y, sw, out, seen):
    """One OFS round (see the module docstring); ``params``: ``eta``, ``lam``, ``B``,
    ``partial``, ``epsilon``.  A sample weight multiplies the step."""
    W = state[0]
    M = state[1]
    S = state[2]
    F = state[3]
    E = state[4]
    A = state[5]
    eta, lam, Bf = params.eta, params.lam, params.B
    partial_f, eps = params.partial, params.epsilon
    K = W.shape[0]
    B = int(Bf)
    partial = partial_f != 0.0
    explore = partial and A[0, EXPLORE_] != 0.0
    A[0, PARTIAL_] = partial_f
    A[0, EPS_] = eps
    A[0, B_] = Bf
    step = eta * sw
    if K == 1:
        violated = y * A[0, R_] <= 1.0
        top = -1
    else:
        yi = int(y)
        top = top_wrong(A[:, R_], seen, yi)
        violated = top >= 0 and A[yi, R_] - A[top, R_] <= 1.0
    if not partial:
        A[0, P_] *= 1.0 - lam * eta
    if violated:
        nsup = int(A[0, NSUP_])
        cand = np.empty(nsup + idx.shape[0], dtype=np.int64)
        for c in range(nsup):
            cand[c] = int(S[0, c])
        n = nsup
        frac = min(B, W.shape[1]) / W.shape[1]
        if K == 1:
            n = _add(W, M, A, 0, step * y, idx, val, partial, explore, F, frac, eps,
                     cand, n)
        else:
            n = _add(W, M, A, int(y), step, idx, val, partial, explore, F, frac, eps,
                     cand, n)
            n = _add(W, M, A, top, -step, idx, val, partial, explore, F, frac, eps,
                     cand, n)
        norms = np.empty(n)
        sq = 0.0
        for c in range(n):
            i = cand[c]
            q = 0.0
            for k in range(K):
                q += W[k, i] * W[k, i]
            norms[c] = q
            sq += q
        s = A[0, P_]
        norm = s * math.sqrt(sq)
        if norm * math.sqrt(lam) > 1.0:
            A[0, P_] = s / (norm * math.sqrt(lam))
        thr = 0.0
        room = B
        if n > B:  # keep the B columns of largest norm (the first ones on ties)
            thr = np.partition(norms, n - B)[n - B]
            for c in range(n):
                if norms[c] > thr:
                    room -= 1
        kept = 0
        for c in range(n):
            i = cand[c]
            q = norms[c]
            keep = q > 0.0 and (n <= B or q > thr or (q == thr and room > 0))
            if keep and n > B and q == thr:
                room -= 1
            if keep:
                M[0, i] = 1.0
                S[0, kept] = i
                kept += 1
            else:
                for k in range(K):
                    W[k, i] = 0.0
                M[0, i] = 0.0
        A[0, NSUP_] = kept
    if A[0, P_] < 1e-100:  # fold the scale into the (at most B) support columns
        s = A[0, P_]
        for c in range(int(A[0, NSUP_])):
            i = int(S[0, c])
            for k in range(K):
                W[k, i] *= s
        A[0, P_] = 1.0
    if explore:
        for c in range(E.shape[1]):
            F[0, int(E[0, c])] = 0.0
    return 1 if violated else 0


KERNELS = declare("sparse.ofs", params=("eta", "lam", "B", "partial", "epsilon"),
                  score=ofs_scores, begin=ofs_begin, binary=ofs_rule, multiclass=ofs_rule)


class OFSClassifier(SparseModel, OnlineClassifier):
    """Online feature selection, at most ``n_selected`` non-zero weights (Wang, Zhao,
    Hoi, Jin 2014; see the module docstring).

    Parameters
    ----------
    n_selected : int, B, the number of features kept (>= 1).
    eta : float, step (> 0).
    lam : float, regularisation (> 0, ``lam eta < 1``): the decay ``1 - lam eta`` and
        the projection radius ``1 / sqrt(lam)``.
    partial : bool, observe only B features of each example (OFS_P).
    epsilon : float in [0, 1], exploration rate of the partial variant.
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _kernels = KERNELS
    _capabilities = {"width_dependent": "with partial=True, the features observed are sampled "
                                "among the columns known so far"}

    def _instance_tags(self):
        return {} if self.partial else {"width_dependent": ""}

    def __init__(self, n_selected=100, eta=0.2, lam=0.01, partial=False, epsilon=0.2,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    @property
    def _slots(self):
        B = int(self.n_selected)
        partial = bool(self.partial)
        return (Slot("W", ("K", "d"), 0.0, signed=True),
                Slot("M", ("K", "d"), 0.0),
                Slot("S", ("K", B), 0.0),
                Slot("F", ("K", "d" if partial else 0), 0.0),
                Slot("E", ("K", B if partial else 0), 0.0),
                Slot("A", ("K", AUX_COLUMNS), 0.0))

    def _check_hyper(self):
        B = check_size("n_selected", self.n_selected)
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("lam", self.lam, low=0.0, low_open=True)
        if not self.lam * self.eta < 1.0:
            raise ValueError(f"lam * eta must be < 1, got {self.lam * self.eta!r}")
        check_bool("partial", self.partial)
        check_number("epsilon", self.epsilon, low=0.0, high=1.0)
        state = getattr(self, "state_", None)
        if state is not None and (state["S"].shape[-1] != int(B) or
                                  (state["F"].shape[-1] > 0) != bool(self.partial)):
            raise ValueError("n_selected or partial changed after learning started; "
                             "call fit() to start afresh")

    def _hyper(self):
        return (float(self.partial), float(self.epsilon), float(self.n_selected))

    def _prime(self, state):
        """The hyper-parameters, and the generator's seed when it has none yet."""
        super()._prime(state)
        A = state["A"]
        if A[0, RNG_] == 0.0:
            seed = self.random_state if isinstance(self.random_state, (int, np.integer)) \
                else 0
            A[0, RNG_] = float((int(seed) * 2654435761 + 0x330E) & MASK48) or 1.0

    def _kernel_params(self):
        return {"eta": self.eta, "lam": self.lam, "B": self.n_selected,
                "partial": self.partial, "epsilon": self.epsilon}

    _free_intercept = False  # (A[0, RNG_] is the generator's state here)
    #: why ``olearn.mix`` refuses two or more of these models
    _mix_refusal = ("OFS keeps at most n_selected non-zero weights per class, chosen by "
                    "its truncation: a mean of several selections has more")

    def _weights_at(self, cols):
        A = self.state_["A"]
        s = float(A[0, P_]) if A[0, T_] > 0 else 1.0
        return s * self._cols("W", cols)
