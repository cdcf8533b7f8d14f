"""The call path of a jitted function.

A call runs a chain of *segments*. The first starts at the function's entry; each one
that ends at a graph break hands back the real frame stack, the runtime runs the
breaking instruction for real (``RealRunner``) and continues with the segment that
starts there, cached by resume point ``(code, offset)`` per frame and guarded on the
state. A hot call with no breaks is one generated function per cache entry (guards,
inputs, the compiled graph, NumPy results) tried in turn.
"""
import inspect
import linecache
import time
import types
import warnings
import weakref

import numpy
import torch

from .. import config, diagnostics
from ..backends import resolve
from ..dynamic import dynamic_marks
from ..errors import BackendFailed, GraphBreak, RerunUncompiled, Unsupported
from ..trace.capture import capture, mutated_inputs
from ..trace.frame import Frame
from ..trace.interpreter import arg_count, bind_arguments, is_user_function
from ..trace.jitted import Jitted
from ..trace.outputs import Resume
from ..trace.real import RealRunner
from ..trace.resident import DeviceArray
from . import devices

_ALL = weakref.WeakSet()   # every JitFunction, for reset()


def _failed_guard(entries, L, fn):
    """Why the newest entry does not fit ``L``: its first failing guard, described."""
    entry = entries[-1]
    guards = entry.capture.guards if entry.compiled is not None else entry.guards
    return guards.first_failure(L, fn.__globals__, fn.__closure__)


def _run_on_shim(fn, args, kwargs):
    """Debug mode: ``fn`` run eagerly with NumPy swapped for the shim in its globals."""
    import torch_numpy_shim as shim
    from ..trace.interpreter import with_shim_globals

    def convert(value):
        return shim.asarray(value) if isinstance(value, numpy.ndarray) else value

    result = with_shim_globals(fn)(*[convert(a) for a in args], **{k: convert(v) for k, v in kwargs.items()})
    return shim.to_numpy(result)


class BreakRecord:
    """One place where tracing stopped, for explain() and the logs."""

    def __init__(self, brk):
        self.reason = brk.reason
        self.hint = brk.hint
        self.user_stack = brk.stack
        self.filename, self.lineno, _ = brk.stack[-1] if brk.stack else ("<unknown>", 0, "")
        self.source_line = linecache.getline(self.filename, self.lineno).strip()
        self.message = brk.user_message()
        self.resumed = brk.resumable

    def __repr__(self):
        return f"{self.reason} ({self.filename}:{self.lineno})"


class CompiledEntry:
    """A captured segment: its guards, its compiled graph, and ``fast``, the generated
    function that checks the guards, feeds the graph and builds the results."""

    def __init__(self, guard, compiled, capture_, times, break_record, write=None, transfers=0):
        self.guard = guard
        self.compiled = compiled
        self.capture = capture_
        self.times = times
        self.break_record = break_record    # the break this segment stops before, or None
        self.write = write                  # writes mutated NumPy inputs back (off the CPU)
        self.transfers = transfers          # host<->device copies one run of this segment makes
        self.fast = None                    # set once the entry exists (it refers to the entry)
        self._mutates_inputs = None

    def run(self, L, fallback):
        """Run for state ``L`` (whose guards passed); ``fallback`` runs it as written."""
        try:
            result = self.fast(L)
        except RerunUncompiled:
            return fallback()
        if result is MISS:   # a guard rejecting what it was built from: a bug, never a wrong result
            warnings.warn("npcompile: a graph's guards reject the call it was compiled for (a bug: "
                          "please report it); running the call uncompiled", stacklevel=3)
            return fallback()
        return result

    def recover(self, exc, fallback):
        """The graph raised while running (e.g. a singular matrix, known only from the
        data). If it wrote into no input, run the segment as written instead: NumPy
        raises its own exception, and the user's try/except sees it as in plain Python.
        Otherwise re-raise, as NumPy's class where one corresponds."""
        if not self.mutates_inputs:
            if fallback is None:
                raise RerunUncompiled() from exc
            return fallback()
        if isinstance(exc, torch._C._LinAlgError):
            raise numpy.linalg.LinAlgError(str(exc)) from exc
        raise exc

    @property
    def mutates_inputs(self):
        if self._mutates_inputs is None:
            self._mutates_inputs = bool(mutated_inputs(self.capture.gm))
        return self._mutates_inputs


class FallbackEntry:
    """States for which tracing cannot go on: the rest of the call runs in real Python
    and NumPy. Its guards are those collected before the stop, which is all the stop
    depended on."""

    compiled = None
    fast = None

    def __init__(self, guard, record, guards):
        self.guard = guard
        self.break_record = record
        self.guards = guards

    def run(self, L, fallback):
        return fallback()


