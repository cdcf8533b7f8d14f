"""NumPy's general numerical helpers (numpy/lib function_base, polynomial, type checks).

Each follows NumPy's own recipe, operation by operation and in the dtypes NumPy uses,
because its intermediate roundings and promotions are visible in the answers. Python
numbers stay weak: constants enter the arithmetic through ``_scalar_like`` so float16
and float32 round as NumPy's weak scalars do.

Value-dependent by nature (they answer with Python objects or pick shapes/dtypes from
the data): allclose, array_equal, array_equiv, real_if_close, gradient's check for
uniform coordinates, and the eager-only piecewise, apply_along_axis, apply_over_axes
and vectorize, which call Python functions per slice or element.
"""
import builtins
import itertools
import math
import numbers
import operator

import numpy
import torch

from . import _dtypes, _fp_errors, _promotion, _self_overlap, linalg
from ._coerce import asarray, cast_tensor, check_python_int_fits, make_scalar, to_numpy
from ._dtypes import F64
from ._errors import UnsupportedError
from ._ndarray import ndarray
from ._normalize import (
    NO_VALUE,
    ArrayLike,
    OutArray,
    finish,
    normalize_axis,
    normalize_axis_tuple,
    normalizer,
    refuse_bool_axis,
)
from ._statistics import _image_as, _int_image
from ._ufunc_kernels import complex_from_parts, subtract
from ._ufuncs import _broadcast_shape

__all__ = ["isposinf", "isneginf", "astype", "diff", "ediff1d", "gradient", "convolve", "correlate", "interp",
           "polyval", "polyfit", "polyder", "polyint", "polyadd", "polysub", "polymul", "trapezoid", "isclose",
           "allclose", "array_equal", "array_equiv", "nan_to_num", "real_if_close", "real", "imag", "angle",
           "unwrap", "sinc", "i0", "bartlett", "blackman", "hamming", "hanning", "kaiser", "iscomplex", "isreal",
           "iscomplexobj", "isrealobj", "isscalar", "iterable", "piecewise", "apply_along_axis", "apply_over_axes",
           "vectorize"]



def _dt(t):
    return _dtypes.from_torch(t.dtype)


def _scalar_like(value, t):
    """A Python number as a 0-d tensor of ``t``'s dtype (NumPy casts weak scalars to
    the array's dtype before operating; torch would compute in a wider type)."""
    return torch.tensor(value, dtype=t.dtype, device=t.device)


def _promote(*items):
    """NumPy's result dtype for tensors and (weak) Python numbers."""
    keys = [ndarray._wrap(x) if isinstance(x, torch.Tensor) else x for x in items]
    return _promotion.result_type(*keys)


def _subtract(x, y):
    """x - y in x's (common) dtype with NumPy's wrapping, for every integer width."""
    dt = _dt(x)
    if dt.kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    if dt.kind == "u" and dt.itemsize > 1:
        return _image_as(_int_image(x) - _int_image(y), dt, dt)
    r = subtract(x, y)   # complex part by part, as NumPy: 0 - inf*j has no nan
    _fp_errors.check("subtract", [x, y], r)
    return r


_BINARY = {"add": torch.add, "subtract": subtract, "multiply": torch.mul, "divide": torch.div}


def _op(name, x, y, scalar=False):
    """x <name> y as NumPy's ufunc computes and reports it (``scalar``: both operands
    NumPy scalars, whose math NumPy names 'scalar subtract')."""
    r = _BINARY[name](x, y)
    if torch.is_tensor(x) or torch.is_tensor(y):
        _fp_errors.check(name, [v for v in (x, y) if torch.is_tensor(v)], r,
                         report_as=f"scalar {name}" if scalar else name)
    return r


def _neighbours(t, axis):
    """(t[1:], t[:-1]) along ``axis`` (both empty for an empty axis)."""
    lead = (slice(None),) * axis
    return t[lead + (slice(1, None),)], t[lead + (slice(None, -1),)]


def _sum_exact(t, dim, dt):
    """Sum keeping NumPy's dtype ``dt`` (integers wrap modulo 2**bits as NumPy's do)."""
    if dt.kind == "b":
        return t.any(dim)
    if dt.kind in "iu":
        return _image_as(_int_image(t).sum(dim, dtype=torch.int64), dt, dt) if dt.kind == "u" \
            else t.sum(dim, dtype=torch.int64).to(dt.torch)
    if dt.name == "float16":
        return t.to(torch.float32).sum(dim).to(torch.float16)
    return t.sum(dim)


# ---- differences -----------------------------------------------------------------------
def diff(a, n=1, axis=-1, prepend=NO_VALUE, append=NO_VALUE):
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, a.ndim)
    parts = []
    for extra, first in ((prepend, True), (append, False)):
        if extra is NO_VALUE:
            continue
        extra = asarray(extra)
        if extra.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            extra = ndarray._wrap(extra._t.expand(shape))
        parts.append((first, extra))
    t = a._t
    if parts:
        pieces = [p._t for first, p in parts if first] + [t] + [p._t for first, p in parts if not first]
        _check_joinable(pieces, axis)
        dt = _promotion.result_type(*[ndarray._wrap(p) for p in pieces])
        t = torch.cat([cast_tensor(p, dt).to(t.device) for p in pieces], dim=axis)
    for _ in range(n):
        hi, lo = _neighbours(t, axis)
        t = hi != lo if t.dtype == torch.bool else _subtract(hi, lo)
    return ndarray._wrap(t)


def _check_joinable(tensors, axis):
    """NumPy's concatenate errors for diff's prepend/append of the wrong shape."""
    first = tensors[0]
    for i, t in enumerate(tensors[1:], start=1):
        if t.ndim != first.ndim:
            raise ValueError("all the input arrays must have same number of dimensions, but the array at index 0 "
                             f"has {first.ndim} dimension(s) and the array at index {i} has {t.ndim} dimension(s)")
        for d in range(first.ndim):
            if d != axis and t.shape[d] != first.shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation axis must match "
                                 f"exactly, but along dimension {d}, the array at index 0 has size {first.shape[d]} "
                                 f"and the array at index {i} has size {t.shape[d]}")


