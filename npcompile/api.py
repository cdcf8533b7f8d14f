"""The public entry point: ``npcompile.jit``."""
import copy
import functools
import inspect
import types
import warnings

from .runtime import memory
from .runtime.jit_function import JitFunction


def jit(fn=None, *, fullgraph=False, backend="inductor", dynamic=None, device=None, options=None):
    """Compile a NumPy function: ``@jit``, ``@jit(fullgraph=True)`` or ``jit(fn, ...)``.

    The result behaves like ``fn`` and returns exactly what NumPy would; the NumPy work
    runs as a compiled graph (TorchInductor by default)."""
    settings = dict(fullgraph=fullgraph, backend=backend, dynamic=dynamic, device=device,
                    options=options)
    if fn is None:
        return functools.partial(jit, **settings)
    memory.keep_freed_memory()
    if isinstance(fn, JitFunction):
        fn = fn.fn
    if isinstance(fn, types.MethodType):  # jit(obj.method): compile the function, keep the binding
        return types.MethodType(jit(fn.__func__, **settings), fn.__self__)
    if not hasattr(fn, "__code__"):
        raise TypeError(f"npcompile.jit expects a Python function, got {type(fn).__name__}")
    if _is_lazy(fn):
        warnings.warn(f"npcompile.jit: {fn.__qualname__} is a generator or coroutine function; it runs "
                      "uncompiled, lazily, as Python runs it (jit the functions it calls instead)",
                      stacklevel=2)
        return fn
    return functools.update_wrapper(JitFunction(fn, **settings), fn, updated=())


def _is_lazy(fn):
    """Generators and coroutines run a step per ``next``/``send``: tracing the whole body at
    call time would run it eagerly (and never return from an infinite generator)."""
    return (inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn)
            or inspect.isasyncgenfunction(fn))


def run(fn):
    """Run-only mode for a jitted function: use what it has compiled so far and never
    compile anything new (a miss runs uncompiled and is counted in ``run_only_misses``)."""
    if not isinstance(fn, JitFunction):
        raise TypeError("npcompile.run expects a function returned by npcompile.jit")
    view = copy.copy(fn)
    view.run_only = True
    return view


def reset():
    """Forget everything npcompile compiled or learnt: every jitted function's entries (per
    device too), its breaks, recompile reasons and compiled callees, which dims and ints
    it made dynamic, the compile-time totals and the once-only log memory. The next call
    of each function compiles afresh, as in a new process."""
    from .diagnostics import forget_compile_times, forget_logged
    from .runtime.jit_function import _ALL
    forget_compile_times()
    forget_logged()
    for jitted in list(_ALL):
        for table in (jitted.entries, jitted.resume_entries, jitted.device_entries, jitted.breaks,
                      jitted.recompile_reasons, jitted._callees, jitted.dynamic_dims, jitted.dynamic_ints):
            table.clear()
        jitted.run_only_misses = 0
        jitted._limit_warned = False
