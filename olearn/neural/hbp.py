"""Hedge Backpropagation, HBP (Sahoo, Pham, Lu, Hoi, "Online Deep Learning: Learning
Deep Neural Networks on the Fly", IJCAI 2018, Algorithm 1 and equations 1-3, 5, 6).

A network of ``L`` hidden layers ``h^(l) = relu(W^(l) h^(l-1) + b^(l))``, ``h^(0) = x``,
with a softmax classifier on every depth, the input included: ``L + 1`` experts
``f^(l) = softmax(Theta^(l) h^(l))``, ``l = 0..L`` (eq. 2, 3).  The prediction is their
mixture ``F(x) = sum_l alpha^(l) f^(l)(x)`` (eq. 1); the model's score is its log
(binary: the log-odds ``log F_1 - log F_0``).  Each example, with every expert's
cross-entropy ``L(f^(l)(x), y)``:

* each head steps ``Theta^(l) <- Theta^(l) - eta alpha^(l) grad L(f^(l))`` (eq. 5);
* each hidden layer ``W^(l) <- W^(l) - eta sum_{j >= l} alpha^(j) grad_{W^(l)}
  L(f^(j))`` (eq. 6), computed as one backward pass in which the error
  ``alpha^(j) (y - f^(j))`` of head ``j`` is injected at depth ``j``; every error
  comes from the weights before their step;
* then ``alpha^(l) <- alpha^(l) beta^(loss_l)``, ``alpha^(l) <- max(alpha^(l), s / L)``,
  and ``alpha`` is normalised to sum 1 (Algorithm 1).

The hedge step assumes each ``loss_l`` in [0, 1]; ``hedge_loss`` says how it is made:

* ``"zero_one"`` (default, the paper's reading): each expert's own 0-1 mistake (its
  arg-max, over the classes seen, against ``y``; a tie among the top classes counts
  ``1 - 1 / n_tied`` when ``y`` is among them: a fair draw, and exact under a swap of
  the two labels);
* ``"clipped"``: the cross-entropy with ``f^(l)_y`` clipped below at ``1e-4``, divided
  by ``log(1e4)``;
* ``"minmax"``: the authors' code: the raw cross-entropies rescaled per example to
  ``(loss - min) / (max - min)`` over the experts (0 when all are equal).

Departures of the authors' code (LIBOL/ODL, Theano and a patched Keras 1.2.1) from the
paper, which this class does not follow: it has no classifier on the input (``L``
experts, not ``L + 1``), rescales the losses min-max (``"minmax"`` here) and floors
``alpha`` at a hard-coded 0.01 (``s / L`` here: the same for the paper's ``s = 0.2``,
``L = 20``).  A sample weight ``w`` multiplies every step and the hedge exponent
(``beta^(w loss_l)``).  Binary problems use one logit per head (``f^(l) = sigma``, the
two-class softmax with one logit fixed at 0).

Initial weights (seeded by ``random_state``): hidden layers uniform in
``+-sqrt(6 / fan_in)`` (He et al. 2015, relu units; the authors' Keras layers used
Glorot's range), biases likewise; every head starts at 0 (uniform predictions; input
columns that appear later start at 0).  ``alpha^(l) = 1 / (L + 1)``.  Plain SGD, as
Algorithm 1.  Cost per row ``O(nnz(x) (n_hidden + K) + L n_hidden (n_hidden + K))``.
"""
import math

import numpy as np
from numba import njit

from ..base import OnlineClassifier
from ..feature_map import FeatureMapModel
from ..protocol import Slot, declare
from .._estimator import check_is_fitted
from .._locking import locked
from .._params import store_params
from .._validation import (MAX_LAYERS, MAX_UNITS, MAX_WEIGHTS, check_choice, check_number,
                           check_size)
from ._layers import back, check_unchanged, forward, layer, native, uniform_init
from .mlp import _same_shapes

HEDGE_LOSSES = {"zero_one": 0, "clipped": 1, "minmax": 2}
TINY = 1e-300  # the smallest mixture probability whose log is taken
CLIP = 1e-4    # "clipped": the least probability the cross-entropy reads


@njit(inline="always")
def _sigmoid(a):
    if a >= 0.0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


