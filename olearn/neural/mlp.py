"""Multilayer perceptrons trained by online backpropagation, one example at a time.

The rule is the box "Online BackPropagation" of the seed text (chapter 7, "Other online
learning techniques"): for each layer ``l = 1..L`` the total input ``z^l_i`` and the
output ``s^l_i = f(z^l_i)`` (``s^0 = x``); from the top down the errors
``delta^L_i = f'(z^L_i) (y_i - s^L_i)`` and ``delta^l_i = f'(z^l_i) sum_r delta^{l+1}_r
w^{l+1}_{ri}``, every error computed from the weights before their step; then every
weight moved by ``Delta w^l_{ij} = rho delta^l_i s^{l-1}_j`` (``rho`` is
``learning_rate_init``).  Regression is the box itself (an identity output unit and the
squared error).  Classification replaces the output layer by the same chapter's
log-linear model, ``p(k | x) = exp(f_k) / sum_k' exp(f_k')`` over the classes seen so
far, trained on its cross-entropy: the output errors are then ``delta_k = [k = y] -
p_k`` (binary: one logit ``f`` and ``p = sigma(f)``, the two-class softmax with one
class's logit fixed at 0, as scikit-learn's ``MLPClassifier``: ``delta = [y = 1] - p``).

A sample weight multiplies the row's gradient.  ``alpha`` adds the L2 gradient
``alpha w`` to every weight but the biases.  Each weight steps on its gradient ``g =
-delta s + alpha w`` by an ``olearn.optim`` optimiser (``optimizer=``), whose
per-coordinate step is ``olearn._compiled.steps``'s, the one OGD runs, called here per
weight with the layer's own state (plain SGD's ``-rho g`` is fused into each layer's
loops instead).  Without ``optimizer``, ``solver`` and scikit-learn's parameters name it
(scikit-learn's ``_stochastic_optimizers`` formulas, per example, bit for bit):
``"sgd"`` with ``momentum = 0`` is the seed's constant step ``w -= rho g``
(``SGD(schedule="constant")``); ``momentum = mu`` keeps a velocity ``m = mu m - rho g``
(``w += m``; ``nesterovs_momentum=True``: ``w += mu m - rho g``; ``Momentum``);
``"adagrad"`` (Duchi, Hazan, Singer 2011) ``v += g^2``, ``w -= rho g / (sqrt(v) +
epsilon)`` (``AdaGrad(delta=epsilon)``); ``"adam"`` (Kingma and Ba 2015) with
scikit-learn's bias correction ``rho_t = rho sqrt(1 - beta_2^t) / (1 - beta_1^t)``
(``Adam(reordered=True)``, the paper's Section 2 order).  The classifier's default is
``"adagrad"`` at ``rho = 0.2``, the regressor's ``"adam"`` at 0.001.

Initial weights (seeded by ``random_state``): the hidden layers' weights and biases
uniform in ``+-sqrt(6 / fan_in)`` (He et al. 2015) for relu units, ``+-sqrt(6 / (fan_in
+ fan_out))`` (Glorot and Bengio 2010) for tanh, logistic and identity units (scikit-
learn draws every layer from Glorot's range, with ``2`` for ``6`` for logistic units);
the output layer starts at 0 (the first prediction is the uniform distribution, and
swapping the two labels of a binary stream negates the model exactly); input columns
that appear after the start (a dict's new features, a widened stream) start at 0, so
that a feature first met changes no score until the network learns from it.  The
first layer's biases are the weights of the constant feature (``fit_intercept``,
value ``intercept_scaling``).

The first layer is stored by input column (slot ``W`` of shape ``(d, H_1)``, the
intercept's column first): the forward pass adds ``x_q W[q]`` for each non-zero ``q``
and the step adds ``(rho sw delta) x_q`` to ``W[q]``, contiguous loops over the units
that the compiler vectorises, in the same order of operations as the dot products by
unit (the batch pass on a 28-100-1 network: 2.63 us a row by unit, 1.32 us by column,
against 1.06 us for a hand-written loop; benchmarks/neural.md).

Cost per row: ``O(nnz(x) H_1 + sum_l H_l H_{l+1})`` with SGD or AdaGrad and ``alpha =
0`` (a weight of an absent input has gradient 0); momentum, RMSProp, Adam, AdamW and
``alpha > 0`` move every first-layer weight each row (``O(d H_1)``), as the dense
optimisers do.

``coefs_[i]`` (fan_in, fan_out) and ``intercepts_[i]`` are scikit-learn's names and
shapes, readable after the first call and assignable (same shapes: a warm start from
given weights).
"""
import math

