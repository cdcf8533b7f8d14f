"""NumPy arrays torch cannot safely address enter a public call as aligned copies. NumPy
works on misaligned memory (``np.frombuffer(b, np.float64, offset=1)``, a field of a packed
structured array); torch views it zero-copy, and some of its kernels then crash (a gather
of misaligned complex128 is a segmentation fault) while strides that are no multiple of
the item size cannot be viewed at all. So such an argument (top level, or an item of a
list or tuple argument) is copied in, the call runs on the copy, and a copy the call
wrote is written back, so ``out=``, ``copyto`` and ``put`` land in the caller's array.
The common call pays one scan of its arguments."""
import numpy

__all__ = ["needs_copies", "through_copies"]


def _unaddressable(a):
    """NumPy's ALIGNED flag covers the data pointer and every stride (a packed field's too)."""
    return not a.flags.aligned


def _needs(value):
    kind = type(value)
    if kind is numpy.ndarray:
        return not value.flags.aligned
    if kind is list or kind is tuple:
        for v in value:
            if type(v) is numpy.ndarray and not v.flags.aligned:
                return True
    return False


def needs_copies(args, kwargs):
    """Whether any argument is unaddressable; a plain loop, as every public call runs it."""
    for v in (*args, *kwargs.values()) if kwargs else args:
        kind = type(v)
        if (kind is numpy.ndarray or kind is list or kind is tuple) and _needs(v):
            return True
    return False


def _swap(value, copies):
    if type(value) is numpy.ndarray and _unaddressable(value):
        if id(value) not in copies:   # the same array twice (``out=a`` of ``a``) is one copy
            copy = value.copy(order="K")              # NumPy's layout (a Fortran array stays one)
            copy.flags.writeable = value.flags.writeable   # a read-only one refuses writes as NumPy does
            copies[id(value)] = (value, copy, copy.tobytes())
        return copies[id(value)][1]
    if type(value) in (list, tuple) and _needs(value):
        return type(value)(_swap(v, copies) for v in value)
    return value


def _original(value, copies):
    """The caller's array where the result is one of the copies (a returned ``out=``)."""
    by_copy = {id(copy): original for original, copy, _ in copies.values()}
    if type(value) is tuple:
        return tuple(by_copy.get(id(v), v) for v in value)
    return by_copy.get(id(value), value)


def through_copies(call, args, kwargs):
    """``call`` on aligned copies of the unaddressable arguments, writing back what it
    wrote (only those: an unchanged copy is never written over memory the call wrote
    through another argument)."""
    copies = {}
    args = tuple(_swap(v, copies) for v in args)
    kwargs = {k: _swap(v, copies) for k, v in kwargs.items()}
    try:
        result = call(*args, **kwargs)
    finally:
        for original, copy, before in copies.values():
            if original.flags.writeable and copy.tobytes() != before:
                original[...] = copy
    return _original(result, copies)
