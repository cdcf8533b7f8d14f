"""Crossing the boundary: Python, NumPy and torch objects into shim arrays, and shim
results back into exactly what NumPy returns (``to_numpy``)."""
import builtins
import contextlib
import functools

import numpy
import torch

from . import _dtypes, _promotion, _writeable
from ._errors import UnsupportedError
from ._fp_errors import tracing
from ._ndarray import ndarray
from ._promotion import PY_SCALARS

__all__ = ["to_numpy"]

_SYM = (torch.SymInt, torch.SymFloat, torch.SymBool)
_SEQUENCES = (list, tuple, range)   # what NumPy reads element by element (a range is ints)


def _refuse_numpy_object(obj):
    if type(obj) is not numpy.ndarray and isinstance(obj, numpy.ndarray):
        raise UnsupportedError(f"ndarray subclass {type(obj).__name__}")


def _from_numpy_array(arr, copy=False):
    """A NumPy array as a tensor: zero-copy on the CPU where strides allow. A copy keeps
    the array's layout (order K: a reversed Fortran array stays Fortran) and is made for
    memory torch must not address: negative, unaligned or misaligned strides (some
    kernels crash on misaligned data) and read-only memory."""
    _refuse_numpy_object(arr)
    _dtypes._from_numpy_dtype(arr.dtype)  # UnsupportedError for dtypes we cannot hold
    if copy or not (arr.flags.aligned and arr.flags.writeable) or any(s < 0 or s % arr.itemsize
                                                                     for s in arr.strides):
        arr = arr.copy(order="K")
    if arr.dtype.char in "qQ":  # long long: same bits as int64/uint64, a type torch refuses
        arr = arr.view(arr.dtype.name)
    t = torch.from_numpy(arr)
    device = torch.get_default_device()
    return t if device.type == "cpu" else t.to(device)


def numpy_target(arr, message="output array is read-only"):
    """A NumPy array the shim writes into (``out=``, ``np.copyto``, ``np.put``, ...) as a
    shim array on its memory, zero-copy, so the writes land in it as NumPy's would. A
    read-only array raises NumPy's ValueError before anything is written; a layout torch
    cannot view (negative or unaligned strides) or another device is refused."""
    _refuse_numpy_object(arr)
    _dtypes._from_numpy_dtype(arr.dtype)
    if not arr.flags.writeable:
        raise ValueError(message)
    if any(s < 0 or s % arr.itemsize for s in arr.strides) or torch.get_default_device().type != "cpu":
        raise UnsupportedError("writing into a NumPy array whose memory torch cannot view (negative or "
                               "unaligned strides, or a non-CPU default device)")
    return ndarray._wrap(torch.from_numpy(arr.view(arr.dtype.name) if arr.dtype.char in "qQ" else arr))


