"""User controls over what is traced and how graph breaks are treated.

The tracer recognises these objects by type or marker attribute; called outside any
trace they behave as plain Python (``graph_break()`` does nothing, a disabled function
just runs, ``error_on_graph_break`` sets the flag a jitted call starts with).
"""
import functools
import threading

_state = threading.local()


def current_error_on_graph_break():
    """The flag a jitted function called now starts its frames with."""
    return getattr(_state, "error_on_graph_break", False)


def graph_break():
    """Force a graph break here (no effect outside a compiled function)."""


class error_on_graph_break:
    """``error_on_graph_break(True)`` makes graph breaks errors (npcompile.Unsupported)
    in the code it covers; ``False`` allows them again. A context manager and a
    decorator; it nests and is inherited by called functions. It only acts under
    ``fullgraph=False``: ``fullgraph=True`` always errors and cannot be toggled off."""

    def __init__(self, flag):
        self.flag = bool(flag)
        self.previous = None

    def __call__(self, fn):
        flag = self.flag

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with error_on_graph_break(flag):
                return fn(*args, **kwargs)

        wrapper._npcompile_error_on_graph_break = flag
        return wrapper

    def __enter__(self):
        self.previous = current_error_on_graph_break()
        _state.error_on_graph_break = self.flag
        return self

    def __exit__(self, *exc_info):
        _state.error_on_graph_break = self.previous
        return False


def disable(fn=None, recursive=True):
    """Never trace ``fn``: a call to it inside a compiled function is a graph break and
    runs as written. With ``recursive=False`` only ``fn``'s own frame is left untraced:
    the functions it calls are still compiled."""
    if fn is None:
        return functools.partial(disable, recursive=recursive)
    fn = getattr(fn, "_npcompile_original", fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper._npcompile_disable = "recursive" if recursive else "frame"
    wrapper._npcompile_original = fn
    return wrapper


_DISALLOWED = {}   # id -> the object (kept alive so the id stays its own)
_ALLOWED = {}


def disallow_in_graph(fn):
    """Make every call to ``fn`` (a NumPy function too) a graph break; returns ``fn``."""
    _DISALLOWED[_identity(fn)] = fn
    return fn


def allow_in_graph(fn):
    """Call ``fn`` as it is while tracing instead of inlining it: its torch and shim
    operations are recorded in the graph; nothing inside it is guarded. Use only for
    functions that are pure and written against torch or torch_numpy_shim."""
    _ALLOWED[_identity(fn)] = fn
    return fn


def nonstrict_trace(fn):
    """Run ``fn`` while tracing with NumPy swapped for the shim in its globals, without
    interpreting its bytecode: no graph breaks or guards inside, its Python runs as is."""
    fn._npcompile_nonstrict = True
    return fn


def is_disallowed(fn):
    return _identity(fn) in _DISALLOWED


def is_allowed(fn):
    return _identity(fn) in _ALLOWED


def _identity(fn):
    from .tracer import numpy_map
    return id(numpy_map.to_numpy(fn))
