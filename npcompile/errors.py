"""The exceptions npcompile raises to users, and the internal signal for "this
instruction cannot be captured"."""
import linecache


class Unsupported(RuntimeError):
    """Something in the function cannot be captured in a graph where a graph break is
    not allowed (``fullgraph=True`` or ``error_on_graph_break(True)``)."""


class GraphBreak(Exception):
    """Internal: tracing cannot continue at the current instruction. Carries the reason,
    a hint, and the user-visible stack of (filename, lineno, function name)."""

    def __init__(self, reason, hint="", stack=None):
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
        self.stack = list(stack or [])
        self.step = None        # instructions the trace ran before this one
        self.resumable = False  # real Python can take over from the state before it
        self.fatal = False      # fullgraph or error_on_graph_break(True): an error, not a break

    def user_message(self):
        """The reason, where it happened (innermost frame last) and what to do."""
        lines = [self.reason]
        if self.hint:
            lines.append(f"  Hint: {self.hint}")
        if self.stack:
            lines.append("")
            lines.append("from user code:")
            for filename, lineno, name in self.stack:
                lines.append(f'  File "{filename}", line {lineno}, in {name}')
                source = linecache.getline(filename, lineno).strip()
                if source:
                    lines.append(f"    {source}")
        return "\n".join(lines)


class RestartTrace(Exception):
    """Internal: tracing found a new graph input; trace again with it declared."""


class RerunUncompiled(Exception):
    """Internal: this call (or segment) must run as written: a value check NumPy makes
    failed, an input the graph writes into is read-only, or the compiled graph raised
    (``failure``: that exception, when it was the compiler's fault rather than the data's),
    and NumPy's own behaviour belongs in user code."""

    def __init__(self, failure=None):
        super().__init__()
        self.failure = failure


class BackendFailed(RuntimeError):
    """A failure inside the compiler (tracing, guards, the backend, or a compiled graph
    raising where NumPy does not), raised only in strict mode (``fullgraph=True`` or
    ``config.strict_compile``); otherwise that part of the call runs uncompiled."""
