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
  delta = 0: a coordinate moves only once it has had a gradient).

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

``average=True``: Polyak-Ruppert averaging (the mean of ``w_1 .. w_t`` predicts; the
raw iterate learns).  ``predict_proba`` exists for the "logistic" loss (sigmoid of the
score; the softmax over the classes seen for a multiclass model).
"""
from numba import njit

from ..base import OnlineClassifier, OnlineRegressor, Slot
from .._compiled.averaging import G_, T_, adagrad_rows, add_row, avg_begin, avg_scores, \
    project_ball, scale_weights
from .._compiled.declare import declare
from ._proba import LogisticProba
from .._compiled.losses import ADAGRAD, GRADS, SCHEDULES, step_size
from .._params import store_params
from ._linear import LinearModel, check_choice, check_number
from ._loss import AVERAGE_DOC, EPSILON_DOC, LossModel


@njit(inline="always")
def _ogd(state, params, idx, val, y, sw, seen, grad):
    eta, kind, power, alpha = params.eta, params.kind, params.power, params.alpha
    t0, radius, eps = params.t0, params.radius, params.eps
    W = state[0]
    U = state[1]
    A = state[2]
    step = step_size(kind, eta, power, alpha, t0, A[0, T_])
    if alpha > 0.0:
        scale_weights(W, U, A, max(0.0, 1.0 - step * alpha))
    moved = grad(A, seen, y, eps)
    if moved:
        if kind == ADAGRAD:
            G = state[3]
            adagrad_rows(W, U, A, G, G[0, :0], eta, sw, idx, val)  # no feature scales
        else:
            for k in range(A.shape[0]):
                if A[k, G_] != 0.0:
                    add_row(W, U, A, k, -step * sw * A[k, G_], idx, val)
    if radius > 0.0:
        project_ball(W, U, A, radius)
    return moved




KERNELS = declare("linear.ogd", params=("eta", "kind", "power", "alpha", "t0", "radius", "eps"),
                  score=avg_scores, begin=avg_begin, binary=_ogd, multiclass=_ogd,
                  regression=_ogd, losses=GRADS)

def optimal_t0(alpha):
    """Bottou's offset: the first "optimal" step is ``typw = alpha^(-1/4)``."""
    return 1.0 / (alpha * alpha ** -0.25)


# the lines of the classifier's and the regressor's "Parameters" after ``loss``
STEP_DOC = """eta : float, base step (> 0).
    schedule : "constant", "invsqrt", "power", "optimal" or "adagrad".
    power : float in (0, 1], exponent of the "power" schedule.
    alpha : float, L2 term (>= 0; "optimal" needs > 0).
    radius : float or None, project onto the L2 ball of this radius after each step."""


class _OGD(LossModel, LinearModel):
    """What the OGD classifier and regressor share: schedule, L2 term, projection."""
    _declared = KERNELS

    def _extra_slots(self):
        return (Slot("G", ("K", "d" if self.schedule == "adagrad" else 0), 0.0, mix="sum"),)

    def _check_hyper(self):
        self._check_loss()
        check_choice("schedule", self.schedule, SCHEDULES)
        check_number("eta", self.eta, low=0.0, low_open=True)
        check_number("power", self.power, low=0.0, high=1.0, low_open=True)
        check_number("alpha", self.alpha, low=0.0)
        if self.radius is not None:
            check_number("radius", self.radius, low=0.0, low_open=True)
        if self.schedule == "optimal" and not self.alpha > 0:
            raise ValueError("schedule='optimal' needs an L2 term alpha > 0")

    def _kernel_params(self):
        alpha = float(self.alpha)
        return {"eta": self.eta, "kind": SCHEDULES.index(self.schedule), "power": self.power,
                "alpha": alpha, "t0": optimal_t0(alpha) if alpha > 0 else 0.0,
                "radius": 0.0 if self.radius is None else self.radius, "eps": self.epsilon}


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
                 epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())



class OGDRegressor(_OGD, OnlineRegressor):
    __doc__ = f"""Online gradient descent regressor (see the module docstring).

    Parameters
    ----------
    loss : "squared", "absolute", "epsilon_insensitive" or "huber".
    {STEP_DOC}
    {EPSILON_DOC}
    {AVERAGE_DOC}
    """
    # scikit-learn checks the default OGD regressor departs from, and why
    _expected_failed_checks = dict.fromkeys(
        ("check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in"),
        "the default step diverges on these checks' unscaled targets (hundreds): the "
        "learner raises DivergenceError, as a diverging learner must")

    def __init__(self, loss="squared", eta=0.1, schedule="invsqrt", power=0.5, alpha=0.0,
                 radius=None, epsilon=0.1, average=False, fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())
