"""The one row loop of olearn: the online protocol, compiled.

For each row, in order: score it with the current model, record that pre-update
score (the progressive prediction), then apply the learner's update rule.  A learner
supplies only

* ``state``: a tuple of arrays it mutates in place (``state[0]`` is the weight
  matrix ``W`` of shape ``(K, d)`` for every linear learner), and ``params``: a named
  tuple of floats (hyper-parameters are arguments, never globals: numba would freeze
  globals into the on-disk cache);
* ``score_fn(state, idx, val, out)``: writes the ``K`` scores of one row into ``out``
  and changes nothing else (the same function scores rows outside the pass:
  :func:`score_pass`);
* ``begin_fn(state, idx, val, out)``: the round's start (its bookkeeping: the round
  counter, what the rule needs from the scores, lazy debts settled on the row);
* ``update_fn(state, params, idx, val, y, sw, out, seen) -> int``: the update rule,
  returning 1 when it changed the model, 0 otherwise.

A row is always a pair ``(idx, val)`` of column indices and values: the slices of a
CSR batch's ``indices`` and ``data`` (cost O(non-zeros)); with an intercept, the
constant feature is column 0 of the row, put in front by a :class:`Prefixed` view of
the row's columns and values (``get_row``), so no row or batch is ever copied to add
it.  A dense batch comes as CSR too, in chunks of rows whose indices are every column
(``olearn._rows.run_chunks``): every entry point is compiled for one layout of a
batch, with an intercept or without (each layout numba meets is a compile of its own,
as long as the first).

Every helper here is ``inline="always"``: the entry points generated from each
learner's declaration (``olearn._compiled.declare``) call :func:`online_pass` with its
rule, so the whole loop is compiled as one function, cached
on disk, with no calls through function pointers.

References.  numba counts references to every array it hands around, atomically, and
in a row loop it does so several times a row for every array of the state tuple, of
the batch and of the output (an inlined function's arguments, a slice, a tuple's
member): on PA-I over the seeded sparse stream this cost about a third of the pass.
The passes therefore first take :func:`borrowed` views of their arguments, views that
hold no reference (the caller's own references keep the arrays alive for the whole
call), and of what ``row_source`` gives (kept alive by :func:`keep_alive`).  A rule
must not keep such a view beyond the call, which nothing in a rule can do.

Tasks: ``UNLABELLED`` (no target: ``y`` zeros, unread; K the model's outputs),
``REGRESSION`` (K = 1, ``y`` the target), ``BINARY`` (K = 1, ``y`` in {-1, +1};
the recorded prediction is 1 when the score is > 0, else 0) and ``MULTICLASS``
(K classes, ``y`` the class index as a float; the prediction is the arg-max over the
classes seen so far, the lowest index on ties; a label is marked seen after its row
is predicted and before the update).
"""
import operator

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import (intrinsic, make_attribute_wrapper, models, overload,
                             overload_attribute, register_model)

REGRESSION = 0
BINARY = 1
MULTICLASS = 2
#: a model without a target (clustering, decomposition): ``y`` is zeros the rule does
#: not read, the scores are the model's K outputs of the row, no prediction recorded
#: (the model reads its progressive answer from the pre-update scores)
UNLABELLED = 3


def _borrow(context, builder, ty, value):
    """``value`` of numba type ``ty`` with every array in it (nested in tuples) replaced
    by a view with a null meminfo: a view that holds no reference."""
    if isinstance(ty, types.Array):
        from numba.np.arrayobj import make_array  # (compile time only: a 16 ms import)
        src = make_array(ty)(context, builder, value=value)
        view = make_array(ty)(context, builder)
        context.populate_array(view, data=src.data, shape=src.shape, strides=src.strides,
                               itemsize=src.itemsize, meminfo=None, parent=None)
        return view._getvalue()
    if isinstance(ty, types.BaseTuple):
        out = value
        for k, member in enumerate(ty):
            item = _borrow(context, builder, member, builder.extract_value(value, k))
            out = builder.insert_value(out, item, k)
        return out
    context.nrt.incref(builder, ty, value)  # anything else: a new reference, as returned
    return value


