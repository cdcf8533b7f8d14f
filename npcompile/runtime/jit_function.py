"""The call path of a jitted function.

A call runs a chain of *segments*. The first starts at the function's entry; each one
that ends at a graph break hands back the real frame stack, the runtime runs the
breaking instruction for real (``RealRunner``) and continues with the segment that
starts there, cached by resume point ``(code, offset)`` per frame and guarded on the
state. A hot call with no breaks is one generated function per cache entry (guards,
inputs, the compiled graph, NumPy results) tried in turn.

Calls may come from any thread. Tracing and compiling are not thread-safe in torch
(make_fx patches module globals), so a miss compiles under one process-wide lock and
first looks again for an entry another thread may have added meanwhile; hits take no lock.
A failure anywhere in the compiler runs that part uncompiled (see ``failures``).
"""
import importlib.util
import inspect
import linecache
import re
import threading
import time
import types
import weakref

import numpy
import torch

from .. import config, controls, diagnostics, native, route_trials
from ..backends import resolve
from ..dynamic import dynamic_marks
from ..errors import BackendFailed, GraphBreak, RerunUncompiled, Unsupported
from ..trace import loops
from ..trace.capture import TraceStop, capture, entry_roots, resume_roots
from ..trace.frame import Frame, Resume
from ..trace.guards import Guards
from ..trace.interpreter import arg_count, bind_arguments, is_user_function
from ..trace.jitted import Jitted
from ..trace.real import RealRunner, call_in_frame
from ..trace.resident import DeviceArray
from . import background, devices, failures, layouts, read_only, speed_trials, staging
from .break_steps import quick_step
from .entries import MISS, CompiledEntry, FallbackEntry
from .entries import transfers as _transfers
from .entries import writer as _writer
from .graph_effects import GraphEffects

_ALL = weakref.WeakSet()   # every JitFunction, for reset()
_COMPILE_LOCK = threading.RLock()


def _failed_guard(entries, L, fn):
    """Why the newest entry does not fit ``L``: its first failing guard, described."""
    entry = entries[-1]
    guards = entry.capture.guards if entry.compiled is not None else entry.guards
    return guards.first_failure(L, fn.__globals__, fn.__closure__)


def _c_contiguous(example):
    if isinstance(example, numpy.ndarray):
        return example.flags.c_contiguous
    return example.is_contiguous() if hasattr(example, "is_contiguous") else True


def _array_meta(value):
    """(ndim, dtype, shape) of an array input; a held tensor's with NumPy's dtype, as the
    ndarray it stands for (a loop's slot holds either form: held_inputs)."""
    if type(value) is DeviceArray:
        tensor = value.tensor
        try:
            dtype = torch.empty(0, dtype=tensor.dtype).numpy().dtype
        except (TypeError, RuntimeError):
            dtype = tensor.dtype
        return tensor.ndim, dtype, tuple(tensor.shape)
    return getattr(value, "ndim", None), getattr(value, "dtype", None), getattr(value, "shape", None)


def _first_fitting(entries, L):
    for entry in entries:
        if entry.guard(L):
            return entry
    return None


def _root_guards(roots):
    """Guards on the types (and arrays' layouts) of a segment's state, for a fallback
    whose failure left no guards of its own."""
    guards = Guards()
    for value, source in roots:
        if isinstance(value, (numpy.ndarray, torch.Tensor)):
            guards.array_meta(source, value)
        else:
            guards.type_is(source, value)
    return guards


def _writes_read_only(cap, L, globals_dict, closure):
    """Whether the graph writes into a NumPy input that is read-only in state ``L``."""
    namespace = dict(cap.guards.namespace(globals_dict, closure), L=L)
    try:
        return any(not eval(cap.inputs[i].source.expr, namespace).flags.writeable
                   for i in GraphEffects(cap.gm).written if isinstance(cap.inputs[i].example, numpy.ndarray))
    except Exception:   # a source that no longer evaluates: let the guards decide
        return False


