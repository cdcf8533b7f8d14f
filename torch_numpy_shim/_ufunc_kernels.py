"""Torch kernels for the ufuncs, where NumPy's values differ from torch's own op.

Each kernel receives tensors already in the loop's compute dtype (see
``ufunc._to_compute_dtypes``) and returns fresh tensors (never an input). Branches
look at dtypes only; values are handled with ``torch.where`` so the kernels trace.

Complex multiply and square follow NumPy's array loop on an FMA CPU (``complex_product``:
the same at every position of contiguous or forward-strided data). What can still
differ: the last bit of ordinary products (NumPy rounds each part once, fused; torch
twice), and the kind of an overflowing part where NumPy itself takes its plain loop
(views with a negative stride, NumPy builds without FMA) or its scalar arithmetic
(``np.complex128`` operands): there ``inf - inf`` stays NaN.
"""
import math

import torch

from . import _numpy_loops
from ._numpy_version import NUMPY_2_5

INT64_MIN = -2 ** 63
NARROW_UNSIGNED = (torch.uint16, torch.uint32)
_LN2 = math.log(2.0)


def _is_float(t):
    return t.dtype.is_floating_point


def _is_complex(t):
    return t.dtype.is_complex


def _zero(t):
    return torch.zeros((), dtype=t.dtype)


def complex_from_parts(real, imag):
    """``torch.complex(real, imag)`` (broadcasting, exact parts), built by stacking the
    parts: ``torch.complex``'s shape function fixes every traced dynamic size to its
    example value, so a function using it would recompile for each new size."""
    real, imag = torch.broadcast_tensors(real, imag)
    return torch.view_as_complex(torch.stack((real, imag), -1))


def complex_full(shape, real, imag, dtype, device=None):
    """``torch.full(shape, complex(real, imag))`` built from real fills: FX prints a
    complex constant with a NaN part as ``(nan+nanj)``, a NameError in the graph's code
    (every backend then runs the call uncompiled)."""
    part = dtype.to_real()
    return complex_from_parts(torch.full(shape, real, dtype=part, device=device),
                              torch.full(shape, imag, dtype=part, device=device))


# ---- uint64 as int64 -----------------------------------------------------------------
def uint64_to_ordered(t):
    """uint64 -> int64 keeping the order (flip the top bit), for comparisons/max/min."""
    return torch.bitwise_xor(t.view(torch.int64), INT64_MIN)


def compare_int64_with_uint64(compare, a, b):
    """NumPy's mixed int64/uint64 comparison loops: a negative int64 is below every
    uint64 (the answer of ``compare(-1, 0)``); otherwise compare in the ordered space."""
    def ordered(t):
        return uint64_to_ordered(t) if t.dtype == torch.uint64 else torch.bitwise_xor(t, INT64_MIN)
    negative_one, zero = torch.full((), -1, dtype=torch.int64), torch.zeros((), dtype=torch.int64)
    result = compare(ordered(a), ordered(b))
    if a.dtype == torch.int64:
        return torch.where(a < 0, compare(negative_one, zero), result)
    return torch.where(b < 0, compare(zero, negative_one), result)


def ordered_to_uint64(t):
    """Inverse of ``uint64_to_ordered``, as the int64 bit pattern of the uint64 value."""
    return torch.bitwise_xor(t, INT64_MIN)


# ---- arithmetic ------------------------------------------------------------------------
def _complex_parts(op, a, b):
    """Part-wise complex add/subtract: torch's ``alpha`` multiply turns 0 + inf*j into nan."""
    return complex_from_parts(op(torch.real(a), torch.real(b)), op(torch.imag(a), torch.imag(b)))


def add(a, b):
    if _is_complex(a):
        return _complex_parts(torch.add, a, b)
    return torch.logical_or(a, b) if a.dtype == torch.bool else torch.add(a, b)


def subtract(a, b):
    return _complex_parts(torch.sub, a, b) if _is_complex(a) else torch.sub(a, b)


def multiply(a, b):
    if a.dtype == torch.bool:
        return torch.logical_and(a, b)
    return complex_product(a, b) if a.is_complex() else torch.mul(a, b)


