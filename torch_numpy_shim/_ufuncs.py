"""NumPy's universal functions as ``ufunc`` objects computed by torch.

Loop selection is NumPy's own (``numpy.<name>.resolve_dtypes`` on dtype metadata, with
Python types standing for weak Python scalars), so promotion and missing-loop errors
are exactly NumPy's. Each ufunc then runs a torch kernel on the loop dtypes; the
kernels live in ``_ufunc_kernels`` and get tensors already moved to a *compute* dtype
where torch lacks kernels or accuracy (float16 -> float32, uint16/uint32 -> int64, uint64
-> int64 bit patterns where that is exact). Results are cast to the loop's output dtype
and then stored the way NumPy stores them (``out=``, ``where=``, scalars for 0-d).
"""
import builtins
import contextlib
import functools
import inspect
import warnings

import numpy
import torch
from torch.multiprocessing.reductions import StorageWeakRef

from . import _coerce, _dtypes, _flipped, _fp_errors, _half_nan, _promotion, _reductions, _self_overlap, _writeable
from . import _ufunc_kernels as K
from ._coerce import asarray, cast_tensor, numpy_target, writes_numpy
from ._errors import ComplexWarning, UFuncInputCastingError, UFuncOutputCastingError, UnsupportedError
from ._ndarray import ndarray
from ._normalize import NO_VALUE, normalize_axis, normalize_axis_tuple, ufunc_axis, where_mask
from ._numpy_version import NO_IMAGINARY_PART, NUMPY_2_5
from ._product_order import numpy_answer
from ._promotion import PY_SCALARS

__all__ = ["ufunc"]

_SYM_TYPES = {torch.SymBool: builtins.bool, torch.SymInt: int, torch.SymFloat: float}
_COMPARISONS = frozenset({"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"})


# ---- operands --------------------------------------------------------------------------
def _operand(x):
    """An input as NumPy's promotion sees it: weak Python scalars stay Python values
    (their key is the Python type), everything else becomes a shim array (key: dtype)."""
    if isinstance(x, ndarray):
        return x, x.dtype.np
    if isinstance(x, PY_SCALARS) and not isinstance(x, numpy.generic):
        kind = _python_type(x)
        return x, numpy.dtype(bool) if kind is builtins.bool else kind
    if type(x) in _SYM_TYPES:
        kind = _SYM_TYPES[type(x)]
        return x, numpy.dtype(bool) if kind is builtins.bool else kind
    arr = asarray(x)
    return arr, arr.dtype.np


def _is_real(operand):
    """Whether an operand (see ``_operand``) holds real numbers (bool, int or float)."""
    return operand.dtype.np.kind != "c" if isinstance(operand, ndarray) else not isinstance(operand, complex)


def _python_type(x):
    for t in PY_SCALARS:
        if isinstance(x, t):
            return t
    raise TypeError(type(x))


#: NumPy's warning for where= without out= (2.5 corrected its spelling of "uninitialized").
_WHERE_WITHOUT_OUT = ("'where' used without 'out', expect " + ("uninitialized" if NUMPY_2_5 else "unitialized")
                      + " memory in output. If this is intentional, use out=None.")


def _scalar_tensor(value, dt):
    """A weak Python scalar as a 0-d tensor of the loop dtype: NumPy converts the value
    (OverflowError for out-of-range ints), torch then holds that exact value. A dynamic
    int (SymInt) is range-checked as NumPy checks an int, by a guard; a constant is
    converted quietly while torch traces (the compiled code reports no cast overflow)."""
    if type(value) in _SYM_TYPES:
        _coerce.check_python_int_fits(value, dt)
        return torch.scalar_tensor(value, dtype=dt.torch)
    if dt.kind == "b" and type(value) is int and not -2 ** 63 <= value < 2 ** 63:
        raise OverflowError("Python int too large to convert to C long")
    with _coerce.quiet_while_tracing():
        converted = numpy.asarray(value, dtype=dt.np)
    return torch.tensor(converted.item(), dtype=dt.torch)


def _check_huge_int_with_bools(operands):
    """Compared with bool arrays, NumPy converts a Python int to a C long first."""
    arrays = [o for o in operands if isinstance(o, ndarray)]
    if arrays and all(a.dtype.kind == "b" for a in arrays):
        for o in operands:
            if type(o) is int and not -2 ** 63 <= o < 2 ** 63:
                raise OverflowError("Python int too large to convert to C long")


def _identity_tensor(value, dt):
    """A ufunc identity in the loop dtype; -1 (bitwise_and) wraps to all ones."""
    return torch.tensor(numpy.asarray(value).astype(dt.np).item(), dtype=dt.torch)


def _int_out_of_range(value, dt):
    """Where a Python int (or a dynamic one, guarded) lies against ``dt``'s range."""
    if not isinstance(value, (int, torch.SymInt)) or isinstance(value, builtins.bool) or dt.kind not in "iu":
        return None
    info = numpy.iinfo(dt.np)
    if isinstance(value, torch.SymInt) and not _coerce.sym_int_out_of_range(value, dt):
        return None
    if value > info.max:
        return "above"
    if value < info.min:
        return "below"
    return None


def _comparison_with_huge_int(name, operands, loop_in, shape):
    """NumPy 2 compares an out-of-range Python int with an int array by value:
    ``uint8_arr < 300`` is all True. The answer is constant over the array."""
    _check_huge_int_with_bools(operands)
    for i, (value, dt) in enumerate(zip(operands, loop_in)):
        side = _int_out_of_range(value, dt)
        if side is None:
            continue
        int_is_left = i == 0
        # normalise to "array OP int" with the int above or below every element
        op = name if not int_is_left else {"less": "greater", "greater": "less",
                                            "less_equal": "greater_equal",
                                            "greater_equal": "less_equal"}.get(name, name)
        above = side == "above"
        answer = {"equal": False, "not_equal": True, "less": above, "less_equal": above,
                  "greater": not above, "greater_equal": not above}[op]
        return torch.full(shape, answer, dtype=torch.bool)
    return None


# ---- NumPy's loop resolution, cached on metadata ---------------------------------------
@functools.lru_cache(maxsize=8192)
def _resolve(np_ufunc, in_keys, nout, signature, casting):
    kwargs = {} if signature is None else {"signature": signature}
    if casting == "equiv":  # NumPy's resolve_dtypes dies (SIGSEGV) when an 'equiv' cast fails
        dtypes = np_ufunc.resolve_dtypes(in_keys + (None,) * nout, casting="safe", **kwargs)
        _check_equiv(np_ufunc, in_keys, dtypes)
    else:
        dtypes = np_ufunc.resolve_dtypes(in_keys + (None,) * nout, casting=casting, **kwargs)
    return tuple(_dtypes._from_numpy_dtype(d) for d in dtypes)


