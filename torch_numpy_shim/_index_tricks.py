"""NumPy's index-trick objects that build arrays from slices: ``mgrid`` (dense grids),
``ogrid`` (open grids); ``s_`` and ``index_exp`` only build index keys, so they are
NumPy's own. A slice ``a:b:c`` is ``arange(a, b, c)``, or with an imaginary step
``a:b:nj``, ``linspace(a, b, n)``; the grid is float64 when any bound or step is not
an int, else NumPy's default int. ``r_`` and ``c_`` concatenate slices (as ranges),
arrays and scalars along an axis, with NumPy's directives ('0,2', '-1,2,0', '1');
the matrix directives ('r', 'c', a string key) are refused: the shim has no matrix."""
import builtins

import numpy

from ._creation import arange, array, linspace, meshgrid
from ._errors import UnsupportedError
from ._manipulation import concatenate, stack, transpose
from ._ndarray import ndarray
from ._promotion import result_type

__all__ = ["mgrid", "ogrid", "s_", "index_exp", "r_", "c_", "AxisConcatenator"]

s_ = numpy.s_
index_exp = numpy.index_exp


def _axis_values(key, floating):
    start = 0 if key.start is None else key.start
    step = 1 if key.step is None else key.step
    dtype = float if floating else int
    if isinstance(step, complex):
        return linspace(start, key.stop, int(builtins.abs(step)), dtype=dtype)
    return arange(start, key.stop, step, dtype=dtype)


def _floating(keys):
    return builtins.any(not isinstance(v, (int, type(None))) or isinstance(v, bool)
                        for k in keys for v in (k.start, k.stop, k.step))


class _Grid:
    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            if not isinstance(k, slice):
                raise AttributeError(f"'{type(k).__name__}' object has no attribute 'step'")
        floating = _floating(keys)
        axes = [_axis_values(k, floating) for k in keys]
        if not isinstance(key, tuple):
            return axes[0]
        if self.sparse:
            return tuple(meshgrid(*axes, indexing="ij", sparse=True))
        return stack(meshgrid(*axes, indexing="ij"))


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


class AxisConcatenator:
    """``r_``/``c_``: ``obj[items]`` joins the items along ``axis`` after raising each to
    ``ndmin`` dimensions; ``trans1d`` says where an item's own axes go among the new
    ones. A first item that is a string sets these ('axis,ndmin[,trans1d]' or 'axis')."""

    def __init__(self, axis=0, ndmin=1, trans1d=-1):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __len__(self):
        return 0

    def __getitem__(self, key):
        if isinstance(key, str):
            raise UnsupportedError("r_/c_ with a matrix string: the shim has no numpy.matrix")
        items = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if items and isinstance(items[0], str):
            axis, ndmin, trans1d = _directive(items[0], axis, ndmin, trans1d)
            items = items[1:]
        parts, promotion = [], []
        for item in items:
            if isinstance(item, str):
                raise ValueError("special directives must be the first entry.")
            part, weak = _part(item, ndmin, trans1d)
            parts.append(part)
            promotion.append(part if weak else part.dtype)
        if promotion:
            target = result_type(*promotion)
            parts = [array(p, dtype=target, copy=None, ndmin=ndmin) for p in parts]
        return concatenate(tuple(parts), axis=axis)


def _directive(text, axis, ndmin, trans1d):
    if text in ("r", "c"):
        raise UnsupportedError(f"r_/c_ directive {text!r} makes a numpy.matrix, which the shim does not have")
    if "," in text:
        fields = text.split(",")
        try:
            axis, ndmin = (int(f) for f in fields[:2])
            if len(fields) == 3:
                trans1d = int(fields[2])
        except ValueError:
            raise ValueError(f"unknown special directive {text!r}") from None
        return axis, ndmin, trans1d
    try:
        return int(text), ndmin, trans1d
    except ValueError:
        raise ValueError("unknown special directive") from None


def _part(item, ndmin, trans1d):
    """One item as an array of at least ``ndmin`` dimensions (a Python scalar as it is),
    and whether it promotes as a weak Python scalar (a NumPy scalar keeps its dtype)."""
    if isinstance(item, slice):
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if isinstance(step, (complex, numpy.complexfloating)):
            values = linspace(start, item.stop, num=int(builtins.abs(step)))
        else:
            values = arange(start, item.stop, step)
        if ndmin > 1:
            values = array(values, copy=None, ndmin=ndmin)
            if trans1d != -1:
                values = values.swapaxes(-1, trans1d)
        return values, False
    if isinstance(item, (builtins.bool, int, float, complex)) and not isinstance(item, numpy.generic):
        return item, True   # converted once the dtype is known (NumPy's OverflowError for int8 and 300)
    own_ndim = item.ndim if isinstance(item, (ndarray, numpy.ndarray, numpy.generic)) else numpy.ndim(item)
    values = array(item, copy=None, ndmin=ndmin)
    if trans1d != -1 and own_ndim < ndmin:
        added = ndmin - own_ndim
        first = trans1d + added + 1 if trans1d < 0 else trans1d
        axes = list(range(ndmin))
        values = transpose(values, axes[:first] + axes[added:] + axes[first:added])
    return values, False


r_ = AxisConcatenator(0)
c_ = AxisConcatenator(-1, ndmin=2, trans1d=0)
