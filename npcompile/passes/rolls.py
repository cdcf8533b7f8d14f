"""Read rolls along the innermost axis as slices of one wrap-padded copy.

``np.roll`` decomposes to a gather with index ``(j + c) % n``. Inductor's C++ code
generator cannot vectorize a load whose innermost index wraps around, and a kernel with
several such loads (a neighbour sum over ``np.roll(board, dx, axis=1)`` for a few ``dx``)
is compiled as scalar code. On CPU, ``InnermostRollsAsSlices`` rewrites the innermost
rolls of one array as contiguous slices of a copy padded at both ends with the elements
that wrap around: ``p = [x[..., n-L:], x, x[..., :R]]``, and ``roll`` by ``-c`` is
``p[..., L+c : L+c+n]``. A roll along an outer axis taken before the innermost one
commutes with it, so it is applied to the slice instead, and all rolls of one array
share one padded copy. A single innermost roll of an array is left alone: one wrapping
load in a kernel does not stop vectorization, and a copy would cost more.
"""
import torch
from torch._inductor.custom_graph_pass import CustomGraphPass

_aten = torch.ops.aten
_MODULO = (_aten.fmod.Scalar, _aten.remainder.Scalar)


def _size_value(size):
    return size.meta.get("val") if isinstance(size, torch.fx.Node) else size


def _same_size(a, b):
    """Whether two graph size arguments (ints or SymInt nodes) are the same size."""
    a, b = _size_value(a), _size_value(b)
    if isinstance(a, torch.SymInt) or isinstance(b, torch.SymInt):
        return isinstance(a, torch.SymInt) and isinstance(b, torch.SymInt) and a.node.expr == b.node.expr
    return a == b


def _roll(node):
    """``(source, dim, index_node, offset_node_or_int)`` if ``node`` gathers ``source`` along
    one axis with ``(iota(n) + c) % n`` where ``n`` is that axis's size, else None."""
    if node.target is not _aten.index.Tensor or len(node.args) != 2:
        return None
    source, indices = node.args
    picked = [(d, i) for d, i in enumerate(indices) if i is not None]
    if len(picked) != 1 or not isinstance(source, torch.fx.Node):
        return None
    dim, modulo = picked[0]
    if not (isinstance(modulo, torch.fx.Node) and modulo.target in _MODULO):
        return None
    added, size = modulo.args
    if not (isinstance(added, torch.fx.Node) and added.target is _aten.add.Tensor):
        return None
    iota, shift = added.args
    if not (isinstance(iota, torch.fx.Node) and iota.target is torch.ops.prims.iota.default
            and iota.kwargs.get("start", 0) == 0 and iota.kwargs.get("step", 1) == 1):
        return None
    length = iota.args[0]
    if not (_same_size(length, size) and _same_size(size, source.meta["val"].shape[dim])):
        return None
    return source, dim, modulo, shift


def _signed_offset(shift, size):
    """The roll's read offset ``c`` in ``(-n, n)`` as a small int (``c`` or ``c - n``), or
    None when it is not one. Sizes that vary between calls are at least 2 (0 and 1 are
    specialized), so only offsets of at most one element are trusted for them."""
    shift_value = _size_value(shift)
    if isinstance(size, int) and isinstance(shift_value, int):
        offset = shift_value if shift_value <= size // 2 else shift_value - size
        return offset if abs(offset) < size else None
    size_expr = size.node.expr if isinstance(size, torch.SymInt) else size
    shift_expr = shift_value.node.expr if isinstance(shift_value, torch.SymInt) else shift_value
    for candidate in (shift_expr, shift_expr - size_expr):
        try:
            offset = int(candidate)
        except TypeError:
            continue
        if abs(offset) <= 1:
            return offset
    return None


def _outer_rolls(node):
    """Walk down the outer-axis rolls that made ``node``: (base, [(dim, index)]), the roll
    applied last first."""
    chain = []
    while (roll := _roll(node)) is not None and roll[1] < node.meta["val"].ndim - 1:
        chain.append((roll[1], roll[2]))
        node = roll[0]
    return node, chain


class InnermostRollsAsSlices(CustomGraphPass):
    """Rewrite CPU arrays rolled along their innermost axis two or more times as slices of
    one wrap-padded copy (see the module docstring)."""

    #: For Inductor's C++ code generator only (never run for CUDA or CPU-Triton graphs):
    #: a wrapping load stops C++ vectorization only; Triton gathers per element anyway.
    CPP_ONLY = True

    def __call__(self, graph):
        groups = {}
        for node in graph.nodes:
            roll = _roll(node)
            value = node.meta.get("val")
            if roll is None or value.device.type != "cpu" or roll[1] != value.ndim - 1:
                continue
            source, _, _, shift = roll
            offset = _signed_offset(shift, value.shape[-1])
            if offset is None:
                continue
            base, chain = _outer_rolls(source)
            groups.setdefault(base, []).append((node, offset, chain))
        for base, rolls in groups.items():
            if len(rolls) >= 2:
                _rewrite(graph, base, rolls)

    def uuid(self):
        return "npcompile.rolls.InnermostRollsAsSlices/1"


def _rewrite(graph, base, rolls):
    value = base.meta["val"]
    dim, size = value.ndim - 1, value.shape[-1]
    left = max(0, -min(offset for _, offset, _ in rolls))
    right = max(0, max(offset for _, offset, _ in rolls))
    with graph.inserting_before(rolls[0][0]), value.fake_mode:   # the earliest roll
        parts = ([_call(graph, _aten.slice.Tensor, base, dim, size - left, size)] if left else []) + [base] \
            + ([_call(graph, _aten.slice.Tensor, base, dim, 0, right)] if right else [])
        padded = _call(graph, _aten.cat.default, parts, dim)
    for node, offset, chain in rolls:
        with graph.inserting_before(node), value.fake_mode:
            result = base if offset == 0 else _call(graph, _aten.slice.Tensor, padded, dim,
                                                    left + offset, left + offset + size)
            for outer_dim, index in reversed(chain):
                result = _call(graph, _aten.index.Tensor, result, [None] * outer_dim + [index])
        node.replace_all_uses_with(result)
        graph.erase_node(node)
    graph.eliminate_dead_code()


def _call(graph, target, *args):
    """A node calling ``target`` on ``args``, with its fake value (run in the caller's fake mode)."""
    node = graph.call_function(target, args)
    fake = torch.fx.node.map_arg(args, lambda n: n.meta["val"])
    node.meta["val"] = target(*fake)
    return node