# under 'equiv' a Python scalar is its default dtype only (a float is float64, never
# float32), except that comparisons take a Python int against any integer dtype
_EXTREMES = {"maximum", "minimum", "fmax", "fmin"}
# reorderable ufuncs whose float16 loop (NumPy's generic ee->e: float32 arithmetic, one
# rounding to float16 a step) is order-sensitive: reduced one step at a time in NumPy's
# order, not pairwise (logaddexp.reduce of eight uint8 128s: 130.0, pairwise 130.125)
_HALF_STEPS = {"logaddexp", "logaddexp2", "hypot"}
_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
_WEAK_DEFAULT = {int: numpy.dtype("int64"), float: numpy.dtype("float64"), complex: numpy.dtype("complex128")}


def _check_equiv(np_ufunc, in_keys, loop):
    for i, (key, to) in enumerate(zip(in_keys, loop)):
        source = _WEAK_DEFAULT.get(key, key)
        if key is int and to.kind in "iuO" and np_ufunc.__name__ in _COMPARISONS:  # compared exactly
            continue
        if not numpy.can_cast(source, to, "equiv"):
            raise UFuncInputCastingError(np_ufunc, "equiv", source, to, i)


@functools.lru_cache(maxsize=1024)
def _resolve_reduction(name, in_dtype, signature_dtype, out_dtype=None):
    """The loop of ``name``.reduce: NumPy casts a reduction's input unsafely, so only a
    missing loop is an error (np.equal.reduce(ints, dtype=bool) is fine, without the
    dtype a TypeError)."""
    np_ufunc = getattr(numpy, name)
    kwargs = {} if signature_dtype is None else {"signature": (signature_dtype, signature_dtype, None)}
    dtypes = np_ufunc.resolve_dtypes((out_dtype, in_dtype, None), reduction=True, casting="unsafe", **kwargs)
    return tuple(_dtypes._from_numpy_dtype(d) for d in dtypes)


def _signature_key(nin, nout, dtype, signature):
    if signature is not None and dtype is not None:
        raise TypeError("cannot specify both 'signature' and 'dtype'")
    if dtype is not None:
        return (None,) * nin + (_dtypes._as_dtype(dtype).np,) * nout
    if signature is None:
        return None
    if isinstance(signature, str):
        return signature
    if not isinstance(signature, (tuple, list)):
        raise TypeError("the signature object to ufunc must be a string or a tuple.")
    return tuple(None if s is None else _dtypes._as_dtype(s).np for s in signature)


def _raise_output_casting(np_ufunc, loop_dtype, out_dtype, casting, index):
    """Raise exactly what NumPy raises for an output it may not cast into."""
    exc = UFuncOutputCastingError
    raise exc(np_ufunc, casting, loop_dtype.np, out_dtype.np, index)


def _check_casting(casting):
    if not isinstance(casting, str):
        raise TypeError(f"casting must be str, not {type(casting).__name__}")
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got {casting!r})")


# ---- where= / out= ----------------------------------------------------------------------
def _broadcast_shape(shapes):
    """The broadcast of ``shapes``, or NumPy's ValueError (shapes printed without spaces,
    a trailing space: 'operands could not be broadcast together with shapes (2,3) (4,) ')."""
    try:
        return tuple(torch.broadcast_shapes(*shapes)) if shapes else ()
    except RuntimeError:
        shown = ("(" + ",".join(str(n) for n in s) + ("," if len(s) == 1 else "") + ") " for s in shapes)
        raise ValueError("operands could not be broadcast together with shapes " + "".join(shown)) from None


def _outs(out, nout):
    """``out=`` as a tuple of nout entries (arrays or None)."""
    if out is None:
        return (None,) * nout
    if not isinstance(out, tuple):
        if nout != 1:
            raise TypeError("'out' must be a tuple of arrays")
        out = (out,)
    if len(out) != nout:
        raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
    out = tuple(numpy_target(o) if type(o) is numpy.ndarray else o for o in out)   # written in place
    for o in out:
        if o is not None and not isinstance(o, ndarray):
            raise TypeError("return arrays must be of ArrayType")
    for o in out:
        if o is not None:
            o._check_writeable("output array is read-only")
    return out


def _numpy_side(d):
    """A shim dtype as NumPy's; anything else as given (NumPy judges it)."""
    return d.np if isinstance(d, _dtypes.dtype) else d


def _through_copy(mask, out, operands):
    """Whether NumPy writes a ``where=`` result into ``out`` through a copy of it: an
    ``out`` whose items share memory (a broadcast_arrays result) that an input reads is
    copied (NumPy copies on overlap) and written back whole, so the unselected items are
    written too, with the values they had."""
    return mask is not None and out is not None and _self_overlap.overlaps(out._t) and any(
        isinstance(o, ndarray) and _same_storage(o._t, out._t) for o in operands)


def _store(result, loop_dt, out, mask, shape, np_ufunc, casting, index, write_back=False):
    """Put one output where NumPy puts it; returns the array (or scalar) to hand back."""
    if out is None:
        if mask is not None:  # NumPy leaves these slots uninitialized; we write zeros
            result = torch.where(mask, result, torch.zeros((), dtype=result.dtype))
        if tuple(result.shape) != shape:
            result = result.expand(shape).clone()
        return ndarray._wrap(result, scalar=result.ndim == 0)
    if not _promotion.can_cast(loop_dt, out.dtype, casting):
        _raise_output_casting(np_ufunc, loop_dt, out.dtype, casting, index)
    out_shape = tuple(out._t.shape)
    if _broadcast_shape([shape, out_shape]) != out_shape:
        raise ValueError(f"non-broadcastable output operand with shape {out_shape} doesn't match "
                         f"the broadcast shape {_broadcast_shape([shape, out_shape])}")
    _reductions.warn_complex_to_real(result, out.dtype, 1)
    value = _to_dtype(result, out.dtype)
    if result.dtype != value.dtype and _fp_errors.watching():   # NumPy's cast into out= reports too
        _fp_errors.report(_fp_errors.cast_flags(result, value.dtype, mask), np_ufunc.__name__)
    if write_back:
        value, mask = torch.where(mask, value, out._t), None
    _self_overlap.store(out._t, value.expand(out_shape), mask)
    _flipped.written(out)
    return out


def _store_order(name, loop_dt, outs):
    """Output indices in NumPy's write order, which decides out=(a, a): float divmod and
    float32/64 modf write output 1 inside the C call (npy_divmod(a, b, &mod), modf(x,
    &whole)) and output 0 after it, so the quotient / fraction stays. Integer divmod,
    half modf and any output cast through a buffer write 0 then 1."""
    forward = tuple(range(len(loop_dt)))
    if name not in ("divmod", "modf") or loop_dt[0].kind != "f":
        return forward
    if name == "modf" and loop_dt[0].torch == torch.float16:
        return forward
    if any(o is not None and o.dtype != dt for o, dt in zip(outs, loop_dt)):
        return forward
    return forward[::-1]


