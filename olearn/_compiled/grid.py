"""One compiled pass for G members of a first-order linear learner: the grid as an axis.

A first-order linear rule (binary) is a scalar step of the row's raw score: PA's
``tau y``, the Perceptron's ``eta y``; the rule then adds ``step x`` to the weights
(:func:`first_order_rule`).  A learner that declares its binary rule so
(``declare(..., binary=first_order_rule(step), step=step)``) can run G settings of its
hyper-parameters in one pass (:func:`linear_grid_pass`): each slot of the linear state
``(W, U, A)`` (``olearn._compiled.averaging``) carries the members as its last axis, so
the G weights of a feature are contiguous, and each row is read once:

1. ``a[g] = sum_i W[i, g] x_i`` (and ``U x`` when averaging) for four members at a
   time (:func:`dots`): one contiguous load of their weights per non-zero;
2. per member, the score, the round's start and the prediction, as ``avg_score_begin``
   computes them (the same sums, in the same order);
3. per member, the step from its own parameters (row ``g`` of ``P``, the declared
   named tuple);
4. ``W[i, g] += (step_g / s_g) x_i`` as ``add_row``, four members at a time
   (:func:`adds`; a member that does not update adds 0, which changes no weight, and
   its ``||W||^2`` is left as it is).

So each member's state, scores and predictions are those of its own pass, number for
number (``tests/test_grid.py`` compares them).  A member whose score is not finite ends
the pass at that row, before any member's update of it; the entry point returns the
rows done, and each member's count of updates is in ``counts``.
"""
import functools

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .averaging import R_, SCALE_, SQ_, SUM_, T_, add_row
from .declare import _DECLARED
from .driver import borrowed, get_row, keep_alive, n_rows, row_source, sq_norm

AHEAD = 4  # rows between a row's prefetch and its pass (the members' weights of a row
#            span G * 8 bytes: a few cache lines per non-zero, from main memory once the
#            grid's weights outgrow the caches)


