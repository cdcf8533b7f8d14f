"""The symbolic interpreter: executes a function's bytecode with real Python values,
except that arrays are shim arrays over the graph's placeholder tensors and NumPy is
replaced by the shim. Everything read from outside the call is *lifted*: given a source,
guarded, and (for arrays) turned into a graph input.
"""
import builtins
import functools
import math
import operator
import sys
import sysconfig
import types
import warnings

import numpy
import torch

import torch_numpy_shim as shim
from torch_numpy_shim import _flipped
from torch_numpy_shim._dtypes import _ScalarMeta as ScalarMeta
from torch_numpy_shim._ndarray import ndarray as ShimArray

from .. import config, controls
from ..errors import GraphBreak, RestartTrace
from . import (
    callbacks,
    lazy_iterators,
    liveness,
    loops,
    namespaces,
    numpy_map,
    real,
    scalars,
    sources,
    symbol_text,
    symbols,
    view_steps,
)
from .frame import INLINED, NO_VALUE, NULL, Frame, Resume, cell_full
from .guards import Guards, any_overlap
from .jitted import Jitted
from .opcodes import HANDLERS
from .resident import DeviceArray

_STDLIB_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})
_CONSTANT_TYPES = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), range, slice)
_PURE_MODULES = {"math", "cmath", "operator", "itertools", "builtins", "_operator", "functools",
                 "_functools"}
_PURE_BUILTINS = {getattr(builtins, n) for n in (
    "abs", "all", "any", "bool", "callable", "complex", "dict", "divmod", "enumerate", "float",
    "frozenset", "hasattr", "hash", "int", "isinstance", "issubclass", "iter", "len", "list",
    "max", "min", "next", "pow", "range", "reversed", "round", "set", "slice", "sorted", "str",
    "sum", "tuple", "type", "zip", "repr", "format", "chr", "ord", "object", "getattr")}
_CONTAINER_TYPES = (list, dict, set, tuple, str, bytes, int, float, complex, bool, range, frozenset)
_MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                     "popitem", "sort", "reverse", "add", "discard", "__setitem__", "__delitem__",
                     "__iadd__", "__imul__", "__ior__", "__iand__", "__ixor__", "__isub__", "__init__"}
_C_METHODS = (types.BuiltinMethodType, types.MethodWrapperType)   # lst.append, and lst.__len__
_DATA_DEPENDENT_ERRORS = ()


def _data_dependent_errors():
    """torch's exceptions for 'this needs the data', which become graph breaks."""
    global _DATA_DEPENDENT_ERRORS
    if not _DATA_DEPENDENT_ERRORS:
        from torch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
        from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
        _DATA_DEPENDENT_ERRORS = (DataDependentOutputException, DynamicOutputShapeException,
                                  GuardOnDataDependentSymNode)
    return _DATA_DEPENDENT_ERRORS


def is_user_function(fn):
    """Python functions we inline: the user's own code, not the standard library, the
    shim, torch or installed packages (those run natively or are refused)."""
    if not isinstance(fn, types.FunctionType):
        return False
    module = fn.__module__ or ""
    if module.split(".")[0] in ("torch_numpy_shim", "torch", "numpy", "npcompile"):
        return False
    filename = fn.__code__.co_filename
    return not filename.startswith(_STDLIB_DIRS)


class _Stop(Exception):
    """Internal: the trace reached ``stop_at``."""


class ArrayInput:
    """A graph input: where the array comes from, an example of it, and which of its
    dims the graph treats as dynamic (set by capture before each trace)."""

    __slots__ = ("source", "example", "dynamic")

    def __init__(self, source, example):
        self.source = source
        self.example = example
        self.dynamic = ()


_LIBRARIES = frozenset({"torch", "numpy", "torch_numpy_shim", "npcompile", "sympy"})


def _user_truth(cls):
    """Whether ``bool()`` of a ``cls`` object runs Python code of the user's (a
    ``__bool__`` or ``__len__`` defined in Python). torch's symbolic values define theirs
    in Python too, but their truth is guarded (a loop index's ``k > 0``)."""
    if cls.__module__.partition(".")[0] in _LIBRARIES:
        return False
    for name in ("__bool__", "__len__"):
        if isinstance(getattr(cls, name, None), types.FunctionType):
            return True
    return False


