"""Reductions and accumulations (sum, mean, std, min, argmax, cumsum, any, the nan-
variants, ...) with NumPy's result dtypes, axis rules, empty-array rules, NaN rules and
``out=``/``where=``/``initial=`` handling.

How values are computed, chosen from dtype metadata only:
- integer and bool accumulations run in int64 and are cast back: wrap-around modulo
  2**bits is the same whatever the width, so this is bit-exact for every integer
  dtype, including uint16/32/64 that torch cannot reduce (uint64 travels as its bits);
- min/max/argmin/argmax order uint64 through a sign-flipped int64 view and complex
  numbers lexicographically (real part, then imaginary part), as NumPy does;
- mean, var and std follow the steps of NumPy's own ``_methods`` (sum in the loop
  dtype, store, divide in place), so ``out=`` of any dtype casts exactly as NumPy's.

float16 sums, products and running sums/products are NumPy's own loop's on the CPU
(``_half_scan``): NumPy rounds every step of a scan and of a reduction across the
memory's inner axis, which no torch reduction reproduces. Elsewhere float16 sums and
products accumulate in float32 and round once (NumPy's way along contiguous data).

A product that overflows, underflows or meets inf/NaN depends on the order of the
multiplications (0 * inf is NaN); where it can, NumPy's own loop answers (see
``_product_order``), and under npcompile the call reruns as written.
"""
import builtins
import math
import operator

import numpy
import torch

from . import _dtypes, _errors, _fp_errors, _graph_warnings, _half_scan, _layout, _promotion, _self_overlap
from . import _ufunc_kernels as K
from ._coerce import asarray, cast_tensor, check_python_int_fits
from ._detours import orderable
from ._errors import ComplexWarning, UFuncOutputCastingError, raise_if
from ._graph_warnings import warn_each_run, warn_if, warn_when
from ._ndarray import ndarray
from ._normalize import (
    NO_VALUE,
    ArrayLike,
    AxisLike,
    DTypeLike,
    OutArray,
    _is_ravel_axis,
    counted_axes,
    holds_arrays,
    normalize_axis,
    normalize_axis_tuple,
    normalizer,
    ufunc_axis,
    where_mask,
)
from ._product_order import NARROW, accumulation_order_matters, numpy_answer, product_order_matters
from ._ufunc_kernels import complex_from_parts

__all__ = [
    "sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "argmin", "argmax",
    "ptp", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "any", "all",
    "count_nonzero",
    "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "nanargmin",
    "nanargmax", "nancumsum", "nancumprod",
]

# ---- dtypes --------------------------------------------------------------------------------
def _is_integral(dt):
    return dt.kind in "biu"


def _is_inexact(dt):
    return dt.kind in "fc"


def _loop_dtype(input_dt, dtype, out):
    """The dtype NumPy accumulates in: ``dtype=``, else the promotion of the input with
    out's dtype (float16 into a float32 ``out`` sums in float32; uint64 into an int64
    ``out`` sums in float64), else the default accumulator."""
    if dtype is not None:
        return dtype
    if out is not None:
        return _dtypes.promote_types(input_dt, out.dtype)
    return _dtypes.sum_dtype(input_dt)


def _from_torch(t):
    return _dtypes.from_torch(t.dtype)


# ---- exact integer arithmetic through int64 -------------------------------------------------
def _int64_bits(t):
    """An integer/bool tensor as int64 with the same value modulo 2**64."""
    return t.view(torch.int64) if t.dtype == torch.uint64 else t.to(torch.int64)


def _from_int64_bits(t, dt):
    return t.view(torch.uint64) if dt.torch == torch.uint64 else t.to(dt.torch)


def _exact(op, dt, *tensors):
    """``op`` on tensors of dtype ``dt`` with NumPy's wrap-around for integers."""
    if not _is_integral(dt):
        return op(*tensors)
    return _from_int64_bits(op(*(_int64_bits(t) for t in tensors)), dt)


def _add_or_subtract(op, dt, x, y):
    """``op`` (torch.add/torch.sub) as NumPy computes it. Complex parts are combined one
    by one: torch adds complex tensors as ``x + 1*y``, and that complex multiply turns
    an infinite part into NaN (0 * inf) where NumPy keeps it."""
    if dt.kind == "c":
        return complex_from_parts(op(x.real, y.real), op(x.imag, y.imag))
    return _exact(op, dt, x, y)


# ---- axes, masks, results -------------------------------------------------------------------
def _ufunc_axes(a, axis):
    """Axes as NumPy's ufunc reductions read them: a 0-D array also accepts the int
    axis 0 or -1 (and reduces nothing); tuples are checked strictly."""
    if a.ndim == 0 and axis is not None and not isinstance(axis, (tuple, list)) and operator.index(axis) in (0, -1):
        return ()
    return normalize_axis_tuple(axis, a.ndim)


def _statistic_axes(a, axis, mask):
    """mean/var/std count items from the shape, so their axes are strict (range checked
    before the sum refuses a bool); with a ``where=`` array NumPy counts with a sum
    instead and the ufunc rules apply."""
    if mask is not None:
        return _ufunc_axes(a, ufunc_axis(axis))
    return counted_axes(axis, a.ndim)


def _single_axis(a, axis):
    """cumsum/argmax-style ``axis``: one int or None (flattened); 0-D acts as 1-D."""
    t = a._t.reshape(-1) if axis is None or a.ndim == 0 else a._t
    return t, (0 if axis is None else normalize_axis(axis, t.ndim))


def _keepdims(keepdims):
    if keepdims is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    return builtins.bool(keepdims)


def _result_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _reduced_size(shape, axes):
    return math.prod(shape[i] for i in axes)


def _over(t, axes):
    """(tensor, dims) for torch's reductions: torch reads ``dim=()`` as every dim,
    NumPy as none, so an empty ``axes`` reduces over a new unit axis instead."""
    return (t, axes) if axes else (t.unsqueeze(-1), (t.ndim,))


def _to_last(t, axes):
    """Move the reduced axes to the end, flattened into one dim in C order (the order
    NumPy visits them, which decides which NaN or tie comes first)."""
    kept = [i for i in range(t.ndim) if i not in axes]
    t = t.permute(kept + list(axes))
    return t.reshape(*t.shape[:len(kept)], _reduced_size(t.shape, range(len(kept), t.ndim)))


def _where_mask(where, shape):
    """``where=`` as a boolean tensor broadcast to ``shape``, or None for True."""
    mask = where_mask(where)
    if mask is None:
        return None
    if not _broadcasts_to(tuple(mask.shape), shape):
        raise ValueError(f"operands could not be broadcast together with shapes {shape} {tuple(mask.shape)}")
    return mask.expand(shape)