@njit(inline="always")
def _shape(state):
    """``(L, n_hidden)`` from the arrays, checked against each other."""
    H, W, H0, U, A, Z = state[0], state[1], state[2], state[3][0], state[4][0], state[5][0]
    nh = W.shape[0]
    L = A.shape[0] - 1
    if L < 1 or H.shape[1] != L * (nh + 1) or Z.shape[0] != L * nh or \
            U.shape[0] != (L - 1) * nh * (nh + 1) or H0.shape[1] != W.shape[1] or \
            H0.shape[0] != H.shape[0]:
        raise ValueError("the network's layout does not fit its weight arrays")
    return L, nh


@njit(inline="always")
def _score(state, idx, val, out):
    """Every expert's logits into ``P`` (K, L + 1); ``out``: the mixture's log."""
    H, W, H0, U, A, Z = state[0], state[1], state[2], state[3][0], state[4][0], state[5][0]
    P, S = state[7], state[8]
    L, nh = _shape(state)
    K = H.shape[0]
    for k in range(K):
        a = 0.0
        for q in range(idx.shape[0]):
            a += H0[k, idx[q]] * val[q]
        P[k, 0] = a
    for i in range(nh):
        a = 0.0
        for q in range(idx.shape[0]):
            a += W[i, idx[q]] * val[q]
        Z[i] = a if a > 0.0 else 0.0
    for l in range(2, L + 1):
        forward(layer(U, (l - 2) * nh * (nh + 1), nh, nh), Z[(l - 2) * nh:(l - 1) * nh],
                Z[(l - 1) * nh:l * nh], 3.0)
    for l in range(1, L + 1):
        hb, zo = (l - 1) * (nh + 1), (l - 1) * nh
        z = Z[zo:zo + nh]
        for k in range(K):
            h = H[k, hb:hb + nh + 1]
            a = h[nh]
            for j in range(nh):
                a += h[j] * z[j]
            P[k, l] = a
    if K == 1:
        p = 0.0
        q = 0.0
        for l in range(L + 1):
            p += A[l] * _sigmoid(P[0, l])
            q += A[l] * _sigmoid(-P[0, l])
        out[0] = math.log(max(p, TINY)) - math.log(max(q, TINY))
        return
    for k in range(K):
        out[k] = 0.0
    for l in range(L + 1):
        top = -np.inf
        for k in range(K):
            if S[k, 0] != 0.0 and P[k, l] > top:
                top = P[k, l]
        total = 0.0
        for k in range(K):
            if S[k, 0] != 0.0:
                total += math.exp(P[k, l] - top)
        for k in range(K):
            if S[k, 0] != 0.0:
                out[k] += A[l] * math.exp(P[k, l] - top) / total
    for k in range(K):
        out[k] = math.log(max(out[k], TINY))


@njit(inline="always")
def _errors(P, G, l, y, seen, binary, hedge):
    """Expert ``l``'s output errors ``[k = y] - f_k`` into ``P[:, l]`` (over its logits)
    and its hedge loss (raw cross-entropy for "minmax") into ``G[l]``."""
    if binary:
        f = P[0, l]
        yf = y * f
        P[0, l] = (1.0 if y > 0.0 else 0.0) - _sigmoid(f)
        ce = (math.log1p(math.exp(-yf)) if yf > -30.0 else -yf)
        if hedge == 0.0:
            G[l] = 1.0 if yf < 0.0 else (0.5 if yf == 0.0 else 0.0)
        elif hedge == 1.0:
            G[l] = min(ce, -math.log(CLIP)) / -math.log(CLIP)
        else:
            G[l] = ce
        return
    K = P.shape[0]
    yi = int(y)
    top = -np.inf
    for k in range(K):
        if seen[k] and P[k, l] > top:
            top = P[k, l]
    tied = 0
    for k in range(K):
        if seen[k] and P[k, l] == top:
            tied += 1
    fy = P[yi, l]
    total = 0.0
    for k in range(K):
        if seen[k]:
            total += math.exp(P[k, l] - top)
    ce = math.log(total) - (fy - top)
    if hedge == 0.0:
        G[l] = 1.0 - 1.0 / tied if fy == top else 1.0
    elif hedge == 1.0:
        G[l] = min(ce, -math.log(CLIP)) / -math.log(CLIP)
    else:
        G[l] = ce
    for k in range(K):
        P[k, l] = -math.exp(P[k, l] - top) / total if seen[k] else 0.0
    P[yi, l] += 1.0


