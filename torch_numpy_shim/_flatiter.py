"""``a.flat``: NumPy's flat iterator, a 1-D C-ordered window that reads and writes
through to its array (reading is ``ravel``'s, writing is indexing into a flat view)."""
import numpy
import torch

from . import _flipped, _self_overlap
from ._coerce import asarray
from ._manipulation import ravel
from ._ndarray import ndarray

__all__ = ["flatiter"]


class flatiter:
    """``a.flat``: a 1-D, C-ordered window on ``a`` that reads and writes through."""

    __slots__ = ("base", "_index")

    def __init__(self, base):
        self.base = base
        self._index = 0

    def __len__(self):
        return self.base.size

    def __iter__(self):
        return iter(ravel(self.base))

    def __getitem__(self, key):
        return ravel(self.base)[key]

    def __setitem__(self, key, value):
        self.base._check_writeable("underlying array is read-only")
        t = self.base._t
        flat = ndarray._wrap(t.view(-1) if t.is_contiguous() else t.flatten())
        flat[key] = self._cycled(flat, key, value)
        if _self_overlap.overlaps(t):   # items sharing memory: NumPy writes them in the key's order
            positions = ndarray._wrap(torch.arange(t.numel()))[key]._t.reshape(-1)
            _self_overlap.store_items(t, positions, flat._t[positions])
        elif not t.is_contiguous():
            t.copy_(flat._t.view(t.shape))
        _flipped.written(self.base)

    @staticmethod
    def _cycled(flat, key, value):
        """``a.flat[...] = values`` takes the values in order, repeating or truncating
        them to the selection (NumPy's rule), rather than broadcasting."""
        _refuse_python_complex(flat, key, value)
        values = asarray(value)
        selected = flat[key]
        if not isinstance(selected, ndarray) or selected._scalar:   # one element
            if values.size != 1:
                raise ValueError("Error setting single item of array.")
            return values.reshape(())
        if values.ndim == 0 or values.size in (0, selected.size):
            return values
        repeats = -(-selected.size // values.size)
        return ndarray._wrap(values._t.reshape(-1).repeat(repeats)[:selected.size])

    def copy(self):
        return ravel(self.base).copy()


def _has_python_complex(value):
    if isinstance(value, (list, tuple)):
        return any(_has_python_complex(v) for v in value)
    return type(value) is complex


def _refuse_python_complex(flat, key, value):
    """NumPy's flat assignment converts Python values one by one with ``float()`` /
    ``int()``: a Python complex into a real (not bool) array raises, not ComplexWarning
    (a NumPy complex array or scalar warns as any cast)."""
    if flat.dtype.kind not in "iuf" or not _has_python_complex(value):
        return
    if isinstance(key, (int, numpy.integer)) and not isinstance(key, bool):
        raise ValueError("Error setting single item of array.")
    if flat.dtype.kind == "f":
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    raise TypeError("int() argument must be a string, a bytes-like object or a real number, not 'complex'")

    def __array__(self, dtype=None, copy=None):
        return self.copy().__array__(dtype)
