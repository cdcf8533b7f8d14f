"""Where user code meets the shim: results handed out as NumPy hands them out.

Inside, the shim models a NumPy scalar as a 0-D array flagged ``_scalar``: one code path
for arrays and scalars, and the only form npcompile's tracer can use, since while it
traces, values are fake tensors with no number to convert. Called from user code (debug
mode, ``import torch_numpy_shim as np``), a public function, ufunc, array method, flat
iterator or scalar type instead returns what NumPy returns:

* a NumPy scalar where NumPy gives one (``np.sum(a)`` is a ``numpy.float64``, so
  ``isinstance(r, float)`` holds; its ``dtype``, ``isinstance(r, np.floating)`` and
  ``type(r) == np.float64`` answer as NumPy's);
* for ``out=`` given a NumPy array, that very array (``r is out``), not the shim array
  that wrote into its memory;
* NumPy's scalar types where the shim's classes come out (``np.common_type(a)``).

The switch is made here, once, and only at the outermost call: a thread-local depth
count lets the shim call its own public functions, operators and methods and keep its
0-D arrays, and nothing is converted while a torch dispatch mode is active (npcompile
traces the shim under make_fx and a FakeTensorMode) or for a tensor that is not a plain
``torch.Tensor``. So tracing sees exactly the shim it saw before, and pays one check.
"""
import contextlib
import functools
import inspect
import threading

import numpy
import torch

from . import _aligned, _coerce, _dtypes, _flatiter, _ufuncs, fft, linalg, random
from ._fp_errors import tracing
from ._index_tricks import AxisConcatenator
from ._ndarray import ndarray


class _Depth(threading.local):
    inside = False


_depth = _Depth()


@contextlib.contextmanager
def as_inside():
    """Within: public calls return what they return inside the shim (0-D arrays for
    scalars, the shim array written for a NumPy ``out=``), as under a trace; for code
    that compares an eager run with a traced one."""
    outer, _depth.inside = _depth.inside, True
    try:
        yield
    finally:
        _depth.inside = outer


_tracing = tracing   # one test for "torch is tracing", shared with the error reports


