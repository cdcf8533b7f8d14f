"""``npcompile.explain(fn)(...)``: run a function once, freshly compiled, and report its
graphs, breaks, guards and compile times."""
from .runtime.jit_function import JitFunction


class ExplainOutput:
    """What one real run of a jitted function compiled and where it broke."""

    def __init__(self, graphs, break_reasons, guards, compile_times, transfers=0):
        self.graphs = graphs
        self.transfers = transfers
        self.graph_count = len(graphs)
        self.break_reasons = break_reasons
        self.graph_break_count = len(break_reasons)
        self.ops_per_graph = [[str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
                              for gm in graphs]
        self.guards = guards
        self.compile_times = compile_times

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
        lines.append(f"Guards: {len(self.guards)}")
        lines.extend(f"  {g}" for g in self.guards)
        lines.append("Compile Times (s): " + ", ".join(f"{k}={v:.3f}" for k, v in self.compile_times.items()))
        return "\n".join(lines)


def explain(fn):
    """``explain(fn)(*args, **kwargs)``: run ``fn`` once for real, freshly compiled, and
    report its distinct graphs, breaks (reason, file:line, source line, user stack), ops
    per graph, guards and compile times. ``fn`` may be a plain or a jitted function."""
    def run(*args, **kwargs):
        base = fn if isinstance(fn, JitFunction) else None
        jitted = JitFunction(base.fn if base else fn, backend=base.backend if base else "eager",
                             fullgraph=base.fullgraph if base else False,
                             device=base._device if base else None)
        jitted.events = []
        jitted(*args, **kwargs)
        graphs, breaks, guards, transfers = [], [], [], 0
        times = {"trace": 0.0, "guards": 0.0, "backend": 0.0}
        distinct = list({id(entry): entry for entry in jitted.events}.values())  # a loop runs a segment many times
        for entry in distinct:
            if entry.compiled is not None and entry.capture.op_count:
                graphs.append(entry.capture.gm)
            if entry.compiled is not None:
                transfers += entry.transfers
                guards += [description for _, description in entry.capture.guards.checks]
                for phase, seconds in entry.times.items():
                    times[phase] += seconds
            record = entry.break_record
            if record is not None and all((b.filename, b.lineno, b.reason) != (record.filename, record.lineno,
                                                                                 record.reason) for b in breaks):
                breaks.append(record)   # one per place: recompiles of a segment break there too
        return ExplainOutput(graphs, breaks, guards, times, transfers + jitted.host_copies)

    return run
