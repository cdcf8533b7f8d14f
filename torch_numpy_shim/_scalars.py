"""What the shim's scalar classes do with shim values: inside the shim and in traced
code a NumPy scalar is a 0-D shim array flagged ``_scalar``, and NumPy's scalar types
stand for these classes there, so ``np.float32(x)`` builds one and ``isinstance(x,
np.floating)`` recognises one. The classes are dtype metadata (``_dtypes``, below the
array); this module, above the array and ``_coerce``, gives their metaclass these two
methods."""
import numpy

from . import _dtypes
from ._coerce import make_scalar
from ._errors import UnsupportedError
from ._ndarray import ndarray


def _instancecheck(cls, obj):
    """Shim and NumPy scalars by their dtype, in NumPy's hierarchy."""
    if (isinstance(obj, ndarray) and obj._scalar) or isinstance(obj, numpy.generic):
        return _dtypes.issubdtype(obj.dtype, cls)
    return type.__instancecheck__(cls, obj)


def _call(cls, value=0, /):
    """``np.float32(value)``: a shim scalar (an array for array input); the abstract
    types (``np.floating``...) cannot be instantiated, as in NumPy; a user subclass of a
    concrete one (``class F(np.float64)``) is refused: its instances would be NumPy's."""
    if "_np_type" not in cls.__dict__:
        if any("_np_type" in base.__dict__ for base in cls.__mro__):
            raise UnsupportedError(f"instances of {cls.__name__}, a subclass of a NumPy scalar type "
                                   "(a shim scalar is a 0-D array, it has no subclass instances)")
        raise TypeError(f"cannot create 'torch_numpy_shim.{cls.__name__}' instances")
    return make_scalar(value, cls.dtype)


_dtypes._ScalarMeta.__instancecheck__ = _instancecheck
_dtypes._ScalarMeta.__call__ = _call
