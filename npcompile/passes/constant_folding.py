"""Evaluate the parts of a graph that depend on no graph input once, at compile time.

A loop unrolled at trace time computes values from trace-time constants alone: an FFT's
twiddle factors ``np.exp(-1j * np.pi * np.arange(half) / half)``, one per stage. Inductor
compiles such a subgraph like any other, and after complex lowering one complex ``exp``
is some forty real ops, so most of the FFT's compile time went to values that never
change. This post-grad pass runs each such subgraph once with torch's eager kernels (the
ones the eager shim calls, on the graph's device) and replaces it by a constant of the
graph module (a ``get_attr`` buffer), which Inductor reads from memory and keeps in its
FX graph cache entry.

The constants a subgraph starts from are the graph module's tensor attributes and, where
the graph went through AOT autograd (one that writes into arrays), the placeholders it
made of them: the shim turns each Python scalar operand into a 0-d tensor, which make_fx
stores on the module and AOT autograd passes back in as an input; their values come from
the tracing context, as Inductor's freezing reads them, and key the FX graph cache.

Not folded: anything reached from another graph input (symbolic sizes included), random ops
(their value must change per call), ops that mutate or leave memory undefined (``empty``),
values over ``MAX_BYTES`` (each stays in memory as long as the compiled graph, is pickled
into the cache entry, and is read from memory where Inductor would have computed it in
the kernel), values the graph returns (NumPy returns a new array per call), and the
cheap ends of a subgraph: views, constructors (``full``, ``iota``) and the index
arithmetic of ``arange`` and ``linspace``, which Inductor computes inside its kernels.
"""
import hashlib
import logging

import torch
from torch._inductor.custom_graph_pass import CustomGraphPass
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols, is_symbolic
from torch.utils._python_dispatch import _disable_current_modes
from torch.utils._pytree import tree_leaves

aten = torch.ops.aten
log = logging.getLogger(__name__)

#: The largest value folded, and the most all of a graph's folded values may take: 1 MiB
#: stays in a core's L2 cache, so reading it costs about what computing it would, and a
#: graph's constants stay small beside its inputs in memory and on disk.
MAX_BYTES = 1 << 20
MAX_TOTAL_BYTES = 16 << 20

#: Ops whose result is not a function of their arguments' values.
_UNDEFINED = {aten.empty.memory_format, aten.empty_strided.default, aten.empty_like.default,
              aten.new_empty.default, aten.new_empty_strided.default}
#: Elementwise ops Inductor's kernels compute from the index at no cost worth storing:
#: arange's and linspace's arithmetic, masks such as triu's (a bool buffer read instead
#: slowed nbody's first call, 19 -> 25 s at load 4), and the wrapped indices of a roll
#: (``(arange + shift) % n``: a folded index buffer turns the roll's affine loads into
#: indirect ones; game_of_life's eight rolls per generation took 13.6-17.5 ms against
#: 2.3-2.8 ms unfolded, NumPy 3.7).
_INDEX_ARITHMETIC = {
    aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar, aten.mul.Tensor, aten.mul.Scalar,
    aten.fmod.Scalar, aten.fmod.Tensor, aten.remainder.Scalar, aten.remainder.Tensor, aten.floor_divide.default,
    aten.neg.default, torch.ops.prims.convert_element_type.default, aten.where.self,
    *(getattr(aten, name).Scalar for name in ("lt", "le", "gt", "ge", "eq", "ne")),
    *(getattr(aten, name).Tensor for name in ("lt", "le", "gt", "ge", "eq", "ne", "bitwise_and", "bitwise_or")),
    aten.bitwise_not.default, aten.logical_not.default, aten.logical_and.default, aten.logical_or.default,
}
_UNREPEATABLE = (torch.Tag.nondeterministic_seeded, torch.Tag.nondeterministic_bitwise)


