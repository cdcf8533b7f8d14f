"""NumPy's memory layout (``order=``) for the arrays the shim creates. Values never depend
on it; ``.strides``, ``.flags``, ``np.isfortran`` and ``tobytes(order='A')`` do, and code
handing arrays to Fortran-minded libraries reads them. Torch tensors take any strides
(``torch.empty_strided``), so a new array gets exactly the strides NumPy allocates: C by
default (torch's own, the fast path), Fortran, or for ``order='K'`` the stride order of a
prototype. Fresh empty arrays have all-zero strides, as in NumPy 2."""
import torch

__all__ = ["order_letter", "resolve", "strides_for", "empty", "f_contiguous", "fortran", "keep_order_of",
           "copy_as", "satisfying", "proxy", "joined_axes", "empty_with_axes", "zero_new_axes"]


def order_letter(order, default="K"):
    """NumPy reads the letter in either case; None is ``default``."""
    return default if order is None else order.upper() if isinstance(order, str) else order


def f_contiguous(t):
    return t.ndim <= 1 and t.is_contiguous() or t.permute(*reversed(range(t.ndim))).is_contiguous()


def fortran(t):
    """NumPy's ``isfortran``: F-contiguous and not C-contiguous."""
    return t.ndim > 1 and not t.is_contiguous() and f_contiguous(t)


def resolve(order, proto, ndim):
    """The letter for a new array shaped ``ndim`` like ``proto`` (a tensor): A is F only for
    a Fortran prototype, K keeps C or F contiguity, else it stays K (the stride order)."""
    if order == "A":
        return "F" if fortran(proto) else "C"
    if order == "K":
        if proto.ndim != ndim or ndim <= 1 or proto.is_contiguous():
            return "C"
        return "F" if fortran(proto) else "K"
    return order


def _dense(shape, axes):
    """Element strides of a dense array whose axes, slowest first, are ``axes``."""
    strides, step = [0] * len(shape), 1
    for i in reversed(axes):
        strides[i] = step
        step = step * shape[i]
    return strides


def strides_for(shape, order, proto=None):
    """NumPy's strides (in elements) for a new array: order C, F or K (``proto``'s order)."""
    n = len(shape)
    if order == "F":
        axes = list(reversed(range(n)))
    elif order == "K":
        stride = proto.stride()
        axes = sorted(range(n), key=lambda i: -abs(stride[i]))   # stable, as NumPy's sort
    else:
        axes = list(range(n))
    return _dense(shape, axes)


def _has(shape, size):
    """Whether a dimension is ``size``; a symbolic one (a traced size) never counts, so
    asking adds no guard (tracing specialises sizes 0 and 1 anyway)."""
    return any(isinstance(d, int) and d == size for d in shape)


def _is_empty(shape):
    return _has(shape, 0)


def _wanted(shape, order, proto):
    if _is_empty(shape):
        return (0,) * len(shape)
    return tuple(strides_for(shape, order, proto))


_FACTORIES = {None: torch.empty, 0: torch.zeros, 1: torch.ones}


def empty(shape, dtype, order="C", proto=None, device=None, fill=None):
    """A tensor laid out as NumPy lays out ``empty(shape, order=order)`` (``proto``: the
    tensor a K order follows), uninitialised or filled with ``fill`` (0 or 1)."""
    shape = tuple(shape)
    if (order == "C" or len(shape) <= 1) and not _is_empty(shape):
        return _FACTORIES[fill](shape, dtype=dtype, device=device)
    t = torch.empty_strided(shape, _wanted(shape, order, proto), dtype=dtype, device=device)
    return t if fill is None else t.fill_(fill)


def keep_order_of(t, source, order="K"):
    """``t``, a new tensor of ``source``'s shape with its values, laid out as NumPy's copy of
    ``source`` with ``order`` (C, F, A or K); ``t`` itself when it already is."""
    if order != "F" and t.is_contiguous() and source.is_contiguous() and not _has(t.shape, 1) and not _has(t.shape, 0):
        return t   # the common case (C in, C out), decided without computing strides
    letter = resolve(order, source, source.ndim)
    if t.ndim <= 1 and not _is_empty(t.shape) or t.stride() == _wanted(t.shape, letter, source):
        return t
    return empty(t.shape, t.dtype, letter, source, t.device).copy_(t)


def copy_as(t, order):
    """A copy of ``t`` laid out as NumPy's ``copy(order=order)`` lays it out."""
    letter = resolve(order, t, t.ndim)
    if letter == "C" and not _has(t.shape, 0):
        return t.clone(memory_format=torch.contiguous_format)   # torch's C strides are NumPy's
    return empty(t.shape, t.dtype, letter, t, t.device).copy_(t)


def satisfying(t, order):
    """``t`` if its layout already is what ``asarray(order=order)`` asks (C or F contiguity;
    A and K ask none), else a copy laid out so (NumPy copies only then)."""
    if order in ("K", "A") or order == "C" and t.is_contiguous() or order == "F" and f_contiguous(t):
        return t
    return copy_as(t, order)


def proxy(arr):
    """A meta tensor with the shape and (absolute) element strides of NumPy array ``arr``:
    what a K order reads from it, where the shim holds a copy of another layout."""
    size = arr.itemsize
    if size == 0 or any(s % size for s in arr.strides):
        return None
    return torch.empty_strided(arr.shape, tuple(abs(s) // size for s in arr.strides), device="meta")


def _goes_before(tensors, later, earlier):
    """Whether axis ``later`` must precede ``earlier`` (a larger stride) for NumPy's
    concatenate: the first input where both axes are longer than 1 decides a swap, any
    later one may veto it (C order wins conflicts); None where no input decides."""
    decided = swap = None
    for t in tensors:
        if t.shape[later] != 1 and t.shape[earlier] != 1:
            bigger = abs(t.stride(later)) > abs(t.stride(earlier))
            swap = bigger if decided is None else swap and bigger
            decided = True
    return swap if decided else None


def joined_axes(tensors):
    """The axes, slowest first, of NumPy's concatenated result (its multi-operand stable
    insertion sort by descending stride); the identity for C-contiguous inputs."""
    ndim = tensors[0].ndim
    axes = list(range(ndim))
    if all(t.is_contiguous() for t in tensors):
        return axes
    for i in range(1, ndim):
        axis, position = axes[i], i
        for j in range(i - 1, -1, -1):
            swap = _goes_before(tensors, axis, axes[j])
            if swap is None:
                continue
            if not swap:
                break
            position = j
        axes[position + 1:i + 1] = axes[position:i]
        axes[position] = axis
    return axes


def empty_with_axes(shape, dtype, axes, device=None):
    """An uninitialised dense tensor whose axes, slowest first, are ``axes``."""
    shape = tuple(shape)
    strides = (0,) * len(shape) if _is_empty(shape) else _dense(shape, axes)
    return torch.empty_strided(shape, strides, dtype=dtype, device=device)


def zero_new_axes(t, dims):
    """``t`` with stride 0 on its axes ``dims`` (each of length 1), as NumPy strides an axis
    that ``None``/``newaxis`` inserts; torch's ``unsqueeze`` gives it the extent of the next
    axis. Values and contiguity are the same either way; ``.strides`` shows the difference."""
    strides = list(t.stride())
    for d in dims:
        strides[d] = 0
    return t.as_strided(t.shape, strides, t.storage_offset())
