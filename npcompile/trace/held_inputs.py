"""Frame-slot arrays of a loop the runtime drives on the CPU: an ndarray or a held tensor.

On the CPU too, an array that only a frame holds at a graph break stays a tensor
(``DeviceArray``) until the next segment takes it (issue 14: tensor -> ndarray -> tensor
cost over a microsecond per iteration). A loop body's segment then meets both forms at
one slot: the caller's ndarray in its first iteration (or one that real code brought to
the host at a break), the tensor its own last run left in every later one. One entry
takes both: its guards on such an input hold for either form (``either_form``) and its
call takes the held tensor as it is or views the ndarray (runtime/entries.py), so the
body is traced and compiled once, not once per form.
"""
import re

import numpy
import torch

from . import resident
from .guards import Guards
from .resident import DeviceArray
from .sources import Source

#: a local or stack slot of a resumed frame, where the runtime may leave a held tensor
_FRAME_SLOT = re.compile(r"L\[\d+\]\.(locals\[[^\[\]]+\]|stack\[\d+\])")
_PLACEHOLDER = "_S_"
_CONSTANT = re.compile(r"\bk\d+\b")
#: a held array's reads made on its tensor (properties of DeviceArray: 0.1 us each)
_TENSOR_READS = re.compile(re.escape(_PLACEHOLDER) + r"\.(dtype|shape|ndim|stride\(\)|is_contiguous\(\))")
_DEVICE_CHECK = re.compile(re.escape(_PLACEHOLDER) + r"\.device == k\d+")


def taking_either(inputs, device, resumed, numpy_program):
    """Indices of the graph inputs that may come as an ndarray or a held tensor: on the
    CPU, in a NumPy program's resumed segment, arrays in a frame's locals or stack."""
    if device.type != "cpu" or not resumed or not resident.holds_tensors(device, numpy_program):
        return ()
    return tuple(i for i, inp in enumerate(inputs) if type(inp.example) in (numpy.ndarray, DeviceArray)
                 and _FRAME_SLOT.fullmatch(inp.source.expr))


def either_form(guards, inp):
    """Replace the checks ``Guards.array_meta`` made on ``inp`` (its type, dtype, sizes,
    strides) by one that holds for the held tensor or the ndarray of that layout; False
    (nothing changed) when those checks are not all there."""
    try:   # torch views no negative strides: such an array runs as written, guarded as it is
        held = inp.example if type(inp.example) is DeviceArray else DeviceArray(torch.from_numpy(inp.example))
    except (TypeError, ValueError, RuntimeError):
        return False
    array = held.tensor.numpy() if type(inp.example) is DeviceArray else inp.example
    own = _probe(inp.example, inp)
    wanted = sorted(_normal(expression, own.constants) for expression, _ in own.checks)
    expr = inp.source.expr
    positions = [n for n, (expression, _) in enumerate(guards.checks)
                 if expr in expression and _normal(expression.replace(expr, _PLACEHOLDER), guards.constants) in wanted]
    if sorted(_normal(guards.checks[n][0].replace(expr, _PLACEHOLDER), guards.constants)
              for n in positions) != wanted:
        return False
    held_checks = [_tensor_reads(e) for e in _checks_of(guards, held, inp)]
    array_checks = _checks_of(guards, array, inp)
    combined = f"(({' and '.join(held_checks)}) or\n             ({' and '.join(array_checks)}))"
    described = f"{inp.source.label} is an ndarray or a held tensor of dtype {array.dtype}, " \
                f"shape {array.shape}, strides {array.strides}"
    for n in reversed(positions[1:]):
        del guards.checks[n]
    guards.checks[positions[0]] = (combined.replace(_PLACEHOLDER, expr), described)
    return True


def _probe(example, inp):
    """``array_meta``'s checks on ``example``, over the placeholder."""
    probe = Guards()
    probe.array_meta(Source(_PLACEHOLDER, inp.source.label), example, inp.dynamic)
    return probe


def _normal(expression, constants):
    """``expression`` with its constants' names replaced by their values, to compare
    checks made with different names."""
    return _CONSTANT.sub(lambda m: repr(constants.get(m.group(0), m.group(0))), expression)


def _checks_of(guards, example, inp):
    """``array_meta``'s checks on ``example`` as expressions over the placeholder, their
    constants added to ``guards``."""
    probe = _probe(example, inp)
    names = {name: guards.const(value) for name, value in probe.constants.items()}
    return [_CONSTANT.sub(lambda m: names[m.group(0)], expression) for expression, _ in probe.checks]


def _tensor_reads(expression):
    """A held array's check made on its tensor; its device is the CPU's (``is_cpu``,
    cheaper than building and comparing a device)."""
    expression = _DEVICE_CHECK.sub(f"{_PLACEHOLDER}.tensor.is_cpu", expression)
    return _TENSOR_READS.sub(lambda m: f"{_PLACEHOLDER}.tensor.{m.group(1)}", expression)


def element_stride(value, dim):
    """The stride of ``value`` (an ndarray or a held tensor) along ``dim``, in elements:
    what the size guards of a dynamic shape read."""
    if type(value) is DeviceArray:
        return value.tensor.stride(dim)
    return value.strides[dim] // value.itemsize


def host(value):
    """``value`` as real code sees it: a held tensor's NumPy array, an ndarray itself."""
    return value.to_host() if type(value) is DeviceArray else value
