"""Argument normalization by annotation, so each NumPy function body stays a few lines.

Annotate a parameter with one of the marker classes below and decorate the function
with ``@normalizer``; the wrapper converts that argument before the body runs:

    @normalizer
    def flip(m: ArrayLike, axis: AxisLike = None): ...

``ArrayLike`` -> shim ndarray; ``OptionalArrayLike`` -> ndarray or None;
``ArrayLikeSeq`` -> tuple of ndarrays; ``DTypeLike`` -> shim dtype or None;
``AxisLike`` -> None, int or tuple (any iterable, as NumPy's normalize_axis_tuple;
``operator.index`` applied to each item that takes it, the rest refused in order by
``normalize_axis``/``normalize_axis_tuple``, which check ranges against ``ndim``);
``OutArray`` -> None or a shim ndarray (TypeError otherwise, as NumPy).
"""
import functools
import inspect
import operator

import numpy
import torch

from . import _dtypes, _flipped, _promotion, _self_overlap
from ._coerce import asarray, cast_tensor, numpy_target
from ._errors import AxisError, AxisOverflowError
from ._graph_warnings import warn_complex_to_real
from ._ndarray import ndarray

NO_VALUE = numpy._NoValue  # NumPy's own "not given" default, so passing it means the same


class ArrayLike:
    """-> a shim ndarray"""


class OptionalArrayLike:
    """-> a shim ndarray, or None"""


class ArrayLikeSeq:
    """-> a tuple of shim ndarrays"""


class DTypeLike:
    """-> a shim dtype, or None"""


class AxisLike:
    """-> None, an int or a tuple of ints"""


class OutArray:
    """-> None or a shim ndarray"""


def _index_or_as_given(item):
    try:
        return operator.index(item)
    except TypeError:   # normalize_axis refuses it in its turn, after earlier items' range
        return item


def _axis(axis):
    """None, an int, or a tuple: as NumPy's normalize_axis_tuple reads an axis, anything
    iterable that is not an integer (a list, a range, '', an array) is its items."""
    if axis is None:
        return None
    if not isinstance(axis, (tuple, list)):
        try:
            return operator.index(axis)
        except TypeError as exc:
            try:
                axis = tuple(axis)
            except TypeError:
                raise exc from None
    return tuple(_index_or_as_given(a) for a in axis)


# NumPy's C axis converters take no bool, which ``operator.index`` takes for 0 or 1: its
# ufunc reductions (and the functions over them) and the PyArray_AxisConverter of
# argsort, squeeze and others raise TypeError, each with its own message (for an axis,
# for a tuple holding a bool). The functions NumPy writes in Python (flip, expand_dims,
# median, quantile, average, sort, partition) convert with operator.index and take it.
_REDUCTION_BOOL = ("an integer is required", "an integer is required")
_CONVERTER_BOOL = ("an integer is required for the axis", "'tuple' object cannot be interpreted as an integer")
_BOOL_AXIS_REFUSED = {
    **dict.fromkeys(("sum", "prod", "max", "min", "nanmax", "nanmin", "ptp", "any",
                     "all", "count_nonzero", "cumulative_sum", "cumulative_prod", "nansum", "nanprod",
                     "nanargmax", "nanargmin"), _REDUCTION_BOOL),
    **dict.fromkeys(("argmax", "argmin", "argsort", "argpartition", "cumsum", "cumprod", "nancumsum",
                     "nancumprod", "take", "compress", "concatenate", "repeat"), _CONVERTER_BOOL),
    "squeeze": ("an integer is required for the axis", "integers are required for the axis tuple elements"),
}


# mean, var and std count the reduced items first, with normalize_axis_index, which
# takes a bool: an out-of-range axis is an AxisError before the sum refuses the bool.
# nanmean, nanvar and nanstd are those for integer data, sums (ufunc rules) otherwise.
_BOOL_AXIS_REFUSED_LATE = ("mean", "var", "std", "nanmean", "nanvar", "nanstd")


