"""From a traced segment's end state to the caller's objects.

While tracing, what the segment hands back (the return value, or at a graph break the
whole frame stack) and the writes it made to objects that outlive it are encoded as
Python source over the graph's outputs ``out`` and the segment's inputs ``L``. The
runtime compiles that source into each entry's call function, where it converts tensors
to NumPy's exact types, replays the side effects in program order and builds the result.

An array that NumPy would hand back as a view of another array the segment computed
(``u[::-1]``, ``u[None]``, ``u.T`` of ``u = a + 1``, returned or held by a frame at a
break) is built as that view of the other's NumPy array (``view_steps.replay``), not
converted from its own tensor: torch has no negative strides, so the graph's ``u[::-1]``
is a copy, and a write through it after the break, or into a returned one, would miss
``u``. The steps are read from the graph the trace is recording (``view_steps``), the
same table ``runtime.view_replay`` replays on the caller's inputs.
"""
import builtins
import dataclasses
import functools
import types

import numpy
import torch

import torch_numpy_shim as shim
from torch_numpy_shim._graph_warnings import warn_now
from torch_numpy_shim._ndarray import ndarray as ShimArray

from ..errors import GraphBreak, RerunUncompiled
from . import held_inputs, liveness, loops, numpy_map, real, scalars, view_steps
from .frame import NO_VALUE, NULL, Frame, Resume
from .interpreter import BASE_NOT_NONE, view_root
from .resident import DeviceArray, owned_by_numpy

#: jumps that pop a condition and test its truth (3.11's and 3.12+'s names)
_CONDITION_JUMPS = frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
                              "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE"})
#: a C method bound to an object (``lst.append``) and a slot's (``lst.__setitem__``, a method-wrapper)
_BOUND_C_METHODS = (types.BuiltinMethodType, types.MethodWrapperType)
_ITERATOR_TYPES = tuple(type(it) for it in (iter([]), iter(()), iter(range(0)), enumerate([]),
                                            zip(), reversed([]), iter({}), iter({}.values()),
                                            iter({}.items())))


@dataclasses.dataclass(frozen=True)
class SegmentEnd:
    """What a finished trace hands to output planning: the segment's result and what the
    tracer recorded that the encoding needs (built by capture from the tracer)."""

    result: object            # the return value, or a Resume holding the traced frames
    checks: list              # bool tensors of NumPy's deferred value checks (any true: rerun as written)
    warnings: list            # (bool tensor, message) of NumPy's warnings the data decides
    side_effects: list        # writes to objects that outlive the segment, in program order:
    #                           ("setattr", source, name, value), ("setglobal", name, value),
    #                           ("call", source, method, args)
    inputs: list              # the graph's inputs (ArrayInput), for their examples
    shim_inputs: dict         # id(shim array) -> Source of the graph input it is
    mirrors: dict             # id(traced copy of an outside list/dict) -> Source of the original
    source_of: dict           # id(outside object) -> Source it was read from
    internal_cells: set       # ids of cells the segment made (others are the caller's)
    created_functions: set    # ids of functions the segment defined (cannot leave it)