def _where_weights(where, shape):
    """What NumPy's mean/var/std count per item for a ``where=`` that is not boolean:
    ``add.reduce(broadcast_to(where, shape), dtype=intp)`` casts its items unsafely, so
    ``where=[1, 0, 2]`` counts 3 items where the sum takes two (NumPy's quirk, matched;
    an array of another dtype is counted so too, before its TypeError). None (count the
    mask) for booleans and for what does not broadcast."""
    if where is True:
        return None
    if isinstance(where, (ndarray, numpy.ndarray)) or holds_arrays(where):
        values = asarray(where)
        if values.dtype.kind == "b" or not _broadcasts_to(values.shape, shape):
            return None
        return loop_input(values._t, _dtypes.int64.dtype, "cast").expand(shape)
    values = numpy.asarray(where)
    if values.dtype.kind == "b":
        return None
    return torch.from_numpy(numpy.broadcast_to(values, shape).astype(numpy.intp))


def _statistic_mask(where, shape):
    """mean/var/std's (mask, weights, refusal): NumPy counts the items (warning for
    short slices) before its sum refuses a mask that is not boolean (the TypeError)."""
    weights = _where_weights(where, shape)
    try:
        return _where_mask(where, shape), weights, None
    except TypeError as error:
        if weights is None:
            raise
        return None, weights, error


def _broadcasts_to(src, dst):
    return len(src) <= len(dst) and builtins.all(
        s == 1 or s == d for s, d in zip(reversed(src), reversed(dst)))


def _initial_tensor(initial, dt):
    """``initial=`` in the loop dtype: Python ints must fit it (OverflowError), other
    values cast unsafely, as NumPy converts them."""
    check_python_int_fits(initial, dt)
    return cast_tensor(asarray(initial)._t, dt)


def _store(t, out):
    """Cast ``t`` into ``out`` unsafely (reductions cast their output that way); the
    shape must be the reduction's own, NumPy does not broadcast here."""
    if out.shape != tuple(t.shape):
        raise ValueError(f"output parameter for reduction has shape {out.shape}, "
                         f"expected {tuple(t.shape)}")
    if _self_overlap.overlaps(out._t):
        raise _errors.UnsupportedError("a reduction into an out= whose items share memory (an np.broadcast_arrays "
                               "result: NumPy accumulates each item into the shared memory)")
    warn_complex_to_real(t, out.dtype, 2)
    if _fp_errors.watching():   # NumPy casts into out= in its reduce: NaN to an int is 'invalid ... in reduce'
        _fp_errors.report(_fp_errors.cast_flags(t, out.dtype.torch), "reduce")
    _self_overlap.store(out._t, cast_tensor(t, out.dtype))
    return out


def warn_complex_to_real(t, dt, times):
    """NumPy's ComplexWarning for a complex result cast into a real ``out=`` of shim
    dtype ``dt`` (a reduction twice: its first items copied into ``out``, then the result;
    a ufunc or scan once)."""
    _graph_warnings.warn_complex_to_real(t.dtype, dt.torch, times)


def _deliver(t, out):
    """A reduction's result: into ``out`` if given, else an array, or a NumPy scalar
    when 0-D (NumPy returns scalars for 0-D reduction results, keepdims or not)."""
    if out is not None:
        return _store(t, out)
    return ndarray._wrap(t, scalar=t.ndim == 0)


def _shaped(t, a, axes, keepdims):
    """A keepdims=False reduction result of ``a`` reshaped for ``keepdims``, laid out as
    NumPy's: its axes in the stride order of ``a``'s (its iterator allocates the result
    in the input's memory order: a Fortran input gives a Fortran result)."""
    t = t.reshape(_result_shape(a.shape, axes, True)) if keepdims else t
    source = a._t
    if t.ndim <= 1 or source.is_contiguous():
        return t
    kept = list(range(source.ndim)) if keepdims else [d for d in range(source.ndim) if d not in axes]
    slowest_first = sorted(range(t.ndim), key=lambda i: -abs(source.stride(kept[i])))   # stable, as NumPy's
    if slowest_first == list(range(t.ndim)):
        return t
    return _layout.empty_with_axes(t.shape, t.dtype, slowest_first, t.device).copy_(t)


# ---- the loop's input -----------------------------------------------------------------------
def loop_input(t, loop, name):
    """``t`` cast to the loop dtype as NumPy casts a reduction's or scan's input (all of
    it, ``where=`` or not): a complex input to a real loop warns ComplexWarning (its
    dtypes decide: under npcompile the graph warns on each run); a float input raises
    the cast's flags (NaN, inf or out of range to an integer: invalid; to a narrower
    float: overflow), which NumPy reports as ``name``: 'reduce' (in the reduction's own
    report), 'cast' for the scans (eager only, as every floating-point report)."""
    if t.dtype == loop.torch:
        return t
    if t.is_complex() and not loop.torch.is_complex and loop.torch != torch.bool:
        warn_each_run("Casting complex values to real discards the imaginary part", ComplexWarning)
    if _fp_errors.watching():
        flags = _fp_errors.cast_flags(t, loop.torch)
        (_fp_errors.report if name == "reduce" else _fp_errors.report_apart)(flags, name)
    return cast_tensor(t, loop)


# ---- sum and prod -----------------------------------------------------------------------------
def _sum_tensor(t, axes, loop, mask=None):
    """Sum over ``axes`` (keepdims=False) in dtype ``loop``; masked-out items count 0.
    The cast into the loop and the sum report their flags once, as NumPy's reduce."""
    if t.dtype != loop.torch:
        with _fp_errors.as_one("reduce"):
            return _sum_tensor(loop_input(t, loop, "reduce"), axes, loop, mask)
    if _numpy_half_loop(t, axes, loop):
        return _half_scan.reduce(t, axes, False, mask)
    x = cast_tensor(t, loop)
    if mask is not None:
        x = torch.where(mask, x, torch.zeros((), dtype=x.dtype))
    return _reported(x, axes, _exact(lambda v: K.float_sum(*_over(v, axes)), loop, x))


def _numpy_half_loop(t, axes, loop):
    """A float16 sum or product NumPy's own loop computes (_half_scan): on the CPU,
    over some axis."""
    return loop.torch == torch.float16 and builtins.bool(axes) and t.device.type == "cpu"


def _reported(x, axes, r, name="reduce"):
    """``r``, NumPy's add/multiply.reduce (``axes``; None: accumulate) of ``x``, after
    reporting its overflow / invalid flags as NumPy does (eager only)."""
    if _fp_errors.watching():
        _fp_errors.report(_fp_errors.reduction_flags("add", x, axes, r), name)
    return r