class FoldConstants(CustomGraphPass):
    """Replace each subgraph of a post-grad graph that reads no graph input by the
    constant it computes. Runs first, so that later passes (complex lowering above all)
    see fewer nodes."""

    #: Folding helps every code generator; it runs on the graph's own device.
    CPP_ONLY = False

    def __call__(self, graph: torch.fx.Graph) -> None:
        if not torch._inductor.config.joint_graph_constant_folding:
            return   # Inductor's folding is off: no real tensors may be made (npcompile.gpu's interpreter)
        sources = constant_sources(graph)
        constant = constant_nodes(graph, sources)
        folded = _to_fold(graph, constant, sources)
        if folded:
            try:
                results = _evaluate(graph, constant, folded, sources)
            except Exception as exc:   # an op without an eager kernel: leave the graph to Inductor
                log.debug("not folding constants: %s", exc)
                return
            _replace(graph, folded, results)

    def uuid(self):
        """Versioned, and keyed by the values of the constants lifted to inputs: Inductor's
        FX graph cache keys a graph by its inputs' shapes, not their values, and a folded
        graph holds values computed from them."""
        digest = hashlib.sha256()
        for value in _lifted_values():
            if _bytes(value) <= MAX_BYTES:
                digest.update(f"{value.dtype}{tuple(value.shape)}{tuple(value.stride())}".encode())
                digest.update(_raw_bytes(value))
        return f"npcompile.constant_folding.FoldConstants/1:{digest.hexdigest()}"


def constant_sources(graph):
    """Node -> value: the graph module's tensor attributes, and the placeholders AOT
    autograd made of them (npcompile's captured graphs hold constants only, such as the
    0-d tensors the shim makes of Python scalars, and never write into them)."""
    sources = {n: getattr(graph.owning_module, n.target) for n in graph.find_nodes(op="get_attr")}
    sources = {n: v for n, v in sources.items() if isinstance(v, torch.Tensor)}
    lifted = _lifted_values()
    placeholders = graph.find_nodes(op="placeholder")
    if len(lifted) > len(placeholders) or len({id(v) for v in lifted}) < len(lifted):
        return sources   # not AOT autograd's plain layout (parameters first, none repeated)
    for node, value in zip(placeholders, lifted):
        fake = node.meta.get("val")
        if not (isinstance(fake, torch.Tensor) and isinstance(value, torch.Tensor) and _same_layout(fake, value)):
            return sources
        if not any(_writes(user) for user in node.users):
            sources[node] = value
    return sources


def _lifted_values():
    """The tensors AOT autograd passes as the graph's first inputs (parameters and
    buffers), as Inductor's freezing reads them."""
    context = torch._guards.TracingContext.try_get()
    return list(getattr(context, "params_flat_unwrap_subclasses", None) or [])


def _same_layout(fake, value):
    return (fake.shape == value.shape and fake.dtype == value.dtype and fake.device == value.device
            and fake.stride() == value.stride() and not value.requires_grad)


def _writes(node):
    return isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable


def _raw_bytes(value):
    flat = value.detach().cpu().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def constant_nodes(graph, sources):
    """The nodes of ``graph`` whose value is a tensor computed from ``sources`` alone."""
    constant = set(sources)
    for node in graph.nodes:
        if node.op == "call_function" and _foldable_op(node) and _small_static(node) \
                and all(a in constant for a in node.all_input_nodes):
            constant.add(node)
    return constant


def _foldable_op(node):
    target = node.target
    if not isinstance(target, torch._ops.OpOverload) or target in _UNDEFINED:
        return False
    if target._schema.is_mutable or any(tag in target.tags for tag in _UNREPEATABLE):
        return False
    return not any(isinstance(a, (torch.SymInt, torch.SymFloat, torch.SymBool))
                   for a in tree_leaves((node.args, node.kwargs)))