class OutputPlan:
    def __init__(self):
        self.constants = {"_restore": _restore, "_frame": Frame.rebuilt, "_cell": types.CellType,
                          "_method": types.MethodType, "_rebuild": _rebuild, "NULL": NULL,
                          "NO_VALUE": NO_VALUE, "_Resume": Resume, "_resident": DeviceArray, "_host": held_inputs.host,
                          "RerunUncompiled": RerunUncompiled, "_warn": warn_now}
        self.conversions = []   # "name = expression" lines, dependencies first
        self.statements = []    # side effects, in program order
        self.result = "None"
        self.plain_cpu_outputs = True  # no output is on a device or carries a conj/neg bit
        self.array_outputs = 0         # graph outputs converted to NumPy arrays or scalars
        self.host_copies = 0           # device-resident inputs brought to the host
        self.checks = []               # "out[i]" for each deferred value check (a bool)
        self.warnings = []             # ("out[i]", message) for each warning the data decides
        self.any_flag = None           # "out[i]": any check or warning holds (with two or more)
        self.warn_in_place = False     # a warning is emitted here, not by rerunning as written

    def const(self, value):
        name = f"r{len(self.constants)}"   # "r": apart from the guards' "k" names
        self.constants[name] = value
        return name

    def body(self):
        """The lines that turn ``out`` (and ``L``) into the result, ending in return;
        first the value checks NumPy makes (any that holds: run as written instead)."""
        return self.flag_lines() + self.conversions + self.statements + [f"return {self.result}"]

    def flag_lines(self):
        """The checks and warnings: a warning's condition reruns the call as written
        (NumPy warns) unless ``warn_in_place`` (the segment wrote into its inputs), where
        the message is warned here. With two or more, one read of their ``any`` first."""
        rerun = self.checks + ([] if self.warn_in_place else [flag for flag, _ in self.warnings])
        lines = [f"if {' or '.join(rerun)}:", "    raise RerunUncompiled()"] if rerun else []
        if self.warn_in_place:
            for flag, message in self.warnings:
                lines += [f"if {flag}:", f"    _warn({message!r})"]
        if self.any_flag is None or not lines:
            return lines
        return [f"if {self.any_flag}:"] + [f"    {line}" for line in lines]

    def namespace(self, globals_dict, closure, tensor_outputs):
        to_array = _to_numpy_array if self.plain_cpu_outputs else _to_numpy_array_any
        to_scalar = _to_numpy_scalar_cpu if self.plain_cpu_outputs else _to_numpy_scalar
        return dict(self.constants, G=globals_dict, B=builtins.__dict__, C=closure,
                    _array=_to_tensor if tensor_outputs else to_array,
                    _warns_on_write=_to_tensor if tensor_outputs else _warning_on_write(to_array),
                    _owned=_to_tensor if tensor_outputs else _owned_by_numpy(to_array),
                    _scalar=_to_tensor if tensor_outputs else to_scalar)


