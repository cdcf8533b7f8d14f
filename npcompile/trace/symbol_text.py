"""Text made from a number the trace knows only as a torch symbol.

A size that changed between calls (``a.shape[0]``), an int argument traced as a graph
input, a loop's index: in the trace each is a ``torch.SymInt`` (or a SymFloat/SymBool
computed from one), whose ``str``/``repr``/``format`` is the symbol's name ('s29'), not
the number. Text built from one would bake that name into the graph as a constant, so
building it is a graph break instead: the instruction runs for real, with the number,
as ``f"{n}"`` already did (``Tracer.format``). A symbol inside a tuple, list, dict,
set, slice or an object's attributes (``str(a.shape)``, ``repr(P(n))``) counts too.
"""
import types

import torch

from torch_numpy_shim._ndarray import ndarray as ShimArray

from ..errors import GraphBreak

_SYMBOLS = (torch.SymInt, torch.SymFloat, torch.SymBool)
_SEQUENCES = (tuple, list, set, frozenset)
#: never looked into: their text does not come from symbols in their attributes
_OPAQUE = (ShimArray, torch.Tensor, types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, str, bytes, int, float, complex, bool, type(None))
_MAX_DEPTH = 16


def holds_symbol(value, depth=0, seen=None):
    """Whether ``value`` is, or holds (in a container or an attribute), a torch symbol."""
    if isinstance(value, _SYMBOLS):
        return True
    if isinstance(value, _OPAQUE) or depth > _MAX_DEPTH:
        return False
    seen = set() if seen is None else seen
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, _SEQUENCES):
        parts = value
    elif isinstance(value, dict):
        parts = (*value.keys(), *value.values())
    elif isinstance(value, slice):
        parts = (value.start, value.stop, value.step)
    else:
        parts = _attributes(value)
    return any(holds_symbol(part, depth + 1, seen) for part in parts)


def _attributes(obj):
    """An object's instance attributes: its ``__dict__`` and its slots (read without
    running code of its class)."""
    try:
        namespace = object.__getattribute__(obj, "__dict__")   # no __getattr__ of the class runs
    except (AttributeError, TypeError):
        namespace = None
    found = list(namespace.values()) if isinstance(namespace, dict) else []
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            descriptor = klass.__dict__.get(name)
            if isinstance(descriptor, types.MemberDescriptorType):
                try:
                    found.append(descriptor.__get__(obj, klass))
                except AttributeError:   # an empty slot
                    pass
    return found


def refuse(*values):
    """A graph break where text would be made from a symbol among ``values``."""
    if any(holds_symbol(v) for v in values):
        raise GraphBreak("text made from a number known only at run time (a size or an int that "
                         "changed between calls) needs its value",
                         "not an error: the text is made for real, with the number")
