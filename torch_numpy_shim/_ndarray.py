"""The shim's ndarray: a torch.Tensor plus the three facts NumPy keeps that torch does not,
whether the value is a NumPy scalar, which array owns the memory (``base``) and whether
writes through it are refused (NumPy's read-only views: ``broadcast_to``, ``diagonal``).

Every function module builds on this class, so it holds only what needs the tensor and
dtype metadata. What an array does through those functions (operators are ufuncs,
``a.sum()`` is ``sum(a)``, ``a[key]`` is the indexing module's, conversion to NumPy is
``_coerce``'s) is attached by ``_methods``: every behaviour has exactly one implementation.
"""
import builtins
import operator

import torch

from . import _dtypes, _layout, _writeable
from ._errors import UnsupportedError
from ._numpy_version import NO_IMAGINARY_PART

__all__ = ["ndarray"]


class ndarray:
    """A NumPy array (or NumPy scalar, when ``_scalar``) backed by ``_t``."""

    __slots__ = ("_t", "_scalar", "_base", "_readonly", "_warn_on_write", "_lock", "__weakref__")
    __array_ufunc__ = None  # numpy.ndarray <op> shim array defers to our reflected ops
    __array_priority__ = 1000

    def __init__(self, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        if buffer is not None or strides is not None:
            raise UnsupportedError("ndarray(buffer=..., strides=...)")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._t = torch.empty(shape, dtype=_dtypes._as_dtype(dtype).torch)
        self._scalar = False
        self._base = None
        self._readonly = self._warn_on_write = False
        self._lock = None

    # ---- construction helpers used throughout the shim ---------------------------
    @classmethod
    def _wrap(cls, tensor, scalar=False, base=None):
        self = object.__new__(cls)
        self._t, self._scalar, self._base, self._readonly = tensor, scalar, base, False
        self._warn_on_write, self._lock = False, None
        return self

    def _view(self, tensor, readonly=False):
        """Wrap ``tensor``, a torch view of this array, so ``base`` follows NumPy; a view
        of a read-only array is read-only, and so is one NumPy makes so (``readonly``)."""
        view = ndarray._wrap(tensor, False, self._base if self._base is not None else self)
        view._readonly = readonly or self._readonly
        view._warn_on_write = self._warn_on_write   # NumPy's views inherit WARN_ON_WRITE
        return view

    def _check_writeable(self, message="assignment destination is read-only"):
        """NumPy's ValueError for a write into a read-only array, raised before any write;
        and its one DeprecationWarning for a write into a broadcast_arrays result."""
        if self._readonly:
            raise ValueError(message)
        if self._warn_on_write:
            _writeable.warn_on_write(self)

    # ---- metadata -----------------------------------------------------------------
    @property
    def dtype(self):
        return _dtypes.from_torch(self._t.dtype)

    @property
    def shape(self):
        return tuple(self._t.shape)

    @property
    def ndim(self):
        return self._t.ndim

    @property
    def size(self):
        return self._t.numel()

    @property
    def itemsize(self):
        return self._t.element_size()

    @property
    def nbytes(self):
        return self._t.numel() * self._t.element_size()

    @property
    def strides(self):
        size = self._t.element_size()
        return tuple(s * size for s in self._t.stride())

    @property
    def base(self):
        return self._base

    @property
    def flags(self):
        return _Flags(self)

    @property
    def device(self):
        return self._t.device

    @property
    def T(self):
        return self._view(self._t.permute(tuple(reversed(range(self._t.ndim)))))

    @property
    def mT(self):
        if self._t.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self._view(self._t.transpose(-2, -1))

    @property
    def real(self):
        if self._t.is_complex():
            return self._view(torch.real(self._t))
        return self   # NumPy: the real part of a real array is the array itself

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self):
        if self._t.is_complex():
            return self._view(torch.imag(self._t))
        zeros = ndarray._wrap(torch.zeros_like(self._t), self._scalar)
        zeros._readonly = not self._scalar   # NumPy: a read-only array of zeros
        return zeros

    @imag.setter
    def imag(self, value):
        if not self._t.is_complex():
            raise TypeError(NO_IMAGINARY_PART)
        self.imag[...] = value

    # ---- conversions --------------------------------------------------------------
    def _only_element(self, kind):
        if self._t.numel() != 1:
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        if self._t.ndim > 0:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return self._t.item()

    def __float__(self):
        if self._t.is_complex():
            raise TypeError("float() argument must be a string or a real number, not 'complex'")
        return float(self._only_element("float"))

    def __int__(self):
        if self._t.is_complex():
            raise TypeError("int() argument must be a string, a bytes-like object or a real number, not 'complex'")
        return int(self._only_element("int"))

    def __complex__(self):
        return complex(self._only_element("complex"))

    def __index__(self):
        if self._t.ndim != 0 or self._t.is_floating_point() or self._t.is_complex() or self._t.dtype == torch.bool:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._t.item())

    def __bool__(self):
        n = self._t.numel()
        if n == 1:
            return bool(self._t.reshape(()).item())
        if n == 0:
            raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                             "to check that an array is not empty.")
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")

    def __len__(self):
        if self._t.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._t.shape[0]

    def __iter__(self):
        if self._t.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._t.shape[0]))

    def __hash__(self):
        if self._scalar:
            return hash(self.item())
        raise TypeError("unhashable type: 'numpy.ndarray'")

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ---- methods that need no other module (the rest are attached by _methods) ------
    def item(self, *args):
        if not args:
            if self._t.numel() != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return self._t.reshape(()).item()
        if len(args) == 1 and not isinstance(args[0], tuple):
            index = operator.index(args[0])
            n = self._t.numel()
            if not -n <= index < n:
                raise IndexError(f"index {index} is out of bounds for size {n}")
            return self._t.reshape(-1)[index].item()
        index = args[0] if len(args) == 1 else args
        return self._t[tuple(operator.index(i) for i in index)].item()

    def tolist(self):
        return self._t.tolist()

    def copy(self, order="C"):
        """NumPy's copy in ``order``'s layout (C by default, K keeps this array's)."""
        return ndarray._wrap(_layout.copy_as(self._t, _layout.order_letter(order, "C")), self._scalar)

    def fill(self, value):
        self[...] = value

    def setflags(self, write=None, align=None, uic=None):
        _writeable.setflags(self, write, align, uic)

    def view(self, dtype=None, type=None):
        if dtype is None or (builtins.isinstance(dtype, builtins.type) and issubclass(dtype, ndarray)):
            return self._view(self._t.view(self._t.shape))
        target = _dtypes._as_dtype(dtype)
        if target.itemsize != self.itemsize and self._t.ndim == 0:
            raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        return self._view(self._t.view(target.torch))


