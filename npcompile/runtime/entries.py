"""Cache entries: what one captured segment becomes, and its generated call function.

A ``CompiledEntry`` holds the guards, the compiled graph and ``fast``, one generated
function that checks the guards, checks that inputs the graph writes into are writeable,
feeds the graph, and builds NumPy's results (views of read-only inputs read-only). A
``FallbackEntry`` stands for states that run in real Python. An entry never keeps the
caller's arrays alive: once compiled, each input's example is replaced by a stand-in of
the same type, dtype and shape that owns one element.
"""
import re

import numpy
import torch

from .. import route_trials, threads
from ..backends import CompiledGraph
from ..errors import BackendFailed, RerunUncompiled
from ..trace import warning_filters
from ..trace.resident import DeviceArray
from . import devices, failures, layouts, read_only, state_reads, view_replay
from .graph_effects import GraphEffects

MISS = object()


class CompiledEntry:
    """A captured segment: its guards, its compiled graph, and ``fast``."""

    def __init__(self, guard, compiled, capture_, times, break_record, write=None, transfers=0):
        self.guard = guard
        self.compiled = compiled
        self.capture = capture_
        self.times = times
        self.break_record = break_record    # the break this segment stops before, or None
        self.write = write                  # writes mutated NumPy inputs back (off the CPU)
        self.transfers = transfers          # host<->device copies one run of this segment makes
        self.fast = None                    # set by ``prepare`` (it refers to the entry)
        self.effects = GraphEffects(capture_.gm)
        self.label = "a graph"
        self.fullgraph = False
        self.proven = False                 # ran once without raising
        # writes into inputs at indices from the data: copies them first on every run
        self.guards_indices = bool(self.effects.written) and failures.may_raise_index_error(capture_.gm)
        self._context = None

    def prepare(self, globals_dict, closure, device, label, fullgraph, resumed=False):
        """Generate ``fast`` (then drop the examples that would keep arrays alive).
        ``resumed``: the segment starts at a break (its state is a list of frames)."""
        cap = self.capture
        self.label, self.fullgraph = label, fullgraph
        either = set(cap.either)   # an ndarray or a held tensor (held_inputs)
        numpy_inputs = [i for i, inp in enumerate(cap.inputs) if isinstance(inp.example, numpy.ndarray) or i in either]
        self._context = dict(globals_dict=globals_dict, closure=closure, device=device, resumed=resumed,
                             held=[inp.source.expr for i, inp in enumerate(cap.inputs)
                                   if isinstance(inp.example, DeviceArray) and i not in either],
                             either=[cap.inputs[i].source.expr for i in sorted(either)],
                             inputs=_input_tuple(cap.inputs, device, either),
                             written_numpy=[cap.inputs[i].source.expr for i in self.effects.written
                                            if i in numpy_inputs],
                             views={k: [cap.inputs[i].source.expr for i in bases if i in numpy_inputs]
                                    for k, bases in self.effects.views.items()},
                             replays={k: (cap.inputs[i].source.expr, steps)
                                      for k, (i, steps) in self.effects.replays.items() if i in numpy_inputs})
        self.proven = not self.effects.written
        self.fast = _fast_path(self, self.compiled)
        _forget_examples(cap)

    def run(self, L, fallback):
        """Run for state ``L`` (whose guards passed); ``fallback`` runs it as written."""
        fast = self.fast
        if fast is None:      # demoted: this segment runs as written
            return fallback()
        try:
            result = fast(L)
        except RerunUncompiled as exc:
            rerun = exc
        else:
            rerun = None
        if rerun is not None:   # outside the except clause: the rerun's exceptions have no context
            return self.rerun(rerun, fallback)
        if result is MISS:   # a guard rejecting what it was built from: a bug, never a wrong result
            failures.warn("a graph's guards reject the call it was compiled for (a bug: please report "
                          "it); running the call uncompiled", stacklevel=3)
            return fallback()
        return result

    def rerun(self, rerun, fallback):
        """The segment runs as written (``fallback``): a value check NumPy makes failed,
        an input to write into is read-only, or the graph raised (``rerun.failure``; the
        inputs are as they were before it ran), which demotes it first."""
        if rerun.failure is not None:
            self.demote(rerun.failure)
        return fallback()

    def recover(self, exc):
        """The graph raised while running. Unless it may have written part of its
        writes into inputs, the segment reruns as written (``RerunUncompiled``)."""
        if isinstance(exc, RerunUncompiled):
            raise exc
        data_error = failures.is_data_error(exc)
        if self.effects.written:   # proven (on probation it would have been restored)
            if isinstance(exc, torch._C._LinAlgError):
                raise numpy.linalg.LinAlgError(str(exc)) from exc
            if data_error and not failures.is_index_error(exc):   # an index error may follow writes
                raise failures.as_numpy_error(exc)
            self.demote(exc)
            raise BackendFailed(f"{self.label} raised after it may have written part of its results into "
                                f"its inputs, so it cannot be rerun: {failures.describe(exc)}") from exc
        raise RerunUncompiled(None if data_error else exc) from exc

    def demote(self, exc):
        """The compiled graph raised where running it uncompiled does not: warn once and
        run the captured graph op by op from now on (or, if that is what raised, run
        the segment as written)."""
        failures.failed(f"{self.label} raised when run", exc, self.fullgraph,
                        "running that graph eagerly (op by op) from now on" if self.compiled is not self.capture.gm
                        else "running that segment uncompiled from now on")
        eager = self.capture.gm
        if self.compiled is eager:
            self.fast = None
        else:
            self.compiled = eager
            self.proven = not self.effects.written
            self.fast = _fast_path(self, eager)

    def prove(self):
        """The graph ran once without raising: stop copying the inputs it writes."""
        if not self.proven:
            self.proven = True
            self.fast = _fast_path(self, self.compiled)


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