def complex_product(x, y):
    """NumPy's complex multiply loop where the CPU has FMA (the x86-64 wheels' AVX2 and
    AVX-512 loops: contiguous or forward-strided data, any position): re = fma(a, c, -(b*d)) and
    im = fma(a, d, b*c). torch's plain product differs in kind where a part overflows
    (fma(a, c, -inf) is -inf, a*c - b*d is NaN when a*c overflowed too) or underflows (a
    tiny a*c keeps its sign against a zero b*d); ``_fused`` repairs exactly those. The
    fused rounding of ordinary values (the last bit, for about 4 in 10 products) is
    left as torch rounds; NumPy's scalar arithmetic (np.complex128 * np.complex128)
    does not fuse either. Eagerly torch's product stands where no part is zero, infinite
    or NaN (one check: the repair costs about 50 passes). Traced (compiled code), the
    product is the plain one, NumPy's own answer for its scalars (no FMA there): the
    repair in the graph (about 20 ops a product) made the suite's mandelbrot 12x slower
    (NumPy 8 ms, compiled 2.6 -> 31 ms), for values that overflow."""
    if torch._C._len_torch_dispatch_stack() != 0:   # traced (_fp_errors.tracing)
        return torch.mul(x, y)
    plain = torch.mul(x, y)
    parts = torch.view_as_real(plain)
    if bool(torch.isfinite(parts.sum())) and not bool((parts == 0).any()):
        return plain
    a, b, c, d = torch.real(x), torch.imag(x), torch.real(y), torch.imag(y)
    return complex_from_parts(_fused(a, c, -(b * d)), _fused(a, d, b * c))


def _fused(x, y, z):
    """``fma(x, y, z)`` where it differs in kind from ``x * y + z``: finite x, y against
    an infinite z give z (the exact product is finite), and a product that underflows to
    zero keeps its sign against a zero z."""
    product = x * y
    finite = torch.isfinite(x) & torch.isfinite(y)
    r = torch.where(finite & torch.isinf(z), z, product + z)
    underflow = (product == 0) & (z == 0) & (x != 0) & (y != 0)
    return torch.where(underflow, product, r)


def _safe_int_divisor(b):
    """Divisor with 0 and -1 replaced by 1: NumPy answers those itself (0, and -a
    wrapping for MIN // -1) where torch would fault."""
    bad = (b == 0) | (b == -1) if b.dtype.is_signed else b == 0
    return torch.where(bad, torch.ones((), dtype=b.dtype), b)


def uint64_divmod(a, b):
    """Unsigned 64-bit (a // b, a % b) on the int64 bit patterns (torch divides uint64
    not at all): a divisor >= 2**63 goes 0 or 1 times; a smaller one divides half of
    ``a`` (a logical shift, so non-negative), the doubled quotient is short by at most
    one. A zero divisor gives 0 and 0, as NumPy's loop."""
    x, y = a.view(torch.int64), b.view(torch.int64)
    zero, big = y == 0, y < 0
    small = torch.where(zero | big, torch.ones((), dtype=torch.int64), y)
    half = torch.bitwise_right_shift(x, 1) & (2 ** 63 - 1)
    q = torch.div(half, small, rounding_mode="trunc") * 2
    r = x - q * small
    short = _unsigned_at_least(r, small)
    q, r = torch.where(short, q + 1, q), torch.where(short, r - small, r)
    once = _unsigned_at_least(x, y).to(torch.int64)
    q, r = torch.where(big, once, q), torch.where(big, x - once * y, r)
    nothing = torch.zeros((), dtype=torch.int64)
    q, r = torch.where(zero, nothing, q), torch.where(zero, nothing, r)
    return q.view(torch.uint64), r.view(torch.uint64)


def _unsigned_at_least(x, y):
    """x >= y for int64 tensors read as uint64 (the sign bit flipped keeps the order)."""
    return torch.bitwise_xor(x, INT64_MIN) >= torch.bitwise_xor(y, INT64_MIN)


def _fmod_float(a, b):
    """Exact C fmod. torch's fmod is exact except where ``a / b`` overflows (a divisor
    tiny next to ``a``: subnormal, or 1e-300 against 1e10), where it gives NaN. Since
    fmod(a, b) == fmod(fmod(a, b * 2**k), b) for any k >= 0, ``a`` is first reduced by
    ``b`` scaled (exactly, by powers of two) to within about 2**margin of it, which
    shrinks the exponent gap by about ``margin`` a round; three rounds (five for float16's
    narrow exponent range) cover any gap of the dtype. Exponents come from log2
    (Inductor's CPU code for frexp fails to compile for float64); being off by one is
    within the margin's slack."""
    margin = {torch.float64: 1016, torch.float32: 120, torch.float16: 10}[a.dtype]
    usable = torch.isfinite(a) & torch.isfinite(b) & (b != 0)
    for _ in range(3 if a.dtype != torch.float16 else 5):
        gap = torch.floor(torch.log2(torch.abs(a))) - torch.floor(torch.log2(torch.abs(b))) - margin
        far = usable & (gap > 0)
        k = torch.where(far, gap, 0.0)
        half = torch.floor(k / 2)
        scaled = b * torch.exp2(half) * torch.exp2(k - half)
        a = torch.where(far, torch.fmod(a, torch.where(far, scaled, 1.0)), a)
    return torch.fmod(a, b)