# PyArray_AxisConverter reads INT_MIN (NPY_RAVEL_AXIS) as axis=None.
_RAVEL_AXIS = -2 ** 31


def _is_ravel_axis(axis):
    try:
        return operator.index(axis) == _RAVEL_AXIS
    except TypeError:
        return False


class _RefusedItem:
    """A bool inside an axis tuple, for a C converter that refuses it when it reaches
    it: items are converted and range checked in order, so ``(0, False)`` of a 0-D
    array is an AxisError and ``(False, 1)`` a TypeError; ``normalize_axis`` (through
    ``operator.index``) raises the converter's TypeError here."""

    def __init__(self, message):
        self.message = message

    def __index__(self):
        raise TypeError(self.message)


def _axis_without_bool(messages, then):
    """The ``axis`` converter of a function whose NumPy counterpart refuses a bool axis
    (above): the bool check, then ``then`` (``_axis`` for an AxisLike axis; None: the
    axis as given). These C converters take an int or a tuple, never a list; the
    PyArray_AxisConverter ones (_CONVERTER_BOOL) read INT_MIN as None."""
    single, in_tuple = messages

    def convert(axis):
        if type(axis) is bool:
            raise TypeError(single)
        if isinstance(axis, list):
            raise TypeError("'list' object cannot be interpreted as an integer")
        if isinstance(axis, tuple) and any(type(a) is bool for a in axis):
            axis = tuple(_RefusedItem(in_tuple) if type(a) is bool else a for a in axis)
        if axis is not None and not isinstance(axis, tuple):
            operator.index(axis)   # one integer, not an iterable of them
        if messages is _CONVERTER_BOOL and _is_ravel_axis(axis):
            return None
        return axis if then is None else then(axis)
    return convert


# The axis converter of NumPy's ufunc reductions (ufunc.reduce/.accumulate, np.sum and
# the functions over them): no bool, no list, TypeError before any range check.
ufunc_axis = _axis_without_bool(_REDUCTION_BOOL, _axis)


def _axis_keeping_bools(axis):
    """The axis as given (bools kept for a later ``refuse_bool_axis``, items converted
    in order by normalize_axis), a list refused, as _BOOL_AXIS_REFUSED_LATE do."""
    if isinstance(axis, list):
        raise TypeError("'list' object cannot be interpreted as an integer")
    return axis


def refuse_bool_axis(axis):
    """The ufunc reductions' bool refusal alone, for a function that checks the range
    first (``_axis_keeping_bools``)."""
    if type(axis) is bool or (isinstance(axis, tuple) and any(type(a) is bool for a in axis)):
        raise TypeError(_REDUCTION_BOOL[0])


def counted_axes(axis, ndim):
    """The axes of mean, var and std (no ``where=``): NumPy counts the items first,
    normalize_axis_index on each (a bool taken, a string not iterated, repeats allowed),
    then sums, and the sum refuses a bool, then a repeated axis."""
    axes = normalize_axis_tuple(axis if axis is None or isinstance(axis, tuple) else (axis,), ndim,
                                allow_duplicate=True)
    refuse_bool_axis(axis)
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return axes


def _out(out):
    if out is None:
        return None
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if type(out) is numpy.ndarray:   # written in place, as NumPy writes it
        out = numpy_target(out)
    if not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    out._check_writeable("output array is read-only")
    return out


_CONVERTERS = {
    ArrayLike: asarray,
    OptionalArrayLike: lambda x: None if x is None else asarray(x),
    ArrayLikeSeq: lambda xs: tuple(asarray(x) for x in xs),
    DTypeLike: _dtypes.as_dtype_or_none,
    AxisLike: _axis,
    OutArray: _out,
}


