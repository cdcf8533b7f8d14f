"""A failure inside the compiler is never the user's problem.

Tracing, guard building, the backend, or a compiled graph raising where NumPy would not:
that part of the call runs uncompiled instead (the captured graph op by op, or real
NumPy), with one warning per graph naming the backend and the graph, and the result and
every input end as NumPy leaves them. Only strict mode (``fullgraph=True`` or
``config.strict_compile``) turns such a failure into ``npcompile.BackendFailed``.

A graph that writes into its inputs and raises may have written part of what it meant
to; rerunning the segment would apply those writes twice. So until such a graph has run
once without raising, each run first copies the inputs it writes (``Probation``) and
puts them back if it raises. A graph whose indices come from the data (``a[idx] += 1``)
may raise an index error on any later call, after torch or Inductor wrote part of its
writes (torch checks each index as it writes; NumPy checks them all first): such a graph
copies the inputs it writes on every run (``guards_indices``), so that NumPy, running the
segment as written, raises its own IndexError from the state the segment started from.
"""
import warnings

import torch

from .. import config
from ..errors import BackendFailed, RerunUncompiled


def strict(fullgraph):
    """Whether a compiler failure is raised (``BackendFailed``) instead of run around."""
    return bool(fullgraph or getattr(config, "strict_compile", False))


def describe(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}"


def warn(message, stacklevel=2):
    warnings.warn(f"npcompile: {message}", stacklevel=stacklevel + 1)


def failed(what, exc, fullgraph, instead="running it uncompiled instead"):
    """A failure in the compiler (``what`` happened): raise it in strict mode, else warn
    (the caller makes sure once) and let the caller do ``instead``."""
    if strict(fullgraph):
        raise BackendFailed(f"{what}: {describe(exc)}") from exc
    warn(f"{what} ({describe(exc)}); {instead}", stacklevel=3)


def is_out_of_memory(exc):
    """torch's allocators report exhaustion as RuntimeError (CPU) or OutOfMemoryError
    (a RuntimeError, CUDA), where NumPy raises MemoryError."""
    return isinstance(exc, (MemoryError, torch.OutOfMemoryError)) or (
        type(exc) is RuntimeError and "can't allocate memory" in str(exc))


def is_data_error(exc):
    """Errors a graph raises because of the data, where NumPy raises too (a singular
    matrix), or of the moment (no stack or memory left): not the compiler's fault, so
    no warning and the graph stays compiled. A warning the user's filters turned into
    an exception (``-W error``: a graph's 'Mean of empty slice') is one too: run as
    written, NumPy raises it again, as the user asked."""
    return isinstance(exc, (torch._C._LinAlgError, RecursionError, Warning)) or is_out_of_memory(exc) \
        or is_index_error(exc)


def is_index_error(exc):
    """An index out of range in a graph: torch's IndexError, or the RuntimeError of an
    Inductor kernel's bounds check ('index out of bounds: 0 <= tmp3 < 5L'). NumPy raises
    IndexError for the same data, with its own message (the segment reruns as written)."""
    return isinstance(exc, IndexError) or (type(exc) is RuntimeError and "index out of bounds" in str(exc))


def _index_arguments(node):
    """Values of ``node``'s arguments that index into a tensor at run time: index tensors
    (``index``, ``indices``) and a position that is a symbol (``select`` at ``i``)."""
    schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
    if schema is None:
        return []
    found = []
    for k, argument in enumerate(schema.arguments):
        value = node.args[k] if k < len(node.args) else node.kwargs.get(argument.name)
        if argument.name in ("index", "indices"):
            found += [v for v in (value if isinstance(value, (list, tuple)) else [value])
                      if isinstance(v, torch.fx.Node)]
    return found


def may_raise_index_error(gm):
    """Whether graph ``gm`` indexes with values only known when it runs (an integer index
    tensor, or a position that is a symbol), so that some call's data may be out of range.
    Boolean masks are not: their shape, checked when tracing, is guarded."""
    for node in gm.graph.nodes:
        for value in _index_arguments(node):
            example = value.meta.get("val")
            if not (isinstance(example, torch.Tensor) and example.dtype == torch.bool):
                return True
    return False


def as_numpy_error(exc):
    """The exception NumPy raises for a data error a graph raised (MemoryError for an
    allocator's, LinAlgError for torch's); others as they are."""
    if is_out_of_memory(exc) and not isinstance(exc, MemoryError):
        error = MemoryError(describe(exc))
        error.__cause__ = exc
        return error
    return exc


class Probation:
    """Calls a compiled graph that writes into inputs ``written`` (indices of its input
    tensors), copying those inputs first until one run succeeds. If the graph raises,
    the copies are written back and ``RerunUncompiled`` carries the failure, so the
    segment reruns from the state it started from. ``on_success`` is told once (never
    when None: a graph that may raise an index error stays on probation)."""

    def __init__(self, compiled, written, on_success=None):
        self.compiled = compiled
        self.written = written
        self.on_success = on_success

    def __call__(self, *tensors):
        saved = [(tensors[i], tensors[i].clone()) for i in self.written if isinstance(tensors[i], torch.Tensor)]
        try:
            out = self.compiled(*tensors)
        except Exception as exc:
            with torch.no_grad():
                for tensor, copy in saved:
                    tensor.copy_(copy)
            raise RerunUncompiled(None if is_data_error(exc) else exc) from exc
        if self.on_success is not None:
            self.on_success()
        return out
