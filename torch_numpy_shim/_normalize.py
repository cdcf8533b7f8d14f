"""Argument normalization by annotation, so each NumPy function body stays a few lines.

Annotate a parameter with one of the marker classes below and decorate the function
with ``@normalizer``; the wrapper converts that argument before the body runs:

    @normalizer
    def flip(m: ArrayLike, axis: AxisLike = None): ...

``ArrayLike`` -> shim ndarray; ``OptionalArrayLike`` -> ndarray or None;
``ArrayLikeSeq`` -> tuple of ndarrays; ``DTypeLike`` -> shim dtype or None;
``AxisLike`` -> None, int or tuple of ints (``operator.index`` applied; range checks
need ``ndim`` and happen in ``normalize_axis``/``normalize_axis_tuple``);
``OutArray`` -> None or a shim ndarray (TypeError otherwise, as NumPy).
"""
import functools
import inspect
import operator

import numpy
import torch

from . import _dtypes, _flipped, _promotion, _self_overlap
from ._coerce import asarray, cast_tensor, numpy_target
from ._errors import AxisError
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


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(operator.index(a) for a in axis)
    return operator.index(axis)


# NumPy's C axis converters take no bool, which ``operator.index`` takes for 0 or 1: its
# ufunc reductions (and the functions over them) and the PyArray_AxisConverter of
# argsort, squeeze and others raise TypeError, each with its own message (for an axis,
# for a tuple holding a bool). The functions NumPy writes in Python (flip, expand_dims,
# median, quantile, average, sort, partition) convert with operator.index and take it.
_REDUCTION_BOOL = ("an integer is required", "an integer is required")
_CONVERTER_BOOL = ("an integer is required for the axis", "'tuple' object cannot be interpreted as an integer")
_BOOL_AXIS_REFUSED = {
    **dict.fromkeys(("sum", "prod", "mean", "var", "std", "max", "min", "nanmax", "nanmin", "ptp", "any",
                     "all", "count_nonzero", "cumulative_sum", "cumulative_prod", "nansum", "nanprod",
                     "nanmean", "nanvar", "nanstd", "nanargmax", "nanargmin"), _REDUCTION_BOOL),
    **dict.fromkeys(("argmax", "argmin", "argsort", "argpartition", "cumsum", "cumprod", "nancumsum",
                     "nancumprod", "take", "compress", "concatenate", "repeat"), _CONVERTER_BOOL),
    "squeeze": ("an integer is required for the axis", "integers are required for the axis tuple elements"),
}


def _axis_without_bool(messages, then):
    """The ``axis`` converter of a function whose NumPy counterpart refuses a bool axis
    (above): the bool check, then ``then`` (``_axis`` for an AxisLike axis; None: the
    axis as given)."""
    single, in_tuple = messages

    def convert(axis):
        if type(axis) is bool:
            raise TypeError(single)
        if isinstance(axis, (tuple, list)) and any(type(a) is bool for a in axis):
            raise TypeError(in_tuple if isinstance(axis, tuple)
                            else "'list' object cannot be interpreted as an integer")
        return axis if then is None else then(axis)
    return convert


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


def normalize_axis(axis, ndim):
    """One axis, negative allowed, checked against ``ndim`` (NumPy's AxisError)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def normalize_axis_tuple(axis, ndim, allow_duplicate=False):
    """None -> all axes; int or sequence -> sorted-as-given tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
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