import numpy as np
from numba import njit

from ..base import OnlineClassifier, OnlineRegressor
from ..feature_map import FeatureMapModel
from ..linear import logistic_proba
from ..protocol import Slot, declare
from .._estimator import check_is_fitted
from .._locking import locked
from .._params import store_params
from .._state import StateLayoutError
from .._validation import (MAX_LAYERS, MAX_PENALTY, MAX_UNITS, MAX_WEIGHTS, check_bool,
                           check_choice, check_number)
from .._compiled.losses import SCHEDULES, step_size
from .._compiled.steps import STEPS
from ..optim import OPTIMIZERS, AdaGrad, Adam, Momentum, SGD, Optimizer, resolve
from ._layers import (ACTIVATIONS, SOLVERS, activate_all, back, check_unchanged, descend,
                      forward, layer, native, uniform_init)

#: the MLP's own kernel parameters; the optimiser's follow them
PARAMS = ("eta", "kind", "power", "alpha", "dense", "intercept")


# ---------------------------------------------------------------- compiled
@njit(inline="always")
def _layout(V, W, U, N, Z):
    """The number of hidden layers, after checking the layout row ``N`` (activation
    code, then the widths) against the arrays: a saved or edited state whose widths do
    not fit its arrays is refused before any index is read."""
    L = N.shape[0] - 1
    ok = L >= 1 and N[1] == W.shape[1] and N[L] == V.shape[1] - 1
    units = 0.0
    weights = 0.0
    for l in range(1, L + 1):
        h = N[l]
        if not (h >= 1.0 and h == math.floor(h)):
            ok = False
        units += h
        if l > 1:
            weights += h * (N[l - 1] + 1.0)
    if not ok or units != Z.shape[0] or weights != U.shape[0]:
        raise ValueError("the network's layout does not fit its weight arrays")
    return L


@njit(inline="always")
def _score(state, idx, val, out):
    """Forward pass: every hidden unit's output into ``Z`` (layer after layer), the K
    output logits (or the regression output) into ``out``."""
    V, W, U, N, Z = state[0], state[1], state[2][0], state[3][0], state[4][0]
    L = _layout(V, W, U, N, Z)
    act = N[0]
    H = W.shape[1]
    for i in range(H):
        Z[i] = 0.0
    for q in range(idx.shape[0]):  # column by column: contiguous rows of W, vectorised
        x = val[q]
        Wq = W[idx[q]]
        for i in range(H):
            Z[i] += Wq[i] * x
    activate_all(Z[:H], act)
    src = 0
    off = 0
    for l in range(2, L + 1):
        n_in, n_out = int(N[l - 1]), int(N[l])
        forward(layer(U, off, n_in, n_out), Z[src:src + n_in],
                Z[src + n_in:src + n_in + n_out], act)
        off += n_out * (n_in + 1)
        src += n_in
    forward(V, Z[src:], out, 0.0)