@njit(inline="always")
def _learn(state, params, idx, val, y, sw, seen, binary):
    H, W, H0, U, A, Z = state[0], state[1], state[2], state[3][0], state[4][0], state[5][0]
    E, P, S, G = state[6][0], state[7], state[8], state[9][0]
    L, nh = _shape(state)
    K = H.shape[0]
    for l in range(L + 1):
        _errors(P, G, l, y, seen, binary, params.hedge)
    if params.hedge == 2.0:  # the authors' min-max rescaling over the experts
        lo, hi = G[0], G[0]
        for l in range(L + 1):
            lo = min(lo, G[l])
            hi = max(hi, G[l])
        for l in range(L + 1):
            G[l] = (G[l] - lo) / (hi - lo) if hi > lo else 0.0
    eta = params.eta * sw
    top = (L - 1) * nh
    for j in range(nh):
        E[top + j] = 0.0
    for l in range(L, 0, -1):  # one backward pass, each head's error injected at its depth
        hb, zo = (l - 1) * (nh + 1), (l - 1) * nh
        z, e = Z[zo:zo + nh], E[zo:zo + nh]
        for k in range(K):
            c = A[l] * P[k, l]
            h = H[k, hb:hb + nh + 1]
            for j in range(nh):
                e[j] += c * h[j]
        for j in range(nh):
            if z[j] <= 0.0:
                e[j] = 0.0
        for k in range(K):
            c = eta * A[l] * P[k, l]
            h = H[k, hb:hb + nh + 1]
            for j in range(nh):
                h[j] += c * z[j]
            h[nh] += c
        if l >= 2:
            M = layer(U, (l - 2) * nh * (nh + 1), nh, nh)
            below = Z[zo - nh:zo]
            back(M, below, E[zo - nh:zo], e, 0.0)  # (0: the raw sums)
            for i in range(nh):
                c = eta * e[i]
                for j in range(nh):
                    M[i, j] += c * below[j]
                M[i, nh] += c
        else:
            for i in range(nh):
                c = eta * E[i]
                for q in range(idx.shape[0]):
                    W[i, idx[q]] += c * val[q]
    for k in range(K):
        c = eta * A[0] * P[k, 0]
        for q in range(idx.shape[0]):
            H0[k, idx[q]] += c * val[q]
    total = 0.0
    for l in range(L + 1):
        A[l] = max(A[l] * params.beta ** (sw * G[l]), params.floor)
        total += A[l]
    for l in range(L + 1):
        A[l] /= total
    if not binary:
        for k in range(K):
            S[k, 0] = 1.0 if seen[k] else 0.0
    return 1


@njit(inline="always")
def _binary(state, params, idx, val, y, sw, out, seen):
    return _learn(state, params, idx, val, y, sw, seen, True)


@njit(inline="always")
def _multiclass(state, params, idx, val, y, sw, out, seen):
    return _learn(state, params, idx, val, y, sw, seen, False)


KERNELS = native(declare("neural.hbp", params=("eta", "beta", "floor", "hedge"),
                         scratch=("Z", "P"), score=_score, binary=_binary,
                         multiclass=_multiclass))


def _attribute(which, part, name, doc):
    """A readable and assignable view of the hidden layers (``which`` 0) or the heads (1),
    weights (``part`` 0) or biases (1)."""
    def get(self):
        return self._get(which, part)

    @locked
    def assign(self, values):
        self._set(which, part, values, name)
    return property(get, assign, doc=doc)


