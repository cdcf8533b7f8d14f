"""Array creation: from data, from shapes, ranges, grids. Creation follows torch's
default device, so ``with torch.device("cuda"):`` creates on the GPU."""
import builtins
import itertools
import math
import operator

import numpy
import torch

from . import _coerce, _dtypes, _flipped, _layout, _promotion, _self_overlap
from ._detours import movable, restored
from ._errors import UnsupportedError, raise_if
from ._graph_warnings import warn_complex_to_real
from ._may_overlap import may_overlap
from ._ndarray import ndarray
from ._normalize import ArrayLike, normalize_axis, normalizer, where_mask
from ._numpy_version import NUMPY_2_5

__all__ = [
    "array", "asarray", "asanyarray", "ascontiguousarray", "asarray_chkfinite", "copy", "copyto",
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like",
    "asfortranarray", "isfortran", "arange", "linspace", "logspace", "geomspace",
    "eye", "identity", "diag", "diagflat", "tri", "tril", "triu", "vander",
    "meshgrid", "indices", "fromfunction", "fromiter",
]


# ---- argument checks shared by every creation function --------------------------------
def _check_order(order, allowed="KACF"):
    """NumPy reads the order letter in either case; a new array from a shape takes C or F
    only. The layout each order means is ``_layout``'s (values never depend on it)."""
    if order is None:
        return
    letter = order.upper() if isinstance(order, str) else None
    if letter not in ("K", "A", "C", "F"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got '{order}')")
    if letter not in allowed:
        raise ValueError("only 'C' or 'F' order is permitted")


def _refuse_like(like):
    if like is not None:
        raise UnsupportedError("like= (array-function dispatch to another array type)")


def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"Device not understood. Only \"cpu\" is allowed, but received: {device}")


def shape_dims(shape):
    """An int or a sequence of ints as a tuple of sizes (symbolic ones kept), with NumPy's
    TypeErrors: a bool is not a size, although ``operator.index`` takes it."""
    if not isinstance(shape, (tuple, list, torch.Size)):
        if isinstance(shape, (bool, numpy.bool_)):
            raise TypeError(f"expected a sequence of integers or a single integer, got '{shape!r}'")
        return (_size(shape),)
    if builtins.any(isinstance(d, (bool, numpy.bool_)) for d in shape):
        raise TypeError("an integer is required")
    return tuple(_size(d) for d in shape)