def _learner(name):
    """The backward pass of the networks stepped by optimiser ``name``
    (``olearn._compiled.steps.STEPS``: its step, written once, is called per weight; its
    state for each layer is that layer's ``M`` and/or ``S`` slot, see :data:`SLOT_OF`)."""
    ostep, prepare, mode = STEPS[name]
    plain = mode == "row"  # (SGD: the layers' fused loops, ``descend``)
    pick = _picker(name)

    @njit(inline="always")
    def _learn(state, params, idx, val, sw):
        """Backward pass from the output errors ``O[:, 0]`` and every weight's step."""
        V, W, U, N, Z = state[0], state[1], state[2][0], state[3][0], state[4][0]
        E, O, X = state[5][0], state[6], state[7][0]
        SV, SW, SU = pick(state[8], state[9]), pick(state[10], state[11]), \
            pick(state[12], state[13])
        T = state[14][0]
        act = N[0]
        alpha = params.alpha
        T[0] += 1.0
        lr = step_size(params.kind, params.eta, params.power, 0.0, 0.0, T[0])
        r = prepare(lr, T[0], params)
        K, H = V.shape[0], V.shape[1] - 1
        top = Z.shape[0] - H
        delta = O[:, 0]
        back(V, Z[top:], E[top:], delta, act)  # from V before its step
        if plain:
            descend(V, Z[top:], delta, sw, lr, alpha)
        else:
            for k in range(K):
                e = sw * delta[k]
                for j in range(H):
                    V[k, j] += ostep(SV, k, j, V[k, j], -e * Z[top + j] + alpha * V[k, j],
                                     r, params)
                V[k, H] += ostep(SV, k, H, V[k, H], -e, r, params)
        dst = top
        off = U.shape[0]
        for l in range(N.shape[0] - 1, 1, -1):  # the deeper hidden layers, top down
            n_in, n_out = int(N[l - 1]), int(N[l])
            src = dst - n_in
            off -= n_out * (n_in + 1)
            M = layer(U, off, n_in, n_out)
            back(M, Z[src:dst], E[src:dst], E[dst:dst + n_out], act)
            if plain:
                descend(M, Z[src:dst], E[dst:dst + n_out], sw, lr, alpha)
            else:
                for i in range(n_out):
                    e = sw * E[dst + i]
                    p = off + i * (n_in + 1)
                    for j in range(n_in):
                        U[p + j] += ostep(SU, 0, p + j, U[p + j],
                                          -e * Z[src + j] + alpha * U[p + j], r, params)
                    U[p + n_in] += ostep(SU, 0, p + n_in, U[p + n_in], -e, r, params)
            dst = src
        d, H = W.shape[0], W.shape[1]
        if plain and alpha == 0.0:  # only the row's columns move: w_qi += (rho sw E_i) x_q
            for i in range(H):
                E[i] = lr * (sw * E[i])
            for q in range(idx.shape[0]):
                x = val[q]
                Wq = W[idx[q]]
                for i in range(H):
                    Wq[i] += E[i] * x
            return 1
        if params.dense == 0.0:  # only the row's columns have a gradient
            for q in range(idx.shape[0]):
                c = idx[q]
                for i in range(H):
                    W[c, i] += ostep(SW, c, i, W[c, i], -(sw * E[i]) * val[q], r, params)
            return 1
        for q in range(d):  # every weight moves (momentum, Adam, L2): the row scattered
            X[q] = 0.0
        for q in range(idx.shape[0]):
            X[idx[q]] += val[q]
        b = int(params.intercept)
        for j in range(d):
            for i in range(H):
                g = -(sw * E[i]) * X[j]
                if j >= b:
                    g += alpha * W[j, i]
                W[j, i] += ostep(SW, j, i, W[j, i], g, r, params)
        _clear(X)
        return 1
    return _learn


def _picker(name):
    """The tuple of a layer's slots that optimiser ``name``'s step reads as ``S``, from
    the layer's ``M`` and ``S`` slots, in the optimiser's order."""
    order = tuple(SLOT_OF[s.name] for s in _state_slots(OPTIMIZERS[name]()))
    if order == ("M", "S"):
        return njit(inline="always")(lambda m, s: (m, s))
    if order == ("M",):
        return njit(inline="always")(lambda m, s: (m,))
    if order == ("S",):
        return njit(inline="always")(lambda m, s: (s,))
    return njit(inline="always")(lambda m, s: ())


