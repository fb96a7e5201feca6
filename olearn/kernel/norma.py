"""NORMA (Kivinen, Smola, Williamson, "Online Learning with Kernels", IEEE Trans.
Signal Processing 52(8), 2004, section III).

Stochastic gradient descent in the RKHS on the regularised risk
``lambda/2 ||f||^2 + loss``: each example first shrinks every coefficient,
``f <- (1 - eta lambda) f`` (eq. 8; a sample weight ``w`` makes it
``1 - eta lambda w``), then, when the loss has a non-zero derivative, adds
``x`` with ``alpha = -eta loss'``:

* classification, soft margin ``max(0, rho - y f(x))`` (section III-A with a fixed
  ``rho``; the nu-version that adapts rho is not implemented): ``alpha = eta y`` when
  ``y f(x) < rho``.  Multiclass (not in the paper; the max-score hinge of the other
  classifiers here): ``+eta`` for the true class and ``-eta`` for the highest-scoring
  wrong class when ``f_y - f_s < rho``;
* regression, epsilon-insensitive loss (section III-C with a fixed epsilon):
  ``alpha = eta sign(y - f(x))`` when ``|y - f(x)| > epsilon``.

The step is constant (the paper's eta_t = eta, its Theorem 1 setting).  ``budget=B``
(``budget_policy="truncate"``): the paper's truncation (section III-D), keeping the
last B terms, each older one having been shrunk by ``(1 - eta lambda)`` per example
since it entered (the error of dropping it is bounded by that factor).

``budget_policy="bogd"``: bounded online gradient descent, BOGD (Zhao, Wang, Wu, Jin,
Hoi, "Fast Bounded Online Gradient Descent Algorithms for Scalable Kernel-Based Online
Learning", ICML 2012), which is this learner (hinge loss with ``rho = 1``, the shrink
``1 - eta lambda``) on a budget: when B vectors are held and a new one enters, one
drawn uniformly at random leaves and the B - 1 others are multiplied by
``B / (B - 1)``, so that the expected function after the removal is the function
before it.  The paper could not be read here: the removal and the rescaling are
those of LIBOKL's ``BOGD.m`` (Lu, Hoi et al.), and so is the optional bound
``max_coef`` (LIBOKL's ``eta * gamma``, 2 in its demo): after a removal, when the
largest ``|alpha_i|`` exceeds it, every coefficient is scaled by
``max_coef / max_i |alpha_i|``.  Without it the rescalings compound (a vector that
survives m removals has grown by about ``exp(m / B)``).  BOGD++'s non-uniform
sampling is not built.  BOGD is defined for classification; ``NORMARegressor`` accepts it too
(as LIBOKL's regression BOGD).  Cost per row
O(n_support nnz) plus O(n_support K) for the shrink.
"""
from numba import njit

from ..base import OnlineClassifier, OnlineRegressor
from .._params import store_params
from .._validation import check_number
from . import _support as S
from ._base import KERNEL_DOC, SupportClassifier, SupportModel


DOC = """NORMA: kernel SGD on the regularised {loss}.

    Parameters
    ----------
    eta : float, step size (> 0).
    lam : float, regularisation lambda (>= 0; eta * lam < 1).
    {third}
    {KERNEL_DOC}
    budget : int or None, terms kept (None: all).
    budget_policy : "truncate" (the oldest term leaves) or "bogd" (BOGD: a uniformly
        drawn term leaves and the others are rescaled by B / (B - 1)).
    max_coef : float or None, BOGD's bound on the coefficients after a removal (None:
        no bound; LIBOKL uses eta * 10).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``.
    """


@njit(inline="always")
def _classify(out, y, w, kxx, task, seen, params, coefs):
    m, pos, neg = S.class_margin(out, y, task, seen)
    if not m < params.rho:
        return False
    S.class_step(coefs, params.eta * w, y, task, pos, neg)
    return True


@njit(inline="always")
def _regress(out, y, w, kxx, task, seen, params, coefs):
    r = y - out[0]
    if not abs(r) > params.epsilon:
        return False
    coefs[0] = params.eta * w if r > 0.0 else -params.eta * w
    return True


def _norma(test):
    """NORMA's rule: ``f <- (1 - eta lambda) f`` first (times the sample weight), then the
    loss's step."""
    step = S.margin_rule(test)

    @njit(inline="always")
    def rule(alpha, kinv, pmat, kv, n, kxx, out, y, w, task, seen, params, coefs, dvec):
        decay = 1.0 - params.eta * params.lam * w
        for k in range(alpha.shape[0]):
            for s in range(n):
                alpha[k, s] *= decay
        return step(alpha, kinv, pmat, kv, n, kxx, out, y, w, task, seen, params, coefs,
                    dvec)
    return rule


CLASSIFIER = S.declare_expansion("kernel.norma", _norma(_classify), ("eta", "lam", "rho"))
REGRESSOR = S.declare_expansion("kernel.norma_regressor", _norma(_regress),
                                ("eta", "lam", "epsilon"))


class _NORMA:
    """The parameters' checks; ``_third`` names the loss's own parameter (``rho`` or
    ``epsilon``, >= 0)."""
    _policies = ("truncate", "bogd")
    _third = ""

    def _rule_params(self):
        third = check_number(self._third, getattr(self, self._third), low=0.0)
        eta = check_number("eta", self.eta, low=0.0, low_open=True)
        lam = check_number("lam", self.lam, low=0.0)
        if eta * lam >= 1.0:
            raise ValueError(f"eta * lam must be below 1 (the shrink factor 1 - eta lam is "
                             f"{1.0 - eta * lam!r})")
        return {"eta": eta, "lam": lam, self._third: third}

    def _bound(self):
        cap = self.max_coef
        return 0.0 if cap is None else check_number("max_coef", cap, low=0.0, low_open=True)


class NORMAClassifier(_NORMA, SupportClassifier, OnlineClassifier):
    __doc__ = DOC.format(loss="soft-margin loss", KERNEL_DOC=KERNEL_DOC,
                         third="rho : float, margin of the soft-margin loss (>= 0).")
    _expansion = CLASSIFIER
    _third = "rho"

    def __init__(self, eta=0.5, lam=0.01, rho=1.0, kernel="rbf", gamma=0.1, coef0=1.0,
                 degree=3, budget=None, budget_policy="truncate", max_coef=None,
                 fit_intercept=False, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())


class NORMARegressor(_NORMA, SupportModel, OnlineRegressor):
    __doc__ = DOC.format(loss="epsilon-insensitive loss", KERNEL_DOC=KERNEL_DOC,
                         third="epsilon : float, width of the insensitive zone (>= 0).")
    _expansion = REGRESSOR
    _third = "epsilon"

    def __init__(self, eta=0.5, lam=0.01, epsilon=0.1, kernel="rbf", gamma=0.1, coef0=1.0,
                 degree=3, budget=None, budget_policy="truncate", max_coef=None,
                 fit_intercept=False, intercept_scaling=1.0, epochs=1, shuffle=True,
                 random_state=0):
        store_params(self, locals())
