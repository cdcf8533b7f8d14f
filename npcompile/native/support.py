"""Run-time helpers the generated loop code calls (numba-compiled, inlined by LLVM).

Each helper does one thing NumPy or Python does differently from a machine instruction:
checked integer arithmetic (Python ints never wrap; NumPy scalar ints warn on overflow),
range checks where NumPy raises OverflowError, Python's ``max``/``min`` order of
comparison, and NaN-propagating array reductions. Where the machine result would differ,
a helper raises ``Bail``: the caller then restores the inputs and runs the function in
NumPy itself, which produces NumPy's result, warning or exception exactly.
"""
import ctypes
import glob
import operator
import os

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from npcompile.native.fenv import FENV

if FENV is not None:
    _feclearexcept, _fetestexcept, _FE_MASK = FENV

    @numba.njit(cache=False)
    def clear_fp_flags():
        """Called from Python, not inside a kernel: LLVM assumes no one reads the flags
        and could move floating-point work across a call in the same function."""
        _feclearexcept(_FE_MASK)

    @numba.njit(cache=False)
    def fp_flags():
        return _fetestexcept(_FE_MASK)


class Bail(Exception):
    """The native kernel met a case it does not reproduce; NumPy must run instead."""


_I64_MIN = np.int64(-(2 ** 63))
_F_EXACT = 2 ** 53

_jit = numba.njit(cache=False)


def _overflow_intrinsic(name):
    """``llvm.s<name>.with.overflow.i64``: (result, overflowed). Checks written in plain
    code are not safe: numba marks integer arithmetic no-signed-wrap, so LLVM may fold a
    test like ``(a * b) // b != a`` away."""
    @intrinsic
    def checked(typingctx, a, b):
        if a != types.int64 or b != types.int64:
            return None

        def codegen(context, builder, signature, args):
            pair = getattr(builder, f"s{name}_with_overflow")(*args)
            return context.make_tuple(builder, signature.return_type,
                                      [builder.extract_value(pair, 0), builder.extract_value(pair, 1)])
        return types.Tuple((types.int64, types.boolean))(a, b), codegen
    return checked


def _checked(name):
    """A helper returning ``a <name> b`` in int64, or raising ``Bail`` where Python's
    exact integer would not fit: the one pattern behind add64, sub64 and mul64."""
    op = _overflow_intrinsic(name)

    @_jit
    def checked(a, b):
        r, overflowed = op(a, b)
        if overflowed:
            raise Bail()
        return r
    return checked


add64, sub64, mul64 = (_checked(n) for n in ("add", "sub", "mul"))


@_jit
def floordiv64(a, b):
    if b == 0 or (b == -1 and a == _I64_MIN):
        raise Bail()
    return a // b


@_jit
def mod64(a, b):
    if b == 0 or (b == -1 and a == _I64_MIN):
        raise Bail()
    return a % b


@_jit
def neg64(a):
    if a == _I64_MIN:
        raise Bail()
    return -a


@_jit
def abs64(a):
    if a == _I64_MIN:
        raise Bail()
    return -a if a < 0 else a


def _range_check(lo, hi, cast):
    @_jit
    def check(v):
        if v < lo or v > hi:
            raise Bail()
        return cast(v)
    return check


to_int8 = _range_check(-(2 ** 7), 2 ** 7 - 1, np.int8)
to_int16 = _range_check(-(2 ** 15), 2 ** 15 - 1, np.int16)
to_int32 = _range_check(-(2 ** 31), 2 ** 31 - 1, np.int32)


@_jit
def i2f(v):
    """A Python int as a float where Python would compare it exactly."""
    if v > _F_EXACT or v < -_F_EXACT:
        raise Bail()
    return np.float64(v)


@_jit
def pymax(current, item):
    """One step of Python's max(): the later item wins only if it compares greater."""
    return item if item > current else current


@_jit
def pymin(current, item):
    return item if item < current else current


def _extreme(beats):
    """np.max(a) (``beats`` is ``>``) or np.min(a) (``<``): the first NaN if there is one,
    else the first element no later one beats; NumPy raises on an empty array (so we bail)."""
    @_jit
    def extreme(a):
        if a.size == 0:
            raise Bail()
        first = True
        best = a.flat[0]
        for v in a.flat:
            if v != v:
                return v
            if first or beats(v, best):
                best = v
                first = False
        return best
    return extreme


amax = _extreme(operator.gt)
amin = _extreme(operator.lt)


@_jit
def idot(a, b):
    """NumPy's integer dot: a sequential sum that wraps (computed in int64, the caller
    casts to the dtype: wrapping commutes with the cast)."""
    n = a.shape[0]
    if b.shape[0] != n:
        raise Bail()
    total = np.int64(0)
    for i in range(n):
        total += np.int64(a[i]) * np.int64(b[i])
    return total


def _numpy_cblas():
    """NumPy's own cblas_ddot and cblas_sdot (the library NumPy's dot calls), or None."""
    folder = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "lib*openblas*"))):
        lib = ctypes.CDLL(path)
        for prefix, suffix, int_type in (("scipy_cblas_", "64_", ctypes.c_int64), ("cblas_", "64_", ctypes.c_int64),
                                         ("scipy_cblas_", "", ctypes.c_int), ("cblas_", "", ctypes.c_int)):
            try:
                ddot, sdot = getattr(lib, f"{prefix}ddot{suffix}"), getattr(lib, f"{prefix}sdot{suffix}")
            except AttributeError:
                continue
            if int_type is not ctypes.c_int64:
                return None     # 32-bit BLAS ints: chunking as NumPy does is not reproduced here
            ddot.restype, sdot.restype = ctypes.c_double, ctypes.c_float
            ddot.argtypes = sdot.argtypes = [int_type, ctypes.c_int64, int_type, ctypes.c_int64, int_type]
            return ddot, sdot
    return None