class _Encoder:
    """Turns traced values into expressions; each object is built once (``memo``), so
    values shared in the trace stay shared in the result."""

    def __init__(self, end, p, resident, numpy_program=False, either=frozenset()):
        self.end = end
        self.p = p
        self.numpy_program = numpy_program   # a loop's test may be a Python bool (``condition``)
        self.either = either       # sources of inputs that may be an ndarray or a held tensor
        self.tensors = []
        self.memo = {}
        self.resident = resident   # arrays only frames hold may stay tensors
        self.held = set()          # indices into ``tensors`` of the arrays frames hold as tensors
        self.deferred = {}         # id(array) -> (name, array): frame slots decided at the end
        self.examples = {inp.source.expr: inp.example for inp in end.inputs}
        self.computed = set()      # frame slots holding values the graph computed (see Resume)
        self.views = {}            # id(array) -> (base array, steps) or None (``computed_view``)
        self.resumes = False       # the segment ends at a break: real code takes the arrays next

    def name(self, value, expression):
        name = f"v{len(self.memo)}"
        self.memo[id(value)] = name
        self.p.conversions.append(f"{name} = {expression}")
        return name

    def array(self, value):
        if id(value) in self.memo:
            return self.memo[id(value)]
        source = self.end.shim_inputs.get(id(value))
        if source is not None and not value._scalar:
            if source.expr in self.either:   # once per segment: one NumPy array for every use
                return self.name(value, f"_host({source.expr})")
            if type(self.examples.get(source.expr)) is not DeviceArray:
                return source.expr
            self.p.host_copies += 1   # held by more than a frame slot: it becomes a NumPy array
            return self.name(value, f"{source.expr}.to_host()")
        view = self.computed_view(value)
        if view is not None:   # NumPy's view of the base's array: no graph output of its own
            base = self.array(view[0])
            name = self.name(value, f"{self.p.const(view_steps.replay)}({base}, {self.p.const(view[1])})")
        else:
            # a broadcast_arrays result stays writeable (the _view converter would make a
            # view overlapping itself read-only, as broadcast_to's) and warns on a write
            warns = value._warn_on_write and not value._readonly and self.numpy_program
            kind = "_scalar" if value._scalar else "_warns_on_write" if warns else "_array"
            if kind == "_array" and self.resumes and self.numpy_program and view_root(value) is value:
                kind = "_owned"   # real code may make it read-only and writeable again
            self.tensors.append(value._t)
            name = self.name(value, f"{kind}(out[{len(self.tensors) - 1}])")
        if value._readonly and not value._scalar and self.numpy_program:
            self.p.conversions.append(f"{name}.flags.writeable = False")   # broadcast_to, diagonal: NumPy's flag
        return name

    def computed_view(self, value):
        """(base, steps) when ``value`` is, in NumPy, a view of ``base``, an array the
        segment computed (not an input: ``view_replay`` builds those at run time), reached
        through views ``replay`` makes; else None. NumPy programs only (torch results
        stay torch's); not for a broadcast_arrays result (its WARN_ON_WRITE flag)."""
        if id(value) not in self.views:
            found = None
            if self.numpy_program and not value._scalar and not value._warn_on_write:
                root = view_root(value)
                if root is not value and id(root) not in self.end.shim_inputs and not root._scalar:
                    steps = view_steps.steps_between(value._t, root._t)
                    found = None if steps is None else (root, steps)
            self.views[id(value)] = found
        return self.views[id(value)]

    def __call__(self, value):
        p, end = self.p, self.end
        if isinstance(value, ShimArray):
            return self.array(value)
        if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            self.tensors.append(value)   # a size known only at run time: a graph output
            kind = {torch.SymInt: "int", torch.SymFloat: "float", torch.SymBool: "bool"}[type(value)]
            return f"{kind}(out[{len(self.tensors) - 1}])"
        if id(value) in self.memo:
            return self.memo[id(value)]
        for table in (end.mirrors, end.source_of):
            source = table.get(id(value))
            if source is not None:
                return source.expr
        if value is BASE_NOT_NONE:   # held at a break only on its way to an ``is None`` test
            return p.const(value)
        if value is NULL or value is NO_VALUE:
            return "NULL" if value is NULL else "NO_VALUE"
        if isinstance(value, (bool, int, str, bytes, type(None), type(Ellipsis))):
            return repr(value)
        if isinstance(value, slice) and any(isinstance(b, (ShimArray, torch.SymInt)) for b in
                                            (value.start, value.stop, value.step)):
            # a slice of traced bounds (``data[start:stop]`` with ``start = indptr[row]``)
            return f"slice({self(value.start)}, {self(value.stop)}, {self(value.step)})"
        if isinstance(value, (float, complex, slice, range, numpy.generic)):
            return p.const(value)
        if isinstance(value, tuple):
            items = [self(v) for v in value]
            if hasattr(value, "_fields"):
                return f"{p.const(type(value))}({', '.join(items)})"
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        if isinstance(value, list):
            return self.name(value, f"[{', '.join(self(v) for v in value)}]")
        if type(value) is dict:
            return self.name(value, "{" + ", ".join(f"{self(k)}: {self(v)}" for k, v in value.items()) + "}")
        if isinstance(value, (set, frozenset)):
            return self.name(value, f"{type(value).__name__}([{', '.join(self(v) for v in value)}])")
        if isinstance(value, shim.dtype):
            return p.const(value.np)
        if isinstance(value, scalars.ShimFlags):   # an array's flags, at a break: NumPy's of its array
            return f"{p.const(real.array_flags)}({self(value._a)})"
        if isinstance(value, types.CellType):
            return self.cell(value)
        if isinstance(value, types.MethodType) and isinstance(value.__self__, ShimArray):
            return f"getattr({self(value.__self__)}, {_numpy_method_name(value)!r})"
        if isinstance(value, types.MethodType) and _becomes_numpy(value.__self__):
            return f"getattr({self(value.__self__)}, {_numpy_receiver_method(value)!r})"
        if isinstance(value, types.MethodType):
            return f"_method({self(value.__func__)}, {self(value.__self__)})"
        if isinstance(value, scalars.ScalarMethod) or \
                isinstance(value, _BOUND_C_METHODS) and not isinstance(value.__self__, types.ModuleType):
            return f"getattr({self(value.__self__)}, {value.__name__!r})"
        if isinstance(value, loops.RangeCursor):   # the real iterator, advanced past the chunk
            if not value.advanced:   # one iteration per run: the iterator as it is, no call
                return self.name(value, value.source.expr)
            return self.name(value, f"{p.const(loops.advance)}({value.source.expr}, {value.advanced})")
        if isinstance(value, loops.SymRange):
            return self.name(value, f"range({self(value.start)}, {self(value.stop)}, {self(value.step)})")
        if isinstance(value, loops.SymRangeIterator):
            return self(value._real) if not value.untouched else self.name(value, f"iter({self(value.range)})")
        if isinstance(value, _ITERATOR_TYPES):
            rebuild_fn, args, *state = value.__reduce__()
            state = self(state[0]) if state else "None"
            return self.name(value, f"_rebuild({p.const(rebuild_fn)}, {self(args)}, {state})")
        if type(value) is functools.partial:   # made in the trace: a new one per call, of its values
            return self.partial(value)
        if isinstance(value, types.FunctionType) and id(value) in end.created_functions:
            raise GraphBreak("a function defined inside the compiled function is live at a break",
                             "define it at module level to let tracing resume after the break")
        if callable(value) or isinstance(value, (types.ModuleType, type)):
            return p.const(to_numpy_object(value))
        if hasattr(value, "__dict__") and not isinstance(value, types.GeneratorType):
            obj = self.name(value, f"_restore({p.const(type(value))})")
            fields = ", ".join(f"{k!r}: {self(v)}" for k, v in vars(value).items())
            self.p.conversions.append(f"{obj}.__dict__.update({{{fields}}})")
            return obj
        raise GraphBreak(f"a {type(value).__name__} cannot leave a compiled function")

    def partial(self, value):
        """A ``functools.partial`` made in the trace, made again each run from what it holds
        (its function, arguments and keywords as outputs), as CPython makes one per call."""
        made = f"{self.p.const(functools.partial)}({self(value.func)}, *{self(value.args)}, **{self(value.keywords)})"
        obj = self.name(value, made)
        if value.__dict__:
            fields = ", ".join(f"{k!r}: {self(v)}" for k, v in value.__dict__.items())
            self.p.conversions.append(f"{obj}.__dict__.update({{{fields}}})")
        return obj

    def cell(self, cell):
        if id(cell) not in self.end.internal_cells:
            return self.p.const(cell)
        try:
            contents = cell.cell_contents
        except ValueError:
            return self.name(cell, "_cell()")
        return self.name(cell, f"_cell({self(contents)})")

    def slot(self, value):
        """A value a frame holds directly at a break. With residency, an array gets a
        name decided once everything is encoded (see ``resolve_slots``)."""
        if not (self.resident and isinstance(value, ShimArray) and not value._scalar):
            return self(value)
        name, _ = self.deferred.setdefault(id(value), (f"d{len(self.deferred)}", value))
        return name

    def resolve_slots(self):
        """An array held only by frame slots stays a tensor (``_resident``); one also
        held by a container, a cell, an object or a side effect is the NumPy array built
        for those, so aliases stay aliases; so is one NumPy makes read-only (a tensor has
        no such flag), one with a lazy conjugate or negative bit (the next graph
        would read it unresolved), and a view of a computed array with that array (NumPy's
        view of NumPy's array, ``computed_view``)."""
        slots = [value for _, value in self.deferred.values()
                 if id(value) not in self.memo and id(value) not in self.end.shim_inputs]
        bases = {id(view[0]) for view in map(self.computed_view, slots) if view}   # before any slot is held
        for name, value in self.deferred.values():
            source = self.end.shim_inputs.get(id(value))
            if id(value) in self.memo:
                expression = self.memo[id(value)]
            elif source is not None:
                expression = source.expr
            elif value._readonly or value._warn_on_write or value._t.is_conj() or value._t.is_neg() or \
                    id(value) in bases or self.computed_view(value) is not None:
                expression = self.array(value)
            else:
                self.tensors.append(value._t)
                self.held.add(len(self.tensors) - 1)
                expression = f"_resident(out[{len(self.tensors) - 1}])"
            self.p.conversions.append(f"{name} = {expression}")

    def condition(self, f, top):
        """The expression for the top of the stack of the frame a break stops in before a
        conditional jump, when that is a computed 0-d bool array: a Python ``bool`` (the
        jump pops it unseen; ``item`` is cheaper than NumPy's scalar, once per iteration
        of a loop the runtime drives). Its own graph output, kept out of ``memo``: any
        other use of the value gets NumPy's scalar. None otherwise."""
        value = f.stack[-1] if top and self.numpy_program and f.stack else None
        if not isinstance(value, ShimArray) or not value._scalar or value.dtype.kind != "b" or \
                id(value) in self.end.shim_inputs or f.instructions[f.ip].opname not in _CONDITION_JUMPS:
            return None
        self.tensors.append(value._t)
        return f"out[{len(self.tensors) - 1}].item()"

    def frame(self, f, k, top=False):
        function = self.p.const(f.function) if k == 0 else self(f.function)
        dead = liveness.dead_locals(f.code, f.ip)   # never read again: no graph output for them
        live = {name: v for name, v in f.locals.items() if name not in dead}
        for name, v in live.items():
            if _computed(v, self.end.shim_inputs):
                self.computed.add(f"L[{k}].locals[{name!r}]")
        locals_ = "{" + ", ".join(f"{name!r}: {self.slot(v)}" for name, v in live.items()) + "}"
        condition = self.condition(f, top)
        values = f.stack[:-1] if condition is not None else f.stack
        stack = "[" + ", ".join([self.slot(v) for v in values] + [condition] * (condition is not None)) + "]"
        cells = "{" + ", ".join(f"{k!r}: {self.cell(c)}" for k, c in f.cells.items()) + "}"
        yielded = "None" if f.yielded is None else self(f.yielded)
        return (f"_frame({function}, {self.p.const(f.code)}, {f.ip}, {f.lineno}, {locals_}, {stack}, "
                f"{cells}, {self(f.kw_names)}, {yielded}, {self(f.returns_instead)}, "
                f"{f.error_on_graph_break}, {f.fullgraph})")