def _float_divmod(a, b):
    """NumPy's npy_divmod: Python's sign rules, the quotient snapped to an integer."""
    mod = _fmod_float(a, b)
    div = (a - mod) / b
    fix = (mod != 0) & ((b < 0) != (mod < 0))
    mod = torch.where(fix, mod + b, torch.where(mod != 0, mod, torch.copysign(_zero(b), b)))
    div = torch.where(fix, div - 1, div)
    floordiv = torch.floor(div)
    floordiv = torch.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    floordiv = torch.where(div == 0, torch.copysign(_zero(a), a / b), floordiv)
    floordiv = torch.where(b == 0, a / b, floordiv)
    return floordiv, mod


def true_divide(a, b):
    """torch.div, except complex division follows NumPy's algorithm (Smith's, with
    division by zero giving inf/nan parts rather than nan+nanj)."""
    if not a.is_complex():
        return torch.div(a, b)
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    real_larger = br.abs() >= bi.abs()
    zero = (br == 0) & (bi == 0)
    ratio = torch.where(real_larger, bi / br, br / bi)
    scale = 1.0 / torch.where(real_larger, br + bi * ratio, bi + br * ratio)
    real = torch.where(real_larger, (ar + ai * ratio) * scale, (ar * ratio + ai) * scale)
    imag = torch.where(real_larger, (ai - ar * ratio) * scale, (ai * ratio - ar) * scale)
    real = torch.where(zero, ar / br.abs(), real)
    imag = torch.where(zero, ai / br.abs(), imag)
    return complex_from_parts(real, imag)


def divide_by_real(a, b):
    """``a / b`` for ``b`` cast from a real (imaginary part +0): NumPy's Smith's algorithm
    with that zero put in, bit for bit. ``|br| >= 0`` takes the first branch (a nan
    ``br`` makes every branch nan), where ``rat = +0 / br`` is a zero of ``br``'s sign
    and ``br + 0 * rat`` is ``br``; a zero ``br`` divides each part by ``+0``. Kept:
    ``ai * rat`` (nan for an infinite or nan ``ai``) and the additions, which set the
    signs of zero results. About 12 ops instead of Smith's 35."""
    if not a.is_complex():
        return torch.div(a, b)
    ar, ai, br = a.real, a.imag, b.real
    rat = torch.copysign(_zero(br), br)
    scale = torch.reciprocal(br)
    real = (ar + ai * rat) * scale
    imag = (ai - ar * rat) * scale
    zero, abs_br = br == 0, br.abs()
    return complex_from_parts(torch.where(zero, ar / abs_br, real), torch.where(zero, ai / abs_br, imag))


def floor_divide(a, b):
    if _is_float(a):
        return _float_divmod(a, b)[0]
    if a.dtype == torch.uint64:
        return uint64_divmod(a, b)[0]
    q = torch.div(a, _safe_int_divisor(b), rounding_mode="floor")
    if a.dtype.is_signed:
        q = torch.where(b == -1, torch.neg(a), q)
    return torch.where(b == 0, _zero(q), q)


def remainder(a, b):
    if _is_float(a):
        return _float_divmod(a, b)[1]
    if a.dtype == torch.uint64:
        return uint64_divmod(a, b)[1]
    r = torch.remainder(a, _safe_int_divisor(b))
    return torch.where(b == 0, _zero(r), r)


def divmod_(a, b):
    if _is_float(a):
        return _float_divmod(a, b)
    if a.dtype == torch.uint64:
        return uint64_divmod(a, b)
    return floor_divide(a, b), remainder(a, b)


def fmod(a, b):
    if _is_float(a):
        return _fmod_float(a, b)
    if a.dtype == torch.uint64:
        return uint64_divmod(a, b)[1]
    r = torch.fmod(a, _safe_int_divisor(b))
    return torch.where(b == 0, _zero(r), r)


def power(a, b):
    if _is_complex(a):
        return _complex_power(a, b)
    if _is_float(a):
        return torch.pow(a, b)
    if a.dtype == torch.bool:
        return torch.pow(a.to(torch.int8), b.to(torch.int8)).to(torch.bool)
    if a.dtype == torch.uint64:
        return _uint64_power(a.view(torch.int64), b.view(torch.int64))
    empty = torch.broadcast_shapes(a.shape, b.shape).numel() == 0
    if b.dtype.is_signed and not empty and bool((b < 0).any()):  # NumPy checks values
        raise ValueError("Integers to negative integer powers are not allowed.")
    return power_of_nonnegative(a, b)


