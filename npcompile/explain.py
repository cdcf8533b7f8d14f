"""``npcompile.explain(fn)(...)``: run a function once and report its graphs, breaks,
guards and compile times.

A plain function is compiled afresh (eager backend: tracing, no code generation). A jitted
function that has been called already is explained through its own cache: the segments it
compiled are reused and reported with the times their compile took, and only what this
call needs new is compiled (into that cache), so explaining costs no second compile.

The report is for a person: guards are grouped by the segment that relies on them and,
within it, by the value they check (type, dtype, shape and strides of one array on one
line), with repeats dropped; compile times say when nothing was compiled (the eager
backend) or when Inductor served a graph from its on-disk cache."""
import re

from .runtime.devices import stand_in_device
from .runtime.entries import transfers as _transfers
from .runtime.jit_function import JitFunction

#: "X is a T", "X.dtype == D", "X.shape == S", "X strides == S", "X == V": facts about a value X.
_VALUE_FACT = re.compile(r"^(?P<subject>.+?)(?: is an? (?P<type>[\w.]+)|\.dtype == (?P<dtype>\S+)"
                         r"|\.shape == (?P<shape>.+)| strides == (?P<strides>.+)| == (?P<value>.+))$")
#: "X is an ndarray or a held tensor of dtype D, shape S, strides T": an array a loop's
#: frame may hold as a tensor between iterations (trace/held_inputs.py), one ndarray to a reader.
_EITHER_FACT = re.compile(r"^(?P<subject>.+?) is an ndarray or a held tensor of dtype (?P<dtype>\S+), "
                          r"shape (?P<shape>\(.*?\)), strides (?P<strides>\(.*?\))$")
#: "X is not Y": two arrays that must not share memory.
_DISTINCT = re.compile(r"^(?P<left>.+) is not (?P<right>.+)$")
#: A local of a resumed frame: frame 0's are named plainly, inner frames' with their function.
_FRAME_LOCAL = re.compile(r"frame (?P<index>\d+)(?: \((?P<name>[^)]*)\))?\.locals\['(?P<local>[^']+)'\]")


def _short(description):
    return _FRAME_LOCAL.sub(lambda m: m["local"] if m["index"] == "0" else
                            f"{m['name'] or 'frame ' + m['index']}:{m['local']}", description)


def group_guards(descriptions):
    """Guard descriptions -> readable lines: the facts about one value joined on one line,
    "X is not Y" pairs as one list of distinct arrays, repeats dropped."""
    lines, facts, distinct = [], {}, []
    for description in dict.fromkeys(_short(d) for d in descriptions):
        either = _EITHER_FACT.match(description)
        pair = None if either else _DISTINCT.match(description)
        match = None if pair or either else _VALUE_FACT.match(description)
        if either:
            subject = either["subject"]
            if subject not in facts:
                facts[subject] = []
                lines.append(subject)
            facts[subject] += ["ndarray", either["dtype"], f"shape {either['shape']}", f"strides {either['strides']}"]
        elif pair:
            distinct.extend(name for name in (pair["right"], pair["left"]) if name not in distinct)
        elif match is None:
            lines.append(description)
        else:
            subject = match["subject"]
            if subject not in facts:
                facts[subject] = []
                lines.append(subject)   # a placeholder, filled in below, keeps the first position
            kind = next(k for k in ("type", "dtype", "shape", "strides", "value") if match[k] is not None)
            facts[subject].append(match[kind] if kind in ("type", "dtype") else
                                  f"== {match[kind]}" if kind == "value" else f"{kind} {match[kind]}")
    if distinct:
        lines.append(f"no two of {', '.join(distinct)} share memory")
    return [f"{line}: {', '.join(facts[line])}" if line in facts else line for line in lines]


class SegmentGuards:
    """The guards one compiled segment checks before it runs, and where it starts."""

    def __init__(self, start, descriptions):
        self.start = start
        self.descriptions = descriptions
        self.lines = group_guards(descriptions)


class ExplainOutput:
    """What one real run of a jitted function compiled and where it broke."""

    def __init__(self, graphs, break_reasons, segments, compile_times, transfers=0, backend_note=""):
        self.graphs = graphs
        self.transfers = transfers
        self.graph_count = len(graphs)
        self.break_reasons = break_reasons
        self.graph_break_count = len(break_reasons)
        self.ops_per_graph = [[str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
                              for gm in graphs]
        self.segment_guards = segments
        self.guards = [d for segment in segments for d in segment.descriptions]
        self.compile_times = compile_times
        self.backend_note = backend_note

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {sum(len(ops) for ops in self.ops_per_graph)}",
                 "Break Reasons:"]
        for n, record in enumerate(self.break_reasons, 1):
            ran = "resumed after it" if record.resumed else "the rest ran uncompiled"
            lines.append(f"  Break Reason {n}: {record.reason} ({ran})")
            for filename, lineno, name in record.user_stack:
                lines.append(f"    {filename}:{lineno} in {name}")
            if record.source_line:
                lines.append(f"      {record.source_line}")
        lines.append("Ops per Graph:")
        for n, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Graph {n}: {len(ops)} ops: {', '.join(ops[:12])}{' ...' if len(ops) > 12 else ''}")
        lines.append(f"Host<->device transfers: {self.transfers}")
        lines.append(f"Guards: {len(self.guards)} checks")
        for segment in self.segment_guards:
            lines.append(f"  {segment.start}:")
            lines.extend(f"    {line}" for line in segment.lines)
        times = ", ".join(f"{k}={v:.3f}" for k, v in self.compile_times.items())
        lines.append(f"Compile Times (s): {times}" + (f" ({self.backend_note})" if self.backend_note else ""))
        return "\n".join(lines)


