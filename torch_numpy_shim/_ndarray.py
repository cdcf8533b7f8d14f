"""The shim's ndarray: a torch.Tensor plus the two facts NumPy keeps that torch does not,
whether the value is a NumPy scalar and which array owns the memory (``base``).

Operators go to ufunc objects and named methods go to the module-level functions
(see ``_methods``), so every behaviour has exactly one implementation.
"""
import builtins
import operator
import sys

import torch

from . import _dtypes
from ._errors import UnsupportedError

__all__ = ["ndarray", "flatiter"]


class ndarray:
    """A NumPy array (or NumPy scalar, when ``_scalar``) backed by ``_t``."""

    __slots__ = ("_t", "_scalar", "_base", "__weakref__")
    __array_ufunc__ = None  # numpy.ndarray <op> shim array defers to our reflected ops
    __array_priority__ = 1000

    def __init__(self, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        if buffer is not None or strides is not None:
            raise UnsupportedError("ndarray(buffer=..., strides=...)")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._t = torch.empty(shape, dtype=_dtypes._as_dtype(dtype).torch)
        self._scalar = False
        self._base = None

    # ---- construction helpers used throughout the shim ---------------------------
    @classmethod
    def _wrap(cls, tensor, scalar=False, base=None):
        self = object.__new__(cls)
        self._t, self._scalar, self._base = tensor, scalar, base
        return self

    def _view(self, tensor):
        """Wrap ``tensor``, a torch view of this array, so ``base`` follows NumPy."""
        return ndarray._wrap(tensor, False, self._base if self._base is not None else self)

    # ---- metadata -----------------------------------------------------------------
    @property
    def dtype(self):
        return _dtypes.from_torch(self._t.dtype)

    @property
    def shape(self):
        return tuple(self._t.shape)

    @shape.setter
    def shape(self, new_shape):
        """In place, so only where a view can do it (NumPy's AttributeError otherwise)."""
        from ._manipulation import reshape
        target = reshape(self, new_shape).shape   # NumPy's ValueError for a size mismatch
        try:
            self._t = self._t.view(target)
        except RuntimeError:
            raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` "
                                 "to make a copy with the desired shape.") from None

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
        return self._view(self._t.view(self._t.shape)) if not self._scalar else self

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self):
        if self._t.is_complex():
            return self._view(torch.imag(self._t))
        zeros = torch.zeros_like(self._t)
        return ndarray._wrap(zeros, self._scalar)

    @imag.setter
    def imag(self, value):
        if not self._t.is_complex():
            raise TypeError("array does not have imaginary part to set")
        self.imag[...] = value

    @property
    def flat(self):
        return flatiter(self)

    @flat.setter
    def flat(self, value):
        flatiter(self)[...] = value

    # ---- conversions --------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        from ._coerce import tensor_to_numpy
        out = tensor_to_numpy(self._t)
        if dtype is not None:
            out = out.astype(dtype, copy=False)
        return out.copy() if copy else out

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

    def __repr__(self):
        from ._coerce import to_numpy
        return repr(to_numpy(self))

    def __str__(self):
        from ._coerce import to_numpy
        return str(to_numpy(self))

    def __format__(self, spec):
        from ._coerce import to_numpy
        return format(to_numpy(self), spec)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        from ._coerce import asarray, to_numpy
        return (asarray, (to_numpy(self),))

    # ---- core methods (everything else is bound in _methods) -----------------------
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

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        from ._coerce import cast_tensor
        target = _dtypes._as_dtype(dtype)
        if not _dtypes.can_cast(self.dtype, target, casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {target!r} "
                            f"according to the rule '{casting}'")
        if not copy and target is self.dtype:
            return self
        return ndarray._wrap(cast_tensor(self._t, target, copy=True), self._scalar)

    def copy(self, order="C"):
        return ndarray._wrap(self._t.clone(memory_format=torch.contiguous_format), self._scalar)

    def fill(self, value):
        self[...] = value

    def view(self, dtype=None, type=None):
        if dtype is None or (builtins.isinstance(dtype, builtins.type) and issubclass(dtype, ndarray)):
            return self._view(self._t.view(self._t.shape))
        target = _dtypes._as_dtype(dtype)
        if target.itemsize != self.itemsize and self._t.ndim == 0:
            raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        return self._view(self._t.view(target.torch))

    def __getitem__(self, key):
        from ._indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key, value):
        from ._indexing import setitem
        setitem(self, key, value)


class _Flags:
    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

    @property
    def c_contiguous(self):
        return self._a._t.is_contiguous()

    @property
    def f_contiguous(self):
        t = self._a._t
        return t.ndim <= 1 and t.is_contiguous() or t.permute(*reversed(range(t.ndim))).is_contiguous()

    @property
    def writeable(self):
        return True

    @property
    def owndata(self):
        return self._a._base is None

    def __getitem__(self, name):
        key = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
               "F": "f_contiguous", "WRITEABLE": "writeable", "W": "writeable", "OWNDATA": "owndata",
               "O": "owndata"}[name.upper()]
        return getattr(self, key)


class flatiter:
    """``a.flat``: a 1-D, C-ordered window on ``a`` that reads and writes through."""

    __slots__ = ("base", "_index")

    def __init__(self, base):
        self.base = base
        self._index = 0

    def __len__(self):
        return self.base.size

    def __iter__(self):
        from ._manipulation import ravel
        return iter(ravel(self.base))

    def __getitem__(self, key):
        from ._manipulation import ravel
        return ravel(self.base)[key]

    def __setitem__(self, key, value):
        t = self.base._t
        flat = ndarray._wrap(t.view(-1) if t.is_contiguous() else t.flatten())
        flat[key] = self._cycled(flat, key, value)
        if not t.is_contiguous():
            t.copy_(flat._t.view(t.shape))

    @staticmethod
    def _cycled(flat, key, value):
        """``a.flat[...] = values`` takes the values in order, repeating or truncating
        them to the selection (NumPy's rule), rather than broadcasting."""
        from ._coerce import asarray
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
        from ._manipulation import ravel
        return ravel(self.base).copy()

    def __array__(self, dtype=None, copy=None):
        return self.copy().__array__(dtype)


def _shim(name):
    """Look a NumPy function up in the shim namespace at call time (the namespace
    imports this module, so binding at import would be circular)."""
    return getattr(sys.modules["torch_numpy_shim"], name)


def _binary(name):
    def forward(self, other):
        if _squares(name, self, other):
            return _shim("square")(self)
        return _shim(name)(self, other)

    def reflected(self, other):
        return _shim(name)(other, self)

    def inplace(self, other):
        out = {} if self._scalar else {"out": self}   # NumPy scalars are immutable: rebind
        if _squares(name, self, other):
            return _shim("square")(self, **out)
        return _shim(name)(self, other, **out)

    return forward, reflected, inplace


def _squares(name, array, other):
    """``a ** 2`` of an array (not a NumPy scalar) is NumPy's ``square(a)``: the same
    values, but a bool array squares to int8 where ``power`` with a Python int gives int64."""
    return name == "power" and not array._scalar and type(other) is int and other == 2


for _op, _name in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                   ("truediv", "true_divide"), ("floordiv", "floor_divide"), ("mod", "remainder"),
                   ("pow", "power"), ("and", "bitwise_and"), ("or", "bitwise_or"),
                   ("xor", "bitwise_xor"), ("lshift", "left_shift"), ("rshift", "right_shift"),
                   ("matmul", "matmul"), ("divmod", "divmod")]:
    _f, _r, _i = _binary(_name)
    setattr(ndarray, f"__{_op}__", _f)
    setattr(ndarray, f"__r{_op}__", _r)
    if _op != "divmod":
        setattr(ndarray, f"__i{_op}__", _i)


def _unary(name):
    return lambda self: _shim(name)(self)


def _compare(name):
    return lambda self, other: _shim(name)(self, other)


for _op, _name in [("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")]:
    setattr(ndarray, f"__{_op}__", _unary(_name))
for _op, _name in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                   ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(ndarray, f"__{_op}__", _compare(_name))


def _method(name):
    """``a.name(*args)`` is ``np.name(a, *args)``: one implementation per behaviour."""
    def method(self, *args, **kwargs):
        return _shim(name)(self, *args, **kwargs)
    method.__name__ = name
    return method


def _varargs_method(name):
    """``a.reshape(2, 3)`` and ``a.transpose(1, 0)`` accept the shape/axes unpacked."""
    def method(self, *args, **kwargs):
        if len(args) > 1 or (len(args) == 1 and isinstance(args[0], int) and name == "reshape"):
            args = (args,)
        elif name == "transpose" and len(args) == 1 and args[0] is None:
            args = ()
        return _shim(name)(self, *args, **kwargs)
    method.__name__ = name
    return method


for _name in ["sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "cumsum",
              "cumprod", "any", "all", "clip", "round", "dot", "argsort", "argpartition",
              "searchsorted", "nonzero", "repeat", "take", "put", "diagonal", "trace", "conj",
              "conjugate", "squeeze", "swapaxes", "ravel", "choose"]:
    setattr(ndarray, _name, _method(_name))
for _name in ["reshape", "transpose"]:
    setattr(ndarray, _name, _varargs_method(_name))


def _sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """``a.sort()`` reorders ``a`` itself (a flattening axis=None is refused, as NumPy)."""
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    self._t.copy_(_shim("sort")(self, axis, kind, order, stable=stable)._t)


def _partition(self, kth, axis=-1, kind="introselect", order=None):
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    self._t.copy_(_shim("partition")(self, kth, axis, kind, order)._t)


def _compress(self, condition, axis=None, out=None):
    """``a.compress(c)`` is ``np.compress(c, a)``: the condition comes first there."""
    return _shim("compress")(condition, self, axis, out)


ndarray.compress = _compress
ndarray.sort = _sort
ndarray.partition = _partition


def _flatten(self, order="C"):
    """Always a copy, unlike ravel."""
    return _shim("ravel")(self, order).copy()


ndarray.flatten = _flatten
