"""torch's symbolic numbers and the Python type each stands for. An int traced as a graph
input (it changed between calls) is a ``torch.SymInt`` in the trace; what traced code asks
of its type (``isinstance``, ``type``, ``__class__``, a class pattern) must get the
answer CPython gives for the number it stands for."""
import torch

PYTHON_TYPES = {torch.SymInt: int, torch.SymFloat: float, torch.SymBool: bool}


def is_symbolic(value):
    return type(value) in PYTHON_TYPES


def python_type(value):
    """``type(value)``, with a symbol's Python type (``int`` for a SymInt)."""
    return PYTHON_TYPES.get(type(value)) or type(value)


def stand_in(value):
    """``value``, or for a symbol a plain number of its Python type (``isinstance`` of it
    answers as of the number, ABCs such as numbers.Integral included)."""
    python = PYTHON_TYPES.get(type(value))
    return value if python is None else python()