def ediff1d(ary, to_end=None, to_begin=None):
    ary = asarray(ary)
    t = ary._t.reshape(-1)
    dt = ary.dtype
    pieces = []
    for extra, name in ((to_begin, "to_begin"), (to_end, "to_end")):
        if extra is None:
            pieces.append(None)
            continue
        extra = asarray(extra)
        if not _promotion.can_cast(extra.dtype, dt, "same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            f"`same_kind` rule.")
        pieces.append(cast_tensor(extra._t.reshape(-1), dt).to(t.device))
    if t.shape[0] == 0:
        middle = t[:0]
    else:
        middle = _subtract(t[1:], t[:-1])
    begin, end = pieces
    return ndarray._wrap(torch.cat([p for p in (begin, middle, end) if p is not None]))


def _spacing(distance, length, i):
    """One axis's spacing as NumPy's gradient prepares it: a scalar (kept as given,
    so Python numbers stay weak) or the 1-D differences of coordinates."""
    if not isinstance(distance, (ndarray, numpy.ndarray, list, tuple)):
        return distance
    coords = asarray(distance)
    if coords.ndim == 0:
        return coords
    if coords.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if coords.shape[0] != length:
        raise ValueError("when 1d, distances must match the length of the corresponding dimension")
    t = coords._t
    if coords.dtype.kind in "iu":
        t = _int_image(t).to(torch.float64) if coords.dtype.name != "uint64" else t.to(torch.float64)
    d = _subtract(t[1:], t[:-1]) if t.shape[0] > 1 else t[:0]
    if d.numel() and builtins.bool((d == d[0]).all()):
        return ndarray._wrap(d[0].clone())  # NumPy reduces even spacing to a (strong) scalar
    return ndarray._wrap(d)


def gradient(f, *varargs, axis=None, edge_order=1):
    f = asarray(f)
    nd = f.ndim
    axes = tuple(range(nd)) if axis is None else normalize_axis_tuple(axis, nd)
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and numpy.ndim(numpy.asarray(varargs[0]) if not isinstance(varargs[0], ndarray)
                                           else varargs[0]._t.numpy()) == 0:
        spacings = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacings = [_spacing(d, f.shape[ax], i) for i, (d, ax) in enumerate(zip(varargs, axes))]
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    t = f._t
    if f.dtype.kind in "iu":
        t = _int_image(t).to(torch.float64) if f.dtype.name != "uint64" else t.to(torch.float64)
    elif f.dtype.kind == "b" and axes:   # NumPy checks the first axis's length before subtracting
        _gradient_length(f.shape[axes[0]], edge_order)
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    outputs = [_gradient_axis(t, ax, dx, edge_order) for ax, dx in zip(axes, spacings)]
    return outputs[0] if len(axes) == 1 else tuple(outputs)


def _gradient_length(length, edge_order):
    if length < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")


def _gradient_axis(t, axis, dx, edge_order):
    length = t.shape[axis]
    _gradient_length(length, edge_order)
    out_dt = _dt(t)

    def part(start, stop=None):
        if stop is None:
            return t.narrow(axis, start % length, 1)
        return t.narrow(axis, start, (stop % length if stop < 0 else stop) - start)

    uniform = not isinstance(dx, ndarray) or dx.ndim == 0
    one = t.ndim == 1   # NumPy's edges of a 1-D f are scalars: 'scalar subtract'
    if uniform:
        h = dx._t if isinstance(dx, ndarray) else dx
        rt = _promote(t, h)
        ht = _scalar_like(h, torch.empty(0, dtype=rt.torch, device=t.device)) if not isinstance(h, torch.Tensor) \
            else cast_tensor(h, rt)

        def p(start, stop=None):
            return cast_tensor(part(start, stop), rt)
        interior = _op("divide", _op("subtract", p(2, length), p(0, -2)), _scalar_like(2.0, ht) * ht)
        if edge_order == 1:
            first = _op("divide", _op("subtract", p(1), p(0), one), ht, one)
            last = _op("divide", _op("subtract", p(-1), p(-2), one), ht, one)
        else:
            a, b, c = (_scalar_like(v, ht) / ht for v in (-1.5, 2.0, -0.5))
            first = _combine(a, b, c, p(0), p(1), p(2), one)
            last = _combine(-c, -b, -a, p(-3), p(-2), p(-1), one)
    else:
        d = dx._t  # coefficients in the spacing's own dtype, as NumPy computes them
        rt = _promote(t, d)

        def p(start, stop=None):
            return cast_tensor(part(start, stop), rt)

        shape = [1] * t.ndim
        shape[axis] = -1
        a, b, c = (cast_tensor(k, rt).reshape(shape) for k in _interior_coefficients(d[:-1], d[1:]))
        interior = _combine(a, b, c, p(0, -2), p(1, -1), p(2, length), False)
        if edge_order == 1:
            first = _op("divide", _op("subtract", p(1), p(0), one), cast_tensor(d[0], rt), one)
            last = _op("divide", _op("subtract", p(-1), p(-2), one), cast_tensor(d[-1], rt), one)
        else:
            a, b, c = (cast_tensor(k, rt) for k in _edge_coefficients(d[0], d[1], first=True))
            first = _combine(a, b, c, p(0), p(1), p(2), one)
            a, b, c = (cast_tensor(k, rt) for k in _edge_coefficients(d[-2], d[-1], first=False))
            last = _combine(a, b, c, p(-3), p(-2), p(-1), one)
    pieces = [cast_tensor(x, out_dt) for x in (first, interior, last)]
    return ndarray._wrap(torch.cat(pieces, dim=axis))


def _combine(a, b, c, fa, fb, fc, scalar):
    """a * fa + b * fb + c * fc, step by step as NumPy computes and reports it."""
    return _op("add", _op("add", _op("multiply", a, fa, scalar), _op("multiply", b, fb, scalar), scalar),
               _op("multiply", c, fc, scalar), scalar)


def _interior_coefficients(dx1, dx2):
    """NumPy's second-order weights for uneven spacing (arrays: 'add', 'divide')."""
    a = _op("divide", -dx2, _op("multiply", dx1, _op("add", dx1, dx2)))
    b = _op("divide", _op("subtract", dx2, dx1), _op("multiply", dx1, dx2))
    c = _op("divide", dx1, _op("multiply", dx2, _op("add", dx1, dx2)))
    return a, b, c


def _edge_coefficients(dx1, dx2, first):
    """NumPy's second-order edge weights from two spacings (NumPy scalars)."""
    two = _scalar_like(2.0, dx1)
    if first:
        a = _op("divide", -_op("add", _op("multiply", two, dx1, True), dx2, True),
                _op("multiply", dx1, _op("add", dx1, dx2, True), True), True)
        b = _op("divide", _op("add", dx1, dx2, True), _op("multiply", dx1, dx2, True), True)
        c = _op("divide", -dx1, _op("multiply", dx2, _op("add", dx1, dx2, True), True), True)
    else:
        a = _op("divide", dx2, _op("multiply", dx1, _op("add", dx1, dx2, True), True), True)
        b = _op("divide", -_op("add", dx2, dx1, True), _op("multiply", dx1, dx2, True), True)
        c = _op("divide", _op("add", _op("multiply", two, dx2, True), dx1, True),
                _op("multiply", dx2, _op("add", dx1, dx2, True), True), True)
    return a, b, c


# ---- convolution -----------------------------------------------------------------------
_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode_number(mode):
    if isinstance(mode, str):
        if mode not in _MODES:
            raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
        return _MODES[mode]
    mode = operator.index(mode)
    if mode not in (0, 1, 2):
        raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
    return mode


def _correlate_core(a, v, mode, dt, flip_kernel=False):
    """NumPy's _pyarray_correlate: out[k] = sum_j a[k + j - left] * v[j], zero padded,
    the shorter operand taken as the kernel (result reversed when swapped)."""
    if flip_kernel:  # convolve; torch cannot flip uint16/32/64, their images it can
        a, v = _int_image(a), _int_image(v).flip(0)
    inverted = a.shape[0] < v.shape[0]
    if inverted:
        a, v = v, a
    n = v.shape[0]
    left, right = {0: (0, 0), 1: (n // 2, n - n // 2 - 1), 2: (n - 1, n - 1)}[mode]
    if dt.kind == "b":
        work = torch.bool
    elif dt.kind in "iu":
        work = torch.int64
    elif dt.name == "float16":
        work = torch.float32  # NumPy's half dot accumulates in float
    else:
        work = dt.torch
    a, v = _int_image(a).to(work), _int_image(v).to(work)
    padded = torch.cat([a.new_zeros(left), a, a.new_zeros(right)])
    windows = padded.unfold(0, n, 1)
    if work == torch.bool:
        out = (windows & v).any(-1)
    else:   # NumPy multiplies only where the operands overlap: no inf * 0 from the padding
        inside = torch.cat([torch.zeros(left, dtype=torch.bool), torch.ones(a.shape[0], dtype=torch.bool),
                            torch.zeros(right, dtype=torch.bool)]).to(a.device).unfold(0, n, 1)
        products = windows * v
        out = (torch.where(inside, products, 0) if left or right else products).sum(-1)
    if inverted:
        out = out.flip(0)
    return _image_as(out, dt, dt) if dt.kind == "u" else cast_tensor(out, dt)


def _operands_1d(a, v):
    a, v = asarray(a), asarray(v)
    for x in (a, v):
        if x.ndim > 1:
            raise ValueError("object too deep for desired array")
    a_t, v_t = a._t.reshape(-1), v._t.reshape(-1).to(a._t.device)
    return a_t, v_t, _promotion.result_type(a, v)


def correlate(a, v, mode="valid"):
    a_t, v_t, dt = _operands_1d(a, v)
    mode = _mode_number(mode)
    if a_t.shape[0] == 0:
        raise ValueError("first array argument cannot be empty")
    if v_t.shape[0] == 0:
        raise ValueError("second array argument cannot be empty")
    a_t, v_t = cast_tensor(a_t, dt), cast_tensor(v_t, dt)
    if v_t.is_complex():
        v_t = v_t.conj().resolve_conj()
    return ndarray._wrap(_correlate_core(a_t, v_t, mode, dt))


def convolve(a, v, mode="full"):
    a_t, v_t, dt = _operands_1d(a, v)
    if a_t.shape[0] == 0:   # checked before the longer operand is put first (NumPy's gh-30272)
        raise ValueError("a cannot be empty")
    if v_t.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if v_t.shape[0] > a_t.shape[0]:
        a_t, v_t = v_t, a_t
    mode = _mode_number(mode)
    a_t, v_t = cast_tensor(a_t, dt), cast_tensor(v_t, dt)
    return ndarray._wrap(_correlate_core(a_t, v_t, mode, dt, flip_kernel=True))


# ---- interpolation ---------------------------------------------------------------------
def interp(x, xp, fp, left=None, right=None, period=None):
    x, xp, fp = asarray(x), asarray(xp), asarray(fp)
    value_dt = _dtypes.complex128.dtype if fp.dtype.kind == "c" else F64
    xt = cast_tensor(x._t, F64)
    xpt, fpt = cast_tensor(xp._t, F64).to(xt.device), cast_tensor(fp._t, value_dt).to(xt.device)
    if xpt.ndim != 1 or fpt.ndim != 1:
        raise ValueError("object too deep for desired array" if max(xpt.ndim, fpt.ndim) > 1
                         else "object of too small depth for desired array")
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        if fpt.shape[0] != xpt.shape[0]:   # checked before the periodic padding
            raise ValueError("fp and xp are not of the same length")
        xt = torch.remainder(xt, period)
        xpt = torch.remainder(xpt, period)
        order = torch.sort(xpt, stable=True).indices
        xpt, fpt = xpt[order], fpt[order]
        xpt = torch.cat([xpt[-1:] - period, xpt, xpt[:1] + period])
        fpt = torch.cat([fpt[-1:], fpt, fpt[:1]])
    if fpt.shape[0] != xpt.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xpt.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if value_dt.kind == "c":
        re = _interp_real(xt, xpt, fpt.real.contiguous(), _part(left, "real"), _part(right, "real"))
        im = _interp_real(xt, xpt, fpt.imag.contiguous(), _part(left, "imag"), _part(right, "imag"))
        result = complex_from_parts(re, im)
    else:
        result = _interp_real(xt, xpt, fpt, left, right)
    return ndarray._wrap(result, scalar=x.ndim == 0)


def _part(value, name):
    return None if value is None else getattr(complex(value), name)


def _interp_real(x, xp, fp, left, right):
    """NumPy's compiled interp: the segment's slope, with its fallbacks for NaN."""
    left_value = fp[0] if left is None else torch.tensor(float(left), dtype=torch.float64, device=x.device)
    right_value = fp[-1] if right is None else torch.tensor(float(right), dtype=torch.float64, device=x.device)
    n = xp.shape[0]
    if n == 1:
        return torch.where(x < xp[0], left_value, torch.where(x > xp[0], right_value, fp[0]))
    j = (torch.searchsorted(xp, x.contiguous(), side="right") - 1).clamp(0, n - 2)
    x0, x1, f0, f1 = xp[j], xp[j + 1], fp[j], fp[j + 1]
    slope = (f1 - f0) / (x1 - x0)
    result = slope * (x - x0) + f0
    retry = slope * (x - x1) + f1
    retry = torch.where(torch.isnan(retry) & (f0 == f1), f0, retry)
    result = torch.where(torch.isnan(result), retry, result)
    result = torch.where(x == xp[-1], fp[-1], result)
    result = torch.where(x < xp[0], left_value, result)
    result = torch.where(x > xp[-1], right_value, result)
    return torch.where(torch.isnan(x), x, result)


# ---- polynomials -----------------------------------------------------------------------
def _multiply_add(y, x, c, dt):
    """y * x + c in NumPy dtype ``dt`` (integers wrap; uint16/32/64 via int64 images)."""
    y, x, c = (cast_tensor(v, dt) for v in (y, x, c))
    if dt.kind == "b":
        return (y & x) | c
    if dt.kind == "u" and dt.itemsize > 1:
        y, x, c = (_int_image(v) for v in (y, x, c))
        return _image_as(y * x + c, dt, dt)
    return y * x + c


def polyval(p, x):
    p = asarray(p)
    x = asarray(x)
    y = ndarray._wrap(torch.zeros_like(x._t))
    for i in range(p.shape[0] if p.ndim else 0):
        # y * x keeps y's dtype; adding the (strong) coefficient promotes
        dt = _promotion.result_type(_promotion.result_type(y, x), p.dtype)
        c = p._t[i].to(x._t.device)
        if dt.kind in "fc":   # NumPy's y * x then + pv, each reporting (a scalar add for 0-d x)
            yt, xt, ct = (cast_tensor(v, dt) for v in (y._t, x._t, c))
            t = _op("add", _op("multiply", yt, xt), ct, scalar=x.ndim == 0)
        else:
            t = _multiply_add(y._t, x._t, c, dt)
        y = ndarray._wrap(t, scalar=x.ndim == 0)
    return y


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    order = int(deg) + 1
    x, y = asarray(x), asarray(y)
    x_t = cast_tensor(x._t, _promotion.result_type(x, 0.0))
    y_t = cast_tensor(y._t, _promotion.result_type(y, 0.0))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x_t.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x_t.numel() == 0:
        raise TypeError("expected non-empty vector for x")
    if y_t.ndim < 1 or y_t.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x_t.shape[0] != y_t.shape[0]:
        raise TypeError("expected x and y to have same length")
    if x_t.is_complex() or y_t.is_complex():
        raise UnsupportedError("polyfit of complex data")
    if rcond is None:
        rcond = len(x_t) * float(numpy.finfo(_dt(x_t).np).eps)
    powers = torch.arange(order - 1, -1, -1, dtype=torch.int64, device=x_t.device)
    lhs = x_t[:, None] ** powers.to(x_t.dtype) if order else x_t[:, None][:, :0]
    rhs = y_t
    if w is not None:
        w = asarray(w)
        w_t = cast_tensor(w._t, _promotion.result_type(w, 0.0))
        if w_t.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w_t.shape[0] != y_t.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = cast_tensor(lhs * w_t[:, None], _promote(lhs, w_t))
        rhs = rhs * (w_t[:, None] if rhs.ndim == 2 else w_t)
    scale = torch.sqrt((lhs * lhs).sum(0))
    lhs = lhs / scale
    c, resids, rank, s = linalg.lstsq(ndarray._wrap(lhs), ndarray._wrap(rhs), rcond)
    c_t = c._t / (scale[:, None] if c._t.ndim == 2 else scale)  # NumPy's (c.T / scale).T
    coefficients = ndarray._wrap(c_t)
    if full:
        return coefficients, resids, rank, s, rcond
    if cov:
        base = torch.linalg.inv(lhs.T @ lhs) / torch.outer(scale, scale)
        if cov == "unscaled":
            factor = torch.tensor(1.0, dtype=base.dtype, device=base.device)
        else:
            if len(x_t) <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            factor = resids._t / (len(x_t) - order)
        if y_t.ndim == 1:
            return coefficients, ndarray._wrap(base * factor)
        return coefficients, ndarray._wrap(base[:, :, None] * factor)
    return coefficients


def _aligned(a1, a2):
    """Two coefficient arrays left-padded with zeros to one length, in their common dtype."""
    a1, a2 = asarray(a1), asarray(a2)
    t1, t2 = (x._t.reshape(-1) if x.ndim == 0 else x._t for x in (a1, a2))
    dt = _promotion.result_type(a1, a2)
    length = max(t1.shape[0], t2.shape[0])

    def pad(t):
        return torch.cat([t.new_zeros(length - t.shape[0]), t])
    return cast_tensor(pad(t1), dt), cast_tensor(pad(t2), dt), dt


def polyadd(a1, a2):
    t1, t2, dt = _aligned(a1, a2)
    return ndarray._wrap(_multiply_add(t1, t1.new_ones((), dtype=torch.bool), t2, dt))


def polysub(a1, a2):
    t1, t2, _ = _aligned(a1, a2)
    return ndarray._wrap(_subtract(t1, t2))


def _poly1d_coefficients(a):
    """What ``np.poly1d(a)`` keeps: leading zeros trimmed (a data-dependent length),
    at least one coefficient."""
    t = asarray(a)._t
    t = t.reshape(1) if t.ndim == 0 else t
    if t.ndim > 1:
        raise ValueError("Polynomial must be 1d only.")
    nonzero = torch.nonzero(t != 0).reshape(-1)
    t = t[nonzero[0]:] if nonzero.numel() else t[:0]
    return ndarray._wrap(t if t.shape[0] else t.new_zeros(1))


def polymul(a1, a2):
    return convolve(_poly1d_coefficients(a1), _poly1d_coefficients(a2))


def _order(m, message):
    """polyder's and polyint's ``m``: an index, ValueError ``message`` when negative."""
    m = operator.index(m)
    if m < 0:
        raise ValueError(message)
    return m


def _repeated(p, m, step):
    """``p``'s coefficients put through ``step(t, i)`` for i in range(m); with m == 0,
    ``p`` itself as an array (NumPy returns it unchanged)."""
    p = asarray(p)
    if m == 0:
        return p
    t = p._t
    for i in range(m):
        t = step(t, i)
    return ndarray._wrap(t)


def _derivative(t, _):
    n = t.shape[0] - 1
    rt = _promotion.result_type(_dt(t), _dtypes.int64.dtype)  # times an int64 arange
    return _multiply_add(t[:-1], torch.arange(max(n, 0), 0, -1, device=t.device),
                         t.new_zeros((), dtype=torch.bool), rt)


def _integral(t, constant):
    quotient_dt = _promotion.result_type(_promotion.result_type(_dt(t), _dtypes.int64.dtype), 0.0)
    divided = cast_tensor(t, quotient_dt) / torch.arange(t.shape[0], 0, -1, device=t.device).to(quotient_dt.torch)
    rt = _promotion.result_type(quotient_dt, constant.dtype)
    return torch.cat([cast_tensor(divided, rt), cast_tensor(constant._t, rt)])


def polyder(p, m=1):
    m = _order(m, "Order of derivative must be positive (see polyint)")
    return _repeated(p, m, _derivative)


def polyint(p, m=1, k=None):
    m = _order(m, "Order of integral must be positive (see polyder)")
    k = numpy.zeros(m) if k is None else numpy.atleast_1d(numpy.asarray(k))
    if len(k) == 1 and m > 1:
        k = k[0] * numpy.ones(m)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    return _repeated(p, m, lambda t, i: _integral(t, asarray(k[i:i + 1])))


# ---- integration -----------------------------------------------------------------------
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = asarray(y)
    nd = y.ndim
    operator.index(axis)   # NumPy indexes a list of slices with it: TypeError for None, 1.0, (0,)
    if nd == 0:
        raise IndexError("too many indices for array: array is 0-dimensional, but 1 were indexed")
    axis_n = normalize_axis(axis, nd)
    refuse_bool_axis(axis)   # NumPy's add.reduce gets it
    if x is None:
        d = dx._t if isinstance(dx, ndarray) else dx
    else:
        x = asarray(x)
        if x.ndim == 1:
            d = diff(x)._t.to(y._t.device)
            shape = [1] * nd
            shape[axis_n] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)._t.to(y._t.device)
    t = y._t
    hi, lo = _neighbours(t, axis_n)
    pair_dt = _dt(t)
    pair = (hi | lo) if pair_dt.kind == "b" else (
        _image_as(_int_image(hi) + _int_image(lo), pair_dt, pair_dt) if pair_dt.kind == "u" else hi + lo)
    rt = _promote(d, pair)
    d_t = cast_tensor(d, rt) if isinstance(d, torch.Tensor) else _scalar_like(d, t.new_empty(0, dtype=rt.torch))
    rt2 = _promote(ndarray._wrap(d_t * cast_tensor(pair, rt)), 2.0)
    areas = cast_tensor(d_t * cast_tensor(pair, rt), rt2) / _scalar_like(2.0, t.new_empty(0, dtype=rt2.torch))
    total = _sum_exact(areas, axis_n, rt2)
    return ndarray._wrap(total, scalar=total.ndim == 0)


# ---- comparisons -----------------------------------------------------------------------
def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    def arg(v):
        return v if isinstance(v, (int, float, complex)) and not isinstance(v, ndarray) else asarray(v)
    x, y, atol, rtol = (arg(v) for v in (a, b, atol, rtol))
    _check_tolerances(atol, rtol)
    _check_isclose_shapes(x, y, atol, rtol)
    if isinstance(y, ndarray):
        y = ndarray._wrap(cast_tensor(y._t, _promotion.result_type(y, 1.0)))
    elif isinstance(y, int):
        y = float(y)
    rt = _promotion.result_type(x, y)
    device = next((v._t.device for v in (x, y) if isinstance(v, ndarray)), None)
    xt = _tensor_in(x, rt, device)
    yt = _tensor_in(y, rt, device)
    gap = torch.abs(xt - yt)
    # NumPy's limit, atol + rtol * abs(y), is in y's own dtype, not x's and y's common
    # one: float16 y gives float16(1e-8) == 0, so isclose(5e-324j, float16(0)) is False
    size = torch.abs(y._t if isinstance(y, ndarray) else yt)
    tol_dt = _promotion.result_type(atol, rtol, ndarray._wrap(size))
    limit = _tensor_in(atol, tol_dt, device) + _tensor_in(rtol, tol_dt, device) * cast_tensor(size, tol_dt)
    cmp_dt = _promotion.result_type(ndarray._wrap(gap), ndarray._wrap(limit))
    result = (cast_tensor(gap, cmp_dt) <= cast_tensor(limit, cmp_dt)) & torch.isfinite(yt) | (xt == yt)
    if equal_nan:
        result = result | (torch.isnan(xt) & torch.isnan(yt))
    return ndarray._wrap(result, scalar=result.ndim == 0)


def _check_tolerances(atol, rtol):
    """NumPy reports a non-finite atol or rtol as its error state's 'invalid' mode says
    (a warning by default); eager only, as an array tolerance's values are data."""
    if _fp_errors.tracing():
        return
    values = [to_numpy(v) if isinstance(v, ndarray) else v for v in (atol, rtol)]
    if builtins.all(numpy.all(numpy.isfinite(v)) for v in values):
        return
    message = f"One of rtol or atol is not valid, atol: {values[0]}, rtol: {values[1]}"
    mode = numpy.geterr()["invalid"]
    if mode == "warn":
        _fp_errors.warn(message)
    elif mode == "raise":
        raise FloatingPointError(message)
    elif mode == "print":
        print(message)


def _check_isclose_shapes(x, y, atol, rtol):
    """The shapes NumPy's steps broadcast (x - y, rtol * |y|, atol + that, the
    comparison), checked in that order so that a mismatch is its ValueError."""
    def shape(*values):
        return _broadcast_shape([tuple(v.shape) if isinstance(v, ndarray) else () for v in values])
    shape(x, y)
    shape(rtol, y)
    _broadcast_shape([shape(atol), shape(rtol, y)])
    _broadcast_shape([shape(x, y), shape(atol, rtol, y)])


def _tensor_in(value, dt, device=None):
    if isinstance(value, ndarray):
        return cast_tensor(value._t, dt)
    return torch.tensor(value, dtype=dt.torch, device=device)


def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """A Python bool, as NumPy returns: reads the data."""
    return builtins.bool(isclose(a, b, rtol, atol, equal_nan)._t.all())


def _equal_tensors(a, b):
    dt = _promotion.result_type(a, b)
    return cast_tensor(a._t, dt) == cast_tensor(b._t, dt)


def array_equal(a1, a2, equal_nan=False):
    """A Python bool, as NumPy returns: reads the data."""
    try:
        a1, a2 = asarray(a1), asarray(a2)
    except Exception:  # noqa: BLE001 - NumPy answers False for anything it cannot convert
        return False
    if a1.shape != a2.shape:
        return False
    equal = _equal_tensors(a1, a2)
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        nan1, nan2 = torch.isnan(a1._t), torch.isnan(a2._t)
        equal = (nan1 == nan2).all() & (equal | nan1).all()
    return builtins.bool(equal.all())


def array_equiv(a1, a2):
    """A Python bool, as NumPy returns: reads the data."""
    try:
        a1, a2 = asarray(a1), asarray(a2)
    except Exception:  # noqa: BLE001
        return False
    try:
        torch.broadcast_shapes(a1._t.shape, a2._t.shape)
    except RuntimeError:
        return False
    return builtins.bool(_equal_tensors(a1, a2).all())


# ---- complex parts and cleaning ----------------------------------------------------------
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = asarray(x, copy=copy)
    scalar = x.ndim == 0
    if x.dtype.kind not in "fc":
        return ndarray._wrap(x._t, scalar=True) if scalar else x
    real_dt = _promotion.result_type(x.dtype, 0.0) if x.dtype.kind == "f" else \
        {"complex64": _dtypes.float32.dtype, "complex128": F64}[x.dtype.name]
    info = numpy.finfo(real_dt.np)
    high = float(info.max) if posinf is None else posinf
    low = float(info.min) if neginf is None else neginf

    def clean(t):
        fill = {name: torch.tensor(v, dtype=torch.float64, device=t.device).to(t.dtype)
                for name, v in (("nan", nan), ("high", high), ("low", low))}
        # every mask from the input, as NumPy: nan=np.inf is not then rewritten by posinf
        nans, highs, lows = torch.isnan(t), torch.isposinf(t), torch.isneginf(t)
        t = torch.where(nans, fill["nan"], t)
        t = torch.where(highs, fill["high"], t)
        return torch.where(lows, fill["low"], t)

    t = x._t
    cleaned = complex_from_parts(clean(t.real), clean(t.imag)) if t.is_complex() else clean(t)
    _self_overlap.store(x._t, cleaned)
    return ndarray._wrap(x._t, scalar=True) if scalar else x


def real_if_close(a, tol=100):
    """Value-dependent by design: the result dtype depends on the imaginary parts."""
    a = asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = float(numpy.finfo(a.dtype.np).eps) * tol
    if builtins.bool((torch.abs(a._t.imag) < tol).all()):
        return a.real
    return a


def _component(val, name):
    """``val.real``/``val.imag`` as NumPy takes them: the object's own attribute when it
    has one (Python numbers stay Python numbers), else that of ``asarray(val)``."""
    if isinstance(val, ndarray) or not isinstance(val, (list, tuple)) and hasattr(val, name):
        return getattr(val, name)
    return getattr(asarray(val), name)


def real(val):
    return _component(val, "real")


def imag(val):
    return _component(val, "imag")


def angle(z, deg=False):
    z = asarray(z)
    if z.dtype.kind == "c":
        im, re = z._t.imag, z._t.real
        rt = _dt(re)
    else:
        rt = _promotion.result_type(0, z)
        re = cast_tensor(z._t, rt)
        im = re.new_zeros(())
    if rt.kind in "biu":  # arctan2's loop: the smallest float holding the integers
        rt = _promotion.result_type(rt, _dtypes.float16.dtype)
    re, im = cast_tensor(re, rt), cast_tensor(im, rt)
    result = torch.atan2(im, re)
    if deg:
        result = result * _scalar_like(180 / math.pi, result)
    return ndarray._wrap(result, scalar=z.ndim == 0)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    p = asarray(p)
    dd = diff(p, axis=axis)._t
    axis = normalize_axis(axis, p.ndim)
    if discont is None:
        discont = period / 2
    dt = _promote(dd, period)
    if dt.kind in "iu":
        high, remainder = divmod(period, 2)
        ambiguous = remainder == 0
        for value in (-high, period):  # NumPy's weak Python ints must fit the dtype
            check_python_int_fits(value, dt)
        if dt.name == "uint64":
            raise UnsupportedError("unwrap of uint64 data")
    else:
        high = period / 2
        ambiguous = True
    low = -high
    work = torch.int64 if dt.kind in "iu" else dt.torch

    def wrap(v):  # integer results wrap in NumPy's dtype
        return cast_tensor(v, dt).to(work) if dt.kind in "iu" else v

    d = cast_tensor(dd, dt).to(work)
    shifted = wrap(torch.remainder(wrap(d - _scalar_like(low, d)), _scalar_like(period, d)) +
                   _scalar_like(low, d))
    if ambiguous:
        shifted = torch.where((shifted == _scalar_like(low, d)) & (d > 0), _scalar_like(high, d), shifted)
    correction = wrap(shifted - d)
    # NumPy takes abs of the difference in the input's own dtype: an integer minimum wraps
    # to itself (abs(int16 -32768) == -32768), which counts as a small step
    magnitude = torch.abs(dd) if dd.dtype.is_signed else dd   # torch has no abs for uint16+
    small = magnitude < (discont._t if isinstance(discont, ndarray) else discont)
    correction = torch.where(small, correction.new_zeros(()), correction)
    up = cast_tensor(p._t, dt, copy=True)
    rest = _neighbours(p._t, axis)[0]
    cum = torch.cumsum(correction, axis)
    total_dt = _promote(rest, cum) if dt.kind not in "iu" else None
    tail = (cast_tensor(rest, total_dt) + cast_tensor(cum, total_dt)) if total_dt is not None else \
        _int_image(rest).to(torch.int64) + cum
    _neighbours(up, axis)[0].copy_(cast_tensor(tail, dt))
    return ndarray._wrap(up)


def sinc(x):
    x = asarray(x)
    rt = _promotion.result_type(math.pi, x)
    if rt.kind in "biu":
        rt = F64
    t = _scalar_like(math.pi, x._t.new_empty(0, dtype=rt.torch)) * cast_tensor(x._t, rt)
    eps = float(numpy.finfo(rt.np).eps) if rt.kind == "f" else 1e-20
    y = torch.where(t != 0, t, _scalar_like(eps, t))
    return ndarray._wrap(torch.sin(y) / y, scalar=x.ndim == 0)


def i0(x):
    """Modified Bessel function of order 0, in float64 for non-float input as NumPy."""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    dt = x.dtype if x.dtype.kind == "f" else F64
    result = torch.special.i0(x._t.to(torch.float64)).to(dt.torch)
    return ndarray._wrap(result)


# ---- window functions --------------------------------------------------------------------
def _window_length(M):
    """NumPy converts M through ``np.array([0.0, M])``: a float64 (complex M, which
    would make complex windows, is refused)."""
    if isinstance(M, complex) or (isinstance(M, ndarray) and M.dtype.kind == "c"):
        raise UnsupportedError("window functions of complex length")
    return float(M)


def _window(M, values):
    """NumPy's symmetric windows: none below length 1, [1.] at 1, else ``values(n, M)``
    over n = 1-M, 3-M, ..., M-1 (float64)."""
    M = _window_length(M)
    if M < 1:
        return ndarray._wrap(torch.zeros(0, dtype=torch.float64))
    if M == 1:
        return ndarray._wrap(torch.ones(1, dtype=torch.float64))
    return ndarray._wrap(values(torch.arange(1 - M, M, 2, dtype=torch.float64), M))


def _cosine_window(M, coefficients):
    """sum_k c_k cos(k pi n / (M - 1)) (NumPy's recipe)."""
    def values(n, M):
        result = torch.full_like(n, coefficients[0])
        for k, c in enumerate(coefficients[1:], start=1):
            result = result + c * torch.cos(k * math.pi * n / (M - 1))
        return result
    return _window(M, values)


def bartlett(M):
    return _window(M, lambda n, M: torch.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1)))


