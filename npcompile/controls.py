"""User controls over what is traced and how graph breaks are treated.

The tracer recognises these objects by type, or asks this module what a function was
marked with (``disabled``, ``error_on_graph_break_flag``, ``is_nonstrict``): the marks
live in registries here, not in attributes stuck on the user's functions. Called outside
any trace they behave as plain Python (``graph_break()`` does nothing, a disabled
function just runs, ``error_on_graph_break`` sets the flag a jitted call starts with).
"""
import functools
import threading

_state = threading.local()

# The marks, by id of the marked callable -> (the callable, what it was marked with); the
# callable is held so its id stays its own. Wrappers made here live as long as their user.
_ERROR_FLAGS = {}   # error_on_graph_break(flag)(fn)'s wrapper -> flag
_DISABLED = {}      # disable(fn)'s wrapper -> (mode "recursive" | "frame", the original fn)
_NONSTRICT = {}     # nonstrict_trace(fn) -> True


def _mark(registry, fn, value):
    registry[id(fn)] = (fn, value)


def _marked(registry, fn, default=None):
    entry = registry.get(id(fn))
    return entry[1] if entry is not None and entry[0] is fn else default


def error_on_graph_break_flag(fn):
    """The flag ``error_on_graph_break(flag)`` decorated ``fn`` with, else None."""
    return _marked(_ERROR_FLAGS, fn)


def disabled(fn):
    """``(mode, original)`` for a function made by ``disable`` (mode "recursive" or
    "frame"), else None."""
    return _marked(_DISABLED, fn)


def is_nonstrict(fn):
    """Whether ``fn`` was marked ``nonstrict_trace``."""
    return _marked(_NONSTRICT, fn, False)


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

        _mark(_ERROR_FLAGS, wrapper, flag)
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
    already = disabled(fn)
    fn = already[1] if already is not None else fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    _mark(_DISABLED, wrapper, ("recursive" if recursive else "frame", fn))
    return wrapper


_DISALLOWED = {}   # id -> the object (kept alive so the id stays its own)
_ALLOWED = {}


def disallow_in_graph(fn):
    """Make every call to ``fn`` (a NumPy function too) a graph break; returns ``fn``."""
    _DISALLOWED[id(fn)] = fn
    return fn


def allow_in_graph(fn):
    """Call ``fn`` as it is while tracing instead of inlining it: its torch and shim
    operations are recorded in the graph; nothing inside it is guarded. Use only for
    functions that are pure and written against torch or torch_numpy_shim."""
    _ALLOWED[id(fn)] = fn
    return fn


def nonstrict_trace(fn):
    """Run ``fn`` while tracing with NumPy swapped for the shim in its globals, without
    interpreting its bytecode: no graph breaks or guards inside, its Python runs as is."""
    _mark(_NONSTRICT, fn, True)
    return fn


def is_disallowed(*candidates):
    """Whether any of ``candidates`` (one callable as the user named it and its NumPy or
    shim counterpart, which the tracer supplies) was marked ``disallow_in_graph``."""
    return any(id(fn) in _DISALLOWED for fn in candidates)


def is_allowed(*candidates):
    """Whether any of ``candidates`` (as for ``is_disallowed``) was marked ``allow_in_graph``."""
    return any(id(fn) in _ALLOWED for fn in candidates)


class numpy_op:
    """``numpy_op(fn)``: a pure NumPy function as one opaque graph op (a
    ``torch.library.custom_op`` with a fake kernel), so NumPy the shim lacks can sit
    inside a compiled graph without a graph break. ``fn`` takes arrays positionally and
    returns an array, a NumPy scalar or a tuple of them; its output shapes and dtypes
    must follow from its input shapes and dtypes (the fake kernel runs ``fn`` on zeros).
    Outside a trace it is ``fn``."""

    _count = 0

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        numpy_op._count += 1
        self.op = _make_custom_op(fn, f"npcompile::{fn.__name__}_{numpy_op._count}")

    def __call__(self, *args):
        return self.fn(*args)

    def trace_call(self, args):
        """Called by the tracer with shim arrays: record one op, give shim arrays back."""
        from torch_numpy_shim._ndarray import ndarray
        if not all(isinstance(a, ndarray) for a in args):
            raise TypeError("npcompile.numpy_op functions take arrays only (bind other "
                            "arguments with functools.partial)")
        outputs = self.op([a._t for a in args])
        flags = self.op.result_layout
        wrapped = [ndarray._wrap(t, scalar) for t, scalar in zip(outputs, flags["scalars"])]
        return tuple(wrapped) if flags["tuple"] else wrapped[0]


def _make_custom_op(fn, qualname):
    import numpy
    import torch

    layout = {"tuple": False, "scalars": []}

    def flat(result):
        layout["tuple"] = isinstance(result, tuple)
        items = result if isinstance(result, tuple) else (result,)
        layout["scalars"] = [isinstance(r, numpy.generic) for r in items]
        return [numpy.asarray(r) for r in items]

    @torch.library.custom_op(qualname, mutates_args=())
    def op(inputs: list[torch.Tensor]) -> list[torch.Tensor]:
        arrays = [t.detach().cpu().numpy() for t in inputs]
        device = inputs[0].device if inputs else torch.device("cpu")
        return [torch.from_numpy(numpy.array(r, copy=True)).to(device) for r in flat(fn(*arrays))]

    @op.register_fake
    def _(inputs):
        zeros = [numpy.zeros(tuple(t.shape), dtype=str(t.dtype).removeprefix("torch.")) for t in inputs]
        return [torch.empty(r.shape, dtype=getattr(torch, r.dtype.name), device=inputs[0].device if inputs else "cpu")
                for r in flat(fn(*zeros))]

    op.result_layout = layout
    return op
