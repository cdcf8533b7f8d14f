"""Hypothesis strategies for array *layouts*: the same values laid out in memory every
way NumPy allows, because a compiler that converts arrays to tensors can get the values
right for a C-contiguous array and wrong (or crash, or write into read-only memory) for
a view with negative strides, a structured field, a broadcast or an immutable buffer.

Every array is built as ``np.ndarray(shape, dtype, buffer, offset, strides)`` over a raw
buffer, so the same layout can be rebuilt over other memory: an immutable ``bytes``
object, a memory map, or (``clone_arrays``) a fresh copy that keeps overlaps between
arrays and every flag, which is what a differential test needs to run the same call twice.
"""
import copy
import mmap
import os
import tempfile

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

DEFAULT_DTYPES = tuple(np.dtype(n) for n in ("bool", "int8", "int32", "int64", "uint8", "uint16",
                                             "float32", "float64", "complex128"))
STEPS = (1, 2, 3, -1, -2, -3)
BACKINGS = ("heap", "heap", "heap", "bytes", "memmap-r", "memmap-r+", "memmap-c", "memmap-subclass")


def _small_values(dtype):
    """Small exact values: layouts are the point here, not rounding."""
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "u":
        return st.integers(0, 9)
    return st.integers(-9, 9)


class _Builder:
    """Builds a view of given values inside a raw buffer, keeping the description."""

    def __init__(self, draw, dtype):
        self.draw = draw
        self.dtype = dtype
        self.words = []

    def base(self, shape):
        """A writeable array of ``shape`` that owns no memory of its own: C or Fortran
        order, possibly a structured field, unaligned, or with padding before it."""
        kind = self.draw(st.sampled_from(("C", "F", "field", "packed-field", "unaligned", "offset", "half-offset")))
        itemsize = self.dtype.itemsize
        size = int(np.prod(shape, dtype=np.int64))
        if kind in ("field", "packed-field"):
            pad = self.dtype if kind == "field" else np.dtype("u1")
            record = np.dtype([("pad", pad), ("x", self.dtype)])
            raw = bytearray(max(1, size * record.itemsize))
            self.words.append("packed structured field" if kind == "packed-field" else "structured field")
            return np.ndarray(shape, record, buffer=raw)["x"]
        extra = {"unaligned": 1, "half-offset": itemsize // 2,   # complex128 8-byte aligned: NumPy's, not torch's
                 "offset": itemsize * self.draw(st.integers(1, 3))}.get(kind, 0)
        raw = bytearray(max(1, size * itemsize + extra))
        order = "F" if kind == "F" else "C"
        if kind != "C":
            self.words.append({"F": "Fortran order", "unaligned": "unaligned"}.get(kind, f"byte offset {extra}"))
        return np.ndarray(shape, self.dtype, buffer=raw, offset=extra, order=order)

    def view(self, values, depth):
        """An array equal to ``values``: a base, or a strided or transposed view of an
        array built the same way (views of views)."""
        kind = self.draw(st.sampled_from(("base", "strided", "transposed", "reshaped"))) if depth else "base"
        if kind == "base" or (kind == "transposed" and values.ndim < 2):
            array = self.base(values.shape)
        elif kind == "strided":
            steps = [self.draw(st.sampled_from(STEPS)) for _ in range(values.ndim)]
            starts = [self.draw(st.integers(0, 1)) for _ in range(values.ndim)]
            outer = self.view(np.zeros([n * abs(s) + b for n, s, b in zip(values.shape, steps, starts)],
                                       values.dtype), depth - 1)
            index = tuple(slice(b, b + n * s, s) if s > 0 else slice(b + n * -s - 1, b - 1 if b else None, s)
                          for n, s, b in zip(values.shape, steps, starts))
            array = outer[index + (Ellipsis,)]
            self.words.append(f"[{', '.join(f'{i.start}:{i.stop}:{i.step}' for i in index)}]")
        elif kind == "transposed":
            order = self.draw(st.permutations(range(values.ndim)))
            inverse = np.argsort(order)
            array = self.view(values.transpose(inverse), depth - 1).transpose(order)
            self.words.append(f".transpose{tuple(order)}")
        else:
            flat = self.view(values.reshape(-1), depth - 1)
            array = flat.reshape(values.shape)
            self.words.append(f".reshape{values.shape}")
        array[...] = values
        return array


