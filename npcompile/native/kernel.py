"""A compiled native loop kernel: its guard, and a call that is NumPy's or nothing.

The call is transactional. The arguments the kernel may write are copied first; the
floating-point exception flags are cleared. If the kernel raises (a checked integer
overflow, an index out of bounds, a division by zero) or leaves the invalid, divide-by-
zero or overflow flag set (where NumPy would warn or Python raise), the copies are put
back and the original function runs in NumPy, which then gives NumPy's own result,
warnings and exception. Otherwise every operation ran in NumPy's dtypes with IEEE
results and the kernel's result stands, as the objects NumPy returns (returns.py);
where the kernel cannot tell which objects those are, NumPy runs too.
"""
import builtins
import dataclasses
import inspect
import math
import re
import time

import numpy as np

from npcompile import probe_warnings
from npcompile.native import binding, returns
from npcompile.native.fenv import FENV, UNDERFLOW
from npcompile.native.kinds import SUPPORTED, Array, NotNative, of_value


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Not compiled natively, and why (the caller takes its ordinary path)."""
    reason: str

    def __bool__(self):
        return False


def layout(array):
    return "C" if array.flags.c_contiguous else "F" if array.flags.f_contiguous else "A"


def guard_key(value):
    """What the compiled code assumed about one argument."""
    if type(value) is np.ndarray:
        flags = value.flags
        return (np.ndarray, value.dtype, value.ndim, layout(value), flags.writeable, flags.aligned)
    if type(value) is int:
        return (int, -(2 ** 63) <= value < 2 ** 63)
    return (type(value),)


def guard_check(key):
    """A fast test that a value has guard key ``key`` (called on every call)."""
    if key[0] is np.ndarray:
        _, dtype, ndim, lay, writeable, aligned = key

        def check(v):
            if type(v) is not np.ndarray or v.ndim != ndim or (v.dtype is not dtype and v.dtype != dtype):
                return False
            f = v.flags
            c = f.c_contiguous
            return (("C" if c else "F" if f.f_contiguous else "A") == lay and f.writeable == writeable
                    and f.aligned == aligned)
        return check
    if key[0] is int:
        return lambda v: type(v) is int and -(2 ** 63) <= v < 2 ** 63
    t = key[0]
    return lambda v: type(v) is t


def argument_type(name, value):
    """The analysis' type of an argument (an array is its own root)."""
    if type(value) is np.ndarray:
        if value.ndim == 0 or value.dtype not in SUPPORTED:
            raise NotNative(f"argument {name}: a 0-d array or dtype {value.dtype}")
        return Array(value.dtype, value.ndim, frozenset({name}), bool(value.flags.writeable), fresh=False,
                     contiguous=bool(value.flags.c_contiguous))
    if type(value) is int and not -(2 ** 63) <= value < 2 ** 63:
        raise NotNative(f"argument {name}: an int beyond int64")
    if type(value) not in (int, float, bool) and not (isinstance(value, np.generic) and value.dtype in SUPPORTED):
        raise NotNative(f"argument {name}: a {type(value).__name__}")
    return of_value(value)


class NativeKernel:
    """``guard(args, kwargs)``: may this kernel serve the call? ``kernel(*args, **kwargs)``:
    the function's result, computed natively when that is provably NumPy's."""

    def __init__(self, fn, signature, keys, written, compiled, box, guards, source, compile_seconds,
                 max_elements=None):
        self.fn = fn
        self.signature = signature
        self.nparams = len(signature.parameters)
        self.binder = binding.make_binder(fn)
        self.keys = keys
        self.checks = [guard_check(k) for k in keys]
        self.written = written               # positions of arguments the kernel may write
        self.arrays = [i for i, k in enumerate(keys) if k[0] is np.ndarray]
        self.compiled = compiled
        self.box = box
        # (globals, name, value) the code assumed; (helper, code, defaults) it calls
        self.globals_used, self.helpers = guards
        self.source = source
        self.compile_seconds = compile_seconds
        self.max_elements = max_elements     # the policy took it for arrays this small (None: any)
        self.bailouts = 0                    # calls that NumPy finished instead
        from npcompile.native.support import clear_fp_flags, fp_flags
        self.clear_flags, self.flags = clear_fp_flags, fp_flags

    def _values(self, args, kwargs):
        """The argument of each parameter, defaults as the function has them now."""
        if not kwargs and len(args) == self.nparams:
            return args
        return binding.bind(self.binder, self.fn, args, kwargs)

    def guard(self, args, kwargs=None):
        try:
            values = self._values(args, kwargs or {})
        except TypeError:
            return False
        if len(values) != len(self.checks):
            return False
        for check, v in zip(self.checks, values):
            if not check(v):
                return False
        for g, name, value in self.globals_used:
            if (g[name] if name in g else getattr(builtins, name, None)) is not value:
                return False
        for helper, code, defaults in self.helpers:
            if helper.__code__ is not code or helper.__defaults__ is not defaults:
                return False
        if self.max_elements is not None and any(values[j].size > self.max_elements for j in self.arrays):
            return False
        for i in self.written:      # the kernel assumes what it writes overlaps no other argument
            for j in self.arrays:
                if j != i and np.may_share_memory(values[i], values[j]):
                    return False
        return True

    def __call__(self, *args, **kwargs):
        values = self._values(args, kwargs)
        saved = [(values[i], values[i].copy()) for i in self.written]
        self.clear_flags()
        try:
            result = self.compiled(*values)
        except Exception:  # noqa: BLE001 - any failure: NumPy decides what happens
            return self._numpy(saved, args, kwargs)
        flags = self.flags()
        if flags and (flags != UNDERFLOW or np.geterr()["under"] != "ignore"):
            return self._numpy(saved, args, kwargs)
        try:
            return self.box(result, values)
        except returns.Ambiguous:    # which arrays are one object: NumPy's result says
            return self._numpy(saved, args, kwargs)

    def _numpy(self, saved, args, kwargs):
        self.bailouts += 1
        for array, copy in saved:
            np.copyto(array, copy)
        return self.fn(*args, **kwargs)


