"""Writes into an array whose elements share memory (a stride-0 dimension: the results of
``np.broadcast_arrays``, writeable as NumPy makes them), as NumPy writes them.

torch refuses to write into such a tensor ("more than one element of the written-to
tensor refers to a single memory location"). NumPy computes the values first (an input
that overlaps the output is copied) and then stores them item by item in the
destination's C order, so where several items share one memory location the last item
written wins (and a masked store only counts the items it writes). ``store`` does that:
plain ``copy_`` where nothing overlaps, else one write per memory location, of the value
of the last item that lands there. Below the array: this module only sees tensors.
"""
import torch


def overlaps(t):
    """Whether two elements of ``t`` share memory: a dimension of stride 0 and length > 1
    (the only self-overlap the shim's arrays can have: it has no ``as_strided``); an
    empty array has no items to share (its strides say nothing)."""
    return any(s == 0 and n > 1 for n, s in zip(t.shape, t.stride())) and 0 not in t.shape


def store(dst, value, mask=None):
    """``dst[...] = value`` (where ``mask``, if given), NumPy's order; both broadcast to
    ``dst``'s shape."""
    if not overlaps(dst):
        dst.copy_(value if mask is None else torch.where(mask, value, dst))
        return
    value = value.expand(dst.shape).reshape(-1)
    if mask is None:
        positions = torch.arange(value.numel(), device=dst.device)
    else:
        positions = torch.nonzero(mask.expand(dst.shape).reshape(-1)).reshape(-1)
    store_items(dst, positions, value[positions])


def store_items(dst, positions, values):
    """Write ``values[k]`` to the item of ``dst`` at C-order flat position
    ``positions[k]``, in the order of k: of several that reach one memory location, the
    last one stays."""
    offsets = torch.zeros((), dtype=torch.int64, device=dst.device)
    for n, s in zip(dst.shape, dst.stride()):
        offsets = offsets.unsqueeze(-1) + torch.arange(n, dtype=torch.int64, device=dst.device) * s
    offsets = offsets.reshape(-1)[positions.reshape(-1)]
    if offsets.numel() == 0:
        return
    order = torch.arange(offsets.numel(), device=dst.device)
    span = int(offsets.max()) + 1
    last = torch.full((span,), -1, dtype=torch.int64, device=dst.device)
    last.scatter_reduce_(0, offsets, order, "amax")
    kept = last[offsets] == order
    memory = dst.as_strided((span,), (1,), dst.storage_offset())
    memory[offsets[kept]] = values.reshape(-1)[kept].clone().to(dst.dtype)