@intrinsic
def borrowed(typingctx, x):
    """``x`` (an array, or a tuple of arrays and numbers, nested) with every array
    replaced by a view that holds no reference (one intrinsic, typed at once: an
    overload recursing over the tuple made every entry point compile 25 times
    slower)."""
    def codegen(context, builder, signature, args):
        return _borrow(context, builder, signature.args[0], args[0])
    return x(x), codegen


@intrinsic
def keep_alive(typingctx, x):
    """Nothing, but a use of ``x``: its owner lives at least to here, so that the
    views that ``borrowed`` made of it stay valid."""
    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return types.none(x), codegen


def get_row(X, i, rows):
    """Row ``i`` of a batch ``X`` as ``(idx, val)``; ``rows = row_source(X)``."""


@overload(get_row, inline="always")
def _get_row(X, i, rows):
    layout = _layout(X)
    if layout == "csr":
        def impl(X, i, rows):
            lo = X[0][i]
            hi = X[0][i + 1]
            return X[1][lo:hi], X[2][lo:hi]
    else:
        def impl(X, i, rows):
            lo = X[0][i]
            hi = X[0][i + 1]
            return prefixed(X[1][lo:hi], 0), prefixed(X[2][lo:hi], X[3][0])
    return impl


def _layout(X):
    """The batch layouts (numba types): a CSR triple ``(indptr, indices, data)``, and the
    same with a constant feature ``c`` put in front as column 0:
    ``(indptr, indices, data, c)`` (``c`` a one-element array).  The constant is put in
    front of each row by a :class:`Prefixed` view: no row or batch is copied.  (A dense
    batch is CSR in chunks: ``olearn._rows.run_chunks``.)"""
    if isinstance(X, types.BaseTuple) and len(X) in (3, 4):
        return "csr" if len(X) == 3 else "csr+c"
    raise TypeError(f"a batch reaches a kernel as a CSR triple (olearn._rows.kernel_rows "
                    f"and run_chunks), not {X}")


def row_source(X):
    """What :func:`get_row` reads beside the batch (nothing, now that every batch is
    CSR: kept so that the passes need not change)."""


@overload(row_source, inline="always")
def _row_source(X):
    _layout(X)
    return lambda X: (np.empty(0, X[1].dtype),)


# ---------------------------------------------------------------- prefixed rows
class Prefixed(types.Type):
    """The numba type of a row's columns or values with the intercept's constant put
    in front, without copying: ``p[0]`` is ``first`` (column 0, or the constant ``c``)
    and ``p[j]`` is ``arr[j - 1]``, plus 1 for columns (the features follow the
    intercept's column).  It has ``p.shape`` and ``len(p)``, and indexing by an
    integer: what a rule does with ``idx`` and ``val``.  The branch on ``j == 0`` costs
    little: a PA-I pass over the seeded sparse stream took 13.8 ms with the constant put
    in front this way, 12.9 ms with no constant (one entry less a row) and 27.8 ms with
    each row and its constant written into a buffer (same process)."""

    def __init__(self, arr):
        self.arr = arr
        self.shift = int(isinstance(arr.dtype, types.Integer))
        super().__init__(name=f"Prefixed({arr})")


@register_model(Prefixed)
class _PrefixedModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("arr", fe_type.arr), ("first", fe_type.arr.dtype)])


make_attribute_wrapper(Prefixed, "arr", "arr")
make_attribute_wrapper(Prefixed, "first", "first")


@intrinsic
def prefixed(typingctx, arr, first):
    """``arr`` (a 1-D array) with ``first`` put in front: a :class:`Prefixed` view."""
    typ = Prefixed(arr)

    def codegen(context, builder, signature, args):
        view = cgutils.create_struct_proxy(typ)(context, builder)
        view.arr = args[0]
        view.first = context.cast(builder, args[1], signature.args[1], arr.dtype)
        context.nrt.incref(builder, arr, args[0])
        return view._getvalue()
    return typ(arr, first), codegen


@overload(operator.getitem)
def _prefixed_getitem(p, j):
    if isinstance(p, Prefixed) and isinstance(j, types.Integer):
        if p.shift:
            return lambda p, j: p.first if j == 0 else p.arr[j - 1] + 1
        return lambda p, j: p.first if j == 0 else p.arr[j - 1]
    return None


