"""IELLIP: the improved ellipsoid method for online learning (Yang, Jin, Ye, "Online
Learning by Ellipsoid Method", ICML 2009, Sec. 4).

The hypotheses consistent with the mistakes so far are kept in an ellipsoid with
centre ``mu`` (0 at start) and shape ``Sigma`` (I at start).  On a mistake
(``m = y mu.x <= 0``; a zero score counts as a mistake), with ``v = x'Sigma x`` and
``g = y x / sqrt(v)``::

    mu    += (1 - m) / sqrt(v) Sigma g          (= (1 - m)/v y Sigma x: margin 1 after)
    Sigma  = (Sigma - c_t Sigma g g' Sigma) / (1 - c_t)

with ``c_t = c b^(t-1)`` at the t-th row (every row counts, mistaken or not), so the
ellipsoid shrinks along ``x`` and grows by ``1/(1 - c_t)`` overall, less and less as
``c_t`` decays.  In precision form: ``Sigma^-1 <- (1 - c_t) (Sigma^-1 + c_t/(v (1 - c_t))
x x')``.  The paper's text was not at hand when this was written: the formulas are
those of LIBOL's ``IELLIP.m`` with the default ``b = 0.3``, ``c = 0.1``.

The global rescaling touches every entry of ``Sigma`` (O(d) even for the diagonal
covariance), but only while ``1/(1 - c_t)`` differs from 1 in floating point, i.e.
for the first few dozen rows.  Multiclass: the single-constraint max-score form with
per-class covariances (``m = mu_y.x - mu_s.x``, ``v = x'Sigma_y x + x'Sigma_s x``; see
``olearn/_compiled/second_order.py``); the rescaling applies to every class.  A sample
weight ``h`` multiplies the mean step; a zero weight skips the row (no count).
"""
import numbers

from numba import njit

from ..base import OnlineClassifier, Slot
from .._compiled.driver import linear_scores
from .._compiled.second_order import cw_binary, cw_multiclass, scale_cov
from .._compiled.declare import declare
from .._params import store_params
from ._base import COVARIANCE_DOC, SecondOrderMixin


@njit(inline="always")
def _wants(params, m):
    return m <= 0.0


@njit(inline="always")
def _step(params, m, v, sw):
    ct, = params  # (this row's c_t: see the rules)
    return True, sw * (1.0 - m) / v, ct / (v * (1.0 - ct))


@njit(inline="always")
def _c_t(state, params, sw):
    """This row's ``c_t``; advances the row counter (the last state array)."""
    b, c = params.b, params.c
    if not sw > 0.0:
        return 0.0
    n = state[-1][0]
    state[-1][0] = n + 1.0
    return c * b ** n


@njit(inline="always")
def _rescale(state, updated, ct):
    if updated and ct > 0.0:
        f = 1.0 / (1.0 - ct)
        if f != 1.0:
            scale_cov(state[1], f)
    return updated


@njit(inline="always")
def _binary_rule(state, params, idx, val, y, sw, out, seen):
    ct = _c_t(state, params, sw)
    updated = cw_binary(state, (ct,), idx, val, y, sw, out, _wants, _step)
    return _rescale(state, updated, ct)


@njit(inline="always")
def _multiclass_rule(state, params, idx, val, y, sw, out, seen):
    ct = _c_t(state, params, sw)
    updated = cw_multiclass(state, (ct,), idx, val, y, sw, out, seen,
                            _wants, _step)
    return _rescale(state, updated, ct)


KERNELS = declare("second_order.iellip", params=("b", "c"), score=linear_scores,
                  binary=_binary_rule, multiclass=_multiclass_rule)


class IELLIPClassifier(SecondOrderMixin, OnlineClassifier):
    __doc__ = f"""Improved ellipsoid method (binary and multiclass).

    Parameters
    ----------
    b : float in (0, 1), decay of ``c_t``.
    c : float in (0, 1), initial shrink ``c_1``.
    {COVARIANCE_DOC}

    Fitted: as the other second-order learners, plus the row counter in ``state_["t"]``.
    """
    _capabilities = {"width_dependent": "the early rows' global rescaling of the covariance "
                                "reaches only the columns that exist then"}
    _kernels = KERNELS
    _extra_slots = (Slot("t", (1,), 0.0, mix="sum"),)

    def __init__(self, b=0.3, c=0.1, covariance="auto", fit_intercept=True,
                 intercept_scaling=1.0, epochs=1, shuffle=True, random_state=0):
        store_params(self, locals())

    def _check_hyper(self):
        for name in ("b", "c"):
            value = getattr(self, name)
            if not (isinstance(value, numbers.Real) and 0.0 < value < 1.0):
                raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")

    def _kernel_params(self):
        return {"b": self.b, "c": self.c}
