"""Store arrays that stencils read at several offsets, instead of recomputing them.

Inductor inlines a pointwise value into each consumer unless it judges the value
expensive. A time-stepping stencil (``u[1:-1] = u[:-2] + u[2:] ...`` in a loop, or
``np.roll`` neighbour sums) reads each step's array at several offsets, so inlining
recomputes the previous step once per offset, and the step before that once per offset
of those: work grows geometrically with the number of unrolled steps. NumPy stores every
step. This post-grad pass marks a computed array whose shifted views (slices, selects,
gathers) together read some element more than once to be stored once, which is what
NumPy does and what the loop means. Values read whole, through one view, or through
disjoint views (the rows of a stacked state) still fuse.
"""
import torch
from torch._inductor import inductor_prims
from torch._inductor.custom_graph_pass import CustomGraphPass

_SHIFTED_READS = {
    torch.ops.aten.slice.Tensor,
    torch.ops.aten.select.int,
    torch.ops.aten.index.Tensor,   # np.roll and fancy indexing, after decomposition
}
_STORE = inductor_prims.force_stride_order
_NOT_COMPUTED = {"placeholder", "get_attr", "output"}


def _stored_elsewhere(node):
    """Inputs, views and fills cost nothing to re-read, so storing them gains nothing."""
    if node.op in _NOT_COMPUTED or node.target is _STORE:
        return True
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or value.ndim == 0:
        return True
    return node.target in _SHIFTED_READS or getattr(node.target, "is_view", False)


def static_strides(value):
    """A tensor's strides as ints, or None when any is symbolic."""
    strides = value.stride()
    return list(strides) if all(isinstance(s, int) for s in strides) else None


def _overlapping(node, readers):
    """Whether the views read more elements than the array has, so inlining would
    compute some element more than once."""
    read = 0
    for reader in readers:
        value = reader.meta.get("val")
        if not isinstance(value, torch.Tensor) or not isinstance(value.numel(), int):
            return False
        read += value.numel()
    total = node.meta["val"].numel()
    return isinstance(total, int) and read > total


class StoreStencilInputs(CustomGraphPass):
    """Insert a store (Inductor's force-stride-order prim, a copy only if needed) after
    each computed array read through two or more shifted views."""

    #: Not C++-only: runs for CUDA and CPU-Triton graphs as well as C++ ones, since
    #: recomputing each step once per offset grows geometrically on any device.
    CPP_ONLY = False

    def __call__(self, graph):
        for node in list(graph.nodes):
            if _stored_elsewhere(node):
                continue
            readers = [u for u in node.users if u.target in _SHIFTED_READS and u.args[0] is node]
            if len(readers) < 2 or not _overlapping(node, readers):
                continue
            strides = static_strides(node.meta["val"])
            if strides is None:
                continue
            with graph.inserting_after(node):
                stored = graph.call_function(_STORE, (node, strides))
            stored.meta.update(node.meta)
            node.replace_all_uses_with(stored, delete_user_cb=lambda user: user is not stored)

    def uuid(self):
        return "npcompile.stencils.StoreStencilInputs/2"
