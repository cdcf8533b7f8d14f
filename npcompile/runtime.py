"""The call path of a jitted function: bind arguments, find the cache entry whose guards
pass, feed its compiled graph, and finish the result; on a miss, trace and compile.

A hot call is: one generated guard function, one generated input extractor, the
compiled callable, one generated output finisher.
"""
import inspect
import logging
import time
import warnings

import torch

from . import config
from .backends import resolve
from .capture import capture
from .errors import GraphBreak, Unsupported
from .tracer.interpreter import _arg_count

log = logging.getLogger("npcompile")


class BreakRecord:
    """One place where tracing stopped, for explain() and the logs."""

    def __init__(self, brk):
        self.reason = brk.reason
        self.hint = brk.hint
        self.user_stack = brk.stack
        filename, lineno, _ = brk.stack[-1] if brk.stack else ("<unknown>", 0, "")
        self.filename, self.lineno = filename, lineno
        import linecache
        self.source_line = linecache.getline(filename, lineno).strip()
        self.message = brk.user_message()

    def __repr__(self):
        return f"{self.reason} ({self.filename}:{self.lineno})"


class CompiledEntry:
    def __init__(self, guard, extract, compiled, finish, capture_, times):
        self.guard = guard
        self.extract = extract
        self.compiled = compiled
        self.finish = finish
        self.capture = capture_
        self.times = times

    def run(self, fn, L, args, kwargs):
        return self.finish(L, self.compiled(*self.extract(L)))


class FallbackEntry:
    """Inputs for which tracing stopped: the function runs as written, in real NumPy.
    Its guards are those collected before the stop, which is all the stop depended on."""

    def __init__(self, guard, record):
        self.guard = guard
        self.record = record

    def run(self, fn, L, args, kwargs):
        return fn(*args, **kwargs)


def _extractor(inputs, globals_dict, closure):
    """Generated ``extract(L)``: the graph's input tensors from the call's arguments."""
    items = ", ".join(f"_t({inp.source.expr})" if not isinstance(inp.example, torch.Tensor)
                      else inp.source.expr for inp in inputs)
    source = f"def extract(L):\n    return ({items}{',' if len(inputs) == 1 else ''})\n"
    namespace = {"_t": torch.from_numpy, "G": globals_dict, "C": closure,
                 "B": __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)}
    exec(compile(source, "<npcompile inputs>", "exec"), namespace)
    return namespace["extract"]


class JitFunction:
    """What ``npcompile.jit(fn)`` returns: callable like ``fn``, compiled per guard set."""

    def __init__(self, fn, fullgraph=False, backend="inductor", dynamic=None, device=None,
                 options=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.backend = resolve(backend)
        self.dynamic = dynamic
        self.device = device
        self.options = dict(options or {})
        self.entries = []
        self.breaks = []
        self.compile_count = 0
        code = fn.__code__
        self._arg_names = code.co_varnames[:_arg_count(code)]
        self._simple = not (code.co_flags & 0x0C) and not code.co_kwonlyargcount
        self._argcount = code.co_argcount
        self._signature = inspect.signature(fn)
        self._limit_warned = False
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "fn")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = fn.__doc__

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        import types
        return types.MethodType(self, obj)

    def bind(self, args, kwargs):
        """Argument values in the code's parameter order (what sources ``L[i]`` index)."""
        if self._simple and not kwargs and len(args) == self._argcount:
            return args
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return [bound.arguments[name] for name in self._arg_names]

    def __call__(self, *args, **kwargs):
        L = self.bind(args, kwargs)
        for entry in self.entries:
            if entry.guard(L):
                return entry.run(self.fn, L, args, kwargs)
        return self._miss(L, args, kwargs)

    def _miss(self, L, args, kwargs):
        if len(self.entries) >= config.cache_size_limit:
            if not self._limit_warned:
                self._limit_warned = True
                warnings.warn(f"npcompile: {self.__qualname__} hit config.cache_size_limit "
                              f"({config.cache_size_limit}); further new inputs run uncompiled",
                              stacklevel=3)
            return self.fn(*args, **kwargs)
        globals_dict, closure = self.fn.__globals__, self.fn.__closure__
        try:
            cap = capture(self.fn, L, self._arg_names)
        except GraphBreak as brk:
            if self.fullgraph:
                raise Unsupported(brk.user_message()) from None
            record = BreakRecord(brk)
            self.breaks.append(record)
            if "graph_breaks" in config.log_switches:
                log.warning("graph break: %s", record.message)
            guard = brk.tracer_guards.compile(globals_dict, closure)
            self.entries.append(FallbackEntry(guard, record))
            return self.fn(*args, **kwargs)
        except Exception as exc:
            if self.fullgraph or not hasattr(exc, "tracer_guards"):
                raise
            guard = exc.tracer_guards.compile(globals_dict, closure)
            record = BreakRecord(GraphBreak(f"tracing raised {type(exc).__name__}: {exc}"))
            self.breaks.append(record)
            self.entries.append(FallbackEntry(guard, record))
            return self.fn(*args, **kwargs)
        start = time.perf_counter()
        guard = cap.guards.compile(globals_dict, closure)
        extract = _extractor(cap.inputs, globals_dict, closure)
        finish = cap.output_plan.compile(globals_dict, closure, cap.tensor_outputs)
        guard_seconds = time.perf_counter() - start
        start = time.perf_counter()
        compiled = self.backend(cap.gm, cap.fake_inputs) if cap.op_count else cap.gm
        backend_seconds = time.perf_counter() - start
        self.compile_count += 1
        entry = CompiledEntry(guard, extract, compiled, finish, cap,
                              {"trace": cap.trace_seconds, "guards": guard_seconds,
                               "backend": backend_seconds})
        self.entries.append(entry)
        return entry.run(self.fn, L, args, kwargs)

