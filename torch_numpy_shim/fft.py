"""numpy.fft over torch.fft, with NumPy 2's precision rules: float32/complex64 (and
float16) transform in single precision, everything else in double; irfft/hfft return
the input's real precision (float16 stays float16, as NumPy casts its output).

Every transform is NumPy's sequence of 1-D transforms (n-D ones loop over the axes in
NumPy's order, so repeated axes work), each unnormalized in torch and then scaled by
NumPy's own factor computed in the input's real precision.
"""
import numbers
import warnings

import numpy
import torch

from . import _coerce, _dtypes, _promotion
from ._coerce import cast_tensor
from ._errors import UFuncOutputCastingError
from ._ndarray import ndarray
from ._normalize import ArrayLike, OutArray, normalize_axis, normalizer, write_out
from ._numpy_version import NUMPY_2_5
from ._products import broadcast_shapes

# NumPy's transforms are ufuncs; casting errors name them with NumPy's exception class
_pocketfft_ufuncs = numpy.fft._pocketfft_umath

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_SWAP = {"backward": "forward", None: "forward", "ortho": "ortho", "forward": "backward"}


def _check_norm(norm):
    if norm is not None and norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _swap_direction(norm):
    _check_norm(norm)
    return _SWAP[norm]


def _scale(n, norm, is_forward, real_dtype):
    """NumPy's normalization factor, rounded to the input's real precision."""
    if not is_forward:
        norm = _swap_direction(norm)
    _check_norm(norm)
    if norm in (None, "backward"):
        return 1.0
    n_ = numpy.asarray(n, dtype=real_dtype.np)
    return float(numpy.reciprocal(numpy.sqrt(n_) if norm == "ortho" else n_))


def _complex_of(dt):
    """What NumPy's fft loop takes: complex64 for float16/32/complex64, else complex128."""
    return _promotion.result_type(dt, 1j)


def _raw_fft(a, n, axis, is_real, is_forward, norm, out):
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    loop_dtype = _complex_of(a.dtype)
    real_dtype = _promotion.result_type(a.real.dtype, 1.0)
    fct = _scale(n, norm, is_forward, real_dtype)
    axis = normalize_axis(axis, a.ndim)
    if is_real and is_forward:
        if a.dtype.kind == "c":
            raise TypeError("ufunc 'rfft_n_even' not supported for the input types, and the inputs could "
                            "not be safely coerced to any supported types according to the casting rule "
                            "''safe''")
        loop_real = _dtypes.float32.dtype if loop_dtype.itemsize == 8 else _dtypes.float64.dtype
        t = torch.fft.rfft(cast_tensor(a._t, loop_real), n, axis, norm="backward")
        n_out, out_dtype = n // 2 + 1, loop_dtype
    elif is_real:
        t = torch.fft.irfft(cast_tensor(a._t, loop_dtype), n, axis, norm="forward")
        n_out, out_dtype = n, real_dtype
    else:
        transform = torch.fft.fft if is_forward else torch.fft.ifft
        t = transform(cast_tensor(a._t, loop_dtype), n, axis, norm="backward" if is_forward else "forward")
        n_out, out_dtype = n, loop_dtype
    if fct != 1.0:
        t = t * fct
    t = cast_tensor(t, out_dtype)
    if out is None:
        return ndarray._wrap(t)
    if out.ndim != a.ndim or out.shape[axis] != n_out:
        raise ValueError("output array has wrong shape.")
    if not _promotion.can_cast(out_dtype, out.dtype, "same_kind"):
        name = "irfft" if is_real and not is_forward else (
            ("rfft_n_even" if n % 2 == 0 else "rfft_n_odd") if is_real else ("fft" if is_forward else "ifft"))
        raise UFuncOutputCastingError(getattr(_pocketfft_ufuncs, name), "same_kind", out_dtype.np, out.dtype.np, 0)
    return write_out(ndarray._wrap(t), out)