def blackman(M):
    return _cosine_window(M, (0.42, 0.5, 0.08))


def hamming(M):
    return _cosine_window(M, (0.54, 0.46))


def hanning(M):
    return _cosine_window(M, (0.5, 0.5))


def kaiser(M, beta):
    M, beta = _window_length(M), _window_length(beta)
    if M == 1:
        return ndarray._wrap(torch.ones(1, dtype=torch.float64))
    n = torch.arange(0, M, dtype=torch.float64)
    alpha = (M - 1) / 2.0
    ratio = (n - alpha) / alpha
    argument = beta * torch.sqrt(1 - ratio ** 2.0)
    scale = torch.special.i0(torch.tensor(beta, dtype=torch.float64))
    return ndarray._wrap(torch.special.i0(argument) / scale)


# ---- type predicates -------------------------------------------------------------------
def iscomplex(x):
    ax = asarray(x)
    if ax.dtype.kind == "c":
        result = ax._t.imag != 0
    else:
        result = torch.zeros_like(ax._t, dtype=torch.bool)
    return ndarray._wrap(result, scalar=ax.ndim == 0)


@normalizer
def isposinf(x: ArrayLike, out: OutArray = None):
    """+inf test; NumPy refuses complex input (TypeError) since the sign is ambiguous."""
    return _sign_of_inf(x, out, 1)


