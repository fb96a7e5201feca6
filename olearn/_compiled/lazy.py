"""Lazy penalties of the sparse online learners (``olearn.sparse``): inline helpers.

A sparse learner applies its regulariser to every weight every round, but a row
touches only its non-zeros.  Here the penalty owed by a coordinate since it was last
touched is applied when a row touches it again (or when the model is read), so a row
costs O(non-zeros) whatever the number of features.  Two forms cover the learners:

* closed forms (RDA, AdaRDA, FTRL-Proximal): the weight is a function of
  per-coordinate sums and of the round ``t``; nothing is owed, the weight is computed
  where it is needed (:func:`rda_weight`, :func:`ftrl_weight`, :func:`ada_rda_weight`);
* shrinkage (FOBOS, truncated gradient, AdaFOBOS): between two touches a weight only
  shrinks toward 0, and a run of shrinks composes into one.

Shrinkage bookkeeping (FOBOS and truncated gradient).  A round's proximal map on one
coordinate is ``w -> c_t sign(w) max(|w| - a_t, 0)`` (``a_t`` the l1 amount, ``c_t``
the l2 factor ``1 / (1 + eta_t l2)``; truncated gradient: ``c_t = 1`` and only weights
with ``|w| <= theta`` shrink).  Maps of the form ``u -> max(alpha u - beta, 0)`` compose
into the same form, so keeping the weights in units of the running product ``P_t =
c_1 ... c_t`` (``w = P W``) and the running sum ``Q_t = sum_s a_s / P_{s-1}``, a weight
last settled at ``Q_s`` is now ``P_t sign(W) max(|W| - (Q_t - Q_s), 0)``.  Per
coordinate the state keeps ``W`` and ``C`` (the ``Q`` it was settled at); per round
``P`` and ``Q`` are two scalars.  When ``P`` underflows past ``1e-100`` every weight
is settled and ``P`` folded back (:func:`fold_shrink`, O(K d), rare).  Since shrinking
never raises ``|w|``, a weight above the truncated gradient's ``theta`` stays there
until touched, and one below shrinks by the whole owed amount.

AdaFOBOS owes ``lambda eta / H_i`` per round, with ``H_i = delta + sqrt(G_i)`` fixed
between touches: ``C`` keeps the round a coordinate was settled in.

The per-non-zero loops are written out in the score functions, with scalar-only
helpers (:func:`shrunk`): an inlined helper that takes arrays pays numba's reference
counting on every call, which cost 6x the row's arithmetic here.

The intercept is free of every penalty.  With an intercept (``A[0, FREE_]`` = 1, written by
the estimator), column 0 holds its constant feature, and no l1 or l2 term, truncation
or shrink touches its weight: it learns by the loss's gradient alone, as scikit-learn's
and glmnet's intercepts do.  (The papers have no intercept: their penalty covers every
coordinate of ``w``; a constant column of the data with ``fit_intercept=False`` is
penalised like any feature, the seed texts' convention.)

Auxiliary array ``A`` (K, 12), its columns named by the constants below: per class row
``A[k, R_]`` the raw score and ``A[k, G_]`` the loss gradient (the layout of
``olearn._compiled.losses``; the declared round start writes ``R_``); in row 0:
``A[0, T_]`` the round ``t``, ``A[0, P_]`` the scale ``P`` (0 before the first round,
read as 1), ``A[0, Q_]`` the sum ``Q``, ``A[0, FREE_]`` 1 when column 0 is the free
intercept, else 0, ``A[0, HYPER_:]`` the hyper-parameters the score needs (the rule
writes them every round and the estimator before every call: the score function of the
driver takes no parameters).  Scores change nothing: the weights a row touches are
settled (the owed shrink written) by the round start (``shrink_begin``,
``ada_fobos_begin``), which the driver runs after the score.

Truncated gradient's period.  Trial ``t`` (counted in ``A[0, T_]``, so across calls,
epochs and save/load) truncates before its prediction when ``t`` is a multiple of the
period ``K``.  Nothing happens between the update of trial ``t - 1`` and that
truncation, so the rule of trial ``t - 1`` adds ``K gravity eta`` to ``Q`` when ``t`` is
due: the model after ``t - 1`` trials, the one that predicts trial ``t`` (``coef_``,
``predict_one``), includes it.
"""
import math

