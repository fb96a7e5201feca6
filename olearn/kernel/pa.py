"""Kernel Passive-Aggressive classification and regression (Crammer, Dekel, Keshet,
Shalev-Shwartz, Singer, "Online Passive-Aggressive Algorithms", JMLR 7, 2006: the
updates of ``olearn.linear.pa`` with ``x . x`` replaced by a Mercer kernel, as the
seed chapter's "PA with kernels" and the paper's section 3 describe).

Binary: hinge loss ``l = max(0, 1 - y f(x))``; when ``l > 0`` the example joins the
support set with ``alpha = tau y``, ``tau = min(c, l / (K(x, x) + D))`` ((c, D) =
(inf, 0) "PA", (C, 0) "PA-I", (inf, 1/(2C)) "PA-II", eqs. 6-8 with ``||x||^2 =
K(x, x)``).  Multiclass (section 7, max-score form; the seed chapter's multiclass PA):
``s`` the highest-scoring wrong class, ``l = max(0, 1 - (f_y - f_s))``, ``tau`` with
``2 K(x, x)``; one support vector with ``+tau`` for ``y`` and ``-tau`` for ``s``.
Regression (section 4): ``l = max(0, |y - f(x)| - epsilon)``, ``alpha = sign(y - f)
tau``.  With ``kernel="linear"`` these are ``olearn.linear.PAClassifier`` and
``PARegressor``.  A row with ``K(x, x) = 0`` makes no update; a sample weight
multiplies tau.  ``budget=B`` with ``budget_policy="random"``: a uniformly drawn
support vector leaves when the set is full (as the Randomized Budget Perceptron).
``budget_policy="bpa-s"`` (classifier): BPA-Simple (Wang and Vucetic, "Online
Passive-Aggressive Algorithms on a Budget", AISTATS 2010, BPA-S): when B vectors
are held and the new one would be the (B+1)-th, one ``x_r`` leaves and its term is
projected onto the new vector alone: ``f' = f - alpha_r K(x_r, .) + beta K(x, .)``,
``beta = alpha_r K(x_r, x) / K(x, x) + tau y`` (the minimiser of the PA objective
``1/2 ||f' - f||^2 + C loss`` over beta, with the same ``tau`` as without a budget:
the removed term's part of the loss cancels).  ``r`` minimises the weight
degradation ``||f' - f - tau y K(x, .)||^2 = alpha_r^2 (K(x_r, x_r) -
K(x_r, x)^2 / K(x, x))`` (the loss term of the objective does not depend on r);
multiclass: the same projection per class row, the degradation summed over the
rows (an extension; the paper is binary).  The paper's text could not be read in
this session: the step is derived from the objective above, and LIBOKL's ``BPAs.m``
(read) computes the same ``beta`` and choice for ``K(x, x) = 1``.  Cost per row
O(n_support nnz) + O(B K).
"""
from numba import njit

from ..base import OnlineClassifier, OnlineRegressor
from .._compiled.driver import MULTICLASS
from .._params import store_params
from .._validation import check_number
from ..linear.pa import pa_step_params
from . import _support as S
from ._base import KERNEL_DOC, SupportClassifier, SupportModel


@njit(inline="always")
def _classify(out, y, w, kxx, task, seen, params, coefs):
    m, pos, neg = S.class_margin(out, y, task, seen)
    if not m < 1.0:
        return False
    f = 2.0 if task == MULTICLASS else 1.0
    S.class_step(coefs, min(params.c, (1.0 - m) / (f * kxx + params.D)) * w, y, task, pos,
                 neg)
    return True


@njit(inline="always")
def _regress(out, y, w, kxx, task, seen, params, coefs):
    r = y - out[0]
    loss = abs(r) - params.epsilon
    if not loss > 0.0:
        return False
    tau = min(params.c, loss / (kxx + params.D)) * w
    coefs[0] = tau if r > 0.0 else -tau
    return True


CLASSIFIER = S.declare_expansion("kernel.pa", S.margin_rule(_classify), ("c", "D"))
REGRESSOR = S.declare_expansion("kernel.pa_regressor", S.margin_rule(_regress),
                                ("c", "D", "epsilon"))


class KernelPAClassifier(SupportClassifier, OnlineClassifier):
    __doc__ = f"""Kernel Passive-Aggressive classifier (variants "PA", "PA-I", "PA-II").

    Parameters
    ----------
    C : float, aggressiveness (> 0; unused by "PA").
    variant : "PA", "PA-I" or "PA-II".
    {KERNEL_DOC}
    budget : int or None, most support vectors kept (None: unbounded).
    budget_policy : "random" (a uniformly drawn support vector leaves when full) or
        "bpa-s" (BPA-Simple: the least degrading one leaves, projected onto the new
        one; see the module docstring).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _expansion = CLASSIFIER
    _policies = ("random", "bpa-s")

    def __init__(self, C=1.0, variant="PA-I", kernel="rbf", gamma=0.1, coef0=1.0, degree=3,
                 budget=None, budget_policy="random", fit_intercept=False,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    def _rule_params(self):
        c, D = pa_step_params(self.variant, self.C)
        return {"c": c, "D": D}


class KernelPARegressor(SupportModel, OnlineRegressor):
    __doc__ = f"""Kernel Passive-Aggressive regressor on the epsilon-insensitive loss.

    Parameters
    ----------
    C : float, aggressiveness (> 0; unused by "PA").
    epsilon : float, width of the insensitive zone (>= 0).
    variant : "PA", "PA-I" or "PA-II".
    {KERNEL_DOC}
    budget : int or None, most support vectors kept (None: unbounded).
    budget_policy : "random" (a uniformly drawn support vector leaves when full).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """
    _expansion = REGRESSOR
    _policies = ("random",)

    def __init__(self, C=1.0, epsilon=0.1, variant="PA-I", kernel="rbf", gamma=0.1,
                 coef0=1.0, degree=3, budget=None, budget_policy="random",
                 fit_intercept=False, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())

    def _rule_params(self):
        eps = check_number("epsilon", self.epsilon, low=0.0)
        c, D = pa_step_params(self.variant, self.C)
        return {"c": c, "D": D, "epsilon": eps}
