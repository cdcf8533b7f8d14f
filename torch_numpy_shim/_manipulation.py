"""Shape and layout: reshaping, transposing, joining, splitting, tiling, padding.

Views are views exactly where NumPy's are (``arr._view`` sets ``base``); results that
would need negative strides in NumPy (flip, rot90) are copies, since torch has none.
"""
import builtins
import functools
import operator
import warnings

import numpy
import torch

from . import _coerce, _dtypes, _flipped, _layout, _promotion, _writeable
from ._creation import array, linspace, shape_dims
from ._detours import movable, orderable, restored
from ._errors import AxisError, UnsupportedError
from ._graph_warnings import warn_complex_to_real
from ._ndarray import ndarray
from ._normalize import (
    ArrayLike,
    AxisLike,
    OutArray,
    _axis,
    c_int_axis,
    normalize_axis,
    normalize_axis_tuple,
    normalizer,
    write_out,
)
from ._numpy_version import NUMPY_2_5

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "moveaxis",
    "swapaxes", "rollaxis", "squeeze", "expand_dims", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d",
    "concatenate", "concat", "stack", "hstack", "vstack", "dstack", "column_stack",
    "block", "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack",
    "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "pad", "resize",
    "append", "insert", "delete", "trim_zeros", "diagonal", "shape", "ndim", "size",
]
if not NUMPY_2_5:   # removed in NumPy 2.5
    __all__.append("row_stack")


# ---- reshaping -------------------------------------------------------------------------
def _target_shape(shape, size):
    """NumPy's reshape checks: one unknown (any negative) dimension, sizes must agree."""
    dims = list(shape_dims(shape))
    unknown = [i for i, d in enumerate(dims) if isinstance(d, int) and d < 0]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = 1
    for i, d in enumerate(dims):
        if i not in unknown:
            known *= d
    if unknown:
        if known == 0 or size % known != 0:
            raise ValueError(f"cannot reshape array of size {size} into shape {_shape_repr(dims)}")
        dims[unknown[0]] = size // known
    elif known != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {_shape_repr(dims)}")
    return tuple(dims)


def _shape_repr(dims):
    return f"({dims[0]},)" if len(dims) == 1 else str(tuple(dims))