def square_of_base(a, b):
    """``a ** 2`` (the exponent ``b`` is known to be 2)."""
    return a * a


def power_of_nonnegative(a, b):
    """Integer power whose exponents are known not to be negative."""
    if a.dtype == torch.bool:
        return torch.pow(a.to(torch.int8), b.to(torch.int8)).to(torch.bool)
    if a.dtype == torch.uint64:
        return _uint64_power(a.view(torch.int64), b.view(torch.int64))
    return torch.pow(a, b)


def _complex_power(a, b):
    """NumPy's special cases: z**0 is 1; 0**w is 0 when Re(w) > 0, else nan."""
    result = torch.where(_small_integer_exponent(b), _complex_integer_power(a, b), torch.pow(a, b))
    a_zero = a == 0
    positive_real = torch.real(b) > 0
    nan = complex_full((), math.nan, math.nan, result.dtype, result.device)
    result = torch.where(a_zero, torch.where(positive_real, torch.zeros((), dtype=result.dtype), nan), result)
    return torch.where(b == 0, torch.ones((), dtype=result.dtype), result)


def _small_integer_exponent(b):
    re = torch.real(b)
    return (torch.imag(b) == 0) & (re == torch.round(re)) & (torch.abs(re) < 100)


def _complex_integer_power(a, b):
    """NumPy's nc_pow for integral |n| < 100: a, a*a, a*a*a, else square-and-multiply
    starting from 1 (then 1/r for negative n), with NumPy's multiplication order and
    its plain product formula (``_plain_product``)."""
    re = torch.real(b)
    signed = torch.where(_small_integer_exponent(b), re, torch.zeros_like(re)).to(torch.int64)
    n = torch.abs(signed)
    acc = torch.ones_like(a * b)
    square = a * torch.ones_like(acc)
    for bit in range(7):
        use = torch.bitwise_and(n, 1 << bit) != 0
        acc = torch.where(use, _plain_product(acc, square), acc)
        square = _plain_product(square, square)
    acc = torch.where(re < 0, 1 / acc, acc)
    squared = _plain_product(a, a)   # n = 2 and 3 are NumPy's shortcuts; -2 and -3 are not
    acc = torch.where(signed == 3, _plain_product(squared, a), acc)
    acc = torch.where(signed == 2, squared, acc)
    return torch.where(signed == 1, a, acc)


def _plain_product(x, y):
    """(xr*yr - xi*yi) + (xr*yi + xi*yr)j, as NumPy's nc_prod: an overflow leaves the
    NaN of inf - inf (torch's complex product, C99 Annex G, recovers an infinity:
    (1e30+1e30j)**3 in complex64 is NaN-bearing in NumPy, -inf+infj in torch)."""
    xr, xi, yr, yi = torch.real(x), torch.imag(x), torch.real(y), torch.imag(y)
    return complex_from_parts(xr * yr - xi * yi, xr * yi + xi * yr)


def float_power(a, b):
    return _complex_power(a, b) if _is_complex(a) else torch.pow(a, b)


def _uint64_power(a, b):
    """x**e mod 2**64 on uint64 bit patterns held in int64: odd x has multiplicative
    order dividing 2**62, even x vanishes once e >= 64."""
    small_e = torch.bitwise_and(b, 2 ** 62 - 1)
    big_e = (b < 0) | (b >= 64)
    even = torch.bitwise_and(a, 1) == 0
    result = torch.pow(a, small_e)
    return torch.where(even & big_e, _zero(result), result)


def gcd(a, b):
    """torch's Euclid loop can meet MIN % -1 (a hardware fault) when an operand is the
    dtype's minimum; gcd(MIN, b) is b's lowest set bit (MIN itself when b is 0 or MIN)."""
    if a.dtype == torch.bool or not a.dtype.is_signed:
        return torch.gcd(a, b)
    low = torch.iinfo(a.dtype).min
    one = torch.ones((), dtype=a.dtype)
    g = torch.gcd(torch.where(a == low, one, a), torch.where(b == low, one, b))
    minimum = torch.full((), low, dtype=a.dtype)
    a_low = torch.where(b == 0, minimum, torch.bitwise_and(b, -b))
    b_low = torch.where(a == 0, minimum, torch.bitwise_and(a, -a))
    return torch.where(a == low, a_low, torch.where(b == low, b_low, g))


