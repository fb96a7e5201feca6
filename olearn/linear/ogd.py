"""Online (projected) gradient descent: ``OGDClassifier`` and ``OGDRegressor``.

Round ``t``: predict with ``w_t``, suffer ``L(w_t . x_t, y_t)``, then

    w_{t+1} = P( (1 - eta_t alpha) w_t - eta_t dL/dp x_t ),

where ``P`` is the Euclidean projection onto ``{||w|| <= radius}`` (Zinkevich, "Online
convex programming and generalized infinitesimal gradient ascent", ICML 2003, eq. (1)
and Theorem 1: with ``eta_t = eta / sqrt(t)`` the regret against the best fixed ``w``
in the ball grows like ``sqrt(T)``), ``alpha`` is an optional L2 term
``alpha/2 ||w||^2`` and ``dL/dp`` the derivative of the loss in the score.
Losses and schedules are listed in ``olearn._compiled.losses``; in short

* classification: "hinge", "squared_hinge", "logistic", "perceptron",
  "modified_huber"; multiclass: the max-score margin form of each margin loss
  (Crammer and Singer 2001) and the softmax (multinomial logistic) loss for "logistic";
* regression: "squared" (``OGDRegressor(loss="squared")`` is LMS, see
  ``LMSRegressor``), "absolute", "epsilon_insensitive", "huber" (``epsilon`` is their
  width);
* schedules: "constant" ``eta``; "invsqrt" ``eta / sqrt(t)``; "power" ``eta t^-power``
  (``power`` in (1/2, 1) gives the Robbins-Monro conditions of the MIT 9.520 notes);
  "optimal" ``1 / (alpha (t0 + t - 1))`` (Bottou, "Stochastic gradient descent tricks",
  2012, for the L2 term ``alpha > 0``; ``t0 = 1 / (alpha typw)`` with ``typw =
  alpha^(-1/4)``, the heuristic of Bottou's sgd code as used by scikit-learn);
  "adagrad": per-coordinate steps ``eta / sqrt(sum of the coordinate's squared
  gradients)`` (Duchi, Hazan and Singer, JMLR 12, 2011, diagonal version, with
  delta = 0: a coordinate moves only once it has had a gradient); "nag": normalized
  adaptive steps of rate ``eta`` (``olearn.optim.NAG``: Ross, Mineiro and Langford,
  UAI 2013, Algorithm 2), the regressor's default.

The round ``t`` counts rows (every row is a round, also when its gradient is 0).
Each loss has its own compiled kernel (the loss is bound into the one rule when the
kernel is built, ``olearn._compiled.declare``); the schedule is a scalar switch once per row.  The L2 decay and the projection scale the
whole weight vector in O(1) (``olearn._compiled.averaging``), so a row costs
O(non-zeros).  With ``fit_intercept`` the intercept is a weight like the others: it
is decayed by ``alpha`` and counts in the projection's norm (scikit-learn does not
regularise its intercept, and on sparse input damps its steps by 0.01).  For the
multiclass model ``||w||`` is the Frobenius norm of the ``(K, d)`` weight matrix.
With "adagrad", ``alpha`` decays the weights by ``1 - eta alpha`` a row and ``radius``
projects in the Euclidean norm: simple choices, not Duchi et al.'s composite and
AdaGrad-metric versions, whose guarantees they do not carry.  A sample weight
multiplies the loss (so its gradient).

With the "hinge" loss, a constant step, no intercept and no L2 term the weights equal
scikit-learn's ``SGDClassifier(loss="hinge", penalty=None, learning_rate="constant")``
after one pass; with the "perceptron" loss and a constant step 1 they equal
:class:`olearn.linear.Perceptron`'s.

Optimisers.  ``optimizer=`` (a name or an ``olearn.optim`` optimiser) replaces the
plain step by a per-coordinate rule: "sgd" (the schedules above but "optimal"),
"adagrad", "rmsprop", "adam", "adamw", "cocob" or "nag" (see ``olearn.optim``); with
None, ``schedule="adagrad"`` is ``optimizer=AdaGrad(lr=eta)``, ``schedule="nag"``
``optimizer=NAG(lr=eta)`` and every other schedule the SGD step, bit for bit (tested).
NAG rescales a weight before the prediction (its step 1): its kernels score a row
clipped to the largest magnitudes seen, as ``olearn.linear.ndag``'s, whose score and
round start they share, and so do ``predict`` and ``decision_function``.  One rule per optimiser, made from its compiled step
(``rule``): SGD, AdaGrad and COCOB touch the row's non-zeros only (exact: a zero
gradient changes neither their state nor the weight); RMSProp, Adam and AdamW step
every coordinate every row, O(d) (their moments decay, and Adam's weight moves, with a
zero gradient).  ``alpha`` decays the weights by ``1 - lr alpha`` with the optimiser's
base rate ``lr`` (COCOB has none and refuses it); ``radius`` projects after the step.
With a dense step every row changes the model and counts as an update
(``n_updates_``); otherwise a row updates when its loss gradient is not 0.

``average=True``: Polyak-Ruppert averaging (the mean of ``w_1 .. w_t`` predicts; the
raw iterate learns).  ``predict_proba`` exists for the "logistic" loss (sigmoid of the
score; the softmax over the classes seen for a multiclass model).
"""
import math