from numba import njit

from .losses import G_, R_
from .steps import adagrad_move

T_, P_, Q_, FREE_ = 2, 3, 4, 5
HYPER_ = 6
AUX_COLUMNS = 12
FOLD_BELOW = 1e-100
#: the parameters of ``shrink_rule`` (FOBOS's and truncated gradient's declarations)
SHRINK_PARAMS = ("eta", "invsqrt", "l1", "l2", "gravity", "period", "theta", "eps")


@njit(inline="always")
def begin(A):
    """Count this round (the scale starts at 1)."""
    if A[0, T_] == 0.0:
        A[0, P_] = 1.0
    A[0, T_] += 1.0


@njit(inline="always")
def start_round(A, out):
    """The round start of every layout here: count the round, keep the raw scores
    ``out`` for the loss (``A[:, R_]``)."""
    begin(A)
    for k in range(out.shape[0]):
        A[k, R_] = out[k]


@njit(inline="always")
def scale_of(A):
    """The scale ``P`` (1 before the first round)."""
    return A[0, P_] if A[0, T_] > 0.0 else 1.0


@njit(inline="always")
def free_column(A):
    """The column a penalty must leave alone: 0 when it holds the free intercept
    (``A[0, FREE_]``), else -1 (none).  Loops over columns test ``i != free``."""
    return 0 if A[0, FREE_] != 0.0 else -1


@njit(inline="always")
def penalised_from(idx, A):
    """The first entry of a row that the penalty reaches: 1 when the row begins with
    the free intercept's column 0, else 0.  A row of a model with an intercept always
    begins with it (the driver's rows and the one-row buffer write the constant first;
    no other entry has column 0), so the loops over a row's entries test ``j >= first``
    on their counter, which the compiler peels off: testing each entry's column cost
    RDA and FTRL 6% of their rows a second on the seeded stream, and testing the flag
    there as well a fifth."""
    if free_column(A) == 0 and idx.shape[0] > 0 and idx[0] == 0:
        return 1
    return 0


@njit(inline="always")
def store_hyper(A, values):
    """``A[0, HYPER_:HYPER_ + n] = values``: the hyper-parameters the score reads (a rule writes
    them every round; ``olearn.sparse._sparse.SparseModel._prime`` before every call)."""
    for i in range(len(values)):
        A[0, HYPER_ + i] = values[i]


# ------------------------------------------------------------------ shrinkage
@njit(inline="always")
def shrunk(w, dq, theta):
    """``w`` after an owed shrink ``dq`` (only where ``|w| <= theta``).  Scalars only:
    an inlined helper taking arrays costs a reference-count round trip per call, more
    than the arithmetic, in the per-non-zero loop."""
    if w > 0.0:
        if w <= theta:
            return w - dq if w > dq else 0.0
    elif w < 0.0:
        if w >= -theta:
            return w + dq if -w > dq else 0.0
    return w


@njit(inline="always")
def owed_shrink(owed, G, k, i, lam_eta, delta, adaptive):
    """The shrink a weight owes: FOBOS's and truncated gradient's ``owed`` itself (the
    sum of the shrinks since it was settled), AdaFOBOS's ``owed`` rounds of
    ``lam eta / H_ii`` (``adaptive``, a constant)."""
    if adaptive:
        return owed * lam_eta / (delta + math.sqrt(G[k, i]))
    return owed