def lcm(a, b):
    """NumPy's |a| / gcd * |b|, wrapping like NumPy's (abs(MIN) stays MIN); 0 for gcd 0."""
    g = gcd(a, b)
    zero = g == 0
    safe = torch.where(zero, torch.ones((), dtype=g.dtype), g)
    magnitude_a = torch.abs(a) if a.dtype.is_signed else a
    magnitude_b = torch.abs(b) if b.dtype.is_signed else b
    return torch.where(zero, _zero(g), torch.div(magnitude_a, safe, rounding_mode="trunc") * magnitude_b)


def absolute(t):
    if t.dtype == torch.bool or t.dtype in (torch.uint8, torch.uint64):
        return t.clone()
    return torch.abs(t)


def sign(t):
    if t.dtype == torch.uint64:
        return (t != 0).to(torch.uint64)
    if _is_complex(t):
        return _complex_sign(t)
    if _is_float(t):
        return torch.where(torch.isnan(t), t, torch.sign(t))
    return torch.sign(t)


def _complex_sign(z):
    """NumPy 2: each part divided by |z| (a real division, correctly rounded: 3+4j gives
    0.6+0.8j, where a complex division gives 0.6000000000000001); 0 -> 0; one infinite
    part -> the unit in that direction."""
    re, im = torch.real(z), torch.imag(z)
    mag = torch.abs(z)
    unit = complex_from_parts(re / mag, im / mag)
    re_inf, im_inf = torch.isinf(re), torch.isinf(im)
    zero_r = torch.zeros_like(re)
    towards_re = complex_from_parts(torch.sign(re), zero_r)
    towards_im = complex_from_parts(zero_r, torch.sign(im))
    unit = torch.where(re_inf & ~im_inf, towards_re, unit)
    unit = torch.where(im_inf & ~re_inf, towards_im, unit)
    nan = complex_full((), math.nan, math.nan, z.dtype, z.device)
    unit = torch.where(re_inf & im_inf, nan, unit)
    return torch.where(mag == 0, torch.zeros((), dtype=z.dtype), unit)


def reciprocal(t):
    if _is_complex(t):
        return _complex_reciprocal(t)
    if _is_float(t):
        return torch.reciprocal(t)
    if t.dtype == torch.uint64:
        return (t == 1).to(torch.uint64)
    one = (t == 1).to(t.dtype)
    if t.dtype.is_signed:
        one = torch.where(t == -1, torch.full((), -1, dtype=t.dtype), one)
    if t.dtype in (torch.int32, torch.int64):  # NumPy: (int)(1.0 / 0) is MIN on x86
        one = torch.where(t == 0, torch.full((), torch.iinfo(t.dtype).min, dtype=t.dtype), one)
    return one


def _complex_reciprocal(z):
    """NumPy's own complex reciprocal loop, not its division (nor torch's): Smith's
    ratio taken over the larger part, so 1/0j is nan+nanj (0/0 ratio; 1 / 0j divides
    to inf+nanj) and 1/(inf+0j) is 0-0j (division gives 0+0j). Written as NumPy's C
    (``-r/d``, ``-1/d``) so the signs of zeros and NaNs come out alike."""
    re, im = torch.real(z), torch.imag(z)
    real_larger = im.abs() <= re.abs()
    r = torch.where(real_larger, im / re, re / im)
    d = torch.where(real_larger, re + im * r, re * r + im)
    one = torch.ones((), dtype=d.dtype, device=d.device)
    real = torch.where(real_larger, one / d, r / d)
    imag = torch.where(real_larger, torch.neg(r) / d, torch.neg(one) / d)
    return complex_from_parts(real, imag)


def cbrt(t):
    """Real cube root: NumPy's own loop on the CPU (bit for bit, ``_numpy_loops``),
    elsewhere a float64 Newton step (within an ulp)."""
    return _numpy_loops.unary(t, "cbrt", _cbrt_newton)


def _cbrt_newton(t):
    """Real cube root, odd in x, refined by one Newton step in float64."""
    x = t.to(torch.float64)
    r = torch.copysign(torch.abs(x).pow(1.0 / 3.0), x)   # sign(-0.0) * ... loses the zero's sign
    refined = r - (r - x / (r * r)) / 3.0
    r = torch.where(torch.isfinite(r) & (r != 0), refined, r)
    return torch.where(torch.isnan(x), x, r)


def square(t):
    if t.dtype == torch.bool:
        return torch.logical_and(t, t)
    return complex_product(t, t) if t.is_complex() else t * t


def _scale_complex(z, factor):
    """Multiply real and imaginary parts separately (complex * real, as NumPy does)."""
    return complex_from_parts(torch.real(z) * factor, torch.imag(z) * factor)


def exp2(t):
    return torch.exp(_scale_complex(t, _LN2)) if _is_complex(t) else torch.exp2(t)


