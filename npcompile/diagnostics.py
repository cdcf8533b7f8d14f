"""What users see of compilation: ``explain()`` and the ``npcompile`` logs."""
import logging

from . import config

log = logging.getLogger("npcompile")

LOG_NAMES = ("graph_breaks", "recompiles", "guards", "graph_code", "output_code")


def set_logs(**switches):
    """``set_logs(graph_breaks=True, recompiles=True, ...)``; no arguments: all off.
    Also set by the environment: NPCOMPILE_LOGS=graph_breaks,recompiles."""
    unknown = set(switches) - set(LOG_NAMES)
    if unknown:
        raise ValueError(f"unknown log names {sorted(unknown)}; choose from {LOG_NAMES}")
    config.log_switches = {name for name, on in switches.items() if on}
    _install_handler()


def _install_handler():
    """Send the npcompile logger to stderr once any switch is on (unless the user
    configured handlers of their own)."""
    if config.log_switches and not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[npcompile] %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)


def log_once(kind, key, message, *args):
    """Log ``message`` under switch ``kind`` the first time ``key`` is seen."""
    if kind in config.log_switches and key not in _seen:
        _seen.add(key)
        log.info(message, *args)


_seen = set()
_install_handler()


_listeners = []


def notify(kind, jitted, detail):
    """Tell active profilers that ``jitted`` had a 'compile', 'recompile' or 'break'."""
    for listener in _listeners:
        listener.events.append((kind, jitted.fn.__qualname__, detail))


class CompileProfiler:
    """``with npcompile.CompileProfiler() as prof: ...; print(prof.report())``: the
    compiles, recompiles (with the guard that failed) and graph breaks during the block."""

    def __init__(self):
        self.events = []

    def __enter__(self):
        _listeners.append(self)
        return self

    def __exit__(self, *exc_info):
        _listeners.remove(self)
        return False

    def count(self, kind):
        return sum(1 for k, _, _ in self.events if k == kind)

    def report(self):
        lines = [f"Compiles: {self.count('compile')}   Recompiles: {self.count('recompile')}   "
                 f"Graph breaks: {self.count('break')}"]
        for kind, name, detail in self.events:
            if kind == "recompile":
                lines.append(f"  recompile  {name}: guard failed: {detail}")
            elif kind == "break":
                lines.append(f"  break      {name}: {detail.reason} ({detail.filename}:{detail.lineno})")
        return "\n".join(lines)


_compile_seconds = {}   # qualname -> {phase: seconds}, for compile_times()


def record_compile_times(qualname, times):
    phases = _compile_seconds.setdefault(qualname, {"trace": 0.0, "guards": 0.0, "backend": 0.0})
    for phase, seconds in times.items():
        phases[phase] += seconds


def compile_times(as_table=True):
    """Seconds spent per phase (trace, guards, backend) per jitted function, as a table
    (or a dict ``{qualname: {phase: seconds}}`` with ``as_table=False``)."""
    if not as_table:
        return {name: dict(phases) for name, phases in _compile_seconds.items()}
    width = max([40] + [len(name) for name in _compile_seconds])
    lines = [f"{'function':<{width}} {'trace':>9} {'guards':>9} {'backend':>9} {'total':>9}"]
    for name, phases in sorted(_compile_seconds.items()):
        lines.append(f"{name:<{width}} {phases['trace']:9.3f} {phases['guards']:9.3f} "
                     f"{phases['backend']:9.3f} {sum(phases.values()):9.3f}")
    return "\n".join(lines)


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
    from .runtime import JitFunction

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
