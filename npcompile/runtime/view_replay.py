"""Results that NumPy returns as views of an input, returned as NumPy's own views.

``np.flip(a)``, ``a[::-1]`` and ``np.rot90(a)`` are views in NumPy (negative strides:
writing into the result writes into ``a``), but torch has no negative strides, so the
graph computes them as copies. Other views torch shares, but not as NumPy lays them out:
torch strides a length-1 axis its own way (``a[:, None]`` has stride 0 in NumPy, ``size *
stride`` of the next axis in torch), and the array converted from the tensor has the
tensor, not the input, as its ``base``. So when a graph output is reached from one input
through nothing but views whose arguments are constants, the runtime builds that output
by replaying the same steps on the caller's NumPy array, which gives NumPy's very view
(memory, strides, flags, base); the graph's value is dropped. A reshape (``aten.view``)
is one only where torch could view the input, and then NumPy's reshape views it too.
Outputs whose steps depend on symbolic sizes, or pass through other views (``expand``,
``as_strided``), keep the graph's value. The table of steps is the trace's
(``trace.view_steps.view_chain``), which builds views of computed arrays the same way.
"""
import re

from ..trace.view_steps import replay, view_chain
from .read_only import replace_conversions

__all__ = ["replay", "replay_steps", "mark_replays"]


def replay_steps(node):
    """(placeholder, steps) if ``node`` is a view of a placeholder reached through
    constant-argument views only (steps: (function, args), first to last), else None. A
    dtype view alone (or nothing) is the input itself, returned as it is."""
    return view_chain(node, lambda base: base.op == "placeholder")


#: An output ``read_only.mark_views`` converts as a view of inputs.
_VIEW_CONVERSION = re.compile(r"_view\(out\[(\d+)\], \([^()]*\)\)")


def mark_replays(lines, replays):
    """``lines`` (an output plan's conversions, views already marked) with each output in
    ``replays`` (output index -> the expression of its NumPy input and a name bound to its
    steps) built by ``_replay`` from that input instead of converted from the graph's value."""
    code = {k: f"_replay({base}, {steps_name})" for k, (base, steps_name) in replays.items()}

    def replace(match):
        return code.get(int(match.group(1)), match.group(0))

    return [_VIEW_CONVERSION.sub(replace, line) for line in replace_conversions(lines, code)]