from numba import njit

from ..base import OnlineClassifier, OnlineRegressor, Slot
from .._compiled.averaging import FREE_, G_, T_, add_at, add_row, avg_begin, avg_scores, \
    project_ball, scale_weights, weight
from .._compiled.declare import declare
from .._compiled.steps import STEPS
from ._proba import LogisticProba
from .._compiled.losses import GRADS, SCHEDULES, step_size
from .._params import store_params
from ..optim import OPTIMIZERS, NAG, AdaGrad, SGD, resolve
from ._linear import LinearModel, check_choice, check_number
from ._loss import AVERAGE_DOC, EPSILON_DOC, LossModel
from .ndag import NormalizedInputs, _begin as nag_begin, _scores as nag_scores

#: the OGD rule's own parameters; an optimiser's follow them
PARAMS = ("eta", "kind", "power", "alpha", "t0", "radius", "eps")


@njit(inline="always")
def _start(state, params):
    """The round's base rate, after the L2 decay it sets."""
    A = state[2]
    lr = step_size(params.kind, params.eta, params.power, params.alpha, params.t0, A[0, T_])
    if params.alpha > 0.0:
        scale_weights(state[0], state[1], A, max(0.0, 1.0 - lr * params.alpha))
    return lr


@njit(inline="always")
def _row_steps(state, params, idx, val, sw, moved, lr, step, prepare):
    """A step linear in the gradient (SGD's ``-lr g``): one ``add_row`` a class row."""
    W, U, A = state[0], state[1], state[2]
    if moved:
        for k in range(A.shape[0]):
            if A[k, G_] != 0.0:
                add_row(W, U, A, k, -lr * sw * A[k, G_], idx, val)
    return moved


@njit(inline="always")
def _lazy_steps(state, params, idx, val, sw, moved, lr, step, prepare):
    """A step that leaves a coordinate with no gradient alone: the row's non-zeros."""
    W, U, A = state[0], state[1], state[2]
    if moved:
        S = state[3:]
        r = prepare(lr, A[0, T_], params)
        for k in range(A.shape[0]):
            if A[k, G_] != 0.0:
                gk = sw * A[k, G_]
                for j in range(idx.shape[0]):
                    g = gk * val[j]
                    if g != 0.0:
                        i = idx[j]
                        d = step(S, k, i, weight(W, A, k, i), g, r, params)
                        if d != 0.0:
                            add_at(W, U, A, k, i, d)
    return moved


