"""One example of a model that learns from arrays, written into the one-row buffers
(``olearn._rows.OneRow``) by one compiled call: the general path (``np.flatnonzero``,
two ``tolist`` and two ``struct`` packs) cost about half of an MLP's ``learn_one``."""
from numba import njit

from .finite import HIGH, LOW


@njit(cache=True, nogil=True)
def put_dense(x, indices, data, shift, constant):
    """The non-zeros of the dense example ``x`` into ``indices`` and ``data`` (room for
    ``x.shape[0] + shift`` entries), after the intercept's column 0 and its ``constant``
    when ``shift`` is 1, columns shifted by ``shift``; returns the row length, or -1
    when ``x`` holds a NaN or an infinity (the caller then takes the general path,
    which names the error), or an extreme value (``finite.HIGH``, ``finite.LOW``: the
    general path writes it, and the learning call checks it)."""
    n = 0
    if shift:
        indices[0] = 0
        data[0] = constant
        n = 1
    for j in range(x.shape[0]):
        v = x[j]
        if v - v != 0.0:  # (NaN, or an infinity: inf - inf is NaN)
            return -1
        if v != 0.0:
            a = abs(v)
            if a > HIGH or a < LOW:
                return -1
            indices[n] = j + shift
            data[n] = v
            n += 1
    return n
