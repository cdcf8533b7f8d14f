"""NumPy's floating-point error reports (divide by zero, overflow, underflow, invalid
value) for the shim's eager computations.

NumPy reads the FPU's status flags after each ufunc loop and acts on each flag raised
as its error state says (``numpy.geterr()``; set with ``np.errstate`` / ``np.seterr``):
'ignore' nothing, 'warn' a RuntimeWarning, 'raise' FloatingPointError, 'call' the
handler, 'print' / 'log' a line. torch never reports these conditions, so the shim
infers the flags from the operands and results of each operation (``flags``: a
non-finite result from finite operands is an overflow, or a division by zero at the
operation's pole; a NaN from operands without NaN is invalid; integer division by zero
and ``MIN // -1``) and then acts on REAL NumPy's current state (``report``), once per
operation and flag, in NumPy's order, with NumPy's messages. When every result is
finite the check is one pass over each result (a sum; a Python loop for small ones).
Reductions and ``at`` gather their steps' flags and report once (``as_one``); the
nan-functions' own warnings ('Mean of empty slice') go through ``warn``.

Nothing is checked while torch traces (a dispatch mode is active: npcompile's make_fx /
FakeTensorMode): compiled code emits no warnings (npcompile/trace/fp_state.py), and
tracing pays one test, ``tracing()``.
"""
import contextlib
import math
import os
import sys
import threading
import warnings

import numpy
import torch

try:   # NumPy 2.x keeps the error state in this context variable, replaced on every change
    from numpy._core._ufunc_config import _extobj_contextvar
except ImportError:   # pragma: no cover - other NumPy versions: read the modes each time
    _extobj_contextvar = None

DIVIDE, OVERFLOW, UNDERFLOW, INVALID = 1, 2, 4, 8   # NumPy's UFUNC_FPE_* bits
# (bit, geterr key, message start), in the order NumPy reports them
_KINDS = ((DIVIDE, "divide", "divide by zero"), (OVERFLOW, "over", "overflow"),
          (UNDERFLOW, "under", "underflow"), (INVALID, "invalid", "invalid value"))
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def tracing():
    """A torch dispatch mode (make_fx's proxy mode, a FakeTensorMode) is active."""
    return torch._C._len_torch_dispatch_stack() > 0


# ---- the error state ---------------------------------------------------------------------
_last = (object(), None)   # (NumPy's state object last read, its modes); one tuple: thread-safe


def _modes():
    """NumPy's modes as a dict, or None when all four are 'ignore' (nothing to do)."""
    global _last
    state = _extobj_contextvar.get() if _extobj_contextvar is not None else object()
    last = _last
    if state is last[0]:
        return last[1]
    modes = numpy.geterr()
    modes = None if all(m == "ignore" for m in modes.values()) else modes
    _last = (state, modes)
    return modes


def watching():
    """Whether an eager computation must look for errors now."""
    return not tracing() and _modes() is not None


# ---- acting on flags -----------------------------------------------------------------------
class _Pending(threading.local):
    flags = None   # an int while a method collects its steps' errors (see ``as_one``)


_pending = _Pending()


def report(flags, name):
    """Act on ``flags`` raised by the operation ``name`` as NumPy's error state says."""
    if not flags:
        return
    if _pending.flags is not None:
        _pending.flags |= flags
        return
    modes = _modes()
    if modes is None:
        return
    for bit, key, text in _KINDS:
        if flags & bit and modes[key] != "ignore":
            _act(modes[key], text, f"{text} encountered in {name}", flags)


def report_apart(flags, name):
    """``report``, at once even within ``as_one``: a cast of a scan's input, which NumPy
    reports by itself ('cast') before the loop's own report."""
    outer, _pending.flags = _pending.flags, None
    try:
        report(flags, name)
    finally:
        _pending.flags = outer


def _act(mode, text, message, flags):
    if mode == "warn":
        warnings.warn(message, RuntimeWarning, stacklevel=_user_stacklevel())
    elif mode == "raise":
        raise FloatingPointError(message)
    elif mode == "call":
        numpy.geterrcall()(text, flags)
    elif mode == "print":
        print(f"Warning: {message}", file=sys.stderr)
    elif mode == "log":
        numpy.geterrcall().write(f"Warning: {message}\n")