@njit(inline="always")
def _clear(X):
    """The scratch row back to 0 after a rule (a dense row and its CSR copy then leave
    the same state)."""
    for q in range(X.shape[0]):
        X[q] = 0.0


def _declare(name):
    """The MLP's kernels with optimiser ``name``'s step (one declaration per optimiser,
    as OGD's; the constant step keeps round 3's name ``neural.mlp``)."""
    learn = _learner(name)

    @njit(inline="always")
    def _binary(state, params, idx, val, y, sw, out, seen):
        """Logistic output, ``y`` in {-1, +1}: ``delta = [y = 1] - sigma(f) = y
        sigma(-y f)``."""
        state[6][0, 0] = y / (1.0 + math.exp(y * out[0]))
        return learn(state, params, idx, val, sw)

    @njit(inline="always")
    def _multiclass(state, params, idx, val, y, sw, out, seen):
        """Softmax over the classes seen so far: ``delta_k = [k = y] - p_k``."""
        O = state[6]
        K = out.shape[0]
        top = -np.inf
        for k in range(K):
            if seen[k] and out[k] > top:
                top = out[k]
        total = 0.0
        for k in range(K):
            O[k, 0] = math.exp(out[k] - top) if seen[k] else 0.0
            total += O[k, 0]
        for k in range(K):
            O[k, 0] = -O[k, 0] / total
        O[int(y), 0] += 1.0
        return learn(state, params, idx, val, sw)

    @njit(inline="always")
    def _regression(state, params, idx, val, y, sw, out, seen):
        """Identity output, squared error: ``delta = y - f`` (the seed's box)."""
        state[6][0, 0] = y - out[0]
        return learn(state, params, idx, val, sw)

    params = PARAMS + tuple(OPTIMIZERS[name]().kernel_params())
    return native(declare("neural.mlp" if name == "sgd" else f"neural.mlp.{name}",
                          params=params, scratch=("Z", "E", "O", "X"), score=_score,
                          binary=_binary, multiclass=_multiclass, regression=_regression))


#: an optimiser's state slot -> the MLP's slots of it (``"M"``: MV, MW, MU, the first
#: moments or velocities; ``"S"``: SV, SW, SU, the squared gradients' sums or means)
SLOT_OF = {"M": "M", "V": "S", "G": "S"}
#: the optimisers the MLP takes (COCOB's step assumes ``w_1 = 0``, which the network's
#: random initial weights are not)
MLP_OPTIMIZERS = ("sgd", "momentum", "adagrad", "rmsprop", "adam", "adamw")


def _state_slots(opt):
    """The optimiser's per-coordinate state slots (its dense scratch row left out: the
    MLP has its own, ``X``)."""
    return tuple(s for s in opt.slots() if s.name != "X")


KERNELS = {name: _declare(name) for name in MLP_OPTIMIZERS}


# ---------------------------------------------------------------- estimator
DOC = """Multilayer perceptron {what}, online backpropagation ({loss}): the seed's
    box, one example at a time (the rule, initialisation and cost: ``olearn.neural.mlp``).

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, the widths of the hidden layers (at least one).
    activation : "relu", "tanh", "logistic" or "identity", the hidden units' f.
    solver : "sgd" (momentum 0: the seed's constant step), "adagrad" (the classifier's
        default) or "adam" (the regressor's): scikit-learn's names of
        ``olearn.optim.SGD(schedule="constant")``, ``Momentum``, ``AdaGrad(delta=epsilon)``
        and ``Adam(reordered=True)`` (see ``optimizer``).
    learning_rate_init : float, the step rho (> 0).
    alpha : float, L2 penalty on the weights, not the biases (>= 0).
    momentum : float in [0, 1), "sgd" only.
    nesterovs_momentum : bool, Nesterov's form of the momentum step.
    beta_1, beta_2 : float in [0, 1), Adam's moment decays.
    epsilon : float, AdaGrad's and Adam's denominator guard (> 0).
    fit_intercept : bool, the first hidden layer has biases (the constant feature).
    intercept_scaling, epochs, shuffle : see ``OnlineLearner``.
    random_state : int or None, seeds the initial weights (and fit's shuffling).
    optimizer : None, a name ("sgd", "momentum", "adagrad", "rmsprop", "adam", "adamw")
        or an ``olearn.optim`` optimiser: every weight's step; None: ``solver`` and its
        parameters above (which an optimiser replaces by its own).
    """