def expm1(z):
    if not _is_complex(z):
        return torch.expm1(z)
    re, im = torch.real(z), torch.imag(z)
    half = torch.sin(im / 2)
    return complex_from_parts(torch.expm1(re) * torch.cos(im) - 2 * half * half, torch.exp(re) * torch.sin(im))


def log2(t):
    return _scale_complex(torch.log(t), 1 / _LN2) if _is_complex(t) else torch.log2(t)


def log1p(t):
    """Complex: NumPy's formula, log(hypot(1 + x, y)) + i atan2(y, 1 + x); adding 1 as
    a complex number would lose the sign of a zero imaginary part (log1p(-2-0j) is -pi j).
    Real: x itself where |x| < eps/4, where log1p(x) rounds to x; torch's kernel flushes
    the smallest subnormals to 0 (float32 log1p(1e-45) gave 0, NumPy 1e-45)."""
    if not _is_complex(t):
        if not t.is_floating_point():
            return torch.log1p(t)
        return torch.where(torch.abs(t) < torch.finfo(t.dtype).eps / 4, t, torch.log1p(t))
    shifted = t.real + 1
    return complex_from_parts(torch.log(torch.hypot(shifted, t.imag)), torch.atan2(t.imag, shifted))


def _logaddexp_with(log1p_of_exp, same):
    """NumPy's formulation: equal inputs give x + log(2) exactly (also for infinities),
    otherwise the larger plus log1p(exp(-|difference|))."""
    def kernel(x, y):
        diff = x - y
        larger = torch.where(diff > 0, x, y)
        result = larger + log1p_of_exp(-torch.abs(diff))
        result = torch.where(torch.isnan(diff), diff, result)
        return torch.where(x == y, x + same, result)
    return kernel


# this module's log1p: torch's CPU log1p of a subnormal float32 is 0 (logaddexp(0, -103) was 0)
logaddexp = _logaddexp_with(lambda v: log1p(torch.exp(v)), math.log(2.0))
logaddexp2 = _logaddexp_with(lambda v: log1p(torch.exp2(v)) / _LN2, 1.0)


def deg2rad(t):
    return t * (math.pi / 180.0)


def rad2deg(t):
    return t * (180.0 / math.pi)


def rint(t):
    if _is_complex(t):
        return complex_from_parts(torch.round(torch.real(t)), torch.round(torch.imag(t)))
    return torch.round(t)


def _float_only(op):
    def kernel(t):
        return op(t) if _is_float(t) else t.clone()
    kernel.__name__ = op.__name__
    return kernel


floor = _float_only(torch.floor)
ceil = _float_only(torch.ceil)
trunc = _float_only(torch.trunc)


def modf(t):
    """C's modf: both parts carry x's sign (modf(-2.0) is (-0.0, -2.0), not +0.0)."""
    whole = torch.trunc(t)
    frac = torch.where(torch.isinf(t), _zero(t), t - whole)
    return torch.copysign(frac, t), whole


def frexp(t):
    mantissa, exponent = torch.frexp(t)
    return mantissa, exponent


def _pow2(k):
    """2.0**k as float64 for integer k in [-1022, 1023], built from the exponent bits."""
    return torch.bitwise_left_shift(k + 1023, 52).view(torch.float64)


def ldexp(x, n):
    """x * 2**n with one rounding: frexp splits x, the scaling runs in two exact steps."""
    mantissa, exponent = torch.frexp(x.to(torch.float64))
    k = exponent.to(torch.int64) + torch.clamp(n.to(torch.int64), -10000, 10000)
    k = torch.clamp(k, -1200, 1200)
    shift = torch.where(k < -1000, 200, torch.where(k > 1000, -200, 0))
    return mantissa * _pow2(k + shift) * _pow2(-shift)


def nextafter(x, y):
    return _half_nextafter(x, y) if x.dtype == torch.float16 else torch.nextafter(x, y)


def _half_nextafter(x, y):
    """NumPy's npy_half_nextafter on the bits (Inductor steps float16 in float32, where
    the step rounds away): x == y gives x before NumPy 2.5 (so -0.0 towards 0.0 stays
    -0.0) and y from 2.5 (as C's nextafter), a zero steps to the smallest subnormal of
    y's sign, a NaN gives +NaN."""
    bits = x.view(torch.int16)
    away = (y > x) == (x > 0)   # |x| grows: one up in the magnitude bits
    step = torch.where(away, bits + 1, bits - 1)
    tiny = torch.where(torch.signbit(y), -32767, 1).to(torch.int16)   # 0x8001 or 0x0001
    r = torch.where(x == 0, tiny, step).view(torch.float16)
    r = torch.where(x == y, y if NUMPY_2_5 else x, r)
    nan = torch.full((), math.nan, dtype=x.dtype, device=x.device)
    return torch.where(torch.isnan(x) | torch.isnan(y), nan, r)


