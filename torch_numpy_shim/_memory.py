"""Whether two arrays use the same memory (``np.shares_memory``, ``np.may_share_memory``),
answered from element addresses, so a shim array and the NumPy array it wraps are
recognised, and so are the shim's reversed copies (``a[::-1]``, which NumPy's views
are, see ``_flipped``): they count as the memory they stand for. Traced (fake) tensors
have no addresses: the question is refused there (under npcompile, NumPy answers it at
a graph break)."""
import numpy
import torch

from . import _flipped
from ._errors import UnsupportedError
from ._ndarray import ndarray

__all__ = ["shares_memory", "may_share_memory"]


def _strided(address, byte_strides, shape):
    offsets = torch.zeros((), dtype=torch.int64)
    for n, s in zip(shape, byte_strides):
        offsets = offsets.unsqueeze(-1) + torch.arange(n, dtype=torch.int64) * s
    return offsets + address


def _pointer(t):
    """The address of ``t``'s first element; refused while tracing (an answer computed then
    would be baked into the graph as a constant) and for fake tensors."""
    from torch._subclasses.fake_tensor import is_fake
    from torch.fx.experimental.proxy_tensor import get_proxy_mode
    if get_proxy_mode() is not None or torch.compiler.is_compiling() or is_fake(t):
        raise UnsupportedError("shares_memory needs real memory, not a traced array")
    try:
        return t.data_ptr()
    except (RuntimeError, NotImplementedError) as exc:
        raise UnsupportedError("shares_memory needs real memory, not a traced array") from exc


def _through(root, root_addresses, view):
    """Addresses of the elements of ``view``, a tensor view of ``root``'s storage."""
    t = root._t
    if view.element_size() != t.element_size():
        raise UnsupportedError("shares_memory through a reversed copy viewed as another dtype")
    mem = torch.full((t.untyped_storage().nbytes() // t.element_size(),), -1, dtype=torch.int64)
    mem.as_strided(t.shape, t.stride(), t.storage_offset()).copy_(root_addresses)
    out = mem.as_strided(view.shape, view.stride(), view.storage_offset())
    if bool((out < 0).any()):
        raise UnsupportedError("shares_memory: a view reaches outside its base")
    return out


def _root_addresses(root):
    t = root._t
    reversal = _flipped.reversal_of(root)
    if reversal is None:
        return _strided(_pointer(t), [s * t.element_size() for s in t.stride()], t.shape)
    source, view, dims, perm = reversal
    flipped = _through(source, _root_addresses(source), view).flip(dims)
    return flipped if perm is None else flipped.permute(perm)


def _layout(a):
    """("strided", address, byte strides, shape, itemsize) or ("addresses", tensor, itemsize),
    or None for an object NumPy would convert into fresh memory (a list, a scalar)."""
    if isinstance(a, ndarray) and not a._scalar:
        t = a._t
        root = a._base if a._base is not None else a
        if _flipped.reversal_of(root) is None:
            size = t.element_size()
            return "strided", _pointer(t), tuple(s * size for s in t.stride()), tuple(t.shape), size
        return "addresses", _through(root, _root_addresses(root), t).reshape(-1), t.element_size()
    if isinstance(a, numpy.ndarray):
        return "strided", a.__array_interface__["data"][0], a.strides, a.shape, a.itemsize
    return None


def _bounds(layout):
    if layout[0] == "addresses":
        addresses, itemsize = layout[1], layout[2]
        if addresses.numel() == 0:
            return None
        return int(addresses.min()), int(addresses.max()) + itemsize
    _, address, strides, shape, itemsize = layout
    if 0 in shape:
        return None
    low = address + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    high = address + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + itemsize
    return low, high


def _starts(layout):
    """The sorted addresses where the elements start, and the element size."""
    if layout[0] == "addresses":
        return torch.sort(layout[1]).values, layout[2]
    _, address, strides, shape, itemsize = layout
    return torch.sort(_strided(address, strides, shape).reshape(-1)).values, itemsize


def _overlap(a, b, exact):
    la, lb = _layout(a), _layout(b)
    if la is None or lb is None:
        return False
    ba, bb = _bounds(la), _bounds(lb)
    if ba is None or bb is None or ba[1] <= bb[0] or bb[1] <= ba[0]:
        return False
    if not exact:
        return True
    (starts_a, size_a), (starts_b, size_b) = _starts(la), _starts(lb)
    # an element of b starting at s overlaps one of a starting at t when s - size_a < t < s + size_b
    first = torch.searchsorted(starts_a, starts_b - size_a, right=True)
    inside = first < starts_a.numel()
    hit = starts_a[first.clamp(max=starts_a.numel() - 1)] < starts_b + size_b
    return bool((inside & hit).any())


def shares_memory(a, b, /, max_work=None):
    """Exact: some byte belongs to an element of both."""
    return _overlap(a, b, exact=True)


def may_share_memory(a, b, /, max_work=None):
    """NumPy's default compares the bounds of the two memory extents only; ``max_work=-1``
    (or any positive budget) asks for the exact answer."""
    return _overlap(a, b, exact=max_work is not None and max_work != 0)