def _user_stacklevel():
    """The stacklevel of the first frame outside the shim: where NumPy's warning points."""
    frame, level = sys._getframe(1), 1   # the caller of warnings.warn is stacklevel 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def warn(message, category=RuntimeWarning):
    """A warning NumPy issues whatever the error state ('Mean of empty slice'), pointing
    at the user's line; eager only (callers check ``tracing``)."""
    warnings.warn(message, category, stacklevel=_user_stacklevel())


def warn_empty_mean(kept_shape):
    """NumPy's mean of empty slices (median, average of empty input): 'Mean of empty
    slice', then 0/0, invalid, in a 'scalar divide' when the result is a scalar."""
    if tracing():
        return
    warn("Mean of empty slice")
    if math.prod(kept_shape) and watching():
        report(INVALID, "scalar divide" if tuple(kept_shape) == () else "divide")


def warn_all_nan(count):
    """The nan-functions warn once when some slice (``count``: its non-NaN values, a
    tensor) has no value that is not NaN."""
    if not tracing() and bool((count == 0).any()):
        warn("All-NaN slice encountered")


@contextlib.contextmanager
def as_one(name):
    """Within: the errors of every step are gathered and reported once, as raised by
    ``name`` (NumPy's ``add.reduce`` warns 'overflow encountered in reduce' once)."""
    outer, _pending.flags = _pending.flags, 0
    try:
        yield
    except BaseException:
        _pending.flags = outer
        raise
    flags, _pending.flags = _pending.flags, outer
    report(flags, name)


# ---- inferring the flags ------------------------------------------------------------------
# ufuncs that raise no flag whatever their floating-point operands (NaN passes through
# quietly; spacing(inf) is NaN without a warning)
QUIET = frozenset({
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit",
    "maximum", "minimum", "fmax", "fmin", "clip", "copysign", "negative", "positive", "absolute",
    "fabs", "sign", "conjugate", "floor", "ceil", "trunc", "rint", "modf", "frexp",
    "heaviside", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
    "right_shift", "bitwise_count", "gcd", "lcm"})
# exact operations (no rounding below the smallest normal): never an underflow
_EXACT = QUIET | {"add", "subtract", "fmod", "remainder", "divmod", "floor_divide", "nextafter"}
# where a result of exactly zero from non-zero operands is an underflow
_SHRINKING = frozenset({"multiply", "divide", "exp", "exp2", "ldexp", "power", "float_power",
                        "square"})
_INT_DIVISION = frozenset({"floor_divide", "remainder", "fmod", "divmod"})


def _pole(name, inputs):
    """Where an infinite result from finite operands is a division by zero (NumPy's
    'divide' flag) rather than an overflow; None: nowhere."""
    x = inputs[0]
    if name in ("divide", "floor_divide", "divmod"):
        return inputs[1] == 0
    if name in ("log", "log2", "log10", "reciprocal"):
        return x == 0
    if name == "log1p":
        return x == -1
    if name == "arctanh":
        return x.abs() == 1
    if name in ("power", "float_power"):
        return (x == 0) & (inputs[1].real < 0)
    return None


def _log_add_flags(inputs, results, mask, base2=False):
    """logaddexp(2) compare their operands: a NaN operand is an invalid comparison; and
    exp(-|a - b|) underflows for operands far apart (float16 computes in float32)."""
    found = INVALID if _holds(_any_of(torch.isnan, inputs), mask) else 0
    if _wants_underflow():
        a, b = inputs
        tiny = torch.finfo(torch.float32 if a.dtype == torch.float16 else a.dtype).tiny
        limit = -math.log2(tiny) if base2 else -math.log(tiny)
        far = (a.double() - b.double()).abs() > limit
        found |= UNDERFLOW if _holds(far & torch.isfinite(a) & torch.isfinite(b), mask) else 0
    return found