def _to_dtype(t, dt):
    """Cast a kernel result to ``dt``; int64 bit patterns of uint64 are reinterpreted."""
    if dt.torch == torch.uint64 and t.dtype == torch.int64:
        return t.view(torch.uint64)
    return cast_tensor(t, dt)


# ---- the ufunc class --------------------------------------------------------------------
_NO_OUT = object()   # out= not passed at all (NumPy warns about where= only then)


class ufunc:
    """A NumPy ufunc: ``ufunc(*inputs, out=, where=, casting=, dtype=, signature=)`` plus
    the methods ``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at``."""

    def __init__(self, name, nin, nout, kernel, unsigned64=None, half=True, reorderable=False,
                 np_ufunc=None):
        self.__name__ = name
        self.nin, self.nout, self.nargs = nin, nout, nin + nout
        self._np = getattr(numpy, name) if np_ufunc is None else np_ufunc
        self.identity = self._np.identity
        self.ntypes = self._np.ntypes
        self.types = self._np.types
        self.signature = None
        self._kernel = kernel
        self._unsigned64 = unsigned64  # None (refuse) | "bits" | "ordered" | "own"
        self._half = half  # compute float16 in float32 and round once
        self._reorderable = reorderable
        self.__doc__ = self._np.__doc__

    @property
    def __signature__(self):
        """What ``inspect.signature`` shows for NumPy's ufunc: the inputs positional-only
        (x, or x1, x2), ``out``, then the keywords."""
        p = inspect.Parameter
        names = ["x"] if self.nin == 1 else [f"x{i + 1}" for i in range(self.nin)]
        out = None if self.nout == 1 else (None,) * self.nout
        keywords = (("where", True), ("casting", "same_kind"), ("order", "K"), ("dtype", None),
                    ("subok", True), ("signature", None))
        return inspect.Signature([p(n, p.POSITIONAL_ONLY) for n in names]
                                 + [p("out", p.POSITIONAL_OR_KEYWORD, default=out)]
                                 + [p(k, p.KEYWORD_ONLY, default=v) for k, v in keywords])

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    # -- element-wise call ---------------------------------------------------------------
    def __call__(self, *args, out=_NO_OUT, where=True, casting="same_kind", order="K", dtype=None,
                 subok=True, signature=None, sig=None):
        if len(args) < self.nin or len(args) > self.nargs:
            raise TypeError(f"{self.__name__}() takes from {self.nin} to {self.nargs} positional "
                            f"arguments but {len(args)} were given")
        if sig is not None:   # NumPy's older spelling of signature=
            if signature is not None:
                raise TypeError("cannot specify both 'sig' and 'signature'")
            signature = sig
        out_given, out = out is not _NO_OUT or len(args) > self.nin, None if out is _NO_OUT else out
        if len(args) > self.nin:
            if out is not None:
                raise TypeError("cannot specify 'out' as both a positional and keyword argument")
            if any(o is Ellipsis for o in args[self.nin:]):
                raise TypeError("out=... is only allowed as a keyword argument.")
            out = args[self.nin:] if self.nout > 1 else args[self.nin]
            args = args[:self.nin]
        keep_arrays, out = out is Ellipsis, None if out is Ellipsis else out   # out=...: no scalars back
        if where is not True and not out_given and not _fp_errors.tracing():
            _fp_errors.warn(_WHERE_WITHOUT_OUT, UserWarning)
        _check_casting(casting)
        outs = _outs(out, self.nout)
        operands, keys = zip(*(_operand(a) for a in args))
        sig = _signature_key(self.nin, self.nout, dtype, signature)
        loop = _resolve(self._np, tuple(keys), self.nout, sig, casting)
        loop_in, loop_out = loop[:self.nin], loop[self.nin:]
        mask = where_mask(where)
        shapes = [tuple(o.shape) for o in operands if isinstance(o, ndarray)]
        if mask is not None:
            shapes.append(tuple(mask.shape))
        shape = _broadcast_shape(shapes)

        constant = None
        if self.__name__ in _COMPARISONS:
            constant = _comparison_with_huge_int(self.__name__, operands, loop_in, shape)
        if constant is not None:
            results = (constant,)
        else:
            tensors = [cast_tensor(o._t, dt) if isinstance(o, ndarray) else _scalar_tensor(o, dt)
                       for o, dt in zip(operands, loop_in)]
            results = self._compute(tensors, loop_out, self._kernel_for(operands, loop_in, shape), mask)
        order = _store_order(self.__name__, loop_out, outs)
        stored = {i: _store(results[i], loop_out[i], outs[i], mask, shape, self._np, casting, i,
                            write_back=_through_copy(mask, outs[i], operands))
                  for i in order}
        stored = tuple(stored[i] for i in range(len(order)))
        if keep_arrays:
            stored = tuple(ndarray._wrap(r._t) if r._scalar else r for r in stored)
        return stored[0] if self.nout == 1 else stored

    def _kernel_for(self, operands, loop_in, shape):
        """Integer power checks exponents for negatives; a Python int exponent is checked
        here, on the value, so the kernel need not read tensor data (keeps it traceable).
        ``x ** 2`` on floats is a multiply (pow is correctly rounded, so NumPy's result is
        the same), which compilers fuse instead of calling pow. A complex division by a
        real divisor (cast to complex: imaginary part +0) takes the short form of NumPy's
        algorithm for that zero."""
        if self.__name__ == "divide":
            return K.divide_by_real if loop_in[0].kind == "c" and _is_real(operands[1]) else self._kernel
        if self.__name__ != "power":
            return self._kernel
        if type(operands[1]) in (int, float) and operands[1] == 2 and loop_in[0].kind == "f":
            return K.square_of_base
        if loop_in[1].kind not in "iu" or type(operands[1]) is not int:
            return self._kernel
        if operands[1] < 0 and loop_in[1].kind == "i" and 0 not in shape:
            raise ValueError("Integers to negative integer powers are not allowed.")
        return K.power_of_nonnegative

    def _compute(self, tensors, loop_out, kernel=None, mask=None):
        """Run the kernel on compute dtypes; return one tensor per output, in loop dtypes.
        Eager, the floating-point errors NumPy's loop would raise are reported (only
        where ``mask``, the where= mask, holds)."""
        kernel = self._kernel if kernel is None else kernel
        if self.__name__ in _COMPARISONS and {t.dtype for t in tensors} == {torch.int64, torch.uint64}:
            return (K.compare_int64_with_uint64(self._kernel, *tensors),)
        computed, restore = self._to_compute_dtypes(tensors)
        results = kernel(*computed)
        if not isinstance(results, tuple):
            results = (results,)
        results = tuple(_to_dtype(restore(r), dt) for r, dt in zip(results, loop_out))
        if self.__name__ not in _fp_errors.QUIET and _fp_errors.watching():
            _fp_errors.report(_fp_errors.flags(self.__name__, tensors, results, mask), self.__name__)
        return results

    def _to_compute_dtypes(self, tensors):
        kinds = {t.dtype for t in tensors}
        if torch.uint64 in kinds:
            mode = self._unsigned64
            if mode is None:
                raise UnsupportedError(f"np.{self.__name__} on uint64 (no exact torch kernel)")
            if mode == "bits":
                return [t.view(torch.int64) if t.dtype == torch.uint64 else t for t in tensors], \
                    lambda r: r
            if mode == "ordered":
                return [K.uint64_to_ordered(t) if t.dtype == torch.uint64 else t for t in tensors], \
                    lambda r: K.ordered_to_uint64(r) if r.dtype == torch.int64 else r
            return tensors, lambda r: r  # "own": the kernel handles uint64 itself
        if kinds & {torch.uint16, torch.uint32}:
            return [t.to(torch.int64) if t.dtype in (torch.uint16, torch.uint32) else t
                    for t in tensors], lambda r: r
        if torch.float16 in kinds and self._half:   # NaN signs kept both ways, as NumPy's loops
            return [_half_nan.to_float32(t) if t.dtype == torch.float16 else t for t in tensors], \
                lambda r: _half_nan.to_float16(r) if r.dtype == torch.float32 else r
        return tensors, lambda r: r

    # -- methods ------------------------------------------------------------------------------
    def _require_binary(self, method):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary functions")

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=NO_VALUE,
               where=True):
        if _fp_errors.watching() and self.__name__ not in _fp_errors.QUIET:
            with _fp_errors.as_one("reduce"):   # each step's errors, reported once
                return self._reduce(array, axis, dtype, out, keepdims, initial, where)
        return self._reduce(array, axis, dtype, out, keepdims, initial, where)

    def _reduce(self, array, axis, dtype, out, keepdims, initial, where):
        self._require_binary("reduce")
        arr = asarray(array)
        keep_array, out = out is Ellipsis, None if out is Ellipsis else _single_out(out)
        axis = ufunc_axis(axis)
        axes = () if arr.ndim == 0 and axis in (0, -1) else normalize_axis_tuple(axis, arr.ndim)
        loop_dt = self._reduction_loop(arr, dtype, out)
        if len(axes) > 1 and not self._reorderable:
            raise ValueError(f"reduction operation '{self.__name__}' is not reorderable, so at "
                             f"most one axis may be specified")
        if self.__name__ in _EXTREMES and dtype is None and _reductions.casts_first_items(arr.dtype, out, initial):
            return _reductions.numpy_extreme(arr, self.__name__, axes, out, keepdims)
        mask = where_mask(where)
        x = _reductions.loop_input(arr._t, loop_dt, "reduce")
        if mask is not None:
            shape = torch.broadcast_shapes(x.shape, mask.shape)
            x, mask = x.expand(shape), mask.expand(shape)
        explicit = initial is not NO_VALUE and initial is not None
        start_value = initial if explicit else (self.identity if initial is NO_VALUE else None)
        start = None if start_value is None else (
            _scalar_tensor(start_value, loop_dt) if explicit else _identity_tensor(start_value, loop_dt))
        kept = [n for i, n in enumerate(x.shape) if i not in axes]
        if _numel(x, axes) == 0 or mask is not None:
            if start is None:
                if _numel(x, axes) == 0:
                    raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                     f"which has no identity")
                raise ValueError(f"reduction operation '{self.__name__}' does not have an "
                                 f"identity, so to use a where mask one has to specify 'initial'")
        if _numel(x, axes) == 0:
            result = start.expand(kept).clone()
        elif self._in_numpy_order(loop_dt) and axes and not explicit:
            result = _reductions.reduce_in_numpy_order(x, axes, loop_dt, self.__name__ == "multiply", mask)
        elif mask is not None:
            result = self._masked_fold(x, mask, axes, start, loop_dt, explicit)
        elif start is not None and explicit and (not self._reorderable or self._half_steps(loop_dt)):
            result = self._fold(x, axes, start, loop_dt)
        else:
            result = self._reduce_tensor(x, axes, loop_dt)
            if start is not None:  # NumPy starts from the identity: gcd.reduce([-4]) is 4
                result = self._binary_tensor(start.expand(result.shape), result, loop_dt)
        if keepdims:
            result = result.reshape([1 if i in axes else n for i, n in enumerate(x.shape)])
        if out is None:
            return ndarray._wrap(result, scalar=result.ndim == 0 and not keep_array)
        _check_reduction_out(tuple(out.shape), tuple(result.shape), axes, keepdims, self.__name__)
        _reductions.warn_complex_to_real(result, out.dtype, 1)   # the first items' copy; _store warns again
        return _store(result, loop_dt, out, None, tuple(result.shape), self._np, "unsafe", 0)

    def _in_numpy_order(self, loop_dt):
        """Float add/multiply reductions and scans go the way np.sum/np.prod/np.cumsum do
        (``_reductions``: float16 rounding every step, NumPy's order where it matters)."""
        return self.__name__ in ("add", "multiply") and (loop_dt.torch.is_floating_point or loop_dt.torch.is_complex)

    def _half_steps(self, loop_dt):
        """Whether each step rounds to float16 in an order that changes the result."""
        return loop_dt.torch == torch.float16 and self.__name__ in _HALF_STEPS

    def _reduction_loop(self, arr, dtype, out):
        """NumPy's reduction loop; add/multiply widen small integers as np.sum does. An
        out= array (without dtype=) takes part in the promotion as the first operand:
        a float array reduced into an int out= sums in float64, then casts."""
        sig = None if dtype is None else _dtypes._as_dtype(dtype).np
        in_np = arr.dtype.np
        out_np = out.dtype.np if dtype is None and out is not None else None
        if sig is None and out_np is None and self.__name__ in ("add", "multiply") and in_np.kind in "biu" \
                and in_np.itemsize < 8:
            in_np = numpy.dtype("uint64" if in_np.kind == "u" else "int64")
        return _resolve_reduction(self.__name__, in_np, sig, out_np)[2]

    def _binary_tensor(self, a, b, loop_dt):
        return self._compute([a, b], (loop_dt,))[0]

    def _masked_fold(self, x, mask, axes, start, loop_dt, explicit):
        """where= reductions: masked elements are skipped. With an identity (and for the
        idempotent max/min) they are replaced and the fast path runs; else fold in order."""
        filler = start if self.identity is not None and not explicit else None
        if self.__name__ in ("maximum", "minimum", "fmax", "fmin") or filler is not None:
            filled = torch.where(mask, x, start if filler is None else filler)
            result = self._reduce_tensor(filled, axes, loop_dt)
            if explicit:
                result = self._binary_tensor(start.expand(result.shape), result, loop_dt)
            return result
        order = _numpy_axis_order(x, axes) if self._half_steps(loop_dt) else axes
        values, keep = K.last_axis(x, order), K.last_axis(mask, order)
        acc = start.expand(values.shape[:-1]).clone()
        for i in range(values.shape[-1]):
            acc = torch.where(keep[..., i], self._binary_tensor(acc, values[..., i], loop_dt), acc)
        return acc

    def _fold(self, x, axes, start, loop_dt):
        """``initial`` OP x0 OP x1 ... in order: an order-dependent ufunc (subtract,
        power, divide) applies ``initial`` first, not to the reduced rest."""
        if axes and self._half_steps(loop_dt) and x.device.type == "cpu" and not _fp_errors.tracing():
            return self._numpy_half_reduce(x, axes, start)
        values = K.last_axis(x, _numpy_axis_order(x, axes)) if axes else x.unsqueeze(-1)
        return self._left_fold(start.expand(values.shape[:-1]), values, 0, loop_dt, x.shape, axes)

    def _left_fold(self, acc, values, first, loop_dt, shape, axes):
        """acc OP values[..., first] OP ... along the last axis. NumPy's float16 subtract
        and divide, reducing along the innermost axis, keep the running value in float32
        and round once at the end (its half loops' reduce branch), so they do here too."""
        in_float32 = loop_dt.torch == torch.float16 and self.__name__ in ("subtract", "divide") and \
            len(axes) == 1 and all(n == 1 for n in shape[axes[0] + 1:])
        if in_float32:
            acc, values, loop_dt = acc.float(), values.float(), _dtypes.float32.dtype
        for i in range(first, values.shape[-1]):
            acc = self._binary_tensor(acc, values[..., i], loop_dt)
        return acc.half() if in_float32 else acc.clone()

    def _reduce_tensor(self, x, axes, loop_dt):
        """Reduce a non-empty tensor over ``axes`` with NumPy's order of operations."""
        if not axes:
            return x.clone()
        fast = K.fast_reduce(self.__name__, x, axes)
        if fast is not None:
            if _fp_errors.watching():
                _fp_errors.report(_fp_errors.reduction_flags(self.__name__, x, axes, fast), "reduce")
            return fast
        if self._half_steps(loop_dt):   # NumPy's order: its iterator's, the memory's
            if x.device.type == "cpu" and not _fp_errors.tracing():
                return self._numpy_half_reduce(x, axes, None)
            moved = K.last_axis(x, _numpy_axis_order(x, axes))
            return self._left_fold(moved[..., 0], moved, 1, loop_dt, x.shape, axes)
        moved = K.last_axis(x, axes)
        if self._reorderable:
            return self._tree_fold(moved, loop_dt)
        return self._left_fold(moved[..., 0], moved, 1, loop_dt, x.shape, axes)

    def _numpy_half_reduce(self, x, axes, start):
        """NumPy's own float16 loop on a CPU tensor's memory (eager): one step at a
        time, in its iterator's order, from ``start`` (a 0-d tensor) where given; its
        floating-point flags reported as NumPy's."""
        options = {} if start is None else {"initial": start.item()}
        return numpy_answer(
            lambda a: self._np.reduce(a, axis=tuple(axes), dtype=numpy.float16, **options), [x], "reduce")

    def _tree_fold(self, t, loop_dt):
        """Pairwise reduction of the last axis: log-depth for reorderable ufuncs."""
        while t.shape[-1] > 1:
            n = t.shape[-1]
            half = n // 2
            paired = self._binary_tensor(t[..., :half], t[..., half:2 * half], loop_dt)
            t = torch.cat([paired, t[..., 2 * half:]], dim=-1) if n % 2 else paired
        return t[..., 0].clone()

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if _fp_errors.watching() and self.__name__ not in _fp_errors.QUIET:
            with _fp_errors.as_one("accumulate"):
                return self._accumulate(array, axis, dtype, out)
        return self._accumulate(array, axis, dtype, out)

    def _accumulate(self, array, axis, dtype, out):
        self._require_binary("accumulate")
        arr = asarray(array)
        out = _single_out(out)
        axis = ufunc_axis(axis)
        if arr.ndim == 0 and (axis is None or axis in (0, -1, ())):   # a tuple's axes are checked
            raise TypeError("cannot accumulate on a scalar")
        axes = normalize_axis_tuple(axis, arr.ndim)
        if len(axes) != 1:   # None: all axes
            raise ValueError("accumulate does not allow multiple axes")
        ax = axes[0]
        loop_dt = self._reduction_loop(arr, dtype, out)
        numpy_order = self._in_numpy_order(loop_dt)
        if numpy_order and arr._t.shape[ax]:   # the input uncast: the scan casts as NumPy does
            return self._accumulated(_reductions.scan_in_numpy_order(arr._t, ax, loop_dt, self.__name__ == "multiply"),
                                     loop_dt, out)
        x = _reductions.loop_input(arr._t, loop_dt, "cast")
        fast = None if numpy_order else K.fast_accumulate(self.__name__, x, ax)
        if fast is not None:
            result = fast
            if _fp_errors.watching():
                _fp_errors.report(_fp_errors.reduction_flags(self.__name__, x, None, fast), "accumulate")
        elif x.shape[ax] == 0:
            result = x.clone()
        else:
            moved = x.movedim(ax, 0)
            parts = [moved[0]]
            for i in range(1, moved.shape[0]):
                parts.append(self._binary_tensor(parts[-1], moved[i], loop_dt))
            result = torch.stack(parts).movedim(0, ax)
        return self._accumulated(result, loop_dt, out)

    def _accumulated(self, result, loop_dt, out):
        """An accumulation's result, returned or stored into ``out``."""
        if out is None:
            return ndarray._wrap(result)
        return _store(result, loop_dt, out, None, tuple(result.shape), self._np, "unsafe", 0)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """Reductions over index ranges; the slice bounds are data, so they are read."""
        if _fp_errors.watching() and self.__name__ not in _fp_errors.QUIET:
            with _fp_errors.as_one("reduceat"):
                return self._reduceat(array, indices, axis, dtype, out)
        return self._reduceat(array, indices, axis, dtype, out)

    def _reduceat(self, array, indices, axis, dtype, out):
        self._require_binary("reduceat")
        arr = asarray(array)
        out = _single_out(out)
        ax = normalize_axis(axis, arr.ndim)
        bounds = _reduceat_bounds(indices)
        n = arr.shape[ax]
        for i in bounds:
            if not 0 <= i < n:
                raise IndexError(f"index {i} out-of-bounds in {self.__name__}.reduceat [0, {n})")
        loop_dt = self._reduction_loop(arr, dtype, out)
        x = cast_tensor(arr._t, loop_dt).movedim(ax, 0)
        parts = []
        for j, start in enumerate(bounds):
            stop = bounds[j + 1] if j + 1 < len(bounds) else n
            piece = x[start:stop] if start < stop else x[start:start + 1]
            parts.append(self._reduce_tensor(piece, (0,), loop_dt))
        result = torch.stack(parts).movedim(0, ax) if parts else \
            x[:0].movedim(0, ax).clone()
        if out is None:
            return ndarray._wrap(result)
        return _store(result, loop_dt, out, None, tuple(result.shape), self._np, "unsafe", 0)

    def resolve_dtypes(self, dtypes, *, signature=None, casting=None, reduction=False):
        """NumPy 2's ``ufunc.resolve_dtypes``: the loop's dtypes (as the shim's) for the
        operands' dtypes, None where to be found, or the Python types int/float/complex
        for Python scalars (NEP 50's weak promotion). NumPy's resolver answers and its
        errors stand, except under 'equiv' with a Python type, where NumPy crashes
        (SIGSEGV) and this raises the input casting error a call would."""
        dtypes = tuple(_numpy_side(d) for d in dtypes) if isinstance(dtypes, tuple) else dtypes
        options = {"reduction": reduction}
        if signature is not None:
            options["signature"] = tuple(_numpy_side(d) for d in signature) \
                if isinstance(signature, (tuple, list)) else signature
        weak = isinstance(dtypes, tuple) and any(d in PY_SCALARS for d in dtypes[:self.nin])
        if casting == "equiv" and weak:
            resolved = self._np.resolve_dtypes(dtypes, casting="safe", **options)
            given = [(i, d) for i, d in enumerate(dtypes[:self.nin]) if d is not None]
            _check_equiv(self._np, tuple(d for _, d in given), tuple(resolved[i] for i, _ in given))
        else:
            resolved = self._np.resolve_dtypes(dtypes, **options, **({} if casting is None else {"casting": casting}))
        return tuple(_dtypes._from_numpy_dtype(d) for d in resolved)

    def outer(self, A, B, /, **kwargs):
        if self.nin != 2:
            raise ValueError("outer product only supported for binary functions")
        a, b = _operand(A)[0], _operand(B)[0]
        a = a if isinstance(a, ndarray) else asarray(a)
        b = b if isinstance(b, ndarray) else asarray(b)
        a_expanded = ndarray._wrap(a._t.reshape(tuple(a.shape) + (1,) * b.ndim))
        return self(a_expanded, b, **kwargs)

    @_flipped.writes(1)
    @writes_numpy(1)
    def at(self, a, indices, b=None, /):
        """Unbuffered in place: repeated indices apply the operation again each time.
        NumPy names a unary ufunc's errors 'at', a binary one's by the ufunc."""
        if _fp_errors.watching() and self.__name__ not in _fp_errors.QUIET:
            with _fp_errors.as_one("at" if self.nin == 1 else self.__name__):
                return self._at(a, indices, b)
        return self._at(a, indices, b)

    def _at(self, a, indices, b):
        if not isinstance(a, ndarray):
            raise TypeError("first operand must be an array")
        if (b is None) != (self.nin == 1):
            raise ValueError("second operand needed for ufunc" if b is None else
                             "second operand provided when ufunc is unary")
        positions = ndarray._wrap(torch.arange(a.size).reshape(a.shape))[indices]
        flat_index = asarray(positions)._t.reshape(-1)
        flat = a._t.view(-1) if a._t.is_contiguous() else a._t.reshape(-1).clone()
        operand = None if b is None else _operand(b)[0]
        bt = operand._t if isinstance(operand, ndarray) else None
        if bt is not None and _same_storage(bt, a._t):   # NumPy reads the values before writing
            bt = bt.clone()
        if bt is not None:
            bt = _at_values(bt, tuple(asarray(positions).shape))
        if a._warn_on_write:   # NumPy 2.4's at writes into read-only arrays, but warns here
            _writeable.warn_on_write(a)
        shared = _self_overlap.overlaps(a._t)   # items sharing memory: each reads what the last wrote
        with contextlib.ExitStack() as after_first:
            for k in range(flat_index.shape[0]):  # one element at a time: repeats accumulate
                if k == 1 and a.dtype.kind not in "cb":   # NumPy casts a complex result into a real
                    after_first.enter_context(warnings.catch_warnings())   # a with one ComplexWarning
                    warnings.simplefilter("ignore", ComplexWarning)
                i = flat_index[k:k + 1]
                rhs = ndarray._wrap(bt[k:k + 1]) if bt is not None else operand
                if shared:
                    flat = a._t.reshape(-1).clone()
                value = _to_dtype(self._at_value(ndarray._wrap(flat[i]), rhs, a), a.dtype)
                _bits(flat).index_copy_(0, i, _bits(value))
                if shared:
                    _self_overlap.store_items(a._t, i, flat[i])
        if not flat_index.shape[0]:   # no items: NumPy still casts (its one ComplexWarning)
            self._at_value(ndarray._wrap(flat[:0]), ndarray._wrap(bt[:0]) if bt is not None else operand, a)
        if not a._t.is_contiguous() and not shared:
            a._t.copy_(flat.reshape(a.shape))

    def _at_value(self, current, rhs, a):
        args = (current,) if rhs is None else (current, rhs)
        result = self(*args, out=ndarray._wrap(torch.empty_like(current._t)), casting="unsafe")
        return result._t


