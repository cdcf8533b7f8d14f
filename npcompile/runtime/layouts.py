"""Input arrays whose memory layout torch cannot view.

``torch.from_numpy`` shares memory with any array whose strides are non-negative
multiples of its item size (any order, offsets, zero strides, read-only memory); it
refuses negative strides (``a[::-1]``) and strides that are not whole items (a field of
a packed structured array), and it accepts complex128 data that is not 16-byte aligned,
which torch's kernels then crash on. Copying such an input in would lose what NumPy
guarantees about it (views of it share its memory, writes land in it), so unless the
copy is invisible (``staging``) a call whose arrays include one runs in real NumPy,
recorded as a graph break. The guard of that fallback names the very arrays, so calls
with other layouts still compile; the compiled entries' own guards (exact strides, or
C-contiguity for dynamic sizes) never admit such an array either.
"""
import warnings

import numpy

from ..errors import GraphBreak, RerunUncompiled
from ..trace.guards import Guards
from ..trace.interpreter import supported_dtype
from .read_only import may_overlap_itself


def torch_can_view(array):
    """Whether torch can compute on ``array``'s own memory: ``torch.from_numpy`` takes it
    without copying or raising, and torch's kernels can load its items (torch's
    complex128 is 16-byte aligned, NumPy's only 8: an 8-aligned one crashes ``a[0] = b``)."""
    itemsize = array.itemsize
    if not all(s >= 0 and s % itemsize == 0 for s in array.strides):
        return False
    if may_overlap_itself(array) and _writeable(array):
        return False   # torch refuses to write into it; NumPy defines what such writes do
    return array.dtype.kind != "c" or itemsize != 16 or array.__array_interface__["data"][0] % 16 == 0


def _writeable(array):
    """``array.flags.writeable``, read without the FutureWarning NumPy gives the reader of
    an ``np.broadcast_arrays`` result's flag (WARN_ON_WRITE): it is the user's to see, not
    npcompile's (under ``-W error`` it raised out of a graph break holding one)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return array.flags.writeable


def aligned_complex128(tensor):
    """A complex128 input tensor, or RerunUncompiled when its data is not 16-byte aligned
    (an entry compiled for aligned data must not run on it; its guards cannot tell)."""
    if tensor.data_ptr() % 16:
        raise RerunUncompiled()
    return tensor


def _arrays(value, source_expr, found, depth=0):
    """(source expression, array) of arrays reachable the way capture finds inputs."""
    if type(value) is numpy.ndarray:
        found.append((source_expr, value))
    elif depth < 3 and isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _arrays(item, f"{source_expr}[{i!r}]", found, depth + 1)
    elif depth < 3 and type(value) is dict:
        for key, item in value.items():
            if isinstance(key, (str, int)):
                _arrays(item, f"{source_expr}[{key!r}]", found, depth + 1)
    return found


def unviewable_inputs(roots):
    """(source expression, array) of the arrays in a segment's state that torch cannot
    view. ``roots``: (value, source) pairs of the state."""
    found = []
    for value, source in roots:
        found += [(expr, a) for expr, a in _arrays(value, source.expr, [])
                  if supported_dtype(a.dtype) and not torch_can_view(a)]
    return found


def fallback_for(found):
    """Break and guards of a fallback for states with these unviewable arrays."""
    guards = Guards()
    check = guards.const(unviewable)
    for expr, _ in found:
        guards.add(f"{check}({expr})", f"{expr} has strides or an alignment torch cannot compute on")
    names = ", ".join(f"{expr} (dtype {a.dtype}, strides {a.strides})" for expr, a in found[:3])
    brk = GraphBreak(f"input arrays torch cannot compute on in place: {names}",
                     "negative strides, strides that are not whole items and complex128 data that is not "
                     "16-byte aligned run in real NumPy where the function writes into them, returns "
                     "them or views of them; np.ascontiguousarray(...) before the call compiles it")
    return brk, guards


def unviewable(value):
    return type(value) is numpy.ndarray and not torch_can_view(value)


def is_layout_error(exc):
    """torch.from_numpy's refusal of a layout (for arrays the pre-check cannot see,
    e.g. reached through a global)."""
    text = str(exc)
    return isinstance(exc, ValueError) and ("stride" in text and ("negative" in text or "multiple" in text))
