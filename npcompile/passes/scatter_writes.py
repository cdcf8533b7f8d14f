"""Write ``a[1:-1, 1:-1] = ...`` into a copy instead of a masked whole-array kernel.

Functionalization turns an assignment into a slice of an array into ``slice_scatter``
(nested, one per sliced dim): a new array equal to the old one except in the slice.
Inductor computes that as one kernel over the whole array that asks, at every element,
whether it lies in the slice, and loads the new value under a mask if so. On the CPU
those masked, branching loops run about four times slower than plain ones: a 3-D heat
step took 2.5 ms where the interior update alone takes 0.55 ms. This pass rewrites each
outermost scatter as Inductor itself does when it judges the mutation worth it: a plain
copy of the old array (``clone``), then the new values written straight into the slice
of the copy (``copy_`` into a view), which Inductor fuses with their computation,
unmasked. The copy is skipped only for an array nothing else reads (a fresh
``np.empty``, or a copy this pass made), so inputs and other readers of the old array
are untouched. It runs after Inductor's pattern passes, whose no-op removal would
otherwise take the clone away and leave the write landing in the old array.
"""
import torch
from torch._inductor.custom_graph_pass import CustomGraphPass

aten = torch.ops.aten

_VIEW_OF = {aten.slice_scatter.default: aten.slice.Tensor, aten.select_scatter.default: aten.select.int}


def _view_args(node):
    """The arguments after (base, src) of a scatter: the view of the base it replaces."""
    return tuple(node.args[2:]), dict(node.kwargs)


def _is_view_of(node, base, target, args, kwargs):
    return (node.op == "call_function" and node.target is target and node.args[0] is base
            and tuple(node.args[1:]) == args and dict(node.kwargs) == kwargs)


def _chain(scatter):
    """(base, [(view op, args, kwargs), ...], values): nested scatters whose bases are the
    matching views of the outer base, as functionalization emits for ``a[i, j] = v``."""
    base = scatter.args[0]
    views = []
    node, view_base = scatter, base
    while True:
        target = _VIEW_OF[node.target]
        args, kwargs = _view_args(node)
        views.append((target, args, kwargs))
        inner = node.args[1]
        if not (isinstance(inner, torch.fx.Node) and inner.target in _VIEW_OF and len(inner.users) == 1
                and isinstance(inner.args[0], torch.fx.Node)
                and _is_view_of(inner.args[0], view_base, target, args, kwargs)):
            return base, views, inner
        view_base = inner.args[0]
        node = inner


def _written_back(scatter):
    """Whether the scatter updates an input in place (its result copied back into the
    input): Inductor then writes into the input directly, better than any copy."""
    base = scatter.args[0]
    return base.op == "placeholder" and any(
        user.target is aten.copy_.default and user.args[0] is base for user in scatter.users)


def _dense(value):
    return isinstance(value, torch.Tensor) and value.layout == torch.strided and value.ndim > 0


_EMPTY = {aten.empty.memory_format, aten.empty_strided.default, aten.empty_like.default}
_SHAPE_ONLY = {aten.fill.Scalar, aten.fill.Tensor, aten.empty_like.default, aten.sym_size.int,
               aten.sym_stride.int, aten.sym_numel.default}   # read an array's shape, not its values
_WRITES = {aten.copy_.default, aten.copy.default}   # into their first argument (copy: its shape)


class WriteScattersInPlace(CustomGraphPass):
    """Rewrite each outermost slice/select scatter as a clone written into through views;
    the clone is skipped where nothing else reads the old array: a fresh ``np.empty``,
    or the buffer an earlier assignment wrote (``v[1:-1] = ...; v[0] = 0``)."""

    #: Not C++-only: runs for CUDA and CPU-Triton graphs as well as C++ ones, since
    #: a copy plus an unmasked slice write is how Inductor itself lowers mutations it keeps.
    CPP_ONLY = False

    def __call__(self, graph):
        buffers = set()   # the arrays this pass writes into
        for node in list(graph.nodes):
            if node.op != "call_function" or node.target not in _VIEW_OF:
                continue
            if any(user.target in _VIEW_OF and user.args[1] is node for user in node.users):
                continue   # the inner part of a chain, rewritten with its outermost scatter
            value = node.meta.get("val")
            if not _dense(value) or node.args[0].meta.get("val") is None or _written_back(node):
                continue
            _rewrite(graph, node, buffers)

    def uuid(self):
        return "npcompile.scatter_writes.WriteScattersInPlace/1"


def _rewrite(graph, scatter, buffers):
    base, views, values = _chain(scatter)
    chain = [scatter, *_inner_scatters(values, scatter)]
    fake_mode = scatter.meta["val"].fake_mode
    with graph.inserting_before(scatter), fake_mode:
        if _only_written_here(base, chain, buffers):
            buffer = base
        else:
            buffer = graph.call_function(aten.clone.default, (base,))   # in the scatter's layout
            buffer.meta["val"] = torch.clone(base.meta["val"])
        view = buffer
        for target, args, kwargs in views:
            parent = view
            view = graph.call_function(target, (parent, *args), kwargs)
            # a view's arguments may be graph values (a loop body's symbolic index)
            view.meta["val"] = target(parent.meta["val"], *torch.fx.node.map_arg(args, _meta_value),
                                      **torch.fx.node.map_arg(kwargs, _meta_value))
        written = graph.call_function(aten.copy_.default, (view, values))
        written.meta["val"] = view.meta["val"]
    buffers.add(buffer)
    scatter.replace_all_uses_with(buffer)
    for dead in chain:
        if not dead.users:
            graph.erase_node(dead)


def _meta_value(node):
    return node.meta["val"]


def _only_written_here(base, chain, buffers):
    """Whether ``base`` may be written in place: a fresh, uninitialized array or a buffer
    of this pass whose values nothing reads, directly or through a view, other than
    the scatters of ``chain`` (a read before the write is refused too: Inductor may fuse
    it with the write and read what was just written)."""
    if base.target not in _EMPTY and base not in buffers:
        return False
    aliases = [base]
    for alias in aliases:
        for user in alias.users:
            if getattr(user.target, "is_view", False):
                aliases.append(user)
            elif not (user in chain or user.target in _SHAPE_ONLY
                      or (user.target in _WRITES and user.args[0] is alias and alias not in user.args[1:])):
                return False
    return True


def _inner_scatters(values, scatter):
    """The now unused nested scatters between ``scatter`` and its values, outermost first."""
    found, node = [], scatter.args[1]
    while isinstance(node, torch.fx.Node) and node is not values:
        found.append(node)
        node = node.args[1]
    return found