def _at_values(values, shape):
    """``values`` broadcast one way, to the indexed shape ``a[indices].shape``, flat: NumPy's
    ufunc.at refuses (before writing) values needing more dims or a stretch of the index."""
    lead = len(shape) - values.ndim
    if lead < 0 or any(v not in (1, s) for v, s in zip(values.shape, shape[lead:])):
        raise ValueError("array is not broadcastable to correct shape")
    return values.expand(shape).reshape(-1)


#: torch has no index_copy_ for these: their bits travel as the signed type of their width
_SIGNED_BITS = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def _bits(t):
    """``t``, or a view of its bits where torch cannot copy its dtype by index."""
    return t.view(_SIGNED_BITS[t.dtype]) if t.dtype in _SIGNED_BITS else t


def _check_reduction_out(found, shape, axes, keepdims, name):
    """A reduction's out= must have the result's shape exactly (NumPy never broadcasts
    into it); NumPy's errors for the ways it can differ."""
    if found == shape:
        return
    if len(found) != len(shape):
        extra = " (must match the operand's when keepdims=True)" if keepdims else ""
        raise ValueError(f"output parameter for reduction operation {name} has the wrong number of dimensions: "
                         f"Found {len(found)} but expected {len(shape)}{extra}")
    for i, (got, wanted) in enumerate(zip(found, shape)):
        if got != wanted and got == 1:
            raise ValueError(f"output operand requires a reduction along dimension {i}, but the reduction is not "
                             "enabled. The dimension size of 1 does not match the expected output shape.")
        if got != wanted and keepdims and i in axes:
            raise ValueError(f"operand was set up as a reduction along axis {i}, but the length of the axis is "
                             f"{got} (it has to be 1)")
    raise ValueError(f"non-broadcastable output operand with shape {found} doesn't match the broadcast shape {shape}")