class HBPClassifier(FeatureMapModel, OnlineClassifier):
    """Hedge Backpropagation (Sahoo et al., IJCAI 2018): a deep network with a softmax
    expert on every depth, the input included, mixed by Hedge weights ``alpha_`` (the
    rule, the hedge losses and the departures of the authors' code:
    ``olearn.neural.hbp``).

    Parameters
    ----------
    n_layers : int, hidden layers L (>= 1); the paper's 20.
    n_hidden : int, relu units per hidden layer; the paper's 100.
    eta : float, the step size (> 0); the paper's 0.01.
    beta : float in (0, 1), the Hedge discount; the paper's 0.99.
    s : float in [0, 1), the smoothing: alpha >= s / L; the paper's 0.2.
    hedge_loss : "zero_one" (each expert's 0-1 mistake), "clipped" (bounded
        cross-entropy) or "minmax" (the authors' code).
    fit_intercept : bool, the first layer and the input's expert have biases.
    intercept_scaling, epochs, shuffle : see ``OnlineLearner``.
    random_state : int or None, seeds the initial weights (and fit's shuffling).
    """

    kernels = KERNELS
    _expected_failed_checks = dict.fromkeys(
        ("check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in"),
        "these checks' unscaled inputs (mean 100) make 20 relu layers at the paper's step "
        "diverge: the learner raises DivergenceError, as a diverging learner must")
    _capabilities = {"multiclass": "native", "probabilistic": True,
             "width_dependent": "the first layer's initial weights are drawn for the "
                                "columns known at the start; later columns start at 0"}

    def __init__(self, n_layers=20, n_hidden=100, eta=0.01, beta=0.99, s=0.2,
                 hedge_loss="zero_one", fit_intercept=True, intercept_scaling=1.0,
                 epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    @property
    def slots(self):
        L, nh = int(self.n_layers), int(self.n_hidden)
        return (Slot("H", ("K", L * (nh + 1)), signed=True),  # heads 1..L, bias last
                Slot("W", (nh, "d")),                          # first hidden layer
                Slot("H0", ("K", "d"), signed=True),           # the input's head
                Slot("U", (1, (L - 1) * nh * (nh + 1))),       # deeper layers, flat
                Slot("A", (1, L + 1), 1.0 / (L + 1)),          # the experts' alpha
                Slot("Z", (1, L * nh), mix="reset"),           # hidden outputs
                Slot("E", (1, L * nh), mix="reset"),           # their errors
                Slot("P", ("K", L + 1), mix="reset"),          # experts' logits, errors
                Slot("S", ("K", 1), 1.0, mix="max"),           # the classes seen
                Slot("G", (1, L + 1), mix="reset"))            # the hedge losses

    def check_params(self):
        L = check_size("n_layers", self.n_layers, MAX_LAYERS)
        h = check_size("n_hidden", self.n_hidden, MAX_UNITS)
        if L * h * h > MAX_WEIGHTS:
            raise ValueError(f"n_layers * n_hidden^2 ({L * h * h}) must be at most "
                             f"{MAX_WEIGHTS} (the hidden layers' weights)")
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("beta", self.beta, low=0.0, high=1.0, low_open=True, high_open=True)
        check_number("s", self.s, low=0.0, high=1.0, high_open=True)
        check_choice("hedge_loss", self.hedge_loss, tuple(HEDGE_LOSSES))
        check_unchanged(self)

    def kernel_params(self):
        return {"eta": self.eta, "beta": self.beta, "floor": self.s / self.n_layers,
                "hedge": HEDGE_LOSSES[self.hedge_loss]}

    def init_state(self, name, array, start):
        """He-uniform hidden layers, seeded (see the module); heads at 0."""
        nh = int(self.n_hidden)
        seed = None if self.random_state is None else int(self.random_state)
        if name == "W" and start == 0:
            rng = np.random.default_rng(None if seed is None else [seed, 0])
            b = int(bool(self.fit_intercept))
            array[:] = uniform_init(rng, array.shape, array.shape[1] - b, nh, True)
        elif name == "U" and start == 0:
            rng = np.random.default_rng(None if seed is None else [seed, 1])
            array[:] = uniform_init(rng, array.shape, nh, nh, True)

    # -------------------------------------------------------- numpy predictions
    def _logits(self, X):
        """Every expert's logits (L + 1 arrays (n, K)) for validated rows."""
        L, nh = int(self.n_layers), int(self.n_hidden)
        st = self.state_
        b = int(bool(self.fit_intercept))
        n = X.shape[1]
        c = self.intercept_scaling

        def inputs(M):
            a = np.asarray(X @ M[:, b:b + n].T)
            return a + c * M[:, 0] if b else a
        out = [inputs(st["H0"])]
        h = np.maximum(inputs(st["W"]), 0.0)
        U = st["U"][0]
        for l in range(1, L + 1):
            if l > 1:
                M = U[(l - 2) * nh * (nh + 1):(l - 1) * nh * (nh + 1)].reshape(nh, nh + 1)
                h = np.maximum(h @ M[:, :-1].T + M[:, -1], 0.0)
            Th = st["H"][:, (l - 1) * (nh + 1):l * (nh + 1)]
            out.append(h @ Th[:, :-1].T + Th[:, -1])
        return out

    def feature_scores(self, X):
        """The log of the experts' mixture (binary: its log-odds), as the pass scores."""
        A = self.state_["A"][0]
        logits = self._logits(X)
        if logits[0].shape[1] == 1:
            p = sum(a * _np_sigmoid(f[:, 0]) for a, f in zip(A, logits))
            q = sum(a * _np_sigmoid(-f[:, 0]) for a, f in zip(A, logits))
            return (np.log(np.maximum(p, TINY)) - np.log(np.maximum(q, TINY)))[:, None]
        mask = self.state_["S"][:, 0] != 0
        mix = 0.0
        for a, f in zip(A, logits):
            f = np.where(mask, f, -np.inf)
            e = np.exp(f - f.max(axis=1, keepdims=True))
            mix = mix + a * e / e.sum(axis=1, keepdims=True)
        return np.log(np.maximum(mix, TINY))

    @locked
    def predict_proba(self, X):
        """The experts' mixture ``sum_l alpha_l f_l(x)``."""
        s = self.decision_function(X)
        if s.ndim == 1:
            if len(self.classes_) == 1:
                return np.ones((s.shape[0], 1))
            p = _np_sigmoid(s)
            return np.column_stack([1.0 - p, p])
        p = np.exp(s) * (self.state_["S"][:, 0] != 0)
        return p / p.sum(axis=1, keepdims=True)

    # -------------------------------------------------------- attributes
    def _blocks(self):
        check_is_fitted(self, "state_")
        L, nh = int(self.n_layers), int(self.n_hidden)
        st = self.state_
        b = int(bool(self.fit_intercept))
        n = self.n_features_in_
        hidden = [(st["W"][:, b:b + n], st["W"][:, 0] if b else None)]
        U = st["U"][0]
        for l in range(1, L):
            M = U[(l - 1) * nh * (nh + 1):l * nh * (nh + 1)].reshape(nh, nh + 1)
            hidden.append((M[:, :-1], M[:, -1]))
        heads = [(st["H0"][:, b:b + n], st["H0"][:, 0] if b else None)]
        for l in range(1, L + 1):
            Th = st["H"][:, (l - 1) * (nh + 1):l * (nh + 1)]
            heads.append((Th[:, :-1], Th[:, -1]))
        return hidden, heads

    def _get(self, which, part):
        blocks = self._blocks()[which]
        if part == 0:
            return [w.T.copy() for w, _ in blocks]
        return [np.zeros(w.shape[0]) if v is None else
                (self.intercept_scaling * v if i == 0 else v.copy())
                for i, (w, v) in enumerate(blocks)]

    def _set(self, which, part, values, name):
        blocks = self._blocks()[which]
        if part == 0:
            values = _same_shapes(name, values, [w.T for w, _ in blocks])
            for (w, _), v in zip(blocks, values):
                w[...] = v.T
            return
        values = _same_shapes(name, values, [np.empty(w.shape[0]) for w, _ in blocks])
        for i, ((w, b), v) in enumerate(zip(blocks, values)):
            if b is None:
                if np.any(v != 0):
                    raise ValueError(f"{name}[0] must be 0 without fit_intercept")
            else:
                b[...] = v / self.intercept_scaling if i == 0 else v

    coefs_ = _attribute(0, 0, "coefs_", "The hidden layers' weights, (fan_in, fan_out) "
                        "each; assignable (same shapes).")
    intercepts_ = _attribute(0, 1, "intercepts_", "The hidden layers' biases; assignable.")
    head_coefs_ = _attribute(1, 0, "head_coefs_", "The L + 1 experts' weights, depth 0 (the "
                             "input) first, (fan_in, K) each (K = 1 for two classes); "
                             "assignable.")
    head_intercepts_ = _attribute(1, 1, "head_intercepts_", "The experts' biases; assignable.")

    @property
    def alpha_(self):
        """The experts' Hedge weights, depth 0 first (sum 1); assignable."""
        check_is_fitted(self, "state_")
        return self.state_["A"][0].copy()

    @alpha_.setter
    @locked
    def alpha_(self, value):
        check_is_fitted(self, "state_")
        v = np.asarray(value, dtype=np.float64)
        if v.shape != self.state_["A"][0].shape or not np.isfinite(v).all() or \
                (v < 0).any() or not np.isclose(v.sum(), 1.0):
            raise ValueError(f"alpha_ must be {self.n_layers + 1} non-negative weights "
                             "summing to 1")
        self.state_["A"][0] = v


def _np_sigmoid(a):
    return 0.5 * (1.0 + np.tanh(0.5 * a))
