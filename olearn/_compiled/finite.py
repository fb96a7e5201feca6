"""When the one-example path checks the whole state for NaN and infinity (numba only).

A batch call checks every state array after its pass (``_weights_finite``, once per
call); a one-example call cannot afford that per example (O(size of the model)), and
its pre-update score misses state that overflowed where the score does not look (an
AdaGrad sum of squared gradients at feature scale 1e300 becomes infinite while the
weights stay finite).  Such overflows need an extreme row: a value or a weight far
outside the range of numbers whose squares and products stay finite.  So the
one-example path tests the row here (O(non-zeros), as the pass) and only then the state.
"""
from . import njit

#: magnitudes past which a row's value (or below which a non-zero value) or a sample
#: weight above which the one-example path checks the whole state after the update
HIGH = 1e30
LOW = 1e-30
HIGH_WEIGHT = 1e6


@njit(cache=True, nogil=True)
def extreme_row(indptr, data, sw):
    """Whether the first row of a CSR triple, or its weight ``sw``, is extreme."""
    if sw > HIGH_WEIGHT:
        return True
    for k in range(indptr[0], indptr[1]):
        a = abs(data[k])
        if a > HIGH or (a < LOW and a != 0.0):
            return True
    return False
