"""Exact detours around torch's missing kernels for uint16/32/64 (and bool).

torch cannot flip, index, gather, concatenate, sort or min/max many of these dtypes.
Moving data needs only the bits, so it runs on the signed type of the same size;
ordering runs on an int64 image that keeps the order (uint64 with its top bit flipped).
"""
import torch

SIGNED_TWIN = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}
_INT64_SIGN = -2**63


def movable(t):
    """``t`` reinterpreted (a view, same bits) as a dtype torch can index, flip and move."""
    twin = SIGNED_TWIN.get(t.dtype)
    return t if twin is None else t.view(twin)


def restored(t, dtype):
    """Undo ``movable``: view the moved bits as the original torch ``dtype`` again."""
    return t if t.dtype == dtype else t.view(dtype)


def orderable(t):
    """``t`` as a tensor torch can sort, compare, min/max and argmax in the same order,
    and the way back: bool as uint8, uint16/32 widened to int64, uint64 as int64 with
    the sign bit flipped (an order-preserving map); other dtypes as they are."""
    if t.dtype == torch.bool:
        return t.to(torch.uint8), lambda r: r.to(torch.bool)
    if t.dtype in (torch.uint16, torch.uint32):
        return t.to(torch.int64), lambda r: r.to(t.dtype)
    if t.dtype == torch.uint64:
        return t.view(torch.int64) ^ _INT64_SIGN, lambda r: (r ^ _INT64_SIGN).view(torch.uint64)
    return t, lambda r: r