def _run_on_shim(fn, args, kwargs):
    """Debug mode: ``fn`` run eagerly with NumPy swapped for the shim in its globals."""
    import torch_numpy_shim as shim

    from ..trace.interpreter import with_shim_globals

    def convert(value):
        return shim.asarray(value) if isinstance(value, numpy.ndarray) else value

    result = with_shim_globals(fn)(*[convert(a) for a in args], **{k: convert(v) for k, v in kwargs.items()})
    return shim.to_numpy(result)


#: Calls between readings of the busy cores for the speed verdicts' condition (a power of
#: two); a change of torch's thread count is seen on the first call under it.
LOAD_EVERY_CALLS = 32


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


class _ResumeTable(dict):
    """Resume point ``(device, ((code, offset), ...))`` -> the segments that start there.
    A key's hash hashes each code object (its bytecode and constants: 0.2-0.5 us, paid per
    iteration of a loop the runtime drives), so single-frame points are also found by the
    code's id (``sites``: (id(code), offset) -> (code, device, segments); holding the code
    keeps its id unique). ``clear`` (npcompile.reset) empties both."""

    def __init__(self):
        super().__init__()
        self.sites = {}

    def entries_at(self, frames, device):
        key = (device, tuple((f.code, f.ip) for f in frames))
        entries = self.get(key)
        if entries is None:
            entries = self.setdefault(key, [])
        if len(frames) == 1:
            frame = frames[0]
            self.sites[id(frame.code), frame.ip] = (frame.code, device, entries)
        return entries

    def clear(self):
        super().clear()
        self.sites.clear()


_TRANSIENT = object()   # _new_entry: this state runs uncompiled this once, nothing cached