def _root(array):
    """The object owning the memory behind ``array`` (an ndarray, bytes, mmap...)."""
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array


def _raw(owner):
    """The owner's memory as a flat uint8 array (no copy)."""
    if isinstance(owner, np.ndarray):   # owns its memory, so it is C- or Fortran-contiguous
        return owner.ravel(order="K").view(np.uint8) if owner.size else np.zeros(0, np.uint8)
    return np.frombuffer(owner, np.uint8)


def _rebuild(array, owner, buffer):
    """``array``'s layout (shape, dtype, strides, offset within ``owner``) over ``buffer``."""
    offset = array.__array_interface__["data"][0] - _raw(owner).__array_interface__["data"][0] if array.size else 0
    return np.ndarray(array.shape, array.dtype, buffer=buffer, offset=offset, strides=array.strides)


def memmap_of(data, mode, subclass=False):
    """``data`` (bytes) in a fresh memory-mapped file (unlinked at once: the mapping
    keeps it), as ``np.memmap`` or as the raw ``mmap`` to build plain arrays over."""
    data = bytes(data) or b"\0"
    handle, path = tempfile.mkstemp(prefix="npcompile-layout-")
    try:
        os.write(handle, data)
        if subclass:
            return np.memmap(path, dtype=np.uint8, mode=mode, shape=(len(data),))
        access = {"r": mmap.ACCESS_READ, "r+": mmap.ACCESS_WRITE, "c": mmap.ACCESS_COPY}[mode]
        return mmap.mmap(handle, len(data), access=access)
    finally:
        os.close(handle)
        os.unlink(path)


def _back(array, backing):
    """The same layout over other memory: ``bytes`` (read-only), a memory map, or the
    ``np.memmap`` subclass itself (views of a memmap are memmaps)."""
    if backing == "heap":
        return array
    owner = _root(array)
    data = _raw(owner).tobytes()
    if backing == "bytes":
        return _rebuild(array, owner, np.frombuffer(data, np.uint8))
    mode = backing.split("-")[1]
    if mode == "subclass":
        mapped = memmap_of(data, "r+", subclass=True)
        return _rebuild(array, owner, mapped).view(np.memmap)
    return _rebuild(array, owner, memmap_of(data, mode))


def _broadcast(draw, values):
    """A read-only ``broadcast_to`` view (zero strides) with ``values``' shape."""
    if values.ndim == 0:
        return np.broadcast_to(values.copy(), ()), "broadcast_to(())"
    axes = draw(st.sets(st.integers(0, values.ndim - 1), min_size=1))
    small = values[tuple(slice(0, 1) if d in axes else slice(None) for d in range(values.ndim))].copy()
    if 0 in axes and small.shape[0] == 1 and draw(st.booleans()):
        small = small[0]   # broadcast_to also prepends axes
    return np.broadcast_to(small, values.shape), f"broadcast_to({small.shape} -> {values.shape})"


