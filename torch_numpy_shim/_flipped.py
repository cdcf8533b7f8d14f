"""Reversed views held as copies: torch has no negative strides, so ``a[::-1]``,
``np.flip(a)`` and ``np.rot90(a)`` are flipped copies in the shim where NumPy gives views.
A copy and its source agree until one of them is written, after which NumPy's view sees
the write and a copy would not. So each such copy is registered with the memory it
reverses, and every write the shim makes into an array is followed by ``written``: a write
into a registered copy (or a view of it) is written back into its source, and a write into
a source refreshes its live copies, as if they were views."""
import functools
import weakref

from ._detours import movable, restored
from ._ndarray import ndarray

__all__ = ["register", "written", "writes", "reversal_of", "numpy_strides", "contiguous"]

_LIVE = {}   # id(copy) -> _Link


class _Link:
    """``copy`` holds ``flip(view, dims).permute(perm)``; ``source`` is the root of ``view``."""

    __slots__ = ("ref", "source", "view", "dims", "perm")

    def __init__(self, ref, source, view, dims, perm):
        self.ref, self.source, self.view, self.dims, self.perm = ref, source, view, dims, perm

    def pull(self, copy):
        value = movable(self.view).flip(self.dims)
        copy._t.copy_(restored(value if self.perm is None else value.permute(self.perm), copy._t.dtype))

    def push(self, copy):
        value = movable(copy._t)
        if self.perm is not None:
            value = value.permute(tuple(sorted(range(len(self.perm)), key=self.perm.__getitem__)))
        self.view.copy_(restored(value.flip(self.dims), self.view.dtype))


def _root(arr):
    return arr._base if arr._base is not None else arr


def register(copy, source, view, dims, perm=None):
    """``copy`` (a fresh ndarray) stands for the view ``flip(view, dims).permute(perm)``
    of ``source``'s memory (``view`` a tensor view of ``source``); returns ``copy``, read-only
    (and warning on a write) as ``source`` is, as NumPy's view of it would be."""
    copy._readonly = copy._readonly or source._readonly
    copy._warn_on_write = copy._warn_on_write or source._warn_on_write
    key = id(copy)
    ref = weakref.ref(copy, lambda _ref, key=key: _LIVE.pop(key, None))
    _LIVE[key] = _Link(ref, _root(source), view, tuple(dims), None if perm is None else tuple(perm))
    return copy


def reversal_of(copy):
    """(source root, view tensor, dims, perm) when ``copy`` is a registered reversed copy
    (it holds ``flip(view, dims).permute(perm)``), else None."""
    link = _LIVE.get(id(copy))
    if link is None or link.ref() is not copy:
        return None
    return link.source, link.view, link.dims, link.perm


def numpy_strides(copy):
    """The strides NumPy's reversed view has where the shim holds ``copy`` (the view's,
    negated on the reversed axes, in the copy's axis order), or None if ``copy`` is not a
    registered reversed copy. Torch has no negative strides; the copy's own are C order."""
    link = reversal_of(copy)
    if link is None:
        return None
    _, view, dims, perm = link
    size = view.element_size()
    flips = {d % view.ndim for d in dims}
    strides = [-s * size if d in flips else s * size for d, s in enumerate(view.stride())]
    return tuple(strides) if perm is None else tuple(strides[d] for d in perm)


def contiguous(shape, strides, itemsize, order="C"):
    """NumPy's C (or F) contiguity of a layout: axes of length 1 do not count, an empty
    array is contiguous, a negative stride on a longer axis is not."""
    if any(n == 0 for n in shape):
        return True
    expected = itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for d in axes:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def written(arr):
    """The shim has just written into ``arr``: bring reversed copies and sources in line."""
    if _LIVE and isinstance(arr, ndarray):
        links = [(link, link.ref()) for link in list(_LIVE.values())]
        _propagate(_root(arr), [(link, copy) for link, copy in links if copy is not None], None)


def _propagate(root, links, came_from):
    """``root`` was written: push it into its source if it is a copy, pull its copies
    from it; ``came_from`` is the link the write arrived through (not sent back)."""
    for link, copy in links:
        if link is not came_from and copy is root:
            link.push(copy)
            _propagate(link.source, links, link)
    for link, copy in links:
        if link is not came_from and link.source is root:
            link.pull(copy)
            _propagate(copy, links, link)


#: NumPy's message for a write into a read-only array, by writer (default: setitem's)
_READ_ONLY = {"put": "put: output array is read-only", "putmask": "putmask: output array is read-only",
              "_sort": "sort array is read-only", "_partition": "partition array is read-only",
              "shuffle": "array is read-only", "_fill_diagonal": "underlying array is read-only",
              "place": "WRITEBACKIFCOPY base is read-only"}
_WRITES_READ_ONLY = {"at"}   # NumPy 2.4's ufunc.at writes into read-only arrays


def writes(position):
    """Decorate a shim function that writes into its argument at ``position``: a
    read-only array there raises NumPy's ValueError before anything is written."""
    def decorate(fn):
        message = _READ_ONLY.get(fn.__name__, "assignment destination is read-only")
        check = fn.__name__ not in _WRITES_READ_ONLY

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if check and len(args) > position and isinstance(args[position], ndarray):
                args[position]._check_writeable(message)
            result = fn(*args, **kwargs)
            if _LIVE:
                written(args[position])
            return result
        return wrapper
    return decorate