class JitFunction(Jitted):
    """What ``npcompile.jit(fn)`` returns: callable like ``fn``, compiled per guard set."""

    def __init__(self, fn, fullgraph=False, backend="inductor", dynamic=None, device=None,
                 options=None, compile="blocking"):
        if compile not in ("blocking", "background"):
            raise ValueError(f"compile must be 'blocking' or 'background', not {compile!r}")
        self.fn = fn
        self.fullgraph = fullgraph
        self.compile = compile       # "background": misses run as written while a worker compiles
        self.native_refusals = {}    # call key -> why no native kernel
        self._backend_name = backend
        self.backend = resolve(backend)
        self.dynamic = dynamic
        self.device = device
        self.options = dict(options or {})
        self.entries = []            # segments starting at the function's entry
        self.resume_entries = _ResumeTable()   # resume point -> segments starting there
        self.breaks = []             # every BreakRecord met while compiling
        self.events = None           # when a list: (kind, entry) of segments run, for explain()
        self._adopt_code()
        self._limit_warned = False
        self._callees = {}           # user functions called at breaks, compiled in turn (shared
        #                              with those callees, so recursion reuses their caches)
        self._device = None if device is None else torch.device(device)
        self.device_entries = {}     # device -> entries, for calls that compute off the CPU
        self.dynamic_dims = {}       # input source -> dims that changed size (automatic dynamic)
        self.dynamic_ints = set()    # sources of ints that changed value (traced as symbols)
        self.run_only = False        # use what is compiled, never compile (npcompile.run)
        self.run_only_misses = 0
        self.recompile_reasons = []
        self.host_copies = 0         # device-resident arrays real code needed at breaks
        self._graphs = 0             # graphs captured so far, to name them in warnings
        self._computed = frozenset()  # Resume.computed of the state being resumed now
        self.trials = None           # speed_trials.Trials while an entry's speed is under trial
        self.trial_condition = None  # speed_trials.condition() of the verdicts in force (a new one reopens them)
        self._trial_threads = None   # its thread count, compared on every call
        self._calls = 0              # calls counted to read the load every LOAD_EVERY_CALLS
        self.verdicts = speed_trials.Verdicts()   # the verdicts under the conditions met before
        self.speed_decisions = []    # entries retired to "as written": NumPy measured faster
        _ALL.add(self)

    def _adopt_code(self):
        """What the call path reads from ``fn.__code__`` (parameter names and kinds, the
        binder, whether loops may go native), taken from the code ``fn`` has now."""
        fn = self.fn
        code = self._code = fn.__code__
        self._arg_names = code.co_varnames[:arg_count(code)]
        self._simple = not (code.co_flags & 0x0C) and not code.co_kwonlyargcount
        self._argcount = code.co_argcount
        self._binder = _binder(fn)
        # native loop kernels (npcompile.native) for element-indexing loops, on the CPU
        self._native = [] if _wants_native(fn, self._backend_name, self.fullgraph, self.device) else None

    def _code_changed(self):
        """``fn.__code__`` was assigned since the entries were compiled: every entry, resume
        point, native kernel and what was learnt about the old code's values describes
        code that no longer runs. Forgotten in place (a ``npcompile.run`` view shares
        these tables), as ``npcompile.reset`` forgets them; the new code compiles afresh."""
        with _COMPILE_LOCK:
            if self.fn.__code__ is self._code:
                return
            for table in (self.entries, self.resume_entries, self.device_entries, self.dynamic_dims,
                          self.dynamic_ints, self.native_refusals, self.speed_decisions):
                table.clear()
            self.trials = self.trial_threads = None
            reason = f"{self.fn.__qualname__}.__code__ was assigned"
            self.recompile_reasons.append(reason)
            diagnostics.log_once("recompiles", (self.fn, reason, self.fn.__code__), "recompiling %s: %s",
                                 self.fn.__qualname__, reason)
            diagnostics.notify("recompile", self, reason)
            self._adopt_code()   # a fresh list of native kernels for the new code

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def bind(self, args, kwargs):
        """Argument values in the code's parameter order (what sources ``L[i]`` index),
        bound by Python itself (see ``_binder``): the function's defaults as they are
        now, and Python's own TypeError for a call that does not fit."""
        if self._simple and not kwargs and len(args) == self._argcount:
            return args
        binder, fn = self._binder, self.fn
        binder.__defaults__, binder.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
        try:
            return binder(*args, **kwargs)
        except TypeError as exc:
            raise exc.with_traceback(None) from None

    @property
    def compile_count(self):
        every = self.entries + [e for entries in self.resume_entries.values() for e in entries]
        every += [inner for e in every if isinstance(e, staging.StagedEntry) for inner in e.entries]
        return sum(1 for e in every if e.compiled is not None) + len(self._native or ())

    @property
    def settled(self):
        """Whether no speed trial of this function and no route trial of any graph is under
        way: its calls from now on run as decided (benchmarks time such steady calls)."""
        return self.trials is None and not route_trials.in_progress()

    def __call__(self, *args, **kwargs):
        if self.fn.__code__ is not self._code:   # one identity test per call (see _code_changed)
            self._code_changed()
        if self._device is None and not torch._C._len_torch_function_stack():
            entries, device = self.entries, devices.CPU   # the hot path
        else:
            device = self._device or devices.default_device()
            entries = self._entries_for(device)
        if not config.trace_numpy or config.eager_shim:
            return self.fn(*args, **kwargs) if not config.trace_numpy else _run_on_shim(self.fn, args, kwargs)
        native_path = self._native is not None and device is devices.CPU
        if native_path:
            for kernel in self._native:
                if kernel.guard(args, kwargs):
                    return kernel(*args, **kwargs)
        L = args if not kwargs and self._simple and len(args) == self._argcount else self.bind(args, kwargs)
        if self.trial_condition is not None:   # the load is read every few calls: it costs ~0.1 us
            self._calls += 1
            if ((self._calls & LOAD_EVERY_CALLS - 1 == 0 or torch.get_num_threads() != self._trial_threads)
                    and speed_trials.condition() != self.trial_condition):
                self._reopen_trials()
        if self.trials is not None and device is devices.CPU and self.events is None:
            return self._trial_call(entries, L, args, kwargs, device, native_path)
        return self._run_entries(entries, L, args, kwargs, device, native_path)

    def _reopen_trials(self):
        """Speed verdicts measured under another condition (thread count, busy cores): keep
        them for that one, take those decided under this one before, and decide again
        for the rest (speed_trials' docstring)."""
        applicable = [e for e in self.entries if speed_trials.applies(self, e)]
        self.trials = self.trials or speed_trials.Trials(self.fn, self._simple, self.speed_decisions)
        self.verdicts.save(self.trial_condition, self.trials, applicable)
        self._set_trial_condition()
        undecided = self.verdicts.restore(self.trial_condition, self.trials, applicable)
        speed_trials.reopen(self.trials, undecided, self.trial_condition)
        if not self.trials.pending:
            self.trials = None

    def _set_trial_condition(self):
        self.trial_condition = speed_trials.condition()
        self._trial_threads = speed_trials.threads_of(self.trial_condition)

    def _trial_call(self, entries, L, args, kwargs, device, native_path):
        """A call while an entry is under a speed trial (``speed_trials``); one that no
        entry under trial serves may still take a native kernel."""
        trials = self.trials
        entry = _first_fitting(entries, L)
        if entry not in trials.pending:
            return self._run_entries(entries, L, args, kwargs, device, native_path)
        try:
            return trials.call(entry, lambda: self._run_entries(entries, L, args, kwargs, device, False),
                               lambda: self.fn(*args, **kwargs))
        finally:
            if not trials.pending:
                self.trials = None

    def _run_entries(self, entries, L, args, kwargs, device, native_path):
        for entry in entries:   # inline for speed; fallbacks and explain() take _segment
            fast = entry.fast
            if fast is not None and self.events is None:
                try:
                    result = fast(L)
                except RerunUncompiled as exc:
                    rerun = exc   # rerun after the clause: inside it, its errors get this as context
                else:
                    if result is not MISS:
                        break
                    continue
                return entry.rerun(rerun, lambda: self.fn(*args, **kwargs))
        else:
            # only a call no entry serves tries for a native kernel: a function refused for
            # calls like this one pays nothing once its traced entries are compiled
            background_native = native_path and self.compile == "background"   # tried by the worker
            kernel = self._native_kernel(args, kwargs) if native_path and not background_native else None
            if kernel is not None:
                return kernel(*args, **kwargs)
            result = self._segment(entries, L, None, lambda: self.fn(*args, **kwargs), device,
                                   native_call=(args, kwargs) if background_native else None)
        while type(result) is Resume:
            result = self._resume(result.frames, device, result.computed)
        return result

    def _native_kernel(self, args, kwargs):
        """A native loop kernel for this call (npcompile.native), compiled now, or None
        when the function was refused for calls like it (the refusal is remembered)."""
        key = native.call_key(self.fn, args, kwargs)
        if key is None or key in self.native_refusals or self.events is not None:
            return None
        kernel = native.try_compile(self.fn, args, kwargs)
        if not kernel:
            self.native_refusals[key] = kernel.reason
            return None
        self._native.append(kernel)
        diagnostics.record_compile_times(self.fn.__qualname__, {"native": kernel.compile_seconds})
        return kernel

    def _entries_for(self, device):
        if device.type == "cpu":
            return self.entries
        devices.ensure_available(device)
        return self.device_entries.setdefault(device, [])

    def _resume(self, frames, device, computed=frozenset()):
        """Run the instruction the segment stopped before, then the segment that starts
        after it. A loop's condition jump or back edge (``break_steps``) is taken without
        the general runner; one is made only when real code must run."""
        runner = None if quick_step(frames) else RealRunner(frames, self._call_at_break)
        try:
            if runner is not None:
                runner.run_break()
            site = self.resume_entries.sites.get((id(frames[0].code), frames[0].ip)) if len(frames) == 1 else None
            if site is not None and site[0] is frames[0].code and site[1] is device:
                entries = site[2]
            else:
                entries = self.resume_entries.entries_at(frames, device)
            if self.events is None:   # a loop body's hot path: each fast path checks its own guards once
                for entry in entries:
                    fast = entry.fast
                    if fast is not None:
                        try:
                            result = fast(frames)
                        except RerunUncompiled as exc:
                            rerun = exc
                        else:
                            if result is not MISS:
                                return result
                            continue
                        runner = runner or RealRunner(frames, self._call_at_break)
                        return entry.rerun(rerun, runner.finish_frames)
            runner = runner or RealRunner(frames, self._call_at_break)
            return self._segment(entries, frames, frames, runner.finish_frames, device, computed=computed)
        finally:
            if runner is not None:
                self.host_copies += runner.host_copies

    def _segment(self, entries, L, resume_frames, fallback, device, staged=(), computed=frozenset(),
                 native_call=None):
        entry = _first_fitting(entries, L)
        if entry is None:
            if self.compile == "background" and not self.fullgraph and not self.run_only \
                    and self.events is None:
                self._compile_in_background(entries, L, resume_frames, device, staged, computed, native_call)
                return fallback()
            with _COMPILE_LOCK:   # another thread may have compiled it while we waited
                self._computed = computed
                entry = _first_fitting(entries, L) or self._new_entry(entries, L, resume_frames, device, staged)
            if entry is None or entry is _TRANSIENT:
                return fallback()
        if self.events is not None:
            self.events.append(entry)
        return entry.run(L, fallback)

    def _compile_in_background(self, entries, L, resume_frames, device, staged, computed, native_call=None):
        """Queue a compile of state ``L`` (a snapshot; for a resumed segment, of its
        frames) on the background worker, unless one for these entries is pending; the
        caller runs the segment as written. ``native_call``: the call's (args, kwargs),
        when the worker first tries a native loop kernel for it."""
        key = (id(self), id(entries))
        if background.WORKER.is_pending(key):
            return
        state = background.snapshot_state(L) if resume_frames is None else background.snapshot_frames(L)
        frames = None if resume_frames is None else state
        native_call = None if native_call is None else background.snapshot_state(native_call)

        def job():
            if native_call is not None and self._native_kernel(*native_call) is not None:
                return
            with _COMPILE_LOCK:
                if _first_fitting(entries, state) is None:
                    self._computed = computed
                    self._new_entry(entries, state, frames, device, staged)

        background.WORKER.submit(key, job, self.backend)

    def _new_entry(self, entries, L, resume_frames, device, staged):
        """Compile an entry for ``L`` and add it to ``entries`` (None: run uncompiled,
        because of ``run_only`` or the cache size limit). ``staged``: positions of the
        arguments that are copies (see ``staging``)."""
        reason = _failed_guard(entries, L, self.fn) if entries else None
        if self.run_only:
            self.run_only_misses += 1
            return None
        if len(entries) >= config.cache_size_limit:
            if not self._limit_warned:
                self._limit_warned = True
                failures.warn(f"{self.fn.__qualname__} hit config.cache_size_limit ({config.cache_size_limit}); "
                              f"the guard that keeps failing: {reason}. Further new inputs run uncompiled.",
                              stacklevel=6)
            return None
        if reason is not None:
            self._grow_dynamic_dims(entries[-1], L)
            self.recompile_reasons.append(reason)
            diagnostics.log_once("recompiles", (self.fn, reason, len(entries)),
                                 "recompiling %s: guard failed: %s", self.fn.__qualname__, reason)
            diagnostics.notify("recompile", self, reason)
        entry = self._compile(L, resume_frames, device, staged)
        if entry is not _TRANSIENT:
            entries.append(entry)
            if resume_frames is None and entries is self.entries and speed_trials.applies(self, entry):
                self.trials = self.trials or speed_trials.Trials(self.fn, self._simple, self.speed_decisions)
                if self.trial_condition is None:
                    self._set_trial_condition()
                self.trials.add(entry, self.trial_condition)
        return entry

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
            if type(now) is int and now != old or loops.carried_scalar_changed(old, now):
                self.dynamic_ints.add(expression)
        for inp in entry.capture.inputs:
            if isinstance(inp.example, int):
                continue
            try:
                now = eval(inp.source.expr, namespace)
            except Exception:
                continue
            (ndim, dtype, shape), (old_ndim, old_dtype, old_shape) = _array_meta(now), _array_meta(inp.example)
            if ndim == old_ndim and dtype == old_dtype and ndim is not None:
                changed = {d for d in range(ndim) if shape[d] != old_shape[d]}
                if changed:
                    self.dynamic_dims.setdefault(inp.source.expr, set()).update(changed)

    def dims_to_trace_dynamic(self, source, example):
        """Which dims of an input the next trace makes dynamic (see ``dynamic=``). None
        for an input that is not C-contiguous: dynamic sizes are guarded by C-contiguity
        instead of exact strides, which such an input would fail, so its layout is
        traced as it is."""
        if not _c_contiguous(example):
            return set()
        marked = dynamic_marks.get(example)
        if self.dynamic is True:
            dims = set(range(example.ndim)) - marked.static
        elif self.dynamic is False:
            dims = set(marked.dynamic)
        else:
            dims = (self.dynamic_dims.get(source.expr, set()) | marked.dynamic) - marked.static
        return {d for d in dims if d < example.ndim}   # dims recorded for an input of more dims

    def _record_break(self, brk):
        record = BreakRecord(brk)
        self.breaks.append(record)
        diagnostics.notify("break", self, record)
        diagnostics.log_once("graph_breaks", (record.filename, record.lineno, record.reason),
                             "graph break in %s: %s", self.fn.__qualname__, record.message)
        return record

    def _compile(self, L, resume_frames, device, staged=()):
        """An entry for state ``L``: compiled, staged (arguments with no tensor view are
        copied), or a fallback (recorded as a break) when tracing stops, an input's layout
        has no tensor view and cannot be copied, or the compiler fails."""
        read_only.silence_torch_warning()
        globals_dict, closure = self.fn.__globals__, self.fn.__closure__
        roots = entry_roots(L, self._arg_names) if resume_frames is None else resume_roots(resume_frames)
        unviewable = layouts.unviewable_inputs(roots)
        if unviewable:
            positions = staging.positions_of(unviewable, L) if resume_frames is None and not staged else None
            if positions:
                return staging.StagedEntry(positions, L, globals_dict, closure, device, self._segment)
            brk, guards = layouts.fallback_for(unviewable)
            return FallbackEntry(guards.compile(globals_dict, closure), self._record_break(brk), guards)
        try:
            dynamic_ints = frozenset(self.dynamic_ints) if self.dynamic is not False else frozenset()
            if resume_frames is not None and self.dynamic is not False:
                # a loop's variable, counters and carried scalars are inputs from the first trace
                dynamic_ints |= loops.loop_values(resume_frames) | self._computed
            cap = capture(self.fn, L, self._arg_names, resume_frames, device, self.fullgraph,
                          self.dims_to_trace_dynamic, dynamic_ints)
        except Exception as exc:   # raised before tracing started: no guards collected
            return self._capture_failed(exc, None, roots)
        if isinstance(cap, TraceStop):
            return self._stopped(cap, roots)
        if _writes_read_only(cap, L, globals_dict, closure):
            return _TRANSIENT   # NumPy raises; compiling a write into a read-only array helps no one
        shows = staging.copy_would_show(cap, staged, L) if staged else None
        if shows is not None:
            return FallbackEntry(cap.guards.compile(globals_dict, closure),
                                 self._record_break(staging.refusal(shows)), cap.guards)
        record = self._record_break(cap.ends_in_break) if cap.ends_in_break is not None else None
        self._graphs += 1
        label = f"graph #{self._graphs} of {self.fn.__qualname__} ({_segment_start(resume_frames)})"
        try:
            return self._build_entry(cap, record, device, label, resume_frames is not None)
        except BackendFailed:
            raise
        except Exception as exc:
            failures.failed(f"building the call of {label} failed", exc, self.fullgraph,
                            "running that segment uncompiled instead")
            guards = _root_guards(roots)
            return FallbackEntry(guards.compile(globals_dict, closure), record, guards)

    def _stopped(self, stop, roots):
        """Tracing stopped for good (see TraceStop): at a graph break, a fallback guarded
        by what the break depended on (``Unsupported`` under fullgraph, or for a fatal
        break); any other exception goes to ``_capture_failed``."""
        brk = stop.error
        if not isinstance(brk, GraphBreak):
            return self._capture_failed(brk, stop.guards, roots)
        if brk.fatal or self.fullgraph:
            raise Unsupported(brk.user_message()) from None
        globals_dict, closure = self.fn.__globals__, self.fn.__closure__
        return FallbackEntry(stop.guards.compile(globals_dict, closure), self._record_break(brk), stop.guards)

    def _capture_failed(self, exc, guards, roots):
        """Capturing raised something other than a graph break: the user's own exception
        (real Python raises it again), a layout torch cannot view, or a failure inside
        npcompile. ``guards``: those tracing collected before it raised, None when it
        raised before tracing started. The state runs uncompiled; RecursionError and
        MemoryError leave no entry behind (the same state may trace fine with more room)."""
        if isinstance(exc, (RecursionError, MemoryError)):
            return _TRANSIENT
        if guards is None and not layouts.is_layout_error(exc):
            failures.failed(f"capturing a graph of {self.fn.__qualname__} failed", exc, self.fullgraph,
                            "running that part uncompiled instead")
        elif self.fullgraph:
            raise exc
        guards = guards if guards is not None else _root_guards(roots)
        brk = GraphBreak(f"tracing raised {type(exc).__name__}: {exc}")
        return FallbackEntry(guards.compile(self.fn.__globals__, self.fn.__closure__), self._record_break(brk),
                             guards)

    def _build_entry(self, cap, record, device, label, resumed):
        globals_dict, closure = self.fn.__globals__, self.fn.__closure__
        start = time.perf_counter()
        compiled = self._run_backend(cap, label) if cap.op_count else cap.gm
        backend_seconds = time.perf_counter() - start
        start = time.perf_counter()
        cap.add_shape_guards()
        _guard_code_of_callees(cap.guards)
        guard = cap.guards.compile(globals_dict, closure)
        write = _writer(cap, globals_dict, closure, device)
        times = {"trace": cap.trace_seconds, "guards": time.perf_counter() - start, "backend": backend_seconds}
        diagnostics.record_compile_times(self.fn.__qualname__, times)
        diagnostics.log_once("guards", guard, "guards of %s:\n%s", self.fn.__qualname__, guard.source)
        diagnostics.log_once("graph_code", cap.gm, "graph of %s:\n%s", self.fn.__qualname__, cap.gm.code)
        diagnostics.notify("compile", self, times)
        entry = CompiledEntry(guard, compiled, cap, times, record, write, _transfers(cap, device))
        entry.prepare(globals_dict, closure, device, label, self.fullgraph, resumed)
        diagnostics.log_once("output_code", entry.fast, "output code of %s:\n%s", self.fn.__qualname__,
                             entry.fast.source)
        return entry

    def _run_backend(self, cap, label):
        """The backend on the captured graph, inside a tracing context that knows the
        graph's fake mode (as torch.compile calls backends, so a graph without array
        inputs compiles too). Compiling happens before any input is touched, so a
        failure here leaves nothing half-done: the graph then runs op by op."""
        try:
            with torch._guards.tracing(torch._guards.TracingContext(cap.fake_mode)):
                return self.backend(cap.gm, cap.fake_inputs)
        except Exception as exc:
            name = getattr(self.backend, "__name__", type(self.backend).__name__)
            failures.failed(f"backend {name!r} failed on {label}", exc, self.fullgraph,
                            "running that graph eagerly (op by op) instead")
            return cap.gm

    def _call_at_break(self, fn, args, kwargs, frame=None):
        """A call made for real at a graph break. A user function is itself compiled (as
        a frame hook would do), through one JitFunction per function shared by the whole
        family of callees, so recursion reuses compiled entries instead of tracing each
        level anew; a ``disable(recursive=False)`` function runs its own frame for real
        while the functions it calls are compiled."""
        mode, inner = controls.disabled(fn) or (None, fn)
        if mode == "frame":
            frames = [Frame(inner.__code__, inner.__globals__, inner, bind_arguments(inner, args, kwargs))]
            return RealRunner(frames, self._call_at_break).finish_frames()
        if mode is None and is_user_function(fn):
            compiled = self if fn is self.fn else self._callees.get(fn)
            if compiled is None:
                compiled = JitFunction(fn, backend=self.backend)
                compiled._callees = self._callees
                self._callees[fn] = compiled
            return compiled(*args, **kwargs)
        if frame is not None:   # NumPy's warnings attributed to the caller's module and line
            return call_in_frame(frame, fn, args, kwargs)
        return fn(*args, **kwargs)