def _wants_underflow():
    """Underflow is looked for when it is acted on, or a 'call' handler sees every flag."""
    modes = _modes()
    return modes["under"] != "ignore" or "call" in modes.values()


def _step_flags(inputs, results, mask):
    """spacing and nextafter overflow only from a finite x to an infinite result (and
    NumPy's float16 spacing of a non-finite x is invalid)."""
    x, r = inputs[0], results[0]
    found = OVERFLOW if _holds(torch.isinf(r) & torch.isfinite(x), mask) else 0
    if x.dtype == torch.float16 and len(inputs) == 1 and _holds(~torch.isfinite(x), mask):
        found |= INVALID
    return found


# ufuncs whose flags follow their own rule rather than the general one
_OWN_RULES = {"logaddexp": _log_add_flags, "logaddexp2": lambda *a: _log_add_flags(*a, base2=True),
              "spacing": _step_flags, "nextafter": _step_flags}


def flags(name, inputs, results, mask=None):
    """The flags NumPy's loop for ``name`` raises on these operands (tensors in the
    loop's dtypes) and results; ``mask``: the where= mask, or None."""
    out = results[0]
    if name in QUIET or out.numel() == 0:   # an empty result computed nothing (array([]) // 0)
        return 0
    if not out.dtype.is_floating_point and not out.dtype.is_complex:
        return _integer_flags(name, inputs, mask) if name in _INT_DIVISION or name == "reciprocal" else 0
    if name in _OWN_RULES:
        return _OWN_RULES[name](inputs, results, mask)
    found = _complex_reciprocal_compares(inputs, mask) if name == "reciprocal" and out.dtype.is_complex else 0
    if name not in _EXACT and _wants_underflow():
        found |= _underflow(name, inputs, results, mask)
    if _finite(out) and (len(results) == 1 or all(_finite(r) for r in results[1:])):
        return found
    return found | _nonfinite_flags(name, inputs, results, mask)


def _complex_reciprocal_compares(inputs, mask):
    """NumPy's complex reciprocal compares |re| with |im| (Smith's ratio): a NaN part is
    an invalid comparison there, even where the result's NaN comes from the input."""
    return INVALID if _holds(torch.isnan(inputs[0]), mask) else 0


def _finite(t):
    """True when every element is finite (False also when a sum of finite values
    overflowed, leaving the exact check to the caller): one pass over the data."""
    t = torch.view_as_real(t) if t.dtype.is_complex else t
    if t.numel() <= 64:   # a Python loop beats a torch reduction's fixed cost
        return all(map(math.isfinite, t.flatten().tolist()))
    total = t.sum(dtype=torch.float64) if t.dtype == torch.float16 else t.sum()
    return math.isfinite(total.item())


def _float_inputs(inputs):
    return [t for t in inputs if t.dtype.is_floating_point or t.dtype.is_complex]


def _nonfinite_flags(name, inputs, results, mask):
    floats = _float_inputs(inputs)
    in_nan = _any_of(torch.isnan, floats)
    in_finite = _all_finite(floats)
    found = 0
    for r in results:
        if not (r.dtype.is_floating_point or r.dtype.is_complex):
            continue
        new_nan = torch.isnan(r) if in_nan is None else torch.isnan(r) & ~in_nan
        if _holds(new_nan, mask):
            found |= INVALID
        new_inf = torch.isinf(r) if in_finite is None else torch.isinf(r) & in_finite
        if not _holds(new_inf, mask) and name != "power":
            continue
        found |= _infinity_flags(name, inputs, r, new_inf, mask)
    return found


def _infinity_flags(name, inputs, r, new_inf, mask):
    """An infinite result from finite operands: a division by zero at the operation's
    pole, else an overflow (NumPy's float floor_divide then also meets an invalid step)."""
    pole = _pole(name, inputs)
    if name == "power" and r.dtype != torch.float16:   # NumPy's power divides in 0 ** -inf too
        pole = pole & torch.isinf(r)
        new_inf = new_inf | pole
    if pole is None:
        found = OVERFLOW if _holds(new_inf, mask) else 0
    else:
        found = DIVIDE if _holds(new_inf & pole, mask) else 0
        found |= OVERFLOW if _holds(new_inf & ~pole, mask) else 0
    if name in ("floor_divide", "divmod") and found & OVERFLOW and r.dtype != torch.float16:
        found |= INVALID
    return found