def _numpy_axis_order(x, axes):
    """``axes`` as NumPy's iterator nests them, outermost first: by decreasing stride
    (for a C-ordered tensor, their own order)."""
    return tuple(sorted(axes, key=lambda a: -abs(x.stride(a)) if x.shape[a] > 1 else 0))


def _reduceat_bounds(indices):
    """reduceat's indices as NumPy reads them: an array is cast to intp under 'safe'
    casting, anything else converted item by item (so [] and [1.7] are accepted)."""
    is_array = isinstance(indices, (ndarray, numpy.ndarray))
    if is_array:
        values = _coerce.to_numpy(indices)
        if not numpy.can_cast(values.dtype, numpy.intp, "safe"):
            raise TypeError(f"Cannot cast array data from {values.dtype!r} to {numpy.dtype(numpy.intp)!r} "
                            "according to the rule 'safe'")
    else:
        values = numpy.array(indices, dtype=numpy.intp)
    if values.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if values.ndim > 1:
        raise ValueError("object too deep for desired array" if is_array else "setting an array element with a "
                         "sequence. The requested array would exceed the maximum number of dimension of 1.")
    return [int(i) for i in values.astype(numpy.intp)]


def _same_storage(t, u):
    """Whether two tensors view one storage (by identity: works on fake tensors too)."""
    return StorageWeakRef(t.untyped_storage()) == StorageWeakRef(u.untyped_storage())