class Tracer:
    """One trace of one function call. ``inputs`` persists across restarts (a restart
    happens when tracing discovers an array that is not yet a declared graph input)."""

    def __init__(self, fn, bound_args, inputs, resume_frames=None, stop_at=None, fullgraph=False,
                 dynamic_ints=frozenset()):
        self.fn = fn
        self.dynamic_ints = dynamic_ints      # sources of ints to trace as symbols
        self.int_examples = {}                # source expr -> value of ints (and carried scalars) traced as constants
        self.fullgraph = fullgraph
        self.bound_args = bound_args
        self.resume_frames = resume_frames    # real frames to continue from (None: a call)
        self.stop_at = stop_at                # suspend before this many instructions ran
        self.steps = 0
        self.sync_depth = 0
        self.start_frame = None               # the frame a resumed segment starts in
        self.start_offset = None
        self.inputs = inputs                  # list[ArrayInput], graph inputs in order
        self.placeholders = None              # tensors of the current make_fx attempt
        self.guards = Guards()
        self.lifted = {}                      # source expr -> lifted value
        self.source_of = {}                   # id(external object) -> Source
        self.mirrors = {}                     # id(lifted copy of a list/dict) -> Source
        self.aliasable = {}                   # id(outside list, dict or object) -> (traced value, Source)
        self.overlay = {}                     # (id(obj), attr) -> value written during trace
        self.global_writes = {}               # name -> value (STORE_GLOBAL)
        self.side_effects = []                # ("setattr"|"call"|"setglobal", ...)
        self.internal_cells = set()
        self.created_functions = set()        # ids of functions made by MAKE_FUNCTION
        self.keepalive = []
        self.frames = []
        self.array_by_id = {}                 # id(numpy array/tensor) -> (shim array, source)
        self.shim_inputs = {}                 # id(shim array) -> Source, for inputs returned as-is
        self.caller_arrays = {}               # id(shim array) -> the caller's NumPy array it stands for
        self.caller_sources = {}              # id(shim array) -> Source of that caller's array
        self.staged = set()                   # ids of shim arrays standing for a copy of the caller's array
        self.opaque = set()                   # ids of outside objects guarded by type alone
        self.module_sources = {}              # id(shim module) -> Source of the NumPy module it stands for
        self.namespace_sources = {}           # id(a helper's globals or own builtins dict) -> Source
        self.saw_tensor_input = False
        self.loops = {}                       # (id(frame), back-edge offset) -> loops.LoopState
        self.loop_entries = {}                # (id(frame), FOR_ITER offset) -> (iterator, graph size on entry)

    # ---- running frames -----------------------------------------------------------------
    def run(self, placeholders):
        """Trace to the function's return (its value) or, with ``stop_at``, until that
        many instructions have run (a ``Resume`` holding the traced frames)."""
        self.placeholders = placeholders
        if self.resume_frames is None:
            code = self.fn.__code__
            names = code.co_varnames[:arg_count(code)]
            local_values = {name: self.lift(value, sources.argument(i, name))
                            for i, (name, value) in enumerate(zip(names, self.bound_args))}
            self.push_frame(self.fn, local_values)
        else:
            self.frames = [self.lift_frame(k, f) for k, f in enumerate(self.resume_frames)]
            self.start_frame = self.frames[-1]
            self.start_offset = self.start_frame.instructions[self.start_frame.ip].offset
        try:
            return self.run_frames(0)
        except _Stop:
            return Resume(self.frames)

    def lift_frame(self, k, real):
        """A frame of a resumed call, its values lifted from the state ``L[k]``."""
        base = sources.Source(f"L[{k}]", f"frame {k} ({real.code.co_name})")
        fn = self.lift(real.function, sources.attribute(base, "function"))
        frame = Frame(real.code, real.globals, fn, {})
        frame.ip, frame.lineno, frame.kw_names = real.ip, real.lineno, real.kw_names
        frame.error_on_graph_break, frame.fullgraph = real.error_on_graph_break, real.fullgraph
        self.guards.add(f"L[{k}].error_on_graph_break is {real.error_on_graph_break}",
                        f"error_on_graph_break is {real.error_on_graph_break} in frame {k}")
        self.guards.add(f"L[{k}].code is {self.guards.const(real.code)}", f"frame {k} runs {real.code.co_name}")
        dead = liveness.dead_locals(real.code, real.ip)   # never read again: not lifted nor guarded
        for name, value in real.locals.items():
            if name not in dead:
                frame.locals[name] = self.lift(value, sources.item(sources.attribute(base, "locals"), name))
        frame.stack = [v if v is NULL else self.lift(v, sources.item(sources.attribute(base, "stack"), j))
                       for j, v in enumerate(real.stack)]
        if k == len(self.resume_frames) - 1:   # a loop body: its range iterator, stood in for (chunks)
            cursor = loops.range_cursor(frame, real, lambda j: sources.item(sources.attribute(base, "stack"), j))
            if cursor is not None:
                frame.stack[-2] = cursor
        for name, cell in real.cells.items():
            contents = sources.Source(f"L[{k}].cells[{name!r}].cell_contents", f"cell {name}")
            new = types.CellType(self.lift(cell.cell_contents, contents)) if cell_full(cell) else types.CellType()
            self.internal_cells.add(id(new))
            self.keepalive.append(new)
            frame.cells[name] = new
        if real.yielded is not None:
            frame.yielded = list(self.lift(real.yielded, sources.attribute(base, "yielded")))
        if real.returns_instead is not NO_VALUE:
            frame.returns_instead = self.lift(real.returns_instead, sources.attribute(base, "returns_instead"))
        return frame

    def push_frame(self, fn, local_values, returns_instead=NO_VALUE, error_on_graph_break=None,
                   fullgraph=False):
        """Start executing ``fn``; its return value goes to the caller's stack (or
        ``returns_instead``: an inlined constructor gives the new object). The frame
        inherits its caller's graph-break policy unless told otherwise; fullgraph is
        sticky (it cannot be switched off in callees)."""
        if len(self.frames) >= config.inline_depth_limit:
            raise GraphBreak("inlining went deeper than config.inline_depth_limit",
                             "recursion cannot be captured; mark the function npcompile.disable")
        frame = Frame(fn.__code__, fn.__globals__, fn, local_values)
        frame.returns_instead = returns_instead
        parent = self.frames[-1] if self.frames else None
        inherited = parent.error_on_graph_break if parent else controls.current_error_on_graph_break()
        frame.error_on_graph_break = inherited if error_on_graph_break is None else error_on_graph_break
        frame.fullgraph = fullgraph or (parent.fullgraph if parent else self.fullgraph)
        self.frames.append(frame)
        return INLINED

    def run_frames(self, depth):
        """Execute until the frame at index ``depth`` returns; its value is the result.
        Frames form an explicit stack (no Python recursion), so a trace can later stop
        and resume anywhere in a chain of inlined calls."""
        frames = self.frames
        while True:
            if self.steps == self.stop_at:
                raise _Stop()
            self.steps += 1
            frame = frames[-1]
            inst = frame.instructions[frame.ip]
            frame.ip += 1
            if inst.starts_line is not None:
                frame.lineno = inst.starts_line
            if inst.opname == "RETURN_VALUE":
                value = frame.return_value()
                frames.pop()
                if len(frames) == depth:
                    return value
                frames[-1].push(value)
                continue
            handler = HANDLERS.get(inst.opname)
            if handler is None:
                raise GraphBreak(f"unsupported Python bytecode {inst.opname}",
                                 "this construct runs uncompiled; move it out of the hot path",
                                 self.user_stack())
            self.step(handler, frame, inst)

    def call_now(self, fn, args, kwargs):
        """Call ``fn`` and return its value (inlined frames run to completion here)."""
        result = self.call(fn, args, kwargs)
        if result is INLINED:
            self.sync_depth += 1
            try:
                return self.run_frames(len(self.frames) - 1)
            finally:
                self.sync_depth -= 1
        return result

    def step(self, handler, frame, inst):
        """One instruction; what stops the trace becomes a GraphBreak with the user stack.
        A break raised here after calls it inlined returned (``sorted``'s key calls, then
        comparing their traced results) stops before this instruction, not before the
        callee's last one."""
        begun = self.steps - 1
        try:
            handler(self, frame, inst)
            return
        except RestartTrace:
            raise
        except GraphBreak as exc:
            brk = exc
        except shim.UnsupportedError as exc:
            brk = GraphBreak(f"torch_numpy_shim does not support this: {exc}", "it runs in real NumPy instead")
            brk.__cause__ = exc
        except _data_dependent_errors() as exc:
            brk = GraphBreak("operation depends on array values (data-dependent)",
                             "values are not known while tracing; compute them outside the "
                             "compiled function or restructure the branch as np.where")
            brk.__cause__ = exc
        if not brk.stack:
            brk.stack = self.user_stack()
        self.note_break(brk, begun)
        raise brk

    def note_break(self, brk, step=None):
        """Where the break happened: the step to stop before when tracing again, whether
        real Python can take over there (not inside a call the interpreter made from its
        own Python code, e.g. a map() callback), and whether it must be an error
        (fullgraph, or error_on_graph_break(True) in force in the breaking frame)."""
        if brk.step is not None:
            return
        brk.step = self.steps - 1 if step is None else step
        brk.resumable = self.sync_depth == 0
        frame = self.frames[-1]
        brk.fatal = frame.fullgraph or frame.error_on_graph_break
        if self.resume_frames is None:
            flag = controls.current_error_on_graph_break()
            self.guards.add(f"{self.guards.const(controls.current_error_on_graph_break)}() is {flag}",
                            f"error_on_graph_break is {flag}")

    def user_stack(self):
        return [(f.code.co_filename, f.lineno, f.code.co_name) for f in self.frames]

    # ---- lifting what comes from outside --------------------------------------------------
    def lift(self, value, source):
        key = source.expr
        if key not in self.lifted:
            self.lifted[key] = self._lift(value, source)
        return self.lifted[key]

    def _lift(self, value, source):
        g = self.guards
        if isinstance(value, (numpy.ndarray, torch.Tensor, DeviceArray)):
            return self.array_input(value, source)
        seen = self.aliasable.get(id(value))
        if seen is not None:   # one object reached two ways: one traced value, as in CPython
            g.same_object(source, seen[1])
            return seen[0]
        if isinstance(value, numpy.generic):
            if isinstance(value, loops.CARRIED_SCALARS) and supported_dtype(value.dtype):
                if source.expr in self.dynamic_ints:
                    return self.scalar_input(value, source)
                if self.resume_frames is not None:   # a value a loop may carry: traced as an input if it changes
                    self.int_examples[source.expr] = value
            g.equals(source, value)
            return numpy_map.to_shim(shim.dtype(value.dtype).type)(value)
        if value is None or value is Ellipsis:
            g.identity(source, value)
            return value
        if type(value) is int:
            if source.expr in self.dynamic_ints:
                return self.int_input(value, source)
            self.int_examples[source.expr] = value
        if isinstance(value, _CONSTANT_TYPES):
            g.equals(source, value)
            return value
        if isinstance(value, (tuple, list)):
            g.type_is(source, value)
            g.length(source, len(value))
            items = [self.lift(v, sources.item(source, i)) for i, v in enumerate(value)]
            if hasattr(value, "_fields"):
                return type(value)(*items)
            copy = type(value)(items)
            if isinstance(value, list):
                self.mirror(value, copy, source)
            return copy
        if type(value) is dict and (value is self.fn.__globals__ or namespaces.module_namespace(value)):
            return self.lift_namespace(value, source)
        if type(value) is dict and all(isinstance(k, (str, int)) for k in value):
            g.type_is(source, value)
            g.keys(source, list(value))
            copy = {k: self.lift(v, sources.item(source, k)) for k, v in value.items()}
            self.mirror(value, copy, source)
            return copy
        if isinstance(value, numpy.dtype) or (isinstance(value, type) and issubclass(value, numpy.generic)):
            g.equals(source, value) if isinstance(value, numpy.dtype) else g.identity(source, value)
            return numpy_map.to_shim(value)
        bound_to = getattr(value, "__self__", None)
        if isinstance(value, _C_METHODS) and not isinstance(bound_to, types.ModuleType):
            # a C method bound to some object (list.append, rng.permutation, and the slot
            # wrappers a.__setitem__, lst.__len__): the same method of the lifted object,
            # so its effects go where the object's go
            g.equals(sources.attribute(source, "__name__"), value.__name__)
            return getattr(self.lift(bound_to, sources.attribute(source, "__self__")), value.__name__)
        if isinstance(value, types.MethodType):
            # a bound method: its function (by identity) and its object (whose attribute
            # reads are guarded), so a new bound method of the same pair is no recompile
            g.type_is(source, value)
            return types.MethodType(self.lift(value.__func__, sources.attribute(source, "__func__")),
                                    self.lift(value.__self__, sources.attribute(source, "__self__")))
        if type(value) is functools.partial:
            return self.lift_partial(value, source)
        if _guard_by_identity(value):
            g.identity(source, value)
        else:
            # objects the trace only reads attributes of (each read is guarded) or hands
            # to real Python at a break: their type is what the trace relied on; their
            # contents are read through no other way (see ``opaque``)
            g.type_is(source, value)
            self.opaque.add(id(value))
        mapped = numpy_map.to_shim(value)
        if id(value) in self.opaque:
            self.aliasable[id(value)] = (mapped, source)
        if mapped is value:
            self.source_of[id(value)] = source
            self.keepalive.append(value)
        elif isinstance(value, types.ModuleType):
            self.module_sources.setdefault(id(mapped), source)
        return mapped

    def lift_namespace(self, namespace, source):
        """A module's globals (``globals()``): the dict itself, by identity, not a copy
        of every global in it. What is read or written through it is a graph break (it
        is ``opaque``), taken by real Python on the real dict."""
        self.guards.identity(source, namespace)
        self.opaque.add(id(namespace))
        self.aliasable[id(namespace)] = (namespace, source)
        self.source_of[id(namespace)] = source
        self.keepalive.append(namespace)
        return namespace

    def mirror(self, value, copy, source):
        """``copy`` stands for the outside list or dict ``value`` in the trace; its
        changes are replayed on ``value`` (see outputs)."""
        self.mirrors[id(copy)] = source
        self.aliasable[id(value)] = (copy, source)
        self.keepalive += [value, copy]

    def alias_guards(self):
        """The guards, with one more: the outside lists, dicts and objects the trace
        reached through different sources are different objects (those reached twice
        are guarded ``is`` when lifted). A change made through one name is seen through
        the other only when they are the same object, so the trace holds for calls with
        the same pattern of sharing."""
        if len(self.aliasable) > 1:
            self.guards.all_distinct([source for _, source in self.aliasable.values()])
        return self.guards

    def lift_partial(self, value, source):
        """A functools.partial: its function, arguments and keywords, each guarded as a
        value of its own (a new partial of the same function and values is no recompile)."""
        self.guards.type_is(source, value)
        func = self.lift(value.func, sources.attribute(source, "func"))
        args = self.lift(value.args, sources.attribute(source, "args"))
        keywords = self.lift(value.keywords, sources.attribute(source, "keywords"))
        rebuilt = functools.partial(func, *args, **keywords)
        self.source_of[id(rebuilt)] = source
        self.keepalive.append(rebuilt)
        return rebuilt

    def array_input(self, value, source):
        seen = self.array_by_id.get(id(value))
        if seen is not None:
            self.guards.same_object(source, seen[1])
            return seen[0]
        if isinstance(value, numpy.ndarray):
            if not supported_dtype(value.dtype):
                raise GraphBreak(f"arrays of dtype {value.dtype} are not supported by torch_numpy_shim",
                                 "they run in real NumPy", self.user_stack())
            if type(value) is not numpy.ndarray:
                raise GraphBreak(f"ndarray subclass {type(value).__name__}",
                                 "subclasses keep their own semantics; they run in real NumPy")
            if negative_strides(value):
                self.guards.array_meta(source, value)
                raise GraphBreak("an array with negative strides (torch tensors have none)",
                                 "it runs in real NumPy; pass a copy (np.ascontiguousarray) to compile it")
        elif isinstance(value, torch.Tensor):
            self.saw_tensor_input = True
        index = next((i for i, inp in enumerate(self.inputs) if inp.source == source), None)
        if index is None:
            self.inputs.append(ArrayInput(source, value))
            raise RestartTrace()
        self.guards.array_meta(source, value, self.inputs[index].dynamic)
        for _, other_source in self.array_by_id.values():
            self.guards.distinct_objects(source, other_source)
        array = ShimArray._wrap(self.placeholders[index])
        self.array_by_id[id(value)] = (array, source)
        self.shim_inputs[id(array)] = source
        if isinstance(value, (numpy.ndarray, DeviceArray)):
            caller, caller_source = self.staged_original(value, source)
            self.caller_arrays[id(array)], self.caller_sources[id(array)] = caller, caller_source
            if caller is not value:
                self.staged.add(id(array))
        self.keepalive.append(value)
        return array

    def staged_original(self, value, source):
        """(the caller's array, its Source) behind argument ``value`` at ``source``: an
        argument torch cannot view (negative strides, a packed field) is traced on a copy
        (``runtime.staging``: the state ``L`` then keeps the caller's arrays in
        ``L.originals``); any other is the caller's array itself."""
        originals = getattr(self.bound_args, "originals", None)
        if originals and self.resume_frames is None:
            for i, original in originals.items():
                if source.expr == f"L[{i}]" and value is self.bound_args[i]:
                    return original, sources.Source(f"L.originals[{i}]", f"{source.label} (the caller's array)")
        return value, source

    def overlap_guards(self, written, either=()):
        """After a trace whose graph writes the inputs at ``written`` (placeholder
        indices): guard whether a written NumPy input shares memory with another one
        (b[:-1], b[1:]). The graph takes them for independent buffers and reorders reads
        across the write, so for overlapping arguments it returns a GraphBreak (the call
        runs as written); None when the graph holds. ``either``: inputs that may come as
        a held tensor (held_inputs)."""
        arrays = [i for i, inp in enumerate(self.inputs) if (type(inp.example) is numpy.ndarray or i in either)
                  and self.array_by_id.get(id(inp.example), (None, None))[1] == inp.source]   # traced, once
        pairs = [(m, n) for m in range(len(arrays)) for n in range(m + 1, len(arrays))
                 if arrays[m] in written or arrays[n] in written]
        if not pairs:
            return None
        overlapping = any_overlap([self.inputs[i].example for i in arrays], pairs)
        held = {m for m, i in enumerate(arrays) if i in either}
        self.guards.memory_overlap([self.inputs[i].source for i in arrays], pairs, overlapping, held)
        if not overlapping:
            return None
        return GraphBreak("arguments that share memory, one of them written by the graph",
                          "the compiled graph takes its inputs for independent buffers; this call runs as written")

    def int_input(self, value, source):
        """A Python int traced as a symbol (a graph input), so a changing counter or
        size does not recompile; the ShapeEnv guards what the trace assumed of it. The
        symbol is a C int64, so it is guarded to int64's range; an int beyond it is
        traced as the constant it is (NumPy converts it to the array's dtype or raises
        OverflowError, NEP 50)."""
        if not -2 ** 63 <= value < 2 ** 63:
            self.guards.equals(source, value)
            return value
        self.guards.add(f"-{2 ** 63} <= {source.expr} < {2 ** 63}", f"{source.label} fits int64")
        index = next((i for i, inp in enumerate(self.inputs) if inp.source == source), None)
        if index is None:
            self.inputs.append(ArrayInput(source, value))
            raise RestartTrace()
        self.guards.type_is(source, value)
        return self.placeholders[index]

    def scalar_input(self, value, source):
        """A NumPy number (float, complex, integer) traced as a 0-d graph input (a value a loop
        carries from one iteration to the next, such as a recursion's coefficient)."""
        as_array = sources.Source(f"__import__('numpy').asarray({source.expr})", source.label)
        index = next((i for i, inp in enumerate(self.inputs) if inp.source == as_array), None)
        if index is None:
            self.inputs.append(ArrayInput(as_array, numpy.asarray(value)))
            raise RestartTrace()
        self.guards.type_is(source, value)
        return ShimArray._wrap(self.placeholders[index], True)

    def wrap_foreign(self, value):
        return numpy_map.to_shim(value)

    def lift_imported(self, module):
        """The module an ``import`` inside the function gave: lifted from ``sys.modules``
        under its name, so that its attribute reads are guarded like a global module's
        (``cfg.scale`` changed, or an attribute set that was absent, is a recompile) and
        a module imported afresh into ``sys.modules`` is another object. Anything else
        ``__import__`` may return (an object a program put into ``sys.modules``) is
        taken as before, unguarded, mapped to the shim."""
        name = getattr(module, "__name__", None)
        if type(module) is not types.ModuleType or type(name) is not str or sys.modules.get(name) is not module:
            return self.wrap_foreign(module)
        return self.lift(module, sources.Source(f"{self.guards.const(sys.modules)}[{name!r}]", name))

    # ---- loops --------------------------------------------------------------------------
    def back_edge(self, frame, inst):
        """A loop's jump back. The segment ends here (a loop boundary, not a failure) when
        it began inside this very loop (so a loop body is compiled once and the runtime
        drives the iterations), or when unrolling the loop does not pay (see loops.py).
        Never under fullgraph or error_on_graph_break(True)."""
        if frame.fullgraph or frame.error_on_graph_break:
            return
        started_inside = frame is self.start_frame and inst.argval <= self.start_offset <= inst.offset
        if started_inside:
            top = frame.stack[-1] if frame.stack else None
            if type(top) is loops.RangeCursor and top.take_another(_graph_size()):
                return   # the next iteration goes into this graph too (a chunk)
            raise GraphBreak("loop boundary: the loop body is compiled once and driven by the runtime",
                             "not an error: a loop's body is a segment of its own")
        state = self.loops.setdefault((id(frame), inst.offset), loops.LoopState())
        nodes = _graph_size()
        entry = self.loop_entries.get((id(frame), inst.argval))
        first_body = nodes - entry[1] if entry is not None and frame.stack and frame.stack[-1] is entry[0] else None
        if not loops.keep_unrolling(state, frame, inst, nodes, first_body):
            raise GraphBreak("loop boundary: unrolling this loop would pass config.loop_unroll_nodes "
                             f"({config.loop_unroll_nodes} graph nodes)",
                             "not an error: its body is compiled once and driven by the runtime")

    def check_iterator(self, iterator):
        if type(iterator) is loops.RangeCursor:
            for expression, description in iterator.guards(iterator.advanced + 1):
                self.guards.add(expression, description)
            return
        if id(iterator) in self.source_of:
            raise GraphBreak("advancing an iterator from outside the segment",
                             "iterators that cross a graph break are advanced by the runtime")
        if type(iterator) is loops.SymRangeIterator and iterator.untouched:
            frame = self.frames[-1]
            if not (frame.fullgraph or frame.error_on_graph_break):
                raise GraphBreak("loop boundary: a loop over a range of symbolic length",
                                 "not an error: its body is compiled once and driven by the runtime")
        self.note_loop_entry(iterator)

    def note_loop_entry(self, iterator):
        """The graph's size when the top frame's loop over ``iterator`` took its first item,
        so that its first back edge knows the size of one body exactly (``back_edge``). Keyed
        by the iterator itself (held): a frame's id, reused by a later frame, cannot pass a
        stale entry off as this loop's."""
        frame = self.frames[-1]
        key = (id(frame), frame.instructions[frame.ip - 1].offset)
        entry = self.loop_entries.get(key)
        if entry is None or entry[0] is not iterator:
            self.loop_entries[key] = (iterator, _graph_size())

    # ---- names --------------------------------------------------------------------------
    def load_global(self, frame, name):
        """LOAD_GLOBAL as CPython does it: the frame's globals, then its function's own
        builtins dict. A builtin is guarded as absent from those globals too (a global
        of that name defined later shadows it)."""
        if frame.globals is self.fn.__globals__ and name in self.global_writes:
            return self.global_writes[name]
        namespace = self.globals_source(frame)
        if name in frame.globals:
            return self.lift(frame.globals[name], sources.global_(name, namespace))
        builtins_dict = namespaces.builtins_of(frame)
        if name in builtins_dict:
            where = "" if namespace is sources.GLOBALS else f" in {namespace.label}"
            self.guards.add(f"{name!r} not in {namespace.expr}", f"no global {name}{where}")
            return self.lift(builtins_dict[name], sources.builtin(name, self._builtins_source(frame, builtins_dict)))
        raise NameError(f"name '{name}' is not defined")

    def globals_source(self, frame):
        """The dict ``frame`` reads its globals from: ``G`` for the jitted function's, a
        helper's ``__globals__`` for a helper's (fixed for the helper object that its
        identity guard pins; not ``sys.modules[__name__]``, which a re-import or an
        exec'd namespace makes another dict)."""
        if frame.globals is self.fn.__globals__:
            return sources.GLOBALS
        return self._namespace_source(frame, frame.globals, "__globals__",
                                      str(frame.globals.get("__name__", "another module")))

    def _builtins_source(self, frame, builtins_dict):
        if builtins_dict is builtins.__dict__:
            return sources.BUILTINS
        return self._namespace_source(frame, builtins_dict, "__builtins__", "own builtins")

    def _namespace_source(self, frame, namespace, attribute, label):
        """``namespace`` (``frame``'s function's ``attribute``) read through that function's
        source where it has one (an expression the runtime can also evaluate), else held
        as a constant."""
        source = self.namespace_sources.get(id(namespace))
        if source is None:
            fn_source = self.source_of.get(id(frame.function))
            if fn_source is not None and getattr(frame.function, attribute, None) is namespace:
                source = sources.Source(f"{fn_source.expr}.{attribute}", label)
            else:   # the constant holds the dict: its id stays its own
                source = sources.Source(self.guards.const(namespace), label)
            self.namespace_sources[id(namespace)] = source
            self.keepalive.append(namespace)
        return source

    def store_global(self, frame, name, value):
        if frame.globals is not self.fn.__globals__:
            raise GraphBreak("writing a global of another module")
        self.global_writes[name] = value
        self.side_effects.append(("setglobal", name, value))

    def load_cell(self, frame, name):
        cell = frame.cells[name]
        if id(cell) in self.internal_cells:
            try:
                return cell.cell_contents
            except ValueError:
                raise NameError(f"free variable '{name}' referenced before assignment") from None
        if frame.function is self.fn:
            index = frame.code.co_freevars.index(name)
            source = sources.cell(index, name)
        else:
            fn_source = self.source_of.get(id(frame.function))
            if fn_source is None:
                raise GraphBreak(f"closure variable {name} of a function with no known origin")
            index = frame.code.co_freevars.index(name)
            source = sources.Source(f"{fn_source.expr}.__closure__[{index}].cell_contents",
                                    f"closure variable {name}")
        return self.lift(cell.cell_contents, source)

    def store_cell(self, frame, name, value):
        cell = frame.cells[name]
        if id(cell) not in self.internal_cells:
            raise GraphBreak(f"assigning to nonlocal variable {name} of an enclosing function",
                             "return the value instead")
        cell.cell_contents = value

    # ---- attributes ---------------------------------------------------------------------
    def load_attr(self, obj, name):
        source = self.source_of.get(id(obj))
        if source is not None:   # the dict's copy first: it holds attribute stores too
            through_dict = self.read_through_dict(obj, name)
            if through_dict is not _MISSING:
                return through_dict
        written = self.overlay.get((id(obj), name), _MISSING)
        if written is not _MISSING:
            return written
        if source is not None:
            if name == "__dict__":
                return self.lift_dict_of(obj, source)
            if any(key[0] == id(obj) for key in self.overlay):
                computed = self.computed_attribute(obj, name)
                if computed is not _MISSING:
                    return computed
            try:
                value = getattr(obj, name)
            except AttributeError:
                self.guard_absent(obj, name, source)
                raise
            if isinstance(value, types.MethodType) and value.__self__ is obj:
                method_source = sources.attribute(source, name)
                return types.MethodType(self.lift(value.__func__, sources.attribute(method_source, "__func__")), obj)
            return self.lift(value, sources.attribute(source, name))
        method = self.method_from_class(obj, name)
        if method is not None:
            return method
        if isinstance(obj, types.ModuleType) and numpy_map.to_numpy(obj) is not obj:
            return self.load_numpy_attr(obj, name)
        if isinstance(obj, ShimArray):
            if name in ("base", "flags") and not obj._scalar:
                found = self.ownership_attribute(obj, name)
                if found is not _MISSING:
                    return found
            if name == "strides" and not obj._scalar:
                numpy_view = self.staged_numpy_view(obj)
                if numpy_view is not None:
                    return numpy_view.strides
            return scalars.array_attribute(obj, name)
        if name == "__class__" and symbols.is_symbolic(obj):
            return symbols.python_type(obj)
        try:
            return self.wrap_foreign(getattr(obj, name))
        except AttributeError:
            real = numpy_map.to_numpy(obj)
            if real is obj or not isinstance(obj, types.ModuleType):
                self.guard_absent_from_class(obj, name)
                raise
            return getattr(real, name)   # NumPy the shim lacks: calling it is a graph break

    # ---- the caller's arrays: ownership and WRITEABLE ---------------------------------------
    def ownership_attribute(self, obj, name):
        """``base`` or ``flags`` of a NumPy input or a view of one. A graph input owns its
        memory and is writeable whatever the caller's array is, so NumPy's answer is read
        from the caller's array, and the trace is guarded on that fact (a call whose array
        differs recompiles). ``base`` is traced where it is None, or where the code only
        tests it against None (``a.base is not None``); the object itself is a graph break.
        _MISSING where ``obj`` does not come from a NumPy input (``scalars`` answers)."""
        root = view_root(obj)
        if id(root) not in self.caller_arrays:
            return _MISSING
        if name == "flags":
            return CallerFlags(obj, root, functools.partial(self.caller_flag, root),
                               functools.partial(self.layout_flag, obj, root))
        tested = _tested_against_none(self.frames[-1])
        if obj is not root and tested:
            return BASE_NOT_NONE   # a view's base is never None
        if self.caller_owns_base(root):
            return None if obj is root else root   # NumPy's view of an array with no base has it as base
        if tested:
            return BASE_NOT_NONE
        raise GraphBreak("ndarray.base of an input array (or a view of one) that is itself a view: the "
                         "trace sees a graph input, not the caller's array",
                         "real NumPy reads it; `a.base is None` and `a.base is not None` are traced")

    def caller_owns_base(self, root):
        """Whether NumPy's ``base`` of the caller's array behind input ``root`` is None (guarded)."""
        return self.caller_fact(root, "base")

    def caller_flag(self, root, name):
        """NumPy's ``flags.<name>`` of the caller's array behind input ``root`` (guarded)."""
        return self.caller_fact(root, name)

    def layout_flag(self, obj, root, name):
        """NumPy's layout flag ``name`` (c_contiguous, f_contiguous, aligned) of ``obj``, an
        input or a view of one whose caller's array is behind input ``root``; _MISSING where
        the trace's own answer is NumPy's. An input torch computes on in place has the
        caller's strides (guarded) but not necessarily its alignment; an input copied in
        (staged) has neither: its answers come from the caller's array (or the same view
        of it), guarded by the caller's strides and alignment."""
        if name == "aligned":
            aligned = self.caller_fact(root, "aligned")
            numpy_view = self.numpy_view(obj, root, break_if_unknown=False)
            return aligned if numpy_view is None else bool(numpy_view.flags.aligned)
        numpy_view = self.staged_numpy_view(obj)
        return _MISSING if numpy_view is None else bool(getattr(numpy_view.flags, name))

    def staged_numpy_view(self, obj):
        """The NumPy array ``obj`` stands for where ``obj`` is an input copied in (staged) or
        a view of one, its layout read from the caller's array: that array, or the same
        view of it, guarded by the caller's strides. None for any other array."""
        root = view_root(obj)
        if id(root) not in self.staged:
            return None
        source = self.caller_sources[id(root)]
        strides = tuple(self.caller_arrays[id(root)].strides)
        self.guards.add(f"{source.expr}.strides == {strides!r}", f"{source.label}.strides == {strides}")
        return self.numpy_view(obj, root, break_if_unknown=True)

    def numpy_view(self, obj, root, break_if_unknown):
        """NumPy's view of the caller's array behind input ``root`` that ``obj`` stands for:
        the graph's view steps from ``root`` to ``obj`` replayed on the caller's array (or
        that array, for ``root``). Where the steps are not known (arguments traced as
        symbols), a graph break or None (``break_if_unknown``)."""
        caller = self.caller_arrays[id(root)]
        if obj is root:
            return caller
        steps = view_steps.steps_between(obj._t, root._t) if type(caller) is numpy.ndarray else None
        if steps is not None:
            try:
                return view_steps.replay(caller, steps)
            except Exception:   # noqa: BLE001 - a step NumPy refuses on this layout
                pass
        if break_if_unknown:
            raise GraphBreak("the layout of a view of an input copied in (negative strides, a packed field): "
                             "the trace computes on a copy", "real NumPy reads it")
        return None

    def caller_fact(self, root, name):
        """``numpy_fact`` of the caller's array behind input ``root``, guarded."""
        source = self.caller_sources[id(root)]
        resumed = self.resume_frames is not None   # a fresh result counts as NumPy's own after a break
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = numpy_fact(self.caller_arrays[id(root)], name, resumed)
        if caught:   # WRITEABLE of an np.broadcast_arrays result warns at each read
            raise GraphBreak(f"flags.{name} of an input warns when read", "real NumPy reads it")
        check = f"{self.guards.const(numpy_fact)}({source.expr}, {name!r}, {resumed})"
        label = "base is None" if name == "base" else f"flags.{name}"
        self.guards.add(check if value else f"not {check}", f"{source.label}.{label} is {value}")
        return value

    def mirrored_dict(self, obj):
        """The trace's copy of the ``__dict__`` of ``obj`` (from outside), if the trace
        lifted it (``o.__dict__``, ``vars(o)``, ``self.__dict__.update``), else None."""
        try:
            real = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            return None
        seen = self.aliasable.get(id(real))
        return seen[0] if seen is not None and type(seen[0]) is dict else None

    def lift_dict_of(self, obj, source):
        """``obj.__dict__`` of an object from outside: its copy in the trace, holding the
        attributes the trace stored on ``obj`` before (still overlays, not yet replayed)."""
        fresh = self.mirrored_dict(obj) is None
        copy = self.lift(getattr(obj, "__dict__"), sources.attribute(source, "__dict__"))
        if fresh and type(copy) is dict:
            copy.update({key: value for (owner, key), value in self.overlay.items() if owner == id(obj)})
        return copy

    def read_through_dict(self, obj, name):
        """``obj.name`` once the trace holds a copy of ``obj.__dict__``: the copy's entry
        (writes through the dict are replayed on the object only after the graph ran, so
        the real attribute lags), unless the class's data descriptor wins. A name removed
        from the copy only is a graph break. _MISSING where the copy says nothing."""
        copy = self.mirrored_dict(obj)
        if copy is None or hasattr(type(getattr(type(obj), name, None)), "__set__"):
            return _MISSING
        if name in copy:
            return copy[name]
        if name in object.__getattribute__(obj, "__dict__"):
            raise GraphBreak(f"reading .{name} of a {type(obj).__name__} removed through its __dict__",
                             "it runs as written")
        return _MISSING

    def computed_attribute(self, obj, name):
        """``obj.name`` of an object from outside that the trace has written to (its real
        state lags the overlay until the graph ran), where the class computes the
        attribute: a property's getter or a user descriptor's ``__get__`` is inlined (it
        reads the overlay); a class's own ``__getattribute__`` is a graph break (the
        writes are replayed first). _MISSING where reading the real object is right."""
        if type(obj).__getattribute__ is not object.__getattribute__:
            raise GraphBreak(f"reading .{name} of a {type(obj).__name__} written to in the trace runs its "
                             "__getattribute__", "it runs as written")
        static = _class_attribute(obj, name)
        if isinstance(static, property) and is_user_function(static.fget):
            return self.call_now(static.fget, [obj], {})
        getter = getattr(type(static), "__get__", None)
        if is_user_function(getter) and (hasattr(type(static), "__set__") or name not in getattr(obj, "__dict__", ())):
            return self.call_now(getter, [static, obj, type(obj)], {})
        return _MISSING

    def method_from_class(self, obj, name):
        """A method an object made inside the trace finds on its class (``C().apply``),
        when the class came from outside: the function is lifted from the class (guarded
        by identity), so rebinding ``C.apply`` or changing its code is a recompile, not a
        reuse of the old graph. None for anything else."""
        cls_source = self.source_of.get(id(type(obj)))
        if cls_source is None or type(obj).__getattribute__ is not object.__getattribute__:
            return None
        if name in getattr(obj, "__dict__", ()):
            return None
        static = _class_attribute(obj, name)
        if not isinstance(static, types.FunctionType):
            return None
        return types.MethodType(self.lift(static, sources.attribute(cls_source, name)), obj)

    def load_numpy_attr(self, shim_module, name):
        """``np.<name>``: the object NumPy's module holds now, guarded by identity (a
        monkeypatched ``np.sum`` is a recompile), then swapped for the shim's. Without
        a source the module came from an import inside the function: the guard reads it
        from the module object itself."""
        real = numpy_map.to_numpy(shim_module)
        source = self.module_sources.get(id(shim_module))
        if source is None:
            source = self.module_sources[id(shim_module)] = sources.Source(self.guards.const(real), real.__name__)
        try:
            value = getattr(real, name)
        except AttributeError:
            self.guard_absent(real, name, source, library_hook=True)
            raise
        return self.lift(value, sources.attribute(source, name))

    def guard_absent(self, obj, name, source, library_hook=False):
        """``obj.name`` (``obj`` from outside, at ``source``) raised AttributeError, and
        the trace goes on with that (``getattr(obj, name, default)``, ``hasattr``, an
        ``except AttributeError``): guarded to stay absent, so setting it later is a
        recompile. A plain module looks in its ``__dict__`` (and a PEP 562 ``__getattr__``
        there, which would answer instead); anything else takes the lookup itself,
        ``not hasattr``: the instance's ``__dict__``, its class's MRO, a slot left unset,
        a ``__getattr__`` hook (run again, as each call of the function runs it).
        ``library_hook``: the module's ``__getattr__`` is NumPy's (it answers by name
        alone, and running it costs microseconds): only its ``__dict__`` is checked."""
        if type(name) is not str:
            raise GraphBreak(f"an attribute name of type {type(name).__name__}", "it runs as written")
        label = f"{source.label} has no attribute {name}"
        if type(obj) is types.ModuleType and (library_hook or "__getattr__" not in obj.__dict__):
            namespace = f"{source.expr}.__dict__"
            hook = "" if library_hook else f" and '__getattr__' not in {namespace}"
            self.guards.add(f"{name!r} not in {namespace}{hook}", label)
            return
        if self.overlay and any(key[0] == id(obj) for key in self.overlay) and \
                _class_attribute(obj, "__getattr__") is not _MISSING:
            # the hook reads the real object, which lags the trace's own writes to it
            raise GraphBreak(f"a missing attribute of a {type(obj).__name__} written to in the trace runs its "
                             "__getattr__", "it runs as written")
        self.guards.add(f"not hasattr({source.expr}, {name!r})", label)

    def guard_absent_from_class(self, obj, name):
        """``obj.name`` raised AttributeError, ``obj`` made inside the trace (its own
        ``__dict__`` is the trace's) from a class from outside: guarded that the class
        still has no ``name`` (set on the class later, every instance would find it).
        Where the class has one that the instance's lookup still fails on (a slot left
        unset, a property raising AttributeError), or where the metaclass has ``name``
        (the class then answers for it), the object its MRO holds for ``name`` (or none)
        is guarded by identity."""
        cls_source = self.source_of.get(id(type(obj)))
        if cls_source is None or type(name) is not str:
            return
        cls = type(obj)
        if not hasattr(cls, name):   # the cheap check, where it tells the MRO's answer
            self.guards.add(f"not hasattr({cls_source.expr}, {name!r})", f"{cls_source.label} has no attribute {name}")
            return
        static = _class_attribute(obj, name)
        self.guards.add(f"{self.guards.const(_mro_attribute)}({cls_source.expr}, {name!r}) is "
                        f"{self.guards.const(static)}",
                        f"{cls_source.label}'s classes hold the same {name}" if static is not _MISSING else
                        f"{cls_source.label}'s classes hold no {name}")

    def store_attr(self, obj, name, value):
        """``obj.name = value`` as CPython runs it. A plain store (into the instance's
        ``__dict__`` or a slot) to an object from outside is an overlay the trace reads
        back, replayed on the object after the graph ran; a store that runs code of the
        class (a property setter, a descriptor's ``__set__``, a ``__setattr__``) runs
        that code: inlined for an object made inside the trace, for real at a graph
        break for one from outside (replaying a plain setattr would run it twice, or
        skip what it does before the trace reads the attribute back). A store to an
        input array's ``shape``, ``strides`` or ``dtype`` changes the caller's array
        itself: a graph break, where NumPy runs it on that array."""
        if isinstance(obj, ShimArray):
            if id(obj) in self.shim_inputs and name not in _ARRAY_VALUE_ATTRIBUTES:
                raise GraphBreak(f"setting .{name} of an array from outside the function",
                                 "it changes the caller's array: NumPy runs it")
            setattr(obj, name, value)
            return
        source = self.source_of.get(id(obj))
        if source is not None:
            if not _plain_store(obj, name):
                raise GraphBreak(f"setting .{name} of a {type(obj).__name__} runs code of its class",
                                 "it runs as written")
            self.overlay[(id(obj), name)] = value
            self.side_effects.append(("setattr", source, name, value))
            copy = self.mirrored_dict(obj)
            if copy is not None:   # o.__dict__ read in the trace sees the store too
                copy[name] = value
            return
        code = _store_code(obj, name)
        if code is None:
            setattr(obj, name, value)
        else:
            fn, args = code
            self.call_now(fn, [*args, value], {})

    def delete_attr(self, obj, name):
        """``del obj.name``: on an object made inside the trace, for real, or through its
        class's ``__delattr__`` inlined; a graph break for anything from outside (its
        attribute reads are guarded and its overlay would go stale) or where the class
        runs other code for it (a property's deleter, a native ``__delattr__``)."""
        if id(obj) in self.source_of or isinstance(obj, ShimArray):
            raise GraphBreak(f"deleting the attribute {name} of a {type(obj).__name__} from outside the function",
                             "it runs as written")
        hook = type(obj).__delattr__
        if hook not in _PLAIN_HOOKS["__delattr__"] and is_user_function(hook):
            self.call_now(hook, [obj, name], {})
        elif _plain_store(obj, name, "__delattr__"):
            delattr(obj, name)
        else:
            raise GraphBreak(f"deleting the attribute {name} of a {type(obj).__name__} runs code of its class",
                             "it runs as written")

    def set_attribute_directly(self, obj, name, value, delete=False):
        """``object.__setattr__(obj, name, value)`` (a class's own ``__setattr__``, a
        frozen dataclass's ``__init__``) and ``object.__delattr__(obj, name)``: on an
        object made inside the trace it runs; on one from outside it is a graph break (a
        replayed setattr would go through the class's ``__setattr__`` again)."""
        if id(obj) in self.source_of or isinstance(obj, ShimArray):
            raise GraphBreak(f"object.__{'delattr' if delete else 'setattr'}__ of a {type(obj).__name__} from "
                             "outside the function", "it runs as written")
        if delete:
            object.__delattr__(obj, name)
        else:
            object.__setattr__(obj, name, value)

    # ---- values -------------------------------------------------------------------------
    def truth(self, value):
        if isinstance(value, ShimArray):
            raise GraphBreak("data-dependent branch: the condition is an array value",
                             "use np.where, or compute the condition outside the compiled function")
        if _user_truth(type(value)):
            # its __bool__ would read the object's real state, which the trace's own
            # writes (replayed only when the graph has run) and no guard keep up with
            raise GraphBreak(f"the truth of a {type(value).__name__} runs its own __bool__ or __len__",
                             "branch on a plain value (a bool, an int) computed from the object")
        return bool(value)

    def iterate(self, value):
        if isinstance(value, (list, tuple, range, dict, str, set, frozenset, ShimArray,
                              types.GeneratorType, enumerate, zip, map, filter, reversed)) or \
                hasattr(value, "__next__"):
            return value
        source = self.source_of.get(id(value))
        if source is not None:
            raise GraphBreak(f"iterating over {type(value).__name__} from outside the function")
        return value

    def format(self, value, convert, spec):
        if isinstance(value, ShimArray):
            raise GraphBreak("formatting an array as text needs its values")
        # a counter traced as a graph input (Resume.computed), a size that changed, or a
        # tuple of them (f"{a.shape}") would format as its symbols
        symbol_text.refuse(value)
        if convert is not None:
            value = convert(value)
        return format(value, spec)

    def apply(self, op, *operands):
        if self.opaque:
            self.check_transparent(*operands)
        if op in _IN_PLACE_METHODS and id(operands[0]) in self.mirrors:
            return self.apply_in_place(op, *operands)
        if (op is operator.mod or op is operator.imod) and isinstance(operands[0], (str, bytes)):
            symbol_text.refuse(operands[1])   # '%s' % (a.shape,) would print the symbols
        return op(*operands)

    def apply_in_place(self, op, left, right):
        """``lst += x``, ``lst *= n``, ``d |= m`` on the copy of a list or dict from outside:
        the caller's object is the one CPython changes, so the change is recorded like the
        containers' own methods (``mutate``). Where the in-place method declines
        (NotImplemented), CPython falls back to the plain operator, which makes a new object."""
        method = _IN_PLACE_METHODS[op]
        if hasattr(type(left), method):
            if method in _COPIES_CONTENTS:
                right = _snapshot(right)
            result = getattr(left, method)(right)
            if result is not NotImplemented:
                self.side_effects.append(("call", self.mirrors[id(left)], method, (right,)))
                return result
        return _PLAIN_OPERATORS[op](left, right)

    def check_transparent(self, *values):
        """An object from outside guarded by its type alone must not be read through an
        operator or a native call: their result depends on its state, which no guard
        checks (attribute loads are guarded one by one instead)."""
        for value in values:
            if id(value) in self.opaque:
                numpy_reason = numpy_map.runs_in_numpy(None, value)
                if numpy_reason is not None:
                    raise GraphBreak(*numpy_reason)
                raise GraphBreak(f"reading the value of a {type(value).__name__} from outside the function",
                                 "its state is not guarded; it runs uncompiled")

    def mutate(self, container, method, args, kwargs=None):
        """A method that changes a list, dict or set. On the copy of one from outside it is
        recorded, to be replayed on the caller's object after the graph ran: what a method
        copies out of its argument (``extend``, ``update``, ``+=``) is recorded as it is now
        (a list made later, a generator consumed here), keywords as their own ``update``."""
        source = self.mirrors.get(id(container))
        if source is not None:
            args = tuple(args)
            if method in _COPIES_CONTENTS and args:
                args = (_snapshot(args[0]), *args[1:])
            elif method == "__setitem__" and isinstance(args[0], slice):   # lst[i:j] = items copies them in
                args = (args[0], _snapshot(args[1]))
            if kwargs and method != "update":
                raise GraphBreak(f"{type(container).__name__}.{method} with keywords on one from outside the function",
                                 "it runs as written")
            self.side_effects.append(("call", source, method, args))
            if kwargs:
                self.side_effects.append(("call", source, method, (dict(kwargs),)))
        elif id(container) in self.source_of:
            raise GraphBreak(f"mutating a {type(container).__name__} from outside the function")
        return getattr(container, method)(*args, **(kwargs or {}))

    # ---- calls --------------------------------------------------------------------------
    def call(self, fn, args, kwargs):
        if type(fn) is functools.partial:
            return self.call(fn.func, [*fn.args, *args], {**fn.keywords, **kwargs})
        control = self.call_control(fn, args, kwargs)
        if control is not NOT_A_CONTROL:
            return control
        if isinstance(fn, types.MethodType) and is_user_function(fn.__func__):
            return self.inline(fn.__func__, [fn.__self__, *args], kwargs)
        if is_user_function(fn):
            return self.inline(fn, args, kwargs)
        if isinstance(fn, type) and _is_user_class(fn):
            return self.construct(fn, args, kwargs)
        if not isinstance(fn, type) and _is_user_class(type(fn)) and callable(fn):
            return self.call(self.load_attr(fn, "__call__"), args, kwargs)   # an instance's __call__
        return self.call_native(fn, args, kwargs)

    def call_control(self, fn, args, kwargs):
        """npcompile's own controls met inside traced code (see controls.py)."""
        if fn is controls.graph_break:
            raise GraphBreak("npcompile.graph_break() was called", "remove the call to join the graphs")
        if isinstance(fn, types.MethodType) and isinstance(fn.__self__, controls.error_on_graph_break):
            manager, frame = fn.__self__, self.frames[-1]
            if fn.__func__ is controls.error_on_graph_break.__enter__:
                manager.previous, frame.error_on_graph_break = frame.error_on_graph_break, manager.flag
                return manager
            frame.error_on_graph_break = manager.previous
            return False
        if fn in _CONTROL_CONSTRUCTORS:
            return fn(*args, **kwargs)
        if isinstance(fn, controls.numpy_op):
            return fn.trace_call(args)
        if isinstance(fn, Jitted):
            return self.push_frame(fn.fn, self.bind(fn.fn, args, kwargs, self.attribute_source(fn, "fn")),
                                   fullgraph=fn.fullgraph)
        marker = controls.error_on_graph_break_flag(fn)
        if marker is not None:
            inner = fn.__wrapped__
            return self.push_frame(inner, self.bind(inner, args, kwargs, self.attribute_source(fn, "__wrapped__")),
                                   error_on_graph_break=marker)
        if controls.disabled(fn) is not None:
            raise GraphBreak(f"{_describe(fn)} is marked npcompile.disable", "it runs uncompiled by request")
        if controls.is_disallowed(fn, numpy_map.to_numpy(fn), numpy_map.to_shim(fn)):
            raise GraphBreak(f"{_describe(fn)} is marked npcompile.disallow_in_graph",
                             "it runs uncompiled by request")
        if controls.is_allowed(fn, numpy_map.to_numpy(fn), numpy_map.to_shim(fn)):
            return fn(*args, **kwargs)
        if controls.is_nonstrict(fn):
            return with_shim_globals(fn)(*args, **kwargs)
        return NOT_A_CONTROL

    def inline(self, fn, args, kwargs):
        return self.push_frame(fn, self.bind(fn, args, kwargs, self.source_of.get(id(fn))))

    def attribute_source(self, obj, name):
        source = self.source_of.get(id(obj))
        return None if source is None else sources.attribute(source, name)

    def bind(self, fn, args, kwargs, source):
        """Bind a call like CPython. The defaults it uses are values the trace relies on:
        with the function's source known, each is lifted from ``fn.__defaults__`` /
        ``fn.__kwdefaults__`` (guarded by value, arrays as inputs), so rebinding them is
        a recompile. A function made inside the trace has traced defaults already."""
        code = fn.__code__
        if source is None or (not kwargs and len(args) == code.co_argcount and not code.co_kwonlyargcount):
            return bind_arguments(fn, args, kwargs)
        bound = bind_arguments(fn, args, kwargs)
        positional = code.co_varnames[:code.co_argcount]
        defaults = fn.__defaults__ or ()
        first_default = len(positional) - len(defaults)
        for i, name in enumerate(positional[first_default:], first_default):
            if i >= len(args) and name not in kwargs:
                defaults_source = sources.attribute(source, "__defaults__")
                self.guards.length(defaults_source, len(defaults))
                bound[name] = self.lift(defaults[i - first_default], sources.item(defaults_source, i - first_default))
        for name in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
            if name not in kwargs and name in (fn.__kwdefaults__ or {}):
                bound[name] = self.lift(fn.__kwdefaults__[name],
                                        sources.item(sources.attribute(source, "__kwdefaults__"), name))
        return bound

    def construct(self, cls, args, kwargs):
        if cls.__new__ is not object.__new__ and not issubclass(cls, tuple):
            raise GraphBreak(f"class {cls.__name__} defines __new__")
        if issubclass(cls, tuple):
            return self.call_native(cls, args, kwargs)
        obj = object.__new__(cls)
        self.keepalive.append(obj)
        init_source = self.attribute_source(cls, "__init__")
        init = cls.__init__ if init_source is None else self.lift(cls.__init__, init_source)
        if is_user_function(init):
            return self.push_frame(init, self.bind(init, [obj, *args], kwargs, init_source), returns_instead=obj)
        if init is not object.__init__:
            raise GraphBreak(f"class {cls.__name__} has a native __init__")
        return obj

    def call_native(self, fn, args, kwargs):
        bound_self = getattr(fn, "__self__", None)
        if self.opaque and not (_hashable(fn) and fn in _TYPE_ONLY_BUILTINS):
            self.check_transparent(bound_self, *args, *kwargs.values())
        if isinstance(fn, _C_METHODS) and bound_self is not None and \
                fn.__name__ in _MUTATING_METHODS and isinstance(bound_self, (list, dict, set)):
            return self.mutate(bound_self, fn.__name__, args, kwargs)
        special = _SPECIAL_CALLS.get(fn) if _hashable(fn) else None
        if special is not None:
            return special(self, args, kwargs)
        name = numpy_map.numpy_name(fn)
        if name is not None:
            raise GraphBreak(*numpy_map.runs_in_numpy(name))
        if not _is_pure_native(fn):
            raise GraphBreak(f"call to {_describe(fn)}, which npcompile cannot trace",
                             "it runs uncompiled; use npcompile.allow_in_graph if it is pure")
        if any(is_user_function(a) for a in args) or any(is_user_function(v) for v in kwargs.values()):
            result = callbacks.call_native(self, fn, args, kwargs, is_user_function,
                                           lambda obj: id(obj) in self.source_of)
        else:
            result = fn(*args, **kwargs)
        if type(result) is str and (args or kwargs or bound_self is not None):
            # str(n), repr(a.shape), "{}".format(n) of a symbol give its name: run for real
            symbol_text.refuse(bound_self, *args, *kwargs.values())
        return result