@njit(inline="always")
def settled_dot(W, C, G, k, idx, val, mark, first, theta, lam_eta, delta, adaptive):
    """``W_k . x`` with the row's weights as settled through ``mark`` (``C`` holds the
    mark each weight was settled at; computed, not written: ``settle_row`` writes
    them).  A weight at 0 owes nothing."""
    a = 0.0
    for j in range(idx.shape[0]):
        v = val[j]
        if v != 0.0:
            i = idx[j]
            w = W[k, i]
            owed = mark - C[k, i]
            if owed > 0.0 and w != 0.0 and j >= first:
                w = shrunk(w, owed_shrink(owed, G, k, i, lam_eta, delta, adaptive), theta)
            a += w * v
    return a


@njit(inline="always")
def settle_row(W, C, G, idx, val, mark, first, theta, lam_eta, delta, adaptive):
    """Settle the row's weights through ``mark``: what ``settled_dot`` computes,
    written.  Only the row's non-zero values settle a weight, so the raw state does not
    depend on explicit zeros (dense rows = CSR rows)."""
    for k in range(W.shape[0]):
        for j in range(idx.shape[0]):
            if val[j] != 0.0:
                i = idx[j]
                owed = mark - C[k, i]
                if owed > 0.0:
                    C[k, i] = mark
                    w = W[k, i]
                    if w != 0.0 and j >= first:
                        W[k, i] = shrunk(w, owed_shrink(owed, G, k, i, lam_eta, delta,
                                                        adaptive), theta)


@njit(inline="always")
def shrink_scores(state, idx, val, out):
    """Score of FOBOS and truncated gradient: ``P W.x`` with the row's weights as
    settled (computed, not written: ``shrink_begin`` writes them).  (``Q`` only grows
    between folds, which zero it with ``C``: a weight owes ``Q - C >= 0``.)"""
    W = state[0]
    C = state[1]
    A = state[2]
    P = scale_of(A)
    first = penalised_from(idx, A)
    for k in range(W.shape[0]):
        out[k] = P * settled_dot(W, C, W, k, idx, val, A[0, Q_], first, A[0, HYPER_],
                                 0.0, 0.0, False)


@njit(inline="always")
def shrink_begin(state, idx, val, out):
    """The round start of FOBOS and truncated gradient: settle the row's weights (the
    shrink owed since each was last settled)."""
    A = state[2]
    start_round(A, out)
    settle_row(state[0], state[1], state[0], idx, val, A[0, Q_], penalised_from(idx, A),
               A[0, HYPER_], 0.0, 0.0, False)


@njit
def fold_shrink(W, C, A):
    """Settle every weight and move the scale ``P`` into ``W`` (O(K d))."""
    Q = A[0, Q_]
    theta = A[0, HYPER_]
    P = A[0, P_]
    free = free_column(A)
    for k in range(W.shape[0]):
        for i in range(W.shape[1]):
            if i != free:
                W[k, i] = shrunk(W[k, i], Q - C[k, i], theta)
            W[k, i] *= P
            C[k, i] = 0.0
    A[0, Q_] = 0.0
    A[0, P_] = 1.0


@njit(inline="always")
def shrink_rule(state, params, idx, val, y, sw, seen, grad):
    """FOBOS (Duchi and Singer 2009) and truncated gradient (Langford, Li, Zhang 2009).

    ``params = (eta, invsqrt, l1, l2, gravity, period, theta, eps)``.  The gradient
    step ``w - eta_t g x`` on the row's (settled) weights, then FOBOS's proximal step
    for every weight (``Q += eta_t l1 / P``, ``P /= 1 + eta_t l2``: owed, applied when
    touched) and, for truncated gradient, when the next trial is a multiple of
    ``period``, that trial's truncation ``period * gravity * eta`` (Langford et al.'s
    step 2, before its prediction: nothing happens in between).  The free intercept
    (column 0, ``A[0, FREE_]``) owes nothing: the score skips its shrink, and its weight
    is multiplied by what the l2 term divides the scale by."""
    eta, invsqrt, l1, l2 = params.eta, params.invsqrt, params.l1, params.l2
    gravity, period, theta, eps = params.gravity, params.period, params.theta, params.eps
    W = state[0]
    C = state[1]
    A = state[2]
    t = A[0, T_]
    step = eta / math.sqrt(t) if invsqrt != 0.0 else eta
    A[0, HYPER_] = theta
    moved = grad(A, seen, y, eps)
    P = A[0, P_]
    if moved:
        for k in range(A.shape[0]):
            gk = A[k, G_]
            if gk != 0.0:
                b = -step * sw * gk / P
                for j in range(idx.shape[0]):
                    W[k, idx[j]] += b * val[j]
    if l1 > 0.0:
        A[0, Q_] += step * l1 / P
    if l2 > 0.0:
        P = P / (1.0 + step * l2)
        A[0, P_] = P
        if free_column(A) == 0:  # the free intercept keeps its value: P W unchanged
            for k in range(W.shape[0]):
                W[k, 0] *= 1.0 + step * l2
        if P < FOLD_BELOW:
            fold_shrink(W, C, A)
    if gravity > 0.0 and (t + 1.0) % period == 0.0:
        A[0, Q_] += period * gravity * eta / P
    return moved