def _length(a, n, axis, halved):
    """``n``, or when it is None the length NumPy transforms (read only then, as NumPy)."""
    if n is not None:
        return n
    return (a.shape[axis] - 1) * 2 if halved else a.shape[axis]


def _transform(name, is_real, is_forward):
    """fft, ifft, rfft and irfft: one signature over _raw_fft (irfft's default ``n`` is
    the halved spectrum's)."""
    def function(a: ArrayLike, n=None, axis=-1, norm=None, out: OutArray = None):
        n = _length(a, n, axis, halved=is_real and not is_forward)
        return _raw_fft(a, n, axis, is_real, is_forward, norm, out)
    function.__name__ = function.__qualname__ = name
    return normalizer(function)


fft = _transform("fft", is_real=False, is_forward=True)
ifft = _transform("ifft", is_real=False, is_forward=False)
rfft = _transform("rfft", is_real=True, is_forward=True)
irfft = _transform("irfft", is_real=True, is_forward=False)


@normalizer
def hfft(a: ArrayLike, n=None, axis=-1, norm=None, out: OutArray = None):
    """irfft of the conjugate with the opposite normalization (NumPy 2.4 ignores ``out``, 2.5 fills it)."""
    n = _length(a, n, axis, True)
    return _raw_fft(ndarray._wrap(a._t.conj().resolve_conj()), n, axis, True, False, _swap_direction(norm),
                    _used_out(out))


@normalizer
def ihfft(a: ArrayLike, n=None, axis=-1, norm=None, out: OutArray = None):
    n = _length(a, n, axis, False)
    result = _raw_fft(a, n, axis, True, True, _swap_direction(norm), out)
    result._t.copy_(result._t.conj())
    return result


def _used_out(out):
    """``out=`` of hfft, ifft2 and irfft2: NumPy 2.4 dropped it (a new array), 2.5 fills it."""
    return out if NUMPY_2_5 else None


def _cook_nd_args(a, s, axes, invreal=False):
    """NumPy's defaults for ``s`` and ``axes`` (with its deprecation warnings)."""
    shapeless = s is None
    if s is None:
        s = list(a.shape) if axes is None else [a.shape[ax] for ax in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In "
                          "a future version of NumPy, this will raise an error and `s[i]` will correspond "
                          "to the size along the transformed axis specified by `axes[i]`. To retain current "
                          "behaviour, pass a sequence [0, ..., k-1] to `axes` for an array of dimension k.",
                          DeprecationWarning, stacklevel=4)
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    if None in s:
        warnings.warn("Passing an array containing `None` values to `s` is deprecated in NumPy 2.0 and will "
                      "raise an error in a future version of NumPy. To use the default behaviour of the "
                      "corresponding 1-D transform, pass the value matching the default for its `n` "
                      "parameter. To use the default behaviour for every axis, the `s` argument can be "
                      "omitted.", DeprecationWarning, stacklevel=4)
    s = [a.shape[ax] if n == -1 else n for n, ax in zip(s, axes)]
    return s, axes


def _raw_fftnd(a, s, axes, one_d, norm, out):
    s, axes = _cook_nd_args(a, s, axes)
    for i in reversed(range(len(axes))):
        a = one_d(a, s[i], axes[i], norm, out)
    return a


@normalizer
def fftn(a: ArrayLike, s=None, axes=None, norm=None, out: OutArray = None):
    return _raw_fftnd(a, s, axes, fft, norm, out)


@normalizer
def ifftn(a: ArrayLike, s=None, axes=None, norm=None, out: OutArray = None):
    return _raw_fftnd(a, s, axes, ifft, norm, out)


@normalizer
def fft2(a: ArrayLike, s=None, axes=(-2, -1), norm=None, out: OutArray = None):
    return _raw_fftnd(a, s, axes, fft, norm, out)