_MISSING = object()
#: attributes of an array whose store writes its values (into the graph), not its geometry
_ARRAY_VALUE_ATTRIBUTES = frozenset({"real", "imag", "flat"})
_IN_PLACE_METHODS = {operator.iadd: "__iadd__", operator.imul: "__imul__", operator.ior: "__ior__",
                     operator.iand: "__iand__", operator.ixor: "__ixor__", operator.isub: "__isub__"}
_PLAIN_OPERATORS = {operator.iadd: operator.add, operator.imul: operator.mul, operator.ior: operator.or_,
                    operator.iand: operator.and_, operator.ixor: operator.xor, operator.isub: operator.sub}
#: container methods that copy their first argument's contents in (not the argument itself)
_COPIES_CONTENTS = frozenset({"extend", "update", "__iadd__", "__ior__", "__iand__", "__ixor__", "__isub__"})


def _snapshot(value):
    """The contents ``value`` gives a method that copies them, as they are now: a mapping
    as a dict, another iterable as a list (a generator is consumed once, here). Immutable
    values, and what is not iterable (the method raises as CPython's does), stay as they are."""
    if isinstance(value, (tuple, str, bytes, range, frozenset)) or not hasattr(type(value), "__iter__"):
        return value
    if hasattr(type(value), "keys"):
        return dict(value)
    return list(value)