def _prod_tensor(t, axes, loop, mask=None, order_checked=False):
    """Product over ``axes``; float16 multiplies in float32 and rounds once, as NumPy's
    loop does along contiguous data (so 256 * 256 * 0 is 0, not inf * 0); other floats
    in NumPy's order where the order matters (unless ``order_checked``)."""
    if t.dtype != loop.torch:
        with _fp_errors.as_one("reduce"):
            return _prod_tensor(loop_input(t, loop, "reduce"), axes, loop, mask, order_checked)
    if _numpy_half_loop(t, axes, loop):
        return _half_scan.reduce(t, axes, True, mask)
    x = cast_tensor(t, loop)
    ordered = None if order_checked else _ordered_product(x, axes, mask, None)
    if ordered is not None:
        return ordered
    factors = x if mask is None else torch.where(mask, x, torch.ones((), dtype=x.dtype))
    if x.dtype == torch.float16:
        return _reported(factors, axes, torch.prod(_to_last(factors.to(torch.float32), axes), -1).to(torch.float16))
    return _reported(factors, axes, _exact(lambda v: torch.prod(_to_last(v, axes), -1), loop, factors))


def _ordered_product(x, axes, mask, start):
    """NumPy's ``multiply.reduce`` of float ``x`` (from ``start``, a 0-d tensor, if not
    None) where the order of its steps may matter; else None (see _in_numpy_order)."""
    if not (x.is_floating_point() or x.is_complex()):
        return None

    def order_matters():
        factors = x if mask is None else torch.where(mask, x, torch.ones((), dtype=x.dtype))
        factors = _to_last(factors, axes)
        if start is not None:
            factors = torch.cat([start.expand(*factors.shape[:-1], 1), factors], -1)
        return product_order_matters(factors)

    def reduce(a, *m):
        initial = {} if start is None else {"initial": start.item()}
        return numpy.multiply.reduce(a, axis=axes, where=m[0] if m else True, **initial)

    return _in_numpy_order(order_matters, lambda: numpy_answer(reduce, [x] if mask is None else [x, mask], "reduce"))


def _in_numpy_order(order_matters, answer):
    """``answer()`` (NumPy's loop) where ``order_matters()`` (a bool tensor) holds, else
    None. While npcompile traces, the condition is deferred as a value check instead:
    the compiled call reruns as written where it holds (nothing without npcompile)."""
    if _fp_errors.tracing():
        _defer(order_matters)
        return None
    return answer() if builtins.bool(order_matters()) else None


def _defer(condition):
    """While npcompile traces (``raise_if`` collects its checks), ``condition()`` (a bool
    tensor) makes the compiled call rerun as written where it holds: for answers and
    warnings only NumPy's own run gives. Plain tracing (make_fx alone) skips it."""
    if _errors._check_collector is not None:
        raise_if(condition(), AssertionError("a deferred check is never raised"))


def _check_has_identity(name, mask, reduced_size):
    """Reductions without an identity (min/max, or sum/prod with ``initial=None``)
    refuse empty and masked reductions (a selection's row count: a value check)."""
    if mask is not None:
        raise ValueError(f"reduction operation '{name}' does not have an identity, so to use "
                         "a where mask one has to specify 'initial'")
    empty = ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if _data_dependent(reduced_size):
        raise_if(_count_tensor(reduced_size) == 0, empty)
    elif reduced_size == 0:
        raise empty


def _data_dependent(size):
    """A size only the data knows while tracing (``x[mask]``'s row count, an unbacked
    SymInt): comparing it would stop the trace, so checks on it are value checks."""
    if not isinstance(size, torch.SymInt):
        return False
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols  # loaded by tracing
    return builtins.bool(free_unbacked_symbols(size))


def _count_tensor(count):
    """A count (int, SymInt or tensor) as an int64 tensor."""
    return count if isinstance(count, torch.Tensor) else torch.scalar_tensor(count, dtype=torch.int64)


def _warn_while_tracing(count, short, message):
    """While npcompile traces, a count for which NumPy warns (``short``). Known now: the
    graph warns each time it runs (warn_if). Known only to the data (``x[mask]``'s rows,
    a ``where=`` sum): a condition the compiled call reads with its value checks
    (warn_when), as an op that read it on every run would cost more than a ring loop's
    whole step (~13 us each, 80 per azimint_bins call)."""
    if _errors._check_collector is None:
        return
    if isinstance(count, torch.Tensor) or _data_dependent(count):
        warn_when(short(_count_tensor(count)), message)
    elif short(count):
        warn_if(torch.ones((), dtype=torch.bool), message)


def _sum_or_prod(a, axis, dtype, out, keepdims, initial, where, product):
    axes = _ufunc_axes(a, axis)
    keepdims = _keepdims(keepdims)
    mask = _where_mask(where, a.shape)
    if initial is None:
        _check_has_identity("multiply" if product else "add", mask, _reduced_size(a.shape, axes))
    loop = _loop_dtype(a.dtype, dtype, out)
    if initial is None or initial is NO_VALUE:
        r = (_prod_tensor if product else _sum_tensor)(a._t, axes, loop, mask)
    else:
        with _fp_errors.as_one("reduce"):   # NumPy's reduce starts from initial: one report
            r = _from_initial(a._t, axes, loop, mask, initial, product)
    return _deliver(_shaped(r, a, axes, keepdims), out)


def _from_initial(t, axes, loop, mask, initial, product):
    """The reduction of ``t`` combined with ``initial``, flags reported as one step."""
    t = loop_input(t, loop, "reduce")
    start = _initial_tensor(initial, loop)
    if _numpy_half_loop(t, axes, loop) and not isinstance(initial, complex):
        return _half_scan.reduce(t, axes, product, mask, float(initial))
    ordered = _ordered_product(cast_tensor(t, loop), axes, mask, start) if product else None
    if ordered is not None:
        return ordered
    total = _prod_tensor(t, axes, loop, mask, order_checked=True) if product else _sum_tensor(t, axes, loop, mask)
    r = _exact(torch.mul, loop, total, start) if product else _add_or_subtract(torch.add, loop, total, start)
    if _fp_errors.watching():
        name = "multiply" if product else "add"
        _fp_errors.report(_fp_errors.flags(name, [total, start], [r]), "reduce")
    if not product and _negative_zero(initial) and loop.torch.is_floating_point:
        r = _negative_zero_sum(t, axes, mask, r)
    return r


def _negative_zero(value):
    """``value`` is the float -0.0 (a Python or NumPy scalar)."""
    return isinstance(value, (float, numpy.floating)) and value == 0 and math.copysign(1.0, value) < 0