@normalizer
def isneginf(x: ArrayLike, out: OutArray = None):
    return _sign_of_inf(x, out, -1)


def _sign_of_inf(x, out, sign):
    if x.dtype.kind == "c":
        raise TypeError("This operation is not supported for complex values because it would be ambiguous.")
    t = x._t == (float("inf") * sign) if x.dtype.kind == "f" else torch.zeros_like(x._t, dtype=torch.bool)
    return finish(t, out, scalar=x.ndim == 0 and out is None)


def astype(x, dtype, /, *, copy=True, device=None):
    """NumPy 2's function form of ``ndarray.astype`` (arrays and NumPy scalars only, as NumPy)."""
    if isinstance(x, numpy.ndarray):
        x = asarray(x)
    elif isinstance(x, numpy.generic):
        x = make_scalar(x, _dtypes._from_numpy_dtype(x.dtype))
    if not isinstance(x, ndarray):
        raise TypeError(f"Input should be a NumPy array. It is a {type(x).__name__} instead.")
    return x.astype(dtype, copy=copy)


def isreal(x):
    part = imag(x)
    if isinstance(part, ndarray):
        return ndarray._wrap(part._t == 0, scalar=part.ndim == 0)
    return part == 0


def iscomplexobj(x):
    dt = getattr(x, "dtype", None)
    if dt is None:
        dt = asarray(x).dtype
    return _dtypes._as_dtype(dt).kind == "c"


