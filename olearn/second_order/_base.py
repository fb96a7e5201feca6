"""What the second-order learners share: a Gaussian over the weights (mean ``W``,
covariance ``L L'`` or diagonal ``S``), the choice of a full or diagonal covariance, and
the fitted ``coef_``/``cov_``/``covariance_``.

``covariance``: ``"full"`` keeps a (d, d) matrix per class (O(d^2) per update, never
inverted), ``"diag"`` its diagonal (O(non-zeros) per update; see
``olearn/_compiled/second_order.py`` for the approximation), ``"auto"`` picks full for
input with at most 1,000 features and diagonal for wider input and for dict examples
(whose vocabulary grows without bound).  The choice is made once, from the first batch
or example, and read back from the state afterwards (``covariance_``), so saved models
reload with it.

``"auto"`` looks at the width only, not at whether a matrix is stored dense or CSR:
the same data given either way must give the same model (the driver's contract, tested
for every learner); CSR data with at most 1,000 columns (a9a, w8a) gets the full
covariance, which costs O(d nnz + d^2) per update there.
"""
import math
import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import log_ndtr, ndtr
from .._estimator import check_is_fitted, is_regressor

from ..base import Slot
from ..linear import LinearDecision
from .._compiled.driver import REGRESSION
from .._locking import locked
from .._compiled import entry_point as _entry_point
from numba import njit

COVARIANCES = ("full", "diag", "auto")
AUTO_MAX_FULL = 1000