def _outward(value, targets):
    """``value`` as NumPy returns it: shim scalars to NumPy scalars, a shim array over a
    NumPy ``out=`` array's memory to that array; tuples (named too) and lists mapped."""
    if isinstance(value, ndarray):
        if value._scalar and type(value._t) is torch.Tensor:
            return _coerce.to_numpy(value)
        for target in targets:
            if _is_view_of_all(value, target):
                return target
        return value
    if isinstance(value, _dtypes._ScalarMeta):
        return _dtypes.numpy_type(value)   # np.common_type(a) is numpy.float64, as in NumPy
    if isinstance(value, (tuple, list)):
        items = [_outward(v, targets) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value   # nothing to convert: the same object (np.diff(x, n=0) is x)
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value


def _is_view_of_all(array, target):
    t = array._t
    return type(t) is torch.Tensor and t.device.type == "cpu" and tuple(t.shape) == target.shape and \
        array.strides == target.strides and t.data_ptr() == target.__array_interface__["data"][0]


def _numpy_outs(out):
    outs = out if isinstance(out, tuple) else (out,)
    return tuple(o for o in outs if type(o) is numpy.ndarray)


def public(fn, out_position=None):
    """``fn`` as user code calls it (see the module docstring). ``out_position``: where
    ``out`` sits among the positional arguments, if it can be given there."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _depth.inside or _tracing():
            return fn(*args, **kwargs)
        if _aligned.needs_copies(args, kwargs):
            return _aligned.through_copies(call, args, kwargs)
        _depth.inside = True
        try:
            result = fn(*args, **kwargs)
        finally:
            _depth.inside = False
        out = kwargs.get("out")
        if out is None and out_position is not None and len(args) > out_position:
            out = args[out_position]
        return _outward(result, _numpy_outs(out) if out is not None else ())
    call.__wrapped_by_boundary__ = True
    return call


def _out_position(fn):
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(parameters):
        if p.name == "out" and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            return i
    return None


def _ufunc_call(fn):
    """``ufunc.__call__``: outputs may also follow the inputs positionally."""
    @functools.wraps(fn)
    def call(self, *args, **kwargs):
        if _depth.inside or _tracing():
            return fn(self, *args, **kwargs)
        if _aligned.needs_copies(args, kwargs):
            return _aligned.through_copies(functools.partial(call, self), args, kwargs)
        _depth.inside = True
        try:
            result = fn(self, *args, **kwargs)
        finally:
            _depth.inside = False
        targets = _numpy_outs(kwargs["out"]) if kwargs.get("out") is not None else ()
        targets += _numpy_outs(tuple(args[self.nin:]))
        return _outward(result, targets)
    return call


# functions that call user code back: (argument position, keyword) of the callable(s)
_CALLBACKS = {"apply_along_axis": (0, "func1d"), "apply_over_axes": (0, "func"), "fromfunction": (0, "function"),
              "piecewise": (2, "funclist")}


def _outside(callback):
    """``callback``, user code the shim calls, run as user code: what it calls in the
    shim hands it NumPy scalars, as NumPy's apply_along_axis gives its function."""
    if not callable(callback):
        return callback

    @functools.wraps(callback)
    def run(*args, **kwargs):
        outer, _depth.inside = _depth.inside, False
        try:
            return callback(*args, **kwargs)
        finally:
            _depth.inside = outer
    return run


def _calling_back(fn, position, keyword):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _tracing():
            return fn(*args, **kwargs)
        if keyword in kwargs:
            kwargs[keyword] = _outside_all(kwargs[keyword])
        elif len(args) > position:
            args = (*args[:position], _outside_all(args[position]), *args[position + 1:])
        return fn(*args, **kwargs)
    return call


def _outside_all(value):
    return [_outside(v) for v in value] if isinstance(value, (list, tuple)) else _outside(value)


def _wrap_module(module, names):
    for name in names:
        value = module.__dict__.get(name) if isinstance(module, type(functools)) else module.get(name)
        if inspect.isfunction(value) and not getattr(value, "__wrapped_by_boundary__", False) \
                and value.__module__.startswith("torch_numpy_shim") and name != "to_numpy":
            inner = _calling_back(value, *_CALLBACKS[name]) if name in _CALLBACKS else value
            wrapped = public(inner, _out_position(value))
            if isinstance(module, dict):
                module[name] = wrapped
            else:
                setattr(module, name, wrapped)


# not wrapped: Python values already (item, tolist, __float__...), NumPy's own protocol
# (__array__), text (__repr__...), writes that return nothing, iterators (their items
# come through __getitem__)
_PLAIN_METHODS = frozenset({
    "__init__", "_wrap", "_view", "_only_element", "__float__", "__int__", "__complex__", "__index__",
    "__bool__", "__len__", "__iter__", "__hash__", "__copy__", "__deepcopy__", "item", "tolist",
    "__array__", "__repr__", "__str__", "__format__", "__reduce__", "__setitem__", "fill", "sort",
    "partition", "__init_subclass__", "__round__", "tobytes"})


def _wrap_class(cls, names=None):
    for name, value in list(vars(cls).items()):
        if (names is None and name in _PLAIN_METHODS) or (names is not None and name not in names):
            continue
        if inspect.isfunction(value) and not getattr(value, "__wrapped_by_boundary__", False):
            setattr(cls, name, public(value, _out_position(value)))


def _scalar_type_call(call):
    """``np.float64(2)`` is NumPy's float64 scalar from user code, a shim scalar inside."""
    return public(call)


def install(namespace):
    """Wrap the package namespace ``namespace`` (its ``globals()``) and the objects
    reached through it; called once, at the end of the package's import."""
    _wrap_module(namespace, [n for n in list(namespace) if not n.startswith("_")])
    for module in (linalg, fft, random):
        _wrap_module(module, getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]))
    _wrap_class(ndarray)
    _wrap_class(_flatiter.flatiter, {"__getitem__", "__next__"})
    _wrap_class(_ufuncs.ufunc, {"reduce", "accumulate", "reduceat", "outer", "at"})
    _ufuncs.ufunc.__call__ = _ufunc_call(_ufuncs.ufunc.__call__)
    _wrap_class(AxisConcatenator, {"__getitem__"})
    for cls in (c for c in vars(random).values() if isinstance(c, type) and c.__module__ == random.__name__):
        _wrap_class(cls, {n for n in vars(cls) if not n.startswith("_")})
    _dtypes._ScalarMeta.__call__ = _scalar_type_call(_dtypes._ScalarMeta.__call__)