@overload_attribute(Prefixed, "shape", inline="always")
def _prefixed_shape(p):
    return lambda p: (p.arr.shape[0] + 1,)


@overload(len, inline="always")
def _prefixed_len(p):
    if isinstance(p, Prefixed):
        return lambda p: p.arr.shape[0] + 1
    return None


def n_rows(X):
    """Number of rows of a batch."""


@overload(n_rows, inline="always")
def _n_rows(X):
    _layout(X)
    return lambda X: X[0].shape[0] - 1


@njit(inline="always")
def online_pass(X, y, sw, state, params, seen, scores, pred, task, score_fn, begin_fn,
                update_fn):
    """Run the online protocol over every row of ``X``; return the number of updates.

    ``scores`` (n, K) receives the pre-update scores and ``pred`` (n,) the pre-update
    predicted class index (classification only).  ``seen`` (K,) flags the classes
    seen so far (multiclass only; updated in place).  A row whose scores are not finite
    ends the pass before its update (the caller reports the divergence at that row).
    """
    X, y, sw, state, params, seen, scores, pred = borrowed(
        (X, y, sw, state, params, seen, scores, pred))
    buffers = row_source(X)
    rows = borrowed(buffers)
    n_updates = 0
    for i in range(n_rows(X)):
        idx, val = get_row(X, i, rows)
        out = scores[i]
        score_fn(state, idx, val, out)
        begin_fn(state, idx, val, out)
        if not finite(out):
            return n_updates
        if task == MULTICLASS:
            pred[i] = masked_argmax(out, seen)
            seen[int(y[i])] = 1
        elif task == BINARY:
            pred[i] = 1 if out[0] > 0.0 else 0
        n_updates += update_fn(state, params, idx, val, y[i], sw[i], out, seen)
    keep_alive(buffers)
    return n_updates


@njit(inline="always")
def score_pass(X, state, scores, score_fn):
    """``scores[i]``: the declared score of row ``i`` of ``X`` (no learning, no change to
    the state): what ``predict`` and ``predict_one`` read."""
    X, state, scores = borrowed((X, state, scores))
    buffers = row_source(X)
    rows = borrowed(buffers)
    for i in range(n_rows(X)):
        idx, val = get_row(X, i, rows)
        score_fn(state, idx, val, scores[i])
    keep_alive(buffers)


# ---------------------------------------------------------------- row helpers
@njit(inline="always")
def finite(out):
    """Whether every entry of ``out`` is finite (inf * 0 and NaN * 0 are NaN)."""
    z = 0.0
    for k in range(out.shape[0]):
        z += out[k] * 0.0
    return z == z


@njit(inline="always")
def linear_scores(state, idx, val, out):
    """``out[k] = W[k] . x`` for every class row of ``W = state[0]``."""
    W = state[0]
    for k in range(W.shape[0]):
        s = 0.0
        for j in range(idx.shape[0]):
            s += W[k, idx[j]] * val[j]
        out[k] = s


@njit
def _nonzero(val):
    """Whether a row has a non-zero value (only asked when its squared norm is 0)."""
    for j in range(val.shape[0]):
        if val[j] != 0.0:
            return True
    return False


@njit(inline="always")
def matvec(M, v, rows, cols, out):
    """``out[j] = M[j, :cols] . v[:cols]`` for ``j < rows`` (plain loops: no BLAS call
    and no temporary for the small, often partly filled matrices of the kernel
    learners)."""
    for j in range(rows):
        acc = 0.0
        for i in range(cols):
            acc += M[j, i] * v[i]
        out[j] = acc


@njit(inline="always")
def sq_norm(val):
    """``||x||^2`` of a row's values.  A row whose squared norm overflows, or
    underflows to 0 although the row is not 0, is an error, raised before any update
    (a step divided by it would silently be 0)."""
    s = 0.0
    for j in range(val.shape[0]):
        s += val[j] * val[j]
    if s == np.inf or (s == 0.0 and _nonzero(val)):
        raise ValueError("a row's squared norm is out of floating-point range (feature "
                         "values beyond about 1e150 or below 1e-150): scale the features")
    return s


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
