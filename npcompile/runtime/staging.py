"""Arguments torch cannot view, computed on through a dense copy where no one can tell
the difference.

An argument with negative strides (``f(a[::-1])``), a field of a packed structured array
or complex128 data that is not 16-byte aligned has no tensor view (see ``layouts``). If
the function only reads it, a copy gives the same values, so the call still
compiles: a ``StagedEntry`` stands for the calls whose unviewable arguments are exactly
at the same positions; it copies those arguments and runs entries of its own, traced and
guarded on the copies. The copy must stay invisible, so such an entry is kept only if its
graph writes into no copy, no output is a view of a copy, the segment hands no copy back
(as a result, in a frame at a graph break, or stored somewhere), and the inputs it does
write share no memory with an original (else the copy would go stale; a guard checks it
on every call); otherwise those states run in real NumPy, on the caller's own arrays.
"""
import numpy

from ..errors import GraphBreak
from ..trace.guards import Guards
from .graph_effects import GraphEffects
from .layouts import unviewable

_ARGUMENT = "L[{}]"


def positions_of(found, state):
    """Positions of the arguments to copy, if every unviewable array found is an
    argument itself (not inside a container, not in a resumed frame); else None."""
    exprs = {expr for expr, _ in found}
    positions = tuple(i for i in range(len(state)) if _ARGUMENT.format(i) in exprs)
    return positions if len(positions) == len(exprs) else None


class StagedArguments(list):
    """The call's arguments with copies at some positions; ``originals``: position ->
    the caller's array there (the guards check writes never reach its memory)."""

    originals = None


def stage(L, positions):
    """The call's arguments with those at ``positions`` replaced by copies in NumPy's
    order 'K' (freshly allocated, so aligned for torch; axes in the caller's memory order,
    as NumPy orders results: ``a + 1`` of a reversed Fortran array is Fortran-ordered).
    The trace answers the caller's strides and flags from ``originals``."""
    staged = StagedArguments(L)
    staged.originals = {i: L[i] for i in positions}
    for i in positions:
        staged[i] = numpy.array(L[i], order="K", copy=True)
    return staged


class StagedEntry:
    """Calls whose unviewable arguments are exactly those at ``positions``; ``entries``
    are compiled for their staged (copied) states."""

    compiled = None
    fast = None
    break_record = None

    def __init__(self, positions, L, globals_dict, closure, device, run_segment):
        self.positions = positions
        self.guards = Guards()
        check = self.guards.const(unviewable)
        for i, value in enumerate(L):
            expr = _ARGUMENT.format(i)
            if i in positions:
                self.guards.add(f"{check}({expr})", f"argument {i} has no tensor view (it is copied)")
            elif isinstance(value, numpy.ndarray):
                self.guards.add(f"not {check}({expr})", f"argument {i} has a tensor view")
        self.guard = self.guards.compile(globals_dict, closure)
        self.device = device
        self.entries = []
        self._run_segment = run_segment

    def run(self, L, fallback):
        return self._run_segment(self.entries, stage(L, self.positions), None, fallback, self.device,
                                 self.positions)


def copy_would_show(cap, positions, L):
    """Why a segment traced on copies at ``positions`` (state ``L``) may not run on
    them (None if it may). If it writes into inputs, guards are added that those never
    share memory with the originals (a write there would leave a copy stale)."""
    exprs = [_ARGUMENT.format(i) for i in positions]
    copies = {k for k, inp in enumerate(cap.inputs) if inp.source.expr in exprs}
    effects = GraphEffects(cap.gm)
    if copies & set(effects.written):
        return "the graph writes into it"
    if any(copies & set(bases) for bases in effects.views.values()) or \
            any(i in copies for i, _ in effects.replays.values()):
        return "a result is a view of it"
    body = "\n".join(cap.output_plan.body())
    if any(expr in body for expr in exprs):
        return "the segment hands it on (as a result, in a frame, or stored)"
    namespace = dict(cap.guards.namespace(None, None), L=L)
    overlap = cap.guards.const(numpy.may_share_memory)
    for k in effects.written:
        written = cap.inputs[k].source.expr
        for i in positions:
            if numpy.may_share_memory(L.originals[i], eval(written, namespace)):
                return "the graph writes into memory it shares"
            cap.guards.add(f"not {overlap}(L.originals[{i}], {written})",
                           f"{cap.inputs[k].source.label} shares no memory with argument {i}")
    return None


def refusal(reason):
    return GraphBreak(f"an argument with no tensor view cannot be copied in: {reason}",
                      "the call runs in real NumPy on the caller's arrays; np.ascontiguousarray(...) "
                      "before the call compiles it")
