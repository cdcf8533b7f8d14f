"""Order statistics, averages, covariance and histograms with NumPy's exact rules.

Quantiles follow NumPy's own recipe step by step (virtual index in the dtype of ``q``,
the same two-sided lerp, the same NaN propagation from the end of the sorted slice),
because the recipe *is* the specification: its roundings and dtype promotions show up
in the answers. Sorting and gathering run on torch; uint16/32/64 take a detour through
int64 where torch lacks kernels (exact: widening, or a bitwise reinterpretation).

A few checks NumPy makes on values (q in range, weights summing to zero, negative
counts) must look at the data; they are isolated in ``_raise_if``.
"""
import builtins
import functools
import math
import operator

import numpy
import torch

from . import _dtypes, _fp_errors, _promotion
from ._coerce import asarray, cast_tensor
from ._dtypes import F64, I64
from ._errors import UnsupportedError, raise_if
from ._graph_warnings import warn_each_run, warn_when
from ._ndarray import ndarray
from ._normalize import (
    ArrayLike,
    AxisLike,
    DTypeLike,
    OptionalArrayLike,
    OutArray,
    _axis,
    _axis_keeping_bools,
    counted_axes,
    finish,
    normalize_axis_tuple,
    normalizer,
    ufunc_axis,
)
from ._numpy_version import NUMPY_2_5
from ._sorting import insertion_points
from ._ufunc_kernels import complex_from_parts, complex_full

__all__ = ["median", "nanmedian", "percentile", "quantile", "nanpercentile", "nanquantile",
           "average", "cov", "corrcoef", "histogram", "histogram_bin_edges", "histogram2d",
           "histogramdd", "bincount", "digitize"]



# ---- integer images: what torch can index and subtract ---------------------------------
def _int_image(t):
    """uint16/uint32 widened to int64, uint64 reinterpreted bit for bit as int64 (torch
    has no gather/subtract kernels for them); other dtypes unchanged."""
    if t.dtype in (torch.uint16, torch.uint32):
        return t.to(torch.int64)
    if t.dtype == torch.uint64:
        return t.view(torch.int64)
    return t


def _from_int_image(t, dt):
    """Inverse of ``_int_image`` (values wrap modulo 2**bits, as NumPy's do)."""
    if dt.torch == torch.uint64:
        return t.view(torch.uint64)
    if dt.torch in (torch.uint16, torch.uint32):
        return t.to(dt.torch)
    return t


def _image_as(t, dt, target):
    """Cast an integer image of dtype ``dt`` values to ``target`` exactly as NumPy
    would cast the original values (uint16/32 wrap first, uint64 reinterprets)."""
    if dt.torch in (torch.uint16, torch.uint32):
        t = t & ((1 << (8 * dt.itemsize)) - 1)
    elif dt.torch == torch.uint64:
        t = t.view(torch.uint64)
    return cast_tensor(t, target)


# ---- reduction layout ------------------------------------------------------------------
class _Layout:
    """The reduced axes gathered into dim 0 of ``data`` (in NumPy's merge order),
    with the shapes needed to put the result back together."""

    def __init__(self, t, axis):
        nd = t.ndim
        self.axes = tuple(range(nd)) if axis is None else tuple(sorted(normalize_axis_tuple(axis, nd)))
        kept = [d for d in range(nd) if d not in self.axes]
        self.kept_shape = tuple(t.shape[d] for d in kept)
        self.keepdims_shape = tuple(1 if d in self.axes else s for d, s in enumerate(t.shape))
        self.n = math.prod(t.shape[d] for d in self.axes)
        if not NUMPY_2_5 and axis is not None and len(self.axes) > 1 and 0 in self.kept_shape:
            # NumPy 2.4 merges several axes with reshape(kept + (-1,)), ambiguous when empty
            # (2.5 gives the merged length)
            raise ValueError(f"cannot reshape array of size 0 into shape {self.kept_shape + (-1,)}")
        self.data = t.permute(self.axes + tuple(kept)).reshape((self.n,) + self.kept_shape)

    def apply(self, t):
        """Bring another array of the input's shape into the same layout."""
        kept = [d for d in range(t.ndim) if d not in self.axes]
        return t.permute(self.axes + tuple(kept)).reshape((self.n,) + self.kept_shape)

    def shape_back(self, result, lead, keepdims):
        """``result`` has shape lead + kept; restore the keepdims form if asked."""
        if not keepdims:
            return result
        return result.reshape(tuple(lead) + self.keepdims_shape)


def _sort_dim0(t):
    """Sort along dim 0 as NumPy does: NaN last; complex lexicographically with
    NaN-real after NaN-imaginary after finite (NumPy's complex order)."""
    if not t.is_complex():
        return torch.sort(t, dim=0, stable=True).values
    re, im = t.real, t.imag
    category = torch.isnan(re).to(torch.int8) * 2 + torch.isnan(im).to(torch.int8)
    order = torch.sort(im, dim=0, stable=True).indices
    for key in (re, category):
        key = torch.gather(key, 0, order)
        order = torch.gather(order, 0, torch.sort(key, dim=0, stable=True).indices)
    return torch.gather(t, 0, order)


def _mean_dtypes(dt):
    """(accumulation dtype, result dtype) of ``np.mean`` for input dtype ``dt``."""
    if dt.kind in "biu":
        return F64, F64
    if dt.name == "float16":
        return _dtypes.float32.dtype, dt
    return dt, dt


def _warn_empty_mean(kept_shape):
    """NumPy's 'Mean of empty slice' (its 0/0 reported eagerly too); compiled code warns
    each run (an empty slice's size is known while tracing)."""
    if _fp_errors.tracing():
        warn_each_run("Mean of empty slice")
    else:
        _fp_errors.warn_empty_mean(kept_shape)


# ---- median ----------------------------------------------------------------------------
@normalizer
def median(a: ArrayLike, axis: AxisLike = None, out: OutArray = None, overwrite_input=False,
           keepdims=False):
    """overwrite_input only allows NumPy to scramble the input; the shim leaves it
    intact (also what the quantile functions do), which that contract permits."""
    return _median(a, axis, out, keepdims, ignore_nan=False)


@normalizer
def nanmedian(a: ArrayLike, axis=None, out: OutArray = None, overwrite_input=False,
              keepdims=False):
    if a.size == 0:   # NumPy answers with nanmean: a sum's axis rules, mean's for other data
        axis = ufunc_axis(axis) if a.dtype.kind in "fc" else counted_axes(_axis_keeping_bools(axis), a.ndim)
        return _nan_of_empty(a, axis, out, keepdims)
    return _median(a, _axis(axis), out, keepdims, ignore_nan=a.dtype.kind in "fc")