def _input_tuple(inputs, device, either=()):
    """Source of a tuple expression: the graph's input tensors from the segment's inputs
    (``either``: indices of those that may be an ndarray or a held tensor)."""
    def tensor(i, inp):
        expr = inp.source.expr
        if isinstance(inp.example, (torch.Tensor, int)):
            return expr
        if i not in either and isinstance(inp.example, DeviceArray):
            return f"{expr}.tensor"
        dtype = inp.example.tensor.dtype if isinstance(inp.example, DeviceArray) else inp.example.dtype
        if device.type == "cpu" and dtype in (numpy.complex128, torch.complex128):   # a NumPy or torch dtype
            view = f"_aligned(_t({expr}))"
        else:
            view = f"_t({expr})"
        return f"({expr}.tensor if type({expr}) is _held else {view})" if i in either else view

    items = ", ".join(tensor(i, inp) for i, inp in enumerate(inputs))
    return f"({items}{',' if len(inputs) == 1 else ''})"


def _writeable_check(sources, either):
    """Condition that every NumPy input the graph writes into is writeable (a held
    tensor always is: an array NumPy makes read-only is never held)."""
    checks = [f"(type({expr}) is _held or {expr}.flags.writeable)" if expr in either else f"{expr}.flags.writeable"
              for expr in sources]
    return " and ".join(checks) or None


def _as_arrays(lines, outputs):
    """``lines`` with held outputs among ``outputs`` (views of inputs) converted to NumPy
    arrays instead, which ``read_only.mark_views`` and ``view_replay`` then build as NumPy
    would (a read-only flag, a flip's very view)."""
    return [re.sub(r"_resident\(out\[(\d+)\]\)",
                   lambda m: f"_array(out[{m.group(1)}])" if int(m.group(1)) in outputs else m.group(0), line)
            for line in lines]


def _view_of_either(view):
    """``read_only.view_converter``'s ``_view`` for bases that may be held tensors
    (writeable: an array NumPy makes read-only is never held)."""
    def _view(tensor, bases, *warns_on_write):
        return view(tensor, tuple(base for base in bases if type(base) is not DeviceArray), *warns_on_write)
    return _view