#: the stores of these classes' instances that run no code beyond the store itself
_PLAIN_HOOKS = {"__setattr__": (object.__setattr__, type.__setattr__, types.ModuleType.__setattr__),
                "__delattr__": (object.__delattr__, type.__delattr__, types.ModuleType.__delattr__)}


def _class_attribute(obj, name):
    """What ``name`` is on ``obj``'s class (its MRO's dicts, read without running code)."""
    return _mro_attribute(type(obj), name)


def _mro_attribute(cls, name):
    """What ``name`` is in the dicts of ``cls``'s MRO (_MISSING where none has it): what
    an instance's lookup finds on its class (a guard's check)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return _MISSING


def _plain_store(obj, name, hook="__setattr__"):
    """Whether storing (or deleting) ``obj.name`` only stores into the instance: the class
    has no ``__setattr__``/``__delattr__`` of its own and ``name`` is no data descriptor on
    it (a property, a user descriptor) other than a slot; and the instance has somewhere
    to put it (a ``__dict__``, or that slot)."""
    if getattr(type(obj), hook) not in _PLAIN_HOOKS[hook]:
        return False
    static = _class_attribute(obj, name)
    if isinstance(static, types.MemberDescriptorType):
        return True
    if static is not _MISSING and (hasattr(type(static), "__set__") or hasattr(type(static), "__delete__")):
        return False
    return type(obj).__dictoffset__ != 0


#: what ``a.base`` is, in a trace, when the code only tests it against None and it is not
#: None (the caller's base object stays outside the trace)
BASE_NOT_NONE = type("BaseNotNone", (), {"__slots__": (), "__repr__": lambda self: "<a base, not None>"})()
_NONE_JUMPS = frozenset(f"POP_JUMP_{way}IF_{test}NONE" for way in ("", "FORWARD_", "BACKWARD_")
                        for test in ("", "NOT_"))


def numpy_fact(array, name, resumed):
    """What NumPy answers for an array a call or a segment takes: ``base`` (base is None),
    ``owndata`` or ``writeable``. In a segment after a break (``resumed``), a fresh result
    of an earlier segment (a held tensor, ``Tensor.numpy()``'s array) is NumPy's own
    array, as real code at the break saw it (``real.fresh``): no base, owns its data. A
    call's argument is what it is (an array a jitted function returned has the tensor
    as its base)."""
    if type(array) is DeviceArray:
        return True   # an array NumPy makes read-only is never held
    if resumed and name != "writeable" and real.fresh(array):
        return True
    return array.base is None if name == "base" else bool(getattr(array.flags, name))


def _tested_against_none(frame):
    """Whether the value the frame's last instruction, a ``LOAD_ATTR`` of ``base``, pushed
    is only compared with None by the next ones (``x is None``, ``if x is not None:``)."""
    loaded = frame.instructions[frame.ip - 1]
    if loaded.opname != "LOAD_ATTR" or loaded.argval != "base":
        return False
    following = frame.instructions[frame.ip:frame.ip + 2]
    if following and following[0].opname in _NONE_JUMPS:
        return True
    return len(following) == 2 and following[0].opname == "LOAD_CONST" and following[0].argval is None and \
        following[1].opname == "IS_OP"


def view_root(array):
    """The shim array whose memory ``array`` views, through views and reversed copies
    (the shim keeps those in step with their source); ``array`` itself if it owns it."""
    for _ in range(1000):
        link = _flipped.reversal_of(array) if array._base is None else None
        above = array._base if array._base is not None else None if link is None else link[0]
        if above is None or above is array:
            break
        array = above
    return array


class CallerFlags(scalars.InputFlags):
    """The flags of a NumPy input or a view of one: OWNDATA and WRITEABLE are NumPy's for
    the caller's array (``fact``: its flag, read and guarded); ALIGNED and, for an input
    copied in, the contiguity flags NumPy's for the caller's array or the same view of it
    (``layout``: the flag, guarded, or _MISSING where the trace's is NumPy's)."""

    __slots__ = ("_root", "_fact", "_layout")

    def __init__(self, a, root, fact, layout):
        super().__init__(a)
        self._root, self._fact, self._layout = root, fact, layout

    def _contiguous(self, order):
        value = self._layout("c_contiguous" if order == "C" else "f_contiguous")
        return super()._contiguous(order) if value is _MISSING else value

    @property
    def aligned(self):
        return self._layout("aligned")

    # NumPy's combined flags
    contiguous = scalars.InputFlags.c_contiguous
    fortran = scalars.InputFlags.f_contiguous

    @property
    def behaved(self):
        return self.aligned and self.writeable

    @property
    def carray(self):
        return self.c_contiguous and self.behaved

    @property
    def farray(self):
        # NumPy's own test: any of F_CONTIGUOUS, ALIGNED, WRITEABLE set, and not C_CONTIGUOUS
        return (self.f_contiguous or self.aligned or self.writeable) and not self.c_contiguous

    @property
    def fnc(self):
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self):
        return self.f_contiguous or self.c_contiguous

    def __getitem__(self, name):
        key = _COMBINED_FLAG_KEYS.get(name.upper()) if isinstance(name, str) else None
        return getattr(self, key) if key is not None else super().__getitem__(name)

    @property
    def owndata(self):
        return self._a is self._root and self._fact("owndata")

    def _writeable(self):
        """A view the shim made read-only (``broadcast_to``) is; else the caller's array decides."""
        return scalars.ShimFlags.writeable.fget(self) and self._fact("writeable")

    writeable = property(_writeable, scalars.ShimFlags.writeable.fset)   # setting it: the shim's refusal