def _input_tuple(inputs):
    """Source of a tuple expression: the graph's input tensors from the segment's inputs."""
    items = ", ".join(inp.source.expr if isinstance(inp.example, (torch.Tensor, int))
                      else f"{inp.source.expr}.tensor" if isinstance(inp.example, DeviceArray)
                      else f"_t({inp.source.expr})" for inp in inputs)
    return f"({items}{',' if len(inputs) == 1 else ''})"


def _to_tensor(device):
    return torch.from_numpy if device.type == "cpu" else (lambda a: devices.host_to_device(a, device))


MISS = object()


def _fast_path(entry, globals_dict, closure, device):
    """Generated ``fast(L)`` for the hot path: guard, inputs, graph and results in one
    function (MISS when a guard fails)."""
    cap = entry.capture
    inputs = _input_tuple(cap.inputs)
    boxed = getattr(entry.compiled, "boxed", None)
    call = f"boxed([{inputs[1:-1].rstrip(',')}])" if boxed is not None and entry.write is None \
        else f"compiled(*{inputs})"
    lines = ["try:",
             f"    if not ({cap.guards.expression()}):",
             "        return MISS",
             "except Exception:",
             "    return MISS"]
    if entry.write is not None:
        lines.append(f"tensors = {inputs}")
        call = "compiled(*tensors)"
    lines += ["try:", f"    out = {call}", "except Exception as exc:", "    return entry.recover(exc, None)"]
    if entry.write is not None:
        lines.append("entry.write(L, tensors)")
    lines += cap.output_plan.body()
    source = "def fast(L):\n" + "".join(f"    {line}\n" for line in lines)
    namespace = cap.guards.namespace(globals_dict, closure)
    namespace.update(cap.output_plan.namespace(globals_dict, closure, cap.tensor_outputs))
    namespace.update(MISS=MISS, compiled=entry.compiled, boxed=boxed, entry=entry, _t=_to_tensor(device))
    exec(compile(source, "<npcompile call>", "exec"), namespace)
    fast = namespace["fast"]
    fast.source = source
    return fast


def _transfers(cap, device):
    """Copies between host and device per run: NumPy inputs in, NumPy results out,
    mutated inputs written back (none when computing on the CPU). Arrays that stay on
    the device across a break are not copied; the runtime counts those real code needs."""
    if device.type == "cpu" or cap.tensor_outputs:
        return 0
    numpy_inputs = [i for i, inp in enumerate(cap.inputs) if isinstance(inp.example, numpy.ndarray)]
    written_back = set(mutated_inputs(cap.gm)) & set(numpy_inputs)
    return len(numpy_inputs) + cap.output_plan.array_outputs + cap.output_plan.host_copies + len(written_back)


def _writer(cap, globals_dict, closure, device):
    """Generated ``write(L, tensors)``: mutated NumPy inputs updated from their device
    copies (None on the CPU, where the graph writes into the caller's memory)."""
    if device.type == "cpu":
        return None
    lines = [f"    _back({cap.inputs[i].source.expr}, tensors[{i}])" for i in mutated_inputs(cap.gm)
             if isinstance(cap.inputs[i].example, numpy.ndarray)]
    if not lines:
        return None
    namespace = {"_back": devices.write_back, "G": globals_dict, "C": closure}
    exec(compile("def write(L, tensors):\n" + "\n".join(lines) + "\n", "<npcompile write-back>", "exec"),
         namespace)
    return namespace["write"]