def _viewable(t, dims):
    """Whether ``t`` can be seen with shape ``dims`` without copying: each run of
    dimensions merged or split must be contiguous in memory (torch's and NumPy's
    rule). Decided from metadata, so tracing never records a failing view."""
    if t.ndim == 0 or t.numel() == 0:
        return True
    shape, strides = t.shape, t.stride()
    view_d = len(dims) - 1
    base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(t.ndim - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or dims[view_d] == 1):
                view_numel *= dims[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if d > 0:
                base_stride = strides[d - 1]
                tensor_numel = view_numel = 1
    return view_d == -1


def _reshape_c(a, dims, copy):
    if not copy and _viewable(a._t, dims):
        return a._view(a._t.view(dims))
    if copy is False:
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return ndarray._wrap(a._t.clone(memory_format=torch.contiguous_format).view(dims))


def _reversed_axes(t):
    return t.permute(tuple(reversed(range(t.ndim))))


def _scalar_stays_scalar(fn):
    """NumPy runs reshape/transpose/squeeze of a NumPy scalar as the scalar's own method,
    which gives a scalar back (an array would come back for an array)."""
    @functools.wraps(fn)
    def wrapper(a, *args, **kwargs):
        result = fn(a, *args, **kwargs)
        if (isinstance(a, ndarray) and a._scalar or isinstance(a, numpy.generic)) and result.ndim == 0:
            return ndarray._wrap(result._t.clone(), scalar=True)
        return result
    return wrapper


def _order_letter(order):
    """NumPy reads the order letter in either case ('f' is 'F'); None is C here."""
    return "C" if order is None else order.upper() if isinstance(order, str) else order


@_scalar_stays_scalar
@normalizer
def reshape(a: ArrayLike, /, shape=None, order="C", *, copy=None):
    order = _order_letter(order)
    if shape is None:
        raise TypeError("reshape() missing required argument 'shape' (pos 2)")
    dims = _target_shape(shape, a.size)
    if order == "A":
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    if order == "C":
        return _reshape_c(a, dims, copy)
    if order != "F":
        raise ValueError(f"order must be one of 'C', 'F', 'A' (got '{order}')")
    # Fortran order is C order on the reversed axes of both shapes
    flipped = _reshape_c(a._view(_reversed_axes(a._t)), tuple(reversed(dims)), copy)
    result_t = _reversed_axes(flipped._t)
    return flipped._view(result_t) if flipped._base is not None else ndarray._wrap(result_t)


@normalizer
def ravel(a: ArrayLike, order="C"):
    """A view when the elements are already contiguous in the requested order."""
    order = _order_letter(order)
    t = a._t
    if order == "K":
        strides = t.stride()
        axes = sorted(range(t.ndim), key=lambda i: -strides[i])
        return reshape(a._view(t.permute(tuple(axes))) if axes != list(range(t.ndim)) else a, -1)
    if order == "A":
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    if order not in ("C", "F"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got '{order}')")
    source = t if order == "C" else _reversed_axes(t)
    if source.is_contiguous():
        return a._view(source.view(-1))
    return ndarray._wrap(source.reshape(-1).clone())


# ---- axes ------------------------------------------------------------------------------
@_scalar_stays_scalar
@normalizer
def transpose(a: ArrayLike, axes=None):
    if axes is None:
        return a._view(_reversed_axes(a._t))
    axes = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
    if len(axes) != a.ndim:
        raise ValueError("axes don't match array")
    axes = tuple(normalize_axis(ax, a.ndim) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis in transpose")
    return a._view(a._t.permute(tuple(axes)))


def permute_dims(a, /, axes=None):
    return transpose(a, axes)


@normalizer
def matrix_transpose(x: ArrayLike, /):
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return x._view(x._t.transpose(-2, -1))


def _axes_or_error(axes, ndim, name):
    """NumPy's normalize_axis_tuple with an argument name: any iterable of axes (a
    range too), errors naming the argument."""
    if type(axes) not in (tuple, list):
        try:
            axes = [operator.index(axes)]
        except TypeError:
            axes = list(axes)
    try:
        found = normalize_axis_tuple(axes, ndim, allow_duplicate=True)
    except AxisError as exc:   # the class kept: an AxisOverflowError stays one
        raise type(exc)(f"{name}: {exc}") from None
    if len(set(found)) != len(found):
        raise ValueError(f"repeated axis in `{name}` argument")
    return found


@normalizer
def moveaxis(a: ArrayLike, source, destination):
    source = _axes_or_error(source, a.ndim, "source")
    destination = _axes_or_error(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a._view(a._t.permute(tuple(order)))


@normalizer
def swapaxes(a: ArrayLike, axis1, axis2):
    # one C int each (a bool too), never a sequence
    axis1 = _axes_or_error(operator.index(axis1), a.ndim, "axis1")[0]
    axis2 = _axes_or_error(operator.index(axis2), a.ndim, "axis2")[0]
    return a._view(a._t.transpose(axis1, axis2))


@normalizer
def rollaxis(a: ArrayLike, axis, start=0):
    n = a.ndim
    axis = normalize_axis(axis, n)
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    order = list(range(n))
    order.remove(axis)
    order.insert(start, axis)
    return a._view(a._t.permute(tuple(order)))


@_scalar_stays_scalar
@normalizer
def squeeze(a: ArrayLike, axis: AxisLike = None):
    shape = a.shape
    if a.ndim == 0 and isinstance(axis, int) and axis in (0, -1):
        return a._view(a._t.view(()))  # NumPy accepts one axis 0 (or -1) for a 0-D array
    if axis is None:
        dims = tuple(d for d in shape if d != 1)
    else:
        axes = []   # NumPy's converter: each item in turn, a repeat refused when reached
        for item in axis if isinstance(axis, tuple) else (axis,):
            axes.append(normalize_axis(item, a.ndim))
            if axes[-1] in axes[:-1]:
                raise ValueError("duplicate value in 'axis'")
        if builtins.any(shape[ax] != 1 for ax in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        dims = tuple(d for i, d in enumerate(shape) if i not in axes)
    if dims == shape:
        return a   # nothing to squeeze: NumPy returns the array itself
    return a._view(a._t.view(dims) if a._t.is_contiguous() else a._t.squeeze(
        tuple(i for i, d in enumerate(shape) if d == 1 and (axis is None or i in axes))))


@normalizer
def expand_dims(a: ArrayLike, axis):
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)   # no other iterable, as NumPy
    out_ndim = len(axes) + a.ndim
    axes = normalize_axis_tuple(axes, out_ndim)
    dims = iter(a.shape)
    # NumPy reshapes, which strides the new axes as a reshape does (not as ``None`` does)
    return a._view(a._t.reshape(tuple(1 if ax in axes else next(dims) for ax in range(out_ndim))))


def _broadcast_shape(*shapes):
    """NumPy's broadcasting of shapes (ValueError when they do not agree)."""
    ndim = builtins.max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, d in enumerate(shape, start=ndim - len(shape)):
            if d != 1:
                if result[i] != 1 and result[i] != d:
                    raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  "
                                     f"Mismatch is between shapes {tuple(result)} and {tuple(shape)}.")
                result[i] = d
    return tuple(result)


@normalizer
def broadcast_to(array: ArrayLike, shape, subok=False):
    dims = (shape,) if not isinstance(shape, (tuple, list, torch.Size)) else tuple(shape)
    dims = tuple(d if isinstance(d, torch.SymInt) else operator.index(d) for d in dims)
    if builtins.any(isinstance(d, int) and d < 0 for d in dims):
        raise ValueError("all elements of broadcast shape must be non-negative")
    if array.ndim > len(dims):
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    lead = len(dims) - array.ndim
    if builtins.any(s != 1 and s != d for s, d in zip(array.shape, dims[lead:])):
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {array.shape}  and requested shape {dims}")
    return array._view(array._t.expand(dims), readonly=True)   # NumPy's view is read-only


def broadcast_arrays(*args, subok=False):
    """A tuple (NumPy 2); arrays already of the common shape come back unchanged. The
    others are writeable views, as NumPy's still are (it warns on the first write)."""
    arrays = [_coerce.asarray(a) for a in args]
    common = _broadcast_shape(*(a.shape for a in arrays))
    results = tuple(a if a.shape == common else a._view(a._t.expand(common)) for a in arrays)
    return _writeable.broadcast_results(arrays, results)


def broadcast_shapes(*args):
    return _broadcast_shape(*(((s,) if not isinstance(s, (tuple, list)) else tuple(s)) for s in args))


def _at_least(ndim_target, keys, arys):
    """NumPy reshapes a 0-d array and indexes the others with ``keys[ndim]`` (``None``
    for each new axis), so their new axes have stride 0 and a 0-d one's a reshape's."""
    results = []
    for a in arys:
        a = _coerce.asarray(a)
        if a.ndim == 0:
            a = a._view(a._t.reshape((1,) * ndim_target))
        elif a.ndim < ndim_target:
            a = a[keys[a.ndim]]
        results.append(a)
    return results[0] if len(results) == 1 else tuple(results)


def atleast_1d(*arys):
    return _at_least(1, {}, arys)


def atleast_2d(*arys):
    return _at_least(2, {1: (None, slice(None))}, arys)


def atleast_3d(*arys):
    return _at_least(3, {1: (None, slice(None), None), 2: (slice(None), slice(None), None)}, arys)


# ---- joining ---------------------------------------------------------------------------
def _sequence_of_arrays(arrays):
    if isinstance(arrays, ndarray):  # an array is the sequence of its rows
        if arrays.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return [arrays._view(t) for t in torch.unbind(arrays._t)]
    if not hasattr(arrays, "__getitem__"):
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list or tuple.')
    return [_coerce.asarray(a) for a in arrays]


def _joined_dtype(arrays, dtype, out, casting):
    if dtype is not None and out is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both were provided.")
    target = (out.dtype if out is not None else _dtypes._as_dtype(dtype) if dtype is not None
              else _promotion.result_type(*arrays))
    for a in arrays:
        if not _promotion.can_cast(a.dtype, target, casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {target!r} according "
                            f"to the rule '{casting}'")
    return target


def _cat(tensors, axis, target):
    """torch.cat of same-dtype parts, moving uint16/32/64 as same-size signed bits."""
    parts = [movable(_coerce.cast_tensor(t, target)) for t in tensors]
    return restored(torch.cat(parts, axis), target.torch)


def _deliver(t, out):
    if out is None:
        return ndarray._wrap(t)
    if out.shape != tuple(t.shape):
        raise ValueError("Output array is the wrong shape")
    return write_out(ndarray._wrap(t), out, "unsafe")


@normalizer
def concatenate(arrays, /, axis=0, out: OutArray = None, *, dtype=None, casting="same_kind"):
    arrays = _sequence_of_arrays(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    axis = c_int_axis(axis)   # NumPy converts the axis before it looks at the arrays
    if arrays[0].ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ndim = arrays[0].ndim
    axis = normalize_axis(axis, ndim)
    for i, a in enumerate(arrays[1:], start=1):
        if a.ndim != ndim:
            raise ValueError("all the input arrays must have same number of dimensions, but the array "
                             f"at index 0 has {ndim} dimension(s) and the array at index {i} has "
                             f"{a.ndim} dimension(s)")
        for d in range(ndim):
            if d != axis and a.shape[d] != arrays[0].shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation axis "
                                 f"must match exactly, but along dimension {d}, the array at index 0 "
                                 f"has size {arrays[0].shape[d]} and the array at index {i} has size "
                                 f"{a.shape[d]}")
    target = _joined_dtype(arrays, dtype, out, casting)
    for a in arrays:   # NumPy casts each input into the result: a complex one into a real warns
        warn_complex_to_real(a._t.dtype, target.torch)
    joined = _cat([a._t for a in arrays], axis, target)
    return _deliver(joined if out is not None else _joined_layout(joined, [a._t for a in arrays]), out)


def _joined_layout(joined, tensors):
    """``joined`` laid out as NumPy's concatenate lays out its result (the inputs' common
    stride order, see ``_layout.joined_axes``)."""
    axes = _layout.joined_axes(tensors)
    if axes == list(range(joined.ndim)) and joined.is_contiguous() and joined.numel():
        return joined
    laid = _layout.empty_with_axes(joined.shape, joined.dtype, axes, joined.device)
    return joined if laid.stride() == joined.stride() else laid.copy_(joined)


concat = concatenate


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = _sequence_of_arrays(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    if builtins.any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, arrays[0].ndim + 1)
    expanded = [a._view(a._t.unsqueeze(axis)) for a in arrays]
    return concatenate(expanded, axis=axis, out=out, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    arrays = atleast_1d(*_sequence_of_arrays(tup))
    arrays = [arrays] if isinstance(arrays, ndarray) else list(arrays)
    axis = 0 if arrays and arrays[0].ndim == 1 else 1
    return concatenate(arrays, axis=axis, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    arrays = atleast_2d(*_sequence_of_arrays(tup))
    arrays = [arrays] if isinstance(arrays, ndarray) else list(arrays)
    return concatenate(arrays, axis=0, dtype=dtype, casting=casting)


def row_stack(tup, *, dtype=None, casting="same_kind"):
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


def dstack(tup):
    arrays = atleast_3d(*_sequence_of_arrays(tup))
    arrays = [arrays] if isinstance(arrays, ndarray) else list(arrays)
    return concatenate(arrays, axis=2)


def column_stack(tup):
    arrays = []
    for a in _sequence_of_arrays(tup):
        if a.ndim < 2:
            a = a._view(a._t.reshape(1, -1).T if a.ndim == 1 else a._t.reshape(1, 1))
        arrays.append(a)
    return concatenate(arrays, axis=1)


def _block_index_text(index):
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_bottom(arrays, index=()):
    """(the index of an element at the bottom of the nesting, max leaf ndim), checked
    in NumPy's order: a tuple, then mismatched depths; an empty list at the bottom is
    an index ending in None, reported by ``block`` only once the depths all agree."""
    if isinstance(arrays, tuple):
        raise TypeError(f"{_block_index_text(index)} is a tuple. Only lists can be used to arrange blocks, "
                        "and np.block does not allow implicit conversion from tuple to ndarray.")
    if not isinstance(arrays, list):
        return index, _coerce.asarray(arrays).ndim
    if not arrays:
        return index + (None,), 0
    found = (_block_bottom(a, index + (i,)) for i, a in enumerate(arrays))
    first, leaf_ndim = next(found)
    for bottom, ndim in found:
        leaf_ndim = builtins.max(leaf_ndim, ndim)
        if len(bottom) != len(first):
            raise ValueError(f"List depths are mismatched. First element was at depth {len(first)}, but there "
                             f"is an element at depth {len(bottom)} ({_block_index_text(bottom)})")
        if bottom[-1] is None:
            first = bottom
    return first, leaf_ndim


def block(arrays):
    bottom, leaf_ndim = _block_bottom(arrays)
    if bottom and bottom[-1] is None:
        raise ValueError(f"List at {_block_index_text(bottom)} cannot be empty")
    depth = len(bottom)
    result_ndim = builtins.max(depth, leaf_ndim)

    def assemble(item, level):
        if level == depth:
            a = _coerce.asarray(item)
            return a._view(a._t.reshape((1,) * (result_ndim - a.ndim) + a.shape))
        return concatenate([assemble(x, level + 1) for x in item], axis=-(depth - level))

    if depth == 0:
        return array(arrays, copy=True)
    return assemble(arrays, 0)


# ---- splitting -------------------------------------------------------------------------
def _split_points(n, indices_or_sections):
    try:
        sections = operator.index(indices_or_sections)
    except TypeError:
        bounds = [operator.index(i) for i in _as_python_list(indices_or_sections)]
        return [0] + bounds + [n]
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    each, extras = n // sections, n % sections  # (divmod does not take a SymInt)
    points = [0]
    for i in range(sections):
        points.append(points[-1] + each + (1 if i < extras else 0))
    return points


def _as_python_list(values):
    if isinstance(values, ndarray):
        return values._t.tolist()  # split positions shape the result: data-dependent by nature
    return list(values)


@normalizer
def array_split(ary: ArrayLike, indices_or_sections, axis=0):
    n = ary.shape[axis]  # IndexError for a bad axis, as NumPy
    axis = normalize_axis(axis, ary.ndim)
    points = _split_points(n, indices_or_sections)
    moved = ary._t.movedim(axis, 0)
    return [ary._view(moved[start:stop].movedim(0, axis)) for start, stop in zip(points, points[1:])]


@normalizer
def split(ary: ArrayLike, indices_or_sections, axis=0):
    try:
        sections = operator.index(indices_or_sections)
    except TypeError:
        sections = None
    if sections is not None and ary.shape[axis] % sections:  # ZeroDivisionError for 0, as NumPy
        raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


@normalizer
def hsplit(ary: ArrayLike, indices_or_sections):
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


@normalizer
def vsplit(ary: ArrayLike, indices_or_sections):
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


@normalizer
def dsplit(ary: ArrayLike, indices_or_sections):
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


@normalizer
def unstack(x: ArrayLike, /, *, axis=0):
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = normalize_axis(axis, x.ndim)
    if x.ndim == 1:  # iterating a 1-D array gives NumPy scalars
        return tuple(ndarray._wrap(t.clone(), scalar=True) for t in torch.unbind(x._t))
    return tuple(x._view(t) for t in torch.unbind(x._t, axis))


# ---- repeating -------------------------------------------------------------------------
def tile(A, reps):
    reps = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
    reps = tuple(operator.index(r) for r in reps)
    a = array(A, copy=None, ndmin=len(reps))
    if builtins.any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    reps = (1,) * (a.ndim - len(reps)) + reps
    return ndarray._wrap(restored(movable(a._t).repeat(reps), a._t.dtype))


@normalizer
def repeat(a: ArrayLike, repeats, axis=None):
    if axis is None or a.ndim == 0:  # NumPy treats a 0-D array as 1-D here
        a = ravel(a)
    axis = normalize_axis(0 if axis is None else axis, a.ndim)
    t = movable(a._t)
    if isinstance(repeats, (int, numpy.integer)) or (isinstance(repeats, ndarray) and repeats.ndim == 0):
        count = operator.index(repeats) if not isinstance(repeats, ndarray) else int(repeats.item())
        if count < 0:
            raise ValueError("negative dimensions are not allowed")
        return ndarray._wrap(restored(t.repeat_interleave(count, axis), a._t.dtype))
    counts = _coerce.asarray(repeats)
    if not _promotion.can_cast(counts.dtype, _dtypes.int64.dtype, "safe") and counts.dtype.kind != "f":
        raise TypeError(f"Cannot cast array data from {counts.dtype!r} to dtype('int64') "
                        "according to the rule 'safe'")
    counts_t = counts._t.to(torch.int64).reshape(-1)
    n = a.shape[axis]
    if counts_t.shape[0] not in (1, n):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({counts_t.shape[0]},)")
    if builtins.bool((counts_t < 0).any()):  # the output length depends on the counts anyway
        raise ValueError("repeats may not contain negative values.")
    return ndarray._wrap(restored(t.repeat_interleave(counts_t.expand(n), axis), a._t.dtype))


# ---- reordering ------------------------------------------------------------------------
@normalizer
def flip(m: ArrayLike, axis: AxisLike = None):
    """A copy, where NumPy gives a negative-stride view; with no axis to reverse it is
    NumPy's ``m[()]``: a view, or a scalar for a 0-D array."""
    axes = normalize_axis_tuple(axis, m.ndim)
    if not axes:
        return ndarray._wrap(m._t.clone(), scalar=True) if m.ndim == 0 else m._view(m._t.view(m._t.shape))
    return _flipped.register(ndarray._wrap(restored(movable(m._t).flip(axes), m._t.dtype)), m, m._t, axes)


@normalizer
def fliplr(m: ArrayLike):
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


@normalizer
def flipud(m: ArrayLike):
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


@normalizer
def roll(a: ArrayLike, shift, axis=None):
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = list(normalize_axis_tuple(axis, a.ndim, allow_duplicate=True))
    if a.ndim == 0:   # only () or [] get here; NumPy's loop over no axes fails unpacking
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    shifts = [operator.index(s) for s in (shift if isinstance(shift, (tuple, list)) else (shift,))]
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                         f"is between arg 0 with shape ({len(shifts)},) and arg 1 with shape ({len(axes)},).")
    count = builtins.max(len(shifts), len(axes))
    shifts = shifts * count if len(shifts) == 1 else shifts
    axes = axes * count if len(axes) == 1 else axes
    total = {}
    for s, ax in zip(shifts, axes):
        total[ax] = total.get(ax, 0) + s
    if not total:
        return ndarray._wrap(a._t.clone())
    dims = tuple(total)
    sizes = [a.shape[d] for d in dims]
    amounts = tuple(s % n if n else 0 for s, n in zip(total.values(), sizes))
    rolled = restored(movable(a._t).roll(amounts, dims), a._t.dtype)
    return ndarray._wrap(_layout.keep_order_of(rolled, a._t))   # NumPy rolls into empty_like(a)


@normalizer
def rot90(m: ArrayLike, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or builtins.abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not (-m.ndim <= axes[0] < m.ndim and -m.ndim <= axes[1] < m.ndim):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m._view(m._t.view(m._t.shape))
    if k == 2:
        return flip(m, axes)
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    moved = movable(m._t)
    flipped_dim = axes[1] if k == 1 else order[axes[1]]
    turned = moved.flip(flipped_dim).permute(tuple(order))
    return _flipped.register(ndarray._wrap(restored(turned, m._t.dtype)), m, m._t, (flipped_dim,), order)


@normalizer
def diagonal(a: ArrayLike, offset=0, axis1=0, axis2=1):
    """A view, read-only as NumPy's."""
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1 = normalize_axis(axis1, a.ndim)
    axis2 = normalize_axis(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return a._view(torch.diagonal(a._t, operator.index(offset), axis1, axis2), readonly=True)


# ---- resizing, inserting, deleting ----------------------------------------------------
@normalizer
def resize(a: ArrayLike, new_shape):
    dims = (new_shape,) if not isinstance(new_shape, (tuple, list)) else tuple(new_shape)
    dims = tuple(operator.index(d) for d in dims)
    new_size = 1
    for d in dims:
        new_size *= d
        if d < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    flat = a._t.reshape(-1)
    if flat.shape[0] == 0 or new_size == 0:
        return ndarray._wrap(torch.zeros(dims, dtype=a._t.dtype, device=a._t.device))
    repeats = -(-new_size // flat.shape[0])
    return ndarray._wrap(restored(movable(flat).repeat(repeats)[:new_size].reshape(dims), a._t.dtype))


def append(arr, values, axis=None):
    arr = _coerce.asarray(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = ravel(arr)
        values = ravel(values)
        axis = arr.ndim - 1
    return concatenate((arr, values), axis=axis)


def _flat_or_axis(arr, axis):
    if axis is None:
        arr = ravel(arr) if arr.ndim != 1 else arr
        return arr, arr.ndim - 1
    return arr, normalize_axis(axis, arr.ndim)


def _take_along(t, axis, index):
    """Positions ``index`` (a Python list) of axis ``axis``, any dtype."""
    moved = movable(t)
    return restored(moved.index_select(axis, torch.tensor(index, dtype=torch.int64,
                                                          device=t.device)), t.dtype)


@normalizer
def delete(arr: ArrayLike, obj, axis=None):
    """Which positions go is decided in Python: the result's length depends on ``obj``."""
    arr, axis = _flat_or_axis(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        doomed = set(range(*obj.indices(n)))
    elif isinstance(obj, (int, numpy.integer)) and not isinstance(obj, (bool, numpy.bool_)):
        index = operator.index(obj)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
        doomed = {index % n}
    else:
        positions = numpy.asarray(_coerce.to_numpy(_coerce.asarray(obj)) if isinstance(obj, ndarray)
                                  else obj)
        if positions.dtype == bool:
            if positions.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one dimensional and "
                                 f"match the axis length of {n}")
            doomed = set(numpy.flatnonzero(positions).tolist())
        else:
            if positions.size == 0 and not isinstance(obj, (ndarray, numpy.ndarray)):
                positions = positions.astype(numpy.intp)   # [] deletes nothing; an empty float array is refused
            if positions.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            flat = positions.reshape(-1).tolist()
            for p in flat:
                if not -n <= p < n:
                    raise IndexError(f"index {p} is out of bounds for axis {axis} with size {n}")
            doomed = {p % n for p in flat}
    keep = [i for i in range(n) if i not in doomed]
    return ndarray._wrap(_layout.keep_order_of(_take_along(arr._t, axis, keep), arr._t, "A"))


@normalizer
def insert(arr: ArrayLike, obj, values, axis=None):
    """NumPy's placement rules: a scalar index inserts ``values`` as one block (moved
    so its first axis runs along ``axis``); a sequence inserts one slice per index,
    each before the original position it names."""
    arr, axis = _flat_or_axis(arr, axis)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        indices = numpy.arange(*obj.indices(n), dtype=numpy.intp)
    else:
        indices = numpy.array(_coerce.to_numpy(obj) if isinstance(obj, ndarray) else obj)
        if indices.dtype == bool:
            raise UnsupportedError("insert with a boolean obj (NumPy casts it to integers, with a FutureWarning)")
        if indices.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    if indices.size == 0 and not isinstance(obj, (numpy.ndarray, ndarray)):
        indices = indices.astype(numpy.intp)
    if indices.dtype.kind not in "iu" and indices.size != 1:
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if indices.size == 1:
        index = indices.item()
        if not isinstance(index, int):
            raise TypeError("slice indices must be integers or None or have an __index__ method")
        if not -n <= index <= n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        index += n if index < 0 else 0
        block_ = array(values, copy=None, ndmin=arr.ndim, dtype=arr.dtype)
        if indices.ndim == 0:
            block_ = moveaxis(block_, 0, axis)
        count = block_.shape[axis]
        new_positions = list(range(index, index + count))
    else:
        positions = [p + n if p < 0 else p for p in indices.tolist()]
        for p in positions:
            if not 0 <= p <= n:
                raise IndexError(f"index {p - n if p < 0 else p} is out of bounds for axis {axis} "
                                 f"with size {n + len(positions)}")
        count = len(positions)
        order = sorted(range(count), key=lambda i: positions[i])
        new_positions = [0] * count
        for rank, i in enumerate(order):
            new_positions[i] = positions[i] + rank
        block_ = array(values, copy=None, ndmin=0, dtype=arr.dtype)
    block_shape = list(arr.shape)
    block_shape[axis] = count
    block_t = _broadcast_block(block_, tuple(block_shape))
    # output slot -> position in cat(arr, block) along axis
    taken = set(new_positions)
    slot_source = [0] * (n + count)
    for j, p in enumerate(new_positions):
        slot_source[p] = n + j
    originals = iter(range(n))
    for slot in range(n + count):
        if slot not in taken:
            slot_source[slot] = next(originals)
    joined = restored(torch.cat((movable(arr._t), movable(block_t)), axis), arr._t.dtype)
    return ndarray._wrap(_layout.keep_order_of(_take_along(joined, axis, slot_source), arr._t, "A"))


def _broadcast_block(block_, shape):
    try:
        return block_._t.broadcast_to(shape)
    except RuntimeError:
        raise ValueError(f"could not broadcast input array from shape {block_.shape} into shape "
                         f"{shape}") from None


def trim_zeros(filt, trim="fb", axis=None):
    """Bounds come from where the nonzeros are (data-dependent by nature); the result
    slices ``filt`` itself, so a list stays a list and an array gives a view."""
    arr = _coerce.asarray(filt)
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = normalize_axis_tuple(axis, arr.ndim)
    if not axes:
        return filt
    nonzero = torch.nonzero(arr._t != 0)
    if nonzero.shape[0] == 0:
        start = stop = [0] * arr.ndim
    else:
        start = nonzero.min(0).values.tolist() if "f" in trim else [None] * arr.ndim
        stop = [s + 1 for s in nonzero.max(0).values.tolist()] if "b" in trim else [None] * arr.ndim
    bounds = tuple(slice(start[ax], stop[ax]) if ax in axes else slice(None) for ax in range(arr.ndim))
    if not isinstance(filt, ndarray) and arr.ndim == 1:
        return filt[bounds[0]]
    return arr._view(arr._t[bounds])


# ---- padding ---------------------------------------------------------------------------
_PAD_KEYWORDS = {
    "constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
    "linear_ramp": {"end_values"}, "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
    "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"},
    "median": {"stat_length"},
}


def _as_pairs(x, ndim, as_index=False):
    """NumPy's pad-argument broadcasting: scalar, (before, after) or one pair per axis."""
    if x is None:
        return ((None, None),) * ndim
    x = numpy.array(_coerce.to_numpy(x) if isinstance(x, ndarray) else x)
    if as_index:
        x = numpy.round(x).astype(numpy.intp)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x[0] < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0].item(), x[0].item()),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0].item(), x[1].item()),) * ndim
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return numpy.broadcast_to(x, (ndim, 2)).tolist()


def _integral_pad_width(pad_width, ndim):
    """NumPy's accepted forms: integers in any nesting, or {axis: int or (before, after)}."""
    if isinstance(pad_width, dict):
        per_axis = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            if isinstance(width, int):
                per_axis[axis] = (width, width)
            elif isinstance(width, tuple) and len(width) == 2 and all(isinstance(w, int) for w in width):
                per_axis[axis] = width
            else:
                raise AssertionError(f"Expected code to be unreachable, but got: {width!r}")
        pad_width = per_axis
    widths = numpy.asarray(_coerce.to_numpy(pad_width) if isinstance(pad_width, ndarray) else pad_width)
    if widths.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return widths


def pad(array, pad_width, mode="constant", **kwargs):
    """Pads one axis after another, each over the already padded earlier axes (so the
    corners come out as NumPy's)."""
    arr = _coerce.asarray(array)
    widths = _as_pairs(_integral_pad_width(pad_width, arr.ndim), arr.ndim, as_index=True)
    if callable(mode):
        raise UnsupportedError("pad with a callable mode")
    if mode not in _PAD_KEYWORDS:
        raise ValueError(f"mode '{mode}' is not supported")
    unexpected = set(kwargs) - _PAD_KEYWORDS[mode]
    if unexpected:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unexpected}")
    if mode in ("maximum", "minimum", "median") and arr.dtype.kind == "c":
        raise UnsupportedError(f"pad mode '{mode}' for complex arrays (NumPy orders them lexicographically)")
    t = arr._t
    if mode not in ("constant", "empty"):
        for axis, (before, after) in enumerate(widths):
            if t.shape[axis] == 0 and (before or after):
                raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
    if mode == "constant":
        values = _as_pairs(kwargs.get("constant_values", 0), arr.ndim)
    elif mode == "linear_ramp":
        values = _as_pairs(kwargs.get("end_values", 0), arr.ndim)
    elif mode in ("maximum", "minimum", "mean", "median"):
        values = _as_pairs(kwargs.get("stat_length"), arr.ndim, as_index=True)
    else:
        values = [None] * arr.ndim
    odd = kwargs.get("reflect_type", "even") == "odd"
    if odd and arr.dtype.kind == "b":
        raise UnsupportedError("pad reflect_type='odd' for bool arrays")
    for axis, ((before, after), extra) in enumerate(zip(widths, values)):
        if before or after:
            t = _PADDERS[mode](t, axis, before, after, extra, odd)
    return ndarray._wrap(_layout.keep_order_of(t, arr._t, "A"))   # NumPy pads into F for a Fortran array


