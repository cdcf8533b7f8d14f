"""Native loop kernels: functions whose loops index elements and small slices, compiled
by numba from explicitly typed code that keeps NumPy's dtype rules (optional: without
numba, ``try_compile`` refuses and callers take their ordinary path).

    kernel = try_compile(fn, args, kwargs)     # NativeKernel, or a falsy Refusal(reason)
    if kernel and kernel.guard(args, kwargs):
        result = kernel(*args, **kwargs)
"""
from npcompile.native.kernel import NativeKernel, Refusal, try_compile

__all__ = ["NativeKernel", "Refusal", "try_compile"]