def isrealobj(x):
    return not iscomplexobj(x)


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True


def isscalar(element):
    if isinstance(element, ndarray):
        return element._scalar
    return isinstance(element, (numpy.generic, numbers.Number, str, bytes, memoryview))


# ---- eager-only helpers that call Python per slice or element --------------------------
def piecewise(x, condlist, funclist, *args, **kw):
    """Eager only: calls the Python functions on the selected elements."""
    x = asarray(x)
    n_funcs = len(funclist)
    first = condlist[0] if not isscalar(condlist) else None
    nested = isinstance(first, (list, numpy.ndarray)) or (isinstance(first, ndarray) and not first._scalar)
    if isscalar(condlist) or (not nested and x.ndim != 0):   # an element of a shim array is a scalar
        condlist = [condlist]
    conds = asarray(condlist, dtype=bool)._t.to(x._t.device)
    n = conds.shape[0]
    if n == n_funcs - 1:
        conds = torch.cat([conds, ~conds.any(0, keepdim=True)], 0)
        n += 1
    elif n != n_funcs:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = torch.zeros_like(x._t)
    for cond, func in zip(conds, funclist):
        cond = cond.expand(y.shape) if cond.shape != y.shape else cond
        if not callable(func):
            y[cond] = cast_tensor(asarray(func)._t, x.dtype)
        else:
            values = ndarray._wrap(x._t[cond])
            if values.size > 0:
                y[cond] = cast_tensor(asarray(func(values, *args, **kw))._t, x.dtype)
    return ndarray._wrap(y)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Eager only: calls ``func1d`` on each 1-D slice in C order."""
    arr = asarray(arr)
    nd = arr.ndim
    axis = normalize_axis(axis, nd)
    moved = arr._t.movedim(axis, -1)
    outer = tuple(moved.shape[:-1])
    indices = itertools.product(*(range(s) for s in outer))
    try:
        first_index = next(indices)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None
    first = asarray(func1d(arr._view(moved[first_index]), *args, **kwargs))
    buffer = first._t.new_zeros(outer + tuple(first._t.shape))
    buffer[first_index] = first._t
    for index in indices:
        result = asarray(func1d(arr._view(moved[index]), *args, **kwargs))
        buffer[index] = cast_tensor(result._t, first.dtype)
    dims = list(range(buffer.ndim))
    res_nd = first.ndim
    permutation = dims[:axis] + dims[buffer.ndim - res_nd:] + dims[axis:buffer.ndim - res_nd]
    return ndarray._wrap(buffer.permute(permutation))


def apply_over_axes(func, a, axes):
    """Eager only: calls ``func(a, axis)`` once per axis, keeping dimensions."""
    value = asarray(a)
    n = value.ndim
    if numpy.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        result = asarray(func(value, axis))
        if result.ndim == value.ndim:
            value = result
        else:
            expanded = ndarray._wrap(result._t.unsqueeze(axis))
            if expanded.ndim != value.ndim:
                raise ValueError("function is not returning an array of the correct shape")
            value = expanded
    return value


class vectorize:
    """Eager only: calls ``pyfunc`` once per broadcast element with Python scalars,
    like NumPy's vectorize (which also calls it once more on the first element to learn
    the output types unless ``otypes`` is given)."""

    def __init__(self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        if signature is not None:
            raise UnsupportedError("vectorize(signature=...)")
        if pyfunc is not None and not callable(pyfunc):
            raise TypeError("When used as a decorator, only accepts keyword arguments.")
        self.pyfunc = pyfunc  # None: a decorator factory, ``@vectorize(otypes=...)``
        if hasattr(pyfunc, "__name__"):
            self.__name__ = pyfunc.__name__
        self.cache = cache
        self.signature = signature
        self.__doc__ = getattr(pyfunc, "__doc__", None) if doc is None else doc
        if isinstance(otypes, str):
            for char in otypes:
                if char not in numpy.typecodes["All"]:
                    raise ValueError(f"Invalid otype specified: {char}")
        elif otypes is not None and not isinstance(otypes, (list, tuple)):
            raise ValueError("Invalid otype specification")
        self.otypes = otypes   # read at each call: NumPy lets ``f.otypes = 'i'`` be set later
        self.excluded = set() if excluded is None else set(excluded)

    def __call__(self, *args, **kwargs):
        if self.pyfunc is None:
            return vectorize(args[0], otypes=self.otypes, doc=self.__doc__, excluded=self.excluded,
                             cache=self.cache)
        positions = [i for i in range(len(args)) if i not in self.excluded]
        names = [k for k in kwargs if k not in self.excluded]
        arrays = [asarray(args[i]) for i in positions] + [asarray(kwargs[k]) for k in names]
        if not arrays:
            return self.pyfunc(*args, **kwargs)
        tensors = torch.broadcast_tensors(*[a._t for a in arrays])
        shape = tuple(tensors[0].shape)
        size = math.prod(shape)
        flats = [t.reshape(-1) for t in tensors]
        if size == 0 and self.otypes is None:
            raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")

        def call(k, typed=False):
            """pyfunc on the k-th elements: Python scalars, or NumPy scalars of the
            arrays' dtypes for the call that learns the output types (NumPy's
            ``arg.flat[0]``, so an int16 input gives int16 results)."""
            call_args, call_kwargs = list(args), dict(kwargs)
            values = [a.dtype.np.type(f[k].item()) if typed else f[k].item() for a, f in zip(arrays, flats)]
            for i, v in zip(positions, values):
                call_args[i] = v
            for name, v in zip(names, values[len(positions):]):
                call_kwargs[name] = v
            return self.pyfunc(*call_args, **call_kwargs)

        otypes = None if self.otypes is None else [_dtypes._as_dtype(t) for t in self.otypes]
        if otypes is None:
            first = call(0, typed=True)
            firsts = first if isinstance(first, tuple) else (first,)
            otypes = [asarray(v).dtype for v in firsts]
        outputs = [call(k) for k in range(size)]
        if len(otypes) == 1 and not (outputs and isinstance(outputs[0], tuple)):
            columns = [outputs]
        else:
            if outputs and len(outputs[0]) != len(otypes):
                raise ValueError(f"Invalid number of values returned by pyfunc "
                                 f"(expected {len(otypes)}, got {len(outputs[0])})")
            columns = [list(col) for col in zip(*outputs)] if outputs else [[] for _ in otypes]
        results = []
        for column, dt in zip(columns, otypes):
            values = numpy.asarray([numpy.asarray(v) if isinstance(v, ndarray) else v for v in column],
                                   dtype=dt.np).reshape(shape)
            results.append(asarray(values))
        return results[0] if len(results) == 1 else tuple(results)