def _shape_tuple(shape):
    """An int or a sequence of ints as a shape tuple (NumPy's errors for negatives)."""
    dims = shape_dims(shape)
    if builtins.any(isinstance(d, int) and d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def _size(n):
    """A length argument as an int, keeping a symbolic size symbolic when tracing."""
    return n if isinstance(n, torch.SymInt) else operator.index(n)


def _default_float_or(dtype):
    return _dtypes.float64.dtype if dtype is None else _dtypes._as_dtype(dtype)


# ---- from data ---------------------------------------------------------------------------
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    _check_order(order)
    _check_device(device)
    _refuse_like(like)
    if copy is False and _needs_copy(a, dtype):
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if dtype is not None and isinstance(a, (list, tuple, int, float, complex)) and not _coerce._contains_traced(a):
        # NumPy converts Python data straight into the dtype: out-of-range ints raise
        with _coerce.quiet_while_tracing():   # the conversion's FP report belongs to eager calls
            np_data = numpy.asarray(a, dtype=_dtypes._as_dtype(dtype).np)
        out = ndarray._wrap(_coerce._from_numpy_array(np_data, copy=True))
    else:
        if dtype is not None and isinstance(a, (ndarray, numpy.ndarray, numpy.generic)):
            warn_complex_to_real(_dtypes._as_dtype(a.dtype).torch, _dtypes._as_dtype(dtype).torch)
        out = _coerce.asarray(a, dtype, copy)
    return _laid_out(out, a, _layout.order_letter(order), copy)


def _laid_out(out, source, order, copy):
    """``out``, the array made of ``source``, with the layout NumPy gives it: a requested
    copy follows ``order`` over the source's layout (K keeps its stride order), otherwise
    memory is only copied where its layout does not satisfy ``order``."""
    if out._scalar:
        return out
    if not copy:
        t = _layout.satisfying(out._t, order)
    else:
        proto = source._t if isinstance(source, ndarray) else \
            _layout.proxy(source) if isinstance(source, numpy.ndarray) else None
        t = _layout.keep_order_of(out._t, out._t if proto is None else proto, order)
    return out if t is out._t else ndarray._wrap(t)


def _needs_copy(a, dtype):
    """Whether NumPy must copy to make an array of ``a``: anything but an array of the
    requested dtype (Python data and scalars always need new memory)."""
    if not isinstance(a, (ndarray, numpy.ndarray, torch.Tensor)) or getattr(a, "_scalar", False):
        return True
    return dtype is not None and _dtypes._as_dtype(dtype) != _coerce.asarray(a).dtype


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """No ndarray subclasses exist in the shim, so this is ``asarray``."""
    return asarray(a, dtype, order, device=device, copy=copy, like=like)


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    out = asarray(object, dtype, order, copy=copy, like=like)
    if out.ndim < ndmin:
        out = out._view(out._t.reshape((1,) * (ndmin - out.ndim) + tuple(out._t.shape)))
    return out


def ascontiguousarray(a, dtype=None, *, like=None):
    """C-contiguous and at least 1-D (NumPy promotes 0-D input to shape (1,))."""
    return array(a, dtype, copy=None, order="C", ndmin=1, like=like)


def asfortranarray(a, dtype=None, *, like=None):
    """F-contiguous and at least 1-D."""
    return array(a, dtype, copy=None, order="F", ndmin=1, like=like)


def isfortran(a):
    """F-contiguous and not C-contiguous (so never for 1-D arrays)."""
    return _layout.fortran(_coerce.asarray(a)._t)


def asarray_chkfinite(a, dtype=None, order=None):
    """asarray, refusing inf and NaN in floating-point data (a check on values: a traced
    call checks it after the graph and leaves a failing call to NumPy)."""
    out = asarray(a, dtype=dtype, order=order)
    if out.dtype.kind in "fc":
        raise_if(~torch.isfinite(out._t), ValueError("array must not contain infs or NaNs"))
    return out


def copy(a, order="K", subok=False):
    _check_order(order)
    return array(a, copy=True, order=order)


def _copyto_source(src, dst_dtype, casting):
    """``src`` as an array of ``dst_dtype``, refusing casts ``casting`` forbids. A Python
    scalar is weak (NEP 50): it is judged by kind, and must fit an integer target."""
    if isinstance(src, builtins.bool):  # NumPy judges a Python bool as a bool array
        src_dtype, what, src = _dtypes.bool.dtype, "scalar", _coerce.asarray(src)
    elif isinstance(src, (int, float, complex, torch.SymInt, torch.SymFloat)) and not isinstance(src, numpy.generic):
        src_dtype = _promotion.result_type(dst_dtype, src)
        what = "scalar"
        _coerce.check_python_int_fits(src, dst_dtype)
        if isinstance(src, int) and dst_dtype.kind == "b" and not -2**63 <= src < 2**63:
            raise OverflowError("Python int too large to convert to C long")
        src = _coerce.asarray(src)
    else:
        src = _coerce.asarray(src)
        src_dtype = src.dtype
        what = "array data"
    if not _promotion.can_cast(src_dtype, dst_dtype, casting):
        raise TypeError(f"Cannot cast {what} from {src_dtype!r} to {dst_dtype!r} according "
                        f"to the rule '{casting}'")
    return src


def _check_broadcasts_into(shape, target, what="input array"):
    if _broadcast_pair(shape, target) != tuple(target):
        raise ValueError(f"could not broadcast {what} from shape {shape} into shape {tuple(target)}")


def _broadcast_pair(a, b):
    try:
        return tuple(torch.broadcast_shapes(tuple(a), tuple(b)))
    except RuntimeError:
        return None


def _shares_memory_owner(a, b):
    return isinstance(b, ndarray) and (a._base if a._base is not None else a) is (
        b._base if b._base is not None else b)


@_flipped.writes(0)
@_coerce.writes_numpy(0)
def copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, ndarray) or dst._scalar:
        kind = f"numpy.{dst.dtype.name}" if isinstance(dst, ndarray) else type(dst).__name__
        raise TypeError(f"copyto() argument 1 must be numpy.ndarray, not {kind}")
    owner = _shares_memory_owner(dst, src)
    src = _copyto_source(src, dst.dtype, casting)
    overlap = owner or may_overlap(src._t, dst._t)
    _check_broadcasts_into(src.shape, dst.shape)
    warn_complex_to_real(src._t.dtype, dst.dtype.torch)
    value = _coerce.cast_tensor(src._t, dst.dtype, copy=overlap).expand(dst._t.shape)
    if isinstance(where, _promotion.PY_SCALARS):  # a Python scalar counts by its truth
        where = builtins.bool(where)
    mask = where_mask(where)
    if mask is not None:
        _check_broadcasts_into(tuple(mask.shape), dst.shape, "where")
    _self_overlap.store(dst._t, value, mask)
    return None