def _nan_full(shape, dtype, device, imag=math.nan):
    """NaN (NaN + imag*j for complex) filled tensor; complex fills are built from real
    parts, as FX cannot print a complex NaN constant in a graph's code."""
    if dtype.is_complex:
        return complex_full(shape, math.nan, imag, dtype, device)
    return torch.full(shape, math.nan, dtype=dtype, device=device)


def _nan_of_empty(a, axis, out, keepdims):
    """NumPy's nan-functions answer an empty input with ``nanmean``: NaN in the reduced
    shape (whatever q is)."""
    axes = tuple(range(a.ndim)) if axis is None else normalize_axis_tuple(axis, a.ndim)
    shape = tuple(1 if d in axes else s for d, s in enumerate(a.shape)) if keepdims else \
        tuple(s for d, s in enumerate(a.shape) if d not in axes)
    res = _mean_dtypes(a.dtype)[1]
    result = _nan_full(shape, res.torch, a._t.device)
    if math.prod(shape):   # nanmean warns for empty slices it has, none for an empty result
        warn_each_run("Mean of empty slice")
    return finish(result, out, scalar=not keepdims, casting="unsafe")




def _median(a, axis, out, keepdims, ignore_nan):
    layout = _Layout(a._t, axis)
    acc, res = _mean_dtypes(a.dtype)
    data = _int_image(_sort_dim0(layout.data))
    n = layout.n
    if n == 0:
        result = _nan_full(layout.kept_shape, res.torch, data.device)
        _warn_empty_mean(tuple(layout.kept_shape))
    elif ignore_nan:
        result = _nanmedian_sorted(data, layout, acc, res)
    else:
        middle = _image_as(data.narrow(0, (n - 1) // 2, 2 - n % 2), a.dtype, acc)
        result = cast_tensor(middle.sum(0) / middle.shape[0], res)
        if a.dtype.kind in "fc":   # NumPy answers a slice with a NaN with its last sorted value
            last = data[-1]        # itself (a complex NaN keeps its parts: nan+infj)
            result = torch.where(torch.isnan(last), cast_tensor(last, res), result)
    result = layout.shape_back(result, (), keepdims)
    # NumPy's median is a mean of the middle items into out=: a reduction's two casts
    return finish(result, out, scalar=not keepdims, casting="unsafe", complex_warnings=2)


def _nanmedian_sorted(data, layout, acc, res):
    """Median of the leading non-NaN values of each sorted slice. NumPy takes two
    routes: whole-array (and long) slices go through ``median`` (mean of the middles,
    float16 accumulated in float32); short slices of an N-d array through a masked
    sum of the two middles in the data's own dtype, halved."""
    valid = (~torch.isnan(data)).sum(0, keepdim=True)
    warn_when(valid == 0, "All-NaN slice encountered", each=True)
    low = torch.gather(data, 0, ((valid - 1) // 2).clamp(min=0))
    high = torch.gather(data, 0, (valid // 2).clamp(max=layout.n - 1))
    if layout.kept_shape == () or layout.n >= 600:
        low, high = cast_tensor(low, acc), cast_tensor(high, acc)
        middle = torch.where(valid % 2 == 1, low, (low + high) / _const(2, low))
        # an all-NaN slice: NumPy's _nanmedian1d answers with its last value (unsorted)
        none = cast_tensor(layout.data[-1:], acc)
    else:   # NumPy's masked median, filled with NaN
        middle = (low + high) / _const(2, low)
        none = _nan_full(middle.shape, middle.dtype, middle.device, imag=0.0)
    return cast_tensor(torch.where(valid == 0, none, middle)[0], res)


# ---- quantiles -------------------------------------------------------------------------
_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
            "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
            "normal_unbiased", "lower", "higher", "midpoint", "nearest")
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")


def _const(value, like):
    """A constant (Python number or count tensor) in ``like``'s dtype, so arithmetic
    rounds as with NumPy's weak scalars (torch would keep Python numbers in a wider
    'opmath' type)."""
    if isinstance(value, torch.Tensor):
        return value.to(like.dtype)
    return torch.tensor(value, dtype=like.dtype, device=like.device)


def _virtual_index(method, n, q):
    """NumPy's virtual index of each quantile in a sorted slice of length ``n`` (an
    int, or a tensor of per-slice lengths broadcasting with ``q``): float in q's dtype
    for interpolating methods, int64 for picking ones."""
    if method == "linear" and not q.is_floating_point():
        return (n - 1) * q.to(torch.int64)
    if not q.is_floating_point():
        q = q.to(torch.float64)
    if method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        return _const(n, q) * q + (_const(alpha, q) + q * _const(1 - alpha - beta, q)) - _const(1, q)
    scaled = _const(n - 1, q) * q
    if method == "linear":
        return scaled
    if method == "lower":
        return torch.floor(scaled).to(torch.int64)
    if method == "higher":
        return torch.ceil(scaled).to(torch.int64)
    if method == "nearest":
        return torch.round(scaled).to(torch.int64)
    if method == "midpoint":
        return _const(0.5, q) * (torch.floor(scaled) + torch.ceil(scaled))
    if method == "averaged_inverted_cdf":
        return _const(n, q) * q - _const(1, q)
    if method == "inverted_cdf":
        return _to_boundaries(_const(n, q) * q - _const(1, q), lambda gamma, index: gamma == 0)
    # closest_observation: the nearest even 1-based order statistic at g == 0
    return _to_boundaries(_const(n, q) * q - _const(1, q) - _const(0.5, q),
                          lambda gamma, index: (gamma == 0) & (torch.floor(index) % 2 == 1))


def _to_boundaries(index, take_previous):
    previous = torch.floor(index)
    chosen = torch.where(take_previous(index - previous, index), previous, previous + 1)
    return chosen.to(torch.int64).clamp(min=0)


def _gamma(method, virtual, previous):
    """Interpolation weight, computed as NumPy does (in float64, then q's dtype)."""
    gamma = virtual.to(torch.float64) - previous.to(torch.float64)
    if method == "averaged_inverted_cdf":
        gamma = torch.where(gamma == 0, 0.5, 1.0).to(torch.float64)
    elif method == "midpoint":
        gamma = torch.where(virtual % 1 == 0, 0.0, 0.5).to(torch.float64)
    return gamma.to(virtual.dtype)


def _gather_slices(data, index, last):
    """data[index] per slice: ``data`` is (n, *kept), ``index`` broadcasts to
    lead + kept; -1 means ``last`` (the slice's last usable position)."""
    kept = tuple(data.shape[1:])
    lead = tuple(index.shape[:index.ndim - len(kept)])
    # the lead size spelled out: -1 is ambiguous when a kept dimension is 0
    index = torch.where(index < 0, last, index).expand(lead + kept).reshape((math.prod(lead),) + kept)
    return torch.gather(data, 0, index).reshape(lead + kept)


def _lerp(below, above, gamma, gamma_is_weak, arr_dt, rt):
    """NumPy's _lerp: a + d*t, and b - d*(1-t) where t >= 0.5, with d = b - a taken in
    the data's own dtype (so integer differences wrap exactly as NumPy's do)."""
    if arr_dt.kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    diff = _image_as(above - below, arr_dt, rt)
    a, b = _image_as(below, arr_dt, rt), _image_as(above, arr_dt, rt)
    one_minus = 1 - gamma.to(torch.float64) if gamma_is_weak else _const(1, gamma) - gamma
    t, one_minus = cast_tensor(gamma, rt), cast_tensor(one_minus, rt)
    return torch.where(gamma >= 0.5, b - diff * one_minus, a + diff * t)


def _interpolate(image, q, method, n, arr_dt, rt, weak_q):
    """Quantiles of slices sorted along dim 0 (``image``: see _int_image) whose first
    ``n`` values count (an int, or a tensor of the kept shape)."""
    kept = tuple(image.shape[1:])
    q = q.reshape(tuple(q.shape) + (1,) * len(kept))
    virtual = _virtual_index(method, n, q)
    last = n - 1
    if not virtual.is_floating_point():
        return _from_int_image(_gather_slices(image, virtual, last), arr_dt)
    previous = torch.floor(virtual)
    above = virtual >= _const(last, virtual)
    below = virtual < 0
    following = torch.where(above, -1, torch.where(below, 0, previous + 1)).to(torch.int64)
    previous = torch.where(above, -1, torch.where(below, 0, previous)).to(torch.int64)
    gamma = _gamma(method, virtual, previous)
    return _lerp(_gather_slices(image, previous, last), _gather_slices(image, following, last),
                 gamma, weak_q, arr_dt, rt)


def _weighted_inverted_cdf(sorted_image, weights, q, count):
    """The first sorted value whose cumulative weight share reaches q (NumPy's only
    weighted method); ``count``: usable values per slice (a tensor; slices with none
    are answered by the caller)."""
    cdf = torch.cumsum(weights, 0)
    cdf = cdf / cdf[-1:]
    raise_if(torch.isnan(cdf[-1]) & (count > 0), ValueError("Weights included NaN, inf or were all zero."))
    if q.is_floating_point():
        cdf = cdf.to(q.dtype)
    cdf = torch.where(cdf == 0, -1, cdf).to(cdf.dtype)  # skip leading zero weights
    columns = cdf.reshape(cdf.shape[0], -1).T.contiguous()
    values = q.to(cdf.dtype).reshape(1, -1).expand(columns.shape[0], -1).contiguous()
    index = torch.searchsorted(columns, values, side="left")
    index = torch.minimum(index, count.clamp(min=1).reshape(-1, 1) - 1).T
    kept = tuple(sorted_image.shape[1:])
    return _gather_slices(sorted_image, index.reshape(tuple(q.shape) + kept), count - 1)


def _sort_with_weights(data, weights):
    order = torch.sort(data, dim=0, stable=True).indices
    return torch.sort(data, dim=0, stable=True).values, torch.gather(weights, 0, order)


def _quantile_dtype(arr_dt, q_dt, weak_q, method, weighted):
    """Result dtype: the data's for picking methods, else NumPy's lerp promotion."""
    if weighted or method in _DISCRETE or (method == "linear" and q_dt.kind in "biu"):
        return arr_dt
    index_dt = q_dt if q_dt.kind == "f" else F64
    return _promotion.result_type(arr_dt, 0.0 if weak_q else index_dt)


def _check_weights(weights, a, axes):
    """NumPy's _weights_are_valid: same shape as ``a``, or the shape of the reduced
    ``axes`` (None: all, and then the shapes must match), laid along those axes with
    unit dims elsewhere, so it broadcasts against ``a``."""
    w = weights._t
    if tuple(w.shape) != a.shape:
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if tuple(w.shape) != tuple(a.shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        w = w.permute(*numpy.argsort(axes).tolist())
        w = w.reshape(tuple(s if ax in axes else 1 for ax, s in enumerate(a.shape)))
    return w


def _python_numbers(q):
    """q's values when it is a Python number or a flat sequence of them, else None."""
    values = q if isinstance(q, (list, tuple)) else [q]
    if all(type(v) in (int, float) for v in values):
        return values
    return None


def _quantile_entry(a, q, python_q, axis, out, method, keepdims, weights, interpolation,
                    weak_q, percent, ignore_nan):
    if interpolation is not None:
        raise UnsupportedError("the deprecated interpolation= keyword (use method=)")
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if percent:
        q_dt = _promotion.result_type(q, 100.0) if q.dtype.kind == "f" else F64
        q_t = cast_tensor(q._t, q_dt)
        q_t = q_t / _const(100, q_t)
    else:
        q_dt, q_t = q.dtype, q._t
    q_t = q_t.to(a._t.device)  # operands follow the data's device
    if q_dt.kind not in "biuf":
        raise UnsupportedError(f"quantiles of dtype {q_dt}")
    bad_q = ValueError("Percentiles must be in the range [0, 100]" if percent
                       else "Quantiles must be in the range [0, 1]")
    if python_q is not None:  # constants: checked in Python, so tracing needs no data
        if not all(0 <= (v / 100 if percent else v) <= 1 for v in python_q):
            raise bad_q
    else:
        raise_if(~((q_t >= 0) & (q_t <= 1)), bad_q)
    axes = None if axis is None else normalize_axis_tuple(axis, a.ndim)
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
        weights = _check_weights(weights, a, axes).expand(a.shape).to(a._t.device)
        raise_if(weights < 0, ValueError("Weights must be non-negative."))
    if method not in _METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    if q_t.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    rt = _quantile_dtype(a.dtype, q_dt, weak_q, method, weights is not None)
    if ignore_nan and a.size == 0:
        return _nan_of_empty(a, axes, out, keepdims)
    layout = _Layout(a._t, axes)
    weights = None if weights is None else layout.apply(weights.to(torch.float64))
    solve = _nanquantile if ignore_nan else _quantile
    result, scalar = solve(layout, q_t, method, weights, a.dtype, rt, weak_q)
    result = layout.shape_back(result, q_t.shape, keepdims)
    return finish(result, out, scalar=scalar and not keepdims)


def _quantile(layout, q, method, weights, arr_dt, rt, weak_q):
    """(quantiles, whether a 0-d answer is a NumPy scalar)."""
    n = layout.n
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    if weights is not None:
        data, weights = _sort_with_weights(layout.data, weights)
        count = torch.full(layout.kept_shape, n, dtype=torch.int64, device=data.device)
        result = _from_int_image(_weighted_inverted_cdf(_int_image(data), weights, q, count), arr_dt)
    else:
        data = _sort_dim0(layout.data)
        result = _interpolate(_int_image(data), q, method, n, arr_dt, rt, weak_q)
    # the weighted path fills a 0-d array; NumPy unpacks only its lerp results
    scalar = weights is None
    if arr_dt.kind == "f":  # a NaN sorts last and then is the answer for its slice
        last = data[-1]
        has_nan = torch.isnan(last)
        if result.ndim == 0 and (rt is not arr_dt or not scalar) and builtins.bool(has_nan):
            rt, scalar = arr_dt, True  # NumPy returns that NaN itself, a scalar of the data's dtype
            result = cast_tensor(result, rt)
        result = torch.where(has_nan, cast_tensor(last, rt), result)
    return result, scalar


def _nanquantile(layout, q, method, weights, arr_dt, rt, weak_q):
    """Quantiles of the non-NaN values of each slice (NaN where a slice has none)."""
    if arr_dt.kind != "f":
        return _quantile(layout, q, method, weights, arr_dt, rt, weak_q)
    data = layout.data
    if weights is not None:
        weights = torch.where(torch.isnan(data), 0.0, weights)
        data, weights = _sort_with_weights(data, weights)
        count = (~torch.isnan(data)).sum(0)
        result = _weighted_inverted_cdf(data, weights, q, count)
    else:
        data = _sort_dim0(data)
        count = (~torch.isnan(data)).sum(0)
        result = _interpolate(data, q, method, count.clamp(min=1), arr_dt, rt, weak_q)
    result = torch.where(count == 0, torch.full_like(result, math.nan), result)
    warn_when(count == 0, "All-NaN slice encountered", each=True)
    scalar = weights is None
    if (rt is not arr_dt or not scalar) and (q.ndim == 0 or not NUMPY_2_5) and count.numel() and \
            builtins.bool(count.reshape(-1)[0] == 0):
        # NumPy builds the result slice by slice from the first slice's answer, and an
        # all-NaN slice answers with a NaN scalar of the data's dtype (NumPy 2.5: with
        # the quantile of one NaN, which is that scalar only for a scalar q)
        result, scalar = cast_tensor(result, arr_dt), True
    return result, scalar


def _quantile_function(percent, ignore_nan):
    @normalizer
    def function(a: ArrayLike, q, axis: AxisLike = None, out: OutArray = None,
                 overwrite_input=False, method="linear", keepdims=False, *,
                 weights: OptionalArrayLike = None, interpolation=None):
        weak_q = type(q) in (int, float)  # NumPy's rule: Python numbers promote weakly
        return _quantile_entry(a, asarray(q), _python_numbers(q), axis, out, method, keepdims,
                               weights, interpolation, weak_q, percent, ignore_nan)
    return function


quantile = _quantile_function(percent=False, ignore_nan=False)
percentile = _quantile_function(percent=True, ignore_nan=False)
nanquantile = _quantile_function(percent=False, ignore_nan=True)
nanpercentile = _quantile_function(percent=True, ignore_nan=True)
for _f, _name in [(quantile, "quantile"), (percentile, "percentile"), (nanquantile, "nanquantile"),
                  (nanpercentile, "nanpercentile")]:
    _f.__name__ = _f.__qualname__ = _name


# ---- average ---------------------------------------------------------------------------
def _mean(t, dt, axes, keepdims):
    """``np.mean`` over ``axes`` (a tuple): tensor and result dtype."""
    acc, res = _mean_dtypes(dt)
    count = 1
    for ax in axes:
        count *= t.shape[ax]
    total = cast_tensor(t, acc).sum(dim=axes, keepdim=keepdims) if axes else cast_tensor(t, acc).clone()
    if not count:
        _warn_empty_mean(tuple(total.shape))
    return cast_tensor(total / _const(count, total) if count else total / 0, res), res


@normalizer
def average(a: ArrayLike, axis: AxisLike = None, weights: OptionalArrayLike = None, returned=False, *,
            keepdims=False):
    axes = tuple(range(a.ndim)) if axis is None else normalize_axis_tuple(axis, a.ndim)
    scalar = not keepdims
    if weights is None:
        avg, res = _mean(a._t, a.dtype, axes, keepdims)
        ratio = a.size / avg.numel()  # ZeroDivisionError for empty results, as in NumPy
        if not returned:
            return finish(avg, scalar=scalar)
        scale = torch.full(avg.shape, ratio, dtype=torch.float64, device=avg.device).to(res.torch)
        return finish(avg, scalar=scalar), finish(scale, scalar=scalar)
    w = _check_weights(weights, a, None if axis is None else axes).to(a._t.device)
    if a.dtype.kind in "biu":
        rt = _promotion.result_type(a.dtype, weights.dtype, F64)
    else:
        rt = _promotion.result_type(a.dtype, weights.dtype)
    w = cast_tensor(w, rt)
    scale = w.sum(dim=axes, keepdim=keepdims) if axes else w.clone()
    raise_if(scale == 0, ZeroDivisionError("Weights sum to zero, can't be normalized"))
    weighted = cast_tensor(a._t, rt) * w
    total = weighted.sum(dim=axes, keepdim=keepdims) if axes else weighted
    avg = total / scale
    if not returned:
        return finish(avg, scalar=scalar)
    if scale.shape != avg.shape:
        scale = scale.expand(avg.shape).clone()
    return finish(avg, scalar=scalar), finish(scale, scalar=scalar)


# ---- covariance ------------------------------------------------------------------------
def _as_rows(x, dt):
    """``array(x, ndmin=2, dtype=dt)``"""
    t = cast_tensor(x._t, dt)
    return t.reshape((1,) * (2 - t.ndim) + tuple(t.shape))


def _validate_sample_weights(weights, n_samples, kind, device):
    w = cast_tensor(asarray(weights)._t, F64).to(device)
    if kind == "fweights":
        raise_if(w != torch.round(w), TypeError("fweights must be integer"))
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {kind}")
    if w.shape[0] != n_samples:
        raise RuntimeError(f"incompatible numbers of samples and {kind}")
    raise_if(w < 0, ValueError(f"{kind} cannot be negative"))
    return w


@normalizer
def cov(m: ArrayLike, y: OptionalArrayLike = None, rowvar=True, bias=False, ddof=None,
        fweights=None, aweights=None, *, dtype: DTypeLike = None):
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None and y.ndim > 2:
        raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = _promotion.result_type(m, F64) if y is None else _promotion.result_type(m, y, F64)
    x = _as_rows(m, dtype)
    if not rowvar and m.ndim != 1:
        x = x.T
    if x.shape[0] == 0:
        return ndarray._wrap(torch.zeros((0, 0), dtype=torch.float64, device=x.device))
    if y is not None:
        yt = _as_rows(y, dtype).to(x.device)
        if not rowvar and yt.shape[0] != 1:
            yt = yt.T
        x = torch.cat([x, yt], dim=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = _validate_sample_weights(fweights, n, "fweights", x.device)
    aw = None
    if aweights is not None:
        aw = _validate_sample_weights(aweights, n, "aweights", x.device)
        w = aw if w is None else w * aw
    if dtype.kind in "biu":  # NumPy's in-place ``X -= avg`` refuses float -> int:
        empty = numpy.zeros(0, dtype.np)  # let NumPy raise its own UFuncTypeError
        numpy.subtract(empty, numpy.zeros(0), out=empty)
    if w is None:
        avg = _mean(x, dtype, (1,), False)[0]
        x = x - avg[:, None]
        c = x @ x.T.conj()
        fact = torch.tensor(float(n - ddof), dtype=torch.float64, device=x.device)
    else:
        rt = _promotion.result_type(dtype, F64)
        wr = cast_tensor(w, rt)
        w_sum = wr.sum()
        raise_if(w_sum == 0, ZeroDivisionError("Weights sum to zero, can't be normalized"))
        avg = (cast_tensor(x, rt) * wr).sum(1) / w_sum
        x = cast_tensor(cast_tensor(x, rt) - avg[:, None], dtype)
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * (w * aw).sum() / w_sum
        xr = cast_tensor(x, rt)
        c = xr @ (xr * wr).T.conj()
    _warn_degrees_of_freedom(fact, c)
    fact = torch.where(fact.real <= 0, torch.zeros_like(fact), fact)
    wide = torch.complex128 if c.is_complex() or fact.is_complex() else torch.float64
    scale = 1 / (fact.to(torch.complex128) if fact.is_complex() else fact.to(torch.float64))  # real 1/0 = inf, as NumPy
    c = (c.to(wide) * scale).to(c.dtype)
    return ndarray._wrap(c.squeeze())


def _warn_degrees_of_freedom(fact, c):
    """NumPy's cov with fact <= 0: a warning, then ``c *= 1 / 0.0`` (divide by zero,
    and 0 * inf is invalid)."""
    if _fp_errors.tracing() or not builtins.bool(fact.real <= 0):
        return
    _fp_errors.warn("Degrees of freedom <= 0 for slice")
    if _fp_errors.watching():
        _fp_errors.report(_fp_errors.DIVIDE, "divide")
        _fp_errors.report(_fp_errors.INVALID if builtins.bool((c == 0).any()) else 0, "multiply")


def _divide(a, b, name):
    """a / b, reporting NumPy's floating-point errors as the division ``name``."""
    result = a / b
    if _fp_errors.watching():
        _fp_errors.report(_fp_errors.flags("divide", [a, b], [result]), name)
    return result


@normalizer
def corrcoef(x: ArrayLike, y: OptionalArrayLike = None, rowvar=True, *, dtype: DTypeLike = None):
    c = cov(x, y, rowvar, dtype=dtype)._t
    if c.ndim != 2:
        return ndarray._wrap(_divide(c, c, "scalar divide"), scalar=True)
    stddev = torch.sqrt(torch.diagonal(c).real)
    c = _divide(c, stddev[:, None], "divide")
    c = _divide(c, stddev[None, :], "divide")
    if c.is_complex():
        c = complex_from_parts(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    else:
        c = c.clamp(-1, 1)
    return ndarray._wrap(c)


# ---- histograms ------------------------------------------------------------------------
def _edges_linspace(start, stop, num, compute_dt, out_dt):
    """``np.linspace(start, stop, num, dtype=out_dt)`` for 0-d tensors, with NumPy's
    arithmetic (step multiplication, or division first when the step underflows)."""
    start, stop = cast_tensor(start, compute_dt), cast_tensor(stop, compute_dt)
    div = num - 1
    delta = stop - start
    ramp = torch.arange(num, dtype=compute_dt.torch, device=delta.device)
    step = delta / _const(div, delta)
    y = torch.where(step == 0, ramp / _const(div, ramp) * delta, ramp * step) + start
    y = torch.cat([y[:-1], stop.reshape(1)])
    return cast_tensor(y, out_dt)


def _linspace_at(index, start, stop, num, compute_dt, out_dt):
    """``_edges_linspace(start, stop, num, ...)[index]`` (0 <= index < num) computed at
    each index as that element is computed (the same value bit for bit, as NumPy's
    linspace computes it), so a kernel reads no table of edges."""
    start, stop = cast_tensor(start, compute_dt), cast_tensor(stop, compute_dt)
    div = num - 1
    delta = stop - start
    ramp = index.to(compute_dt.torch)
    step = delta / _const(div, delta)
    y = torch.where(step == 0, ramp / _const(div, ramp) * delta, ramp * step) + start
    return cast_tensor(torch.where(index == div, stop, y), out_dt)


def _outer_edges(a, range_):
    """(first, last) as 0-d tensors with their NumPy dtypes (NumPy's _get_outer_edges):
    the data's min and max, or the given range; widened by 0.5 when equal."""
    if range_ is not None:
        first, last = range_
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (numpy.isfinite(first) and numpy.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
        if first == last:
            first, last = first - 0.5, last + 0.5
        dt = _promotion.result_type(first, last)
        return asarray(first)._t.to(dt.torch), asarray(last)._t.to(dt.torch), (first, last)
    if a.numel() == 0:
        return torch.tensor(0, device=a.device), torch.tensor(1, device=a.device), (0, 1)
    a = _searchable(a)  # integers are exact in int64, and their edges float64 either way
    first, last = a.min(), a.max()
    raise_if(~(torch.isfinite(first) & torch.isfinite(last)),
              ValueError("autodetected range of [nan, nan] is not finite"))
    dt = _dtypes.from_torch(a.dtype)
    if dt.kind in "biu":  # first - 0.5 turns a NumPy integer scalar into a float64
        first, last = first.to(torch.float64), last.to(torch.float64)
    same = first == last
    return (torch.where(same, first - 0.5, first).to(first.dtype),
            torch.where(same, last + 0.5, last).to(last.dtype), None)


def _edge_dtypes(a_dt, first, last, given):
    """(linspace computation dtype, edge dtype) as NumPy derives them."""
    if given is not None:
        bin_dt = _promotion.result_type(given[0], given[1], a_dt)
        compute = _promotion.result_type(given[0], given[1], 0.0)
    else:
        edge_dt = _dtypes.from_torch(first.dtype)
        bin_dt = _promotion.result_type(edge_dt, a_dt)
        compute = _promotion.result_type(edge_dt, 0.0)
    if bin_dt.kind in "biu":
        bin_dt = _promotion.result_type(bin_dt, 0.0)
    return compute, bin_dt


def _histogram_input(a, weights):
    if a.dtype.kind == "c":
        raise UnsupportedError("histogram of complex data (NumPy orders it lexicographically)")
    t = a._t
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    if weights is not None:
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        weights = weights._t.reshape(-1).to(t.device)
    return t.reshape(-1), weights


def _bin_edges(t, bins, range_):
    """(edges tensor or the given ndarray, number of equal bins or None, comparison
    bounds for the uniform case)."""
    if isinstance(bins, str):
        raise UnsupportedError(f"histogram bins={bins!r} (the bin count depends on the data)")
    if isinstance(bins, (ndarray, list, tuple, numpy.ndarray)) or numpy.ndim(bins) > 0:
        edges = asarray(bins)
        if edges.ndim != 1:
            raise ValueError("`bins` must be 1d, when an array")
        raise_if(edges._t[:-1] > edges._t[1:],
                  ValueError("`bins` must increase monotonically, when an array"))
        return edges, None, None
    try:
        count = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if count < 1:
        raise ValueError("`bins` must be positive, when an integer")
    first, last, given = _outer_edges(t, range_)
    compute, bin_dt = _edge_dtypes(_dtypes.from_torch(t.dtype), first, last, given)
    too_many = ValueError(f"Too many bins for data range. Cannot create {count} finite-sized bins.")
    if given is not None:  # edges from constants: NumPy's own linspace, checked in Python
        constant = numpy.linspace(given[0], given[1], count + 1, endpoint=True, dtype=bin_dt.np)
        if numpy.any(constant[:-1] >= constant[1:]):
            raise too_many
        edges = torch.tensor(constant, device=t.device)
        start, stop = _constant(given[0], compute, t.device), _constant(given[1], compute, t.device)
    else:
        edges = _edges_linspace(first, last, count + 1, compute, bin_dt)
        raise_if(edges[:-1] >= edges[1:], too_many)
        start, stop = first, last

    def edge_at(index):
        return _linspace_at(index, start, stop, count + 1, compute, bin_dt)

    return ndarray._wrap(edges), count, (first, last, edge_at)


def _searchable(t):
    """torch.searchsorted lacks kernels for bool and wide unsigned ints."""
    if t.dtype == torch.bool or t.dtype in (torch.uint16, torch.uint32):
        return t.to(torch.int64)
    if t.dtype == torch.uint64:
        raise UnsupportedError("binning uint64 data")
    return t


def _common(x, y):
    dt = _promotion.result_type(_dtypes.from_torch(x.dtype), _dtypes.from_torch(y.dtype))
    return (_searchable(cast_tensor(x, dt)).contiguous().to(y.device),
            _searchable(cast_tensor(y, dt)).contiguous())


@normalizer
def histogram_bin_edges(a: ArrayLike, bins=10, range=None, weights: OptionalArrayLike = None):
    t, _ = _histogram_input(a, weights)
    return _bin_edges(t, bins, range)[0]


@normalizer
def histogram(a: ArrayLike, bins=10, range=None, density=None, weights: OptionalArrayLike = None):
    t, w = _histogram_input(a, weights)
    edges, count, bounds = _bin_edges(t, bins, range)
    e = edges._t
    if count is not None:
        ntype = I64 if w is None else _dtypes.from_torch(w.dtype)
        index = _equal_bin_index(t, e, count, bounds, range)
        n = histogram_counts(index, w, count, ntype.torch)
    else:
        if w is None:
            ntype = I64
            sorted_data = torch.sort(_searchable(t)).values
            cum = _search_inclusive(*_common(sorted_data, e))
        else:
            ntype = _dtypes.from_torch(w.dtype)
            if ntype.kind == "b":  # NumPy's ``cum_n += cw[...]`` refuses int64 -> bool
                flags = numpy.zeros(0, bool)
                numpy.add(flags, numpy.zeros(0, numpy.int64), out=flags)
            order = torch.sort(_searchable(t), stable=True).indices
            sorted_data = torch.sort(_searchable(t), stable=True).values
            acc = torch.int64 if ntype.kind in "iu" else w.dtype  # integers wrap alike
            sw = torch.gather(_int_image(w).to(acc), 0, order)
            cw = torch.cat([torch.zeros(1, dtype=acc, device=t.device), torch.cumsum(sw, 0)])
            cum = cw[_search_inclusive(*_common(sorted_data, e))]
        n = cum[1:] - cum[:-1]
        if w is not None:
            n = _image_as(n, ntype, ntype) if ntype.kind == "u" else cast_tensor(n, ntype)
    if density:
        widths = cast_tensor(_searchable(e[1:]) - _searchable(e[:-1]), F64)
        out_dt = _promotion.result_type(ntype, F64)
        n = cast_tensor(n, out_dt) / widths / cast_tensor(n.sum(), out_dt)
    return ndarray._wrap(n), edges


# ---- equal bins: NumPy's arithmetic for the bin, then a count per block --------------------
#: NumPy's histogram goes through the data in blocks of this many values, adding each
#: block's bincount (cast to the histogram's dtype) to the running counts.
_BLOCK = 65536


def _equal_bin_index(t, e, count, bounds, range_):
    """The bin of each value of ``t`` as NumPy's fast path computes it for ``count`` equal
    bins with edges ``e``: ``(x - first) / (last - first) * count`` truncated, the value on
    the last edge put in the last bin, then one step down or up where the value lies
    outside its bin's edges (NumPy recomputes from the edges, the last bin closed); each
    step in NumPy's dtype. Values outside [first, last] (and NaN) get bin ``count``."""
    a_dt, bin_dt = _dtypes.from_torch(t.dtype), _dtypes.from_torch(e.dtype)
    first, last, edge_at = bounds
    if range_ is not None:
        first_obj, last_obj = _given_edges(range_)
        keep = _compare(t, first_obj, torch.ge) & _compare(t, last_obj, torch.le)
        sub_dt = _promotion.result_type(bin_dt, first_obj)
        width = _unsigned_subtract(last_obj, first_obj)
        ratio_dt = _promotion.result_type(sub_dt, width)
        first = _constant(first_obj, sub_dt, t.device)
        width = _constant(width, ratio_dt, t.device)
    else:
        keep = None if a_dt.kind in "biu" else (t >= first) & (t <= last)
        sub_dt = ratio_dt = bin_dt
        width = _data_width(t, first, last, bin_dt)
    x = cast_tensor(t, bin_dt)
    offset = cast_tensor(x, sub_dt) - cast_tensor(first, sub_dt)
    index = ((cast_tensor(offset, ratio_dt) / width) * count).to(torch.int64)
    index = torch.where(index == count, count - 1, index)
    if keep is not None:
        index = torch.where(keep, index, 0)   # any bin: only kept values' bins count
    # NumPy: one down where x < edges[i], then one up where x >= edges[i + 1] (but not
    # past the last bin); after a step down that edge is edges[i], which x is below, so
    # the two steps read edges[i] and edges[i + 1] of the first index only (a shallow
    # expression: Inductor's code generation time grows with the nesting)
    below = x < edge_at(index)
    above = (x >= edge_at(index + 1)) & (index != count - 1) & ~below
    index = index - below.to(torch.int64) + above.to(torch.int64)
    return index if keep is None else torch.where(keep, index, count)


def _given_edges(range_):
    """NumPy's first and last edge for a given range: the objects themselves (their
    dtypes matter: Python numbers are weak), widened by 0.5 when equal."""
    first, last = range_
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _compare(t, obj, op):
    """``t >= obj`` (or ``<=``) as NumPy compares an array with a scalar: integers exactly,
    anything else in NumPy's result dtype of the two."""
    kind = _dtypes.from_torch(t.dtype).kind
    if kind in "biu" and isinstance(obj, (int, numpy.integer)) and not isinstance(obj, (bool, numpy.bool_)):
        if not -2 ** 63 <= int(obj) < 2 ** 63:
            raise UnsupportedError("histogram range beyond int64")
        return op(_searchable(t).to(torch.int64), int(obj))
    dt = _promotion.result_type(_dtypes.from_torch(t.dtype), obj)
    return op(cast_tensor(t, dt), _constant(obj, dt, t.device))


def _constant(obj, dt, device):
    """A number as a 0-d tensor of dtype ``dt``, converted as NumPy converts it."""
    value = numpy.asarray(obj).astype(dt.np)
    return torch.tensor(value.item(), dtype=dt.torch, device=device)


def _unsigned_subtract(a, b):
    """NumPy's ``last - first`` for histograms of two scalars: in their result dtype, a
    signed integer one reinterpreted as unsigned (the exact width of any int range)."""
    dt = numpy.result_type(a, b)
    if dt.kind == "i":
        return numpy.subtract(numpy.asarray(a, dt), numpy.asarray(b, dt), casting="unsafe",
                              dtype=numpy.dtype(f"u{dt.itemsize}"))[()]
    return numpy.subtract(a, b, dtype=dt)


def _data_width(t, first, last, bin_dt):
    """``last - first`` for the data's own range: in the data's float dtype; for integers
    the exact width (NumPy subtracts the int scalars as unsigned), as a float64, or 1.0
    when all values are equal (the edges were widened by 0.5)."""
    if _dtypes.from_torch(t.dtype).kind not in "biu" or t.numel() == 0:   # empty: the range [0, 1]
        return cast_tensor(last - first, bin_dt)
    data = _searchable(t)
    low, high = data.min().to(torch.int64), data.max().to(torch.int64)
    exact = (high - low).to(torch.float64)
    exact = torch.where(exact < 0, exact + 2.0 ** 64, exact)   # a width past 2**63 wraps in int64
    return torch.where(high == low, torch.ones_like(exact), exact).to(bin_dt.torch)


def histogram_counts(index, weights, bins, dtype):
    """Each bin's count (or sum of ``weights``) in ``dtype`` (a torch dtype), from bin
    indices in [0, bins] (``bins``: values left out). On the CPU NumPy's own bincount
    counts, block by block as histogram does (its sums bit for bit, a C loop instead of
    a scatter-add); elsewhere one scatter-add in float64."""
    if index.device.type == "cpu":
        return _counts_op()(index, weights, bins, dtype)
    if weights is None:
        contrib = torch.ones_like(index)
    else:
        contrib = weights.to(torch.complex128 if weights.is_complex() else torch.float64)
    n = torch.zeros(bins + 1, dtype=contrib.dtype, device=index.device).index_add_(0, index, contrib)
    return cast_tensor(n[:bins], _dtypes.from_torch(dtype))


@functools.cache
def _counts_op():
    """``torch_numpy_shim::histogram_counts``, an op of its own so that a graph calls
    NumPy for the count; defined at first use (most programs never count), through
    torch.library's plain registration (``custom_op`` imports torch._dynamo: seconds)."""
    lib = torch.library.Library("torch_numpy_shim", "FRAGMENT")
    lib.define("histogram_counts(Tensor index, Tensor? weights, int bins, ScalarType dtype) -> Tensor")

    def counts(index, weights, bins, dtype):
        w = None if weights is None else weights.resolve_conj().numpy()
        return torch.from_numpy(_numpy_counts(index.numpy(), w, bins, _dtypes.from_torch(dtype).np))

    lib.impl("histogram_counts", counts, "CPU")
    torch.library.register_fake("torch_numpy_shim::histogram_counts", lib=lib)(
        lambda index, weights, bins, dtype: index.new_empty((bins,), dtype=dtype))
    _LIBRARIES.append(lib)   # the registrations last as long as the library object
    return torch.ops.torch_numpy_shim.histogram_counts.default


_LIBRARIES = []


def _numpy_counts(index, weights, bins, dt):
    """NumPy's histogram loop: per block, a bincount (float64 sums of the weights) cast
    to ``dt`` and added (complex: the parts, each added in float64)."""
    n = numpy.zeros(bins, dt)
    for i in range(0, len(index), _BLOCK):
        block = index[i:i + _BLOCK]
        if weights is None:
            n += numpy.bincount(block, minlength=bins + 1)[:bins]
        elif dt.kind == "c":
            part = weights[i:i + _BLOCK]
            n.real += numpy.bincount(block, weights=part.real, minlength=bins + 1)[:bins]
            n.imag += numpy.bincount(block, weights=part.imag, minlength=bins + 1)[:bins]
        else:
            n += numpy.bincount(block, weights=weights[i:i + _BLOCK], minlength=bins + 1)[:bins].astype(dt)
    return n


def _search_inclusive(sorted_data, edges):
    """Counts of data below each edge, the last edge inclusive (NumPy's
    _search_sorted_inclusive), NaNs of the data sorted after every edge as in NumPy."""
    return torch.cat([insertion_points(sorted_data, edges[:-1]),
                      insertion_points(sorted_data, edges[-1:], right=True)])


def _sample_columns(sample):
    """NumPy's histogramdd input: an (N, D) array, or a sequence of D arrays of length N."""
    if isinstance(sample, (ndarray, numpy.ndarray)):
        s = asarray(sample)
        if s.ndim == 2:
            return s._t
    s = asarray(sample)
    t = s._t
    t = t.reshape((1,) * (2 - t.ndim) + tuple(t.shape)) if t.ndim < 2 else t
    return t.T


@normalizer
def histogramdd(sample, bins=10, range=None, density=None, weights: OptionalArrayLike = None):
    data = _sample_columns(sample)
    if data.ndim != 2:
        raise ValueError("too many values to unpack (expected 2)")
    if data.is_complex():
        raise UnsupportedError("histogram of complex data (NumPy orders it lexicographically)")
    n_samples, dims = data.shape
    try:
        if len(bins) != dims:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = dims * [bins]
    if range is None:
        range = (None,) * dims
    elif len(range) != dims:
        raise ValueError("range argument must have one entry per dimension")
    edges, index = [], []
    for i in builtins.range(dims):
        column = data[:, i]
        if numpy.ndim(bins[i]) == 0:
            if bins[i] < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            first, last, given = _outer_edges(column, range[i])
            try:
                count = operator.index(bins[i])
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            if given is not None:  # constants: NumPy's own linspace
                edge = torch.tensor(numpy.linspace(given[0], given[1], count + 1), device=data.device)
            else:
                compute = _promotion.result_type(_dtypes.from_torch(first.dtype), 0.0)
                edge = _edges_linspace(first, last, count + 1, compute, compute)
            edges.append(ndarray._wrap(edge))
        elif numpy.ndim(bins[i]) == 1:
            edge_array = asarray(bins[i])
            edge = edge_array._t
            raise_if(edge[:-1] > edge[1:], ValueError(
                f"`bins[{i}]` must be monotonically increasing, when an array"))
            edges.append(edge_array)
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        e, c = _common(edge, column)
        position = torch.searchsorted(e, c, side="right")
        on_edge = c == e[-1:]
        index.append(position - on_edge.to(position.dtype))
    sizes = [e.shape[0] + 1 for e in edges]
    flat = torch.zeros(n_samples, dtype=torch.int64, device=data.device)
    for position, size in zip(index, sizes):
        flat = flat * size + position
    if weights is not None and weights._t.is_complex():
        raise TypeError("Cannot cast array data from dtype('complex128') to dtype('float64') "
                        "according to the rule 'safe'")
    contrib = torch.ones(n_samples, dtype=torch.float64, device=data.device) if weights is None else \
        weights._t.reshape(-1).to(device=data.device, dtype=torch.float64)
    total = math.prod(sizes)
    hist = torch.zeros(total, dtype=torch.float64, device=data.device).index_add_(0, flat, contrib).reshape(sizes)
    hist = hist[(slice(1, -1),) * dims]
    if density:
        s = hist.sum()
        for i, e in enumerate(edges):
            shape = [1] * dims
            shape[i] = sizes[i] - 2
            widths = e._t[1:] - e._t[:-1]
            width_dt = _promotion.result_type(_dtypes.from_torch(widths.dtype), F64)
            hist = hist / cast_tensor(widths, width_dt).reshape(shape)
        hist = hist / s
    return ndarray._wrap(hist), edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        edges = asarray(bins)
        bins = [edges, edges]
    x, y = asarray(x), asarray(y)
    if x.shape != y.shape:   # NumPy's own check, before histogramdd's
        raise ValueError("x and y must have the same length.")
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


# ---- counting and binning --------------------------------------------------------------
@normalizer
def bincount(x, weights: OptionalArrayLike = None, minlength=0):
    # NumPy converts x straight to intp: an empty list is no float array there
    sequence = isinstance(x, (list, tuple))
    x = asarray(x, dtype=_dtypes.int64.dtype) if sequence and len(x) == 0 else asarray(x)
    if sequence and x.ndim > 1:
        raise ValueError("setting an array element with a sequence. The requested array would exceed the "
                         "maximum number of dimension of 1.")
    if x.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if x.dtype.kind not in "biu":  # uint64 passes as NumPy's same-kind cast (wrapping)
        raise TypeError(f"Cannot cast array data from {x.dtype.np!r} to dtype('int64') according "
                        f"to the rule 'safe'")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    t = _int_image(x._t).to(torch.int64)
    raise_if(t < 0, ValueError("'list' argument must have no negative elements"))
    if weights is None:
        return ndarray._wrap(torch.bincount(t, minlength=minlength))
    if not _promotion.can_cast(weights.dtype, F64, "safe"):
        raise TypeError(f"Cannot cast array data from {weights.dtype.np!r} to dtype('float64') "
                        f"according to the rule 'safe'")
    w = weights._t.reshape(-1) if weights.ndim else weights._t
    if w.ndim != 1 or w.shape[0] != t.shape[0]:
        raise ValueError("The weights and list don't have the same length.")
    return ndarray._wrap(torch.bincount(t, weights=w.to(device=t.device, dtype=torch.float64),
                                        minlength=minlength))


@normalizer
def digitize(x: ArrayLike, bins: ArrayLike, right=False):
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1
                         else "object of too small depth for desired array")
    b = bins._t.to(x._t.device)
    increasing = (b[1:] >= b[:-1]).all()
    decreasing = (b[1:] <= b[:-1]).all()
    raise_if(~(increasing | decreasing), ValueError("bins must be monotonically increasing or decreasing"))
    side = "left" if right else "right"
    edges, values = _common(b, x._t)
    ascending = edges.flip(0)
    forward = torch.searchsorted(edges, values.reshape(-1), side=side)
    backward = b.shape[0] - torch.searchsorted(ascending, values.reshape(-1), side=side)
    chosen = torch.where(increasing | (b.shape[0] < 2), forward, backward)
    return ndarray._wrap(chosen.reshape(x._t.shape), scalar=x.ndim == 0)
