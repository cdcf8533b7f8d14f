"""``match`` statements: CPython 3.11's MATCH_* instructions, with its checks and
messages (``__match_args__``, positional sub-patterns, duplicate keys)."""
import sys

from .registry import handles

# CPython's type flags that the MATCH_* instructions read (Py_TPFLAGS_SEQUENCE, _MAPPING,
# _Py_TPFLAGS_MATCH_SELF; the same in 3.10-3.13), seen from Python as ``type.__flags__``
_TPFLAGS_SEQUENCE, _TPFLAGS_MAPPING, _TPFLAGS_MATCH_SELF = 1 << 5, 1 << 6, 1 << 22
_MISSING = object()
#: CPython's error for a class pattern whose callee is not a class (3.12 reworded it)
_NOT_A_CLASS = "called match pattern must be a " + ("type" if sys.version_info < (3, 12) else "class")


@handles("MATCH_MAPPING")
def _match_mapping(tracer, frame, inst):
    frame.push(bool(type(frame.top).__flags__ & _TPFLAGS_MAPPING))


@handles("MATCH_SEQUENCE")
def _match_sequence(tracer, frame, inst):
    frame.push(bool(type(frame.top).__flags__ & _TPFLAGS_SEQUENCE))


@handles("GET_LEN")
def _get_len(tracer, frame, inst):
    frame.push(tracer.call_now(len, [frame.top], {}))


@handles("MATCH_KEYS")
def _match_keys(tracer, frame, inst):
    """Stack: subject, keys -> subject, keys, the values (a tuple) or None."""
    keys, subject = frame.stack[-1], frame.stack[-2]
    get = tracer.load_attr(subject, "get") if keys else None
    values, seen = [], []
    for key in keys:
        if key in seen:
            raise ValueError(f"mapping pattern checks duplicate key ({key!r})")
        seen.append(key)
        value = tracer.call_now(get, [key, _MISSING], {})
        if value is _MISSING:
            frame.push(None)
            return
        values.append(value)
    frame.push(tuple(values))


@handles("COPY_DICT_WITHOUT_KEYS")
def _copy_dict_without_keys(tracer, frame, inst):
    keys = frame.pop()
    rest = dict(frame.top)
    for key in keys:
        del rest[key]
    frame.push(rest)


@handles("MATCH_CLASS")
def _match_class(tracer, frame, inst):
    """Stack: subject, class, keyword names -> the attributes (a tuple) or None, with
    CPython's checks of ``__match_args__``."""
    names = frame.pop()
    cls = frame.pop()
    subject = frame.pop()
    if not isinstance(cls, type):
        raise TypeError(_NOT_A_CLASS)
    if not tracer.truth(tracer.call_now(isinstance, [subject, cls], {})):   # a symbol's as its number's
        frame.push(None)
        return
    wanted = list(_positional_names(cls, inst.arg)) + list(names)
    attributes = []
    for k, name in enumerate(wanted):
        if name is None:            # a class that matches itself (int(x), str(s), ...)
            attributes.append(subject)
            continue
        if name in wanted[:k]:
            raise TypeError(f"{cls.__name__}() got multiple sub-patterns for attribute {name!r}")
        try:
            attributes.append(tracer.load_attr(subject, name))
        except AttributeError:
            frame.push(None)
            return
    frame.push(tuple(attributes))


def _positional_names(cls, count):
    if not count:
        return ()
    match_args = getattr(cls, "__match_args__", _MISSING)
    match_self = match_args is _MISSING and bool(cls.__flags__ & _TPFLAGS_MATCH_SELF)
    if match_args is _MISSING:
        match_args = ()
    elif type(match_args) is not tuple:
        raise TypeError(f"{cls.__name__}.__match_args__ must be a tuple (got {type(match_args).__name__})")
    allowed = 1 if match_self else len(match_args)
    if allowed < count:
        raise TypeError(f"{cls.__name__}() accepts {allowed} positional sub-pattern{'' if allowed == 1 else 's'} "
                        f"({count} given)")
    if match_self:
        return (None,)
    for name in match_args[:count]:
        if type(name) is not str:
            raise TypeError(f"__match_args__ elements must be strings (got {type(name).__name__})")
    return match_args[:count]