# ------------------------------------------------------------------ AdaFOBOS
@njit(inline="always")
def ada_fobos_scores(state, idx, val, out):
    """Score of AdaFOBOS: ``W.x`` with the row's weights settled through the last
    round (computed, not written: ``ada_fobos_begin`` writes them)."""
    W = state[0]
    A = state[3]
    first = penalised_from(idx, A)
    for k in range(W.shape[0]):
        out[k] = settled_dot(W, state[2], state[1], k, idx, val, A[0, T_], first,
                             math.inf, A[0, HYPER_], A[0, HYPER_ + 1], True)


@njit(inline="always")
def ada_fobos_begin(state, idx, val, out):
    """The round start of AdaFOBOS: settle the row's weights through the last round
    (the rounds of shrink ``lam eta / H_ii`` owed since the round each was settled)."""
    A = state[3]
    start_round(A, out)
    settle_row(state[0], state[2], state[1], idx, val, A[0, T_] - 1.0,
               penalised_from(idx, A), math.inf, A[0, HYPER_], A[0, HYPER_ + 1], True)


@njit(inline="always")
def ada_fobos_rule(state, params, idx, val, y, sw, seen, grad):
    """AdaFOBOS (Duchi, Hazan, Singer 2011, composite mirror descent with the diagonal
    ``H_t = delta I + diag(G_t)^(1/2)`` and ``lambda ||w||_1``, Section 5.1):
    ``w_i <- sign(v) [|v| - lambda eta / H_ii]_+`` with ``v = w_i - eta g_i / H_ii``, the
    AdaGrad step of ``olearn._compiled.steps.adagrad_move`` (lazy: a row's non-zeros);
    ``params = (eta, lam, delta, eps)``."""
    eta, lam, delta, eps = params.eta, params.lam, params.delta, params.eps
    W = state[0]
    G = state[1]
    C = state[2]
    A = state[3]
    t = A[0, T_]
    store_hyper(A, (lam * eta, delta))
    first = penalised_from(idx, A)
    moved = grad(A, seen, y, eps)
    if moved:
        for k in range(A.shape[0]):
            gk = A[k, G_] * sw
            if gk != 0.0:
                for j in range(idx.shape[0]):
                    g = gk * val[j]
                    if g != 0.0:
                        i = idx[j]
                        move, h = adagrad_move(G, k, i, g, eta, delta, 1.0)
                        if h > 0.0:
                            v = W[k, i] + move
                            d = lam * eta / h if j >= first else 0.0
                            W[k, i] = v - d if v > d else (v + d if v < -d else 0.0)
                            C[k, i] = t
    return moved


# ------------------------------------------------------------------ closed forms
@njit(inline="always")
def rda_weight(S, n, lam_n, denom):
    """RDA's ``w = -sign(S) max(|S| - n lambda_n, 0) / (gamma sqrt n)`` from the
    gradient sum ``S`` of ``n`` rounds (``lam_n = n lambda + gamma rho sqrt n``,
    ``denom = gamma sqrt n``).  Without branches, as :func:`ftrl_weight`: the same
    weights to the bit (a zero weight may be -0, which adds nothing to a score)."""
    return math.copysign(max(abs(S) - lam_n, 0.0) / denom, -S)


