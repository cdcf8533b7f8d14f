"""NumPy dtypes and scalar types over torch dtypes: the bottom layer of the shim.

Every promotion question is answered by real NumPy on dtype *metadata* (never on
values): that gives NEP 50 exactly, costs a cached dictionary lookup, and keeps the
shim traceable because no tensor is ever inspected. This module knows nothing of shim
arrays; questions asked of arrays and Python scalars live in ``_promotion``, and what
the scalar types do with shim scalars (construct them, recognise them) in ``_scalars``.

The scalar type classes here are the shim's own: what NumPy's scalar types stand for
inside the shim and in traced code, where a NumPy scalar is a 0-D shim array
(``SHIM_OF`` maps NumPy's class to the shim's, ``numpy_type`` back).
"""
import functools

import numpy
import torch

from ._errors import UnsupportedError

# NumPy's scalar types by name: the package's names are NumPy's classes themselves (user
# code holds NumPy scalars: ``type(np.sum(a)) is np.float64``); the shim's classes of these
# names are what NumPy's stand for inside the shim and in traced code (``SHIM_OF``)
SCALAR_TYPE_NAMES = (
    "generic", "number", "integer", "signedinteger", "unsignedinteger",
    "inexact", "floating", "complexfloating", "bool", "bool_",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
    "byte", "short", "intc", "int_", "intp", "long", "longlong",
    "ubyte", "ushort", "uintc", "uint", "uintp", "ulong", "ulonglong",
    "half", "single", "double", "csingle", "cdouble",
)

__all__ = ["dtype", "promote_types", "issubdtype", "isdtype", "min_scalar_type", "common_type", "typename",
           "mintypecode"]

_TORCH_OF = {
    "bool": torch.bool,
    "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
    "uint8": torch.uint8, "uint16": torch.uint16, "uint32": torch.uint32, "uint64": torch.uint64,
    "float16": torch.float16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
_NAME_OF_TORCH = {t: n for n, t in _TORCH_OF.items()}


_UNSET = object()


class dtype:
    """A NumPy dtype the shim supports; compares equal to NumPy's own dtype objects."""

    __slots__ = ("name", "np", "torch", "type")

    def __new__(cls, spec, align=False, copy=False, metadata=_UNSET):
        if metadata is not _UNSET:  # shim dtypes are singletons: nowhere to keep a dict
            if not isinstance(metadata, dict):
                raise TypeError(f"dtype() argument 4 must be dict, not {type(metadata).__name__}")
            raise UnsupportedError("dtype metadata is not supported by torch_numpy_shim")
        return _as_dtype(spec)

    @property
    def dtype(self):
        """NumPy's dtype protocol (``numpy.dtype(obj)`` reads ``obj.dtype``): so NumPy
        scalars and arrays take shim dtypes, ``np.sum(a).astype(np.dtype('f4'))``."""
        return self.np

    @property
    def kind(self): return self.np.kind
    @property
    def char(self): return self.np.char
    @property
    def itemsize(self): return self.np.itemsize
    @property
    def str(self): return self.np.str
    @property
    def num(self): return self.np.num
    @property
    def byteorder(self): return self.np.byteorder
    @property
    def alignment(self): return self.np.alignment
    @property
    def isbuiltin(self): return 1
    @property
    def isnative(self): return True
    @property
    def shape(self): return ()
    @property
    def ndim(self): return 0
    @property
    def names(self): return None
    @property
    def fields(self): return None
    @property
    def subdtype(self): return None
    @property
    def base(self): return self
    @property
    def descr(self): return self.np.descr

    def newbyteorder(self, order="S"):
        raise UnsupportedError("non-native byte order")

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return self.np == numpy.dtype(_numpy_spec(other))
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.np)

    def __repr__(self):
        return repr(self.np)

    def __str__(self):
        return self.name

    def __reduce__(self):
        return (dtype, (self.name,))


class _ScalarMeta(type):
    """The shim's scalar types are classes (for issubclass/issubdtype) that compare equal
    to NumPy's. Their instances are shim scalars, 0-D arrays flagged as scalars, so
    ``isinstance`` and calling a scalar type are given by ``_scalars``, above the array."""

    def __eq__(cls, other):
        if isinstance(other, _ScalarMeta):
            return cls is other
        if isinstance(other, (dtype, numpy.dtype)):  # np.float32 == np.dtype("f4"): the dtype decides
            return NotImplemented
        np_type = cls.__dict__.get("_np_type")
        return np_type is not None and other is np_type

    def __hash__(cls):
        np_type = cls.__dict__.get("_np_type")
        return hash(np_type) if np_type is not None else type.__hash__(cls)

    def __repr__(cls):
        return f"<class 'torch_numpy_shim.{cls.__name__}'>"


class generic(metaclass=_ScalarMeta):
    """The root of NumPy's scalar type hierarchy; the classes below mirror its branches."""


class number(generic):
    pass


class integer(number):
    pass


class signedinteger(integer):
    pass


class unsignedinteger(integer):
    pass


class inexact(number):
    pass


class floating(inexact):
    pass


class complexfloating(inexact):
    pass


