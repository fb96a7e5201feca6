"""The one row loop of olearn: the online protocol, compiled.

For each row, in order: score it with the current model, record that pre-update
score (the progressive prediction), then apply the learner's update rule.  A learner
supplies only

* ``state``: a tuple of arrays it mutates in place (``state[0]`` is the weight
  matrix ``W`` of shape ``(K, d)`` for every linear learner), and ``params``: a tuple of
  floats (hyper-parameters are arguments, never globals: numba would freeze globals
  into the on-disk cache);
* ``score_fn(state, idx, val, out)``: writes the ``K`` scores of one row into ``out``;
* ``update_fn(state, params, idx, val, y, sw, out, seen) -> int``: the update rule,
  returning 1 when it changed the model, 0 otherwise.

A row is always a pair ``(idx, val)`` of column indices and values: for CSR input the
slices of ``indices`` and ``data`` (cost O(non-zeros)), for dense input ``arange(d)``
and the row itself.  The layout is chosen by numba's type dispatch (``get_row``), so
one compiled entry point per learner serves both, and both give identical results.

Every helper here is ``inline="always"``: each learner module owns small
``@njit(cache=True)`` entry points that call :func:`online_pass` with its own rule,
so the whole loop is compiled as one function, cached on disk, with no calls through
function pointers (numba never disk-caches closures or functions passed as arguments
to a top-level call, numba issue 6264).

Tasks: ``REGRESSION`` (K = 1, ``y`` the target), ``BINARY`` (K = 1, ``y`` in {-1, +1};
the recorded prediction is 1 when the score is > 0, else 0) and ``MULTICLASS``
(K classes, ``y`` the class index as a float; the prediction is the arg-max over the
classes seen so far, the lowest index on ties; a label is marked seen after its row
is predicted and before the update).
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

REGRESSION = 0
BINARY = 1
MULTICLASS = 2


def get_row(X, i, columns):
    """Row ``i`` of ``X`` as ``(idx, val)``; ``X`` is ``(indptr, indices, data)`` or 2-D."""


@overload(get_row, inline="always")
def _get_row(X, i, columns):
    if isinstance(X, types.BaseTuple):
        def impl(X, i, columns):
            lo = X[0][i]
            hi = X[0][i + 1]
            return X[1][lo:hi], X[2][lo:hi]
    else:
        def impl(X, i, columns):
            return columns, X[i]
    return impl


def n_rows(X):
    """Number of rows of a CSR triple or a dense matrix."""


@overload(n_rows, inline="always")
def _n_rows(X):
    if isinstance(X, types.BaseTuple):
        return lambda X: X[0].shape[0] - 1
    return lambda X: X.shape[0]


def dense_columns(X):
    """``arange(d)`` for a dense matrix (the ``idx`` of every row), empty for CSR."""


@overload(dense_columns, inline="always")
def _dense_columns(X):
    if isinstance(X, types.BaseTuple):
        return lambda X: np.empty(0, X[1].dtype)
    return lambda X: np.arange(X.shape[1])


@njit(inline="always")
def online_pass(X, y, sw, state, params, seen, scores, pred, task, score_fn, update_fn):
    """Run the online protocol over every row of ``X``; return the number of updates.

    ``scores`` (n, K) receives the pre-update scores and ``pred`` (n,) the pre-update
    predicted class index (classification only).  ``seen`` (K,) flags the classes
    seen so far (multiclass only; updated in place).
    """
    columns = dense_columns(X)
    n_updates = 0
    for i in range(n_rows(X)):
        idx, val = get_row(X, i, columns)
        out = scores[i]
        score_fn(state, idx, val, out)
        if task == MULTICLASS:
            pred[i] = masked_argmax(out, seen)
            seen[int(y[i])] = 1
        elif task == BINARY:
            pred[i] = 1 if out[0] > 0.0 else 0
        n_updates += update_fn(state, params, idx, val, y[i], sw[i], out, seen)
    return n_updates


# ---------------------------------------------------------------- row helpers
@njit(inline="always")
def linear_scores(state, idx, val, out):
    """``out[k] = W[k] . x`` for every class row of ``W = state[0]``."""
    W = state[0]
    for k in range(W.shape[0]):
        s = 0.0
        for j in range(idx.shape[0]):
            s += W[k, idx[j]] * val[j]
        out[k] = s


@njit(inline="always")
def sq_norm(val):
    """``||x||^2`` of a row's values."""
    s = 0.0
    for j in range(val.shape[0]):
        s += val[j] * val[j]
    return s


@njit(inline="always")
def axpy(W, k, a, idx, val):
    """``W[k] += a * x`` over the row's non-zeros."""
    for j in range(idx.shape[0]):
        W[k, idx[j]] += a * val[j]


@njit(inline="always")
def masked_argmax(out, seen):
    """Index of the highest score among seen classes (lowest index on ties; 0 if none)."""
    best = -1
    for k in range(out.shape[0]):
        if seen[k] and (best < 0 or out[k] > out[best]):
            best = k
    return best if best >= 0 else 0


@njit(inline="always")
def top_wrong(out, seen, yi):
    """The highest-scoring seen class other than ``yi`` (lowest on ties), or -1."""
    best = -1
    for k in range(out.shape[0]):
        if k != yi and seen[k] and (best < 0 or out[k] > out[best]):
            best = k
    return best
