"""Whether a source tensor may share memory with a destination it is about to be written
into, so the write copies the source first (NumPy copies as if through a temporary).

Two NumPy arrays over one buffer (``b[1:]``, ``b[:-1]``) reach the shim as two tensors
with two storages (``torch.from_numpy`` of each view), so neither the shim's base nor
storage identity tells that they overlap: real tensors are compared by the byte
ranges they span. Traced tensors have no addresses: a value reached by views from a
graph input other than the destination's may be the same memory at run time, so it
counts as overlapping; a value computed in the graph is fresh and does not.
"""
import torch
from torch.multiprocessing.reductions import StorageWeakRef


def may_overlap(src, dst):
    """Whether writing ``src`` into ``dst`` may read items already overwritten."""
    if src.numel() == 0 or dst.numel() == 0:
        return False
    if StorageWeakRef(src.untyped_storage()) == StorageWeakRef(dst.untyped_storage()):
        return True  # storage identity: works for fake tensors too
    from torch._subclasses.fake_tensor import is_fake
    if not is_fake(src) and not is_fake(dst):
        try:
            return _ranges_meet(src, dst)
        except (RuntimeError, NotImplementedError):
            return True
    return _traced_inputs_may_meet(src, dst)


def _byte_range(t):
    lo = hi = 0
    for n, s in zip(t.shape, t.stride()):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    size, start = t.element_size(), t.data_ptr()
    return start + lo * size, start + (hi + 1) * size


def _ranges_meet(a, b):
    a_lo, a_hi = _byte_range(a)
    b_lo, b_hi = _byte_range(b)
    return a_lo < b_hi and b_lo < a_hi


def _traced_inputs_may_meet(src, dst):
    """Under make_fx: whether ``src`` is a view of a graph input (a placeholder) other
    than ``dst``'s root; with no tracer to ask, any two fake tensors may meet."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode, get_proxy_slot
    mode = get_proxy_mode()
    if mode is None:
        return True
    src_root = _root_node(get_proxy_slot(src, mode.tracer, None))
    if src_root is None or src_root.op != "placeholder":
        return False  # computed in the graph (or a constant): fresh memory
    dst_root = _root_node(get_proxy_slot(dst, mode.tracer, None))
    return dst_root is not src_root


def _root_node(slot):
    """The node a tensor is a chain of views of (aten ops whose result aliases their
    first argument)."""
    if slot is None:
        return None
    node = slot.proxy.node
    while node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
        returns = node.target._schema.returns
        if not returns or returns[0].alias_info is None or not node.args:
            break
        first = node.args[0]
        if not isinstance(first, torch.fx.Node):
            break
        node = first
    return node
