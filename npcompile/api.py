"""The public entry point: ``npcompile.jit``."""
import copy
import copyreg
import functools
import importlib
import inspect
import sys
import types
import uuid
import warnings

from . import config
from .runtime import background, memory
from .runtime.jit_function import JitFunction
from .trace.opcodes.versions import unsupported_message


def jit(fn=None, *, fullgraph=False, backend="inductor", dynamic=None, device=None, options=None,
        compile=None):
    """Compile a NumPy function: ``@jit``, ``@jit(fullgraph=True)`` or ``jit(fn, ...)``.

    The result behaves like ``fn`` and returns exactly what NumPy would; the NumPy work
    runs as a compiled graph (TorchInductor by default). ``compile="background"`` runs a
    call that finds nothing compiled as written while a worker compiles it (default:
    ``config.compile``; see runtime/background.py)."""
    refusal = unsupported_message()
    if refusal is not None:   # the tracer executes bytecode: only versions whose bytecode it knows
        raise RuntimeError(refusal)
    settings = dict(fullgraph=fullgraph, backend=backend, dynamic=dynamic, device=device,
                    options=options, compile=config.compile if compile is None else compile)
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


def wait_for_compiles(timeout=None):
    """Block until the background compiles queued so far have finished (True), or until
    ``timeout`` seconds have passed (False)."""
    return background.WORKER.wait(timeout)


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
    device too), its native loop kernels and the calls refused them, its breaks, recompile
    reasons and compiled callees, which dims and ints it made dynamic, the compile-time
    totals and the once-only log memory. The next call of each function compiles afresh,
    as in a new process."""
    from .diagnostics import forget_compile_times, forget_logged
    from .runtime.jit_function import _ALL
    forget_compile_times()
    forget_logged()
    for jitted in list(_ALL):
        for table in (jitted.entries, jitted.resume_entries, jitted.device_entries, jitted.breaks,
                      jitted.recompile_reasons, jitted._callees, jitted.dynamic_dims, jitted.dynamic_ints,
                      jitted._native or [], jitted.native_refusals):
            table.clear()
        jitted.run_only_misses = 0
        jitted._limit_warned = False


# Pickling (Dask, multiprocessing): a jitted function travels as a reference to its
# Python function plus its jit options, never as compiled code. Unpickling the same
# function twice in one process gives the same JitFunction, so its compiled entries are
# reused: a Dask worker compiles each function once, however many tasks carry it.
_BY_TOKEN = {}   # (token, run_only) -> the JitFunction it names in this process


def _reduce_jitted(jitted):
    name, module = getattr(jitted, "__qualname__", None), sys.modules.get(getattr(jitted, "__module__", None))
    if module is not None and module.__name__ != "__main__" and _attribute(module, name) is jitted:
        return _by_name, (module.__name__, name)   # ``@jit`` at module level: one per process already
    token = jitted.__dict__.setdefault("_npcompile_token", uuid.uuid4().hex)
    _BY_TOKEN.setdefault((token, jitted.run_only), jitted)
    settings = dict(fullgraph=jitted.fullgraph, backend=jitted.backend, dynamic=jitted.dynamic,
                    device=jitted.device, options=jitted.options, compile=jitted.compile)
    return _rebuild, (token, jitted.fn, settings, jitted.run_only)


def _by_name(module, qualname):
    return _attribute(importlib.import_module(module), qualname)


def _attribute(owner, qualname):
    for part in (qualname or "").split("."):
        owner = getattr(owner, part, None)
    return owner


def _rebuild(token, fn, settings, run_only=False):
    jitted = _BY_TOKEN.get((token, run_only))
    if jitted is None:
        jitted = jit(fn, **settings)
        jitted._npcompile_token = token
        jitted = _BY_TOKEN[(token, run_only)] = run(jitted) if run_only else jitted
    return jitted


copyreg.pickle(JitFunction, _reduce_jitted)