def _filled(t, axis, width, value):
    """``width`` slices of ``t`` along ``axis``, all equal to the 0-D tensor ``value``."""
    shape = list(t.shape)
    shape[axis] = width
    return value.expand(shape)


def _scalar_of(value, dt):
    """A pad value (Python or NumPy number) cast to ``dt`` as NumPy's item assignment does."""
    return _coerce.cast_tensor(_coerce.asarray(value)._t, _dtypes.from_torch(dt))


def _pad_constant(t, axis, before, after, pair, odd):
    parts = (_filled(t, axis, before, _scalar_of(pair[0], t.dtype)), t,
             _filled(t, axis, after, _scalar_of(pair[1], t.dtype)))
    return restored(torch.cat([movable(p) for p in parts], axis), t.dtype)


def _pad_empty(t, axis, before, after, pair, odd):
    shape = list(t.shape)
    shape[axis] += before + after
    out = torch.zeros(shape, dtype=t.dtype, device=t.device)
    out.narrow(axis, before, t.shape[axis]).copy_(t)
    return out


def _periodic_index(n, before, after, fold):
    return [fold(i, n) for i in range(-before, n + after)]


def _pad_by_index(fold):
    def pad_axis(t, axis, before, after, pair, odd):
        return _take_along(t, axis, _periodic_index(t.shape[axis], before, after, fold))
    return pad_axis