@njit(inline="always")
def rda_scores(state, idx, val, out):
    """Score of RDA from the gradient sums (``A[0, HYPER_:]``: lambda, gamma, rho)."""
    W = state[0]
    A = state[1]
    n = A[0, T_]
    if n == 0.0:
        for k in range(W.shape[0]):
            out[k] = 0.0
        return
    lam, gamma, rho = A[0, HYPER_], A[0, HYPER_ + 1], A[0, HYPER_ + 2]
    sn = math.sqrt(n)
    lam_n = n * lam + gamma * rho * sn
    denom = gamma * sn
    first = penalised_from(idx, A)
    K = W.shape[0]
    a = 0.0
    for k in range(K):
        out[k] = 0.0
    for j in range(idx.shape[0]):  # (the classes inside: see ftrl_row_scores)
        i = idx[j]
        v = val[j]
        lam_j = lam_n if j >= first else 0.0
        if K == 1:
            a += rda_weight(W[0, i], n, lam_j, denom) * v
        else:
            for k in range(K):
                out[k] += rda_weight(W[k, i], n, lam_j, denom) * v
    if K == 1:
        out[0] = a


@njit(inline="always")
def rda_begin(state, idx, val, out):
    start_round(state[1], out)


@njit(inline="always")
def add_gradient(S, A, sw, idx, val):
    """``S_k += sw g_k x`` for every class row with a gradient (the dual sums)."""
    for k in range(A.shape[0]):
        gk = A[k, G_] * sw
        if gk != 0.0:
            for j in range(idx.shape[0]):
                S[k, idx[j]] += gk * val[j]


@njit(inline="always")
def rda_rule(state, params, idx, val, y, sw, seen, grad):
    """RDA (Xiao 2010, Algorithm 1 with ``h = ||w||^2 / 2``, ``beta_t = gamma
    sqrt(t)``, the enhanced l1 ``lambda_t = lambda + gamma rho / sqrt(t)``):
    the gradient sums; the weights are their closed form.  ``params = (lam, gamma,
    rho, eps)``."""
    lam, gamma, rho, eps = params.lam, params.gamma, params.rho, params.eps
    S = state[0]
    A = state[1]
    store_hyper(A, (lam, gamma, rho))
    moved = grad(A, seen, y, eps)
    if moved:
        add_gradient(S, A, sw, idx, val)
    return moved


@njit(inline="always")
def ada_rda_weight(S, G, n, eta, lam, delta):
    """AdaRDA's ``w = -sign(S) eta max(|S| - lambda n, 0) / (delta + sqrt(G))``, without
    branches on the sign of ``S`` (as :func:`ftrl_weight`: the same weights to the
    bit).  A weight held at 0 skips the square root and the division (one branch,
    predictable unless zero and non-zero weights alternate at random): both on every
    weight halved AdaRDA's rows a second on the scaling stream of
    ``benchmarks/sparse.md``, where most weights a row reads are 0."""
    m = max(abs(S) - lam * n, 0.0)
    if m == 0.0:
        return 0.0
    h = delta + math.sqrt(G)
    if h <= 0.0:
        return 0.0
    return math.copysign(eta * m / h, -S)


