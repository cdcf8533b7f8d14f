"""``mark_dynamic`` / ``mark_static``: per-array requests for how its dims are traced.

NumPy arrays take no attributes, so marks live in a table keyed by ``id`` and dropped
when the array dies (arrays and tensors support weak references)."""
import weakref


class _Marks:
    __slots__ = ("dynamic", "static")

    def __init__(self):
        self.dynamic = set()
        self.static = set()


_NONE = _Marks()


class _MarkTable:
    def __init__(self):
        self._table = {}

    def get(self, array):
        entry = self._table.get(id(array))
        return entry[1] if entry is not None and entry[0]() is array else _NONE

    def for_update(self, array):
        entry = self._table.get(id(array))
        if entry is None or entry[0]() is not array:
            key = id(array)
            entry = (weakref.ref(array, lambda _: self._table.pop(key, None)), _Marks())
            self._table[key] = entry
        return entry[1]


dynamic_marks = _MarkTable()


def _dims(array, dim):
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    return {d % array.ndim for d in dims}


def mark_dynamic(array, dim):
    """Trace ``dim`` (an int or several) of ``array`` as dynamic from the first compile."""
    marks = dynamic_marks.for_update(array)
    marks.dynamic |= _dims(array, dim)
    marks.static -= marks.dynamic


def mark_static(array, dim):
    """Keep ``dim`` of ``array`` static even if its size changes between calls."""
    marks = dynamic_marks.for_update(array)
    marks.static |= _dims(array, dim)
    marks.dynamic -= marks.static