class _OptimizerKernels:
    """``MLP.kernels``: the declaration with the model's optimiser's step (on the class,
    the constant step's: what the declaration says of every optimiser)."""

    def __get__(self, obj, cls=None):
        return KERNELS["sgd" if obj is None else obj._optimizer().name]


class MLP(FeatureMapModel):
    """Mixin: the network's parameters, state, initial weights, ``coefs_``."""

    _capabilities = {"multiclass": "native",
             "width_dependent": "the first layer's initial weights are drawn for the "
                                "columns known at the start; later columns start at 0"}

    # (AdaGrad and 0.2 since round 4, issue 44: per-weight steps normalised by the
    # gradients' sizes; the constant step 0.05 before.  On River's Phishing and elec2 in
    # order: 88.0% and 89.1% against 85.5% and 83.3%; one dict at a time on Phishing, where
    # every column starts at 0, 87.8% against 71.5%: benchmarks/neural.md, mlp-defaults)
    def __init__(self, hidden_layer_sizes=(100,), activation="relu", solver="adagrad",
                 learning_rate_init=0.2, alpha=0.0, momentum=0.0,
                 nesterovs_momentum=False, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0, optimizer=None):
        store_params(self, locals())

    # -------------------------------------------------------- the optimiser
    def _optimizer(self):
        """The optimiser every weight steps by: ``optimizer``, or ``solver`` and its
        scikit-learn parameters mapped onto ``olearn.optim`` (the same formulas)."""
        if not isinstance(self.optimizer, (str, type(None))):
            return resolve(self.optimizer)
        key = (self.optimizer, self.solver, self.learning_rate_init, self.momentum,
               self.nesterovs_momentum, self.beta_1, self.beta_2, self.epsilon)
        made = self.__dict__.get("_made_optimizer")
        if made is None or made[0] != key:  # (made once, not at every call: learn_one)
            made = self.__dict__["_made_optimizer"] = (key, self._solver_optimizer())
        return made[1]

    def _solver_optimizer(self):
        opt = resolve(self.optimizer)
        if opt is not None:
            return opt
        lr = self.learning_rate_init
        if self.solver == "adagrad":
            return AdaGrad(lr=lr, delta=self.epsilon)
        if self.solver == "adam":
            return Adam(lr=lr, beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                        reordered=True)
        if self.solver == "sgd" and self.momentum != 0:
            return Momentum(lr=lr, momentum=self.momentum,
                            nesterov=self.nesterovs_momentum)
        return SGD(lr=lr, schedule="constant")

    kernels = _OptimizerKernels()

    # -------------------------------------------------------- extension points
    def _sizes(self):
        sizes = self.hidden_layer_sizes
        if isinstance(sizes, (int, np.integer)):
            sizes = (sizes,)
        return tuple(int(h) for h in sizes)

    @property
    def slots(self):
        H = self._sizes()
        units = sum(H)
        deep = sum(H[l] * (H[l - 1] + 1) for l in range(1, len(H)))
        try:
            kept = {SLOT_OF[s.name] for s in _state_slots(self._optimizer())}
        except (ValueError, TypeError, KeyError):  # (a bad optimizer: check_params says)
            kept = set()
        m, v = "M" in kept, "S" in kept
        return (Slot("V", ("K", H[-1] + 1), signed=True),   # output layer, bias last
                Slot("W", ("d", H[0])),                    # first hidden layer, by column
                Slot("U", (1, deep)),                      # deeper layers, flat
                Slot("N", (1, len(H) + 1), mix="same"),    # activation code, widths
                Slot("Z", (1, units), mix="reset"),        # the row's hidden outputs
                Slot("E", (1, units), mix="reset"),        # their errors
                Slot("O", ("K", 1), mix="reset"),          # the output errors
                Slot("X", (1, "d"), mix="reset"),          # the row, scattered
                Slot("MV", ("K", (H[-1] + 1) * m), signed=True),  # first moments
                Slot("SV", ("K", (H[-1] + 1) * v)),               # second moments
                Slot("MW", ("d", H[0] * m)),
                Slot("SW", ("d", H[0] * v)),
                Slot("MU", (1, deep * m)),
                Slot("SU", (1, deep * v)),
                Slot("T", (1, 1), mix="max"))              # the round (rates, Adam)

    def check_params(self):
        sizes = self.hidden_layer_sizes
        if isinstance(sizes, (int, np.integer)):
            sizes = (sizes,)
        if not (isinstance(sizes, (tuple, list)) and len(sizes) >= 1 and all(
                isinstance(h, (int, np.integer)) and not isinstance(h, bool) and h >= 1
                for h in sizes)):
            raise ValueError("hidden_layer_sizes must be a tuple of positive integers, "
                             f"got {self.hidden_layer_sizes!r}")
        if len(sizes) > MAX_LAYERS or max(sizes) > MAX_UNITS:
            raise ValueError(f"hidden_layer_sizes must have at most {MAX_LAYERS} layers of "
                             f"at most {MAX_UNITS} units, got {self.hidden_layer_sizes!r}")
        deep = sum(int(a) * int(b) for a, b in zip(sizes, sizes[1:]))
        if deep > MAX_WEIGHTS:
            raise ValueError(f"hidden_layer_sizes gives {deep} weights between hidden "
                             f"layers, more than {MAX_WEIGHTS}")
        check_choice("activation", self.activation, tuple(ACTIVATIONS))
        check_choice("solver", self.solver, tuple(SOLVERS))
        check_number("learning_rate_init", self.learning_rate_init, low=0.0, low_open=True,
                     high=MAX_PENALTY)
        # (alpha w enters the gradient, whose square Adam keeps: past 1e6 the moments
        # can overflow on weights of ordinary size while every score stays finite)
        check_number("alpha", self.alpha, low=0.0, high=MAX_PENALTY)
        check_number("momentum", self.momentum, low=0.0, high=1.0, high_open=True)
        check_bool("nesterovs_momentum", self.nesterovs_momentum)
        check_number("beta_1", self.beta_1, low=0.0, high=1.0, high_open=True)
        check_number("beta_2", self.beta_2, low=0.0, high=1.0, high_open=True)
        check_number("epsilon", self.epsilon, low=0.0, low_open=True)
        opt = self._optimizer()
        if not isinstance(opt, Optimizer) or opt.name not in KERNELS:
            raise ValueError(f"optimizer must be one of {', '.join(MLP_OPTIMIZERS)} or its "
                             f"olearn.optim class, got {self.optimizer!r} (COCOB's step "
                             "assumes initial weights 0, the network's are random)")
        opt.check()
        check_unchanged(self)
        self._check_activation()

    def check_layout(self):
        """The base's check, and the activation: the weights were learned through the
        state's activation, and another would give other decisions from the same weights
        (``predict``, ``save`` and every learning call refuse it)."""
        super().check_layout()
        self._check_activation()

    def _check_activation(self):
        state = self.__dict__.get("state_")
        code = ACTIVATIONS.get(self.activation, -1) if isinstance(self.activation, str) \
            else -1
        if state is not None and state["N"][0, 0] != code:
            learned = next((k for k, v in ACTIVATIONS.items() if v == state["N"][0, 0]), "?")
            raise ValueError(f"activation changed after learning started ({learned!r} -> "
                             f"{self.activation!r}); set it back, or call fit() to start "
                             "afresh")

    def kernel_params(self):
        opt = self._optimizer()
        lr, schedule, power = opt.rate()
        dense = self.alpha > 0 or opt.mode == "dense"
        return {"eta": lr, "kind": SCHEDULES.index(schedule), "power": power,
                "alpha": self.alpha, "dense": float(dense),
                "intercept": float(bool(self.fit_intercept)), **opt.kernel_params()}

    def init_state(self, name, array, start):
        """Seeded initial weights of the hidden layers (see the module); the layout row."""
        H = self._sizes()
        relu = self.activation == "relu"
        seed = None if self.random_state is None else int(self.random_state)
        if name == "N":
            array[0] = (ACTIVATIONS[self.activation],) + H
        elif name == "W" and start == 0:
            b = int(bool(self.fit_intercept))
            rng = np.random.default_rng(None if seed is None else [seed, 0])
            w = uniform_init(rng, (array.shape[1], array.shape[0]),
                             array.shape[0] - b, H[0], relu)
            array[:] = w.T  # (drawn unit by unit, as when W was stored by unit)
        elif name == "U" and start == 0:
            rng = np.random.default_rng(None if seed is None else [seed, 1])
            off = 0
            for l in range(1, len(H)):
                n = H[l] * (H[l - 1] + 1)
                array[0, off:off + n] = uniform_init(rng, n, H[l - 1], H[l], relu)
                off += n

    def features(self, X):
        """The last hidden layer's outputs of validated rows, and the bias unit's 1."""
        return np.hstack([self._hidden(X)[-1], np.ones((X.shape[0], 1))])

    def _hidden(self, X):
        """Every hidden layer's outputs for validated rows (numpy)."""
        H = self._sizes()
        W, U = self.state_["W"], self.state_["U"][0]
        f = _NUMPY[self.activation]
        b = int(bool(self.fit_intercept))
        a = np.asarray(X @ W[b:b + X.shape[1]])
        if b:
            a = a + self.intercept_scaling * W[0]
        out = [f(a)]
        off = 0
        for l in range(1, len(H)):
            n = H[l] * (H[l - 1] + 1)
            M = U[off:off + n].reshape(H[l], H[l - 1] + 1)
            out.append(f(out[-1] @ M[:, :-1].T + M[:, -1]))
            off += n
        return out

    def export_state(self):
        """``OnlineLearner.export_state``, the first layer's layout named in the metadata
        (``"first_layer": "by_column"``)."""
        meta, arrays = super().export_state()
        meta["first_layer"] = "by_column"
        return meta, arrays

    @classmethod
    def from_state(cls, params, meta, arrays):
        """``OnlineLearner.from_state``; a saved ``hidden_layer_sizes`` (a JSON list)
        comes back as the tuple it was.  A state whose metadata does not say that its
        first layer is stored by input column (an olearn before round 4 stored it by
        unit, (H_1, d): the same shape when ``H_1`` is the width plus the intercept) is
        refused as state kept by another olearn."""
        if isinstance(meta, dict) and meta.get("first_layer") != "by_column":
            raise StateLayoutError("its first layer W was stored by unit, (H_1, d); this "
                                   "olearn stores it by input column, (d, H_1)")
        if isinstance(params, dict) and isinstance(params.get("hidden_layer_sizes"), list):
            params = {**params, "hidden_layer_sizes": tuple(params["hidden_layer_sizes"])}
        return super().from_state(params, meta, arrays)

    # -------------------------------------------------------- scikit-learn's names
    def _blocks(self):
        """(weights (fan_out, fan_in), biases) per layer, views of the state."""
        check_is_fitted(self, "state_")
        H = self._sizes()
        W, U, V = self.state_["W"], self.state_["U"][0], self.state_["V"]
        b = int(bool(self.fit_intercept))
        blocks = [(W[b:b + self.n_features_in_].T, W[0] if b else None)]
        off = 0
        for l in range(1, len(H)):
            n = H[l] * (H[l - 1] + 1)
            M = U[off:off + n].reshape(H[l], H[l - 1] + 1)
            blocks.append((M[:, :-1], M[:, -1]))
            off += n
        blocks.append((V[:, :-1], V[:, -1]))
        return blocks

    @property
    def coefs_(self):
        """The weights of each layer, ``coefs_[i]`` of shape (fan_in, fan_out), copies;
        assign a list of arrays of the same shapes to set them."""
        return [w.T.copy() for w, _ in self._blocks()]

    @coefs_.setter
    @locked
    def coefs_(self, values):
        blocks = self._blocks()
        values = _same_shapes("coefs_", values, [w.T for w, _ in blocks])
        for (w, _), v in zip(blocks, values):
            w[...] = v.T

    @property
    def intercepts_(self):
        """The biases of each layer, ``intercepts_[i]`` of shape (fan_out,), copies (the
        first layer's: ``intercept_scaling`` times the constant feature's weights, 0
        without ``fit_intercept``); assignable like ``coefs_``."""
        c = self.intercept_scaling
        return [np.zeros(w.shape[0]) if b is None else (c * b if i == 0 else b.copy())
                for i, (w, b) in enumerate(self._blocks())]

    @intercepts_.setter
    @locked
    def intercepts_(self, values):
        blocks = self._blocks()
        values = _same_shapes("intercepts_", values, [np.empty(w.shape[0]) for w, _ in blocks])
        for i, ((w, b), v) in enumerate(zip(blocks, values)):
            if b is None:
                if np.any(v != 0):
                    raise ValueError("intercepts_[0] must be 0 without fit_intercept")
                continue
            b[...] = v / self.intercept_scaling if i == 0 else v