CBLAS = _numpy_cblas()


if CBLAS is not None:
    _cblas_ddot, _cblas_sdot = CBLAS

    @_jit
    def ddot(a, b):
        """NumPy's DOUBLE_dot: its BLAS when both strides are positive multiples of the
        item size, else a sequential sum; ``0.0 +`` as NumPy adds the BLAS result to 0."""
        n = a.shape[0]
        if b.shape[0] != n:
            raise Bail()
        sa, sb = a.strides[0], b.strides[0]
        if sa > 0 and sb > 0 and sa % 8 == 0 and sb % 8 == 0:
            return 0.0 + _cblas_ddot(n, a.ctypes.data, sa // 8, b.ctypes.data, sb // 8)
        total = 0.0
        for i in range(n):
            total += a[i] * b[i]
        return total

    @_jit
    def sdot(a, b):
        """NumPy's FLOAT_dot (BLAS sum kept in a double, then rounded; else a float sum)."""
        n = a.shape[0]
        if b.shape[0] != n:
            raise Bail()
        sa, sb = a.strides[0], b.strides[0]
        if sa > 0 and sb > 0 and sa % 4 == 0 and sb % 4 == 0:
            return np.float32(0.0 + np.float64(_cblas_sdot(n, a.ctypes.data, sa // 4, b.ctypes.data, sb // 4)))
        total = np.float32(0.0)
        for i in range(n):
            total += a[i] * b[i]
        return total


@_jit
def bdim(size, other):
    """One axis of NumPy's broadcasting; sizes that do not broadcast are its ValueError."""
    if size == 1:
        return other
    if other == 1 or other == size:
        return size
    raise Bail()


@_jit
def kdecide(a, n0, n1):
    """How a 2-D operand orders a ufunc's result (nditer, order='K'): 0 undecided (a
    broadcast or length-1 axis has stride 0 there), 1 C, 2 F."""
    s0, s1 = a.strides[0], a.strides[1]
    if n0 == 1 or n1 == 1 or a.shape[0] == 1 or a.shape[1] == 1 or s0 == 0 or s1 == 0:
        return 0
    return 1 if abs(s1) <= abs(s0) else 2


@_jit
def kcombine(first, second):
    """The order of a result from its operands' decisions: the first that decides, except
    that C order wins over F."""
    if second == 0:
        return first
    if first == 0:
        return second
    return 2 if first == 2 and second == 2 else 1


@_jit
def kresult(order, n0, n1):
    """A 2-D result allocated in ``order`` as the operand of the next ufunc."""
    if n0 == 1 or n1 == 1:
        return 0
    return order if order else 1


@_jit
def c_ordered(a):
    """Whether an N-D operand's strides are in C order (ignoring length-1 axes): then
    NumPy's order='K' result is C, as the fused loop allocates it."""
    last = -1
    for d in range(a.ndim):
        if a.shape[d] != 1 and a.strides[d] != 0:
            s = abs(a.strides[d])
            if last >= 0 and s > last:
                return False
            last = s
    return True


@_jit
def _extent(a):
    """The first and one past the last byte address an array's elements may occupy."""
    lo = hi = a.ctypes.data
    for d in range(a.ndim):
        if a.shape[d] == 0:
            return 0, 0
        step = (a.shape[d] - 1) * a.strides[d]
        if step < 0:
            lo += step
        else:
            hi += step
    return lo, hi + a.itemsize


@_jit
def overlap(a, b):
    """Whether two arrays' memory extents intersect (they may share memory)."""
    alo, ahi = _extent(a)
    blo, bhi = _extent(b)
    return alo < bhi and blo < ahi


@_jit
def same_shape(a, b):
    """Operands of a fused loop have one shape (else NumPy broadcasts or raises: it runs)."""
    if a != b:
        raise Bail()


@_jit
def empty2(n0, n1, order, dtype):
    """A fused loop's 2-D result in the order ``order`` (2: F, else C) NumPy would pick."""
    if order == 2:
        return np.empty((n1, n0), dtype).T
    return np.empty((n0, n1), dtype)


@_jit
def sq(x):
    """NumPy's ``x ** 2`` of a float array element (its fast path to square: x * x)."""
    return x * x


_unchecked = numba.njit(cache=False, boundscheck=False)


@_unchecked
def ld1(a, i):
    """An element the fused loops (fuse.py) read at an index proven in range: without
    numba's bounds check, whose exception path per access costs compile time."""
    return a[i]


@_unchecked
def ld2(a, i, j):
    return a[i, j]


@_unchecked
def ld3(a, i, j, k):
    return a[i, j, k]


@_unchecked
def st1(a, i, v):
    a[i] = v


@_unchecked
def st2(a, i, j, v):
    a[i, j] = v


@_unchecked
def st3(a, i, j, k, v):
    a[i, j, k] = v


HELPERS = {name: obj for name, obj in globals().items()
           if isinstance(obj, numba.core.registry.CPUDispatcher) and name not in ("clear_fp_flags", "fp_flags")}