def plan(end, resident=False, numpy_program=False, either=frozenset()):
    """Encode a segment's end (its result, checks and side effects); returns (plan,
    output tensors). ``resident``: arrays that only frames hold at a break stay tensors.
    ``numpy_program``: no torch tensor among the inputs (results are NumPy's).
    ``either``: sources of inputs that may be an ndarray or a held tensor (held_inputs)."""
    p = OutputPlan()
    encode = _Encoder(end, p, resident, numpy_program, either)
    for condition in end.checks:
        encode.tensors.append(condition)
        p.checks.append(f"out[{len(encode.tensors) - 1}]")
    for condition, message in end.warnings:
        encode.tensors.append(condition)
        p.warnings.append((f"out[{len(encode.tensors) - 1}]", message))
    flags = list(encode.tensors)
    if len(flags) > 1:   # read once per call (each read of a tensor's truth costs a host call)
        encode.tensors.append(torch.stack(flags).any())
        p.any_flag = f"out[{len(encode.tensors) - 1}]"
    if isinstance(end.result, Resume):
        encode.resumes = True
        last = len(end.result.frames) - 1
        frames = [encode.frame(f, k, k == last) for k, f in enumerate(end.result.frames)]
        p.result = f"_Resume([{', '.join(frames)}], {p.const(frozenset(encode.computed))})"
    else:
        p.result = encode(end.result)
    for effect in end.side_effects:
        kind = effect[0]
        if kind == "setattr":
            _, source, name, value = effect
            p.statements.append(f"setattr({source.expr}, {name!r}, {encode(value)})")
        elif kind == "setglobal":
            _, name, value = effect
            p.statements.append(f"G[{name!r}] = {encode(value)}")
        else:
            _, source, method, args = effect
            p.statements.append(f"{source.expr}.{method}({', '.join(encode(a) for a in args)})")
    encode.resolve_slots()
    first = len(flags) + (p.any_flag is not None)
    arrays = [t for k, t in enumerate(encode.tensors) if k >= first and k not in encode.held
              and isinstance(t, torch.Tensor)]
    p.array_outputs = len(arrays)
    p.plain_cpu_outputs = all(t.device.type == "cpu" and not t.is_conj() and not t.is_neg() for t in arrays)
    return p, encode.tensors