def writes_numpy(position, message="assignment destination is read-only"):
    """Decorate a shim function that writes into its argument at ``position``: a NumPy
    array there is written in place (``numpy_target``)."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if len(args) > position and type(args[position]) is numpy.ndarray:
                args = (*args[:position], numpy_target(args[position], message), *args[position + 1:])
            return fn(*args, **kwargs)
        return wrapper
    return decorate


def _tensor_from_python_nested(obj):
    """Nested lists/tuples with no shim arrays inside: NumPy infers the dtype."""
    arr = numpy.asarray(obj)
    if arr.dtype == object:
        raise UnsupportedError("ragged or object-valued sequence")
    return _from_numpy_array(arr, copy=True)


def _contains_traced(obj):
    if isinstance(obj, (ndarray, torch.Tensor) + _SYM):
        return True
    if isinstance(obj, (list, tuple)):
        return builtins.any(_contains_traced(x) for x in obj)
    return False


def _stack_nested(obj):
    """A sequence holding shim arrays: stack element-wise with NumPy promotion."""
    if not isinstance(obj, _SEQUENCES):
        return asarray(obj)
    parts = [_stack_nested(x) for x in obj]
    if not parts:
        return asarray([])
    target = _promotion.result_type(*parts)  # inside array(), Python scalars are not weak
    shapes = {p.shape for p in parts}
    if len(shapes) != 1:
        raise ValueError("setting an array element with a sequence. The requested array has an "
                         "inhomogeneous shape after 1 dimensions.")
    return ndarray._wrap(torch.stack([cast_tensor(p._t, target) for p in parts]))


def quiet_while_tracing():
    """Where the shim has NumPy convert a constant (``numpy.asarray(1e300, float32)``):
    NumPy reports the conversion's floating-point errors by its error state, but while
    torch traces nothing may be reported, as the compiled code reports nothing on
    later calls (npcompile/trace/fp_state.py)."""
    return numpy.errstate(all="ignore") if tracing() else contextlib.nullcontext()


def _scalar_tensor(value, dt):
    if isinstance(value, _SYM):
        return torch.scalar_tensor(value, dtype=dt.torch)
    return torch.tensor(value, dtype=dt.torch)


def asarray(obj, dtype=None, copy=None):
    """Anything array-like as a shim ndarray (no copy unless needed or asked for)."""
    dt = _dtypes.as_dtype_or_none(dtype)
    if isinstance(obj, ndarray):
        out = obj
    elif isinstance(obj, torch.Tensor):
        _dtypes._numpy_spec(obj.dtype)  # UnsupportedError for torch-only dtypes
        out = ndarray._wrap(obj)
    elif isinstance(obj, numpy.ndarray):
        out = ndarray._wrap(_from_numpy_array(obj, copy=builtins.bool(copy)))
        out._readonly = not copy and not obj.flags.writeable   # NumPy's asarray is the array itself
        out._lock = _writeable.numpy_lock(obj) if out._readonly else None
        copy = False
    elif isinstance(obj, numpy.generic):
        out = ndarray._wrap(_from_numpy_array(numpy.asarray(obj), copy=True))
        copy = False
    elif dt is not None and isinstance(obj, PY_SCALARS + _SEQUENCES) and not _contains_traced(obj):
        # Python data with a dtype: NumPy converts (and refuses out-of-range ints) itself
        with quiet_while_tracing():
            converted = numpy.asarray(obj, dtype=dt.np)
        return ndarray._wrap(_from_numpy_array(converted, copy=True))
    elif isinstance(obj, PY_SCALARS + _SYM):
        if dt is not None:
            check_python_int_fits(obj, dt)
        out = ndarray._wrap(_scalar_tensor(obj, _default_dtype_of_python(obj)))
        copy = False
    elif isinstance(obj, _SEQUENCES):
        if dt is not None:   # Python data with traced items: NumPy would refuse an int outside dt
            check_python_ints_fit(obj, dt)
        out = _stack_nested(obj) if _contains_traced(obj) else ndarray._wrap(_tensor_from_python_nested(obj))
        copy = False
    elif hasattr(obj, "__array_function__") or isinstance(obj, numpy.ma.MaskedArray):
        raise UnsupportedError(f"objects of type {type(obj).__name__} (they define their own NumPy protocol)")
    elif hasattr(obj, "__array__"):
        out = _from_array_method(obj)
        copy = False
    else:
        _tensor_from_python_nested(obj)  # strings, None, objects: NumPy gives a non-numeric dtype
        raise UnsupportedError(f"cannot convert {type(obj).__name__} to a numeric array")
    if out._scalar:
        out = ndarray._wrap(out._t, False, out._base)
    if dt is not None and dt is not out.dtype:
        return ndarray._wrap(cast_tensor(out._t, dt, copy=True))
    if copy:
        return ndarray._wrap(out._t.clone())
    return out


def _from_array_method(obj):
    """An object with ``__array__``: NumPy's array of it, copied in; or, where the method
    returns a shim array (code written against ``import torch_numpy_shim as np``), that
    array, which NumPy itself would refuse ('not producing an array')."""
    try:
        return ndarray._wrap(_from_numpy_array(numpy.asarray(obj), copy=True))
    except ValueError:
        result = obj.__array__()
        if not isinstance(result, ndarray):
            raise
        return result


def _default_dtype_of_python(value):
    if isinstance(value, (builtins.bool, torch.SymBool)):
        return _dtypes.bool.dtype
    if isinstance(value, (int, torch.SymInt)):
        if isinstance(value, int) and not -2**63 <= value < 2**63:
            return _dtypes._from_numpy_dtype(numpy.asarray(value).dtype)  # uint64 or OverflowError
        return _dtypes.int64.dtype
    if isinstance(value, (float, torch.SymFloat)):
        return _dtypes.float64.dtype
    return _dtypes.complex128.dtype


def check_python_int_fits(value, dt):
    """NumPy 2 refuses to convert an out-of-range Python int into a small dtype. A
    dynamic int (a SymInt while npcompile traces) is compared the same way, which
    guards the graph on the int's range: an int outside it traces again and raises."""
    if dt.kind not in "iu" or isinstance(value, builtins.bool):
        return
    if isinstance(value, torch.SymInt):
        if sym_int_out_of_range(value, dt):
            raise OverflowError(f"Python integer {value.node.hint} out of bounds for {dt.name}")
    elif isinstance(value, int):
        info = numpy.iinfo(dt.np)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dt.name}")


def check_python_ints_fit(obj, dt):
    """``check_python_int_fits`` for each Python int (or dynamic int) of ``obj``, a scalar
    or a nested list/tuple of them: NumPy converts every item of such data into ``dt``
    and refuses an int outside it; arrays and NumPy scalars in it are cast (they wrap)."""
    if isinstance(obj, (list, tuple)):
        for item in obj:
            check_python_ints_fit(item, dt)
    else:
        check_python_int_fits(obj, dt)


def sym_int_out_of_range(value, dt):
    """A SymInt (int64 by construction) outside ``dt``'s range; only the bounds tighter
    than int64's are compared, so an int64 target adds no guard."""
    info = numpy.iinfo(dt.np)
    return builtins.bool((info.min > -2 ** 63 and value < info.min) or (info.max < 2 ** 63 - 1 and value > info.max))