_FRAME_FUNCTION = re.compile(r"L\[\d+\]\.function is (k\d+)")


def _guard_code_of_callees(guards):
    """Each user function the trace holds by identity (a helper it inlined, a callable
    argument, a bound method's or partial's function, a jitted or wrapped function's
    inner one) must still have the code it was traced with: ``h.__code__ = g.__code__``
    keeps ``h`` the same object, so its identity guard alone reused the old graph. One
    identity test per such function; its defaults are guarded where the trace used them.
    A resumed frame's function (``L[k].function is kN``) needs none: the frame runs the
    code guarded as ``L[k].code``, whatever its function holds now; a loop the runtime
    drives pays nothing more per iteration."""
    frames_only = {match[1] for match in (_FRAME_FUNCTION.fullmatch(e) for e, _ in guards.checks) if match}
    for name, value in list(guards.constants.items()):
        if name in frames_only:
            continue
        if isinstance(value, Jitted):
            inner, expr = value.fn, f"{name}.fn"
        else:
            inner, expr = getattr(value, "__wrapped__", value), name
            expr = expr if inner is value else f"{name}.__wrapped__"
        if is_user_function(inner):
            guards.add(f"{expr}.__code__ is {guards.const(inner.__code__)}",
                       f"{inner.__qualname__} runs the code it was traced with")