def _computed(value, shim_inputs):
    """A symbolic int, or a float/complex NumPy scalar that is not one of the inputs."""
    if isinstance(value, torch.SymInt):
        return True
    return isinstance(value, ShimArray) and value._scalar and value.dtype.kind in "fc" and \
        id(value) not in shim_inputs


_to_numpy_array = torch.Tensor.numpy   # plain CPU outputs: the common, fast case


def _warning_on_write(to_array):
    """``to_array`` whose arrays carry NumPy's WARN_ON_WRITE (np.broadcast_arrays' results:
    writeable, a DeprecationWarning at the first write)."""
    def convert(tensor):
        array = to_array(tensor)
        array.flags._warn_on_write = True
        return array
    return convert


def _owned_by_numpy(to_array):
    """``to_array`` whose arrays NumPy lets real code make read-only and writeable again,
    as its own (``resident.owned_by_numpy``): for arrays the segment computed, at a break."""
    def convert(tensor):
        return owned_by_numpy(to_array(tensor))
    return convert


def _to_numpy_array_any(t):
    """Any tensor to NumPy: materialize lazy conj/neg bits, bring it to the host."""
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    if t.device.type != "cpu":
        t = t.cpu()
    return t.numpy()


def _to_numpy_scalar(t):
    return _to_numpy_array_any(t)[()]


