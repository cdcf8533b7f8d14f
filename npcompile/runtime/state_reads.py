"""Reads of a segment's state made once per run of its generated fast path.

A fast path reads the same few places of its state ``L`` many times: a loop body's
guards read ``L[0].locals['r']`` for its type, dtype, shape and strides, then the input
tuple and the result read it again; each read is an index, an attribute and a dict
lookup, paid every iteration of a loop the runtime drives. ``hoist`` rewrites the
generated source so that each place is read once, into a local name, at the top of the
guards' ``try`` (whose failure is a miss, as a failing guard's read is).

Only reads that run no code of the program are moved: items of ``L`` (the arguments'
tuple or list, or a resumed segment's list of frames), for a resumed segment a frame's
``locals`` (a dict of names) and ``stack`` (a list) and their items, and names in the
function's globals ``G`` (a dict). A source that assigns to any of those (a global the
segment sets) is left as it is; otherwise nothing in it rebinds them, and the graph
between the guards and the results touches no Python object, so each place holds the
same object at every read.
"""
import ast

_FRAME_PARTS = {"locals": str, "stack": int}   # a Frame's attribute -> the type of its keys


def _constant(node, kind):
    return isinstance(node, ast.Constant) and type(node.value) is kind


class _Hoister(ast.NodeTransformer):
    """Replaces each hoistable read by a name (children first, so a read's own reads
    are names already); ``assignments`` binds the names in order."""

    def __init__(self, frames):
        self.frames = frames      # L holds Frames (a resumed segment)
        self.kinds = {}           # hoisted name -> "item", "locals" or "stack"
        self.names = {}           # source of the read (over hoisted names) -> its name
        self.assignments = []

    def _kind(self, node):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            base = node.value
            if isinstance(base, ast.Name) and base.id == "L" and _constant(node.slice, int):
                return "item"
            if isinstance(base, ast.Name) and base.id == "G" and _constant(node.slice, str):
                return "value"
            if isinstance(base, ast.Name) and self.kinds.get(base.id) in _FRAME_PARTS \
                    and _constant(node.slice, _FRAME_PARTS[self.kinds[base.id]]):
                return "value"
        if self.frames and isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                and node.attr in _FRAME_PARTS and isinstance(node.value, ast.Name) \
                and self.kinds.get(node.value.id) == "item":
            return node.attr
        return None

    def generic_visit(self, node):
        node = super().generic_visit(node)
        kind = self._kind(node)
        if kind is None:
            return node
        source = ast.unparse(node)
        name = self.names.get(source)
        if name is None:
            name = self.names[source] = f"_at{len(self.names)}"
            self.kinds[name] = kind
            self.assignments.append(f"{name} = {source}")
        return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)


def _stores_into_state(tree):
    """Whether some statement assigns or deletes through ``L`` or ``G`` (then nothing is
    moved)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            root = node
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ("L", "G"):
                return True
    return False


def hoist(source, frames):
    """``source`` (``def fast(L):`` whose body starts with the guards' ``try``) with its
    reads of ``L`` made once, at the top of that ``try``; ``frames``: ``L`` is a list of
    Frames. The source as it was when there is nothing to move."""
    tree = ast.parse(source)
    function = tree.body[0]
    first = function.body[0] if function.body else None
    if not isinstance(first, ast.Try) or _stores_into_state(tree):
        return source
    hoister = _Hoister(frames)
    function.body = [hoister.visit(statement) for statement in function.body]
    if not hoister.assignments:
        return source
    first.body[:0] = [ast.parse(line).body[0] for line in hoister.assignments]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