@njit(inline="always")
def ada_rda_scores(state, idx, val, out):
    """Score of AdaRDA (``A[0, HYPER_:]``: eta, lambda, delta)."""
    S = state[0]
    G = state[1]
    A = state[2]
    n = A[0, T_]
    eta, lam, delta = A[0, HYPER_], A[0, HYPER_ + 1], A[0, HYPER_ + 2]
    first = penalised_from(idx, A)
    K = S.shape[0]
    a = 0.0
    for k in range(K):
        out[k] = 0.0
    for j in range(idx.shape[0]):  # (the classes inside: see ftrl_row_scores)
        i = idx[j]
        v = val[j]
        lam_j = lam if j >= first else 0.0
        if K == 1:
            a += ada_rda_weight(S[0, i], G[0, i], n, eta, lam_j, delta) * v
        else:
            for k in range(K):
                out[k] += ada_rda_weight(S[k, i], G[k, i], n, eta, lam_j, delta) * v
    if K == 1:
        out[0] = a


@njit(inline="always")
def ada_rda_begin(state, idx, val, out):
    start_round(state[2], out)


@njit(inline="always")
def ada_rda_rule(state, params, idx, val, y, sw, seen, grad):
    """AdaRDA (Duchi, Hazan, Singer 2011, primal-dual subgradient with the diagonal
    ``H_t`` and ``lambda ||w||_1``, Section 5.1): gradient sums ``S`` and squared
    sums ``G``.  ``params = (eta, lam, delta, eps)``.  Not AdaGrad's step
    (``olearn._compiled.steps.adagrad_move``) and cannot be: the dual average keeps the
    sum of the gradients, not a weight, and the weight is a closed form of ``S``, ``G``
    and the round (:func:`ada_rda_weight`); only ``G += g^2`` is shared."""
    eta, lam, delta, eps = params.eta, params.lam, params.delta, params.eps
    S = state[0]
    G = state[1]
    A = state[2]
    store_hyper(A, (eta, lam, delta))
    moved = grad(A, seen, y, eps)
    if moved:
        for k in range(A.shape[0]):
            gk = A[k, G_] * sw
            if gk != 0.0:
                for j in range(idx.shape[0]):
                    g = gk * val[j]
                    S[k, idx[j]] += g
                    G[k, idx[j]] += g * g
    return moved


@njit(inline="always")
def ftrl_weight(z, r, inv_alpha, beta, l1, l2):
    """McMahan et al.'s closed form: 0 if ``|z| <= l1``, else
    ``-(z - sign(z) l1) / ((beta + sqrt(n)) / alpha + l2)``, with ``r = sqrt(n)`` and
    ``inv_alpha = 1 / alpha`` (a multiplication where a division cost FTRL 10-18% of
    its rows a second on a9a and w8a).  Written without branches: ``-(z -+ l1)`` is
    ``-sign(z) (|z| - l1)`` exactly, so the weight is ``max(|z| - l1, 0) / (...)``
    with the sign of ``-z`` (0 within ``l1``, signed: nothing it multiplies changes);
    the two branches on the sign of ``z``, taken at random, cost FTRL 45% of its
    pass on a9a (172 against 93 ns a row, same process, the same weights to the bit)."""
    return math.copysign(max(abs(z) - l1, 0.0) / ((beta + r) * inv_alpha + l2), -z)


@njit(inline="always")
def ftrl_row_scores(state, idx, val, out, Wr, keep):
    """The ``K`` scores of a row from ``z`` and ``sqrt(n)`` (``A[0, HYPER_:]``: alpha,
    beta, l1, l2) into ``out``; while ``keep``, each weight also into ``Wr[k, j]``.
    Returns ``keep``, turned False at the first column not above the one before.  The
    row's entries outside, the classes inside: with the state coordinate-major
    (``olearn.sparse._sparse.SparseModel._coordinate_major``) a coordinate's ``K``
    entries are contiguous and the inner loop runs over them; each score adds its terms
    in the row's order, as before (the same sums to the bit), one score in a register."""
    Z = state[0]
    R = state[1]
    A = state[2]
    alpha, beta = A[0, HYPER_], A[0, HYPER_ + 1]
    l1, l2 = A[0, HYPER_ + 2], A[0, HYPER_ + 3]
    inv_alpha = 1.0 / alpha
    first = penalised_from(idx, A)
    K = Z.shape[0]
    a = 0.0
    for k in range(K):
        out[k] = 0.0
    prev = -1
    for j in range(idx.shape[0]):
        i = idx[j]
        if i <= prev:
            keep = False
        prev = i
        v = val[j]
        pen = j >= first
        l1j = l1 if pen else 0.0
        l2j = l2 if pen else 0.0
        if K == 1:
            w = ftrl_weight(Z[0, i], R[0, i], inv_alpha, beta, l1j, l2j)
            if keep:
                Wr[0, j] = w
            a += w * v
        elif keep:
            for k in range(K):
                w = ftrl_weight(Z[k, i], R[k, i], inv_alpha, beta, l1j, l2j)
                Wr[k, j] = w
                out[k] += w * v
        else:
            for k in range(K):
                out[k] += ftrl_weight(Z[k, i], R[k, i], inv_alpha, beta, l1j, l2j) * v
    if K == 1:
        out[0] = a
    return keep


