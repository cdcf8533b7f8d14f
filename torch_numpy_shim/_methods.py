"""ndarray's behaviour that is made of the NumPy functions, attached to the class here.

``ndarray`` sits below the function modules (they all build on it), so it cannot import
them; this module, imported once by the package, gives it what it does through them:
operators are ufuncs, ``a.sum()`` is ``sum(a)``, ``a[key]`` and ``a.flat`` are the
indexing module's, ``astype`` and the conversions to NumPy are ``_coerce``'s. Every
behaviour keeps exactly one implementation.
"""
import builtins
import operator

from . import (
    _coerce,
    _flipped,
    _indexing,
    _layout,
    _manipulation,
    _products,
    _reductions,
    _self_overlap,
    _sorting,
    _ufuncs,
)
from ._dtypes import _as_dtype
from ._flatiter import flatiter
from ._graph_warnings import warn_complex_to_real
from ._ndarray import ndarray
from ._promotion import can_cast


def _attach(name, function):
    function.__name__ = name
    function.__qualname__ = f"ndarray.{name}"
    setattr(ndarray, name, function)


# ---- operators: the ufuncs ----------------------------------------------------------------
def _squares(function, array, other):
    """``a ** 2`` of an array (not a NumPy scalar) is NumPy's ``square(a)``: the same
    values, but a bool array squares to int8 where ``power`` with a Python int gives int64."""
    return function is _ufuncs.power and not array._scalar and type(other) is int and other == 2


#: Python's sequences that repeat by ``*`` (a range is read as an array instead)
_REPEATED = (list, tuple, str, bytes, bytearray)


def _repeats(function, array, other):
    """``[0] * n`` with ``n`` a NumPy scalar repeats the list, as in NumPy (its scalars
    leave a sequence to Python, which repeats by ``__index__``); an array multiplies."""
    return function is _ufuncs.multiply and array._scalar and isinstance(other, _REPEATED)


def _repeat(scalar, sequence):
    """``sequence * scalar``: only integer scalars repeat, with Python's TypeError else."""
    if scalar.dtype.kind not in "iu":
        raise TypeError(f"can't multiply sequence by non-int of type 'numpy.{scalar.dtype.type.__name__}'")
    return sequence * operator.index(scalar)


def _binary(function):
    def forward(self, other):
        if _squares(function, self, other):
            return _ufuncs.square(self)
        if _repeats(function, self, other):
            return _repeat(self, other)
        return function(self, other)

    def reflected(self, other):
        if _repeats(function, self, other):
            return _repeat(self, other)
        return function(other, self)

    def inplace(self, other):
        if _repeats(function, self, other):
            return _repeat(self, other)
        self._check_writeable("output array is read-only")
        out = {} if self._scalar else {"out": self}   # NumPy scalars are immutable: rebind
        if _squares(function, self, other):
            return _ufuncs.square(self, **out)
        return function(self, other, **out)

    return forward, reflected, inplace


for _op, _function in [("add", _ufuncs.add), ("sub", _ufuncs.subtract), ("mul", _ufuncs.multiply),
                       ("truediv", _ufuncs.true_divide), ("floordiv", _ufuncs.floor_divide),
                       ("mod", _ufuncs.remainder), ("pow", _ufuncs.power), ("and", _ufuncs.bitwise_and),
                       ("or", _ufuncs.bitwise_or), ("xor", _ufuncs.bitwise_xor),
                       ("lshift", _ufuncs.left_shift), ("rshift", _ufuncs.right_shift),
                       ("matmul", _products.matmul), ("divmod", _ufuncs.divmod)]:
    _forward, _reflected, _inplace = _binary(_function)
    _attach(f"__{_op}__", _forward)
    _attach(f"__r{_op}__", _reflected)
    if _op != "divmod":
        _attach(f"__i{_op}__", _inplace)


def _unary(function):
    return lambda self: function(self)


def _compare(function):
    return lambda self, other: function(self, other)


for _op, _function in [("neg", _ufuncs.negative), ("pos", _ufuncs.positive), ("abs", _ufuncs.absolute),
                       ("invert", _ufuncs.invert)]:
    _attach(f"__{_op}__", _unary(_function))
for _op, _function in [("eq", _ufuncs.equal), ("ne", _ufuncs.not_equal), ("lt", _ufuncs.less),
                       ("le", _ufuncs.less_equal), ("gt", _ufuncs.greater), ("ge", _ufuncs.greater_equal)]:
    _attach(f"__{_op}__", _compare(_function))


# ---- methods that are NumPy functions ---------------------------------------------------
def _method(function):
    """``a.name(*args)`` is ``np.name(a, *args)``."""
    return lambda self, *args, **kwargs: function(self, *args, **kwargs)


def _varargs_method(function, name):
    """``a.reshape(2, 3)`` and ``a.transpose(1, 0)`` accept the shape/axes unpacked."""
    def method(self, *args, **kwargs):
        if len(args) > 1 or (len(args) == 1 and isinstance(args[0], int) and name == "reshape"):
            args = (args,)
        elif name == "transpose" and len(args) == 1 and args[0] is None:
            args = ()
        return function(self, *args, **kwargs)
    return method


def _conj(self):
    """``a.conj()``: the array itself unless complex (NumPy's method, not its ufunc,
    which makes a new array and turns bools into int8)."""
    return _ufuncs.conjugate(self) if self.dtype.kind == "c" else self