def _replay_on_either(base, steps):
    """``view_replay.replay`` on a base that may be a held tensor (its NumPy view)."""
    return view_replay.replay(base.tensor.numpy() if type(base) is DeviceArray else base, steps)


def _held_tensor_reads(expression, sources):
    """The guards' ``expression`` with reads of a held array's tensor attributes
    (``S.dtype``, ``S.shape``, ``S.stride()``: properties of ``DeviceArray``, 0.1 us each)
    made on its tensor (``S.tensor.dtype``): they run after ``type(S) is DeviceArray``
    (in the same ``and`` chain), and the guards' failing reads are misses anyway."""
    for source in sources:
        expression = re.sub(rf"(?<![\w.\]]){re.escape(source)}\.(device|dtype|shape|ndim|stride\(\)|is_contiguous\(\))",
                            lambda m, source=source: f"{source}.tensor.{m.group(1)}", expression)
    return expression


def _to_tensor(device):
    return torch.from_numpy if device.type == "cpu" else (lambda a: devices.host_to_device(a, device))


def with_thread_policy(compiled, gm, device):
    """``compiled`` (a graph ``gm`` compiled for ``device``) run under the thread count
    npcompile/threads.py chooses per call, on the CPU; every compiled call goes through here.
    A graph compiled without parallel regions is still wrapped when it has products: torch's
    BLAS threads them by torch's count, which on busy cores must be one (a 120x64 by 64x80
    product on MKL's two threads beside two busy processes: 128 us a call, 115 on one)."""
    from ..passes import host_blas  # Inductor's: loaded by the compile that made ``compiled``

    if device.type != "cpu" or isinstance(compiled, CompiledGraph) and compiled.single_threaded \
            and not host_blas.has_products(gm):
        return compiled
    threads.parallel_threshold_bytes()   # measured once per process: charged to the compile, not a call
    route = route_trials.RouteTrial() if host_blas.split_products(gm) else None
    return threads.ThreadsFor(compiled, *threads.work_estimate(gm), route=route)


def _boxed_form(call):
    """The list-taking form of a compiled call (see backends.CompiledGraph), or None:
    a CompiledGraph's, kept by the thread-count wrapper; a graph on probation, a
    GraphModule run op by op or a user backend's plain callable has none."""
    return call.boxed if isinstance(call, (CompiledGraph, threads.ThreadsFor)) else None


def _fast_path(entry, compiled):
    """Generated ``fast(L)`` for the hot path: guards, the writeable check, inputs, the
    graph (through ``Probation`` until it has run once, if it writes into inputs) and
    the results (MISS when a guard fails)."""
    cap, context = entry.capture, entry._context
    inputs = context["inputs"]
    compiled = with_thread_policy(compiled, cap.gm, context["device"])
    if entry.guards_indices:
        compiled = failures.Probation(compiled, entry.effects.written)
    elif not entry.proven:
        compiled = failures.Probation(compiled, entry.effects.written, entry.prove)
    boxed = _boxed_form(compiled)
    call = f"boxed([{inputs[1:-1].rstrip(',')}])" if boxed is not None and entry.write is None \
        else f"compiled(*{inputs})"
    guards = _held_tensor_reads(cap.guards.expression(), context["held"])
    lines = ["try:",
             f"    if not ({guards}):",
             "        return MISS",
             "except Exception:",
             "    return MISS"]
    writeable = _writeable_check(context["written_numpy"], context["either"])
    if writeable is not None:
        lines += [f"if not ({writeable}):", "    raise RerunUncompiled()"]
    if _warns_after_writing(cap):
        lines += ["if _warnings_may_raise():", "    raise RerunUncompiled()"]
    if entry.write is not None:
        lines.append(f"tensors = {inputs}")
        call = "compiled(*tensors)"
    lines += ["try:", f"    out = {call}", "except Exception as exc:", "    entry.recover(exc)"]
    if entry.write is not None:
        lines.append("entry.write(L, tensors)")
    views = {k: bases for k, bases in context["views"].items() if bases} if not cap.tensor_outputs else {}
    replays = context["replays"] if not cap.tensor_outputs else {}
    body = cap.output_plan.body()
    if context["device"].type == "cpu":   # held tensors: views of inputs go through _view/_replay
        body = _as_arrays(body, set(views) | set(replays))
    lines += view_replay.mark_replays(read_only.mark_views(body, views),
                                      {k: (base, f"_steps{k}") for k, (base, _) in replays.items()})
    source = state_reads.hoist("def fast(L):\n" + "".join(f"    {line}\n" for line in lines), context["resumed"])
    globals_dict, closure, device = context["globals_dict"], context["closure"], context["device"]
    namespace = cap.guards.namespace(globals_dict, closure)
    namespace.update(cap.output_plan.namespace(globals_dict, closure, cap.tensor_outputs))
    view = read_only.view_converter(namespace["_array"])
    namespace.update(MISS=MISS, compiled=compiled, boxed=boxed, entry=entry, _t=_to_tensor(device),
                     RerunUncompiled=RerunUncompiled, _held=DeviceArray,
                     _view=_view_of_either(view) if context["either"] else view,
                     _warnings_may_raise=warning_filters.may_raise, _aligned=layouts.aligned_complex128,
                     _replay=_replay_on_either if context["either"] else view_replay.replay,
                     **{f"_steps{k}": steps for k, (_, steps) in replays.items()})
    exec(compile(source, "<npcompile call>", "exec"), namespace)
    fast = namespace["fast"]
    fast.source = source
    return fast


