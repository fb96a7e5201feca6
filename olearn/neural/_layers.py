"""What the networks of this package share, compiled (numba, inlined into each pass).

* ``activate(a, act)`` and ``slope(s, act)``: the hidden units' ``f(z)`` and its
  derivative ``f'(z)`` written from the output ``s = f(z)`` (so that the backward pass
  needs only the activations the forward pass kept): ``act`` 0 identity (1), 1 logistic
  (``s (1 - s)``), 2 tanh (``1 - s^2``), 3 relu (``[s > 0]``: 0 at ``z = 0``, as
  scikit-learn);
* ``layer(U, off, n_in, n_out)``: one layer's (n_out, n_in + 1) view of a flat weight
  vector (the bias last); ``forward(M, zin, zout, act)``: ``zout = f(M [zin; 1])``;
  ``back(M, zin, ein, eout, act)``: the errors of the layer below, ``ein_j = f'(z_j)
  sum_i eout_i M_ij``, from the weights before their step; ``descend(M, zin, eout,
  sw, lr, alpha)``: the plain step ``M -= lr (-sw eout [zin; 1]' + alpha M)`` (SGD's,
  fused into the layer's loops; every other optimiser's per-weight step is
  ``olearn._compiled.steps``'s, the one OGD runs).
"""
import math

from numba import njit

ACTIVATIONS = {"identity": 0, "logistic": 1, "tanh": 2, "relu": 3}
#: scikit-learn's ``solver`` names the MLP takes (``MLP._optimizer`` maps them)
SOLVERS = ("sgd", "adagrad", "adam")


@njit(inline="always")
def activate(a, act):
    if act == 3.0:
        return a if a > 0.0 else 0.0
    if act == 2.0:
        return math.tanh(a)
    if act == 1.0:
        if a >= 0.0:
            return 1.0 / (1.0 + math.exp(-a))
        e = math.exp(a)
        return e / (1.0 + e)
    return a


@njit(inline="always")
def slope(s, act):
    if act == 3.0:
        return 1.0 if s > 0.0 else 0.0
    if act == 2.0:
        return 1.0 - s * s
    if act == 1.0:
        return s * (1.0 - s)
    return 1.0


@njit(inline="always")
def layer(U, off, n_in, n_out):
    """The weights of one layer of the flat vector ``U`` from ``off``, a (n_out, n_in + 1)
    view (the bias last): indexed by loop counters, so the loops vectorise."""
    return U[off:off + n_out * (n_in + 1)].reshape((n_out, n_in + 1))


@njit(inline="always")
def forward(M, zin, zout, act):
    n_in = zin.shape[0]
    for i in range(zout.shape[0]):
        a = M[i, n_in]
        for j in range(n_in):
            a += M[i, j] * zin[j]
        zout[i] = a
    activate_all(zout, act)


@njit(inline="always")
def activate_all(z, act):
    """``z = f(z)`` in place (a loop of its own: with the unit's ``f`` inside the
    dot-product loop, whose code is a branch on ``act``, the first layer ran 2.5 times
    slower)."""
    if act != 0.0:
        for i in range(z.shape[0]):
            z[i] = activate(z[i], act)


@njit(inline="always")
def back(M, zin, ein, eout, act):
    """``ein[j] = f'(z_j) sum_i eout[i] M[i, j]`` (``act`` 0: the raw sums)."""
    for j in range(zin.shape[0]):
        ein[j] = 0.0
    for i in range(eout.shape[0]):
        e = eout[i]
        for j in range(zin.shape[0]):
            ein[j] += e * M[i, j]
    if act != 0.0:
        for j in range(zin.shape[0]):
            ein[j] *= slope(zin[j], act)


@njit(inline="always")
def descend(M, zin, eout, sw, lr, alpha):
    """The plain step of one layer: ``M -= lr (-sw eout zin' + alpha M)`` (no L2 on the
    bias column)."""
    n_in = zin.shape[0]
    for i in range(eout.shape[0]):
        e = sw * eout[i]
        if alpha == 0.0:  # (the seed's step, one multiply-add a weight)
            c = lr * e
            for j in range(n_in):
                M[i, j] += c * zin[j]
        else:
            for j in range(n_in):
                M[i, j] -= lr * (-e * zin[j] + alpha * M[i, j])
        M[i, n_in] -= lr * -e


from .._compiled.declare import Kernels  # noqa: E402  (the shared compiled layer)


class Native(Kernels):
    """Entry points with no one-vs-rest: the classes share the hidden layers (one state
    block per class would be another model), the network is natively multiclass."""

    def reduction(self, kind):
        raise ValueError(f"{self.name} is natively multiclass (its classes share the "
                         "hidden layers): OneVsRest does not apply")


def native(kernels):
    """``declare(...)``'s entry points, refusing a one-vs-rest reduction."""
    return Native(kernels.name)


def check_unchanged(model):
    """Raise when a hyper-parameter that shapes the state changed after learning began
    (the state's arrays no longer have the shapes the slots declare)."""
    state = getattr(model, "state_", None)
    if state is None:
        return
    sizes = {}
    for s in model.slots:
        for i, a in enumerate(s.axes):
            if isinstance(a, str) and a not in sizes and s.name in state:
                sizes[a] = state[s.name].shape[i]
    for s in model.slots:
        want = tuple(sizes.get(a, a) for a in s.axes)
        have = state[s.name].shape if s.name in state else None
        if have != want:
            raise ValueError(f"{type(model).__name__}: a parameter that shapes the network "
                             f"changed after learning started ({s.name} has shape {have}, "
                             f"the parameters need {want}); call fit() to start afresh")


def uniform_init(rng, shape, fan_in, fan_out, relu):
    """Seeded uniform initial weights: He (``sqrt(6 / fan_in)``) for relu units, Glorot
    (``sqrt(6 / (fan_in + fan_out))``) for the others."""
    bound = math.sqrt(6.0 / max(fan_in, 1)) if relu else \
        math.sqrt(6.0 / max(fan_in + fan_out, 1))
    return rng.uniform(-bound, bound, shape)