def make_scalar(value, dt):
    """``np.float32(value)``: a NumPy scalar of dtype ``dt`` (an array for array input)."""
    if isinstance(value, (ndarray, list, tuple, numpy.ndarray)):
        arr = asarray(value)
        out = ndarray._wrap(cast_tensor(arr._t, dt, copy=True))
        out._scalar = out.ndim == 0
        return out
    check_python_int_fits(value, dt)
    if isinstance(value, _SYM):
        return ndarray._wrap(_scalar_tensor(value, dt), scalar=True)
    with quiet_while_tracing():
        np_value = dt.np.type(value)  # NumPy parses strings and checks ranges
    return ndarray._wrap(torch.from_numpy(numpy.asarray(np_value)).clone(), scalar=True)


def cast_tensor(t, dt, copy=False):
    """Cast with NumPy's unsafe semantics (complex -> real drops the imaginary part)."""
    target = dt.torch
    if t.dtype == target:
        return t.clone() if copy else t
    if t.is_complex() and not target.is_complex:
        t = t != 0 if target == torch.bool else torch.real(t)  # NumPy: a complex is true if nonzero
    if target == torch.uint8 and t.dtype == torch.float64:
        # NumPy's double -> uint8 goes through a 32-bit int (x86's cvttsd2si: out of its
        # range, 0x80000000, whose low byte is 0); torch's through a 64-bit one (2**31 + 1
        # gave 1). Every other float -> int cast here already agrees with NumPy's.
        t = t.to(torch.int32)
    if target == torch.float16 and t.dtype == torch.float64:
        return _double_to_half(t)
    if target in _WIDE_UNSIGNED and t.is_floating_point():
        return _float_to_wide_unsigned(t, target)
    return t.to(target)


_WIDE_UNSIGNED = {torch.uint32: (torch.int32, -2**31), torch.uint64: (torch.int64, -2**63)}


def _float_to_wide_unsigned(t, target):
    """float -> uint32/uint64 as NumPy's x86 loops convert, through signed conversions,
    which torch eager, Inductor's C++ and Triton compute alike. A float converted straight
    to an unsigned type saturates in Inductor's C++ (-2.0 gave 2**64 - 1) and on CUDA
    (0), where NumPy wraps it (2**64 - 2, no warning).

    uint32: through int64, as NumPy's scalar loop (``(npy_uint32)(npy_int64)x``): exact
    for every value NumPy casts without a warning (``-2**31 <= x < 2**32``); of those it
    warns "invalid value encountered in cast" about, nan and +-inf give 0 as NumPy's
    arrays under 16 items do (its vectorized loop for longer ones gives 2**31).

    uint64: NumPy's loop converts ``x >= 2**63`` as the int64 conversion of ``x - 2**63``
    with the top bit set back, and any other ``x`` by the int64 conversion. So the values
    NumPy casts without a warning (``-2**63 <= x < 2**64``) agree on every device. Those it
    warns about agree on x86 CPUs, where an out-of-range signed conversion gives
    ``-2**63``: nan, -inf and ``x < -2**63`` give ``2**63``, inf and ``x >= 2**64`` give 0.
    On CUDA they saturate."""
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.to(torch.float32)  # exact
    if target == torch.uint32:
        return t.to(torch.int64).to(target)
    signed, top = _WIDE_UNSIGNED[target]
    high = t >= -float(top)
    converted = torch.where(high, t + float(top), t).to(signed)
    return torch.where(high, converted ^ top, converted).to(target)


def _double_to_half(t):
    """float64 -> float16 rounded once, as NumPy's cast: torch rounds to float32 first and
    then to float16, so a value just past a float16 midpoint can land on the midpoint and
    round to even (1 + 2**-11 + 2**-40 gave 1.0, NumPy 1.001; 65520 - 2**-30 gave inf,
    NumPy 65504). The float32 step here rounds to odd instead (toward zero, then the
    last bit set where it was inexact), which keeps the sticky information a second
    rounding needs (24 bits >= 11 + 2)."""
    single = t.to(torch.float32)
    finite = torch.isfinite(single)
    bits = single.view(torch.int32)
    bits = torch.where(finite & (single.to(torch.float64).abs() > t.abs()), bits - 1, bits)  # toward zero
    inexact = finite & (bits.view(torch.float32).to(torch.float64) != t)
    return torch.where(inexact, bits | 1, bits).view(torch.float32).to(torch.float16)


def tensor_to_numpy(t):
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    return t.resolve_conj().resolve_neg().numpy()


def to_numpy(obj):
    """A shim result as NumPy returns it: numpy scalars where NumPy gives scalars,
    numpy.ndarray (sharing memory on the CPU) otherwise; containers keep their type."""
    if isinstance(obj, ndarray):
        arr = tensor_to_numpy(obj._t)
        return arr[()] if obj._scalar else arr
    if isinstance(obj, tuple):
        items = [to_numpy(x) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, list):
        return [to_numpy(x) for x in obj]
    if isinstance(obj, dict):
        return {k: to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, _dtypes.dtype):
        return obj.np
    if isinstance(obj, _dtypes._ScalarMeta) and "_np_type" in obj.__dict__:
        return obj._np_type
    return obj