def _negative_zero_sum(x, axes, mask, r):
    """NumPy's sum from ``initial=-0.0`` is -0.0 where every item added is -0.0 (an
    empty or masked-out slice included): torch's sum starts from +0.0 and -0.0 + +0.0
    is +0.0. Any other item makes a zero sum +0.0, as IEEE addition rounds."""
    negative = (x == 0) & torch.signbit(x)
    if mask is not None:
        negative = negative | ~mask
    every = negative.all(dim=axes) if axes else negative
    return torch.where(every & (r == 0), torch.full_like(r, -0.0), r)


@normalizer
def sum(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
        keepdims=False, initial=NO_VALUE, where=True):
    return _sum_or_prod(a, axis, dtype, out, keepdims, initial, where, product=False)


@normalizer
def prod(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
         keepdims=False, initial=NO_VALUE, where=True):
    return _sum_or_prod(a, axis, dtype, out, keepdims, initial, where, product=True)


# ---- mean, var, std ------------------------------------------------------------------------
def _count(shape, axes, mask):
    """How many items each result element reduces (an int, or a tensor with where=)."""
    if mask is None:
        return _reduced_size(shape, axes)
    return torch.sum(*_over(mask.to(torch.int64), axes))


def _divide(t, count):
    """NumPy's ``true_divide(t, count, out=t, casting='unsafe')``. NumPy divides by an
    intp count in float64; torch would make a count tensor float16 for a float16 ``t``
    (2731 -> 2732), so that one divides in float32 (exact counts, and a float32
    quotient rounds to float16 as a float64 one does)."""
    dt = _from_torch(t)
    if _is_integral(dt):
        quotient = t.to(torch.float64) / count
    elif t.dtype == torch.float16 and isinstance(count, torch.Tensor):
        quotient = t.to(torch.float32) / count
    else:
        quotient = t / count
    return cast_tensor(quotient, dt)


def _divide_into(total, count, out):
    """``sum(..., out=out)`` then ``true_divide(out, count, out=out)``, or the scalar/
    array path without ``out``."""
    if out is None:
        return _divide(total, count)
    _store(total, out)
    if isinstance(count, torch.Tensor) and count.ndim:
        count = count.reshape(out.shape)
    out._t.copy_(_divide(out._t, count))
    return out


def _any_zero(count):
    return builtins.bool((count == 0).any()) if isinstance(count, torch.Tensor) else count == 0


def _any_short(count, ddof):
    """Some slice has no more items than ``ddof``: NumPy's 'Degrees of freedom <= 0'."""
    return builtins.bool((count <= ddof).any()) if isinstance(count, torch.Tensor) else count <= ddof


def _division_name(total, count, out):
    """NumPy divides an array result in place ('divide'); a scalar one as a scalar,
    which float64 and complex128 do in scalar math ('scalar divide') and the other
    dtypes, meeting the intp count, through the ufunc ('divide')."""
    scalar = out is None and total.ndim == 0
    wide = total.dtype in (torch.float64, torch.complex128)
    return "scalar divide" if scalar and wide else "divide"


def _report_division(total, count, name):
    """NumPy's flags for ``total / count`` where the count is 0: 0/0 is invalid, a
    finite non-zero total divides by zero (eager only)."""
    if not _fp_errors.watching() or total.numel() == 0:
        return
    zero = count == 0 if isinstance(count, torch.Tensor) else torch.tensor(count == 0)
    finite = torch.isfinite(total) if not total.is_complex() else torch.isfinite(total.abs())
    flags = _fp_errors.DIVIDE if builtins.bool((zero & finite & (total != 0)).any()) else 0
    flags |= _fp_errors.INVALID if builtins.bool((zero & (total == 0)).any()) else 0
    _fp_errors.report(flags, name)


def _mean(a, axes, dtype, out, keepdims, mask, weights=None, refused=None):
    half_precision = dtype is None and a.dtype is _dtypes.float16.dtype
    if dtype is None and _is_integral(a.dtype):
        dtype = _dtypes.float64.dtype
    elif half_precision:
        dtype = _dtypes.float32.dtype  # NumPy sums float16 in float32, then rounds back
    loop = _loop_dtype(a.dtype, dtype, out)
    count = _count(a.shape, axes, mask if weights is None else weights)
    empty = not _fp_errors.tracing() and _any_zero(count)
    if empty:   # NumPy warns before it sums (the sum's own warnings follow)
        _fp_errors.warn("Mean of empty slice")
    if refused is not None:
        raise refused
    total = _shaped(_sum_tensor(a._t, axes, loop, mask), a, axes, keepdims)
    if isinstance(count, torch.Tensor):
        count = count.reshape(total.shape)
    if _fp_errors.tracing():
        _warn_while_tracing(count, lambda n: n == 0, "Mean of empty slice")
    elif empty:
        _report_division(total, count, _division_name(total, count, out))
    result = _divide_into(total, count, out)
    if out is not None:
        return result
    return _deliver(result.to(torch.float16) if half_precision else result, None)


@normalizer
def mean(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
         keepdims=False, *, where=True):
    mask, weights, refused = _statistic_mask(where, a.shape)
    return _mean(a, _statistic_axes(a, axis, mask), dtype, out, _keepdims(keepdims), mask, weights, refused)


def _ddof(ddof, correction):
    if correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


def _squared_magnitude(x, dt):
    """|x|**2 in x's real dtype (integers wrap as NumPy's square does)."""
    if dt.kind == "c":
        return x.real * x.real + x.imag * x.imag
    return _exact(torch.mul, dt, x, x)


def _variance(a, axes, dtype, out, ddof, keepdims, mask, mean_, weights=None, refused=None):
    """NumPy's ``_var``: mean (kept dims), squared deviations, their sum in the loop
    dtype, divided by max(count - ddof, 0)."""
    if dtype is None and _is_integral(a.dtype):
        dtype = _dtypes.float64.dtype
    count = _count(a.shape, axes, mask if weights is None else weights)
    if _fp_errors.tracing():
        _warn_while_tracing(count, lambda n: n <= ddof, "Degrees of freedom <= 0 for slice")
    short = not _fp_errors.tracing() and _any_short(count, ddof)
    if short:
        _fp_errors.warn("Degrees of freedom <= 0 for slice")
    if refused is not None:
        raise refused
    if mean_ is None:
        kept = _result_shape(a.shape, axes, True)
        total = _sum_tensor(a._t, axes, dtype or _dtypes.sum_dtype(a.dtype), mask).reshape(kept)
        kept_count = count.reshape(kept) if isinstance(count, torch.Tensor) else count
        if short and _any_zero(kept_count):
            _report_division(total, kept_count, "divide")
        center = ndarray._wrap(_divide(total, kept_count))
    else:
        center = asarray(mean_)
        if not _broadcasts_to(center.shape, a.shape):
            raise ValueError(f"operands could not be broadcast together with shapes {a.shape} "
                             f"{center.shape}")
    deviation_dt = _promotion.result_type(a, center if mean_ is None else mean_)
    if deviation_dt.kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported")
    operands = (cast_tensor(a._t, deviation_dt), cast_tensor(center._t, deviation_dt))
    deviation = _add_or_subtract(torch.sub, deviation_dt, *operands)
    squares = _squared_magnitude(deviation, deviation_dt)
    if _fp_errors.watching():
        _report_deviations(operands, deviation, squares, "square", None)
    loop = _loop_dtype(_from_torch(squares), dtype, out)
    total = _shaped(_sum_tensor(squares, axes, loop, mask), a, axes, keepdims)
    if isinstance(count, torch.Tensor) or _data_dependent(count):
        dof = torch.clamp(_count_tensor(count) - ddof, min=0).reshape(total.shape)
    else:
        dof = builtins.max(count - ddof, 0)
    if short:
        _report_division(total, dof, _division_name(total, dof, out))
    return _divide_into(total, dof, out)