_NUMPY = {"identity": lambda a: a, "relu": lambda a: np.maximum(a, 0.0), "tanh": np.tanh,
          "logistic": lambda a: 0.5 * (1.0 + np.tanh(0.5 * a))}


def _same_shapes(name, values, like):
    values = [np.asarray(v, dtype=np.float64) for v in values]
    if len(values) != len(like) or any(v.shape != u.shape for v, u in zip(values, like)):
        raise ValueError(f"{name} must be {len(like)} arrays of shapes "
                         f"{[u.shape for u in like]}, got {[v.shape for v in values]}")
    if not all(np.isfinite(v).all() for v in values):
        raise ValueError(f"{name} holds NaN or infinity")
    return values


class MLPClassifier(MLP, OnlineClassifier):
    __doc__ = DOC.format(what="classifier", loss="softmax and cross-entropy")

    _capabilities = {"probabilistic": True}

    @locked
    def predict_proba(self, X):
        """The softmax over the classes seen (binary: the sigmoid of the logit)."""
        return logistic_proba(self, self.decision_function(X))


class MLPRegressor(MLP, OnlineRegressor):
    __doc__ = DOC.format(what="regressor", loss="squared error")

    # (Adam and 0.001, scikit-learn's defaults: the squared error's gradient grows with
    # the targets, and the constant step diverged on scikit-learn's checks, whose
    # targets are in the hundreds; Adam's step is bounded by the learning rate)
    def __init__(self, hidden_layer_sizes=(100,), activation="relu", solver="adam",
                 learning_rate_init=0.001, alpha=0.0, momentum=0.0,
                 nesterovs_momentum=False, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
                 fit_intercept=True, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0, optimizer=None):
        store_params(self, locals())