@normalizer
def ifft2(a: ArrayLike, s=None, axes=(-2, -1), norm=None, out: OutArray = None):
    """NumPy 2.4 ignores ``out`` here, 2.5 fills it."""
    return _raw_fftnd(a, s, axes, ifft, norm, _used_out(out))


@normalizer
def rfftn(a: ArrayLike, s=None, axes=None, norm=None, out: OutArray = None):
    s, axes = _cook_nd_args(a, s, axes)
    a = rfft(a, s[-1], axes[-1], norm, out)
    for i in range(len(axes) - 2, -1, -1):
        a = fft(a, s[i], axes[i], norm, out)
    return a


@normalizer
def rfft2(a: ArrayLike, s=None, axes=(-2, -1), norm=None, out: OutArray = None):
    return rfftn(a, s, axes, norm, out)


@normalizer
def irfftn(a: ArrayLike, s=None, axes=None, norm=None, out: OutArray = None):
    s, axes = _cook_nd_args(a, s, axes, invreal=True)
    for i in range(len(axes) - 1):
        a = ifft(a, s[i], axes[i], norm)
    return irfft(a, s[-1], axes[-1], norm, out)


@normalizer
def irfft2(a: ArrayLike, s=None, axes=(-2, -1), norm=None, out: OutArray = None):
    """NumPy 2.4 ignores ``out`` here, 2.5 fills it."""
    return irfftn(a, s, axes, norm, _used_out(out))


# ---- frequencies and shifts ------------------------------------------------------------------
def _frequencies(values, n, d):
    """``values * (1.0 / (n * d))`` with NumPy's promotion (int64 values, weak Python d)."""
    if not isinstance(n, (int, numpy.integer)):
        raise ValueError("n should be an integer")
    if isinstance(d, (numbers.Number, numpy.generic)):
        val = 1.0 / (n * d)
        dt = _promotion.result_type(_dtypes.int64, val)
        return ndarray._wrap(values.to(dt.torch) * val)
    d = _coerce.asarray(d)
    dt = _promotion.result_type(_dtypes.int64, d, 1.0)
    broadcast_shapes(tuple(values.shape), d.shape)
    val = 1.0 / (cast_tensor(d._t, dt) * int(n))
    return ndarray._wrap(values.to(dt.torch) * val)


def fftfreq(n, d=1.0, device=None):
    if isinstance(n, bool):  # NumPy's empty(n) refuses a bool length
        raise TypeError("expected a sequence of integers or a single integer, got 'True'"
                        if n else "expected a sequence of integers or a single integer, got 'False'")
    if isinstance(n, (int, numpy.integer)) and n < 0:
        raise ValueError("negative dimensions are not allowed")
    if isinstance(n, (int, numpy.integer)):
        positive = torch.arange(0, (int(n) - 1) // 2 + 1, dtype=torch.int64)
        negative = torch.arange(-(int(n) // 2), 0, dtype=torch.int64)
        return _frequencies(torch.cat([positive, negative]), n, d)
    return _frequencies(None, n, d)


def rfftfreq(n, d=1.0, device=None):
    if isinstance(n, (int, numpy.integer)):
        return _frequencies(torch.arange(0, max(int(n) // 2 + 1, 0), dtype=torch.int64), n, d)
    return _frequencies(None, n, d)


def _shift(x, axes, direction):
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, numpy.integer)):
        axes = (axes,)
    dims = [normalize_axis(ax, x.ndim) for ax in axes]
    if x.ndim == 0:  # what NumPy's roll says for a 0-d array
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    if not dims:
        return ndarray._wrap(x._t.clone())
    shifts = [direction * (x.shape[d] // 2) for d in dims]
    return ndarray._wrap(torch.roll(x._t, shifts, dims))


@normalizer
def fftshift(x: ArrayLike, axes=None):
    return _shift(x, axes, 1)


@normalizer
def ifftshift(x: ArrayLike, axes=None):
    return _shift(x, axes, -1)
