"""A call's arguments bound to a kernel's parameters as Python binds them, with the
function's defaults as they are at the call.

A native kernel takes every parameter as an argument, defaults included, so a kernel
compiled while ``scale(a, k=2.0)`` had that default serves ``f.__defaults__ = (5.0,)``
too, if it binds with the live defaults: the guard then sees 5.0, a float like 2.0.
Binding with the signature read at compile time kept using 2.0.
"""
import inspect


def make_binder(fn):
    """A function with ``fn``'s parameters (plain ones: kernels take no others) and an
    empty body that returns their values in order: calling it binds exactly as CPython
    binds ``fn``, its TypeErrors included, once ``bind`` has given it the defaults
    ``fn`` has now."""
    params = inspect.signature(fn, follow_wrapped=False).parameters.values()
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        raise ValueError(f"{fn.__qualname__}: a kernel's parameters are positional-or-keyword")
    names = [p.name for p in params]
    text = ", ".join(p.name + ("=None" if p.default is not p.empty else "") for p in params)
    namespace = {}
    exec(f"def binder({text}):\n    return ({''.join(n + ', ' for n in names)})\n", namespace)
    binder = namespace["binder"]
    binder.__name__, binder.__qualname__ = fn.__name__, fn.__qualname__
    return binder


def bind(binder, fn, args, kwargs):
    """The values of ``fn``'s parameters for this call, in order (TypeError where
    Python would raise it), with ``fn``'s defaults as they are now."""
    binder.__defaults__, binder.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    return binder(*args, **kwargs)
