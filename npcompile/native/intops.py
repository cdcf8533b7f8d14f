"""Run-time helpers for unsigned integers and shifts (numba-compiled), beside support.py's
signed ones. NumPy's rules they keep:

- a NumPy scalar's uint arithmetic warns when it wraps ("overflow encountered in scalar
  add"), and divides by zero with a warning: the helper raises ``Bail`` there, so NumPy
  reruns the call and warns itself;
- a Python int outside an unsigned type raises OverflowError in NumPy (``to_uint*``
  bail), and a uint64 index or loop bound beyond int64 does too (``u64_to_i64``);
- a shift by at least the type's width (or by a negative amount) gives 0, or -1 for a
  negative signed value shifted right, where a machine shift is undefined; shifts never
  warn and wrap silently (C's ``npy_lshift``/``npy_rshift``);
- a uint64 compares exactly with a signed integer (NumPy 2 has loops for it; numba
  would compare in float64).

Unsigned arithmetic in numba carries no no-wrap flag, so the plain wrap tests below are
kept by LLVM (unlike signed ones: support.py uses overflow intrinsics for those).
"""
import numba
import numpy as np

from npcompile.native.support import Bail

_jit = numba.njit(cache=False)
_U64_TOP = np.uint64(2 ** 63)
_ZERO = np.uint64(0)


@_jit
def addu64(a, b):
    r = a + b
    if r < a:
        raise Bail()
    return r


@_jit
def subu64(a, b):
    if b > a:
        raise Bail()
    return a - b


@_jit
def mulu64(a, b):
    r = a * b
    if a != _ZERO and r // a != b:
        raise Bail()
    return r


@_jit
def floordivu64(a, b):
    if b == _ZERO:
        raise Bail()
    return a // b


@_jit
def modu64(a, b):
    if b == _ZERO:
        raise Bail()
    return a % b


@_jit
def u64_to_i64(v):
    """A uint64 used where NumPy needs an intp (an index, a range bound, an int64)."""
    if v >= _U64_TOP:
        raise Bail()
    return np.int64(v)


def _unsigned_check(hi, cast):
    @_jit
    def check(v):       # v: int64
        if v < 0 or v > hi:
            raise Bail()
        return cast(v)
    return check


to_uint8 = _unsigned_check(2 ** 8 - 1, np.uint8)
to_uint16 = _unsigned_check(2 ** 16 - 1, np.uint16)
to_uint32 = _unsigned_check(2 ** 32 - 1, np.uint32)


@_jit
def to_uint64(v):       # v: int64
    if v < 0:
        raise Bail()
    return np.uint64(v)


@_jit
def shl(a, b, bits):
    """``a << b`` in a ``bits``-wide type: ``a`` is the operand's bits in a uint64 (the
    caller truncates the result back), ``b`` the amount as an int64."""
    if b < 0 or b >= bits:
        return _ZERO
    return a << np.uint64(b)


@_jit
def shr_unsigned(a, b, bits):      # a: uint64
    if b < 0 or b >= bits:
        return _ZERO
    return a >> np.uint64(b)


@_jit
def shr_signed(a, b, bits):        # a: int64, the signed operand sign-extended
    if b < 0 or b >= bits:
        return np.int64(-1) if a < 0 else np.int64(0)
    return a >> b


@_jit
def cmp_u64_i64(u, s):
    """-1, 0 or 1 as the uint64 ``u`` is below, equal to or above the int64 ``s``."""
    if u >= _U64_TOP:
        return 1
    v = np.int64(u)
    return -1 if v < s else (1 if v > s else 0)


HELPERS = {name: obj for name, obj in globals().items() if isinstance(obj, numba.core.registry.CPUDispatcher)}
