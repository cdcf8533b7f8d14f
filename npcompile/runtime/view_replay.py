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
``as_strided``), keep the graph's value.
"""
import re

import numpy
import torch

from .read_only import replace_conversions

_aten = torch.ops.aten
_ANY_TENSOR = object()


def _index(dim, key):
    return (slice(None),) * dim + (key,)


def _slice(a, dim=0, start=None, end=None, step=1):
    return a[_index(dim, slice(start, end, step))]


def _squeeze(a, dims=None):
    if dims is None:
        return a.squeeze()
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return a.squeeze(tuple(d % a.ndim for d in dims if a.shape[d] == 1))


def _diagonal(a, offset=0, dim1=0, dim2=1):
    """A writeable diagonal view of a writeable ``a``: ``np.einsum('ii->i', a)`` is one, and
    the output plan marks ``np.diagonal``'s read-only (the shim knows which it was)."""
    view = a.diagonal(offset, dim1, dim2)
    if a.flags.writeable:
        view.flags.writeable = True
    return view


# aten op -> the NumPy view it is (the first argument is the array)
_STEPS = {
    _aten.flip.default: lambda a, dims: a[tuple(slice(None, None, -1) if d in {x % a.ndim for x in dims}
                                                else slice(None) for d in range(a.ndim))],
    _aten.slice.Tensor: _slice,
    _aten.select.int: lambda a, dim, index: a[_index(dim, index)],
    _aten.permute.default: lambda a, dims: a.transpose(dims),
    _aten.transpose.int: lambda a, d0, d1: a.swapaxes(d0, d1),
    _aten.t.default: lambda a: a.T,
    _aten.unsqueeze.default: lambda a, dim: a[_index(dim % (a.ndim + 1), None)],
    _aten.squeeze.default: _squeeze,
    _aten.squeeze.dim: _squeeze,
    _aten.squeeze.dims: _squeeze,
    _aten.diagonal.default: _diagonal,
    _aten.view.default: lambda a, shape: a.reshape(shape),
    _aten.alias.default: lambda a: a.view(),   # a[...]: a new view, not the array itself
    _aten.detach.default: lambda a: a.view(),
}




def _numpy_dtype(dtype):
    try:
        return numpy.dtype(str(dtype).removeprefix("torch."))
    except TypeError:
        return None


def _view_as(a, dtype):
    return a if a.dtype == dtype else a.view(dtype)


def _constant(value):
    if isinstance(value, (list, tuple)):
        return all(_constant(v) for v in value)
    return isinstance(value, (int, bool, type(None)))


def _returns_its_input(target):
    schema = getattr(target, "_schema", None)
    if schema is None or len(schema.returns) != 1 or not schema.arguments:
        return False
    returned, first = schema.returns[0].alias_info, schema.arguments[0].alias_info
    return returned is not None and first is not None and first.is_write and \
        set(returned.before_set) == set(first.before_set)


def replay_steps(node):
    """(placeholder, steps) if ``node`` is a view of a placeholder reached through
    constant-argument views only (steps: (function, args), first to last), else None. A
    dtype view alone (or nothing) is the input itself, returned as it is."""
    steps = []
    while node.op == "call_function":
        target = node.target
        if target is _aten.view.dtype:   # the same bits as another dtype (uint16 moves as int16)
            dtype = _numpy_dtype(node.args[1])
            if dtype is None:
                return None
            steps.append((_view_as, (dtype,), False))
            node = node.args[0]
            continue
        if _returns_its_input(target):
            node = node.args[0]     # an in-place op (copy_, add_): the input, after the write
            continue
        step = _STEPS.get(target)
        if step is None or node.kwargs or not _constant(node.args[1:]):
            return None
        steps.append((step, tuple(node.args[1:]), True))
        node = node.args[0]
    if node.op != "placeholder" or not any(new for _, _, new in steps):
        return None
    return node, [(step, args) for step, args, _ in reversed(steps)]


def replay(base, steps):
    """The NumPy view ``steps`` make of ``base``."""
    for step, args in steps:
        base = step(base, *args)
    return base


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