# ``a.name(...)`` is ``METHODS[name](a, ...)``, the package's ``np.name``
METHODS = {
    "sum": _reductions.sum, "prod": _reductions.prod, "mean": _reductions.mean, "std": _reductions.std,
    "var": _reductions.var, "min": _reductions.min, "max": _reductions.max, "argmin": _reductions.argmin,
    "argmax": _reductions.argmax, "cumsum": _reductions.cumsum, "cumprod": _reductions.cumprod,
    "any": _reductions.any, "all": _reductions.all, "clip": _ufuncs.clip, "round": _ufuncs.round,
    "dot": _products.dot, "trace": _products.trace, "argsort": _sorting.argsort,
    "argpartition": _sorting.argpartition, "searchsorted": _sorting.searchsorted,
    "nonzero": _indexing.nonzero, "take": _indexing.take, "put": _indexing.put, "choose": _indexing.choose,
    "repeat": _manipulation.repeat, "diagonal": _manipulation.diagonal, "squeeze": _manipulation.squeeze,
    "swapaxes": _manipulation.swapaxes, "ravel": _manipulation.ravel,
}
VARARGS_METHODS = {"reshape": _manipulation.reshape, "transpose": _manipulation.transpose}

for _name, _function in METHODS.items():
    _attach(_name, _method(_function))
for _name, _function in VARARGS_METHODS.items():
    _attach(_name, _varargs_method(_function, _name))


@_flipped.writes(0)
def _sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """``a.sort()`` reorders ``a`` itself (a flattening axis=None is refused, as NumPy)."""
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    _self_overlap.store(self._t, _sorting.sort(self, axis, kind, order, stable=stable)._t)


@_flipped.writes(0)
def _partition(self, kth, axis=-1, kind="introselect", order=None):
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    _self_overlap.store(self._t, _sorting.partition(self, kth, axis, kind, order)._t)


def _compress(self, condition, axis=None, out=None):
    """``a.compress(c)`` is ``np.compress(c, a)``: the condition comes first there."""
    return _indexing.compress(condition, self, axis, out)


def _flatten(self, order="C"):
    """Always a copy, unlike ravel."""
    return ndarray._wrap(_layout.copy_as(_manipulation.ravel(self, order)._t, "C"))


def _tobytes(self, order="C"):
    """The bytes in ``order`` (A and K read this array's layout)."""
    return _coerce.to_numpy(self).tobytes(order)


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    target = _as_dtype(dtype)
    if not can_cast(self.dtype, target, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {target!r} "
                        f"according to the rule '{casting}'")
    if not copy and target is self.dtype:
        return self
    warn_complex_to_real(self._t.dtype, target.torch)
    cast = _coerce.cast_tensor(self._t, target, copy=True)
    return ndarray._wrap(_layout.keep_order_of(cast, self._t, _layout.order_letter(order)), self._scalar)


for _name, _function in [("sort", _sort), ("partition", _partition), ("compress", _compress),
                        ("flatten", _flatten), ("astype", _astype), ("tobytes", _tobytes)]:
    _attach(_name, _function)


# ---- indexing, shape and flat ---------------------------------------------------------------
def _getitem(self, key):
    return _indexing.getitem(self, key)


def _setitem(self, key, value):
    _indexing.setitem(self, key, value)


def _set_shape(self, new_shape):
    """In place, so only where a view can do it (NumPy's AttributeError otherwise)."""
    target = _manipulation.reshape(self, new_shape).shape   # NumPy's ValueError for a size mismatch
    try:
        self._t = self._t.view(target)
    except RuntimeError:
        raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` "
                             "to make a copy with the desired shape.") from None


def _set_flat(self, value):
    self._check_writeable("array is read-only")
    flatiter(self)[...] = value


def _round(self, ndigits=None):
    """``round(x)``: NumPy's float and int scalars round as Python numbers (an int without
    ``ndigits``, else a scalar of their type); arrays, bools and complex scalars do not."""
    kind = self.dtype.kind
    if not self._scalar or kind not in "iuf":
        name = "ndarray" if not self._scalar else self.dtype.type.__name__
        raise TypeError(f"type numpy.{name} doesn't define __round__ method")
    if ndigits is None:
        return builtins.round(float(self)) if kind == "f" else int(self)
    return _ufuncs.around(self, ndigits)


_attach("__getitem__", _getitem)
_attach("__setitem__", _setitem)
_attach("__round__", _round)
_attach("conj", _conj)          # not np.conj: NumPy's method returns a real array itself
_attach("conjugate", _conj)
ndarray.shape = ndarray.shape.setter(_set_shape)
ndarray.flat = property(flatiter, _set_flat)


# ---- conversions to NumPy -------------------------------------------------------------------
def _array(self, dtype=None, copy=None):
    out = _coerce.tensor_to_numpy(self._t)
    if dtype is not None:
        out = out.astype(dtype, copy=False)
    return out.copy() if copy else out


def _repr(self):
    return repr(_coerce.to_numpy(self))


def _str(self):
    return str(_coerce.to_numpy(self))


def _format(self, spec):
    return format(_coerce.to_numpy(self), spec)


def _reduce(self):
    return (_coerce.asarray, (_coerce.to_numpy(self),))


for _name, _function in [("__array__", _array), ("__repr__", _repr), ("__str__", _str),
                        ("__format__", _format), ("__reduce__", _reduce)]:
    _attach(_name, _function)
