"""``map()`` and ``filter()`` made while tracing, lazy as CPython's.

CPython computes one item per ``next``: the function's side effects happen then, in
order with the rest of the program, and an iterator shared with other code keeps what
was not taken. These stand-ins do the same in the trace, calling the user's function
through the tracer item by item. They are named like the builtins (``type(m).__name__``,
error messages) and answer ``isinstance(m, map)`` through ``__class__``; the tracer's
``type()`` gives the builtin. They cannot leave a trace (returned, or live at a graph
break): output planning refuses them and that call runs as written.
"""
from ..errors import GraphBreak


class _Lazy:
    __slots__ = ("_tracer", "_fn", "_iterators")

    def __init__(self, tracer, fn, iterables):
        self._tracer, self._fn = tracer, fn
        self._iterators = tuple(_iterator(tracer, it, type(self).__name__) for it in iterables)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self._advance()
        except GraphBreak as brk:
            # raised here, between the function's calls, not by one of its instructions:
            # the break cannot be taken mid-item (the trace stops as a whole)
            if brk.step is None:
                self._tracer.note_break(brk)
                brk.resumable = False
            raise

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


def _iterator(tracer, iterable, kind):
    """``iter(iterable)`` as the builtin takes it at construction (a TypeError for what
    is not iterable); one passed in from outside is advanced by the runtime, not here."""
    iterator = iter(tracer.iterate(iterable))
    if id(iterator) in tracer.source_of:
        raise GraphBreak(f"{kind}() over an iterator passed into the function",
                         "advancing it is a side effect on the caller's object")
    return iterator


class TracedMap(_Lazy):
    __slots__ = ()

    @property
    def __class__(self):
        return map

    def _advance(self):
        items = [next(it) for it in self._iterators]   # the first exhausted one ends it, as in CPython
        return self._tracer.call_now(self._fn, items, {})


class TracedFilter(_Lazy):
    __slots__ = ()

    @property
    def __class__(self):
        return filter

    def _advance(self):
        iterator, tracer = self._iterators[0], self._tracer
        while True:
            item = next(iterator)
            keep = item if self._fn is None or self._fn is bool else tracer.call_now(self._fn, [item], {})
            if tracer.truth(keep):
                return item


TracedMap.__name__ = TracedMap.__qualname__ = "map"
TracedFilter.__name__ = TracedFilter.__qualname__ = "filter"
BUILTIN_OF = {TracedMap: map, TracedFilter: filter}


def make_map(tracer, args, kwargs):
    if kwargs or len(args) < 2:
        return map(*args, **kwargs)   # the builtin's own TypeError
    return TracedMap(tracer, args[0], args[1:])


def make_filter(tracer, args, kwargs):
    if kwargs or len(args) != 2:
        return filter(*args, **kwargs)
    return TracedFilter(tracer, args[0], args[1:])
