"""When a trace stops, and whether real Python can take over there.

The tracer never unwinds an exception: one raised inside ``try``/``with``/``finally`` of
the traced frames stops the segment before the instruction, so that the runner raises it
for real and CPython's exception table sends it on. A stop that the runner could not
resume at (inside a generator run eagerly, before an instruction it lacks) is
*unresumable*: the segment then runs as written from its start."""
from ...errors import GraphBreak
from .. import exception_table
from .registry import CO_ASYNC_GENERATOR, CO_COROUTINE, CO_GENERATOR


def fatal(frame):
    """Breaks are errors in this frame (fullgraph or error_on_graph_break(True))."""
    return frame.fullgraph or frame.error_on_graph_break


def covered(tracer, frame, inst):
    """Whether an exception raised by ``inst`` in ``frame`` would reach a handler inside
    the traced frames (an ``except``, ``finally`` or ``with``), not the caller."""
    if exception_table.handler_for(frame.code, inst.offset) is not None:
        return True
    frames = tracer.frames
    depth = next((k for k in range(len(frames) - 1, -1, -1) if frames[k] is frame), len(frames))
    return any(exception_table.handler_for(f.code, f.instructions[f.ip - 1].offset) is not None
               for f in frames[:depth] if f.ip)


def graph_writes():
    """Whether the graph traced so far writes into anything (an in-place op): such a
    write would be lost if the trace ended in an exception instead of running."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode
    mode = get_proxy_mode()
    if mode is None:
        return False
    return any(node.op == "call_function" and getattr(getattr(node.target, "_schema", None), "is_mutable", False)
               for node in mode.tracer.graph.nodes)


def unresumable(tracer, brk):
    """``brk`` made a stop that real Python cannot resume in the middle of (inside a
    generator run eagerly, before an instruction the runner lacks): the segment then
    runs as written from its start."""
    if brk.step is None:
        tracer.note_break(brk)
    brk.resumable = False
    return brk


def traced(handler):
    """``handler`` as the tracer runs it. A stop inside a generator run eagerly cannot be
    resumed there (see RETURN_GENERATOR). An exception that a handler inside the traced
    frames would catch stops the segment before the instruction, so that it runs, raises
    and is caught for real; other exceptions leave the trace as before (the segment then
    runs as written). npcompile's, torch's and the shim's own signals pass through."""
    def run(tracer, frame, inst):
        try:
            handler(tracer, frame, inst)
        except GraphBreak as brk:
            if in_generator(tracer):
                unresumable(tracer, brk)
            raise
        except Exception as exc:
            if type(exc).__module__.split(".")[0] in _INTERNAL_MODULES or not covered(tracer, frame, inst):
                raise
            brk = GraphBreak(f"{type(exc).__name__} raised inside try/with/finally",
                             "it is raised again as Python runs it, and caught there")
            brk.__cause__ = exc
            if in_generator(tracer):
                unresumable(tracer, brk)
            raise brk from exc
    run.__name__ = handler.__name__
    return run


_INTERNAL_MODULES = ("npcompile", "torch", "torch_numpy_shim")
_LAZY_CODE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR


def in_generator(tracer):
    return any(f.code.co_flags & _LAZY_CODE for f in tracer.frames)


def not_runnable(tracer, frame, inst):
    raise unresumable(tracer, GraphBreak(f"unsupported Python bytecode {inst.opname}",
                                         "this construct runs uncompiled; move it out of the hot path"))
