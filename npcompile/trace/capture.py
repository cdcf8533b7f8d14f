"""Segment capture: run the tracer inside make_fx under our FakeTensorMode (which owns
a ShapeEnv), so every torch op the shim issues lands in an aten-level GraphModule.

torch's tracing machinery (fake tensors, ShapeEnv, make_fx) pulls in sympy, about a
second of import time, which a program that imports npcompile but has not called a
jitted function yet should not pay: ``_tracing`` imports it at the first capture."""
import dataclasses
import functools
import re
import time
import types

import numpy
import torch

from torch_numpy_shim import _errors as shim_errors
from torch_numpy_shim import _graph_warnings

from ..errors import GraphBreak, RestartTrace
from . import fp_state, held_inputs, liveness, outputs, resident, sources
from .guards import Guards
from .interpreter import ArrayInput, Tracer, negative_strides, supported_dtype
from .resident import DeviceArray


@functools.cache
def _tracing():
    """torch's tracing machinery, imported on first use (see the module docstring)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

    return types.SimpleNamespace(FakeTensorMode=FakeTensorMode, make_fx=make_fx, DimDynamic=DimDynamic,
                                 ShapeEnv=ShapeEnv, StatelessSymbolicContext=StatelessSymbolicContext)


@dataclasses.dataclass
class Capture:
    """What one successful trace produced: the graph, its example inputs and fake mode
    (for the backend), the inputs' sources, the guards and the output rebuilder."""

    gm: torch.fx.GraphModule
    fake_inputs: list
    fake_mode: object                 # the FakeTensorMode (and ShapeEnv) the graph was traced in
    inputs: list                      # ArrayInput per graph input, in order
    guards: Guards
    output_plan: outputs.OutputPlan
    tensor_outputs: bool              # a torch tensor was an input: results stay tensors
    int_examples: dict                # source expr -> value of ints traced as constants
    trace_seconds: float
    ends_in_break: GraphBreak | None  # the break the segment stops before, or None
    either: tuple = ()                # inputs that may be an ndarray or a held tensor (held_inputs)

    def add_shape_guards(self):
        """The ShapeEnv's guards on dynamic sizes, added once the backend has compiled:
        it may have specialized a size (e.g. for an op it has no dynamic kernel for)."""
        stride = self.guards.const(held_inputs.element_stride) if self.either else None
        either = {self.inputs[i].source.expr for i in self.either}
        for expression in shape_guards(self.fake_mode, self.fake_inputs, self.inputs, either, stride):
            self.guards.add(expression, f"sizes: {expression}", routing=True)

    @property
    def op_count(self):
        return sum(1 for n in self.gm.graph.nodes if n.op == "call_function")


def as_tensor(example):
    """The tensor a graph input is made from (zero-copy for NumPy on the CPU)."""
    if isinstance(example, torch.Tensor):
        return example
    if isinstance(example, DeviceArray):
        return example.tensor
    return torch.from_numpy(example)


@dataclasses.dataclass(frozen=True)
class _ShapeSource(torch._guards.Source):
    """Names an input for the ShapeEnv, so its guards come out in our expressions."""

    expr: str

    @property
    def name(self):
        return self.expr

    def guard_source(self):
        return torch._guards.GuardSource.LOCAL


def _fake_input(fake_mode, inp, device):
    """The fake value make_fx traces with: a FakeTensor (a NumPy input on the target
    device), or a SymInt for an int input."""
    if isinstance(inp.example, int):
        return fake_mode.shape_env.create_unspecified_symint_and_symbol(
            inp.example, _ShapeSource(inp.source.expr), _tracing().DimDynamic.DYNAMIC)
    fake = _fake(fake_mode, as_tensor(inp.example), inp.dynamic, inp.source)
    if isinstance(inp.example, numpy.ndarray) and device.type != "cpu":
        with fake_mode:
            fake = fake.to(device)
    return fake


def _dynamic_dims(requested, shape):
    """The requested dims that can be traced as dynamic: sizes 0 and 1 stay static (and
    exactly guarded). A size-0 or size-1 dim behaves unlike any other (empty results,
    broadcasting), so the ShapeEnv specializes such sizes anyway, silently and with no
    guard; a graph traced that way must never serve other sizes, nor a graph traced
    with a dynamic size (which assumes >= 2) serve 0 or 1."""
    return tuple(d for d in sorted(requested) if d < len(shape) and shape[d] >= 2)


def _fake(fake_mode, tensor, dynamic_dims, source):
    dynamic, static = _tracing().DimDynamic.DYNAMIC, _tracing().DimDynamic.STATIC
    sizes = [dynamic if d in dynamic_dims else static for d in range(tensor.ndim)]
    context = _tracing().StatelessSymbolicContext(dynamic_sizes=sizes)
    return fake_mode.from_tensor(tensor, symbolic_context=context, source=_ShapeSource(source.expr))