@st.composite
def array_layouts(draw, dtypes=DEFAULT_DTYPES, max_dims=3, min_dims=0, max_side=4, shape=None,
                  writeable=None):
    """``(array, description)``: an array of one of ``dtypes`` laid out any way NumPy
    allows: C/Fortran order, 0-d, sizes 0 and 1, negative and odd strides, views of
    views, transposes, structured fields (aligned or not), offsets, read-only arrays,
    ``np.frombuffer`` over ``bytes``, memory maps (read-only, writeable, copy-on-write, the ``np.memmap``
    subclass), ``broadcast_to`` views and non-native byte order. ``writeable`` (True or
    False) restricts to arrays with that flag; ``shape`` fixes the shape."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=max_side))
    values = draw(hnp.arrays(dtype, shape, elements=_small_values(dtype)))
    if dtype.itemsize > 1 and draw(st.integers(0, 9)) == 0:
        dtype = dtype.newbyteorder()
        values = values.astype(dtype)
    if writeable is not True and draw(st.integers(0, 9)) == 0:
        array, description = _broadcast(draw, values)
        return array, f"{dtype.str} {description}"
    builder = _Builder(draw, dtype)
    array = builder.view(values, depth=2)
    backing = draw(st.sampled_from(BACKINGS))
    array = _back(array, backing)
    if backing != "heap":
        builder.words.append(backing)
    if draw(st.integers(0, 3)) == 0 and array.flags.writeable:
        array.flags.writeable = False
        builder.words.append("read-only")
    if writeable is not None and array.flags.writeable != writeable:
        array = array.copy() if writeable else _frozen(array)
        builder.words.append("copied" if writeable else "read-only")
    return array, f"{dtype.str} {shape} " + " ".join(builder.words or ["C order"])


def _frozen(array):
    array.flags.writeable = False
    return array


# ---- copies that keep layouts ----------------------------------------------------------
def _arrays_in(value, found, depth=0):
    if isinstance(value, np.ndarray):
        found.append(value)
    elif depth < 4 and isinstance(value, (list, tuple)):
        for item in value:
            _arrays_in(item, found, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for item in value.values():
            _arrays_in(item, found, depth + 1)
    return found


def _backing_of(array):
    """How the memory behind ``array`` is held: heap, bytes, or a memory map (mode)."""
    if type(array) is np.memmap:
        return "memmap-subclass"
    owner = _root(array)
    if isinstance(owner, bytes):
        return "bytes"
    if isinstance(owner, mmap.mmap):
        return "memmap-r" if memoryview(owner).readonly else "memmap-r+"
    return "heap"


def clone_arrays(value):
    """A deep copy of ``value`` in which every array keeps its layout: shape, strides,
    dtype, flags, the kind of memory behind it, and which arrays share memory with which
    (arrays over one buffer are rebuilt over one copy of it)."""
    arrays = _arrays_in(value, [])
    copies, owners = {}, {}
    for array in arrays:
        if id(array) in copies:
            continue
        owner = _root(array)
        if not isinstance(owner, (np.ndarray, bytes, bytearray, mmap.mmap)):
            copies[id(array)] = _plain_copy(array)
            continue
        if id(owner) not in owners:
            data = _raw(owner).tobytes()
            backing = _backing_of(array)
            if backing == "bytes":
                buffer = np.frombuffer(data, np.uint8)
            elif backing.startswith("memmap"):
                mode = backing.split("-")[1]
                buffer = memmap_of(data, "r+" if mode == "subclass" else mode, subclass=mode == "subclass")
            else:
                buffer = bytearray(data or b"\0")
            owners[id(owner)] = (owner, buffer)
        buffer = owners[id(owner)][1]
        twin = _rebuild(array, owner, buffer)
        if type(array) is np.memmap:
            twin = twin.view(np.memmap)
        if not array.flags.writeable and twin.flags.writeable:
            twin.flags.writeable = False
        copies[id(array)] = twin
    memo = {key: twin for key, twin in copies.items()}
    memo[id(memo)] = arrays   # deepcopy's keep-alive slot: the originals outlive the memo
    return copy.deepcopy(value, memo)


def _plain_copy(array):
    twin = array.copy()
    twin.flags.writeable = array.flags.writeable
    return twin


def describe_flags(array):
    return f"writeable={array.flags.writeable} aligned={array.flags.aligned} strides={array.strides}"
