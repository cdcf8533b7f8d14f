"""Instructions new in CPython 3.13: pairs of local loads and stores fused into one
instruction, the explicit conversion to bool before a branch, keyword calls, function
attributes set one by one, and f-strings' conversions and formats split apart. The
order of a callable and its NULL changed too (see ``versions``)."""
from .core import call, load_local, make_function, store_local
from .registry import handles


@handles("LOAD_FAST_LOAD_FAST")
def _load_fast_load_fast(tracer, frame, inst):
    first, second = inst.argval
    frame.push(load_local(frame, first))
    frame.push(load_local(frame, second))


@handles("STORE_FAST_LOAD_FAST")
def _store_fast_load_fast(tracer, frame, inst):
    stored, loaded = inst.argval
    store_local(frame, stored, frame.pop())
    frame.push(load_local(frame, loaded))


@handles("STORE_FAST_STORE_FAST")
def _store_fast_store_fast(tracer, frame, inst):
    first, second = inst.argval
    store_local(frame, first, frame.pop())
    store_local(frame, second, frame.pop())


@handles("TO_BOOL")
def _to_bool(tracer, frame, inst):
    frame.push(tracer.truth(frame.pop()))


@handles("CALL_KW")
def _call_kw(tracer, frame, inst):
    """CALL with the keyword names on top of the stack (3.12 set them with KW_NAMES)."""
    frame.kw_names = frame.pop()
    call(tracer, frame, inst)


@handles("SET_FUNCTION_ATTRIBUTE")
def _set_function_attribute(tracer, frame, inst):
    """Stack: the value, the function just made -> the function. The closure (set first)
    can only be given when a function is made: the function is made again with it."""
    fn = frame.pop()
    value = frame.pop()
    attribute = inst.argrepr
    if attribute == "closure":
        fn = make_function(tracer, fn.__code__, fn.__globals__, closure=value, annotations=fn.__annotations__,
                           kwdefaults=fn.__kwdefaults__, defaults=fn.__defaults__, qualname=fn.__qualname__)
    elif attribute == "annotations":
        fn.__annotations__ = dict(zip(value[::2], value[1::2])) if isinstance(value, tuple) else value
    else:
        setattr(fn, f"__{attribute}__", value)
    frame.push(fn)


_CONVERSIONS = {"str": str, "repr": repr, "ascii": ascii}


@handles("CONVERT_VALUE")
def _convert_value(tracer, frame, inst):
    frame.push(tracer.format(frame.pop(), _CONVERSIONS[inst.argrepr], ""))


@handles("FORMAT_SIMPLE")
def _format_simple(tracer, frame, inst):
    frame.push(tracer.format(frame.pop(), None, ""))


@handles("FORMAT_WITH_SPEC")
def _format_with_spec(tracer, frame, inst):
    spec = frame.pop()
    frame.push(tracer.format(frame.pop(), None, spec))