def _small_static(node):
    """A tensor of static shape and strides, on a device this process can use, no larger
    than ``MAX_BYTES``."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or free_unbacked_symbols(value):
        return False
    if any(is_symbolic(s) for s in (*value.shape, *value.stride(), value.storage_offset())):
        return False
    if value.device.type != "cpu" and not _available(value.device.type):
        return False
    return value.numel() * value.element_size() <= MAX_BYTES


def _available(device_type):
    """Whether this process can make tensors on devices of ``device_type`` (not "meta")."""
    module = getattr(torch, device_type, None)
    return module is not None and getattr(module, "is_available", lambda: False)()


def _cheap(graph, constant, sources):
    """Constant nodes Inductor computes inside its kernels in a few instructions, where
    reading a stored value would gain nothing: constructors (``full``, ``iota``), views,
    and the index arithmetic of ``arange`` and ``linspace`` on those."""
    cheap = set()
    for node in graph.nodes:
        if node in constant and (node in sources or not node.all_input_nodes or (
                node.target in _INDEX_ARITHMETIC and all(a in cheap for a in node.all_input_nodes))):
            cheap.add(node)
        elif node in constant and getattr(node.target, "is_view", False) and node.args[0] in cheap:
            cheap.add(node)
    return cheap


def _to_fold(graph, constant, sources):
    """The constant nodes that a node staying in the graph reads, walked back through
    cheap ones and the graph's outputs (which stay), in graph order; none past
    ``MAX_TOTAL_BYTES`` in all."""
    views = {n for n in constant if getattr(n.target, "is_view", False)}
    stays = _cheap(graph, constant, sources) | views | _returned(graph)
    read = set()
    for node in reversed(graph.nodes):
        if node not in constant or (node in read and node in stays):
            read.update(a for a in node.all_input_nodes if a in constant)
    folded, total = [], 0
    for node in graph.nodes:
        if node in read and node not in stays:
            total += _bytes(node.meta["val"])
            if total > MAX_TOTAL_BYTES:
                break
            folded.append(node)
    return folded


def _returned(graph):
    """The nodes the graph returns, and the bases of the views it returns: computed per
    call, as NumPy returns a new array each time, never the compiled graph's constant."""
    returned = set()
    for node in graph.output_node().all_input_nodes:
        while node not in returned:
            returned.add(node)
            if node.op == "call_function" and getattr(node.target, "is_view", False):
                node = node.args[0]
    return returned


def _bytes(value):
    return value.numel() * value.element_size()


def _evaluate(graph, constant, folded, sources):
    """The value of each node of ``folded``: its subgraph run with torch's eager kernels,
    each intermediate dropped after its last use."""
    needed, stack = set(), list(folded)
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(a for a in node.all_input_nodes if a in constant)
    last_use = {}
    for node in graph.nodes:
        if node in needed:
            for a in node.all_input_nodes:
                last_use[a] = node
    wanted, values, results = set(folded), {}, {}
    with _disable_current_modes(), torch.no_grad():
        for node in graph.nodes:
            if node not in needed:
                continue
            values[node] = sources[node] if node in sources else _run(node, values)
            if node in wanted:
                results[node] = values[node]
            for a in node.all_input_nodes:
                if last_use[a] is node:
                    del values[a]
    return results


def _run(node, values):
    args, kwargs = torch.fx.map_arg((node.args, node.kwargs), values.__getitem__)
    return node.target(*args, **kwargs)


def _replace(graph, folded, results):
    """Each folded node becomes a buffer of the graph module, laid out as the node's fake
    value says (Inductor plans its readers by that layout)."""
    module = graph.owning_module
    for node in folded:
        fake, value = node.meta["val"], results[node]
        if value.stride() != fake.stride() or value.storage_offset() != 0:
            value = torch.empty_strided(fake.shape, fake.stride(), dtype=fake.dtype,
                                        device=fake.device).copy_(value)
        name = _free_name(module)
        module.register_buffer(name, value)
        with graph.inserting_before(node):
            attr = graph.get_attr(name)
        attr.meta.update(node.meta)
        node.replace_all_uses_with(attr)
    graph.eliminate_dead_code()


def _free_name(module):
    k = 0
    while hasattr(module, f"_npcompile_constant{k}"):
        k += 1
    return f"_npcompile_constant{k}"