@njit(inline="always")
def _dense_steps(state, params, idx, val, sw, moved, lr, step, prepare):
    """A step that moves a coordinate with no gradient: every coordinate, the row's
    values spread into the scratch ``X`` (the optimiser's first slot), then cleared."""
    W, U, A, X = state[0], state[1], state[2], state[3]
    S = state[4:]
    r = prepare(lr, A[0, T_], params)
    for j in range(idx.shape[0]):
        X[idx[j]] += val[j]
    for k in range(A.shape[0]):
        gk = sw * A[k, G_]
        for i in range(W.shape[1]):
            d = step(S, k, i, weight(W, A, k, i), gk * X[i], r, params)
            if d != 0.0:
                add_at(W, U, A, k, i, d)
    for j in range(idx.shape[0]):
        X[idx[j]] = 0.0
    return 1


@njit(inline="always")
def _normalized_steps(state, params, idx, val, sw, moved, lr, step, prepare):
    """NAG's steps 3 and 4 (``olearn.optim.NAG``; step 1, the scales ``s = state[3]``,
    ran in the round's start): ``N += sum_i (x_i / s_i)^2`` (``N`` in ``A[0, FREE_]``),
    then the lazy steps at the rate ``lr sqrt(t / N)``."""
    A, S = state[2], state[3]
    for j in range(idx.shape[0]):
        if val[j] != 0.0:
            q = val[j] / S[idx[j]]
            A[0, FREE_] += q * q
    if A[0, FREE_] > 0.0:
        rate = lr * math.sqrt(A[0, T_] / A[0, FREE_])
        return _lazy_steps(state, params, idx, val, sw, moved, rate, step, prepare)
    return moved


MODES = {"row": _row_steps, "lazy": _lazy_steps, "dense": _dense_steps,
         "normalized": _normalized_steps}


def rule(name):
    """The OGD rule with the step of optimiser ``name`` (``olearn._compiled.steps``,
    whose mode picks how the step meets a row: ``MODES``)."""
    step, prepare, mode = STEPS[name]
    apply = MODES[mode]

    @njit(inline="always")
    def _ogd(state, params, idx, val, y, sw, seen, grad):
        lr = _start(state, params)
        moved = grad(state[2], seen, y, params.eps)
        moved = apply(state, params, idx, val, sw, moved, lr, step, prepare)
        if params.radius > 0.0:
            project_ball(state[0], state[1], state[2], params.radius)
        return moved
    return _ogd


def _declare(name, cls):
    """OGD's kernels with optimiser ``name``; NAG's step 1 (the scales, before the
    prediction) is its score and round start, those of ``olearn.linear.ndag``."""
    ogd = rule(name)
    normalized = cls.mode == "normalized"
    return declare("linear.ogd" if name == "sgd" else f"linear.ogd.{name}",  # (round 3's)
                   params=PARAMS + tuple(cls().kernel_params()),
                   score=nag_scores if normalized else avg_scores,
                   begin=nag_begin if normalized else avg_begin,
                   binary=ogd, multiclass=ogd, regression=ogd, losses=GRADS)


#: one declaration per optimiser: ``KERNELS[name].loss(loss)[task]``
KERNELS = {name: _declare(name, cls) for name, cls in OPTIMIZERS.items()}


def optimal_t0(alpha):
    """Bottou's offset: the first "optimal" step is ``typw = alpha^(-1/4)``."""
    return 1.0 / (alpha * alpha ** -0.25)


# the lines of the classifier's and the regressor's "Parameters" after ``loss``
STEP_DOC = """eta : float, base step (> 0).
    schedule : "constant", "invsqrt", "power", "optimal", "adagrad" or "nag" (the
        normalized adaptive step of ``olearn.optim.NAG`` with rate ``eta``).
    power : float in (0, 1], exponent of the "power" schedule.
    alpha : float, L2 term (>= 0; "optimal" needs > 0).
    radius : float or None, project onto the L2 ball of this radius after each step.
    optimizer : None, a name ("sgd", "adagrad", "rmsprop", "adam", "adamw", "cocob", "nag") or
        an ``olearn.optim`` optimiser: the step rule; None: ``eta``, ``schedule`` and
        ``power`` (which an optimiser replaces by its own)."""


