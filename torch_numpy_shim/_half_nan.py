"""float16 <-> float32 conversions that keep a NaN's sign and payload, as NumPy's.

NumPy's float16 ufunc loops convert to float32 (``npy_half_to_float``), compute, and
convert back (``npy_float_to_half``); both keep the NaN's sign bit and the top bits of
its payload, so ``np.negative(np.float16(nan))`` is 0xfe00 and ``np.sqrt`` of -nan stays
-nan. torch's conversions (on this CPU) make every NaN 0x7fffffff / 0x7fff, so the shim's
float16 ufuncs, computed in float32, lost the sign. These rebuild a NaN's bits from
integer views (``torch.where``, so they trace and fuse); other values convert as torch's
(exact upward, round-to-nearest-even downward, as NumPy's).
"""
import torch

_INT32_SIGN = -2 ** 31
_INT16_SIGN = -2 ** 15


def to_float32(h):
    """float16 tensor ``h`` as float32, a NaN's sign and payload kept."""
    bits = h.view(torch.int16).to(torch.int32)   # sign-extended: negative iff the sign bit is set
    nan_bits = (bits & _INT32_SIGN) | 0x7F800000 | ((bits & 0x3FF) << 13)   # stays int32
    return torch.where(torch.isnan(h), nan_bits.view(torch.float32), h.to(torch.float32))


def to_float16(f):
    """float32 tensor ``f`` rounded to float16, a NaN's sign and top payload bits kept
    (a payload whose kept bits are all zero becomes 1, so that it stays a NaN)."""
    bits = f.view(torch.int32)
    payload = (bits >> 13) & 0x3FF
    payload = payload | (payload == 0).to(torch.int32)
    nan_bits = (((bits >> 16) & _INT16_SIGN) | 0x7C00 | payload).to(torch.int16)
    return torch.where(torch.isnan(f), nan_bits.view(torch.float16), f.to(torch.float16))