def _report_deviations(operands, deviation, squares, name, mask):
    """NumPy's var steps ``subtract(a, mean)`` then ``square`` (nanvar: ``multiply``;
    complex: ``square`` of the parts, then their ``add``) report as the ufuncs do."""
    flags = _fp_errors.flags
    _fp_errors.report(flags("subtract", list(operands), [deviation], mask), "subtract")
    if deviation.is_complex():
        parts = torch.view_as_real(deviation)
        part_squares = parts * parts
        _fp_errors.report(flags("square", [parts], [part_squares]), "square")
        _fp_errors.report(flags("add", [part_squares[..., 0], part_squares[..., 1]], [squares]), "add")
        return
    inputs = [deviation] if name == "square" else [deviation, deviation]
    _fp_errors.report(flags(name, inputs, [squares], mask), name)


def _sqrt_result(variance, out):
    """NumPy's std step: ``sqrt(var, out=var)`` for arrays (a TypeError when that
    array is integral), ``type(var)(sqrt(var))`` for scalars."""
    t = variance._t if isinstance(variance, ndarray) else variance
    dt = _from_torch(t)
    array_result = out is not None or t.ndim > 0
    if _is_integral(dt):
        if array_result:
            sqrt_dt = numpy.sqrt(numpy.zeros(0, dt.np)).dtype
            raise UFuncOutputCastingError(numpy.sqrt, "same_kind", sqrt_dt, dt.np, 0)
        return _scalar_root(t, dt)
    if out is not None:
        out._t.copy_(torch.sqrt(out._t))
        return out
    return torch.sqrt(t)


def _scalar_root(t, dt):
    """``dt.type(sqrt(t))`` for an integral scalar ``t``: sqrt in float64, then a cast
    back, each reporting its flags as NumPy's ('sqrt', 'cast')."""
    wide = t.to(torch.float64)
    root = torch.sqrt(wide)
    if _fp_errors.watching():
        _fp_errors.report(_fp_errors.flags("sqrt", [wide], [root]), "sqrt")
        _fp_errors.report(_fp_errors.cast_flags(root, dt.torch), "cast")
    return cast_tensor(root, dt)


def _deliver_variance(result, out, root):
    """var's result (std's with ``root``), into ``out`` or as a reduction's result."""
    if root:
        result = _sqrt_result(result, out)
    return result if out is not None else _deliver(result, None)


def _var_or_std(a, axis, dtype, out, ddof, keepdims, where, mean_, correction, root):
    mask, weights, refused = _statistic_mask(where, a.shape)
    axes = _statistic_axes(a, axis, mask)
    result = _variance(a, axes, dtype, out, _ddof(ddof, correction), _keepdims(keepdims), mask, mean_,
                       weights, refused)
    return _deliver_variance(result, out, root)


def _entry_point(name, function):
    """``function`` as NumPy's ``name``, its annotated arguments normalized: for the
    public functions that differ only in the flags they hand one worker."""
    function.__name__ = function.__qualname__ = name
    return normalizer(function)