_COMBINED_FLAG_KEYS = {"B": "behaved", "BEHAVED": "behaved", "CA": "carray", "CARRAY": "carray",
                       "FA": "farray", "FARRAY": "farray", "FNC": "fnc", "FORC": "forc",
                       "CONTIGUOUS": "c_contiguous", "FORTRAN": "f_contiguous"}


def _store_code(obj, name):
    """The user code ``obj.name = value`` runs, as (function, leading arguments), or None
    when the store runs none of the user's code (a plain store, or native code such as a
    slot). A ``__setattr__`` of the class comes first, then a data descriptor of ``name``:
    a property's setter, a descriptor class's ``__set__``."""
    hook = type(obj).__setattr__
    if hook not in _PLAIN_HOOKS["__setattr__"]:
        return (hook, [obj, name]) if is_user_function(hook) else None
    static = _class_attribute(obj, name)
    if isinstance(static, property):
        return (static.fset, [obj]) if is_user_function(static.fset) else None
    setter = getattr(type(static), "__set__", None)
    if is_user_function(setter):
        return setter, [static, obj]
    return None


#: builtins that read an object's type (guarded) or go through guarded attribute loads
_TYPE_ONLY_BUILTINS = {isinstance, issubclass, type, callable, getattr, hasattr, setattr, super}