@njit(inline="always")
def ftrl_scores(state, idx, val, out):
    """Score of FTRL-Proximal (:func:`ftrl_row_scores`, keeping nothing)."""
    ftrl_row_scores(state, idx, val, out, state[2], False)


@njit(inline="always")
def ftrl_begin(state, idx, val, out):
    start_round(state[2], out)


#: the most entries of a row whose weights the pass keeps for FTRL's rule
FTRL_ROW_CAP = 1024


@njit(inline="always")
def ftrl_score_begin(state, idx, val, out):
    """The pass's score and round start in one: the scores of :func:`ftrl_scores`, and
    each weight of the row kept in the scratch ``state[3]`` (``(K, cap + 1)``, not
    saved: ``olearn.sparse.ftrl``) for the rule, which then divides once per class and
    non-zero, not twice.  Nothing changes ``z`` or ``n`` between the two, so the rule
    reads the weights it would compute, to the bit, when no two entries of the row
    share a column; the weights are kept (flag ``state[3][0, cap]``) only for a row of
    at most ``cap`` entries whose columns increase (every batch row: canonical CSR; an
    unsorted one-example row recomputes them)."""
    Wr = state[3]
    cap = Wr.shape[1] - 1
    kept = ftrl_row_scores(state, idx, val, out, Wr, idx.shape[0] <= cap)
    Wr[0, cap] = 1.0 if kept else 0.0
    start_round(state[2], out)


@njit(inline="always")
def ftrl_rule(state, params, idx, val, y, sw, seen, grad):
    """FTRL-Proximal (McMahan et al. 2013, Algorithm 1), per coordinate of the row:
    ``sigma = (sqrt(n + g^2) - sqrt(n)) / alpha``, ``z += g - sigma w``, ``n += g^2``;
    the state keeps ``r = sqrt(n)`` (one square root a non-zero, where ``n`` itself
    needs three: 17% more rows a second on a9a and w8a).  ``params = (alpha, beta, l1,
    l2, eps)``."""
    alpha, beta, l1, l2, eps = params.alpha, params.beta, params.l1, params.l2, params.eps
    Z = state[0]
    R = state[1]
    A = state[2]
    store_hyper(A, (alpha, beta, l1, l2))
    inv_alpha = 1.0 / alpha
    first = penalised_from(idx, A)
    Wr = state[3]
    kept = Wr[0, Wr.shape[1] - 1] != 0.0
    moved = grad(A, seen, y, eps)
    if moved:
        for k in range(A.shape[0]):
            gk = A[k, G_] * sw
            if gk != 0.0:
                for j in range(idx.shape[0]):
                    i = idx[j]
                    g = gk * val[j]
                    r = R[k, i]
                    if kept:
                        w = Wr[k, j]
                    else:
                        pen = j >= first
                        w = ftrl_weight(Z[k, i], r, inv_alpha, beta, l1 if pen else 0.0,
                                        l2 if pen else 0.0)
                    r2 = math.sqrt(r * r + g * g)
                    Z[k, i] += g - (r2 - r) * inv_alpha * w
                    R[k, i] = r2
    return moved