def shape_guards(fake_mode, fake_inputs, inputs, either=frozenset(), stride=None):
    """The ShapeEnv's guards on dynamic sizes, as expressions over the inputs' sources
    (valid for NumPy arrays and tensors alike: ``.shape`` instead of ``.size()``).
    ``either``: sources that may be an ndarray or a held tensor, whose strides are read
    by ``stride`` (the name of ``held_inputs.element_stride``)."""
    if not any(isinstance(t, torch.SymInt) or any(isinstance(size, torch.SymInt) for size in t.shape)
               for t in fake_inputs):
        return _specialized_sizes(fake_inputs, inputs)
    expressions = fake_mode.shape_env.produce_guards(fake_inputs, [_ShapeSource(i.source.expr) for i in inputs])
    expressions = [e.replace(".size()", ".shape") for e in expressions]
    for inp in inputs:
        expr = inp.source.expr
        pattern = re.escape(f"{expr}.stride()") + r"\[(\d+)\]"
        if expr in either:
            expressions = [re.sub(pattern, lambda m: f"{stride}({expr}, {m.group(1)})", e) for e in expressions]
        elif isinstance(inp.example, numpy.ndarray):   # NumPy's strides are in bytes
            expressions = [re.sub(pattern, lambda m: f"({expr}.strides[{m.group(1)}] // {expr}.itemsize)", e)
                           for e in expressions]
    return expressions + _specialized_sizes(fake_inputs, inputs)


def _specialized_sizes(fake_inputs, inputs):
    """Sizes traced as dynamic that the trace or the backend fixed to one value (an op
    with no symbolic kernel, say): ``produce_guards`` counts them as static and omits them."""
    checks = []
    for fake, inp in zip(fake_inputs, inputs):
        if isinstance(fake, torch.SymInt):
            if fake.node.maybe_as_int() is not None:
                checks.append(f"{inp.source.expr} == {fake.node.maybe_as_int()}")
            continue
        for d in inp.dynamic:
            size = fake.shape[d]
            fixed = size.node.maybe_as_int() if isinstance(size, torch.SymInt) else size
            if fixed is not None:   # a plain int: specialized when the input was faked
                checks.append(f"{inp.source.expr}.shape[{d}] == {fixed}")
    return checks


def entry_roots(bound_args, arg_names):
    """(value, source) of each argument of a call."""
    return [(value, sources.argument(i, name)) for i, (name, value) in enumerate(zip(arg_names, bound_args))]


def resume_roots(frames):
    """(value, source) of each local and stack slot of a resumed frame stack."""
    roots = []
    for k, frame in enumerate(frames):
        base = sources.Source(f"L[{k}]", f"frame {k}")
        dead = liveness.dead_locals(frame.code, frame.ip)
        roots += [(v, sources.item(sources.attribute(base, "locals"), name)) for name, v in frame.locals.items()
                  if name not in dead]
        roots += [(v, sources.item(sources.attribute(base, "stack"), j)) for j, v in enumerate(frame.stack)]
    return roots


def initial_inputs(roots):
    """Arrays reachable from the roots (directly or inside lists, tuples, dicts): the
    graph inputs we can declare before the first trace, saving restarts."""
    found = []

    def visit(value, source, depth):
        if isinstance(value, (numpy.ndarray, torch.Tensor, DeviceArray)):
            if isinstance(value, numpy.ndarray) and (not supported_dtype(value.dtype) or negative_strides(value)):
                return  # the tracer stops there with the reason
            if not any(inp.source == source for inp in found):
                found.append(ArrayInput(source, value))
        elif depth < 3 and isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                visit(item, sources.item(source, i), depth + 1)
        elif depth < 3 and type(value) is dict:
            for key, item in value.items():
                if isinstance(key, (str, int)):
                    visit(item, sources.item(source, key), depth + 1)

    for value, source in roots:
        visit(value, source, 0)
    return found


@dataclasses.dataclass(frozen=True)
class TraceStop:
    """Tracing stopped for good: ``error`` stopped it (a GraphBreak tracing cannot resume
    after, or an exception raised while tracing: the user's own, a layout torch cannot
    view, a failure in npcompile), and ``guards`` are the guards collected until then,
    which are all the stop depended on. The state it was traced for runs as written."""

    error: Exception
    guards: Guards