def _any_of(test, tensors):
    combined = None
    for t in tensors:
        hit = test(t)
        combined = hit if combined is None else combined | hit
    return combined


def _all_finite(tensors):
    combined = None
    for t in tensors:
        ok = torch.isfinite(t)
        combined = ok if combined is None else combined & ok
    return combined


def _holds(condition, mask):
    if mask is not None:
        condition = condition & mask
    return bool(condition.any())


def _integer_flags(name, inputs, mask):
    """Integer division: a zero divisor flags 'divide'; MIN // -1 (floor_divide, divmod)
    flags 'overflow'; NumPy's integer reciprocal of 0 divides by zero and is invalid."""
    if name == "reciprocal":
        return DIVIDE | INVALID if _holds(inputs[0] == 0, mask) else 0
    a, b = (t.to(torch.int64) if t.dtype in (torch.uint16, torch.uint32) else t for t in inputs)
    found = DIVIDE if _holds(b == 0, mask) else 0
    if name in ("floor_divide", "divmod") and a.dtype.is_signed and b.dtype.is_signed:
        smallest = torch.iinfo(a.dtype).min
        if _holds((a == smallest) & (b == -1), mask):
            found |= OVERFLOW
    return found


def _underflow(name, inputs, results, mask):
    """A result below the smallest normal (or zero from non-zero operands, for the
    operations that shrink) that is not the exact value of an operand."""
    for r in results:
        if not r.dtype.is_floating_point:
            continue
        tiny = torch.finfo(r.dtype).tiny
        small = (r != 0) & (r.abs() < tiny)
        same = [t for t in inputs if t.dtype == r.dtype]
        if len(inputs) > 1 and same:   # x * 1 is exact; sin(x) == x is rounded
            small = small & ~_any_of(lambda t: t == r, same)
        if name in _SHRINKING:
            nonzero = _all_nonzero_finite(inputs[:1] if name in ("exp", "exp2", "ldexp") else inputs)
            small = small | ((r == 0) & nonzero)
        if _holds(small, mask):
            return UNDERFLOW
    return 0


def _all_nonzero_finite(tensors):
    combined = None
    for t in tensors:
        ok = (t != 0) & (torch.isfinite(t) if t.dtype.is_floating_point else True)
        combined = ok if combined is None else combined & ok
    return combined


def cast_flags(source, target_dtype, mask=None):
    """The flags NumPy's cast of the tensor ``source`` to the torch dtype
    ``target_dtype`` raises (where ``mask`` holds): float to integer of NaN, inf or
    out-of-range values ('invalid'); a finite float to a narrower float that overflows
    ('overflow'), as does an integer too large for float16. NumPy names them 'cast' in
    ``astype``, the ufunc's name for ``out=``."""
    if target_dtype == torch.float16 and not (source.dtype.is_floating_point or source.dtype.is_complex
                                              or source.dtype == torch.bool):
        return OVERFLOW if _holds(torch.isinf(source.to(torch.float32).to(target_dtype)), mask) else 0
    if not source.dtype.is_floating_point or target_dtype == torch.bool or target_dtype.is_complex:
        return 0
    if target_dtype.is_floating_point:
        if torch.finfo(target_dtype).max >= torch.finfo(source.dtype).max:
            return 0
        overflows = torch.isinf(source.to(target_dtype)) & torch.isfinite(source)
        return OVERFLOW if _holds(overflows, mask) else 0
    info = torch.iinfo(target_dtype)
    bad = ~torch.isfinite(source) | (source < info.min) | (source >= float(info.max) + 1)
    return INVALID if _holds(bad, mask) else 0


