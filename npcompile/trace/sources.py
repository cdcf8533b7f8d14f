"""Sources: where a value the trace relied on came from, as a Python expression over the
call's arguments ``L``, the function's globals ``G``, builtins ``B`` and closure cells
``C``. Guards and input extraction are generated from these expressions."""
import keyword


class Source:
    __slots__ = ("expr", "label")

    def __init__(self, expr, label):
        self.expr = expr
        self.label = label

    def __repr__(self):
        return self.label

    def __eq__(self, other):
        return isinstance(other, Source) and other.expr == self.expr

    def __hash__(self):
        return hash(self.expr)


def argument(index, name):
    return Source(f"L[{index}]", name)


#: the function's own globals and the builtins module's dict, as the guards name them
GLOBALS = Source("G", "globals()")
BUILTINS = Source("B", "builtins")


def global_(name, namespace=GLOBALS):
    """``name`` in a globals dict: the function's own (``G``) or a helper's
    (``namespace``: its ``__globals__``, labelled with its module's name)."""
    if namespace is GLOBALS:
        return Source(f"G[{name!r}]", f"global {name}")
    return Source(f"{namespace.expr}[{name!r}]", f"global {name} of {namespace.label}")


def builtin(name, namespace=BUILTINS):
    """``name`` in a builtins dict: the builtins module's (``B``) or a function's own
    (``namespace``: its ``__builtins__``)."""
    if namespace is BUILTINS:
        return Source(f"B[{name!r}]", f"builtin {name}")
    return Source(f"{namespace.expr}[{name!r}]", f"builtin {name} of {namespace.label}")


def cell(index, name):
    return Source(f"C[{index}].cell_contents", f"closure variable {name}")


def attribute(base, name):
    """``base.name`` (a plain attribute load is the cheapest guard to evaluate)."""
    if name.isidentifier() and not keyword.iskeyword(name):
        return Source(f"{base.expr}.{name}", f"{base.label}.{name}")
    return Source(f"getattr({base.expr}, {name!r})", f"{base.label}.{name}")


def item(base, key):
    return Source(f"{base.expr}[{key!r}]", f"{base.label}[{key!r}]")
