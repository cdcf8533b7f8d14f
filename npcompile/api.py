"""The public entry point: ``npcompile.jit``."""
import copy
import functools
import types

from .runtime.jit_function import JitFunction


def jit(fn=None, *, fullgraph=False, backend="inductor", dynamic=None, device=None, options=None):
    """Compile a NumPy function: ``@jit``, ``@jit(fullgraph=True)`` or ``jit(fn, ...)``.

    The result behaves like ``fn`` and returns exactly what NumPy would; the NumPy work
    runs as a compiled graph (TorchInductor by default)."""
    settings = dict(fullgraph=fullgraph, backend=backend, dynamic=dynamic, device=device,
                    options=options)
    if fn is None:
        return functools.partial(jit, **settings)
    if isinstance(fn, JitFunction):
        fn = fn.fn
    if isinstance(fn, types.MethodType):  # jit(obj.method): compile the function, keep the binding
        return types.MethodType(jit(fn.__func__, **settings), fn.__self__)
    if not hasattr(fn, "__code__"):
        raise TypeError(f"npcompile.jit expects a Python function, got {type(fn).__name__}")
    return functools.update_wrapper(JitFunction(fn, **settings), fn, updated=())



def run(fn):
    """Run-only mode for a jitted function: use what it has compiled so far and never
    compile anything new (a miss runs uncompiled and is counted in ``run_only_misses``)."""
    if not isinstance(fn, JitFunction):
        raise TypeError("npcompile.run expects a function returned by npcompile.jit")
    view = copy.copy(fn)
    view.run_only = True
    return view


def reset():
    """Forget every compiled entry of every jitted function."""
    from .diagnostics import _compile_seconds
    from .runtime.jit_function import _ALL
    _compile_seconds.clear()
    for jitted in list(_ALL):
        jitted.entries.clear()
        jitted.resume_entries.clear()
        jitted.breaks.clear()
        jitted.recompile_reasons.clear()
        jitted._callees.clear()
