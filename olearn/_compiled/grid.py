"""One compiled pass for G members of a first-order linear learner: the grid as an axis.

A first-order linear rule (binary) is a scalar step of the row's raw score: PA's
``tau y``, the Perceptron's ``eta y``; the rule then adds ``step x`` to the weights
(:func:`first_order_rule`).  A learner that declares its binary rule so
(``declare(..., binary=first_order_rule(step), step=step)``) can run G settings of its
hyper-parameters in one pass (:func:`linear_grid_pass`): each slot of the linear state
``(W, U, A)`` (``olearn._compiled.averaging``) carries the members as its last axis, so
the G weights of a feature are contiguous, and each row is read once:

1. ``a[g] = sum_i W[i, g] x_i`` (and ``U x`` when averaging), the members in the inner
   loop (:func:`dots`: a feature's G weights are contiguous);
2. per member, the score, the round's start and the prediction, as ``avg_score_begin``
   computes them (the same sums, in the same order), handed to the pass's ``sink``
   (:func:`store`: the ``(n, G)`` answers; ``ExpertAdvice`` combines them instead);
3. per member, the step from its own parameters (row ``g`` of ``P``, the declared
   named tuple);
4. ``W[i, g] += (step_g / s_g) x_i`` as ``add_row``, the members in the inner loop
   (:func:`adds`; a member that does not update adds 0, which changes no weight, and
   its ``||W||^2`` is left as it is), then each updated member's ``post`` (ALMA's
   normalisation, :func:`grid_rule`).

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

from .averaging import FOLD_HIGH, FOLD_LOW, R_, SCALE_, SQ_, SUM_, T_, add_row
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
def linear_grid_pass(key, X, y, sw, state, P, counts, step, post, sink, out):
    """The binary online protocol over every row of ``X`` for the ``G = P.shape[0]``
    members; returns the rows done (all, unless a member's score was not finite).
    ``step(params, A, g, y, sw, val, sq)``: member g's step (:func:`member_rule`);
    ``post(params, W, U, A, g)``: what member g does after its update (ALMA's
    normalisation); ``sink(out, i, sc, pr, y)``: what becomes of row i's pre-update
    scores ``sc`` (G,) and predictions ``pr`` (G,) (:func:`store`: written to
    ``out = (scores (n, G, 1), pred (n, G))``; an ensemble combines them instead)."""
    X, y, sw, state, P, counts, out = borrowed((X, y, sw, state, P, counts, out))
    W = state[0][0]   # (d, G)
    U = state[1][0]   # (d, G), or (0, G) without averaging
    A = state[2][0]   # (7, G)
    buffers = row_source(X)
    rows = borrowed(buffers)
    G = P.shape[0]
    averaged = U.shape[0] > 0
    a = np.zeros(G)
    b = np.zeros(G)
    sc = np.zeros(G)
    pr = np.zeros(G, dtype=np.int64)
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
                o = ((A[SUM_, g] + s) * a[g] - b[g]) / t
                A[R_, g] = s * a[g]
            else:
                o = s * a[g]
                A[R_, g] = o
            if t > 0.0:   # begin_round
                A[SUM_, g] += A[SCALE_, g]
            else:
                A[SCALE_, g] = 1.0
            A[T_, g] += 1.0
            sc[g] = o
            pr[g] = 1 if o > 0.0 else 0
            if not (o - o == 0.0):
                ok = False
        if not ok:
            keep_alive(buffers)
            return i
        sink(out, i, sc, pr, y[i])
        sq = -1.0
        for g in range(G):
            u, cf, sq = step(params_of(key, P, g), A, g, y[i], sw[i], val, sq)
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
                post(params_of(key, P, g), W, U, A, g)
    keep_alive(buffers)
    return n


@njit(inline="always")
def store(out, i, sc, pr, y):
    """The plain grid's sink: row i's scores and predictions into ``out = (scores,
    pred)``."""
    scores, pred = out
    for g in range(sc.shape[0]):
        scores[i, g, 0] = sc[g]
        pred[i, g] = pr[g]


@njit(inline="always")
def dots(W, idx, val, m, out):
    """``out[g] = sum_j W[idx[j], g] val[j]``: per non-zero, the G members' weights
    (contiguous) in the inner loop, which the compiler vectorises; each member's sum
    in the order of its own pass."""
    G = out.shape[0]
    for g in range(G):
        out[g] = 0.0
    for j in range(m):
        c = idx[j]
        v = val[j]
        for g in range(G):
            out[g] += W[c, g] * v


@njit(inline="always")
def adds(W, idx, val, m, coef, dsq):
    """``W[idx[j], g] += coef[g] val[j]`` (members innermost), and ``dsq[g]`` the
    change of member g's ``||W||^2`` (``add_row``'s; a member with ``coef = 0`` adds
    0 and keeps its weights)."""
    dsq[:] = 0.0
    for j in range(m):
        c, v = idx[j], val[j]
        for g in range(coef.shape[0]):
            e = coef[g] * v
            dsq[g] += e * (2.0 * W[c, g] + e)
            W[c, g] += e


def grid_rule(step, post):
    """The declared ``step`` of a rule that is a first-order step followed by a
    per-member action on the whole model (ALMA's normalisation): ``step(params, A, g,
    y, sw, val, sq) -> (updates, coefficient, sq)`` reads member g's column of the
    auxiliary array ``A`` (7, G) (its raw score ``A[R_, g]``, its counters), and
    ``post(params, W, U, A, g)`` runs after member g's update (``W``, ``U`` (d, G))."""
    return _GridRule(step, post)


class _GridRule(tuple):
    def __new__(cls, step, post):
        return super().__new__(cls, (step, post))


@functools.lru_cache(maxsize=None)
def _member_step(step):
    @njit(inline="always")
    def member(params, A, g, y, sw, val, sq):
        return step(params, A[R_, g], y, sw, val, sq)
    return member


@njit(inline="always")
def no_post(params, W, U, A, g):
    return None


def member_rule(key):
    """``(step, post)`` of the grid pass of the declaration named ``key``."""
    rule = _DECLARED[key].step
    if isinstance(rule, _GridRule):
        return rule
    return _member_step(rule), no_post


@njit(inline="always")
def scale_member(W, U, A, g, f):
    """Member g's ``w *= f`` (f > 0), as ``averaging.scale_weights``: the scale, and
    when it leaves [1e-3, 1e3] folded into its column of ``W`` (``averaging.fold``'s
    arithmetic, in its order)."""
    if f == 1.0:
        return
    s = A[SCALE_, g] * f
    A[SCALE_, g] = s
    if s < FOLD_LOW or s > FOLD_HIGH:
        if U.shape[0] > 0:
            S = A[SUM_, g]
            for i in range(W.shape[0]):
                U[i, g] -= S * W[i, g]
            A[SUM_, g] = 0.0
        sq = 0.0
        for i in range(W.shape[0]):
            W[i, g] *= s
            sq += W[i, g] * W[i, g]
        A[SQ_, g] = sq
        A[SCALE_, g] = 1.0


def run_grid(key, X, y, sw, state, P, scores, pred, counts):
    """The fused pass of the declaration named by the constant string ``key``."""


@overload(run_grid)
def _run_grid(key, X, y, sw, state, P, scores, pred, counts):
    if not isinstance(key, types.Literal):
        return None
    step, post = member_rule(key.literal_value)

    def impl(key, X, y, sw, state, P, scores, pred, counts):
        return linear_grid_pass(key, X, y, sw, state, P, counts, step, post, store,
                                (scores, pred))
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
