"""The graph's view ops as the NumPy views they stand for.

torch records ``a[::-1]``, ``a[:, None]`` or ``a.T`` as aten view ops (``flip`` a copy,
since torch has no negative strides). Where such a chain of views with constant
arguments leads from one array to another, NumPy's own view is built by replaying the
same steps on NumPy's array: its memory, strides, flags and base are NumPy's. Both the
output plan (views of arrays a segment computed, ``trace.outputs``) and the runtime
(views of the caller's inputs, ``runtime.view_replay``) read the steps from here.
"""
import numpy
import torch

_aten = torch.ops.aten


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


#: aten op -> the NumPy view it is (the first argument is the array); ``flip`` is a copy in
#: torch (no negative strides) and a view in NumPy
_STEPS = {
    _aten.flip.default: lambda a, dims: a[tuple(slice(None, None, -1) if d in {x % a.ndim for x in dims}
                                                else slice(None) for d in range(a.ndim))],
    _aten.slice.Tensor: _slice,
    _aten.select.int: lambda a, dim, index: a[_index(dim, index) + (Ellipsis,)],   # a 0-d view, not a scalar
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


def _written_node(node):
    """``node``, or the value an in-place op on it (``copy_``, ``add_``) wrote into."""
    while node.op == "call_function" and _returns_its_input(node.target):
        node = node.args[0]
    return node


def view_chain(node, is_base):
    """(base node, steps) if ``node`` is a view of a node ``is_base`` accepts, reached
    through constant-argument views NumPy also makes (steps: (function, args), first to
    last, at least one a new view), else None. An in-place op on the way is its input
    after the write; a dtype view (``uint16`` moves as ``int16``) keeps the bits."""
    steps = []
    while not is_base(node := _written_node(node)):
        if node.op != "call_function":
            return None
        if node.target is _aten.view.dtype:
            dtype = _numpy_dtype(node.args[1])
            if dtype is None:
                return None
            steps.append((_view_as, (dtype,), False))
            node = node.args[0]
            continue
        step = _STEPS.get(node.target)
        if step is None or node.kwargs or not _constant(node.args[1:]):
            return None
        steps.append((step, tuple(node.args[1:]), True))
        node = node.args[0]
    if not any(new for _, _, new in steps):
        return None
    return node, [(step, args) for step, args, _ in reversed(steps)]


def replay(base, steps):
    """The NumPy view ``steps`` (``view_chain``'s) make of ``base``."""
    for step, args in steps:
        base = step(base, *args)
    return base


def _traced_node(tensor):
    """The node of the graph being recorded that computed ``tensor``, or None."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode, get_proxy_slot
    mode = get_proxy_mode()
    slot = None if mode is None else get_proxy_slot(tensor, mode.tracer, None)
    return None if slot is None else slot.proxy.node


def steps_between(tensor, base):
    """``view_chain``'s steps from tensor ``base`` to ``tensor`` in the graph being
    recorded, or None."""
    node, base_node = _traced_node(tensor), _traced_node(base)
    if node is None or base_node is None:
        return None
    base_node = _written_node(base_node)
    found = view_chain(node, lambda n: n is base_node)
    return None if found is None else found[1]