# ---- from shapes -------------------------------------------------------------------------
def _new(shape, dtype, order, device, like, fill=None):
    _check_order(order, "CF"), _check_device(device), _refuse_like(like)
    letter = _layout.order_letter(order, "C")
    return _layout.empty(_shape_tuple(shape), _default_float_or(dtype).torch, letter, fill=fill)


def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    return ndarray._wrap(_new(shape, dtype, order, device, like, 0))


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    return ndarray._wrap(_new(shape, dtype, order, device, like, 1))


def empty(shape, dtype=None, order="C", *, device=None, like=None):
    return ndarray._wrap(_new(shape, dtype, order, device, like))


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """The dtype is the fill value's own (``full(3, 7)`` is int64) unless given."""
    dt = _coerce.asarray(fill_value).dtype if dtype is None else _dtypes._as_dtype(dtype)
    out = empty(shape, dt, order, device=device, like=like)
    copyto(out, fill_value, casting="unsafe")
    return out


def _like(prototype, dtype, order, shape, device, fill=None):
    """An uninitialised tensor shaped and laid out as NumPy's ``empty_like``: K follows the
    prototype's layout (its stride order where it is neither C nor F), A is F for a
    Fortran prototype."""
    _check_order(order)
    _check_device(device)
    converted = prototype._t if isinstance(prototype, ndarray) else _coerce.asarray(prototype)._t
    proto = _layout.proxy(prototype) if isinstance(prototype, numpy.ndarray) else None
    proto = converted if proto is None else proto   # a NumPy prototype's own layout, even reversed
    dt = _dtypes.from_torch(converted.dtype) if dtype is None else _dtypes._as_dtype(dtype)
    shape = tuple(converted.shape) if shape is None else _shape_tuple(shape)
    letter = _layout.resolve(_layout.order_letter(order), proto, len(shape))
    return _layout.empty(shape, dt.torch, letter, proto, converted.device, fill)


