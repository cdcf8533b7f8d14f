"""Which real NumPy objects stand for which shim objects while tracing.

The user's code refers to ``numpy`` (under any alias), to names imported from it, to
ufuncs, dtypes and scalar types. The tracer swaps each for the shim object of the same
name as it enters the trace (a scalar type: the shim's class of that name, whatever the
package's public name holds). ``numpy.random`` is deliberately *not* mapped: its streams
must match NumPy's bit for bit, so random calls run in real NumPy.
"""
import math
import types

import numpy

import torch_numpy_shim as shim
from torch_numpy_shim import _dtypes as shim_dtypes

_MAPPED_MODULES = {"numpy": shim, "numpy.linalg": shim.linalg, "numpy.fft": shim.fft}
_SKIP_TYPES = (bool, int, float, complex, str, bytes, type(None))


def _is_numpys(obj):
    """Whether ``obj`` is defined by NumPy (not a user's object put in NumPy's namespace)."""
    module = getattr(obj, "__module__", None) if isinstance(obj, type) or callable(obj) else None
    if not isinstance(module, str):
        module = getattr(type(obj), "__module__", None) or ""
    return module == "numpy" or module.startswith("numpy.")


def _build_object_table():
    """id(numpy object) -> (numpy object, shim object) for every shared public name.

    Built once, when this module is imported (with npcompile), from NumPy's attributes as
    they are then, never from what they hold at a later trace: a name monkeypatched to a
    user's function at that moment would make the user's function the shim's forever.
    Objects NumPy does not define (patched in before npcompile was imported) are left
    out, so they are traced as what they are."""
    table = {}
    for np_name, shim_module in _MAPPED_MODULES.items():
        np_module = numpy if np_name == "numpy" else getattr(numpy, np_name.split(".")[1])
        for name in dir(np_module):
            if name.startswith("_") or not hasattr(shim_module, name):
                continue
            np_obj = getattr(np_module, name)
            if isinstance(np_obj, _SKIP_TYPES) or isinstance(np_obj, types.ModuleType) or not _is_numpys(np_obj):
                continue
            table.setdefault(id(np_obj), (np_obj, getattr(shim_module, name)))
    # scalar types: the shim's classes, whose instances are its scalars (0-D arrays), so
    # np.float64(x) inside a trace is one; numpy.longlong is int64 there, as its dtype
    table.update({id(np_type): (np_type, shim_type) for np_type, shim_type in shim_dtypes.SHIM_OF.items()})
    return table


def _build_reverse_table():
    """id(shim object) -> NumPy object, for shim objects that reach real Python."""
    table = {id(shim_obj): np_obj for np_obj, shim_obj in _OBJECT_TABLE.values()}
    table.update({id(shim_module): __import__(name, fromlist=["_"])
                  for name, shim_module in _MAPPED_MODULES.items()})
    # ndarray methods loaded in a trace (``a.astype`` leaves the plain function on the
    # stack) run as NumPy's at a break, on the NumPy array the break hands over
    for name, method in vars(shim.ndarray).items():
        if callable(method) and not name.startswith("__") and hasattr(numpy.ndarray, name):
            table.setdefault(id(method), getattr(numpy.ndarray, name))
    return table


def _own(module):
    """``module``'s attributes that its own package defines, as they are now."""
    if module is math:
        return {name: value for name, value in vars(math).items() if getattr(value, "__module__", None) == "math"}
    return {name: value for name, value in vars(module).items()
            if _is_numpys(value) or isinstance(value, types.ModuleType) and value.__name__.startswith("numpy.")}


_OBJECT_TABLE = _build_object_table()
_REVERSE_TABLE = _build_reverse_table()
# numpy's, numpy.linalg's and math's functions and types when npcompile was imported:
# what code that calls ``np.<name>`` by name (the native kernels) may take it to be
_ORIGINALS = {id(module): _own(module) for module in (numpy, numpy.linalg, math)}
_MISSING = object()


def is_original(module, name, value):
    """Whether ``value`` is ``module.<name>`` as NumPy (numpy, numpy.linalg) or math
    defines it, not an object put there (monkeypatched) since npcompile was imported."""
    return _ORIGINALS.get(id(module), {}).get(name, _MISSING) is value


def to_numpy(value):
    """The NumPy counterpart of a shim object (inverse of ``to_shim``), else ``value``."""
    if isinstance(value, shim.dtype):
        return value.np
    if isinstance(value, type) and "_np_type" in value.__dict__:
        return value._np_type   # a shim scalar class: NumPy's own (np.int64, not its alias np.longlong)
    return _REVERSE_TABLE.get(id(value), value)


def to_shim(value):
    """The shim counterpart of a NumPy object, or ``value`` itself if it has none."""
    if isinstance(value, types.ModuleType):
        return _MAPPED_MODULES.get(value.__name__, value)
    if isinstance(value, numpy.dtype):
        return shim.dtype(value)
    entry = _OBJECT_TABLE.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    return value


def numpy_name(value):
    """'numpy.foo' if ``value`` is a NumPy callable the shim does not provide, else None."""
    module = getattr(value, "__module__", None) or ""
    if isinstance(value, numpy.ufunc):
        return f"numpy.{value.__name__}"
    if (module == "numpy" or module.startswith("numpy.")) and callable(value):
        return f"{module}.{getattr(value, '__qualname__', getattr(value, '__name__', '?'))}"
    return None


_DATETIME_NAMES = {"datetime64", "timedelta64", "busday_count", "busday_offset", "is_busday", "busdaycalendar",
                   "datetime_as_string", "datetime_data"}


def runs_in_numpy(name, value=None):
    """(reason, hint) for a break at NumPy code that runs for real: ``name`` is the
    dotted name of a NumPy function (or None), ``value`` the NumPy object read. The hint
    says what keeps one graph for that kind of code."""
    module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "") or ""
    if (name or "").startswith("numpy.random.") or module.startswith("numpy.random"):
        what = name or (f"numpy.random.{value.__name__}" if callable(value) and hasattr(value, "__name__")
                        else f"a numpy.random.{type(value).__name__}")
        return (f"{what}: NumPy's random streams run in real NumPy (to match NumPy's numbers bit for bit)",
                "draw the random numbers before calling the jitted function and pass them in to keep one graph")
    if name is not None and name.rsplit(".", 1)[-1] in _DATETIME_NAMES:
        return (f"{name}: dates and times (datetime64, timedelta64, business days) have no torch dtype",
                "it runs in real NumPy; pass dates in as int64 counts (e.g. days since an epoch) to keep "
                "one graph")
    if name is not None:
        return (f"{name} is not supported by torch_numpy_shim",
                "it runs in real NumPy; wrap it with npcompile.numpy_op to keep one graph")
    return None
