"""Array creation: from data, from shapes, ranges, grids. Creation follows torch's
default device, so ``with torch.device("cuda"):`` creates on the GPU."""
from . import _coerce
from ._errors import UnsupportedError
from ._ndarray import ndarray

__all__ = ["array", "asarray"]


def _check_order(order):
    if order not in (None, "K", "A", "C", "F"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got '{order}')")


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    _check_order(order)
    if like is not None:
        raise UnsupportedError("asarray(like=...)")
    return _coerce.asarray(a, dtype, copy)


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    out = asarray(object, dtype, order, copy=None if copy is False else copy, like=like)
    if copy is False and isinstance(object, ndarray) and out is not object:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if out.ndim < ndmin:
        out = out._view(out._t.reshape((1,) * (ndmin - out.ndim) + tuple(out._t.shape)))
    return out
