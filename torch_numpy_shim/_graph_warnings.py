"""NumPy's warnings that depend on sizes ('Mean of empty slice', 'Degrees of freedom <= 0
for slice'), from inside a graph.

A graph traced for an empty slice (its size known while tracing) must warn each time it
runs, as NumPy does; rerunning the call as written is refused where the segment writes
into its inputs. So the warning is an op of the graph: ``torch_numpy_shim::warn_if
(condition, message)`` reads its condition when the graph runs and warns where it
holds. It is marked as having a side effect, so neither FX nor Inductor prunes it (it
has no output). Compiled code emits NumPy's floating-point reports no more than before
(README): the 0/0 that follows an empty mean is not reported.
"""
import functools
import sys
import warnings

import torch

_LIBRARIES = []   # the registrations last as long as the library objects


#: modules whose frames lie between the user's call and the graph's op
_MACHINERY = ("torch", "npcompile", "torch_numpy_shim")


def _warn(condition, message):
    if bool(condition):
        warnings.warn(message, RuntimeWarning, stacklevel=_caller_stacklevel())


def _caller_stacklevel():
    """The stacklevel of the first frame outside torch, npcompile and the shim (and
    their generated code): the call of the compiled function, where NumPy's warning
    would point (near enough: NumPy points at the line inside it)."""
    frame, level = sys._getframe(2), 2   # _warn's caller is stacklevel 2
    while frame is not None and (frame.f_code.co_filename.startswith("<") or
                                 frame.f_globals.get("__name__", "").split(".")[0] in _MACHINERY):
        frame, level = frame.f_back, level + 1
    return level


@functools.cache
def _warn_op():
    """Defined at first use (only traced programs need it), through torch.library's
    plain registration (``custom_op`` imports torch._dynamo: seconds)."""
    lib = torch.library.Library("torch_numpy_shim", "FRAGMENT")
    lib.define("warn_if(Tensor condition, str message) -> ()")
    lib.impl("warn_if", _warn, "CompositeExplicitAutograd")
    torch.library.register_fake("torch_numpy_shim::warn_if", lib=lib)(lambda condition, message: None)
    _LIBRARIES.append(lib)
    op = torch.ops.torch_numpy_shim.warn_if.default
    torch.fx.node.has_side_effect(op)
    return op


def warn_if(condition, message):
    """Warn ``message`` (a RuntimeWarning) when the graph being traced runs and the
    0-d bool tensor ``condition`` holds."""
    _warn_op()(condition, message)