def _concrete(name, base):
    np_type = getattr(numpy, name)
    # NumPy's float64 and complex128 also derive from Python's float and complex (their
    # MRO ends ``generic, float, object``): code asks ``issubclass(t, float)`` or reads
    # ``t.__mro__`` of the class a trace sees, so the shim's class has the same bases
    python_base = tuple(b for b in np_type.__bases__ if b.__module__ == "builtins")
    cls = _ScalarMeta(name, (base, *python_base), {"_np_type": np_type})
    d = object.__new__(dtype)
    d.name, d.np, d.torch, d.type = name, numpy.dtype(name), _TORCH_OF[name], getattr(numpy, name)
    cls.dtype = d
    return cls


bool = bool_ = _concrete("bool", generic)
int8, int16, int32, int64 = (_concrete(n, signedinteger) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_concrete(n, unsignedinteger) for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_concrete(n, floating) for n in ("float16", "float32", "float64"))
complex64, complex128 = (_concrete(n, complexfloating) for n in ("complex64", "complex128"))

byte, short, intc, int_, intp, long, longlong = int8, int16, int32, int64, int64, int64, int64
ubyte, ushort, uintc, uint, uintp, ulong, ulonglong = uint8, uint16, uint32, uint64, uint64, uint64, uint64
half, single, double, csingle, cdouble = float16, float32, float64, complex64, complex128

# the dtype objects the shim's own code names often (``float64`` itself is the scalar type)
I64, F32, F64, C64, C128 = (t.dtype for t in (int64, float32, float64, complex64, complex128))

_ALL = {t.dtype.name: t.dtype for t in (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                       float16, float32, float64, complex64, complex128)}

# NumPy's scalar type -> the shim's class of that name (numpy.longlong -> int64, as its dtype)
SHIM_OF = {getattr(numpy, name): globals()[name] for name in SCALAR_TYPE_NAMES}
_NUMPY_OF = {shim_type: np_type for np_type, shim_type in SHIM_OF.items() if "_np_type" not in shim_type.__dict__}


def _numpy_spec(spec):
    """Translate a shim dtype/scalar type (or anything NumPy accepts) to a NumPy spec."""
    if isinstance(spec, dtype):
        return spec.np
    if isinstance(spec, _ScalarMeta):
        return numpy_type(spec)
    if isinstance(spec, torch.dtype):
        if spec not in _NAME_OF_TORCH:
            raise UnsupportedError(f"torch dtype {spec} has no NumPy equivalent")
        return _NAME_OF_TORCH[spec]
    return spec


@functools.lru_cache(maxsize=None)
def _from_numpy_dtype(np_dtype):
    if np_dtype.name not in _ALL or not np_dtype.isnative:
        raise UnsupportedError(f"dtype {np_dtype!r} is not supported by torch_numpy_shim")
    return _ALL[np_dtype.name]


def _as_dtype(spec):
    """Any dtype-like (shim or NumPy dtype, scalar type, Python type, string, torch
    dtype, None = float64) -> the shim dtype; unsupported kinds raise UnsupportedError."""
    if isinstance(spec, dtype):
        return spec
    if hasattr(spec, "dtype") and not isinstance(spec, (type, str)):
        spec = spec.dtype
    np_dtype = numpy.dtype(_numpy_spec(spec))  # TypeError for nonsense, as NumPy
    return _from_numpy_dtype(np_dtype)


def as_dtype_or_none(spec):
    return None if spec is None else _as_dtype(spec)


def from_torch(torch_dtype):
    return _ALL[_NAME_OF_TORCH[torch_dtype]]


def sum_dtype(dt):
    """The dtype np.sum, prod and cumsum accumulate in without ``dtype=``: bool and
    narrow ints widen to the default int (narrow uints to uint64)."""
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < 8):
        return int64.dtype
    if dt.kind == "u" and dt.itemsize < 8:
        return uint64.dtype
    return dt


def promote_types(type1, type2):
    return _from_numpy_dtype(numpy.promote_types(_as_dtype(type1).np, _as_dtype(type2).np))


def scalar_class(dt):
    """The shim's scalar class of shim dtype ``dt`` (its instances are shim scalars)."""
    return SHIM_OF[dt.np.type]


def numpy_type(cls):
    """NumPy's class for a shim scalar class (abstract ones too), else ``cls`` itself."""
    if isinstance(cls, _ScalarMeta):
        return cls.__dict__.get("_np_type") or _NUMPY_OF[cls]
    return cls


def issubdtype(arg1, arg2):
    return numpy.issubdtype(_numpy_spec(arg1), _numpy_spec(arg2))


def isdtype(dtype_, kind):
    kinds = tuple(_numpy_spec(k) if not isinstance(k, str) else k
                  for k in (kind if isinstance(kind, tuple) else (kind,)))
    return numpy.isdtype(_as_dtype(dtype_).np, kinds)


def min_scalar_type(a):
    return _from_numpy_dtype(numpy.min_scalar_type(a))


def common_type(*arrays):
    return SHIM_OF[numpy.common_type(*(numpy.empty(0, a.dtype.np) for a in arrays))]


def typename(char):
    return numpy.typename(char)


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    return numpy.mintypecode(typechars, typeset, default)