def spacing(t):
    inf = torch.full((), math.inf, dtype=t.dtype)
    if t.dtype == torch.float16:  # NumPy's half spacing always steps towards +inf
        gap = torch.nextafter(t, inf) - t
    else:
        gap = torch.nextafter(t, torch.copysign(inf, t)) - t
        gap = torch.where(t == 0, torch.nextafter(_zero(t), inf), gap)
    return torch.where(torch.isfinite(t), gap, torch.full((), math.nan, dtype=t.dtype))


def signbit(t):
    if t.dtype == torch.bool or not (t.dtype.is_signed or _is_float(t)):
        return torch.zeros(t.shape, dtype=torch.bool)
    return torch.signbit(t)


def heaviside(x, h):
    one = torch.ones((), dtype=x.dtype)
    step = torch.where(x < 0, _zero(x), torch.where(x > 0, one, h))
    return torch.where(torch.isnan(x), x, step)


# ---- ordering (complex numbers order lexicographically in NumPy) ------------------------
def _complex_less(a, b, or_equal):
    """NumPy's CLT/CLE: the real parts decide only when no imaginary part is NaN."""
    ar, ai, br, bi = torch.real(a), torch.imag(a), torch.real(b), torch.imag(b)
    tail = ai <= bi if or_equal else ai < bi
    return ((ar < br) & ~torch.isnan(ai) & ~torch.isnan(bi)) | ((ar == br) & tail)


def less(a, b):
    return _complex_less(a, b, False) if _is_complex(a) else torch.lt(a, b)


def less_equal(a, b):
    return _complex_less(a, b, True) if _is_complex(a) else torch.le(a, b)


def greater(a, b):
    return _complex_less(b, a, False) if _is_complex(a) else torch.gt(a, b)


def greater_equal(a, b):
    return _complex_less(b, a, True) if _is_complex(a) else torch.ge(a, b)


def _has_nan(z):
    return torch.isnan(torch.real(z)) | torch.isnan(torch.imag(z))


def _complex_pick(a, b, a_wins, nan_wins):
    """NaN-propagating (nan_wins) or NaN-ignoring choice between complex values."""
    a_nan, b_nan = _has_nan(a), _has_nan(b)
    chosen = torch.where(a_wins, a, b)
    if nan_wins:
        return torch.where(a_nan, a, torch.where(b_nan, b, chosen))
    return torch.where(a_nan, b, torch.where(b_nan, a, chosen))


def maximum(a, b):
    if _is_complex(a):
        return _complex_pick(a, b, greater_equal(a, b), True)
    if a.dtype == torch.bool:
        return torch.logical_or(a, b)
    return _numpy_nan(a, b, torch.maximum(a, b))


def minimum(a, b):
    if _is_complex(a):
        return _complex_pick(a, b, less_equal(a, b), True)
    if a.dtype == torch.bool:
        return torch.logical_and(a, b)
    return _numpy_nan(a, b, torch.minimum(a, b))


def _numpy_nan(a, b, r):
    """maximum/minimum ``r`` with NumPy's NaN: ``a`` where it is NaN, else ``b`` where it
    is (its sign bit kept: maximum(-nan, 1) is -nan); torch answers one canonical NaN.
    float16 only (its loop takes float16 unconverted, exact): the two wheres would make
    every float32/float64 maximum 3-4x slower in eager torch for the NaN's sign alone."""
    if r.dtype != torch.float16:
        return r
    return torch.where(torch.isnan(a), a, torch.where(torch.isnan(b), b, r))


def fmax(a, b):
    if _is_complex(a):
        return _complex_pick(a, b, greater_equal(a, b), False)
    if not _is_float(a):
        return maximum(a, b)
    return torch.fmax(a, b)


def fmin(a, b):
    if _is_complex(a):
        return _complex_pick(a, b, less_equal(a, b), False)
    if not _is_float(a):
        return minimum(a, b)
    return torch.fmin(a, b)


# ---- logic and bits ------------------------------------------------------------------------
def logical_and(a, b):
    return torch.logical_and(a != 0, b != 0)


def logical_or(a, b):
    return torch.logical_or(a != 0, b != 0)


def logical_xor(a, b):
    return torch.logical_xor(a != 0, b != 0)


def logical_not(t):
    return t == 0