def _inductor_cache_hits():
    """Inductor's count of FX graphs served from its on-disk cache in this process (None if
    this torch does not keep the count)."""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return None
    return counters["inductor"]["fxgraph_cache_hit"]


def _segment_start(entry, previous, qualname):
    """Where a segment starts: the function's entry, or just after the break before it."""
    record = previous.break_record if previous is not None else None
    if record is None:
        return f"from the start of {qualname}"
    return f"after the break at {record.filename}:{record.lineno}"


def _backend_note(jitted, compiled_graphs, cache_hits, reused, native):
    notes = []
    if native:
        notes.append("a native loop kernel (npcompile.native) ran the call: no graphs")
    if getattr(jitted.backend, "__name__", "") == "eager":
        notes.append("backend eager: the graphs run op by op, nothing was compiled")
    if compiled_graphs and cache_hits:
        notes.append(f"{cache_hits} of {compiled_graphs} graphs came from Inductor's on-disk cache")
    if reused:
        notes.append(f"{reused} segments were compiled before this call: their times are that compile's")
    return "; ".join(notes)


def _function_to_run(fn):
    """The jitted function explain runs: ``fn`` itself once it has been called (its cache
    is reused), else a fresh one (a plain function gets the eager backend)."""
    if isinstance(fn, JitFunction) and (fn.compile_count or fn.entries or fn.resume_entries):
        return fn
    base = fn if isinstance(fn, JitFunction) else None
    return JitFunction(base.fn if base else fn, backend=base.backend if base else "eager",
                       fullgraph=base.fullgraph if base else False, device=base._device if base else None)


def _all_entries(jitted):
    return {id(e) for e in jitted.entries} | {id(e) for entries in jitted.resume_entries.values() for e in entries}


def _served_natively(jitted, args, kwargs):
    return any(kernel.guard(args, kwargs) for kernel in getattr(jitted, "_native", None) or ())


def explain(fn):
    """``explain(fn)(*args, **kwargs)``: run ``fn`` once for real and report its distinct
    graphs, breaks (reason, file:line, source line, user stack), ops per graph, guards and
    compile times. ``fn`` may be a plain or a jitted function; a jitted one that has run
    before is explained through what it compiled (see the module's docstring)."""

    def run(*args, **kwargs):
        jitted = _function_to_run(fn)
        existing, copies_before = _all_entries(jitted), jitted.host_copies
        native = _served_natively(jitted, args, kwargs)
        jitted.events = []
        hits_before = _inductor_cache_hits()
        try:
            jitted(*args, **kwargs)
        finally:
            events, jitted.events = jitted.events, None
        hits = _inductor_cache_hits()
        cache_hits = hits - hits_before if hits is not None and hits_before is not None else 0
        graphs, breaks, segments, transfers = [], [], [], 0
        times = {"trace": 0.0, "guards": 0.0, "backend": 0.0}
        seen, previous = set(), None
        for entry in events:   # a loop runs a segment many times: report each once
            if id(entry) not in seen:
                seen.add(id(entry))
                transfers += _add_entry(entry, previous, jitted, graphs, segments, times)
                _add_break(entry.break_record, breaks)
            previous = entry
        reused = sum(1 for k in seen if k in existing)
        note = _backend_note(jitted, len(graphs), cache_hits, reused, native)
        return ExplainOutput(graphs, breaks, segments, times, transfers + jitted.host_copies - copies_before, note)

    return run


def _add_entry(entry, previous, jitted, graphs, segments, times):
    """Record one compiled segment's graph, guards and times; its transfers."""
    if entry.compiled is None:
        return 0
    if entry.capture.op_count:
        graphs.append(entry.capture.gm)
    descriptions = [description for _, description in entry.capture.guards.checks]
    segments.append(SegmentGuards(_segment_start(entry, previous, jitted.fn.__qualname__), descriptions))
    for phase, seconds in entry.times.items():
        times[phase] += seconds
    stand_in = stand_in_device(jitted.backend)   # CPU tensors standing in for a device's
    return entry.transfers if stand_in is None else _transfers(entry.capture, stand_in)


def _add_break(record, breaks):
    """One break per place: recompiles of a segment break there too."""
    if record is not None and all((b.filename, b.lineno, b.reason) != (record.filename, record.lineno,
                                                                         record.reason) for b in breaks):
        breaks.append(record)