def _single_out(out):
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    if type(out) is numpy.ndarray:   # written in place, as NumPy writes it
        out = numpy_target(out)
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("output must be an array")
    return out


def _numel(t, axes):
    n = 1
    for a in axes:
        n *= t.shape[a]
    return n


# ---- the ufunc table --------------------------------------------------------------------
def _define(name, nin, nout, kernel, unsigned64=None, half=True, reorderable=False, aliases=()):
    """Make the ufunc ``name`` (and its aliases) public here; returned too, so that the
    ones this module's functions call are named in the module (``rint = _define(...)``)."""
    u = ufunc(name, nin, nout, kernel, unsigned64, half, reorderable)
    globals()[name] = u
    __all__.append(name)
    for alias in aliases:
        globals()[alias] = u
        __all__.append(alias)
    return u


_define("add", 2, 1, K.add, "bits", reorderable=True)
_define("subtract", 2, 1, K.subtract, "bits")
multiply = _define("multiply", 2, 1, K.multiply, "bits", reorderable=True)
divide = _define("divide", 2, 1, K.true_divide, aliases=("true_divide",))
_define("floor_divide", 2, 1, K.floor_divide, "own")
_define("remainder", 2, 1, K.remainder, "own", aliases=("mod",))
_define("fmod", 2, 1, K.fmod, "own")
_define("divmod", 2, 2, K.divmod_, "own")
_define("power", 2, 1, K.power, "own", aliases=("pow",))
_define("float_power", 2, 1, K.float_power)
_define("negative", 1, 1, torch.neg, "bits")
positive = _define("positive", 1, 1, torch.clone, "bits")
_define("absolute", 1, 1, K.absolute, "own", aliases=("abs",))
_define("fabs", 1, 1, torch.abs)
_define("sign", 1, 1, K.sign, "own")
_define("reciprocal", 1, 1, K.reciprocal, "own")
_define("sqrt", 1, 1, torch.sqrt)
_define("cbrt", 1, 1, K.cbrt, half=False)   # NumPy's float16 loop itself
_define("square", 1, 1, K.square, "bits")
_define("exp", 1, 1, torch.exp)
_define("exp2", 1, 1, K.exp2)
_define("expm1", 1, 1, K.expm1)
_define("log", 1, 1, torch.log)
_define("log2", 1, 1, K.log2)
_define("log10", 1, 1, torch.log10)
_define("log1p", 1, 1, K.log1p)
_define("logaddexp", 2, 1, K.logaddexp, reorderable=True)
_define("logaddexp2", 2, 1, K.logaddexp2, reorderable=True)
_define("sin", 1, 1, torch.sin)
_define("cos", 1, 1, torch.cos)
_define("tan", 1, 1, torch.tan)
_define("arcsin", 1, 1, torch.asin, aliases=("asin",))
_define("arccos", 1, 1, torch.acos, aliases=("acos",))
_define("arctan", 1, 1, torch.atan, aliases=("atan",))
_define("arctan2", 2, 1, torch.atan2, aliases=("atan2",))
_define("hypot", 2, 1, torch.hypot, reorderable=True)
_define("sinh", 1, 1, torch.sinh)
_define("cosh", 1, 1, torch.cosh)
_define("tanh", 1, 1, torch.tanh)
_define("arcsinh", 1, 1, torch.asinh, aliases=("asinh",))
_define("arccosh", 1, 1, torch.acosh, aliases=("acosh",))
_define("arctanh", 1, 1, torch.atanh, aliases=("atanh",))
_define("deg2rad", 1, 1, K.deg2rad)
_define("radians", 1, 1, K.deg2rad)
_define("rad2deg", 1, 1, K.rad2deg)
_define("degrees", 1, 1, K.rad2deg)
rint = _define("rint", 1, 1, K.rint)
floor = _define("floor", 1, 1, K.floor, "bits")
ceil = _define("ceil", 1, 1, K.ceil, "bits")
_define("trunc", 1, 1, K.trunc, "bits")
_define("modf", 1, 2, K.modf)
_define("frexp", 1, 2, K.frexp, half=False)
_define("ldexp", 2, 1, K.ldexp, half=False)
_define("copysign", 2, 1, torch.copysign)
_define("nextafter", 2, 1, K.nextafter, half=False)
_define("spacing", 1, 1, K.spacing, half=False)
_define("signbit", 1, 1, K.signbit, "own")
_define("isnan", 1, 1, torch.isnan, "bits")
_define("isinf", 1, 1, torch.isinf, "bits")
_define("isfinite", 1, 1, torch.isfinite, "bits")
_define("heaviside", 2, 1, K.heaviside)
_define("gcd", 2, 1, K.gcd, reorderable=True)
_define("lcm", 2, 1, K.lcm)
maximum = _define("maximum", 2, 1, K.maximum, "ordered", half=False, reorderable=True)   # exact in float16
minimum = _define("minimum", 2, 1, K.minimum, "ordered", half=False, reorderable=True)
_define("fmax", 2, 1, K.fmax, "ordered", reorderable=True)
_define("fmin", 2, 1, K.fmin, "ordered", reorderable=True)
_define("equal", 2, 1, torch.eq, "bits")
_define("not_equal", 2, 1, torch.ne, "bits")
_define("less", 2, 1, K.less, "ordered")
_define("less_equal", 2, 1, K.less_equal, "ordered")
_define("greater", 2, 1, K.greater, "ordered")
greater_equal = _define("greater_equal", 2, 1, K.greater_equal, "ordered")
_define("logical_and", 2, 1, K.logical_and, "bits", reorderable=True)
_define("logical_or", 2, 1, K.logical_or, "bits", reorderable=True)
_define("logical_xor", 2, 1, K.logical_xor, "bits", reorderable=True)
_define("logical_not", 1, 1, K.logical_not, "bits")
_define("bitwise_and", 2, 1, torch.bitwise_and, "bits", reorderable=True)
_define("bitwise_or", 2, 1, torch.bitwise_or, "bits", reorderable=True)
_define("bitwise_xor", 2, 1, torch.bitwise_xor, "bits", reorderable=True)
_define("invert", 1, 1, torch.bitwise_not, "bits", aliases=("bitwise_not", "bitwise_invert"))
_define("left_shift", 2, 1, torch.bitwise_left_shift, "bits", aliases=("bitwise_left_shift",))
_define("right_shift", 2, 1, K.right_shift, "own", aliases=("bitwise_right_shift",))
_define("bitwise_count", 1, 1, K.bitwise_count, "own")
_define("conjugate", 1, 1, K.conjugate, "bits", aliases=("conj",))


