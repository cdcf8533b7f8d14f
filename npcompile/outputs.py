"""From a traced return value to the caller's result.

While tracing, the returned object (and the writes the function made to objects that
outlive the call) is encoded as Python source over the graph's outputs ``out`` and the
call's arguments ``L``; it is compiled once into a ``finish(L, out)`` function that
converts tensors to NumPy's exact types, replays the side effects in order and builds
the result.
"""
import builtins
import types

import numpy
import torch

import torch_numpy_shim as shim
from torch_numpy_shim._ndarray import ndarray as ShimArray

from .errors import GraphBreak


class OutputPlan:
    def __init__(self):
        self.constants = {}
        self.conversions = []   # lines "oN = convert(out[i])"
        self.statements = []    # side effects, in program order
        self.result = "None"
        self._array_names = {}

    def const(self, value):
        name = f"k{len(self.constants)}"
        self.constants[name] = value
        return name

    def compile(self, globals_dict, closure, tensor_outputs):
        body = self.conversions + self.statements + [f"return {self.result}"]
        source = "def finish(L, out):\n" + "".join(f"    {line}\n" for line in body)
        namespace = dict(self.constants, G=globals_dict, B=builtins.__dict__, C=closure,
                         _array=_to_tensor if tensor_outputs else _to_numpy_array,
                         _scalar=_to_tensor if tensor_outputs else _to_numpy_scalar)
        exec(compile(source, "<npcompile output>", "exec"), namespace)
        finish = namespace["finish"]
        finish.source = source
        return finish


def _to_numpy_array(t):
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    if t.device.type != "cpu":
        t = t.cpu()
    return t.numpy()


def _to_numpy_scalar(t):
    return _to_numpy_array(t)[()]


def _to_tensor(t):
    return t


def plan(result, tracer):
    """Encode ``result`` and the tracer's side effects; returns (plan, output tensors)."""
    p = OutputPlan()
    tensors = []

    def encode(value):
        if isinstance(value, ShimArray):
            source = tracer.shim_inputs.get(id(value))
            if source is not None and not value._scalar:
                return source.expr
            name = p._array_names.get(id(value))
            if name is None:
                name = f"o{len(p._array_names)}"
                p._array_names[id(value)] = name
                kind = "_scalar" if value._scalar else "_array"
                p.conversions.append(f"{name} = {kind}(out[{len(tensors)}])")
                tensors.append(value._t)
            return name
        mirror = tracer.mirrors.get(id(value))
        if mirror is not None:
            return mirror.expr
        source = tracer.source_of.get(id(value))
        if source is not None:
            return source.expr
        if isinstance(value, (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))):
            return repr(value) if not isinstance(value, float) or value == value and abs(value) != float("inf") \
                else p.const(value)
        if isinstance(value, tuple):
            items = [encode(v) for v in value]
            if hasattr(value, "_fields"):
                return f"{p.const(type(value))}({', '.join(items)})"
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        if isinstance(value, list):
            return f"[{', '.join(encode(v) for v in value)}]"
        if type(value) is dict:
            return "{" + ", ".join(f"{encode(k)}: {encode(v)}" for k, v in value.items()) + "}"
        if isinstance(value, (set, frozenset)):
            return f"{type(value).__name__}([{', '.join(encode(v) for v in value)}])"
        if isinstance(value, shim.dtype):
            return p.const(value.np)
        if isinstance(value, type) and "_np_type" in getattr(value, "__dict__", {}):
            return p.const(value._np_type)
        if isinstance(value, (slice, range)):
            return p.const(value)
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)):
            return p.const(_to_numpy_object(value))
        if hasattr(value, "__dict__") and not isinstance(value, (types.GeneratorType,)):
            fields = ", ".join(f"{k!r}: {encode(v)}" for k, v in vars(value).items())
            return f"_restore({p.const(type(value))}, {{{fields}}})"
        raise GraphBreak(f"returning a {type(value).__name__} from a compiled function")

    p.result = encode(result)
    for effect in tracer.side_effects:
        kind = effect[0]
        if kind == "setattr":
            _, source, name, value = effect
            p.statements.append(f"setattr({source.expr}, {name!r}, {encode(value)})")
        elif kind == "setglobal":
            _, name, value = effect
            p.statements.append(f"G[{name!r}] = {encode(value)}")
        else:
            _, source, method, args = effect
            p.statements.append(f"{source.expr}.{method}({', '.join(encode(a) for a in args)})")
    if "_restore(" in p.result or any("_restore(" in s for s in p.statements):
        p.constants["_restore"] = _restore
    return p, tensors


def _restore(cls, fields):
    """An object of a user class built inside the function, rebuilt around its outputs."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _to_numpy_object(value):
    """Shim modules/functions that leaked into a result go back to NumPy's."""
    if value is shim:
        return numpy
    name = getattr(value, "__name__", None)
    if getattr(value, "__module__", "").startswith("torch_numpy_shim") and hasattr(numpy, name or ""):
        return getattr(numpy, name)
    return value
