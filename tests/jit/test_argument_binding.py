"""A jitted function binds its arguments as Python does: the same values for every
parameter kind (defaults as they are at call time), and Python's own TypeError, word for
word, for a call that does not fit."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import npcompile

KINDS = ("positional_only", "plain", "keyword_only")


@st.composite
def signatures_and_calls(draw):
    """(source of a function returning its parameters, positional args, keyword args)."""
    count = draw(st.integers(0, 4))
    kinds = sorted(draw(st.lists(st.sampled_from(KINDS), min_size=count, max_size=count)), key=KINDS.index)
    names = [f"p{i}" for i in range(count)]
    params, seen_default = [], False
    for name, kind in zip(names, kinds):
        has_default = draw(st.booleans()) or (seen_default and kind != "keyword_only")
        seen_default |= has_default and kind != "keyword_only"
        params.append((name, kind, has_default))
    star_args, star_kwargs = draw(st.booleans()), draw(st.booleans())
    parts = []
    for i, (name, kind, has_default) in enumerate(params):
        if kind == "keyword_only" and (i == 0 or params[i - 1][1] != "keyword_only"):
            parts.append("*args" if star_args else "*")
        parts.append(name + (f"={i * 10}" if has_default else ""))
        if kind == "positional_only" and (i + 1 == len(params) or params[i + 1][1] != "positional_only"):
            parts.append("/")
    if star_args and "*args" not in parts:
        parts.append("*args")
    if star_kwargs:
        parts.append("**kwargs")
    returned = names + (["args"] if star_args else []) + (["kwargs"] if star_kwargs else [])
    source = f"def f({', '.join(parts)}):\n    return ({', '.join(returned)}{',' if len(returned) == 1 else ''})\n"
    positional = draw(st.integers(0, count + 2))
    keywords = draw(st.lists(st.sampled_from(names + ["extra", "args"]), unique=True, max_size=3))
    return source, tuple(range(100, 100 + positional)), {k: -1 for k in keywords}


def outcome(fn, args, kwargs):
    try:
        return "result", fn(*args, **kwargs)
    except TypeError as exc:
        return "TypeError", str(exc)


@given(signatures_and_calls())
def test_binding_matches_python(case):
    source, args, kwargs = case
    namespace = {}
    exec(source, namespace)
    fn = namespace["f"]
    assert outcome(npcompile.jit(fn, backend="eager"), args, kwargs) == outcome(fn, args, kwargs), source


def test_messages_name_the_function():
    def f2(a, b):
        return a + b

    jitted = npcompile.jit(f2, backend="eager")
    for call in (lambda g: g(np.ones(2), c=1), lambda g: g(), lambda g: g(1, 2, 3)):
        messages = []
        for g in (f2, jitted):
            try:
                call(g)
            except TypeError as exc:
                messages.append(str(exc))
        assert len(messages) == 2 and messages[0] == messages[1] and ".f2() " in messages[0]