# ---- functions built from ufuncs ----------------------------------------------------------
_clip_ufunc = ufunc("clip", 3, 1, lambda x, lo, hi: K.minimum(K.maximum(x, lo), hi), "ordered",
                    np_ufunc=numpy._core.umath.clip)


def clip(a, a_min=NO_VALUE, a_max=NO_VALUE, out=None, *, min=NO_VALUE, max=NO_VALUE, **kwargs):
    """NumPy 2's clip: minimum(maximum(a, min), max), NaN propagating; Python int bounds
    beyond an integer dtype's range are dropped rather than overflowing."""
    if (a_min is NO_VALUE) != (a_max is NO_VALUE):   # one bound given positionally needs the other
        raise TypeError(f"clip() missing 1 required positional argument: '{'a_min' if a_min is NO_VALUE else 'a_max'}'")
    if a_min is not NO_VALUE and (min is not NO_VALUE or max is not NO_VALUE):
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` "
                         "are provided is forbidden.")
    lo = a_min if a_min is not NO_VALUE else (None if min is NO_VALUE else min)
    hi = a_max if a_max is not NO_VALUE else (None if max is NO_VALUE else max)
    arr = asarray(a) if not isinstance(a, ndarray) else a
    if arr.dtype.kind in "iu":
        info = numpy.iinfo(arr.dtype.np)
        if type(lo) is int and lo <= info.min:
            lo = None
        if type(hi) is int and hi >= info.max:
            hi = None
    if lo is None and hi is None:
        return positive(arr, out=out, **kwargs)
    if lo is None:
        return minimum(arr, hi, out=out, **kwargs)
    if hi is None:
        return maximum(arr, lo, out=out, **kwargs)
    return _clip_ufunc(arr, lo, hi, out=out, **kwargs)


def around(a, decimals=0, out=None):
    """NumPy's round: scale by 10**decimals, round half to even, scale back, each step
    in the array's own dtype (so float16/float32 round as NumPy's do)."""
    arr = asarray(a)
    decimals = int(decimals)
    if type(out) is numpy.ndarray:
        out = numpy_target(out)
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    if arr.dtype.kind == "c":
        result = arr.copy() if out is None else out
        _round_into(arr.real, decimals, result.real)
        if result.dtype.kind != "c":   # NumPy rounds the real part into out, then finds no out.imag
            raise TypeError(NO_IMAGINARY_PART)
        _round_into(arr.imag, decimals, result.imag)
        if out is None and result.ndim == 0:
            result._scalar = True
        return result
    if decimals >= 0 and arr.dtype.kind in "iu":
        if out is None:
            return ndarray._wrap(arr._t.clone(), scalar=arr.ndim == 0)
        value = cast_tensor(arr._t, out.dtype)
        _self_overlap.store(out._t, (value.clone() if _same_storage(value, out._t) else value).expand(out.shape))
        _flipped.written(out)
        return out
    if decimals == 0:
        return rint(arr, out=out)
    target = out
    if target is None:
        dt = _dtypes.float64.dtype if arr.dtype.kind in "iu" else arr.dtype
        target = ndarray._wrap(torch.empty(arr._t.shape, dtype=dt.torch))
    _round_into(arr, decimals, target)
    if out is not None:
        return out
    result = ndarray._wrap(cast_tensor(target._t, arr.dtype), scalar=arr.ndim == 0)
    return result


def _round_into(arr, decimals, target):
    scale = float(10.0 ** abs(decimals))
    first, second = (multiply, divide) if decimals >= 0 else (divide, multiply)
    if decimals == 0:
        rint(arr, out=target)
        return
    first(arr, scale, out=target)
    rint(target, out=target)
    second(target, scale, out=target)


round = around  # noqa: A001 - NumPy's name


def fix(x, out=None):
    """Round towards zero: ceil, then floor where x >= 0 (NumPy's own definition;
    deprecated for trunc in NumPy 2.5)."""
    if NUMPY_2_5:
        warnings.warn("numpy.fix is deprecated. Use numpy.trunc instead, which is faster and follows the "
                      "Array API standard.", DeprecationWarning, stacklevel=2)
    result = ceil(x, out=out)
    if not isinstance(result, ndarray) or result.ndim == 0 and out is None:
        result = ndarray._wrap(result._t.clone())
    result = floor(x, out=result, where=greater_equal(x, 0))
    if out is None and result.ndim == 0:
        result = ndarray._wrap(result._t, scalar=True)
    return result


__all__ += ["clip", "around", "round", "fix"]
