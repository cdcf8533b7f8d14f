"""Read-only NumPy arrays stay read-only under ``jit``.

``torch.from_numpy`` ignores the writeable flag (and on a read-only memory map a write
is a segmentation fault), and a tensor has no such flag to hand back. So the runtime
keeps NumPy's rules itself, from what the graph is known to do (``GraphEffects``):
before a graph that writes into an input runs, that input must be writeable, or the
segment runs as written and NumPy raises its ValueError at the exact point; and an
output that is a view of a read-only input comes back read-only, as NumPy's view would
(and so does a view of an input that overlaps itself, as ``broadcast_to``'s does).
Both are generated into each entry's call function and cost nothing for graphs that
neither write into inputs nor return views of them.
"""
import re

import numpy
import torch

from .. import probe_warnings

_CONVERSION = re.compile(r"_array\(out\[(\d+)\]\)")
_WARNING_CONVERSION = re.compile(r"_warns_on_write\(out\[(\d+)\]\)")


def writeable_check(sources):
    """Condition (source) that every NumPy input the graph writes into is writeable;
    ``sources``: their expressions. None when there are none."""
    if not sources:
        return None
    return " and ".join(f"{expr}.flags.writeable" for expr in sources)


def replace_conversions(lines, replacements):
    """``lines`` (an output plan's conversions) with ``_array(out[k])`` replaced by
    ``replacements[k]`` for each output index ``k`` it has."""
    def replace(match):
        return replacements.get(int(match.group(1)), match.group(0))

    return [_CONVERSION.sub(replace, line) for line in lines]


def mark_views(lines, view_sources):
    """``lines`` with each output that views NumPy inputs converted by
    ``_view(out[k], (bases...))``, and one that warns on a write (an np.broadcast_arrays
    result) by ``_view(out[k], (bases...), True)``; ``view_sources``: output index -> the
    expressions of the inputs it is a view of."""
    lines = replace_conversions(lines, {k: f"_view(out[{k}], ({', '.join(bases)},))"
                                        for k, bases in view_sources.items() if bases})

    def warning(match):
        bases = view_sources.get(int(match.group(1)))
        return f"_view(out[{match.group(1)}], ({', '.join(bases)},), True)" if bases else match.group(0)

    return [_WARNING_CONVERSION.sub(warning, line) for line in lines]


def view_converter(to_array):
    """``_view(tensor, bases)``: the NumPy array of an output viewing ``bases``,
    read-only when one of them is, or when it overlaps itself (a ``broadcast_to`` view:
    NumPy makes those read-only, so writing one element never writes many)."""
    def _view(tensor, bases, warns_on_write=False):
        array = to_array(tensor)
        if any(not base.flags.writeable for base in bases):
            array.flags.writeable = False
        elif warns_on_write:   # np.broadcast_arrays: writeable, NumPy warns at the first write
            array.flags._warn_on_write = True
        elif may_overlap_itself(array):
            array.flags.writeable = False
        return array

    return _view


def may_overlap_itself(array):
    """Whether two elements of ``array`` may share memory (a broadcast, an
    ``as_strided`` window): its strides, sorted, do not each step past the extent of
    the smaller ones."""
    if array.size == 0:
        return False
    extent = array.itemsize
    for stride, size in sorted((abs(s), n) for n, s in zip(array.shape, array.strides) if n > 1):
        if stride < extent:
            return True
        extent = stride * (size - 1) + extent
    return False


_silenced = []


def silence_torch_warning():
    """torch warns once per process, the first time ``from_numpy`` meets a read-only
    array, that writing through the tensor is undefined. npcompile never writes through
    such a tensor, so that one warning is spent here, once, where no one sees it,
    instead of on a user's call."""
    if not _silenced:
        _silenced.append(True)
        frozen = numpy.zeros(1)
        frozen.flags.writeable = False
        with probe_warnings.silenced():
            torch.from_numpy(frozen)