def right_shift(x, s):
    if x.dtype != torch.uint64:
        return torch.bitwise_right_shift(x, s)
    bits, count = x.view(torch.int64), s.view(torch.int64)
    shifted = torch.bitwise_right_shift(bits, count)  # arithmetic: clear the sign fill
    keep = torch.bitwise_left_shift(torch.ones((), dtype=torch.int64), 64 - count) - 1
    logical = torch.bitwise_and(shifted, keep)
    return torch.where((count < 0) | (count >= 64), torch.zeros((), dtype=torch.int64), logical)


def bitwise_count(t):
    """Population count of |x| (NumPy counts the magnitude of signed integers)."""
    v = t.view(torch.int64) if t.dtype == torch.uint64 else t.to(torch.int64)
    if t.dtype.is_signed:
        v = torch.abs(v)
    m1, m2, m4 = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F
    v = v - torch.bitwise_and(torch.bitwise_right_shift(v, 1), m1)
    v = torch.bitwise_and(v, m2) + torch.bitwise_and(torch.bitwise_right_shift(v, 2), m2)
    v = torch.bitwise_and(v + torch.bitwise_right_shift(v, 4), m4)
    v = torch.bitwise_and(torch.bitwise_right_shift(v * 0x0101010101010101, 56), 0x7F)
    return v.to(torch.uint8)


def conjugate(t):
    return torch.conj_physical(t) if _is_complex(t) else t.clone()


# ---- reductions and scans torch has natively --------------------------------------------
def last_axis(x, axes):
    """Move ``axes`` to the end and merge them into one."""
    rest = [i for i in range(x.ndim) if i not in axes]
    merged = 1
    for a in axes:
        merged *= x.shape[a]
    return x.permute(*rest, *axes).reshape(*[x.shape[i] for i in rest], merged)


def float_sum(x, dims):
    """``torch.sum`` over ``dims`` in x's dtype, with float32 accumulated in float64 and
    rounded once. NumPy's pairwise sum keeps a float32 sum of n values within O(log n)
    ulps of the exact one, and so does torch's eager sum, but Inductor's CPU kernels add
    float32 lanes in float32 (a million values of 0.1 gave 99994.41, NumPy 100000.01);
    a float64 accumulator is at least as close to the exact sum as NumPy is."""
    if x.dtype == torch.float32:
        return torch.sum(x, dim=dims, dtype=torch.float64).to(torch.float32)
    return torch.sum(x, dim=dims, dtype=x.dtype)


def fast_reduce(name, x, axes):
    """A single torch reduction giving NumPy's answer, or None when there is none."""
    dt = x.dtype
    if dt == torch.float16 and name == "add":   # NumPy adds float16 in float32, then rounds
        return torch.sum(x, dim=axes, dtype=torch.float32).to(torch.float16)
    if dt == torch.float16 and name == "multiply":
        return fast_reduce(name, x.to(torch.float32), axes).to(torch.float16)
    if dt in NARROW_UNSIGNED and name in ("add", "multiply", "maximum", "minimum"):
        return fast_reduce(name, x.to(torch.int64), axes).to(dt)
    if dt == torch.uint64:
        if name in ("add", "multiply"):
            return fast_reduce(name, x.view(torch.int64), axes).view(torch.uint64)
        if name in ("maximum", "minimum"):
            return ordered_to_uint64(fast_reduce(name, uint64_to_ordered(x), axes)).view(torch.uint64)
        return None
    if dt == torch.bool and name in ("add", "maximum", "logical_or"):
        return torch.any(last_axis(x, axes), dim=-1)
    if dt == torch.bool and name in ("multiply", "minimum", "logical_and"):
        return torch.all(last_axis(x, axes), dim=-1)
    if name == "add":
        return float_sum(x, axes)
    if name == "multiply":
        return torch.prod(last_axis(x, axes), dim=-1, dtype=dt)
    if name == "maximum" and not _is_complex(x):
        return torch.amax(x, dim=axes)
    if name == "minimum" and not _is_complex(x):
        return torch.amin(x, dim=axes)
    return None


def fast_accumulate(name, x, axis):
    dt = x.dtype
    if dt in NARROW_UNSIGNED and name in ("add", "multiply"):
        return fast_accumulate(name, x.to(torch.int64), axis).to(dt)
    if dt == torch.uint64 and name in ("add", "multiply"):
        return fast_accumulate(name, x.view(torch.int64), axis).view(torch.uint64)
    if dt in (torch.bool, torch.float16):  # NumPy rounds every partial result
        return None
    if name == "add":
        return torch.cumsum(x, dim=axis, dtype=dt)
    if name == "multiply":
        return torch.cumprod(x, dim=axis, dtype=dt)
    return None