def normalizer(fn):
    """Convert annotated arguments (see module docstring) before calling ``fn``."""
    sig = inspect.signature(fn)
    converters = {name: _CONVERTERS[p.annotation] for name, p in sig.parameters.items()
                  if p.annotation in _CONVERTERS}
    refused = _BOOL_AXIS_REFUSED.get(fn.__name__)
    if refused is not None and "axis" in sig.parameters:
        converters["axis"] = _axis_without_bool(refused, converters.get("axis"))
    elif fn.__name__ in _BOOL_AXIS_REFUSED_LATE and "axis" in sig.parameters:
        converters["axis"] = _axis_keeping_bools
    outs = [name for name, p in sig.parameters.items() if p.annotation is OutArray]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        arguments = bound.arguments
        for name, convert in converters.items():
            if name in arguments:
                arguments[name] = convert(arguments[name])
        result = fn(*bound.args, **bound.kwargs)
        for name in outs:
            _flipped.written(arguments.get(name))
        return result

    return wrapper


def c_int_axis(axis):
    """``operator.index(axis)``, refused as NumPy's conversion to a C int refuses it."""
    axis = operator.index(axis)
    if not -2 ** 31 <= axis < 2 ** 31:
        width = "int" if -2 ** 63 <= axis < 2 ** 63 else "long"
        raise AxisOverflowError(f"Python int too large to convert to C {width}")
    return axis


def normalize_axis(axis, ndim):
    """One axis, negative allowed, checked against ``ndim`` (NumPy's AxisError)."""
    axis = c_int_axis(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def normalize_axis_tuple(axis, ndim, allow_duplicate=False):
    """None -> all axes; an integer or any iterable of them (NumPy's: a range, '', an
    array) -> tuple of non-negative axes in the order given."""
    if axis is None:
        return tuple(range(ndim))
    axes = _axis(axis)
    axes = (axes,) if not isinstance(axes, tuple) else axes
    axes = tuple(normalize_axis(a, ndim) for a in axes)
    if not allow_duplicate and len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    return axes


def where_mask(where):
    """``where=`` as a bool tensor, or None for the default True. NumPy casts an array
    mask with the 'safe' rule, so an array of any other dtype is a TypeError; any other
    value (a Python or NumPy scalar, a list: constants) it converts to bool item by
    item, by truth: ``where=[1, 0, 2]`` is ``[True, False, True]``."""
    if where is True:
        return None
    if not isinstance(where, (ndarray, numpy.ndarray)) and not holds_arrays(where):
        return torch.from_numpy(numpy.array(where, dtype=bool))
    mask = asarray(where)
    if mask.dtype is not _dtypes.bool.dtype:
        source = "scalar" if mask.ndim == 0 else "array data"
        raise TypeError(f"Cannot cast {source} from {mask.dtype!r} to dtype('bool') "
                        "according to the rule 'safe'")
    return mask._t


def holds_arrays(value):
    """A (nested) list or tuple with a shim array inside (traced data: asarray's path)."""
    if isinstance(value, ndarray):
        return True
    return isinstance(value, (list, tuple)) and any(holds_arrays(v) for v in value)


def write_out(result, out, casting="same_kind", complex_warnings=1):
    """Store ``result`` (an ndarray) into ``out`` as NumPy's ``out=`` does: shape must
    broadcast to out's, the dtype must cast under ``casting``; a complex result into a
    real ``out`` warns ``complex_warnings`` times (once per cast NumPy makes). Returns ``out``."""
    if not _promotion.can_cast(result.dtype, out.dtype, casting):
        raise TypeError(f"Cannot cast ufunc output from {result.dtype!r} to {out.dtype!r} "
                        f"with casting rule '{casting}'")
    if torch.broadcast_shapes(result._t.shape, out._t.shape) != out._t.shape:
        raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't match "
                         f"the broadcast shape {torch.broadcast_shapes(result._t.shape, out._t.shape)}")
    warn_complex_to_real(result._t.dtype, out.dtype.torch, complex_warnings)
    _self_overlap.store(out._t, cast_tensor(result._t, out.dtype))
    _flipped.written(out)
    return out


def finish(t, out=None, scalar=False, casting="same_kind", complex_warnings=1):
    """Wrap a result tensor; with ``out`` store into it and return it (never a scalar)."""
    result = ndarray._wrap(t, scalar and t.ndim == 0)
    return result if out is None else write_out(result, out, casting, complex_warnings)
