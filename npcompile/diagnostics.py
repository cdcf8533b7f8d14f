"""What users see of compilation as it happens: the ``npcompile`` logs, compile-time
totals and ``CompileProfiler``. ``explain`` (which runs a function) lives in explain.py."""
import logging
import warnings

from . import config

log = logging.getLogger("npcompile")

LOG_NAMES = config.LOG_NAMES


def set_logs(all=False, **switches):
    """``set_logs(graph_breaks=True, recompiles=True, ...)`` or ``set_logs(all=True)``;
    no arguments: all off. Also set by the environment at import:
    NPCOMPILE_LOGS=graph_breaks,recompiles (or ``all``).

    graph_breaks: each break, once per place, with its reason and source line.
    recompiles: each recompile, with the guard that failed.
    guards: the guards of each new compiled entry.
    graph_code / output_code: each captured graph / the code the backend made of it."""
    unknown = set(switches) - set(LOG_NAMES)
    if unknown:
        raise ValueError(f"unknown log names {sorted(unknown)}; choose from {LOG_NAMES} or all=True")
    config.log_switches = set(LOG_NAMES) if all else {name for name, on in switches.items() if on}
    _install_handler()


def _warn_unknown_log_names():
    if config.unknown_log_names:
        warnings.warn(f"NPCOMPILE_LOGS: unknown log names {config.unknown_log_names} were ignored; "
                      f"valid names: {', '.join(LOG_NAMES)}, or all", stacklevel=3)


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


def forget_logged():
    """Let once-only log lines be logged again (``npcompile.reset``)."""
    _seen.clear()


_install_handler()
_warn_unknown_log_names()


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


def forget_compile_times():
    _compile_seconds.clear()


def record_compile_times(qualname, times):
    phases = _compile_seconds.setdefault(qualname, {"trace": 0.0, "guards": 0.0, "backend": 0.0})
    for phase, seconds in times.items():
        phases[phase] = phases.get(phase, 0.0) + seconds


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