#: dtypes whose Python value (``Tensor.item``) converts to the NumPy scalar exactly
_EXACT_ITEMS = {torch.bool: numpy.bool_, torch.float64: numpy.float64, torch.complex128: numpy.complex128,
                torch.int64: numpy.int64, torch.int32: numpy.int32, torch.int16: numpy.int16,
                torch.int8: numpy.int8, torch.uint8: numpy.uint8}


def _to_numpy_scalar_cpu(t):
    """A plain CPU tensor's NumPy scalar: through ``item`` where that is exact (2-3x
    faster than a NumPy view: a loop's condition is one per iteration)."""
    kind = _EXACT_ITEMS.get(t.dtype)
    if kind is None or t.dim():
        return t.numpy()[()]
    return kind(t.item())


def _to_tensor(t):
    return t


def _restore(cls):
    """An object of a user class built inside the function (its fields follow)."""
    return object.__new__(cls)


def _rebuild(fn, args, state):
    """An iterator rebuilt from its ``__reduce__`` parts, at the same position."""
    it = fn(*args)
    if state is not None:
        it.__setstate__(state)
    return it


def _numpy_method_name(method):
    """The name a shim array's bound method has on the NumPy object the array becomes
    (``a.__setitem__``, ``a.sum``): the real array's own method stands in for it."""
    name = method.__func__.__name__
    kind = numpy.generic if method.__self__._scalar else numpy.ndarray
    if not hasattr(kind, name):
        raise GraphBreak(f"the shim's method {name!r} has no NumPy counterpart to leave a compiled function")
    return name


def _becomes_numpy(receiver):
    """Whether a bound method's object leaves as another, NumPy's (a shim ufunc as
    ``numpy.add``): the shim's function bound to it would miss the shim's internals."""
    return callable(receiver) and not isinstance(receiver, types.FunctionType) and \
        to_numpy_object(receiver) is not receiver


def _numpy_receiver_method(method):
    """``np.add.at`` held at a break: NumPy's own ``at`` of ``numpy.add`` stands in for
    the shim's."""
    name = method.__func__.__name__
    if not hasattr(to_numpy_object(method.__self__), name):
        raise GraphBreak(f"the shim's method {name!r} has no NumPy counterpart to leave a compiled function")
    return name


def to_numpy_object(value):
    """Shim modules, functions, ufuncs and types that reach real Python go back to NumPy's."""
    if isinstance(value, type) and "_np_type" in getattr(value, "__dict__", {}):
        return value._np_type
    return numpy_map.to_numpy(value)