def empty_like(prototype, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return ndarray._wrap(_like(prototype, dtype, order, shape, device))


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return ndarray._wrap(_like(a, dtype, order, shape, device, 0))


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return ndarray._wrap(_like(a, dtype, order, shape, device, 1))


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    out = empty_like(a, dtype, order, subok, shape, device=device)
    copyto(out, fill_value, casting="unsafe")
    return out


# ---- ranges ------------------------------------------------------------------------------
def _python_number(x):
    """arange's bounds as Python numbers (its length depends on their values)."""
    if isinstance(x, ndarray):
        if x.ndim != 0:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return x.item()
    if isinstance(x, numpy.ndarray | numpy.generic):
        return x.item()
    if isinstance(x, builtins.bool):
        return int(x)
    return x


def _is_int(x):
    return isinstance(x, (int, torch.SymInt))


def arange(start_or_stop, /, stop=None, step=1, *, dtype=None, device=None, like=None):
    """NumPy's rules: int bounds give int64, any float bound float64; the length is
    ceil((stop - start) / step); values are ``first + i * (second - first)`` with
    first/second the first two values cast to the dtype (that is what NumPy fills)."""
    _check_device(device)
    _refuse_like(like)
    start, stop = (0, start_or_stop) if stop is None else (start_or_stop, stop)
    start, stop, step = (_python_number(x) for x in (start, stop, step))
    if builtins.any(isinstance(x, complex) for x in (start, stop, step)):
        raise UnsupportedError("arange with complex bounds")
    all_int = builtins.all(_is_int(x) for x in (start, stop, step))
    dt = (_dtypes.int64.dtype if all_int else _dtypes.float64.dtype) if dtype is None \
        else _dtypes._as_dtype(dtype)
    if all_int:
        if isinstance(step, int) and step == 0:
            raise ZeroDivisionError("division by zero")
        length = torch.sym_max(0, -((start - stop) // step))
    else:
        exact = (stop - start) / step  # ZeroDivisionError for step 0.0, as NumPy
        if math.isnan(exact):
            raise ValueError("arange: cannot compute length")
        if math.isinf(exact):
            raise ValueError("Maximum allowed size exceeded")
        length = builtins.max(0, math.ceil(exact))
    if dt.kind == "b":
        if length > 2:
            raise TypeError("arange() is only supported for booleans when the result has at most length 2.")
        firsts = torch.tensor([builtins.bool(start), builtins.bool(start + step)])
        return ndarray._wrap(firsts[:length])
    if dt.kind == "c":
        raise UnsupportedError("arange with a complex dtype")
    if all_int or dt.kind in "iu":
        first, second = (start, start + step) if all_int else (int(start), int(start + step))
        if dt.kind in "iu":  # NumPy checks the two it casts first (a dynamic int by a guard)
            for k, value in enumerate((first, second)):
                if _is_int(value) and k < length:
                    _coerce.check_python_int_fits(value, dt)
        values = torch.arange(length, dtype=torch.int64) * (second - first) + first
        return ndarray._wrap(_coerce.cast_tensor(values, dt))  # integers wrap around as NumPy's fill
    first = numpy.array(start).astype(dt.np)
    delta = numpy.array(start + step).astype(dt.np) - first
    compute = torch.float32 if dt.itemsize == 2 else dt.torch
    values = torch.arange(length, dtype=compute) * delta.item() + first.item()
    return ndarray._wrap(_coerce.cast_tensor(values, dt))


def _numpy_refuses_as_numbers(numpy_fn, values, *args, **kwargs):
    """Bounds that are not numbers (strings, bytes, objects): NumPy's own error, by
    calling NumPy's function, not a string read as a dtype name or UnsupportedError;
    where NumPy computes with them after all, the shim still refuses later."""
    for value in values:
        if isinstance(value, (str, bytes)) or (isinstance(value, (list, tuple)) and
                                               not _coerce._contains_traced(value)):
            if numpy.asanyarray(value).dtype.kind in "USOV":
                numpy_fn(*args, **kwargs)


def _inexact_result_type(*arrays):
    dt = _promotion.result_type(*arrays)
    return _dtypes.float64.dtype if dt.kind in "biu" else dt


@normalizer
def _linspace_arrays(start: ArrayLike, stop: ArrayLike):
    return start, stop


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """NumPy's algorithm: ``arange(num) * step + start`` (or ``/ div * delta`` where the
    step underflows to zero), the last sample set to ``stop``, integer dtypes floored."""
    _check_device(device)
    num = _size(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    _numpy_refuses_as_numbers(numpy.linspace, (start, stop), start, stop, num, endpoint, dtype=dtype, axis=axis)
    dt = _inexact_result_type(start, stop)
    start_a, stop_a = _linspace_arrays(start, stop)
    target = dt if dtype is None else _dtypes._as_dtype(dtype)
    div = num - 1 if endpoint else num
    start_t = _coerce.cast_tensor(start_a._t, dt)
    stop_t = _coerce.cast_tensor(stop_a._t, dt)
    delta = stop_t - start_t
    y = torch.arange(num, dtype=torch.int64, device=delta.device).to(dt.torch).reshape((-1,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        y = torch.where(step == 0, y / div * delta, y * step)
    else:
        y = y * delta
    y = y + start_t
    if endpoint and num > 1:
        y = torch.cat((y[:-1], torch.broadcast_to(stop_t, y.shape[1:])[None]))
    if axis != 0:
        y = torch.movedim(y, 0, normalize_axis(axis, y.ndim))
    if target.kind in "iu":
        if dt.kind == "c":
            raise TypeError("ufunc 'floor' not supported for the input types, and the inputs could "
                            "not be safely coerced to any supported types according to the casting rule ''safe''")
        y = torch.floor(y)
    out = ndarray._wrap(_coerce.cast_tensor(y, target))
    if not retstep:
        return out
    if div <= 0:
        return out, math.nan  # NumPy returns a plain float for an undefined step
    return out, ndarray._wrap(step, scalar=step.ndim == 0)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop)``. A Python base stays weak; an array base is
    broadcast with the bounds first (it may decide what ``axis`` means), as in NumPy."""
    _numpy_refuses_as_numbers(numpy.logspace, (start, stop, base), start, stop, num, endpoint, base, axis=axis)
    if not isinstance(base, (float, int)) and _coerce.asarray(base).ndim:
        start, stop, base = (_coerce.asarray(x) for x in (start, stop, base))
        ndim = len(_broadcast_shapes_of(start.shape, stop.shape, base.shape))
        start, stop, base = (array(x, copy=None, ndmin=ndim) for x in (start, stop, base))
        base = base._view(base._t.unsqueeze(normalize_axis(axis, base.ndim + 1)))
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    dt = _promotion.result_type(base, y)
    base_t = _coerce.cast_tensor(_coerce.asarray(base)._t, dt)
    out = torch.pow(base_t, _coerce.cast_tensor(y._t, dt))
    return ndarray._wrap(_coerce.cast_tensor(out, dt if dtype is None else _dtypes._as_dtype(dtype)))


def _broadcast_shapes_of(*shapes):
    result = ()
    for s in shapes:
        result = _broadcast_pair(result, s)
        if result is None:
            raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
    return result


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Log-spaced samples computed with NumPy's steps: divide out the sign (a unit
    phase for complex), interpolate the logs, pin both ends to the exact inputs."""
    _numpy_refuses_as_numbers(numpy.geomspace, (start, stop), start, stop, num, endpoint, axis=axis)
    start, stop = _coerce.asarray(start), _coerce.asarray(stop)
    if builtins.bool((start._t == 0).any()) or builtins.bool((stop._t == 0).any()):
        raise ValueError("Geometric sequence cannot include zero")  # NumPy checks values too
    dt = _promotion.result_type(start, stop, float(num), numpy.zeros((), _dtypes._as_dtype(
        dtype).np if dtype is not None else None))
    dt = _promotion.result_type(dt, _dtypes.float64.dtype)
    start_t = _coerce.cast_tensor(start._t, dt)
    stop_t = _coerce.cast_tensor(stop._t, dt)
    sign = torch.sgn(start_t)
    start_t = start_t / sign
    stop_t = stop_t / sign
    logs = logspace(ndarray._wrap(torch.log10(start_t)), ndarray._wrap(torch.log10(stop_t)),
                    num=num, endpoint=endpoint, base=10.0, dtype=dt)._t
    if num > 0:
        first = torch.broadcast_to(start_t, logs.shape[1:])[None]
        last = torch.broadcast_to(stop_t, logs.shape[1:])[None]
        pinned_last = endpoint and num > 1
        middle = logs[1:num - 1] if pinned_last else logs[1:]
        logs = torch.cat((first, middle, last) if pinned_last else (first, middle))
    result = logs * sign
    if axis != 0:
        result = torch.movedim(result, 0, normalize_axis(axis, result.ndim))
    target = dt if dtype is None else _dtypes._as_dtype(dtype)
    return ndarray._wrap(_coerce.cast_tensor(result, target))


# ---- matrices ----------------------------------------------------------------------------
def _diagonal_mask(n, m, k, lower, device=None):
    """(n, m) booleans: the k-th diagonal (``lower`` None), or on/below it (True)."""
    rows = torch.arange(n, device=device).reshape(-1, 1)
    cols = torch.arange(m, device=device).reshape(1, -1)
    if lower is None:
        return cols - rows == k
    return cols - rows <= k


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    _check_order(order, "CF"), _check_device(device), _refuse_like(like)
    n = _size(N)
    m = n if M is None else _size(M)
    if n < 0 or m < 0:
        raise ValueError("negative dimensions are not allowed")
    mask = _diagonal_mask(n, m, operator.index(k), None)
    values = _coerce.cast_tensor(mask, _default_float_or(dtype))
    return ndarray._wrap(_layout.keep_order_of(values, values, _layout.order_letter(order, "C")))


def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=dtype, like=like)


def tri(N, M=None, k=0, dtype=float, *, like=None):
    _refuse_like(like)
    n = torch.sym_max(_size(N), 0)  # NumPy builds tri from aranges: negative is empty
    m = n if M is None else torch.sym_max(_size(M), 0)
    mask = _diagonal_mask(n, m, operator.index(k), True)
    return ndarray._wrap(_coerce.cast_tensor(mask, _default_float_or(dtype)))


def _keep_triangle(m, k, lower):
    t = _coerce.asarray(m)._t
    if t.ndim == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    n_rows, n_cols = (t.shape[-2], t.shape[-1]) if t.ndim >= 2 else (t.shape[-1], t.shape[-1])
    mask = _diagonal_mask(n_rows, n_cols, k if lower else k - 1, True, t.device)
    if not lower:
        mask = ~mask
    return ndarray._wrap(torch.where(mask, t, torch.zeros((), dtype=t.dtype)))


def tril(m, k=0):
    """Zero above the k-th diagonal of the last two axes (a 1-D input is broadcast)."""
    return _keep_triangle(m, operator.index(k), True)


def triu(m, k=0):
    return _keep_triangle(m, operator.index(k), False)


@normalizer
def diag(v: ArrayLike, k=0):
    """1-D -> a fresh matrix with ``v`` on the k-th diagonal; 2-D -> that diagonal as
    NumPy's ``v.diagonal(k)``: a read-only view of ``v``."""
    k = operator.index(k)
    t = v._t
    if t.ndim == 1:
        n = t.shape[0] + builtins.abs(k)
        placed = torch.zeros((n, n), dtype=t.dtype, device=t.device)
        if t.shape[0] == 0:
            return ndarray._wrap(placed)
        # entry (i, j) of the k-th diagonal holds v[i] above the main diagonal, v[j] below
        position = torch.arange(n, device=t.device).reshape((-1, 1) if k >= 0 else (1, -1))
        values = restored(movable(t).index_select(0, position.reshape(-1).clamp(max=t.shape[0] - 1)), t.dtype)
        return ndarray._wrap(torch.where(_diagonal_mask(n, n, k, None, t.device),
                                         values.reshape(position.shape), placed))
    if t.ndim == 2:
        return v._view(torch.diagonal(t, k), readonly=True)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    return diag(_coerce.asarray(v)._t.reshape(-1), k)


@normalizer
def vander(x: ArrayLike, N=None, increasing=False):
    """Columns are powers of ``x``, built by a running product as NumPy does (so
    integer overflow wraps identically); dtype promotes with int64."""
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else _size(N)
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    dt = _dtypes.promote_types(x.dtype, _dtypes.int64.dtype)
    columns = _coerce.cast_tensor(x._t, dt).reshape(-1, 1).expand(x.shape[0], builtins.max(n - 1, 0))
    powers = torch.cat((torch.ones((x.shape[0], builtins.min(n, 1)), dtype=dt.torch, device=x._t.device),
                        torch.cumprod(columns, dim=1)), dim=1)
    return ndarray._wrap(powers if increasing else powers.flip(1))


# ---- grids -------------------------------------------------------------------------------
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """A tuple (NumPy 2) of coordinate arrays; views unless ``copy``."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    arrays = [_coerce.asarray(x) for x in xi]
    shapes = [[1] * ndim for _ in range(ndim)]
    for i in range(ndim):
        shapes[i][i] = -1
    if indexing == "xy" and ndim > 1:
        shapes[0][0], shapes[0][1] = 1, -1
        shapes[1][0], shapes[1][1] = -1, 1
    outputs = [a._view(a._t.reshape(shape)) for a, shape in zip(arrays, shapes)]
    if not sparse:
        full_shape = _broadcast_shapes_of(*(o.shape for o in outputs))
        outputs = [o if o.shape == full_shape else o._view(o._t.expand(full_shape)) for o in outputs]
    if copy:
        return tuple(o.copy() for o in outputs)
    return outputs if sparse and not NUMPY_2_5 else tuple(outputs)  # NumPy 2.4's inconsistency (2.5: a tuple)


def indices(dimensions, dtype=int, sparse=False):
    dims = _shape_tuple(dimensions)
    dt = _dtypes._as_dtype(dtype)
    n = len(dims)
    grids = []
    for i, dim in enumerate(dims):
        shape = [1] * n
        shape[i] = dim
        grids.append(_coerce.cast_tensor(torch.arange(dim, dtype=torch.int64), dt).reshape(shape))
    if sparse:
        return tuple(ndarray._wrap(g) for g in grids)
    if not grids:
        return ndarray._wrap(torch.empty((0,), dtype=dt.torch))
    return ndarray._wrap(torch.stack([g.expand(dims) for g in grids]))


def fromiter(iter, dtype, count=-1, *, like=None):
    """``np.fromiter``: at most ``count`` items (exactly ``count`` when it is given), each
    stored as NumPy's item assignment stores it (so None into an int array is a TypeError)."""
    _refuse_like(like)
    dt = _dtypes._as_dtype(dtype)
    count = operator.index(count)
    items = list(itertools.islice(iter, count) if count >= 0 else iter)
    if count >= 0 and len(items) < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only {len(items)} items.")
    data = numpy.empty(len(items), dtype=dt.np)
    for i, item in enumerate(items):
        data[i] = _coerce.to_numpy(item)
    return _coerce.asarray(data)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    _refuse_like(like)
    grid = indices(shape, dtype=dtype)
    return function(*(grid._view(t) for t in torch.unbind(grid._t)), **kwargs)