class JitFunction(Jitted):
    """What ``npcompile.jit(fn)`` returns: callable like ``fn``, compiled per guard set."""

    def __init__(self, fn, fullgraph=False, backend="inductor", dynamic=None, device=None,
                 options=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.backend = resolve(backend)
        self.dynamic = dynamic
        self.device = device
        self.options = dict(options or {})
        self.entries = []            # segments starting at the function's entry
        self.resume_entries = {}     # resume point -> segments starting there
        self.breaks = []             # every BreakRecord met while compiling
        self.events = None           # when a list: (kind, entry) of segments run, for explain()
        code = fn.__code__
        self._arg_names = code.co_varnames[:arg_count(code)]
        self._simple = not (code.co_flags & 0x0C) and not code.co_kwonlyargcount
        self._argcount = code.co_argcount
        self._signature = inspect.signature(fn)
        self._limit_warned = False
        self._callees = {}           # user functions called at breaks, compiled in turn
        self._device = None if device is None else torch.device(device)
        self._call_device = torch.device("cpu")
        self.device_entries = {}     # device -> entries, for calls that compute off the CPU
        self.dynamic_dims = {}       # input source -> dims that changed size (automatic dynamic)
        self.dynamic_ints = set()    # sources of ints that changed value (traced as symbols)
        self.run_only = False        # use what is compiled, never compile (npcompile.run)
        self.run_only_misses = 0
        self.recompile_reasons = []
        self.host_copies = 0         # device-resident arrays real code needed at breaks
        _ALL.add(self)

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def bind(self, args, kwargs):
        """Argument values in the code's parameter order (what sources ``L[i]`` index)."""
        if self._simple and not kwargs and len(args) == self._argcount:
            return args
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return [bound.arguments[name] for name in self._arg_names]

    @property
    def compile_count(self):
        every = self.entries + [e for entries in self.resume_entries.values() for e in entries]
        return sum(1 for e in every if e.compiled is not None)

    def __call__(self, *args, **kwargs):
        if self._device is None and not torch._C._len_torch_function_stack():
            entries, self._call_device = self.entries, devices.CPU   # the hot path
        else:
            entries = self._entries_for(self._device or devices.default_device())
        if not config.trace_numpy or config.eager_shim:
            return self.fn(*args, **kwargs) if not config.trace_numpy else _run_on_shim(self.fn, args, kwargs)
        L = args if not kwargs and self._simple and len(args) == self._argcount else self.bind(args, kwargs)
        for entry in entries:   # inline for speed; fallbacks and explain() take _segment
            if entry.fast is not None and self.events is None:
                try:
                    result = entry.fast(L)
                except RerunUncompiled:
                    return self.fn(*args, **kwargs)
                if result is not MISS:
                    break
        else:
            result = self._segment(entries, L, None, lambda: self.fn(*args, **kwargs))
        while type(result) is Resume:
            result = self._resume(result.frames)
        return result

    def _entries_for(self, device):
        self._call_device = device
        if device.type == "cpu":
            return self.entries
        devices.ensure_available(device)
        return self.device_entries.setdefault(device, [])

    def _resume(self, frames):
        runner = RealRunner(frames, self._call_at_break)
        try:
            runner.run_break()
            key = (self._call_device, tuple((f.code, f.ip) for f in frames))
            entries = self.resume_entries.setdefault(key, [])
            return self._segment(entries, frames, frames, runner.finish_frames)
        finally:
            self.host_copies += runner.host_copies

    def _segment(self, entries, L, resume_frames, fallback):
        for entry in entries:
            if entry.guard(L):
                if self.events is not None:
                    self.events.append(entry)
                return entry.run(L, fallback)
        reason = _failed_guard(entries, L, self.fn) if entries else None
        if self.run_only:
            self.run_only_misses += 1
            return fallback()
        if len(entries) >= config.cache_size_limit:
            if not self._limit_warned:
                self._limit_warned = True
                warnings.warn(f"npcompile: {self.fn.__qualname__} hit config.cache_size_limit "
                              f"({config.cache_size_limit}); the guard that keeps failing: {reason}. "
                              "Further new inputs run uncompiled.", stacklevel=4)
            return fallback()
        if reason is not None:
            self._grow_dynamic_dims(entries[-1], L)
            self.recompile_reasons.append(reason)
            diagnostics.log_once("recompiles", (self.fn, reason, len(entries)),
                                 "recompiling %s: guard failed: %s", self.fn.__qualname__, reason)
            diagnostics.notify("recompile", self, reason)
        entry = self._compile(L, resume_frames)
        entries.append(entry)
        if self.events is not None:
            self.events.append(entry)
        return entry.run(L, fallback)

    def _grow_dynamic_dims(self, entry, L):
        """Automatic dynamic shapes: dims whose size changed since the newest entry was
        compiled are traced as dynamic from now on, so later sizes reuse one graph."""
        if self.dynamic is not None or not config.automatic_dynamic_shapes or entry.compiled is None:
            return
        namespace = {"L": L, "G": self.fn.__globals__, "C": self.fn.__closure__}
        for expression, old in entry.capture.int_examples.items():
            try:
                now = eval(expression, namespace)
            except Exception:
                continue
            if type(now) is int and now != old:
                self.dynamic_ints.add(expression)
        for inp in entry.capture.inputs:
            if isinstance(inp.example, int):
                continue
            try:
                now = eval(inp.source.expr, namespace)
            except Exception:
                continue
            old = inp.example
            if getattr(now, "ndim", None) == old.ndim and getattr(now, "dtype", None) == old.dtype:
                changed = {d for d in range(old.ndim) if now.shape[d] != old.shape[d]}
                if changed:
                    self.dynamic_dims.setdefault(inp.source.expr, set()).update(changed)

    def dims_to_trace_dynamic(self, source, example):
        """Which dims of an input the next trace makes dynamic (see ``dynamic=``)."""
        marked = dynamic_marks.get(example)
        if self.dynamic is True:
            return set(range(example.ndim)) - marked.static
        if self.dynamic is False:
            return marked.dynamic
        return (self.dynamic_dims.get(source.expr, set()) | marked.dynamic) - marked.static

    def _record_break(self, brk):
        record = BreakRecord(brk)
        self.breaks.append(record)
        diagnostics.notify("break", self, record)
        diagnostics.log_once("graph_breaks", (record.filename, record.lineno, record.reason),
                             "graph break in %s: %s", self.fn.__qualname__, record.message)
        return record

    def _compile(self, L, resume_frames):
        globals_dict, closure = self.fn.__globals__, self.fn.__closure__
        try:
            cap = capture(self.fn, L, self._arg_names, resume_frames, self._call_device, self.fullgraph,
                          self.dims_to_trace_dynamic, frozenset(self.dynamic_ints) if self.dynamic is not False else frozenset())
        except GraphBreak as brk:
            if brk.fatal or self.fullgraph:
                raise Unsupported(brk.user_message()) from None
            return FallbackEntry(brk.tracer_guards.compile(globals_dict, closure), self._record_break(brk),
                                 brk.tracer_guards)
        except Exception as exc:
            if self.fullgraph or not hasattr(exc, "tracer_guards"):
                raise
            brk = GraphBreak(f"tracing raised {type(exc).__name__}: {exc}")
            return FallbackEntry(exc.tracer_guards.compile(globals_dict, closure), self._record_break(brk),
                                 exc.tracer_guards)
        record = self._record_break(cap.ends_in_break) if cap.ends_in_break is not None else None
        start = time.perf_counter()
        compiled = self._run_backend(cap) if cap.op_count else cap.gm
        backend_seconds = time.perf_counter() - start
        start = time.perf_counter()
        cap.add_shape_guards()
        guard = cap.guards.compile(globals_dict, closure)
        write = _writer(cap, globals_dict, closure, self._call_device)
        times = {"trace": cap.trace_seconds, "guards": time.perf_counter() - start, "backend": backend_seconds}
        diagnostics.record_compile_times(self.fn.__qualname__, times)
        diagnostics.log_once("guards", guard, "guards of %s:\n%s", self.fn.__qualname__, guard.source)
        diagnostics.log_once("graph_code", cap.gm, "graph of %s:\n%s", self.fn.__qualname__, cap.gm.code)
        diagnostics.notify("compile", self, times)
        entry = CompiledEntry(guard, compiled, cap, times, record, write, _transfers(cap, self._call_device))
        entry.fast = _fast_path(entry, globals_dict, closure, self._call_device)
        diagnostics.log_once("output_code", entry.fast, "output code of %s:\n%s", self.fn.__qualname__,
                             entry.fast.source)
        return entry

    def _run_backend(self, cap):
        """The backend on the captured graph. Compiling happens before any input is
        touched, so a failure here never leaves an input half-mutated."""
        try:
            return self.backend(cap.gm, cap.fake_inputs)
        except Exception as exc:
            name = getattr(self.backend, "__name__", repr(self.backend))
            if not config.suppress_errors:
                raise BackendFailed(f"backend {name!r} failed on a graph of {self.fn.__qualname__}: "
                                    f"{type(exc).__name__}: {exc}\n(set npcompile.config.suppress_errors "
                                    "= True to run such graphs eagerly instead)") from exc
            warnings.warn(f"npcompile: backend {name!r} failed on a graph of {self.fn.__qualname__} "
                          f"({type(exc).__name__}: {exc}); running that graph eagerly", stacklevel=5)
            return cap.gm


    def _call_at_break(self, fn, args, kwargs):
        """A call made for real at a graph break. A user function is itself compiled (as
        a frame hook would do); a ``disable(recursive=False)`` function runs its own
        frame for real while the functions it calls are compiled."""
        mode = getattr(fn, "_npcompile_disable", None)
        if mode == "frame":
            inner = fn._npcompile_original
            frames = [Frame(inner.__code__, inner.__globals__, inner, bind_arguments(inner, args, kwargs))]
            return RealRunner(frames, self._call_at_break).finish_frames()
        if mode is None and is_user_function(fn):
            compiled = self._callees.get(fn)
            if compiled is None:
                compiled = self._callees[fn] = JitFunction(fn, backend=self.backend)
            return compiled(*args, **kwargs)
        return fn(*args, **kwargs)