def reduction_flags(name, x, axes, result):
    """The flags of a reduction computed in one torch call (add.reduce as a sum): an
    infinite result from a slice of finite values overflowed, a NaN from a slice without
    NaN is invalid. ``axes``: the reduced axes of ``x`` (None: a running accumulation,
    judged on the whole array)."""
    if name in QUIET or not (result.dtype.is_floating_point or result.dtype.is_complex) or \
            _finite(result):
        return 0
    if axes is None:
        nan_in, finite_in = bool(torch.isnan(x).any()), bool(torch.isfinite(x).all())
        found = INVALID if not nan_in and bool(torch.isnan(result).any()) else 0
        return found | (OVERFLOW if finite_in and bool(torch.isinf(result).any()) else 0)
    nan_in = torch.isnan(x).any(dim=axes) if axes else torch.isnan(x)
    finite_in = torch.isfinite(x).all(dim=axes) if axes else torch.isfinite(x)
    found = INVALID if bool((torch.isnan(result) & ~nan_in).any()) else 0
    return found | (OVERFLOW if bool((torch.isinf(result) & finite_in).any()) else 0)


def check(name, inputs, result, report_as=None, mask=None):
    """One ufunc step computed by hand (diff's subtract, polyval's multiply): its flags
    reported as NumPy's loop ``name`` would (``report_as``: the name NumPy shows)."""
    if watching():
        report(flags(name, list(inputs), [result], mask), report_as or name)


# ---- products ---------------------------------------------------------------------------
def contraction_flags(a, b, r):
    """The flags of a sum of products r = a @ b (a: (..., M, K), b: (..., K, N), r:
    (..., M, N), batch dims broadcast) as NumPy's dot/matmul loops (BLAS) raise them:
    an infinite result where the row and column were finite overflowed, a NaN where
    they held no NaN is invalid (and, from finite values, an overflow first); a product
    below the smallest normal underflows. Where a row or column holds inf or NaN nothing
    more is inferred: NumPy's BLAS then reports by its own order of fused multiply-adds
    (an overflow or inf * 0 added onto inf or NaN is not reported)."""
    if not (r.is_floating_point() or r.is_complex()) or r.numel() == 0 or a.shape[-1] == 0:
        return 0
    found = UNDERFLOW if _wants_underflow() and _products_underflow(a, b, r) else 0
    if _finite(r):
        return found
    nan_r, inf_r = torch.isnan(r), torch.isinf(r)
    finite = torch.isfinite(a).all(-1).unsqueeze(-1) & torch.isfinite(b).all(-2).unsqueeze(-2)
    no_nan = ~torch.isnan(a).any(-1).unsqueeze(-1) & ~torch.isnan(b).any(-2).unsqueeze(-2)
    found |= OVERFLOW if bool(((inf_r | nan_r) & finite).any()) else 0
    found |= INVALID if bool((nan_r & no_nan).any()) else 0
    return found


def _smallest_magnitudes(t, dim):
    """log2 of the smallest non-zero magnitude (of a real or imaginary part) along
    ``dim``, +inf where all are zero: (..., K) for a's rows or b's columns."""
    parts = torch.view_as_real(t) if t.is_complex() else t.unsqueeze(-1)
    logs = torch.where(parts != 0, parts.abs().double().log2(), math.inf)
    return logs.amin(-1).amin(dim)


def _products_underflow(a, b, r):
    """Some a[..., i, k] * b[..., k, j] lies below the smallest normal: for one k, the
    smallest magnitudes of a's column k and b's row k multiplied; float16 results
    rounded below float16's smallest normal underflow in NumPy's cast too."""
    tiny = torch.finfo(a.real.dtype if a.is_complex() else a.dtype).tiny
    low = _smallest_magnitudes(a, -2) + _smallest_magnitudes(b, -1)
    if bool((low < math.log2(tiny)).any()):
        return True
    if r.dtype == torch.float16:
        return bool(((r != 0) & (r.abs() < torch.finfo(torch.float16).tiny)).any())
    return False


def contraction_check(a, b, r, name):
    """Report the flags of ``contraction_flags`` as raised by NumPy's ``name``."""
    if watching():
        report(contraction_flags(a, b, r), name)