NOT_A_CONTROL = object()
_CONTROL_CONSTRUCTORS = (controls.error_on_graph_break, controls.nonstrict_trace, controls.disable,
                         controls.allow_in_graph, controls.disallow_in_graph)



def with_shim_globals(fn):
    """``fn`` with every NumPy module and function in its globals swapped for the shim's."""
    swapped = {name: numpy_map.to_shim(value) for name, value in fn.__globals__.items()}
    clone = types.FunctionType(fn.__code__, swapped, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    return clone


def _graph_size():
    """Nodes recorded so far by the make_fx trace in progress."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode
    mode = get_proxy_mode()
    return len(mode.tracer.graph.nodes) if mode is not None else 0


def negative_strides(array):
    return any(stride < 0 for stride in array.strides)


def supported_dtype(dtype):
    try:
        shim.dtype(dtype)
        return True
    except shim.UnsupportedError:
        return False


def _hashable(fn):
    try:
        hash(fn)
        return True
    except TypeError:
        return False


def _describe(fn):
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"{module}.{name}" if module else name


def _guard_by_identity(value):
    """Modules, classes and cells, and callables other than instances of user classes
    (functions, ufuncs, NumPy's dispatchers, C callables such as operator.itemgetter(1)):
    what calling one does depends on which object it is. A user class instance is
    guarded by type: the trace reads its state through guarded attribute loads."""
    if isinstance(value, (types.ModuleType, types.CellType, type)):
        return True
    return callable(value) and not _is_user_class(type(value))


def _is_user_class(cls):
    module = getattr(cls, "__module__", "") or ""
    if module.split(".")[0] in ("builtins", "torch_numpy_shim", "torch", "numpy", "npcompile"):
        return False
    file = getattr(sys.modules.get(module), "__file__", None) or ""
    return not file.startswith(_STDLIB_DIRS)


def _is_pure_native(fn):
    if fn in _PURE_BUILTINS if _hashable(fn) else False:
        return True
    module = getattr(fn, "__module__", None) or ""
    top = module.split(".")[0]
    if top in ("torch_numpy_shim", "torch") or module in _PURE_MODULES:
        return True
    if isinstance(fn, (ShimArray, shim.dtype, scalars.ScalarMethod)) or \
            isinstance(getattr(fn, "__self__", None), (ShimArray, shim.dtype)):
        return True
    if isinstance(fn, _C_METHODS) and isinstance(getattr(fn, "__self__", None), _CONTAINER_TYPES) and \
            (isinstance(fn, types.BuiltinMethodType) or fn.__name__ not in _MUTATING_METHODS):
        return True
    if isinstance(fn, type) and (issubclass(fn, tuple) and hasattr(fn, "_fields")):
        return True
    return False


def arg_count(code):
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return n


def bind_arguments(fn, args, kwargs):
    """Bind call arguments to ``fn``'s parameters like CPython does (defaults included)."""
    code = fn.__code__
    if not kwargs and len(args) == code.co_argcount and not code.co_kwonlyargcount and \
            not code.co_flags & 0x0C:
        return dict(zip(code.co_varnames, args))
    import inspect
    bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def _call_float(tracer, args, kwargs):
    return _scalar_conversion(float, args, kwargs)


def _call_int(tracer, args, kwargs):
    return _scalar_conversion(int, args, kwargs)


def _call_bool(tracer, args, kwargs):
    if args and isinstance(args[0], ShimArray):
        return tracer.truth(args[0])
    return bool(*args, **kwargs)


def _call_complex(tracer, args, kwargs):
    return _scalar_conversion(complex, args, kwargs)


def _scalar_conversion(kind, args, kwargs):
    if any(isinstance(a, ShimArray) for a in args):
        raise GraphBreak(f"{kind.__name__}() of an array needs its value",
                         "keep it an array (e.g. x.astype(float)) or compute it outside")
    return kind(*args, **kwargs)


def _call_print(tracer, args, kwargs):
    raise GraphBreak("print() is a side effect", "printing runs outside the graph")


def _call_getattr(tracer, args, kwargs):
    obj, name, *default = args
    try:
        return tracer.load_attr(obj, name)
    except AttributeError:
        if default:
            return default[0]
        raise


def _call_hasattr(tracer, args, kwargs):
    try:
        tracer.load_attr(args[0], args[1])
        return True
    except AttributeError:
        return False


def _call_setattr(tracer, args, kwargs):
    tracer.store_attr(*args)


def _call_delattr(tracer, args, kwargs):
    tracer.delete_attr(*args)


def _call_map(tracer, args, kwargs):
    return lazy_iterators.make_map(tracer, args, kwargs)


def _call_filter(tracer, args, kwargs):
    return lazy_iterators.make_filter(tracer, args, kwargs)


def _reads_frame(fn):
    """``globals()``, ``locals()``, ``vars()``, ``dir()``, ``eval``/``exec`` without
    globals: the traced frame's namespaces, not the tracer's own (namespaces.py)."""
    def call(tracer, args, kwargs):
        if not namespaces.reads_frame(fn, args, kwargs):
            return fn(*args, **kwargs)
        frame = tracer.frames[-1]
        if fn is globals:
            return _frame_globals(tracer, frame)
        if fn is eval or fn is exec:
            raise GraphBreak(f"{fn.__name__}() of code in the function's own namespaces",
                             "it runs for real, in the function's frame")
        snapshot = namespaces.frame_locals(tracer, frame)
        return sorted(snapshot) if fn is dir else snapshot
    return call


def _frame_globals(tracer, frame):
    if frame.globals is tracer.fn.__globals__:
        return tracer.lift(frame.globals, sources.Source("G", "globals()"))
    name = frame.globals.get("__name__")
    if not namespaces.module_namespace(frame.globals):
        raise GraphBreak(f"globals() of a function whose module ({name}) is not importable")
    return tracer.lift(frame.globals, tracer.globals_source(frame))


def _call_sorted(tracer, args, kwargs):
    key = kwargs.pop("key", None)
    items = list(args[0])
    if key is None:
        return sorted(items, **kwargs)
    keys = [tracer.call_now(key, [x], {}) for x in items]
    order = sorted(range(len(items)), key=keys.__getitem__, reverse=kwargs.get("reverse", False))
    return [items[i] for i in order]


def _call_super(tracer, args, kwargs):
    if args:
        return super(*args)
    frame = tracer.frames[-1]
    cls = frame.cells["__class__"].cell_contents
    first = frame.code.co_varnames[0]
    return super(cls, frame.locals[first])


def _call_next(tracer, args, kwargs):
    if id(args[0]) in tracer.source_of:
        raise GraphBreak("next() on an iterator passed into the function",
                         "advancing it is a side effect on the caller's object; pass a list instead")
    return next(*args)


def _call_isinstance(tracer, args, kwargs):
    obj, classes = args
    if isinstance(obj, ShimArray):
        return scalars.is_instance(obj, classes)
    return isinstance(symbols.stand_in(obj), tuple(numpy_map.to_shim(c) for c in classes)
                      if isinstance(classes, tuple) else numpy_map.to_shim(classes))


def _call_type(tracer, args, kwargs):
    if len(args) == 1 and not kwargs:
        if isinstance(args[0], ShimArray):
            return scalars.type_of(args[0])
        if isinstance(args[0], ScalarMeta):  # the shim's np.float64 stands for NumPy's, a plain type
            return type
        return lazy_iterators.BUILTIN_OF.get(type(args[0])) or symbols.python_type(args[0])
    return type(*args, **kwargs)


def _call_issubclass(tracer, args, kwargs):
    return scalars.is_subclass(*args, **kwargs)


_SPECIAL_CALLS = {
    float: _call_float, int: _call_int, bool: _call_bool, complex: _call_complex,
    print: _call_print, input: _call_print, open: _call_print,
    getattr: _call_getattr, hasattr: _call_hasattr, setattr: _call_setattr, delattr: _call_delattr,
    object.__setattr__: lambda t, a, k: t.set_attribute_directly(*a),
    object.__delattr__: lambda t, a, k: t.set_attribute_directly(*a, None, delete=True),
    map: _call_map, filter: _call_filter, sorted: _call_sorted, super: _call_super,
    isinstance: _call_isinstance, next: _call_next, type: _call_type, issubclass: _call_issubclass,
    **{fn: _reads_frame(fn) for fn in (globals, locals, vars, dir, eval, exec)},
    # each calls the object it is keyed by, not ``math.floor`` as it is at the call: a
    # user's function that calls the real one while math.floor is monkeypatched
    **{fn: (lambda fn: lambda t, a, k: _scalar_conversion(fn, a, k))(fn)
       for fn in (math.floor, math.ceil, math.sqrt, math.isnan, math.isfinite, operator.index)},
    range: lambda t, a, k: loops.make_range(*a, **k),
}
