"""Native loop kernels: functions whose loops index elements and small slices, compiled
by numba from explicitly typed code that keeps NumPy's dtype rules (optional: without
numba, ``try_compile`` refuses and callers take their ordinary path).

    kernel = try_compile(fn, args, kwargs)     # NativeKernel, or a falsy Refusal(reason)
    if kernel and kernel.guard(args, kwargs):
        result = kernel(*args, **kwargs)

A runtime keeps the kernels it compiled per function and the refusals under
``call_key(fn, args, kwargs)``; a call whose guard holds runs the kernel, whose result,
warnings, exceptions and writes into the arguments are NumPy's (kernel.py says how).
``has_loop(fn)``: whether ``fn`` or a helper it calls loops (worth trying natively).
"""
from npcompile.native.calls import has_loop
from npcompile.native.kernel import NativeKernel, Refusal, call_key, try_compile

__all__ = ["NativeKernel", "Refusal", "call_key", "has_loop", "try_compile"]