def _variance_function(name, worker, root):
    """var, std, nanvar and nanstd: NumPy's one signature over ``worker``
    (_var_or_std or _nan_var_or_std); ``root`` makes it the standard deviation."""
    def function(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
                 ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
        return worker(a, axis, dtype, out, ddof, keepdims, where, mean, correction, root)
    return _entry_point(name, function)


var = _variance_function("var", _var_or_std, root=False)
std = _variance_function("std", _var_or_std, root=True)


# ---- min and max -----------------------------------------------------------------------------
def _first_true(mask):
    """Index of the first True along the last dim (0 when there is none)."""
    return torch.argmax(mask.to(torch.uint8), -1)


def _complex_extreme_index(x, largest, skip_nan):
    """First index of the lexicographic max/min along the last dim. An item with a NaN
    part wins at once (NumPy propagates the first NaN) unless ``skip_nan``."""
    pick = torch.amax if largest else torch.amin
    worst = -math.inf if largest else math.inf
    re, im = x.real, x.imag
    nan = torch.isnan(re) | torch.isnan(im)
    best_re = pick(torch.where(nan, worst, re), -1, keepdim=True)
    tie = ~nan & (re == best_re)
    best_im = pick(torch.where(tie, im, worst), -1, keepdim=True)
    hit = tie & (im == best_im)
    if not skip_nan:
        hit = torch.where(nan.any(-1, keepdim=True), nan, hit)
    return _first_true(hit)


def _extreme_index(x, largest):
    """argmax/argmin along the last dim: first occurrence, the first NaN for floats."""
    if x.is_complex():
        return _complex_extreme_index(x, largest, skip_nan=False)
    y, _ = orderable(x)
    return torch.argmax(y, -1) if largest else torch.argmin(y, -1)


def _extreme_value(x, largest, skip_nan, dims=-1):
    """max/min over ``dims`` (the last dim; any dims of a real ``x``), non-empty: NaN
    propagates, or is skipped (then an all-NaN slice gives NaN, like NumPy's fmax/fmin)."""
    if x.is_complex():
        index = _complex_extreme_index(x, largest, skip_nan)
        return x.gather(-1, index.unsqueeze(-1)).squeeze(-1)
    pick = torch.amax if largest else torch.amin
    if skip_nan and x.is_floating_point():
        nan = torch.isnan(x)
        value = pick(torch.where(nan, -math.inf if largest else math.inf, x), dims)
        return torch.where(torch.all(nan, dims), math.nan, value)
    y, back = orderable(x)
    return back(pick(y, dims))


def _extreme_in_place(t, axes, largest, skip_nan):
    """max/min of a real ``t`` over ``axes`` where they lie, not moved last and flattened
    as _to_last does: the value does not depend on the visiting order (no ``initial``,
    no mask; NaN propagates or is skipped), and Inductor vectorizes a reduction over a
    strided slice's own dims (np.max(np.abs(new - u[1:-1, 1:-1])) in a loop) where the
    flattened one indexes each item by division and remainder, 2.5x slower."""
    x, dims = _over(t, axes)
    return _extreme_value(x, largest, skip_nan, dims)


def _extreme(a, axis, out, keepdims, initial, where, largest, skip_nan):
    """max/min/nanmax/nanmin: ``initial`` takes part as the first item, masked-out
    items are replaced by it; without it an empty or masked reduction is an error."""
    name = ("fmax" if largest else "fmin") if skip_nan else ("maximum" if largest else "minimum")
    axes = _ufunc_axes(a, axis)
    keepdims = _keepdims(keepdims)
    if casts_first_items(a.dtype, out, initial):
        return numpy_extreme(a, name, axes, out, keepdims)
    mask = _where_mask(where, a.shape)
    no_initial = initial is None or initial is NO_VALUE
    if no_initial:
        _check_has_identity(name, mask, _reduced_size(a.shape, axes))
    if no_initial and mask is None and not a._t.is_complex():
        r = _extreme_in_place(a._t, axes, largest, skip_nan)
    else:
        r = _extreme_of_items(a._t, a.dtype, axes, mask, initial, largest, skip_nan)
    if skip_nan:
        warn_when(_nan_mask(r), "All-NaN slice encountered")
    return _deliver(_shaped(r, a, axes, keepdims), out)


def _extreme_of_items(t, dt, axes, mask, initial, largest, skip_nan):
    """max/min over ``axes`` moved last and flattened in NumPy's visiting order, with
    ``initial`` as the first item and masked-out items replaced by it."""
    if initial is None or initial is NO_VALUE:
        return _extreme_value(_to_last(t, axes), largest, skip_nan)
    start = _initial_tensor(initial, dt)
    if mask is not None:
        t = torch.where(mask, t, start)
    items = _to_last(t if mask is None else mask, axes)
    x = _to_last(t, axes)
    if x.shape[-1] == 0:  # initial alone: no where over constants, which Inductor cannot lower
        return start.expand(x.shape[:-1]).clone()
    x = torch.cat([start.expand(*x.shape[:-1], 1), x], -1)
    r = _extreme_value(x, largest, skip_nan)
    if r.is_floating_point() and not skip_nan:
        r = _item_zero_wins(x[..., 1:], None if mask is None else items, r, largest)
    return r


def casts_first_items(dt, out, initial):
    """Whether NumPy's max/min of dtype ``dt`` into ``out`` answers other values than a
    cast of the extreme: without ``initial`` its reduce copies the first items into
    ``out`` and compares the rest with them read back, its buffers flushed into ``out``
    every 8192 items; a float or complex input into an integer or bool ``out`` loses the
    NaN, inf or sign there (np.max([[1, nan], [3, 4]], axis=0, out=int64 array) is
    [3, 4], 'invalid value encountered in cast')."""
    return out is not None and (initial is None or initial is NO_VALUE) and \
        dt.kind in "fc" and out.dtype.kind in "iub"


def numpy_extreme(a, name, axes, out, keepdims):
    """``name``.reduce (maximum, minimum, fmax, fmin) of ``a`` into ``out`` by NumPy
    itself on the memory, which warns as NumPy, in its error state (debug mode's is
    NumPy's). A traced program runs it as written (UnsupportedError: a graph break)."""
    if _fp_errors.tracing():
        raise _errors.UnsupportedError(f"{name}.reduce of {a.dtype} into an {out.dtype} out= "
                                       f"(NumPy's buffered casts): runs as written")
    result = numpy.empty(out.shape, out.dtype.np)
    host = a._t.detach().resolve_conj().resolve_neg().numpy()
    getattr(numpy, name).reduce(host, axis=tuple(axes), out=result, keepdims=keepdims)
    out._t.copy_(torch.from_numpy(result))
    return out


def _item_zero_wins(x, mask, r, largest):
    """NumPy compares each item with the running extreme (``initial`` first) and keeps
    the item on a tie, so max(-0.0, initial=0.0) is -0.0: a zero result takes the sign
    of the slice's own zeros (``mask``: the items taking part), whatever the axis or
    size. Among the items' own zeros NumPy's choice depends on their position (SIMD
    loops); here min takes -0.0 and max +0.0 when both occur. nanmin/nanmax are left
    out: NumPy's fmin/fmax keep initial's zero along an outer axis, and along the inner
    one either zero depending on the size."""
    zeros = x == 0 if mask is None else (x == 0) & mask
    negative = torch.signbit(x) & zeros
    sign_negative = negative.any(-1) if not largest else ~(zeros & ~negative).any(-1)
    tie = (r == 0) & zeros.any(-1)
    return torch.where(tie, torch.where(sign_negative, -0.0, 0.0).to(r.dtype), r)


def _extreme_function(name, largest, skip_nan):
    """max, min, nanmax and nanmin: NumPy's one signature over _extreme."""
    def function(a: ArrayLike, axis: AxisLike = None, out: OutArray = None, keepdims=False,
                 initial=None, where=True):
        return _extreme(a, axis, out, keepdims, initial, where, largest=largest, skip_nan=skip_nan)
    return _entry_point(name, function)


max = _extreme_function("max", largest=True, skip_nan=False)
min = _extreme_function("min", largest=False, skip_nan=False)
amax = max
amin = min
nanmax = _extreme_function("nanmax", largest=True, skip_nan=True)
nanmin = _extreme_function("nanmin", largest=False, skip_nan=True)


@normalizer
def ptp(a: ArrayLike, axis: AxisLike = None, out: OutArray = None, keepdims=False):
    """``subtract(max(a, out=out), min(a), out)``: the max lands in ``out`` first and
    the difference is taken in out's dtype (same_kind cast), as NumPy does."""
    high = max(a, axis, out, keepdims)
    low = min(a, axis, None, keepdims)
    dt = _dtypes.promote_types(out.dtype, a.dtype) if out is not None else a.dtype
    if dt.kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    operands = (cast_tensor(high._t, dt), cast_tensor(low._t, dt))
    difference = _add_or_subtract(torch.sub, dt, *operands)
    if _fp_errors.watching():
        _fp_errors.report(_fp_errors.flags("subtract", list(operands), [difference]), "subtract")
    if out is None:
        return _deliver(difference, None)
    if not _promotion.can_cast(dt, out.dtype, "same_kind"):
        raise UFuncOutputCastingError(numpy.subtract, "same_kind", dt.np, out.dtype.np, 0)
    return _store(difference, out)


# ---- argmin and argmax -----------------------------------------------------------------------
def _arg_extreme(a, axis, out, keepdims, largest):
    t, ax = _single_axis(a, axis)
    keepdims = _keepdims(keepdims)
    if t.shape[ax] == 0:
        raise ValueError(f"attempt to get {'argmax' if largest else 'argmin'} of an empty sequence")
    index = _extreme_index(t.movedim(ax, -1), largest)
    if keepdims:
        index = index.reshape((1,) * a.ndim if axis is None else _result_shape(a.shape, (ax,), True))
    if out is None:
        return _deliver(index, None)
    if out.shape != tuple(index.shape):
        raise ValueError(f"output array does not match result of np.{'argmax' if largest else 'argmin'}.")
    if not _promotion.can_cast(out.dtype, _dtypes.intp.dtype, "safe"):
        raise TypeError(f"Cannot cast array data from {out.dtype!r} to dtype('int64') "
                        "according to the rule 'safe'")
    return _store(index, out)


def _arg_function(name, worker, largest):
    """argmax, argmin, nanargmax and nanargmin: NumPy's one signature over ``worker``."""
    def function(a: ArrayLike, axis=None, out: OutArray = None, *, keepdims=False):
        return worker(a, axis, out, keepdims, largest=largest)
    return _entry_point(name, function)


argmax = _arg_function("argmax", _arg_extreme, largest=True)
argmin = _arg_function("argmin", _arg_extreme, largest=False)


def _nan_replaced(a, value):
    """``a`` with NaNs (a NaN part, for complex) replaced by ``value``; other dtypes as is."""
    if not _is_inexact(a.dtype):
        return a
    return ndarray._wrap(torch.where(_nan_mask(a._t), value, a._t))


def _nan_mask(t):
    return torch.isnan(t) if not t.is_complex() else torch.isnan(t.real) | torch.isnan(t.imag)


def _nan_arg_extreme(a, axis, out, keepdims, largest):
    """NumPy's nanargmax: NaNs become -inf (nanargmin: +inf); a slice of only NaNs is a
    ValueError, which needs the values (a data-dependent check by nature)."""
    if not _is_inexact(a.dtype):   # NumPy's argmax, whose axis INT_MIN means None
        return _arg_extreme(a, None if _is_ravel_axis(axis) else axis, out, keepdims, largest)
    if a.size:
        all_nan = torch.all(*_over(_nan_mask(a._t), _ufunc_axes(a, axis)))
        raise_if(all_nan, ValueError("All-NaN slice encountered"))
    filled = _nan_replaced(a, -math.inf if largest else math.inf)
    return _arg_extreme(filled, axis, out, keepdims, largest)


nanargmax = _arg_function("nanargmax", _nan_arg_extreme, largest=True)
nanargmin = _arg_function("nanargmin", _nan_arg_extreme, largest=False)


# ---- any, all, count_nonzero -----------------------------------------------------------------
def _truth(a, axis, out, keepdims, where, every):
    axes = _ufunc_axes(a, axis)
    mask = _where_mask(where, a.shape)
    truth = a._t != 0
    if mask is not None:
        truth = torch.where(mask, truth, every)  # masked-out items are the identity
    r = (torch.all if every else torch.any)(*_over(truth, axes))
    return _deliver(_shaped(r, a, axes, _keepdims(keepdims)), out)


@normalizer
def any(a: ArrayLike, axis: AxisLike = None, out: OutArray = None, keepdims=False, *, where=True):
    return _truth(a, axis, out, keepdims, where, every=False)


@normalizer
def all(a: ArrayLike, axis: AxisLike = None, out: OutArray = None, keepdims=False, *, where=True):
    return _truth(a, axis, out, keepdims, where, every=True)


@normalizer
def count_nonzero(a: ArrayLike, axis: AxisLike = None, *, keepdims=False):
    axes = _ufunc_axes(a, axis)
    r = torch.sum(*_over((a._t != 0).to(torch.int64), axes))
    return _deliver(_shaped(r, a, axes, _keepdims(keepdims)), None)


# ---- cumulative sums and products ------------------------------------------------------------
def _accumulate(t, ax, input_dt, dtype, out, product, include_initial=False):
    """cumsum/cumprod of ``t`` along ``ax`` in the loop dtype, into ``out`` if given."""
    loop = _loop_dtype(input_dt, dtype, out)
    r = scan_in_numpy_order(t, ax, loop, product)
    if include_initial:
        shape = list(r.shape)
        shape[ax] = 1
        identity = (torch.ones if product else torch.zeros)(shape, dtype=r.dtype)
        r = torch.cat([identity, r], ax)
    if out is None:
        return ndarray._wrap(r)
    if out.shape != tuple(r.shape):
        raise ValueError("provided out is the wrong size for the accumulation.")
    warn_complex_to_real(r, out.dtype, 1)
    _self_overlap.store(out._t, cast_tensor(r, out.dtype))
    return out


def scan_in_numpy_order(t, ax, loop, product):
    """add/multiply.accumulate of ``t`` along ``ax`` in dtype ``loop`` as NumPy steps it
    (float16 rounding every step, wider types in NumPy's order where it may matter);
    cumsum/cumprod and the ufuncs' accumulate share it."""
    t = loop_input(t, loop, "cast")
    if loop.torch == torch.float16:
        return _half_scan.accumulate(t, ax, product)
    return _wide_accumulate(t, ax, loop, product)


def reduce_in_numpy_order(t, axes, loop, product, mask=None):
    """add/multiply.reduce of ``t`` over ``axes`` (non-empty; ``mask``: where=) in dtype
    ``loop`` as np.sum and np.prod compute it; the ufuncs' reduce shares it."""
    return _prod_tensor(t, axes, loop, mask) if product else _sum_tensor(t, axes, loop, mask)


def _wide_accumulate(t, ax, loop, product):
    """cumsum/cumprod in torch, in NumPy's order where that may matter (float16 rounds
    every step: _half_scan)."""
    op = torch.cumprod if product else torch.cumsum
    x = cast_tensor(t, loop)
    r = _exact(lambda v: op(v, ax), loop, x)
    ordered = None
    if x.dtype in NARROW or (product and x.dtype == torch.complex128):   # wider (or fused) steps in torch
        ufunc = numpy.multiply if product else numpy.add
        ordered = _in_numpy_order(lambda: accumulation_order_matters(x, r, ax, product),
                                  lambda: numpy_answer(lambda a: ufunc.accumulate(a, axis=ax), [x], "accumulate"))
    return _reported(x, None, r, "accumulate") if ordered is None else ordered


@normalizer
def cumsum(a: ArrayLike, axis=None, dtype: DTypeLike = None, out: OutArray = None):
    t, ax = _single_axis(a, axis)
    return _accumulate(t, ax, a.dtype, dtype, out, product=False)


@normalizer
def cumprod(a: ArrayLike, axis=None, dtype: DTypeLike = None, out: OutArray = None):
    t, ax = _single_axis(a, axis)
    return _accumulate(t, ax, a.dtype, dtype, out, product=True)


def _cumulative(x, axis, dtype, out, include_initial, product):
    """NumPy 2's array-API cumulative_sum/prod: ``axis`` is required above 1-D."""
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument "
                             "is required.")
        axis = 0
    if isinstance(axis, tuple):
        normalize_axis_tuple(axis, builtins.max(x.ndim, 1))   # accumulate checks the range first
        if len(axis) != 1:
            raise ValueError("accumulate does not allow multiple axes")
        if include_initial:  # NumPy indexes a list with the tuple there
            raise TypeError("list indices must be integers or slices, not tuple")
        axis = axis[0]
    t = x._t.reshape(-1) if x.ndim == 0 else x._t
    return _accumulate(t, normalize_axis(axis, t.ndim), x.dtype, dtype, out, product,
                       include_initial=include_initial)