def _edge(i, n):
    return builtins.min(builtins.max(i, 0), n - 1)


def _wrap(i, n):
    return i % n


def _reflect(i, n):
    if n == 1:
        return 0
    m = i % (2 * n - 2)
    return m if m < n else 2 * n - 2 - m


def _symmetric(i, n):
    m = i % (2 * n)
    return m if m < n else 2 * n - 1 - m


def _pad_mirror(fold, period_of):
    """reflect/symmetric; 'odd' mirrors values through the edge value: each period
    further out adds twice the edge difference (NumPy's repeated odd reflections)."""
    even = _pad_by_index(fold)

    def pad_axis(t, axis, before, after, pair, odd):
        n = t.shape[axis]
        if n == 1:
            return _pad_by_index(_edge)(t, axis, before, after, pair, odd)
        if not odd:
            return even(t, axis, before, after, pair, odd)
        period = period_of(n)
        # integer arithmetic wraps like NumPy's: modular, in a wide signed type
        compute = torch.int64 if _is_small_int(t.dtype) or t.dtype == torch.uint64 else t.dtype
        work = movable(t).to(compute)
        first, last = work.narrow(axis, 0, 1), work.narrow(axis, n - 1, 1)
        positions = range(-before, n + after)
        along = [-1 if d == axis else 1 for d in range(t.ndim)]
        turns = torch.tensor([i // period for i in positions], device=t.device).to(compute).reshape(along)
        mirrored = torch.tensor([builtins.bool(i % period >= n) for i in positions], device=t.device).reshape(along)
        values = work.index_select(axis, torch.tensor([fold(i % period, n) for i in positions], device=t.device))
        out = torch.where(mirrored, 2 * last - values, values) + turns * 2 * (last - first)
        if t.dtype == torch.uint64:
            return out.view(torch.uint64)
        return _coerce.cast_tensor(out, _dtypes.from_torch(t.dtype)) if compute != t.dtype else out
    return pad_axis


def _is_small_int(torch_dtype):
    """Integer types whose arithmetic torch lacks or that we widen to wrap like NumPy."""
    return torch_dtype in (torch.uint8, torch.uint16, torch.uint32, torch.int8, torch.int16, torch.int32)


def _pad_linear_ramp(t, axis, before, after, pair, odd):
    n = t.shape[axis]
    dt = _dtypes.from_torch(t.dtype)
    edges = (t.narrow(axis, 0, 1), t.narrow(axis, n - 1, 1))
    ramps = []
    for end, edge, width in zip(pair, edges, (before, after)):
        ramp = linspace(end, ndarray._wrap(edge.squeeze(axis)), num=width, endpoint=False,
                        dtype=dt, axis=axis)._t
        ramps.append(ramp)
    parts = (movable(ramps[0]), movable(t), movable(ramps[1]).flip(axis))   # torch cannot flip uint16/32/64
    return restored(torch.cat(parts, axis), t.dtype)


def _extreme(chunk, axis, largest):
    """amax/amin keeping dims, for every real dtype (through ``orderable``)."""
    work, back = orderable(chunk)
    return back(work.amax(axis, keepdim=True) if largest else work.amin(axis, keepdim=True))


def _statistic(mode, chunk, axis, dt):
    """max/min/mean/median of ``chunk`` along ``axis`` (kept), rounded for integers."""
    if mode in ("maximum", "minimum"):
        return _extreme(chunk, axis, mode == "maximum")
    calc = torch.float64 if dt.kind in "biu" else torch.float32 if chunk.dtype == torch.float16 else chunk.dtype
    work = chunk.to(calc)
    if mode == "mean":
        stat = work.mean(axis, keepdim=True)
    else:
        ordered = work.sort(axis).values
        k = chunk.shape[axis]
        middle = ordered.narrow(axis, (k - 1) // 2, 2 - k % 2)
        stat = middle.mean(axis, keepdim=True)
        stat = torch.where(work.isnan().any(axis, keepdim=True), torch.nan, stat)
    if dt.kind in "iu":
        stat = torch.round(stat)
    return _coerce.cast_tensor(stat, dt)


def _pad_statistic(mode):
    def pad_axis(t, axis, before, after, lengths, odd):
        n = t.shape[axis]
        dt = _dtypes.from_torch(t.dtype)
        stats = []
        for length, from_end in zip(lengths, (False, True)):
            length = n if length is None else builtins.min(length, n)
            if length == 0:
                if mode in ("maximum", "minimum"):
                    raise ValueError("stat_length of 0 yields no value for padding")
                chunk_stat = torch.full_like(t.narrow(axis, 0, 1), torch.nan) if dt.kind in "fc" else None
                if chunk_stat is None:
                    raise UnsupportedError("pad stat_length=0 on an integer array (NumPy casts NaN)")
                stats.append(chunk_stat)
                continue
            chunk = t.narrow(axis, n - length if from_end else 0, length)
            stats.append(_statistic(mode, chunk, axis, dt))
        parts = (stats[0].expand(*[before if d == axis else s for d, s in enumerate(t.shape)]), t,
                 stats[1].expand(*[after if d == axis else s for d, s in enumerate(t.shape)]))
        return restored(torch.cat([movable(p) for p in parts], axis), t.dtype)
    return pad_axis


_PADDERS = {
    "constant": _pad_constant, "empty": _pad_empty, "edge": _pad_by_index(_edge),
    "wrap": _pad_by_index(_wrap),
    "reflect": _pad_mirror(_reflect, lambda n: 2 * n - 2),
    "symmetric": _pad_mirror(_symmetric, lambda n: 2 * n),
    "linear_ramp": _pad_linear_ramp,
    "maximum": _pad_statistic("maximum"), "minimum": _pad_statistic("minimum"),
    "mean": _pad_statistic("mean"), "median": _pad_statistic("median"),
}


# ---- metadata --------------------------------------------------------------------------
def shape(a):
    return _coerce.asarray(a).shape


def ndim(a):
    return _coerce.asarray(a).ndim


def size(a, axis=None):
    arr = _coerce.asarray(a)
    if axis is None:
        return arr.size
    axis = _axis(axis)   # NumPy's normalize_axis_tuple: any iterable of axes ('' is none)
    if isinstance(axis, tuple):
        result = 1
        for ax in normalize_axis_tuple(axis, arr.ndim):
            result *= arr.shape[ax]
        return result
    return arr.shape[normalize_axis(axis, arr.ndim)]
