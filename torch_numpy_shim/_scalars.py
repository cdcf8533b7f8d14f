"""What NumPy's scalar types do with shim values: a NumPy scalar is a 0-D shim array
flagged ``_scalar``, so ``np.float32(x)`` builds one and ``isinstance(x, np.floating)``
recognises one. The scalar types are dtype metadata (``_dtypes``, below the array); this
module, above the array and ``_coerce``, gives their metaclass these two methods."""
import numpy

from . import _dtypes
from ._coerce import make_scalar
from ._ndarray import ndarray


def _instancecheck(cls, obj):
    """Shim scalars by their dtype's type, NumPy scalars by NumPy's hierarchy."""
    if isinstance(obj, ndarray) and obj._scalar:
        return issubclass(obj.dtype.type, cls)
    if isinstance(obj, numpy.generic):
        return _dtypes.issubdtype(obj.dtype, cls)
    return type.__instancecheck__(cls, obj)


def _call(cls, value=0, /):
    """``np.float32(value)``: a shim scalar (an array for array input); the abstract
    types (``np.floating``...) cannot be instantiated, as in NumPy."""
    if "_np_type" not in cls.__dict__:
        raise TypeError(f"cannot create 'torch_numpy_shim.{cls.__name__}' instances")
    return make_scalar(value, cls.dtype)


_dtypes._ScalarMeta.__instancecheck__ = _instancecheck
_dtypes._ScalarMeta.__call__ = _call
