"""Kernel Perceptron, unbounded or on a budget.

The seed chapter's online kernel Perceptron (Neural Networks, ch. 6, "Online Kernel
Perceptron"; Freund and Schapire 1999): ``f(x) = sum_i alpha_i K(x_i, x)``; when
``y f(x) <= margin`` the example joins the support set with ``alpha = y`` (times its
sample weight).  With ``kernel="linear"`` this is ``olearn.linear.Perceptron`` (same
predictions, same weights ``w = sum_i alpha_i x_i``).  Multiclass: Crammer and
Singer's max-score update (JMLR 3, 2003), as the linear Perceptron's
``multiclass="max"``: one support vector with ``+1`` for the true class and ``-1`` for
the highest-scoring wrong class.  A row with ``K(x, x) = 0`` makes no update.

Budgets (``budget=B``, binary unless stated), cost per row O(B nnz) plus:

* ``"random"`` (binary and multiclass): the Randomized Budget Perceptron (Cavallanti,
  Cesa-Bianchi, Gentile, "Tracking the best hyperplane with a simple budget
  Perceptron", Machine Learning 69, 2007): when the set is full, a support vector
  drawn uniformly at random leaves before the new one enters;
* ``"forgetron"``: the self-tuned Forgetron (Dekel, Shalev-Shwartz, Singer, SIAM J.
  Comput. 37(5), 2008, section 4): after the Perceptron step ``f' = f + y K(x, .)``,
  when more than B vectors are held, every coefficient shrinks by
  ``phi = max{phi in (0, 1]: Psi(sigma_r phi, mu) + Q <= 15/32 M}`` with
  ``Psi(l, m) = l^2 + 2 l - 2 l m``, ``sigma_r`` the oldest vector's weight,
  ``mu = y_r f'(x_r)``, ``M`` the mistakes so far and ``Q`` the running sum of Psi;
  then the oldest vector leaves (O(B nnz) more, for ``f'(x_r)``);
* ``"projectron"`` (Orabona, Keshet, Caputo, "Bounded kernel-based online learning",
  JMLR 10, 2009, Algorithm 1): on a mistake, ``d = K_S^{-1} k_t`` and
  ``delta^2 = K(x, x) - k_t . d``; when ``delta <= threshold`` the update is projected
  onto the span of the support set (``alpha += y d``, no new vector), else ``x`` joins
  and ``K_S^{-1}`` is updated in O(B^2) (cost per row O(B^2)).  The paper bounds the
  set through ``threshold`` alone; with ``budget=B`` the update is also projected
  whenever B vectors are held, a hard cap the paper does not have;
* ``"projectron++"`` (the same paper, Algorithm 2): a mistake is handled as
  by the Projectron; a margin error ``0 < y f(x) < 1`` (loss ``l = 1 - y f(x)``) is
  never added, only projected: with ``d = K_S^{-1} k_t``, ``||P k_t||^2 = k_t . d``,
  ``tau = min(l / ||P k_t||^2, 1)``, the update ``alpha += y tau d`` is made when
  ``beta = tau (2 l - tau ||P k_t||^2 - 2 delta / threshold) >= 0`` (the paper's
  condition, with its eta = ``threshold``; a sample weight multiplies the step).
  LIBOKL's ``proplus.m`` has the same ``tau`` and ``beta`` with the Forgetron's
  constant ``U = sqrt((B + 1) / log(B + 1)) / 4`` where the paper has ``1 / eta``;
  this follows the paper (its text could not be read in this session: the ``1 / eta``
  form is the paper's as recalled, the rest is confirmed by ``proplus.m``).  Cost per
  row O(B^2), as the Projectron.
"""
from numba import njit

from ..base import OnlineClassifier
from .._params import store_params
from .._validation import check_number
from . import _support as S
from ._base import SupportClassifier


@njit(inline="always")
def _test(out, y, w, kxx, task, seen, params, coefs):
    """A mistake (margin at most ``margin``): the row joins with ``alpha = y``."""
    m, pos, neg = S.class_margin(out, y, task, seen)
    if not m <= params.margin:
        return False
    S.class_step(coefs, w, y, task, pos, neg)
    return True


EXPANSION = S.declare_expansion("kernel.perceptron", S.margin_rule(_test), ("margin",))


class KernelPerceptron(SupportClassifier, OnlineClassifier):
    """Kernel Perceptron: ``x`` joins the support set when ``y f(x) <= margin``.

    Parameters
    ----------
    kernel : "rbf" (exp(-gamma ||x - z||^2)), "poly" ((gamma x.z + coef0)^degree) or
        "linear" (x.z).
    gamma : float, kernel width (rbf) or scale (poly) (> 0).
    coef0 : float, poly kernel's constant.
    degree : int, poly kernel's degree (>= 1).
    margin : float, update when the margin is at most this (>= 0).
    budget : int or None, most support vectors kept (None: unbounded).
    budget_policy : "random", "forgetron", "projectron" or "projectron++" (see the
        module docstring).
    threshold : float, the Projectron's (and Projectron++'s) eta: largest projection
        error that is projected.
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner`` (random_state also seeds the random budget policy).
    """
    _expansion = EXPANSION
    _policies = ("random", "forgetron", "projectron", "projectron++")

    def __init__(self, kernel="rbf", gamma=0.1, coef0=1.0, degree=3, margin=0.0,
                 budget=None, budget_policy="random", threshold=0.1, fit_intercept=False,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    def _rule_params(self):
        margin = check_number("margin", self.margin, low=0.0)
        return {"margin": margin}

    def _bound(self):
        return check_number("threshold", self.threshold, low=0.0)