def call_key(fn, args, kwargs=None):
    """A hashable key of what a kernel for this call would be specialized on (argument
    types, dtypes, ranks, layouts, flags) and of the size class ``Lowering.size_bound``
    refuses by (whether the largest array passes ``NESTED_WIDE_ELEMENTS``): callers
    remember refusals under it, so a refused function is analysed once per key, not once
    per call, and a refusal for large arrays does not stand for small ones."""
    from npcompile.native.lower import NESTED_WIDE_ELEMENTS
    try:
        bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **(kwargs or {}))
    except TypeError:
        return None
    bound.apply_defaults()
    values = bound.arguments.values()
    largest = max((v.size for v in values if type(v) is np.ndarray), default=0)
    return tuple(guard_key(v) for v in values) + (largest > NESTED_WIDE_ELEMENTS,)


def try_compile(fn, args, kwargs=None, *, loop_kernels_only=True):
    """A NativeKernel for ``fn`` specialized to these arguments' types, or a Refusal.
    ``loop_kernels_only``: also refuse functions the native path reproduces but does not
    speed up (``Lowering.loop_kernel_reason``; one it takes for small arrays only guards
    their size: ``Lowering.size_bound``); off, every provable function compiles."""
    try:
        import numba
    except ImportError:
        return Refusal("numba is not installed (pip install npcompile[loops])")
    if FENV is None:
        return Refusal("no floating-point status access on this platform")
    from npcompile.native import gather, intops, support
    from npcompile.native.lower import PREFIX, Lowering
    try:
        signature = inspect.signature(fn, follow_wrapped=False)
        bound = signature.bind(*args, **(kwargs or {}))
        bound.apply_defaults()
        values = dict(bound.arguments)
        types = {name: argument_type(name, v) for name, v in values.items()}
        lowering = Lowering(fn, types)
        source = lowering.source()
        largest = max((v.size for v in values.values() if type(v) is np.ndarray), default=0)
        policy = lowering.loop_kernel_reason(largest) if loop_kernels_only else None
        if policy:
            return Refusal(f"not a loop kernel: {policy}")
        box = returns.boxer(lowering.return_type, lowering)
    except NotNative as exc:
        return Refusal(str(exc))
    except (TypeError, ValueError, SyntaxError) as exc:
        return Refusal(f"{type(exc).__name__}: {exc}")
    patched = _patched_names(source)
    if patched:     # numba would compile the object the name holds now, not NumPy's
        return Refusal(f"the generated code calls {patched}, which is not NumPy's or math's own (monkeypatched)")
    namespace = {"np": np, "math": math, f"{PREFIX}Bail": support.Bail}
    for helpers in (support.HELPERS, intops.HELPERS, gather.HELPERS):
        namespace.update({f"{PREFIX}{name}": helper for name, helper in helpers.items()})
    exec(compile(source, f"<npcompile.native {fn.__qualname__}>", "exec"), namespace)
    options = dict(boundscheck=True, error_model="python", cache=False, nogil=True)
    for helper in lowering.program.used(lowering)[1:]:     # compiled with the kernel, for its types
        namespace[helper.name] = numba.njit(**options)(namespace[helper.name])
    names = list(values)
    signature_types = tuple(_numba_type(numba, values[n]) for n in names)
    start = time.perf_counter()
    try:
        with probe_warnings.silenced(numba.NumbaPerformanceWarning):
            compiled = numba.njit(signature_types, **options)(namespace[f"{PREFIX}kernel"])
    except Exception as exc:  # noqa: BLE001 - numba refused the generated code
        first = str(exc).strip().splitlines()
        return Refusal(f"numba refused the generated code: {type(exc).__name__}: {first[0] if first else ''}")
    seconds = time.perf_counter() - start
    keys = [guard_key(values[n]) for n in names]
    written = [i for i, n in enumerate(names) if n in lowering.written_roots]
    guards = lowering.program.guards(lowering)
    bound = lowering.size_bound() if loop_kernels_only else None
    return NativeKernel(fn, signature, keys, written, compiled, box, guards, source, seconds, bound)


_MODULE_ATTRIBUTE = re.compile(r"(?<![\w.])(np|math)\.(\w+)")


def _patched_names(source):
    """The first ``np.<name>``/``math.<name>`` in the generated source that is not the
    module's own object now (numba resolves them when it compiles), else None."""
    from npcompile.trace import numpy_map
    for module_name, name in set(_MODULE_ATTRIBUTE.findall(source)):
        module = np if module_name == "np" else math
        if not numpy_map.is_original(module, name, getattr(module, name, None)):
            return f"{module_name}.{name}"
    return None


def _numba_type(numba, value):
    if type(value) is bool:
        return numba.types.boolean
    if type(value) is int:
        return numba.types.int64
    if type(value) is float:
        return numba.types.float64
    return numba.typeof(value)