@normalizer
def cumulative_sum(x: ArrayLike, /, *, axis: AxisLike = None, dtype: DTypeLike = None,
                   out: OutArray = None, include_initial=False):
    return _cumulative(x, axis, dtype, out, include_initial, product=False)


@normalizer
def cumulative_prod(x: ArrayLike, /, *, axis: AxisLike = None, dtype: DTypeLike = None,
                    out: OutArray = None, include_initial=False):
    return _cumulative(x, axis, dtype, out, include_initial, product=True)


@normalizer
def nancumsum(a: ArrayLike, axis=None, dtype: DTypeLike = None, out: OutArray = None):
    return cumsum(_nan_replaced(a, 0), axis, dtype, out)


@normalizer
def nancumprod(a: ArrayLike, axis=None, dtype: DTypeLike = None, out: OutArray = None):
    return cumprod(_nan_replaced(a, 1), axis, dtype, out)


# ---- nan-ignoring sum, prod, mean, var, std --------------------------------------------------
@normalizer
def nansum(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
           keepdims=False, initial=NO_VALUE, where=True):
    return sum(_nan_replaced(a, 0), axis, dtype, out, keepdims, initial, where)


@normalizer
def nanprod(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
            keepdims=False, initial=NO_VALUE, where=True):
    return prod(_nan_replaced(a, 1), axis, dtype, out, keepdims, initial, where)