def _wants_native(fn, backend, fullgraph, device):
    """Whether calls of ``fn`` try the native loop path first: on with
    ``config.native_loops`` (``"auto"``: when numba is installed), for the Inductor
    backend on the CPU, without ``fullgraph``, and only for code with a loop in it."""
    setting = config.native_loops
    if setting == "auto":
        setting = importlib.util.find_spec("numba") is not None
    if not setting or backend != "inductor" or fullgraph or device is not None:
        return False
    return native.has_loop(fn)   # in fn or in a helper it calls (deriche calling _deriche_rows)


def _binder(fn):
    """A function with ``fn``'s parameters, name and an empty body that returns the
    bound values in the code's order (parameters, keyword-only, ``*args``, ``**kwargs``):
    calling it binds exactly as CPython binds ``fn``, messages included. Its defaults are
    set from ``fn`` before each use."""
    params, previous = [], None
    for param in inspect.signature(fn, follow_wrapped=False).parameters.values():
        kind = param.kind
        if previous == param.POSITIONAL_ONLY and kind != param.POSITIONAL_ONLY:
            params.append("/")
        if kind == param.KEYWORD_ONLY and previous not in (param.KEYWORD_ONLY, param.VAR_POSITIONAL):
            params.append("*")
        prefix = {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(kind, "")
        params.append(prefix + param.name + ("=None" if param.default is not param.empty else ""))
        previous = kind
    if previous == inspect.Parameter.POSITIONAL_ONLY:
        params.append("/")
    code = fn.__code__
    names = code.co_varnames[:arg_count(code)]
    namespace = {}
    exec(f"def binder({', '.join(params)}):\n    return [{', '.join(names)}]\n", namespace)
    binder = namespace["binder"]
    binder.__name__, binder.__qualname__ = fn.__name__, fn.__qualname__
    return binder


def _segment_start(resume_frames):
    if resume_frames is None:
        return "from its start"
    frame = resume_frames[-1]
    return f"resuming at {frame.code.co_filename}:{frame.lineno}"
