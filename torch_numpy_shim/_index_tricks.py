"""NumPy's index-trick objects that build arrays from slices: ``mgrid`` (dense grids),
``ogrid`` (open grids); ``s_`` and ``index_exp`` only build index keys, so they are
NumPy's own. A slice ``a:b:c`` is ``arange(a, b, c)``, or with an imaginary step
``a:b:nj``, ``linspace(a, b, n)``; the grid is float64 when any bound or step is not
an int, else NumPy's default int. ``r_``/``c_`` (with their string directives) are not
provided."""
import builtins

import numpy

from ._creation import arange, linspace, meshgrid
from ._manipulation import stack

__all__ = ["mgrid", "ogrid", "s_", "index_exp"]

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