class _OGD(NormalizedInputs, LossModel, LinearModel):
    """What the OGD classifier and regressor share: the step (schedule or optimiser),
    L2 term, projection."""
    optimizer = None  # (a subclass without the parameter: the plain step)

    def _optimizer(self):
        """The optimiser whose step the kernels run (``optimizer`` or, when None, the
        ``schedule``'s: AdaGrad for "adagrad", else SGD)."""
        legacy = {"adagrad": AdaGrad, "nag": NAG}.get(self.schedule, SGD)(lr=self.eta)
        return resolve(self.optimizer, legacy)

    def _normalizes(self):
        """Whether the step is NAG's (its predictions clip the rows to the scales)."""
        return self._optimizer().name == "nag"

    @property
    def _declared(self):
        return KERNELS[self._optimizer().name]

    def _extra_slots(self):
        slots = self._optimizer().slots(("K", "d"))
        if not any(s.name == "G" for s in slots):  # (an empty G: files of earlier OGDs)
            slots += (Slot("G", ("K", 0), 0.0, mix="sum"),)
        return slots

    def _check_hyper(self):
        self._check_loss()
        check_choice("schedule", self.schedule, SCHEDULES + ("nag",))
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("power", self.power, low=0.0, high=1.0, low_open=True)
        check_number("alpha", self.alpha, low=0.0)
        if self.radius is not None:
            check_number("radius", self.radius, low=0.0, low_open=True)
        if self.schedule == "optimal" and not self.alpha > 0:
            raise ValueError("schedule='optimal' needs an L2 term alpha > 0")
        opt = self._optimizer()
        opt.check()
        if opt.name == "cocob" and self.alpha > 0:
            raise ValueError("alpha (the L2 decay by the rate) needs a rate, which COCOB "
                             "has not: use radius")

    def _kernel_params(self):
        alpha = float(self.alpha)
        opt = self._optimizer()
        if self.optimizer is None and self.schedule != "nag":
            eta, schedule, power = self.eta, self.schedule, self.power
        else:
            eta, schedule, power = opt.rate()
        return {"eta": eta, "kind": SCHEDULES.index(schedule), "power": power,
                "alpha": alpha, "t0": optimal_t0(alpha) if alpha > 0 else 0.0,
                "radius": 0.0 if self.radius is None else self.radius, "eps": self.epsilon,
                **opt.kernel_params()}


class OGDClassifier(LogisticProba, _OGD, OnlineClassifier):
    __doc__ = f"""Online gradient descent classifier (see the module docstring).

    Parameters
    ----------
    loss : "hinge", "squared_hinge", "logistic", "perceptron" or "modified_huber".
    {STEP_DOC}
    {AVERAGE_DOC}
    """

    def __init__(self, loss="hinge", eta=1.0, schedule="invsqrt", power=0.5, alpha=0.0,
                 radius=None, average=False, fit_intercept=True, intercept_scaling=0.1,
                 epochs=1, shuffle=True, random_state=0, optimizer=None):
        store_params(self, locals())



class OGDRegressor(_OGD, OnlineRegressor):
    __doc__ = f"""Online gradient descent regressor (see the module docstring).

    The default step is NAG's (``schedule="nag"``, ``olearn.optim.NAG``: Ross, Mineiro
    and Langford 2013, Algorithm 2) with ``eta=2``, the rule and rate of
    ``NDAGRegressor``: its predictions do not depend on the features' scales, so the
    default neither diverges on unscaled features (mean 100, scale 10^3) nor needs a
    step tuned to them.  Until round 4 the default was ``schedule="invsqrt", eta=0.1``,
    which diverges on such features (a model file keeps its parameters, so files saved
    then load and predict as before).  The step cannot follow targets far from 0 faster
    than about ``eta sqrt(t)`` (``benchmarks/defaults_regression.md``: California
    housing's raw prices).

    Parameters
    ----------
    loss : "squared", "absolute", "epsilon_insensitive" or "huber".
    {STEP_DOC}
    {EPSILON_DOC}
    {AVERAGE_DOC}
    """
    def __init__(self, loss="squared", eta=2.0, schedule="nag", power=0.5, alpha=0.0,
                 radius=None, epsilon=0.1, average=False, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0,
                 optimizer=None):
        store_params(self, locals())
