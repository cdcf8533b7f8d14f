"""What a captured graph does to its inputs' memory, read from the fake tensors make_fx
recorded: which inputs it writes into (also through views: ``a[1:] += 1`` writes
``copy_`` into a slice of ``a``, never into ``a``'s placeholder itself), and which outputs
are views of which inputs. The runtime needs both: a write into a read-only array must
raise NumPy's error instead of happening, a view of a read-only input must come back
read-only, and a graph that may have written into inputs cannot simply be rerun."""
import operator

import torch
from torch.multiprocessing.reductions import StorageWeakRef

from .view_replay import replay_steps


def _storage(node):
    value = node.meta.get("val") if hasattr(node, "meta") else None
    return StorageWeakRef(value.untyped_storage()) if isinstance(value, torch.Tensor) else None


def _in(storage, storages):
    """Indices of ``storages`` equal to ``storage`` (None never equals anything)."""
    return {i for i, s in enumerate(storages) if s is not None and storage is not None and s == storage}


def _arguments(node, schema):
    """(argument schema, value) pairs of a call, positional and keyword."""
    for k, argument in enumerate(schema.arguments):
        if k < len(node.args):
            yield argument, node.args[k]
        elif argument.name in node.kwargs:
            yield argument, node.kwargs[argument.name]


def _nodes(value):
    if isinstance(value, torch.fx.Node):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.fx.Node)]
    return []


def _view_base(node):
    """The node whose memory ``node`` views (following view ops and in-place ops, which
    return their argument), or ``node`` itself when it owns its memory."""
    for _ in range(100000):
        if node.op != "call_function":
            return node
        if node.target is operator.getitem:   # one view of a multi-output view op (split)
            node = node.args[0]
            continue
        schema = getattr(node.target, "_schema", None)
        aliases = set()
        for result in schema.returns if schema is not None else ():
            if result.alias_info is not None:
                aliases |= set(result.alias_info.before_set)
        source = None
        for argument, value in _arguments(node, schema) if aliases else ():
            info = argument.alias_info
            if info is not None and set(info.before_set) & aliases and isinstance(value, torch.fx.Node):
                source = value
                break
        if source is None:
            return node
        node = source
    return node


class GraphEffects:
    """``written``: indices of the graph's inputs whose memory some op writes (an input
    sharing memory with a written one counts as written). ``views``: output index ->
    indices of the inputs that output is a view of. ``replays``: output index -> (input
    index, steps) for outputs NumPy would return as reversed views (``view_replay``)."""

    def __init__(self, gm):
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        storages = [_storage(p) for p in placeholders]
        self.written = sorted(self._written(gm, placeholders, storages))
        self.views = self._views(gm, placeholders, storages)
        self.replays = self._replays(gm, placeholders)

    @staticmethod
    def _sharing(node, placeholders, storages):
        """Inputs whose memory ``node``'s value is in (all tensor inputs, if unknown)."""
        base = _view_base(node)
        if base.op == "placeholder":
            index = placeholders.index(base)
            return _in(storages[index], storages) | {index}
        storage = _storage(node)
        if storage is None:
            return {i for i, s in enumerate(storages) if s is not None}
        return _in(storage, storages)

    def _written(self, gm, placeholders, storages):
        written = set()
        for node in gm.graph.nodes:
            schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
            if schema is None or not schema.is_mutable:
                continue
            for argument, value in _arguments(node, schema):
                if argument.alias_info is not None and argument.alias_info.is_write:
                    for target in _nodes(value):
                        written |= self._sharing(target, placeholders, storages)
        return written

    @staticmethod
    def _views(gm, placeholders, storages):
        output = next(n for n in gm.graph.nodes if n.op == "output")
        results = output.args[0] if isinstance(output.args[0], (list, tuple)) else [output.args[0]]
        views = {}
        for k, node in enumerate(results):
            storage = _storage(node) if isinstance(node, torch.fx.Node) else None
            sharing = _in(storage, storages)
            if not sharing:
                continue
            base = _view_base(node)
            views[k] = [placeholders.index(base)] if base.op == "placeholder" else sorted(sharing)
        return views

    @staticmethod
    def _replays(gm, placeholders):
        output = next(n for n in gm.graph.nodes if n.op == "output")
        results = output.args[0] if isinstance(output.args[0], (list, tuple)) else [output.args[0]]
        replays = {}
        for k, node in enumerate(results):
            found = replay_steps(node) if isinstance(node, torch.fx.Node) else None
            if found is not None:
                replays[k] = (placeholders.index(found[0]), found[1])
        return replays
