"""``a.flat``: NumPy's flat iterator, a 1-D C-ordered window that reads and writes
through to its array (reading is ``ravel``'s, writing is indexing into a flat view)."""
import numpy
import torch

from . import _flipped, _fp_errors, _self_overlap
from ._coerce import _contains_traced, asarray
from ._errors import UnsupportedError
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
        return ravel(self.base)[_flat_key(self.base.size, key, assigning=False)]

    def __setitem__(self, key, value):
        key = _flat_key(self.base.size, key, assigning=True)
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

    def copy(self, /):
        return ravel(self.base).copy()


_NOT_VALID = "only integers, slices (`:`), ellipsis (`...`) and integer or boolean arrays are valid indices"
_ZERO_D_BOOL = ("Indexing flat iterators with a 0-dimensional boolean index is deprecated and may be removed in "
                "a future version. (Deprecated NumPy 2.4)")
_NON_ARRAY = ("Invalid non-array indices for iterator objects are deprecated and will be removed in a future "
              "version. (Deprecated NumPy 2.4)")
_BOOL_LIST = ("boolean indices for iterators are not supported because of previous behavior that was confusing "
              "(valid boolean indices are expected to work in the future)")


def _deprecated(message):
    """NumPy's DeprecationWarning; refused while tracing (npcompile runs it in NumPy)."""
    if _fp_errors.tracing():
        raise UnsupportedError("a deprecated flat iterator index inside traced code")
    _fp_errors.warn(message, DeprecationWarning)


def _flat_key(n, key, assigning):
    """A flat iterator's key as the index of its 1-D ravel, by NumPy's own rules for
    iterators (not an array's): one index at most, no None, a scalar bool (deprecated)
    picks item 0 or nothing, a float or a list of floats is truncated (deprecated), a
    list of bools is refused, a boolean array must match the length."""
    if isinstance(key, tuple):
        if not key:
            if assigning:
                raise IndexError("Assigning to a flat iterator with a 0-D index is not supported")
            return Ellipsis
        if len(key) > 1:
            raise IndexError(f"too many indices for flat iterator: flat iterator is 1-dimensional, but {len(key)} "
                             "were indexed")
        key = key[0]
    if key is None or isinstance(key, (str, bytes)):
        raise IndexError(_NOT_VALID)
    if isinstance(key, flatiter):
        key = key.copy()
    if isinstance(key, numpy.bool_):
        raise IndexError(_BOOL_LIST)
    if isinstance(key, list) and not _contains_traced(key):
        listed = numpy.asarray(key)
        if listed.dtype.kind == "b":
            raise IndexError(_BOOL_LIST)
        if listed.size == 0:
            return listed.astype(numpy.intp)
        if listed.dtype.kind == "f":
            _deprecated(_NON_ARRAY)
            listed = listed.astype(numpy.intp)
        return _in_bounds(n, listed)
    if isinstance(key, (float, numpy.floating)):
        _deprecated(_NON_ARRAY)
        return int(key)
    boolean = isinstance(key, (bool, numpy.bool_)) or (
        isinstance(key, (ndarray, numpy.ndarray)) and key.dtype.kind == "b")
    if boolean and numpy.ndim(key) == 0:
        _deprecated(_ZERO_D_BOOL)
        return 0 if bool(key) else slice(0, 0)
    if boolean and key.ndim > 1:
        raise IndexError(f"too many indices for flat iterator: flat iterator is 1-dimensional, but {key.ndim} "
                         "were indexed")
    if boolean and key.shape[0] != n:
        raise IndexError("boolean index did not match indexed flat iterator along axis 0; size of axis is "
                         f"{n} but size of corresponding boolean axis is {key.shape[0]}")
    return key if boolean else _in_bounds(n, key)


def _in_bounds(n, key):
    """``key``, after NumPy's iterator's bounds check (its message names no axis)."""
    if isinstance(key, (int, numpy.integer)) and not isinstance(key, bool):
        values = numpy.asarray(key)
    elif isinstance(key, (ndarray, numpy.ndarray)) and key.dtype.kind in "iu" and not _fp_errors.tracing():
        values = numpy.asarray(key)
    else:
        return key
    bad = (values < -n) | (values >= n)
    if bad.any():
        raise IndexError(f"index {values.reshape(-1)[bad.reshape(-1).argmax()]} is out of bounds for size {n}")
    return key


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
