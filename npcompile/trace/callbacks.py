"""User functions handed to native code while tracing.

A native function that calls a user function back at once (``functools.reduce``,
``max(key=...)``, the shim's ``fromfunction``) gets a stand-in that traces each call
(``Tracer.call_now``). A stand-in belongs to the trace that made it: kept by what the
native call returns (a ``cmp_to_key`` key, a ``vectorize`` object, an iterator) it would
outlive that trace, and called after a break or after the jitted call returned it would
run a finished tracer. So a native call that keeps a stand-in is a graph break: real
Python runs it with the user's own functions, as CPython does.

A few natives only store the functions they are given and never call them
(``functools.partial``, ``wraps``, ``update_wrapper``): they get the user's own functions,
and the trace calls those itself (a partial is unwrapped by ``Tracer.call``), so that
``partial(f).func is f`` holds in and after the call.
"""
import functools
import weakref

from ..errors import GraphBreak

#: natives that keep the functions they are given without calling them
_STORE_ONLY = (functools.partial, functools.wraps, functools.update_wrapper)


def stores_only(fn):
    return any(fn is native for native in _STORE_ONLY)


def call_native(tracer, fn, args, kwargs, is_user_function, made_outside):
    """``fn(*args, **kwargs)`` where some arguments are user functions (see module doc).
    ``made_outside(obj)``: whether ``obj`` comes from outside the call (``update_wrapper``
    writing to it would change the caller's object at trace time only)."""
    if stores_only(fn):
        if fn is functools.update_wrapper and args and made_outside(args[0]):
            raise GraphBreak("functools.update_wrapper of a function from outside the function",
                             "it changes the caller's function: it runs as written")
        return fn(*args, **kwargs)
    stand_ins = {}

    def stand_in(value):
        if not is_user_function(value):
            return value
        if id(value) not in stand_ins:
            stand_ins[id(value)] = _stand_in(tracer, value)
        return stand_ins[id(value)]

    args = [stand_in(a) for a in args]
    kwargs = {k: stand_in(v) for k, v in kwargs.items()}
    alive = [weakref.ref(s) for s in stand_ins.values()]
    result = fn(*args, **kwargs)
    stand_ins.clear()   # with args and kwargs, the only references but for what fn kept
    del args, kwargs
    if any(ref() is not None for ref in alive):
        raise GraphBreak(f"{getattr(fn, '__qualname__', fn)!s} keeps a function of the user's to call later",
                         "calling it later cannot be traced from here: it runs as written")
    return result


def _stand_in(tracer, value):
    """A function that traces a call of ``value`` in ``tracer`` (``Tracer.call_now``)."""
    return lambda *args, **kwargs: tracer.call_now(value, list(args), kwargs)
