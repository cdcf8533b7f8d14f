"""Run-time helpers for reading a 1-D array through an index array (numba-compiled).

``x[idx]`` with an integer ``idx`` is NumPy's take along axis 0: every index is cast to
intp (a uint64 one wraps, as NumPy's cast does), a negative one counts from the end, and
one still outside ``[0, len(x))`` makes NumPy raise IndexError, so the helper raises
``Bail`` and NumPy reruns the call. ``x[mask]`` with a bool ``mask`` keeps the elements
where it is true; a mask of another length is NumPy's IndexError too. Both return a fresh
C-contiguous array of ``x``'s dtype.
"""
import numba
import numpy as np

from npcompile.native.support import Bail

_jit = numba.njit(cache=False)


@_jit
def gather(x, idx):
    n = x.shape[0]
    out = np.empty(idx.shape[0], x.dtype)
    for i in range(idx.shape[0]):
        j = np.int64(idx[i])
        if j < 0:
            j += n
        if j < 0 or j >= n:
            raise Bail()
        out[i] = x[j]
    return out


@_jit
def compress(x, mask):
    n = x.shape[0]
    if mask.shape[0] != n:
        raise Bail()
    count = 0
    for i in range(n):
        if mask[i]:
            count += 1
    out = np.empty(count, x.dtype)
    k = 0
    for i in range(n):
        if mask[i]:
            out[k] = x[i]
            k += 1
    return out


HELPERS = {name: obj for name, obj in globals().items() if isinstance(obj, numba.core.registry.CPUDispatcher)}