def _check_inexact(dtype, out):
    if dtype is not None and not _is_inexact(dtype):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not _is_inexact(out.dtype):
        raise TypeError("If a is inexact, then out must be inexact")


def _valid_count(a, axes, mask):
    """Non-NaN items per result element (where= respected), keepdims=False."""
    valid = ~_nan_mask(a._t)
    if mask is not None:
        valid = valid & mask
    return torch.sum(*_over(valid.to(torch.int64), axes))


@normalizer
def nanmean(a: ArrayLike, axis: AxisLike = None, dtype: DTypeLike = None, out: OutArray = None,
            keepdims=False, *, where=True):
    """NumPy's nanmean: NaNs summed as 0 in the input's own dtype (float16 stays
    float16), divided by the count of non-NaNs (0/0 = NaN for all-NaN slices)."""
    if not _is_inexact(a.dtype):
        return mean(a, axis, dtype, out, keepdims, where=where)
    axis = ufunc_axis(axis)   # a sum's axis, as mean's is for integer data
    _check_inexact(dtype, out)
    axes = _ufunc_axes(a, axis)
    keepdims = _keepdims(keepdims)
    mask = _where_mask(where, a.shape)
    loop = _loop_dtype(a.dtype, dtype, out)
    total = _shaped(_sum_tensor(_nan_replaced(a, 0)._t, axes, loop, mask), a, axes, keepdims)
    count = _valid_count(a, axes, mask).reshape(total.shape)
    warn_when(count == 0, "Mean of empty slice")
    result = _divide_into(total, count, out)
    return result if out is not None else _deliver(result, None)


def _nan_variance(a, axis, dtype, out, ddof, keepdims, where, mean_, correction):
    """NumPy's nanvar: NaN deviations count 0, divided by (non-NaN count - ddof), and
    NaN wherever that is <= 0."""
    _check_inexact(dtype, out)
    ddof = _ddof(ddof, correction)
    axes = _ufunc_axes(a, axis)
    keepdims = _keepdims(keepdims)
    mask = _where_mask(where, a.shape)
    nan = _nan_mask(a._t)
    zeroed = torch.where(nan, 0, a._t)
    count = _valid_count(a, axes, mask)
    kept = _result_shape(a.shape, axes, True)
    if mean_ is None:
        total = _sum_tensor(zeroed, axes, dtype or a.dtype, mask)
        center = _divide(total, count).reshape(kept)
    else:
        center = asarray(mean_)._t
    operands = (zeroed, cast_tensor(center, a.dtype))
    deviation = _add_or_subtract(torch.sub, a.dtype, *operands)
    deviation = torch.where(nan, 0, deviation)
    squares = _squared_magnitude(deviation, a.dtype)
    if _fp_errors.watching() and not squares.is_complex():   # NumPy's where= skips the NaNs
        _report_deviations(operands, deviation, squares, "multiply", ~nan if mask is None else ~nan & mask)
    loop = _loop_dtype(_from_torch(squares), dtype, out)
    total = _shaped(_sum_tensor(squares, axes, loop, mask), a, axes, keepdims)
    dof = (count - ddof).reshape(total.shape)
    warn_when(dof <= 0, "Degrees of freedom <= 0 for slice.")
    if out is None:
        return torch.where(dof <= 0, math.nan, _divide(total, dof))
    _divide_into(total, dof, out)
    out._t.copy_(torch.where(dof <= 0, math.nan, out._t))
    return out


def _nan_var_or_std(a, axis, dtype, out, ddof, keepdims, where, mean_, correction, root):
    if not _is_inexact(a.dtype):
        function = std if root else var
        return function(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean_,
                        correction=correction)
    result = _nan_variance(a, ufunc_axis(axis), dtype, out, ddof, keepdims, where, mean_, correction)
    return _deliver_variance(result, out, root)


nanvar = _variance_function("nanvar", _nan_var_or_std, root=False)
nanstd = _variance_function("nanstd", _nan_var_or_std, root=True)