class _Flags:
    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

    @property
    def c_contiguous(self):
        return self._a._t.is_contiguous()

    @property
    def f_contiguous(self):
        return _layout.f_contiguous(self._a._t)

    @property
    def writeable(self):
        return _writeable.get_writeable(self._a)

    @writeable.setter
    def writeable(self, value):
        _writeable.set_writeable(self._a, value)

    @property
    def owndata(self):
        return self._a._base is None

    @property
    def aligned(self):
        return True   # torch allocates aligned memory; unaligned NumPy memory is copied in

    @property
    def writebackifcopy(self):
        return False

    def __getitem__(self, name):
        key = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
               "F": "f_contiguous", "WRITEABLE": "writeable", "W": "writeable", "OWNDATA": "owndata",
               "O": "owndata", "ALIGNED": "aligned", "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy",
               "X": "writebackifcopy"}[name.upper()]
        return getattr(self, key)

    def __setitem__(self, name, value):
        """``a.flags["W"] = False``: the flags ``setflags`` takes, by NumPy's keys."""
        flag = {"W": "write", "WRITEABLE": "write", "A": "align", "ALIGNED": "align", "X": "uic",
                "WRITEBACKIFCOPY": "uic"}.get(name.upper())
        if flag is None:
            raise KeyError("Unknown flag")
        _writeable.setflags(self._a, **{flag: value})

    def __eq__(self, other):
        """Two arrays' flags compare equal when every flag does, as NumPy's flags objects."""
        if not isinstance(other, _Flags):
            return NotImplemented
        names = ("c_contiguous", "f_contiguous", "owndata")   # WRITEABLE by the slot: no FutureWarning
        return self._a._readonly == other._a._readonly and all(getattr(self, n) == getattr(other, n) for n in names)

    __hash__ = None