def _warns_after_writing(cap):
    """Whether the segment writes into its inputs and may warn (a message the graph's
    flags decide, or its ``warn_if`` op): where a warning would raise, it must run as
    written, before any write (trace/warning_filters.py)."""
    warns = cap.output_plan.warn_in_place or any(
        str(node.target).startswith("torch_numpy_shim.warn_if") for node in cap.gm.graph.nodes)
    return warns and bool(GraphEffects(cap.gm).written)


def transfers(cap, device):
    """Copies between host and device per run: NumPy inputs in, NumPy results out,
    mutated inputs written back (none when computing on the CPU). Arrays that stay on
    the device across a break are not copied; the runtime counts those real code needs."""
    if device.type == "cpu" or cap.tensor_outputs:
        return 0
    numpy_inputs = [i for i, inp in enumerate(cap.inputs) if isinstance(inp.example, numpy.ndarray)]
    written_back = set(GraphEffects(cap.gm).written) & set(numpy_inputs)
    return len(numpy_inputs) + cap.output_plan.array_outputs + cap.output_plan.host_copies + len(written_back)


def writer(cap, globals_dict, closure, device):
    """Generated ``write(L, tensors)``: NumPy inputs the graph writes into (also through
    views) updated from their device copies (None on the CPU, where the graph writes into
    the caller's memory)."""
    if device.type == "cpu":
        return None
    lines = [f"    _back({cap.inputs[i].source.expr}, tensors[{i}])" for i in GraphEffects(cap.gm).written
             if isinstance(cap.inputs[i].example, numpy.ndarray)]
    if not lines:
        return None
    namespace = {"_back": devices.write_back, "G": globals_dict, "C": closure}
    exec(compile("def write(L, tensors):\n" + "\n".join(lines) + "\n", "<npcompile write-back>", "exec"),
         namespace)
    return namespace["write"]


def _stand_in(example):
    """An object of ``example``'s type, dtype, shape (and device) owning one element."""
    if isinstance(example, numpy.ndarray):
        return numpy.broadcast_to(numpy.zeros((), example.dtype), example.shape)
    if isinstance(example, torch.Tensor):
        return torch.zeros((), dtype=example.dtype, device=example.device).expand(example.shape)
    if isinstance(example, DeviceArray):
        return DeviceArray(_stand_in(example.tensor))
    return example


def _forget_examples(cap):
    """Compiled entries must not keep the caller's arrays (or the traceback of the break
    the segment stops before, which holds the tracer and its arrays) alive."""
    for inp in cap.inputs:
        inp.example = _stand_in(inp.example)
    cap.ends_in_break = None