def capture(fn, bound_args, arg_names, resume_frames=None, device=torch.device("cpu"), fullgraph=False,
            dynamic_dims=lambda source, example: (), dynamic_ints=frozenset()):
    """Trace ``fn`` (from its entry, or from ``resume_frames``) into a graph: a Capture,
    or a TraceStop when tracing cannot go on. Tracing restarts whenever it declares a new
    input; at a resumable graph break it traces again and stops just before the breaking
    instruction, so the segment ends there. An exception raised before tracing starts
    propagates as it is (no guards were collected)."""
    roots = entry_roots(bound_args, arg_names) if resume_frames is None else resume_roots(resume_frames)
    inputs = initial_inputs(roots)
    stop_at, first_break = None, None
    start = time.perf_counter()
    tracing = _tracing()
    while True:
        tracer = Tracer(fn, bound_args, inputs, resume_frames, stop_at, fullgraph, dynamic_ints)
        fake_mode = tracing.FakeTensorMode(shape_env=tracing.ShapeEnv(), allow_non_fake_inputs=True)
        for inp in inputs:
            if not isinstance(inp.example, int):
                inp.dynamic = _dynamic_dims(dynamic_dims(inp.source, inp.example), inp.example.shape)
        fake_inputs = [_fake_input(fake_mode, inp, device) for inp in inputs]
        ends = []   # the SegmentEnd and the OutputPlan of the one trace make_fx runs

        def traced(*placeholders):
            with shim_errors.collecting_checks() as checks, _graph_warnings.collecting() as warned:
                result = tracer.run(list(placeholders))
            end = _segment_end(tracer, result, checks, warned)
            numpy_program = not tracer.saw_tensor_input
            # arrays only frames hold at a break stay tensors (``DeviceArray``): on a device
            # to spare two copies, on the CPU tensor -> ndarray -> tensor (held_inputs)
            either = [tracer.inputs[i].source.expr for i in _taking_either(tracer, device)]
            plan, tensors = outputs.plan(end, resident.holds_tensors(device, numpy_program), numpy_program,
                                         frozenset(either))
            ends.append((end, plan))
            return tensors

        try:
            with fake_mode:
                gm = tracing.make_fx(traced, tracing_mode="real")(*fake_inputs)
        except RestartTrace:
            continue
        except GraphBreak as brk:
            if stop_at is None and brk.resumable and not brk.fatal:
                stop_at, first_break = brk.step, brk
                continue
            return TraceStop(brk, _guards_taking_either(tracer, device))
        except Exception as exc:
            return TraceStop(exc, _guards_taking_either(tracer, device))
        end, plan = ends[0]
        refusal = _untraceable_fp_state(tracer) if any(n.op == "call_function" for n in gm.graph.nodes) else None
        written = mutated_inputs(gm)
        writes = bool((end.checks or end.warnings) and written)
        if refusal is None and written:
            refusal = tracer.overlap_guards(written, _taking_either(tracer, device))
        if refusal is None and end.checks and writes:
            refusal = GraphBreak("a value check NumPy makes comes before a write into an input",
                                 "the check could only run after the write; this call runs as written")
        plan.warn_in_place = writes   # no rerun after a write: the call warns NumPy's words itself
        if refusal is not None:
            return TraceStop(refusal, _guards_taking_either(tracer, device))
        guards = tracer.alias_guards()
        either = tuple(i for i in _taking_either(tracer, device) if held_inputs.either_form(guards, tracer.inputs[i]))
        return Capture(gm, fake_inputs, fake_mode, inputs=tracer.inputs, guards=guards,
                       output_plan=plan, tensor_outputs=tracer.saw_tensor_input, int_examples=tracer.int_examples,
                       trace_seconds=time.perf_counter() - start, ends_in_break=first_break, either=either)


def _taking_either(tracer, device):
    """The inputs of the trace that may be an ndarray or a held tensor (held_inputs)."""
    return held_inputs.taking_either(tracer.inputs, device, tracer.resume_frames is not None,
                                     not tracer.saw_tensor_input)


def _guards_taking_either(tracer, device):
    """The guards of a trace that stopped, holding for either form of such inputs (the
    segment runs as written for both)."""
    guards = tracer.alias_guards()
    for i in _taking_either(tracer, device):
        held_inputs.either_form(guards, tracer.inputs[i])
    return guards


def _segment_end(tracer, result, checks, warned):
    """What output planning reads of a finished trace (see outputs.SegmentEnd)."""
    return outputs.SegmentEnd(result, checks, warned, tracer.side_effects, tracer.inputs, tracer.shim_inputs,
                              tracer.mirrors, tracer.source_of, tracer.internal_cells,
                              tracer.created_functions)


def _untraceable_fp_state(tracer):
    """A graph that computes is right only in NumPy error states that trap nothing
    ('ignore'/'warn'); in any other the segment runs in real NumPy (see fp_state). The
    state is guarded either way; the break to stop at, or None."""
    traceable = fp_state.traceable()
    tracer.guards.fp_errors_traceable(traceable)
    if traceable:
        return None
    return GraphBreak(f"NumPy's floating-point error state ({fp_state.describe()}) traps errors",
                      "compiled code cannot raise FloatingPointError or call a handler where "
                      "NumPy would; this code runs in real NumPy")


def mutated_inputs(gm):
    """Indices of the graph's placeholders that some op writes into, itself or through
    a view of it (``a[1] = v`` writes into a select of ``a``)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    written = set()
    for node in gm.graph.nodes:
        schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
        if schema is None or not schema.is_mutable:
            continue
        for argument, value in zip(schema.arguments, node.args):
            if argument.alias_info is not None and argument.alias_info.is_write:
                base = _viewed_placeholder(value, placeholders)
                if base is not None:
                    written.add(placeholders.index(base))
    return sorted(written)


def _viewed_placeholder(value, placeholders):
    """The placeholder ``value`` is, or is a chain of views of (ops whose result aliases
    their first argument), else None."""
    while value not in placeholders:
        schema = getattr(value.target, "_schema", None) if getattr(value, "op", None) == "call_function" else None
        if schema is None or not schema.returns or schema.returns[0].alias_info is None or not value.args:
            return None
        value = value.args[0]
    return value