def check_positive(name, value):
    if not (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


# the last lines of every second-order learner's "Parameters" (``__doc__ = f"""..."""``)
COVARIANCE_DOC = """covariance : "full", "diag" or "auto" (see ``olearn.second_order._base``).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``."""


class SecondOrderMixin(LinearDecision):
    """Mean ``W = state[0]`` (K, d) and covariance ``state[1]`` for a learner class: full,
    ``L`` (K, d, d) with ``Sigma_k = L_k L_k'`` (plus ``B`` (2, d), the kernels' scratch:
    the last row's ``L'x``, not a parameter), or diagonal, ``S`` (K, d).

    A subclass defines ``_sigma0`` (the initial variance, from its own parameters) and
    may add ``_extra_slots``.  Its hyper-parameters: ``_positive`` names those that must
    be finite numbers > 0 and are the kernel's parameters (declared by these names); a learner with
    other checks or parameters overrides ``_check_hyper`` and ``_kernel_params``.
    """
    _capabilities = {"linear": True}
    _extra_slots = ()
    _positive = ()

    def _row_scores(self, row, n):
        """Scores of one CSR row, ``W_k . x``, by one compiled call (no fancy indexing)."""
        W = self.state_["W"]
        out = np.empty(W.shape[0])
        _call_row(_row_dot, (row[1], row[2], n, W, out))
        return out

    def _check_hyper(self):
        for name in self._positive:
            check_positive(name, getattr(self, name))

    def _check_params(self):
        self._check_hyper()
        self._check_covariance()

    def _kernel_params(self):
        return {name: getattr(self, name) for name in self._positive}

    @property
    def _sigma0(self):
        return 1.0

    @property
    def _sqrt_sigma0(self):
        return float(np.sqrt(self._sigma0))

    @property
    def _slots(self):
        state = self.__dict__.get("state_")
        if state is not None and ("L" in state or "S" in state):
            full = "L" in state
        else:
            full = self.__dict__.get("_full", self.covariance == "full")
        # mixing (olearn.mixing): a regressor's Gaussian is a posterior (RLS, AROW's
        # regression: Bayesian ridge), mixed as one; a classifier's, Jubatus's way
        bayes = is_regressor(self)
        cov = (Slot("L", ("K", "d", "d"), "_sqrt_sigma0", eye=True,
                    mix="evidence" if bayes else "covariance_mean"),
               Slot("B", (2, "d"), mix="reset")) \
            if full else (Slot("S", ("K", "d"), "_sigma0", mix="evidence" if bayes else "min"),)
        return (Slot("W", ("K", "d"), 0.0, signed=True, mix="precision" if bayes else "mean"),) \
            + cov + tuple(self._extra_slots)

    def _check_covariance(self):
        if self.covariance not in COVARIANCES:
            raise ValueError(f"covariance must be one of {', '.join(COVARIANCES)}, got "
                             f"{self.covariance!r}")

    # the covariance layout is decided when the state is first allocated (_start): from
    # the width, or for dict examples (learn_one with a growing vocabulary) diagonal
    def _validate_X(self, X, reset):
        if reset:
            self._dict_input = False
        return super()._validate_X(X, reset)

    def _row_lists(self, x, grow):
        if self._is_fresh():
            self._dict_input = isinstance(x, dict)
        return super()._row_lists(x, grow)

    def _start(self, n_features):
        self._check_covariance()
        mode = self.covariance
        if mode == "auto":
            dicts = self.__dict__.get("_dict_input", False)
            mode = "full" if not dicts and n_features <= AUTO_MAX_FULL else "diag"
        self._full = mode == "full"
        super()._start(n_features)

    def _import_state(self, arrays, K, d):
        """A saved model's layout is the one its arrays have, if its ``covariance``
        allows it."""
        full = "state/L" in arrays
        if self.covariance == ("diag" if full else "full"):
            raise ValueError(f"covariance={self.covariance!r} but the saved state is "
                             f"{'full' if full else 'diagonal'}")
        self._full = full
        super()._import_state(arrays, K, d)

    def _widen(self, n_features):
        """More columns (``olearn._estimator.widen``); a full covariance that
        ``"auto"`` chose for a narrow start does not grow past ``AUTO_MAX_FULL``."""
        if not self._is_fresh() and n_features > self.n_features_in_ \
                and n_features > AUTO_MAX_FULL and self.covariance == "auto" \
                and "L" in self.state_:
            raise ValueError(
                f"{type(self).__name__} took a full covariance for its first "
                f"{self.n_features_in_} features (covariance='auto'); {n_features:,} "
                f"features would need a {n_features:,} x {n_features:,} matrix per class: "
                "give the width from the start (n_features, --n-features) or "
                "covariance='diag'")
        return super()._widen(n_features)

    # ------------------------------------------------------------ fitted attributes
    @property
    def covariance_(self):
        """``"full"`` or ``"diag"``: the covariance layout this model uses."""
        check_is_fitted(self, "state_")
        return "full" if "L" in self.state_ else "diag"

    def _sigma(self):
        """Covariance of every class over all weights (intercept included): (K, d, d)
        from the factor ``L``, or the (K, d) variances."""
        if "L" in self.state_:
            L = self.state_["L"]
            C = np.matmul(L, np.swapaxes(L, 1, 2))
            return 0.5 * (C + np.swapaxes(C, 1, 2))
        return self.state_["S"].copy()

    @property
    def cov_(self):
        """Covariance of ``coef_`` (the intercept's row and column left out): per class
        a (n_features, n_features) matrix or, for ``covariance_ == "diag"``, its diagonal;
        shaped like ``coef_`` (a leading class axis for classifiers, none for regressors)."""
        check_is_fitted(self, "state_")
        C = self._sigma()
        i = int(self.fit_intercept)
        nf = self.n_features_in_
        C = C[:, i:i + nf, i:i + nf] if C.ndim == 3 else C[:, i:i + nf]
        return C[0] if self._task() == REGRESSION else C

    def _margin_variance(self, X):
        """``x'Sigma_k x`` (intercept feature included) of every row and class row:
        (n, K)."""
        X = self._validate_X(X, reset=False)
        i = int(self.fit_intercept)
        n, nf = X.shape
        if sp.issparse(X) and i:
            X = sp.hstack([np.full((n, 1), self._constant()), X], format="csr")
        elif i:
            X = np.hstack([np.full((n, 1), self._constant()), X])
        if "L" in self.state_:
            out = []
            for L in self.state_["L"]:
                B = np.asarray(X @ L[:nf + i])      # rows b = L'x
                out.append(np.einsum("ij,ij->i", B, B))
            return np.column_stack(out)
        S = self.state_["S"][:, :nf + i]
        X2 = X.multiply(X) if sp.issparse(X) else X * X
        return np.asarray(X2 @ S.T).reshape(n, -1)


#: Gauss-Hermite nodes of the multiclass probabilities: against the two-class closed form,
#: error 1.6e-7 at 256 nodes (2e-3 at 64) where the margins' variances differ up to 400x
#: (a much narrower margin makes its factor a near step, which quadrature resolves slowly)
_NODES = 256


def _hermgauss():
    """The quadrature's nodes and weights, computed once (``hermgauss(256)`` costs
    milliseconds: no call recomputes it)."""
    global _HERMGAUSS
    if _HERMGAUSS is None:
        _HERMGAUSS = np.polynomial.hermite.hermgauss(_NODES)
    return _HERMGAUSS


_HERMGAUSS = None


def argmax_probability(mean, var):
    """``P(margin k is the largest)`` for independent normal margins ``N(mean_k,
    var_k)`` (rows of ``(n, K)`` arrays): ``int phi_k(t) prod_{j != k} Phi((t - mean_j) /
    sd_j) dt``, by Gauss-Hermite quadrature, normalised to sum to 1 per row (a zero
    variance is a point mass; exact ties share)."""
    u, w = _hermgauss()
    sd = np.sqrt(np.maximum(var, 0.0))
    n, K = mean.shape
    out = np.empty((n, K))
    eye = np.eye(K, dtype=bool)[None, :, :, None]
    step = max(1, 2**21 // (K * K * _NODES))          # (rows, K, K, nodes) per chunk
    for a in range(0, n, step):
        m, d = mean[a:a + step], sd[a:a + step]
        t = m[:, :, None] + d[:, :, None] * np.sqrt(2.0) * u       # (r, K, Q)
        diff = t[:, :, None, :] - m[:, None, :, None]               # (r, K, J, Q)
        dj = d[:, None, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(dj > 0, diff / dj, np.sign(diff) * np.inf)
        logp = np.where(np.isnan(z) | (diff == 0) & (dj == 0), np.log(0.5), log_ndtr(z))
        logp = np.where(eye, 0.0, logp).sum(axis=2)                 # (r, K, Q)
        out[a:a + step] = np.exp(logp) @ w / np.sqrt(np.pi)
    return out / out.sum(axis=1, keepdims=True)


@njit(cache=True)
def _row_dot(indices, data, n, W, out):
    """``out[k] = W[k] . x`` of one CSR row (its ``n`` columns and values)."""
    for k in range(W.shape[0]):
        s = 0.0
        for j in range(n):
            s += W[k, indices[j]] * data[j]
        out[k] = s


@njit(cache=True)
def _row_mean_var_diag(indices, data, n, W, S, out):
    """``out[k] = mu_k . x`` and ``out[K + k] = x' diag(S_k) x`` of one CSR row."""
    K = W.shape[0]
    for k in range(K):
        s = 0.0
        v = 0.0
        for j in range(n):
            c = indices[j]
            x = data[j]
            s += W[k, c] * x
            v += S[k, c] * x * x
        out[k] = s
        out[K + k] = v


@njit(cache=True)
def _row_mean_var_full(indices, data, n, W, L, out):
    """``out[k] = mu_k . x`` and ``out[K + k] = ||L_k' x||^2`` of one CSR row."""
    K = W.shape[0]
    for k in range(K):
        s = 0.0
        for j in range(n):
            s += W[k, indices[j]] * data[j]
        out[k] = s
        v = 0.0
        for r in range(L.shape[2]):
            b = 0.0
            for j in range(n):
                b += L[k, indices[j], r] * data[j]
            v += b * b
        out[K + k] = v


#: the compiled one-row functions' entry points, per function (found at the first call)
_ENTRIES = {}


def _call_row(kernel, args):
    """``kernel(*args)`` (``indices, data, n, W, ..., out``) through its entry point
    (found once: no type dispatch per call) when the state arrays are C-contiguous, as
    the state's slots are made (the row buffers always are); else through numba's
    dispatcher."""
    if not (args[3].flags.c_contiguous and args[-2].flags.c_contiguous):
        return kernel(*args)
    fn = _ENTRIES.get((kernel, args[-2].ndim))
    if fn is None:
        kernel(*args)
        fn = _ENTRIES[(kernel, args[-2].ndim)] = _entry_point(kernel, args)
        return
    fn(*args)


class ProbitMixin:
    """``predict_proba`` of the Gaussian-margin classifiers (CW, SCW, AROW): the
    probit model's predictive probability under the learned weight distribution.

    Under the model's weight distribution (``w_k ~ N(mu_k, Sigma_k)``, one per class
    row) the margin ``w_k.x`` is normal with mean ``mu_k.x`` and variance
    ``x'Sigma_k x``; the label is read from the margin with a unit normal noise (the
    probit link, on the scale of the unit margin the updates aim at), so the margin the
    label sees is ``N(mu_k.x, 1 + x'Sigma_k x)``.  Binary (one row):
    ``P(y = classes_[1]) = Phi(mu.x / sqrt(1 + x'Sigma x))`` (MacKay's probit
    predictive).  Multiclass (one row per class, independent): ``P(class k) = P(margin k
    is the largest)`` over the classes seen, by quadrature (:func:`argmax_probability`),
    the event whose pairwise form ``P(w_y.x > w_s.x)`` Crammer, Dredze and Kulesza (2009)
    constrain.  (Without the noise, ``Phi(mu.x / sqrt(x'Sigma x))``, the probability
    the papers constrain, is near 0 or 1 once the covariance has shrunk: on River's
    Phishing AROW's log loss was 0.74, worse than a coin's 0.69; with it 0.41.)  So
    ``predict_proba`` exists on every model of the family, before and after any fit;
    ``predict_proba_one`` computes a row's means and variances in one compiled call.
    """
    _capabilities = {"probabilistic": True}
    # (predict_proba ranks rows by the margin over its per-row spread, not by the raw
    # margin, yet scikit-learn's check_decision_proba_consistency passes on arow, cw, scw
    # and scw2 with scikit-learn 1.9: no declaration)

    @locked
    def predict_proba(self, X):
        """Probabilities of ``classes_``: ``Phi(margin / sqrt(1 + its variance))``
        (binary), the probability of the largest noisy margin (multiclass)."""
        check_is_fitted(self, "state_")
        score = np.asarray(self.decision_function(X), dtype=np.float64)
        var = 1.0 + np.maximum(self._margin_variance(X), 0.0)
        if score.ndim == 2:
            seen = self.seen_.astype(bool)
            p = np.zeros(score.shape)
            p[:, seen] = argmax_probability(score[:, seen], var[:, seen])
            return p
        p = ndtr(score / np.sqrt(var[:, 0]))
        if len(self.classes_) == 1:
            return np.ones((len(score), 1))
        return np.column_stack([1.0 - p, p])

    def _proba_one(self, x, classes):
        """One row's probabilities: its means and variances in one compiled call, then
        the binary closed form in plain Python (multiclass: the quadrature)."""
        if "_layout_ok" not in self.__dict__:
            self.check_layout()
            self.__dict__["_layout_ok"] = True
        row, n = self._one_row(x, grow=False)
        state = self.state_
        W = state["W"]
        C = state.get("L")
        kernel = _row_mean_var_diag if C is None else _row_mean_var_full
        if C is None:
            C = state["S"]
        K = W.shape[0]
        out = np.empty(2 * K)
        _call_row(kernel, (row[1], row[2], n, W, C, out))
        keys = classes.tolist()
        if K == 1:
            if len(keys) == 1:
                return {keys[0]: 1.0}
            s, v = out.tolist()
            p = 0.5 * math.erfc(-s / math.sqrt(2.0 * (1.0 + max(v, 0.0))))
            return {keys[0]: 1.0 - p, keys[1]: p}
        seen = self.seen_.astype(bool)
        p = np.zeros(K)
        p[seen] = argmax_probability(out[None, :K][:, seen],
                                     1.0 + np.maximum(out[None, K:][:, seen], 0.0))[0]
        return dict(zip(keys, p.tolist()))
