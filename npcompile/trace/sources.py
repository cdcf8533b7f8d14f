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


def global_(name):
    return Source(f"G[{name!r}]", f"global {name}")


def builtin(name):
    return Source(f"B[{name!r}]", f"builtin {name}")


def cell(index, name):
    return Source(f"C[{index}].cell_contents", f"closure variable {name}")


def attribute(base, name):
    """``base.name`` (a plain attribute load is the cheapest guard to evaluate)."""
    if name.isidentifier() and not keyword.iskeyword(name):
        return Source(f"{base.expr}.{name}", f"{base.label}.{name}")
    return Source(f"getattr({base.expr}, {name!r})", f"{base.label}.{name}")


def item(base, key):
    return Source(f"{base.expr}[{key!r}]", f"{base.label}[{key!r}]")