@intrinsic
def prefetch_row(typingctx, W, c):
    """Ask for the cache lines of row ``c`` of a C-contiguous 2-D array ahead of its use
    (``llvm.prefetch``, for writing); changes nothing."""
    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        intp = lambda v: context.get_constant(types.intp, v)  # noqa: E731
        shape = cgutils.unpack_tuple(builder, ary.shape)
        ptr = cgutils.get_item_pointer2(
            context, builder, ary.data, shape, cgutils.unpack_tuple(builder, ary.strides),
            aryty.layout, [context.cast(builder, args[1], sig.args[1], types.intp), intp(0)])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0")
        base = builder.bitcast(ptr, i8p)
        nbytes = builder.mul(shape[1], intp(8))
        with cgutils.for_range_slice(builder, intp(0), nbytes, intp(64)) as (off, _):
            builder.call(fn, [builder.gep(base, [off]), i32(1), i32(3), i32(1)])
        builder.call(fn, [builder.gep(base, [builder.sub(nbytes, intp(1))]),
                          i32(1), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(W, c), codegen


def first_order_rule(step):
    """The binary rule ``w += coefficient x`` of a scalar ``step(params, raw, y, sw, val,
    sq) -> (updates, coefficient, sq)`` of the row's raw score ``raw`` (``updates``: 1
    when the rule updates, 0 when it leaves the model as it is).  ``sq`` is the row's
    ``||x||^2`` when known, else -1: a step that needs it takes ``row_sq(val, sq)`` and
    hands it back (a grid's members then compute it once a row)."""
    @njit(inline="always")
    def rule(state, params, idx, val, y, sw, out, seen):
        A = state[2]
        upd, coef, _ = step(params, A[0, R_], y, sw, val, -1.0)
        if upd == 0:
            return 0
        add_row(state[0], state[1], A, 0, coef, idx, val)
        return 1
    return rule


@njit(inline="always")
def row_sq(val, sq):
    """``||x||^2`` of the row: ``sq`` when known (>= 0), else computed (``sq_norm``)."""
    return sq if sq >= 0.0 else sq_norm(val)


def _fields(cls, n):
    args = ", ".join(f"P[g, {k}]" for k in range(n))
    namespace = {"cls": cls}
    exec(f"def impl(key, P, g):\n    return cls({args})\n", namespace)  # noqa: S102
    return namespace["impl"]


def params_of(key, P, g):
    """Member ``g``'s parameters: the declared named tuple of the declaration named by
    the constant ``key``, from row ``P[g]``."""


@overload(params_of, inline="always")
def _params_of(key, P, g):
    if not isinstance(key, types.Literal):
        return None
    cls = _DECLARED[key.literal_value].params
    return _fields(cls, len(cls._fields))


@njit(inline="always")
def linear_grid_pass(key, X, y, sw, state, P, scores, pred, counts, step):
    """The binary online protocol over every row of ``X`` for the ``G = P.shape[0]``
    members; returns the rows done (all, unless a member's score was not finite)."""
    X, y, sw, state, P, scores, pred, counts = borrowed(
        (X, y, sw, state, P, scores, pred, counts))
    W = state[0][0]   # (d, G)
    U = state[1][0]   # (d, G), or (0, G) without averaging
    A = state[2][0]   # (7, G)
    buffers = row_source(X)
    rows = borrowed(buffers)
    G = P.shape[0]
    averaged = U.shape[0] > 0
    a = np.zeros(G)
    b = np.zeros(G)
    coef = np.zeros(G)
    bu = np.zeros(G)
    upd = np.zeros(G, dtype=np.int64)
    n = n_rows(X)
    for i in range(n):
        if i + AHEAD < n:   # the weights of a later row: on their way meanwhile
            ahead = get_row(X, i + AHEAD, rows)[0]
            for j in range(ahead.shape[0]):
                prefetch_row(W, ahead[j])
                if averaged:
                    prefetch_row(U, ahead[j])
        idx, val = get_row(X, i, rows)
        m = idx.shape[0]
        dots(W, idx, val, m, a)
        if averaged:
            dots(U, idx, val, m, b)
        ok = True
        for g in range(G):
            t = A[T_, g]
            s = A[SCALE_, g] if t > 0.0 else 1.0
            if averaged and t > 0.0:
                out = ((A[SUM_, g] + s) * a[g] - b[g]) / t
                A[R_, g] = s * a[g]
            else:
                out = s * a[g]
                A[R_, g] = out
            if t > 0.0:   # begin_round
                A[SUM_, g] += A[SCALE_, g]
            else:
                A[SCALE_, g] = 1.0
            A[T_, g] += 1.0
            scores[i, g, 0] = out
            pred[i, g] = 1 if out > 0.0 else 0
            if not (out - out == 0.0):
                ok = False
        if not ok:
            keep_alive(buffers)
            return i
        sq = -1.0
        for g in range(G):
            u, cf, sq = step(params_of(key, P, g), A[R_, g], y[i], sw[i], val, sq)
            upd[g] = u
            counts[g] += u
            coef[g] = cf / A[SCALE_, g] if u else 0.0   # add_row's b, member g
            bu[g] = coef[g] * A[SUM_, g]
        adds(W, idx, val, m, coef, a)   # (a: each member's change of ||W||^2)
        if averaged:
            adds(U, idx, val, m, bu, b)
        for g in range(G):
            if upd[g]:
                A[SQ_, g] += a[g]
    keep_alive(buffers)
    return n


@njit(inline="always")
def dots(W, idx, val, m, out):
    """``out[g] = sum_j W[idx[j], g] val[j]``, four members at a time (four sums in
    registers, one contiguous load of their weights per non-zero), each summed in the
    order of a member's own pass."""
    G = out.shape[0]
    g = 0
    while g + 4 <= G:
        a0 = a1 = a2 = a3 = 0.0
        for j in range(m):
            c = idx[j]
            v = val[j]
            a0 += W[c, g] * v
            a1 += W[c, g + 1] * v
            a2 += W[c, g + 2] * v
            a3 += W[c, g + 3] * v
        out[g], out[g + 1], out[g + 2], out[g + 3] = a0, a1, a2, a3
        g += 4
    for h in range(g, G):
        a0 = 0.0
        for j in range(m):
            a0 += W[idx[j], h] * val[j]
        out[h] = a0


@njit(inline="always")
def adds(W, idx, val, m, coef, dsq):
    """``W[idx[j], g] += coef[g] val[j]``, four members at a time, and ``dsq[g]`` the
    change of member g's ``||W||^2`` (``add_row``'s; a member with ``coef = 0`` adds
    0 and keeps its weights)."""
    G = coef.shape[0]
    g = 0
    while g + 4 <= G:
        c0, c1, c2, c3 = coef[g], coef[g + 1], coef[g + 2], coef[g + 3]
        d0 = d1 = d2 = d3 = 0.0
        for j in range(m):
            c = idx[j]
            v = val[j]
            e0, e1, e2, e3 = c0 * v, c1 * v, c2 * v, c3 * v
            d0 += e0 * (2.0 * W[c, g] + e0)
            d1 += e1 * (2.0 * W[c, g + 1] + e1)
            d2 += e2 * (2.0 * W[c, g + 2] + e2)
            d3 += e3 * (2.0 * W[c, g + 3] + e3)
            W[c, g] += e0
            W[c, g + 1] += e1
            W[c, g + 2] += e2
            W[c, g + 3] += e3
        dsq[g], dsq[g + 1], dsq[g + 2], dsq[g + 3] = d0, d1, d2, d3
        g += 4
    for h in range(g, G):
        d0 = 0.0
        c0 = coef[h]
        for j in range(m):
            e0 = c0 * val[j]
            d0 += e0 * (2.0 * W[idx[j], h] + e0)
            W[idx[j], h] += e0
        dsq[h] = d0


def run_grid(key, X, y, sw, state, P, scores, pred, counts):
    """The fused pass of the declaration named by the constant string ``key``."""


@overload(run_grid)
def _run_grid(key, X, y, sw, state, P, scores, pred, counts):
    if not isinstance(key, types.Literal):
        return None
    step = _DECLARED[key.literal_value].step

    def impl(key, X, y, sw, state, P, scores, pred, counts):
        return linear_grid_pass(key, X, y, sw, state, P, scores, pred, counts, step)
    return impl


@functools.lru_cache(maxsize=None)
def grid_entry(name):
    """The cached fused binary entry point of the declared learner ``name`` (its binary
    rule a :func:`first_order_rule`): ``(X, y, sw, (W, U, A), P, scores, pred, counts)
    -> rows done``, with ``P`` (G, F) the members' parameters and the state's arrays
    carrying the members as last axis (a closure over the name, as ``declare.entry``)."""
    return njit(cache=True, nogil=True)(
        lambda X, y, sw, state, P, scores, pred, counts:
        run_grid(name, X, y, sw, state, P, scores, pred, counts))
