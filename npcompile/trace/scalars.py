"""NumPy scalars as traced code sees them.

The shim models a NumPy scalar (``np.float64(2)``, ``a.sum()``, ``a[0]``) as a 0-D shim
array flagged ``_scalar``. Inside a trace, Python's own ``isinstance``, ``type`` and
``issubclass`` would call it an ndarray; these answer as NumPy does instead: such a value
is an instance of its NumPy scalar type (``np.float64``, hence ``np.floating``,
``np.generic`` and ``float``), not of ``np.ndarray``; ``type(x)`` is the shim's scalar
class, which is ``np.float64`` inside the trace and becomes it outside.
"""
import types

import numpy

from torch_numpy_shim import _dtypes as shim_dtypes
from torch_numpy_shim import _flipped
from torch_numpy_shim._ndarray import _Flags as ShimFlags
from torch_numpy_shim._ndarray import ndarray as ShimArray

from ..errors import GraphBreak
from . import numpy_map

_NEEDS_VALUES = ("item", "tolist", "__array__", "tobytes")


def is_scalar(value):
    return isinstance(value, ShimArray) and value._scalar


def numpy_type(value):
    """The NumPy class of a shim array or scalar (``numpy.ndarray``, ``numpy.float64``...)."""
    return value.dtype.np.type if value._scalar else numpy.ndarray


def numpy_classes(classes):
    """``isinstance``'s second argument with shim classes swapped for NumPy's."""
    if isinstance(classes, tuple):
        return tuple(numpy_classes(c) for c in classes)
    if isinstance(classes, types.UnionType):
        return numpy_classes(classes.__args__)
    return numpy_map.to_numpy(classes)


def is_instance(obj, classes):
    """``isinstance(obj, classes)`` as NumPy answers it, for shim arrays and scalars."""
    return issubclass(numpy_type(obj), numpy_classes(classes))


def type_of(obj):
    """``type(obj)`` of a shim array or scalar: the shim class NumPy's stands for."""
    return shim_dtypes.scalar_class(obj.dtype) if obj._scalar else type(obj)


def is_subclass(cls, classes):
    """``issubclass`` with shim classes on either side read as NumPy's."""
    return issubclass(numpy_map.to_numpy(cls), numpy_classes(classes))


def array_attribute(obj, name):
    """An attribute of a shim array or scalar. Values are unknown while tracing, so
    what needs them is a graph break; so is an attribute NumPy has and the shim lacks
    (real NumPy computes it there)."""
    if name in _NEEDS_VALUES:
        raise GraphBreak(f"ndarray.{name}() needs the array's values",
                         "values are not known while tracing; keep array results as arrays")
    if name == "__class__":
        return type_of(obj)
    if name == "strides" and not obj._scalar:
        reversed_strides = _flipped.numpy_strides(obj)
        if reversed_strides is not None:
            return reversed_strides   # NumPy's view's, not the shim's copy's
    if name in _OWNERSHIP and not obj._scalar and _ownership_unknown(obj, name):
        if name == "base":
            raise GraphBreak("ndarray.base of an input array or a view of one: the trace sees a graph input, "
                             "not the caller's array", "real NumPy reads it (NumPy's view of the caller's array)")
        return InputFlags(obj)
    try:
        value = getattr(obj, name)
    except AttributeError:
        if hasattr(numpy_type(obj), name):
            raise GraphBreak(f"{numpy_type(obj).__name__}.{name} is not provided by torch_numpy_shim",
                             "it runs in real NumPy") from None
        raise AttributeError(f"{numpy_type(obj).__name__!r} object has no attribute {name!r}") from None
    if not obj._scalar:
        return value
    if isinstance(value, types.MethodType) and value.__self__ is obj:
        return ScalarMethod(obj, name, value)
    return as_scalar(value)


#: attributes that tell whether an array owns its memory, which a graph input cannot know
_OWNERSHIP = ("base", "flags")


def _ownership_unknown(obj, name):
    """Whether the shim's ``base`` (``name``) or ``flags.owndata`` of ``obj`` may not be
    NumPy's: ``obj`` is an input (the caller's array may be a view), a reversed view (a
    copy in the shim, a view in NumPy), or, for ``base``, a view of an input (NumPy's base
    is the input's own base when the input is a view)."""
    if is_input(obj) or _flipped.reversal_of(obj) is not None:
        return True
    if name != "base":
        return False
    root = obj
    for _ in range(1000):
        if root._base is None or root._base is root:
            break
        root = root._base
    return root is not obj and (is_input(root) or _flipped.reversal_of(root) is not None)


def is_input(obj):
    """Whether shim array ``obj`` is a graph input itself (a placeholder of the graph being
    recorded): the caller's array, which may be a view (``b = a[1:]`` held across a graph
    break comes back as an input of its own, whose shim array owns its memory)."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode, get_proxy_slot
    mode = get_proxy_mode()
    slot = None if mode is None else get_proxy_slot(obj._t, mode.tracer, None)
    return slot is not None and slot.proxy.node.op == "placeholder"


class InputFlags(ShimFlags):
    """An input array's (or a reversed view's) flags: its layout flags are the trace's (a
    reversed view's NumPy's, from its strides), ``owndata`` is NumPy's to answer (a graph
    break: the caller's array may be a view)."""

    __slots__ = ()

    @property
    def c_contiguous(self):
        return self._contiguous("C")

    @property
    def f_contiguous(self):
        return self._contiguous("F")

    def _contiguous(self, order):
        """A reversed view's NumPy contiguity (the shim's copy is contiguous), else the trace's."""
        strides = _flipped.numpy_strides(self._a)
        if strides is None:
            return ShimFlags.c_contiguous.fget(self) if order == "C" else ShimFlags.f_contiguous.fget(self)
        return _flipped.contiguous(self._a.shape, strides, self._a.itemsize, order)

    @property
    def owndata(self):
        raise GraphBreak("flags.owndata of an input array: the trace sees a graph input, not the caller's array",
                         "real NumPy reads it (a view held across a graph break does not own its data)")


def as_scalar(value):
    """A 0-D result of a NumPy scalar's attribute or method is a NumPy scalar, as in NumPy
    (``x.real``, ``x.conj()``, ``x.astype(t)``); other results stay as they are."""
    if isinstance(value, ShimArray) and value.ndim == 0 and not value._scalar:
        return ShimArray._wrap(value._t, True)
    return value


class ScalarMethod:
    """A method of a NumPy scalar (``x.conj``): NumPy's scalar methods give a scalar
    where the array method gives a 0-D array. Called like a method of a shim array (a
    native call); at a graph break it is rebuilt as ``getattr(scalar, name)``."""

    def __init__(self, scalar, name, method):
        self.__self__, self.__name__, self._method = scalar, name, method

    def __call__(self, *args, **kwargs):
        return as_scalar(self._method(*args, **kwargs))
