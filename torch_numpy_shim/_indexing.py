"""Indexing: ``a[key]``, ``a[key] = value`` and the index-based functions (take, put,
where, nonzero, choose, ...), with NumPy's rules rather than torch's.

Where the two disagree: torch has no negative strides (a negative-step slice reads as a
flipped copy and writes through a positive-step view with the value flipped), torch
applies Python ints before tensor indices while NumPy lets them take part in advanced
indexing, torch's scatter leaves repeated indices undefined while NumPy's last write
wins, and NumPy's casting of assigned values has its own quirks, reproduced by letting
NumPy itself convert host values (Python scalars, lists, NumPy objects).
"""
import builtins
import math
import operator
import warnings

import numpy
import torch
from torch.multiprocessing.reductions import StorageWeakRef

from . import _coerce, _dtypes, _flipped, _layout, _promotion, _self_overlap
from ._detours import movable
from ._errors import ComplexWarning, raise_if
from ._fp_errors import tracing
from ._graph_warnings import warn_complex_to_real
from ._may_overlap import may_overlap
from ._ndarray import ndarray
from ._normalize import NO_VALUE, ArrayLike, OutArray, normalize_axis, normalizer, write_out
from ._numpy_version import NUMPY_2_5

__all__ = [
    "take", "put", "nonzero", "where", "argwhere", "flatnonzero", "extract", "place",
    "putmask", "compress", "choose", "select", "take_along_axis", "put_along_axis", "ix_",
    "ravel_multi_index", "unravel_index", "tril_indices", "triu_indices",
    "tril_indices_from", "triu_indices_from", "diag_indices", "diag_indices_from",
    "fill_diagonal", "mask_indices",
]

_INVALID_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                  "integer or boolean arrays are valid indices")
_INT64 = torch.int64
def _truth(t):
    return t if t.dtype == torch.bool else t != 0


# ---- parsing a key ----------------------------------------------------------------------
def _slice_bound(x):
    if x is None or isinstance(x, torch.SymInt):
        return x
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _index_array(item):
    """An array-like inside a key -> ("array", int64 tensor) or ("mask", bool tensor)."""
    if isinstance(item, (list, tuple)) and not _coerce._contains_traced(item):
        converted = numpy.asarray(item)
        if converted.size == 0 and converted.dtype.kind == "f":
            converted = converted.astype(numpy.intp)  # an empty sequence selects nothing
        if converted.dtype.kind not in "biufc":
            raise IndexError(_INVALID_INDEX)
        item = converted
    arr = _coerce.asarray(item)
    kind = arr.dtype.kind
    if kind == "b":
        return "mask", arr._t
    if kind in "iu":
        return "array", arr._t.to(_INT64)
    raise IndexError("arrays used as indices must be of integer (or boolean) type")


def _classify(item):
    if item is None:
        return "newaxis", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, slice):
        step = _slice_bound(item.step)
        if step == 0:
            raise ValueError("slice step cannot be zero")
        return "slice", slice(_slice_bound(item.start), _slice_bound(item.stop), step)
    if isinstance(item, (builtins.bool, numpy.bool_)):
        return "mask", builtins.bool(item)
    if isinstance(item, torch.SymInt):
        return "int", item
    if isinstance(item, (int, numpy.integer)):
        return "int", operator.index(item)
    if isinstance(item, ndarray) and item._scalar and item.dtype.kind in "iu":
        return "int", item  # a NumPy integer scalar, whose value is read only if a view needs it
    if isinstance(item, (ndarray, numpy.ndarray, torch.Tensor, list, tuple)):
        return _index_array(item)
    if isinstance(item, (float, complex, str, bytes, numpy.generic)):
        raise IndexError(_INVALID_INDEX)
    if hasattr(type(item), "__array__"):   # an array-like object indexes as its array
        return _index_array(numpy.asarray(item))
    try:
        return "int", operator.index(item)
    except TypeError:
        raise IndexError(_INVALID_INDEX) from None


#: Steps beyond this are cut to the axis' length (same elements): their stride could
#: overflow torch's int64. Below it a slice keeps its step, so the view's stride is
#: NumPy's ``step * stride`` even where it selects one element (``a[::-2]`` of length 1).
_LONGEST_STEP = 2 ** 31


def _step(step, size):
    return step if step <= _LONGEST_STEP else builtins.min(step, builtins.max(size, 1))


def _forward_slice(s, size):
    """A slice as (positive-step slice, reversed?): torch cannot step backwards."""
    if s.step is None or isinstance(s.step, torch.SymInt) or s.step > 0:
        if isinstance(size, int) and not any(isinstance(b, torch.SymInt) for b in (s.start, s.stop, s.step)):
            start, stop, step = s.indices(size)  # clamps huge bounds torch would overflow on
            return slice(start, stop, _step(step, size)), False
        return s, False
    if s.start is None and s.stop is None:  # a[::-k] without guarding on the size
        k = -s.step if not isinstance(size, int) else _step(-s.step, size)
        return slice((size - 1) % k, None, k), True
    if s.step == -1 and any(isinstance(b, torch.SymInt) for b in (s.start, s.stop, size)):
        return _backward_symbolic(s, size)
    start, stop, step = s.indices(size)
    count = len(range(start, stop, step))
    if count == 0:
        return slice(0, 0, 1), False
    lowest = start + (count - 1) * step
    return slice(lowest, start + 1, _step(-step, size)), True


def _backward_symbolic(s, size):
    """``slice.indices`` for step -1 with symbolic bounds (``r[k - 1::-1]`` in a loop body
    traced with ``k`` symbolic): comparisons guard ranges instead of specializing ``k``."""
    def clamp(bound):
        if bound < 0:
            bound = bound + size
        if bound < 0:
            return -1
        return size - 1 if bound >= size else bound

    start = size - 1 if s.start is None else clamp(s.start)
    stop = -1 if s.stop is None else clamp(s.stop)
    if start <= stop:
        return slice(0, 0, 1), False
    return slice(stop + 1, start + 1, 1), True


class _Key:
    """A key resolved against an array: a basic (view) part and the advanced indices.

    ``view_key`` (ints, positive slices, None) gives a torch view of the array;
    ``flips`` are dims of that view to reverse; ``advanced`` maps view dims to int64
    index tensors, or a multi-dim boolean mask to ("mask", tensor) on its first dim;
    ``gap`` is the view dim before which an Ellipsis spanning no dims stood.
    """

    __slots__ = ("view_key", "flips", "advanced", "scalar", "zero_dim_fancy", "whole_mask", "gap")

    def __init__(self, arr, key):
        items = key if isinstance(key, tuple) else (key,)
        # NumPy rejects a float anywhere in the key before it reads slice bounds
        # (a[0.0:, 0.0] is an IndexError, a[0.0:] a TypeError)
        found = {i: _classify(item) for i, item in enumerate(items) if not isinstance(item, slice)}
        parts = [found[i] if i in found else _classify(item) for i, item in enumerate(items)]
        kinds = [kind for kind, _ in parts]
        if kinds.count("ellipsis") > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        consumed = builtins.sum(_dims_consumed(kind, p) for kind, p in parts)
        ndim = arr._t.ndim
        if consumed > ndim:
            raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                             f"but {consumed} were indexed")
        _check_index_limits(parts, tuple(arr._t.shape), consumed)
        zero_dim_arrays = [kind == "array" and p.ndim == 0 for kind, p in parts]
        self.scalar = ("ellipsis" not in kinds and consumed == ndim
                       and builtins.all(kind == "int" or z for kind, z in zip(kinds, zero_dim_arrays)))
        fancy = "mask" in kinds or "array" in kinds
        self.zero_dim_fancy = fancy and "mask" not in kinds and builtins.all(
            z for kind, z in zip(kinds, zero_dim_arrays) if kind == "array")
        self.whole_mask = len(parts) == 1 and kinds[0] == "mask" and _dims_consumed(*parts[0]) == ndim > 0
        fill = [("slice", slice(None))] * (ndim - consumed)
        if "ellipsis" in kinds and not fill:
            fill = [("gap", None)]  # an empty Ellipsis still separates advanced indices
        at = kinds.index("ellipsis") if "ellipsis" in kinds else len(parts)
        parts = parts[:at] + fill + parts[at + 1:]
        self._resolve(parts, tuple(arr._t.shape), fancy)

    def _resolve(self, parts, shape, fancy):
        if not (fancy or self.scalar):  # the result is a view: NumPy scalars need their value
            parts = [(k, operator.index(p)) if k == "int" and isinstance(p, ndarray) else (k, p)
                     for k, p in parts]
        view_key, flips, advanced = [], [], {}
        self.gap = None
        d = 0  # dim of the array
        for kind, p in parts:
            v = builtins.sum(1 for x in view_key if not isinstance(x, (int, torch.SymInt)))
            if kind == "gap":
                self.gap = v
            elif kind == "newaxis":
                view_key.append(None)
            elif kind == "slice":
                s, flipped = _forward_slice(p, shape[d])
                view_key.append(s)
                if flipped:
                    flips.append(v)
                d += 1
            elif kind == "int" and isinstance(p, ndarray):  # the result is a copy anyway
                view_key.append(slice(None))
                advanced[v] = p._t.to(_INT64)
                d += 1
            elif kind == "int":
                size = shape[d]
                if not -size <= p < size:
                    raise IndexError(f"index {p} is out of bounds for axis {d} with size {size}")
                if fancy:  # NumPy broadcasts ints with the index arrays
                    view_key.append(slice(None))
                    advanced[v] = torch.full((), p, dtype=_INT64)
                else:
                    view_key.append(p)
                d += 1
            elif kind == "array":
                view_key.append(slice(None))
                advanced[v] = p
                d += 1
            elif isinstance(p, builtins.bool):  # True/False: a new axis, kept or emptied
                view_key.append(None)
                advanced[v] = torch.zeros(int(p), dtype=_INT64)
            elif p.ndim == 0:
                view_key.append(None)
                advanced[v] = torch.nonzero(p.reshape(1))[:, 0]
            else:
                _check_mask_shape(p, shape, d)
                view_key.extend([slice(None)] * p.ndim)
                advanced[v] = ("mask", p)
                d += p.ndim
        self.view_key, self.flips, self.advanced = tuple(view_key), flips, advanced

    @property
    def single_mask(self):
        """The only advanced index is one boolean array (so no position repeats)."""
        return len(self.advanced) == 1 and isinstance(next(iter(self.advanced.values())), tuple)

    def index_tensors(self):
        """{view dim: int64 index tensor}, masks expanded into one tensor per dim."""
        out = {}
        for dim, index in self.advanced.items():
            if isinstance(index, tuple):
                for j, column in enumerate(torch.nonzero(index[1], as_tuple=True)):
                    out[dim + j] = column
            else:
                out[dim] = index
        return out


#: NumPy's NPY_MAXDIMS, which also bounds the index arrays its iterator takes
_MAXDIMS = 64


def _check_index_limits(parts, shape, consumed):
    """NumPy's limits on a key (prepare_index, mapiter): the result has at most 64 dims;
    at most 64 index arrays (a scalar bool is one, a k-dim mask k); and 64 only where the
    dims the index arrays leave (its subspace) hold more than one element."""
    arrays = builtins.sum(1 if kind == "array" or isinstance(p, builtins.bool) else p.ndim
                          for kind, p in parts if kind in ("array", "mask"))
    if arrays == 0 and len(parts) <= _MAXDIMS - len(shape):
        return
    fancy_ndim = builtins.max([p.ndim for kind, p in parts if kind == "array"]
                              + [1 for kind, _ in parts if kind == "mask"], default=0)
    newaxes = builtins.sum(1 for kind, _ in parts if kind == "newaxis")
    removed = builtins.sum(_dims_consumed(kind, p) for kind, p in parts if kind != "slice")
    result_ndim = len(shape) - removed + newaxes + fancy_ndim
    if result_ndim > _MAXDIMS:
        raise IndexError(f"number of dimensions must be within [0, {_MAXDIMS}], indexing result would have "
                         f"{result_ndim}")
    if arrays > _MAXDIMS:
        raise IndexError("too many advanced (array) indices. This probably means you are indexing with too "
                         f"many booleans. (more than {_MAXDIMS} found)")
    if arrays == _MAXDIMS and _subspace_size(parts, shape, consumed) <= 1:
        raise IndexError(f"when no subspace is given, the number of index arrays cannot be above "
                         f"{_MAXDIMS - 1}, but {arrays} index arrays found")


def _subspace_size(parts, shape, consumed):
    """The element count of the dims no index array takes: sliced or left whole."""
    size, d = 1, 0
    for kind, p in parts:
        if kind == "ellipsis":
            for n in shape[d:d + len(shape) - consumed]:
                size *= n
            d += len(shape) - consumed
        elif kind == "slice":
            size *= len(range(*p.indices(shape[d])))
            d += 1
        else:
            d += _dims_consumed(kind, p)
    for n in shape[d:]:
        size *= n
    return size


def _dims_consumed(kind, p):
    if kind in ("int", "slice", "array"):
        return 1
    if kind == "mask" and not isinstance(p, builtins.bool):
        return p.ndim
    return 0


def _check_mask_shape(mask, shape, start):
    for j, (m, s) in enumerate(zip(mask.shape, shape[start:])):
        if m != s and m != 0:  # NumPy does not check mask dims of length 0
            raise IndexError(f"boolean index did not match indexed array along axis {start + j}; "
                             f"size of axis is {s} but size of corresponding boolean axis is {m}")


class _Fancy:
    """Advanced indexing laid out NumPy's way: the view permuted so the indexed dims
    come first, broadcast index tensors, and where the broadcast dims land in the
    result (at the first indexed dim when the indexed dims are adjacent, else first)."""

    def __init__(self, view, indices, gap=None):
        dims = sorted(indices)
        self.rest = [d for d in range(view.ndim) if d not in indices]
        shapes = [tuple(indices[d].shape) for d in dims]
        try:
            self.index = torch.broadcast_tensors(*(indices[d] for d in dims))
        except RuntimeError:
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                             "with shapes " + " ".join(str(s) for s in shapes)) from None
        self.sizes = [view.shape[d] for d in dims]
        self.moved = view.permute(dims + self.rest)
        self.nb = self.index[0].ndim
        adjacent = dims[-1] - dims[0] + 1 == len(dims) and not (gap is not None and dims[0] < gap <= dims[-1])
        self.insert_at = dims[0] if adjacent else 0
        broadcast = tuple(self.index[0].shape)
        rest_shape = tuple(view.shape[d] for d in self.rest)
        self.shape = rest_shape[:self.insert_at] + broadcast + rest_shape[self.insert_at:]
        from torch.fx.experimental.symbolic_shapes import guard_or_false  # sympy: not at import

        if guard_or_false(math.prod(self.shape) == 0):  # sizes known only from data: no check
            self._check_bounds_of_empty_result([indices[d] for d in dims], math.prod(broadcast))
        # torch reads 0-d index tensors as Python ints (.item()): index with shape (1,)
        self.zero_d = self.nb == 0
        if self.zero_d:
            self.index = tuple(i.reshape(1) for i in self.index)

    def _check_bounds_of_empty_result(self, indices, count):
        """torch checks bounds only while filling the result; NumPy checks the index
        arrays (0-d ones always, as they are integers) even when the result is empty."""
        for idx, size in zip(indices, self.sizes):
            if idx.ndim == 0 or count:
                raise_if((idx < -size) | (idx >= size),
                              IndexError(f"index out of bounds for axis with size {size}"))

    def to_front(self, t):
        """A tensor in result layout -> broadcast dims first (the layout torch indexes)."""
        nb, at = self.nb, self.insert_at
        return t.movedim(tuple(range(at, at + nb)), tuple(range(nb))) if at and nb else t

    def scatter(self, values):
        """Write ``values`` (broadcast dims first) into the indexed positions. An index
        read from the array written (``a[2:][a[:-2]] = 3``) is copied first, as NumPy
        copies it (torch refuses the overlap)."""
        target = StorageWeakRef(self.moved.untyped_storage())
        index = tuple(i.clone() if StorageWeakRef(i.untyped_storage()) == target else i for i in self.index)
        values = values.unsqueeze(0) if self.zero_d else values
        if not _self_overlap.overlaps(self.moved):
            self.moved[index] = values
            return
        # items sharing memory (a broadcast_arrays result): written in the index's order
        written = self.moved.clone()
        written[index] = values
        positions = torch.arange(written.numel()).reshape(written.shape)[index]
        _self_overlap.store_items(self.moved, positions, written.reshape(-1)[positions.reshape(-1)])

    def gather(self):
        out = self.moved[self.index]
        if self.zero_d:
            out = out.squeeze(0)
        nb, at = self.nb, self.insert_at
        return out.movedim(tuple(range(nb)), tuple(range(at, at + nb))) if at and nb else out


def _view(t, view_key):
    """``t[view_key]``, except that a symbolic int index (a loop variable traced as a
    symbol) goes through ``select``: torch's own indexing would specialize it."""
    if not any(isinstance(k, torch.SymInt) for k in view_key):
        return t[view_key]
    out = t[tuple(slice(None) if isinstance(k, torch.SymInt) else k for k in view_key)]
    dim, chosen = 0, []
    for k in view_key:
        if isinstance(k, torch.SymInt):
            chosen.append((dim, k))
        if not isinstance(k, int):
            dim += 1
    for dim, k in reversed(chosen):
        out = out.select(dim, k)
    return out


def getitem(arr, key):
    key = _Key(arr, key)
    view = _view(arr._t, key.view_key)
    if key.advanced:
        moved = movable(view)
        if key.flips:
            moved = torch.flip(moved, key.flips)
        out = _Fancy(moved, key.index_tensors(), key.gap).gather()
        return ndarray._wrap(out.view(view.dtype), key.scalar)
    if key.flips:
        return _flipped.register(ndarray._wrap(torch.flip(movable(view), key.flips).view(view.dtype)),
                                 arr, view, key.flips)
    if key.scalar:
        return ndarray._wrap(view.clone(), scalar=True)
    return arr._view(_numpy_new_axes(view, key.view_key))


def _numpy_new_axes(view, view_key):
    """``view`` with NumPy's zero strides on the axes ``None`` inserted (in eager shim code;
    inside a graph the axes stay torch's ``unsqueeze``, which the runtime replays on the
    NumPy side for a returned view, ``npcompile.runtime.view_replay``)."""
    if None not in view_key or tracing() or torch.compiler.is_compiling():
        return view
    kept = [k for k in view_key if not isinstance(k, (int, torch.SymInt))]
    return _layout.zero_new_axes(view, [d for d, k in enumerate(kept) if k is None])


# ---- assignment ---------------------------------------------------------------------
def _is_host_value(value):
    """Python/NumPy data whose conversion NumPy itself can do (no traced tensors inside)."""
    if isinstance(value, (ndarray, torch.Tensor, torch.SymInt, torch.SymFloat, torch.SymBool)):
        return False
    return not (isinstance(value, (list, tuple)) and _coerce._contains_traced(value))


def _cast_values(value, dt):
    """A shim array (or traced data) cast the unsafe way, warning like NumPy when a
    complex value loses its imaginary part (not into bool: that is a test for nonzero).
    Python ints in it (a dynamic int, a list holding one) must fit ``dt``, as NumPy's store
    requires (a guard on a dynamic int's range)."""
    _coerce.check_python_ints_fit(value, dt)
    arr = _coerce.asarray(value)
    if arr._t.is_complex() and dt.kind not in "cb":
        warnings.warn("Casting complex values to real discards the imaginary part", ComplexWarning,
                      stacklevel=4)
    return _coerce.cast_tensor(arr._t, dt)


def _value_tensor(value, dt, path, ndim):
    """``value`` as a tensor of dtype ``dt``, converted as NumPy's setitem does on
    ``path``: "element" (one element), "basic" (a view of ``ndim`` dims) or "fancy"."""
    if _is_host_value(value):
        with _coerce.quiet_while_tracing():
            return _host_value_tensor(value, dt, path, ndim)
    if _converts_by_int(value, dt, path) and not tracing():
        return _value_tensor(_coerce.to_numpy(value), dt, path, ndim)   # NumPy's int() and checks
    t = _cast_values(value, dt)
    if path == "element" and t.ndim:
        raise ValueError("setting an array element with a sequence.")
    return t


def _host_value_tensor(value, dt, path, ndim):
    """Python or NumPy data converted by NumPy itself, with its errors and warnings."""
    if path == "element" or (path == "basic" and isinstance(value, numpy.generic)):
        scratch = numpy.empty(1, dt.np)  # NumPy's own single-item conversion and errors
        scratch[0] = value
        return _coerce.asarray(scratch.reshape(()))._t
    if path == "basic" and isinstance(value, (list, tuple)) and numpy.array(value, dtype=object).ndim > ndim:
        raise ValueError("setting an array element with a sequence. The requested array would "
                         f"exceed the maximum number of dimension of {ndim}.")
    return _coerce.asarray(numpy.array(value, dtype=dt.np))._t


def _converts_by_int(value, dt, path):
    """A NumPy scalar stored as one item into a signed integer array: NumPy converts
    it with Python's ``int()`` and range-checks the int, where an array is cast."""
    return path != "fancy" and dt.kind == "i" and isinstance(value, ndarray) and value._scalar


def _store_check(value, dt, path):
    """The checks NumPy makes on a traced scalar it stores into an integer array: a
    dynamic int's range (a guard), else a bool tensor for the compiled call to check
    (``raise_if``: when it holds, the call runs as written and NumPy raises), or None."""
    if isinstance(value, torch.SymInt):
        _coerce.check_python_int_fits(value, dt)
        return None
    if isinstance(value, torch.SymFloat) and dt.kind in "iu":
        fails = _int_conversion_fails(torch.scalar_tensor(value, dtype=torch.float64), dt)
    elif _converts_by_int(value, dt, path) and tracing():
        fails = _int_conversion_fails(value._t, dt)
    else:
        return None
    if fails is not None:
        raise_if(fails, OverflowError(f"value out of bounds for {dt.name}"))
    return fails


def _int_conversion_fails(t, dt):
    """Where NumPy's store of one scalar into an integer array fails: it converts the
    value with Python's ``int()`` (ValueError for NaN, OverflowError for infinities) and
    refuses an int outside ``dt`` (OverflowError). A bool tensor, or None when no value
    of ``t``'s dtype can fail. The compiled call checks it (``raise_if``) and leaves the
    call to NumPy when it holds, so NumPy raises its own error."""
    if t.is_complex():
        t = torch.real(t)
    info = numpy.iinfo(dt.np)
    if t.is_floating_point():
        t = t.to(torch.float64)
        whole = torch.trunc(t)   # the bounds are powers of two, exact in float64
        return ~torch.isfinite(t) | (whole < float(info.min)) | (whole >= float(info.max) + 1)
    if t.dtype == torch.bool:
        return None
    source = numpy.iinfo(_dtypes.from_torch(t.dtype).np)
    if info.min <= source.min and source.max <= info.max:
        return None
    if t.dtype == torch.uint64:   # above int64's range as the bits' sign
        bits = t.view(torch.int64)
        return (bits < 0) | (bits > info.max)
    wide = t.to(torch.int64)
    return (wide < info.min) | (wide > info.max)


def _shape_text(shape):
    """A shape as NumPy's messages print it: no spaces, ``(3,)`` for one dim."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _broadcast_value(v, shape, fancy=False):
    """Broadcast ``v`` to ``shape`` one way (NumPy also drops extra leading 1-dims);
    the error is NumPy's message for a basic or an advanced (``fancy``) index."""
    vshape = tuple(v.shape)
    while len(vshape) > len(shape) and vshape[0] == 1:
        vshape = vshape[1:]
    fits = len(vshape) <= len(shape) and builtins.all(
        a == 1 or a == b for a, b in zip(reversed(vshape), reversed(shape)))
    if not fits and fancy:
        raise ValueError(f"shape mismatch: value array of shape {_shape_text(v.shape)} could not be broadcast "
                         f"to indexing result of shape {_shape_text(shape)}")
    if not fits:
        raise ValueError(f"could not broadcast input array from shape {_shape_text(v.shape)} into shape "
                         f"{_shape_text(shape)}")
    return v.reshape(vshape).expand(shape)


def _root(arr):
    return arr._base if arr._base is not None else arr


def _detach_from(t, target_arr, value):
    """torch refuses copies between overlapping memory: copy a value that may alias."""
    if isinstance(value, ndarray) and _root(value) is _root(target_arr):
        return t.clone()
    return t.clone() if may_overlap(t, target_arr._t) else t


@_flipped.writes(0)
def setitem(arr, key, value):
    if arr._scalar:
        raise TypeError(f"'numpy.{arr.dtype.name}' object does not support item assignment")
    key = _Key(arr, key)
    dt = arr.dtype
    view = movable(_view(arr._t, key.view_key))
    if key.scalar:
        path = "element"
    elif not key.advanced or key.zero_dim_fancy:
        path = "basic"
    else:
        path = "fancy"
    fails = _store_check(value, dt, path)
    if not key.advanced:
        v = _value_tensor(value, dt, path, view.ndim)
        v = _detach_from(movable(_broadcast_value(v, view.shape)), arr, value)
        v = torch.flip(v, key.flips) if key.flips else v
        if fails is not None:   # checked after the graph ran: a failing store leaves the target as it was
            v = torch.where(fails, view, v)
        _self_overlap.store(view, v)
        return
    v = None
    if key.single_mask:
        v = movable(_value_tensor(value, dt, path, 0))
        if key.whole_mask and v.ndim > 1:
            raise TypeError("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                            f"input, input has {v.ndim} dimensions")
        if _masked_fill(view, key, v, arr, value):
            return
    fancy = _Fancy(view, key.index_tensors(), key.gap)
    if v is None:
        v = movable(_value_tensor(value, dt, path, len(fancy.shape)))
    if key.single_mask:
        v = _broadcast_mask_value(v, fancy.shape, fancy.insert_at, key.whole_mask)
    else:
        v = _broadcast_value(v, fancy.shape, fancy=True)
    v = fancy.to_front(v)
    if key.flips:
        v = torch.flip(v, [fancy.nb + fancy.rest.index(f) for f in key.flips])
    if not key.single_mask:
        v = _last_write_wins(v, fancy.index, fancy.sizes)
    fancy.scatter(_detach_from(v, arr, value))


def _broadcast_mask_value(v, shape, at, whole_mask):
    """NumPy's own loop for a mask over every dim counts values; a mask over some dims
    takes the general advanced-index path and its message."""
    if not whole_mask:
        return _broadcast_value(v, shape, fancy=True)
    try:
        return _broadcast_value(v, shape)
    except ValueError:
        raise ValueError(f"NumPy boolean array indexing assignment cannot assign {v.numel()} input "
                         f"values to the {shape[at]} output values where the mask is true") from None


def _masked_fill(view, key, v, arr, value):
    """``a[mask] = v`` when ``v`` does not vary along the selected elements: a
    ``where`` over the whole array, with no data-dependent shape. False if not."""
    (dim, (_, mask)), = key.advanced.items()
    if tuple(mask.shape) != tuple(view.shape[dim:dim + mask.ndim]):
        return False  # an empty mask of another shape: NumPy lets it through
    after = view.ndim - dim - mask.ndim
    # the selection's shape with a 1 for the count of selected elements
    target = tuple(view.shape[:dim]) + (1,) + tuple(view.shape[dim + mask.ndim:])
    vshape = tuple(v.shape)
    while len(vshape) > len(target) and vshape[0] == 1:
        vshape = vshape[1:]
    if len(vshape) > len(target) or builtins.any(
            not (a == 1 or a == b) for a, b in zip(reversed(vshape), reversed(target))):
        return False
    v = v.reshape(vshape).expand(target)
    v = v.reshape(tuple(view.shape[:dim]) + (1,) * mask.ndim + tuple(view.shape[dim + mask.ndim:]))
    if key.flips:
        v = torch.flip(v, key.flips)
    full_mask = mask.reshape((1,) * dim + tuple(mask.shape) + (1,) * after)
    _self_overlap.store(view, _detach_from(v, arr, value), full_mask)
    return True


def _last_write_wins(values, index, sizes):
    """Make every write to the same position carry the value of the last one, so the
    scatter's order stops mattering (torch leaves repeated indices undefined).

    ``values`` has the broadcast index dims first; ``index`` are the index tensors."""
    if index[0].numel() <= 1 or builtins.any(size == 0 for size in sizes):
        return values  # nothing can repeat, or every index is out of bounds anyway
    position = torch.zeros(index[0].shape, dtype=_INT64)
    for idx, size in zip(index, sizes):
        position = position * size + torch.remainder(idx, size)
    position = position.reshape(-1)
    m = position.shape[0]
    sorted_position, order = torch.sort(position, stable=True)
    ends_group = torch.cat([sorted_position[1:] != sorted_position[:-1],
                            torch.ones(1, dtype=torch.bool)])
    slots = torch.arange(m, dtype=_INT64)
    group_end = torch.where(ends_group, slots, m).flip(0).cummin(0).values.flip(0)
    winner_of_sorted = order[group_end]
    winner = torch.empty_like(order).scatter_(0, order, winner_of_sorted)
    flat = values.reshape((m,) + tuple(values.shape[index[0].ndim:]))
    return flat.index_select(0, winner).reshape(values.shape)


# ---- index-based functions ------------------------------------------------------------
def _clip_mode(mode):
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return mode


def _as_intp(obj, casting):
    """An index operand as an int64 shim array: Python data converts straight to intp
    (``[1.5]`` is allowed), arrays only under ``casting``."""
    if _is_host_value(obj) and not isinstance(obj, (numpy.ndarray, numpy.generic)):
        return _coerce.asarray(numpy.array(obj, dtype=numpy.intp))
    arr = _coerce.asarray(obj)
    if not _promotion.can_cast(arr.dtype, _dtypes.int64, casting):
        raise TypeError(f"Cannot cast array data from {arr.dtype!r} to dtype('int64') according "
                        f"to the rule '{casting}'")
    return ndarray._wrap(arr._t.to(_INT64))


def _apply_mode(idx, n, mode):
    """Indices into a length-``n`` axis: wrapped, clipped, or (raise) negatives counted
    from the end with the invalid ones pushed out of bounds, so torch's own bounds
    check raises IndexError."""
    if mode == "wrap":
        return torch.remainder(idx, n)
    if mode == "clip":
        return idx.clamp(0, n - 1)
    idx = torch.where(idx < 0, idx + n, idx)
    return torch.where(idx < 0, n, idx)


def _checked_mode(idx, n, mode, error):
    """Indices into a length-``n`` axis as choose and ravel_multi_index take them:
    wrapped or clipped as ``_apply_mode``, or (raise) ``error`` for any index outside
    [0, n), negatives included."""
    if mode == "raise":
        raise_if((idx < 0) | (idx >= n), error)
        return idx
    return _apply_mode(idx, n, mode)


def _converted_values(values, dt):
    """Values to store into an array of dtype ``dt``, converted as NumPy's put does."""
    if _is_host_value(values):
        with _coerce.quiet_while_tracing():
            return _coerce.asarray(numpy.array(values, dtype=dt.np))._t
    return _cast_values(values, dt)


def _require_ndarray(a, name):
    """The in-place functions need an array to write into (not a list, not a scalar)."""
    if not isinstance(a, ndarray) or a._scalar:
        raise TypeError(f"{name} must be numpy.ndarray, not {type(a).__name__}")


def _cycled(values, count):
    """``values`` flattened and repeated cyclically to ``count`` items."""
    flat = movable(values.reshape(-1))
    return flat.index_select(0, torch.remainder(torch.arange(count, dtype=_INT64), flat.shape[0]))


def _store_flat(arr, positions, values, through_copy=False):
    """``arr.flat[positions] = values`` (1-D tensors; the last repeated position wins).
    Where items of ``arr`` share memory, NumPy writes them in ``positions``' order, or
    (``through_copy``: put, place) into a C-contiguous copy that is then written back
    whole, the unwritten items too."""
    n = arr._t.numel()
    values = _last_write_wins(values, (positions,), [n])
    target = movable(arr._t)
    if _self_overlap.overlaps(target):
        written = target.clone(memory_format=torch.contiguous_format)
        written.view(-1)[positions] = values
        if through_copy:
            _self_overlap.store(target, written)
        else:
            _self_overlap.store_items(target, positions, written.view(-1)[positions])
    elif target.is_contiguous():
        target.view(-1)[positions] = values
    else:
        target[torch.unravel_index(positions, tuple(target.shape))] = values


def _along_axis(t, idx, axis, mode="raise"):
    """``t`` indexed along ``axis`` by the int64 tensor ``idx``, as NumPy's take: an
    empty result checks the indices only if there are outer rows to take them from."""
    outer, n = tuple(t.shape[:axis]), t.shape[axis]
    shape = outer + tuple(idx.shape) + tuple(t.shape[axis + 1:])
    if math.prod(shape) == 0:
        if mode == "raise" and math.prod(outer) and idx.numel():
            raise_if((idx < -n) | (idx >= n),
                          IndexError(f"index out of bounds for axis {axis} with size {n}"))
        return t.new_empty(shape)
    if n == 0:
        raise IndexError("cannot do a non-empty take from an empty axes." if mode != "raise" else
                         f"index is out of bounds for axis {axis} with size 0")
    if mode != "raise":
        idx = _apply_mode(idx, n, mode)
    src = movable(t)
    return src[(slice(None),) * axis + (idx.reshape(-1),)].reshape(shape).view(t.dtype)


def _take_out(result, out, a):
    """``out=`` of take/compress: exact shape; NumPy 2.4 asks that ``out`` cast safely to
    ``a``, 2.5 casts ``a`` into ``out`` and warns where the kind changes."""
    if out.shape != tuple(result.shape):
        raise ValueError("output array does not match result of ndarray.take")
    if NUMPY_2_5:
        if not _promotion.can_cast(a.dtype, out.dtype, "same_kind"):
            warnings.warn("Implicit casting of output to a different kind is deprecated. In a future version, "
                          "this will result in an error. (Deprecated NumPy 2.5)", DeprecationWarning, stacklevel=3)
    elif not _promotion.can_cast(out.dtype, a.dtype, "safe"):
        raise TypeError(f"Cannot cast array data from {out.dtype!r} to {a.dtype!r} according to "
                        f"the rule 'safe'")
    warn_complex_to_real(result.dtype, out.dtype.torch)
    _self_overlap.store(out._t, _coerce.cast_tensor(result, out.dtype))
    return out


@normalizer
def take(a: ArrayLike, indices, axis=None, out: OutArray = None, mode="raise"):
    mode = _clip_mode(mode)
    idx = _as_intp(indices, "same_kind")._t
    src = a._t.reshape(-1) if axis is None or a.ndim == 0 else a._t
    axis = 0 if axis is None else normalize_axis(axis, src.ndim)
    result = _along_axis(src, idx, axis, mode)
    if out is not None:
        return _take_out(result, out, a)
    return ndarray._wrap(result, scalar=result.ndim == 0)


@_flipped.writes(0)
@_coerce.writes_numpy(0)
def put(a, ind, v, mode="raise"):
    if isinstance(a, numpy.generic):
        a = _coerce.make_scalar(a, _dtypes._from_numpy_dtype(a.dtype))   # a NumPy scalar, as the shim's
    if not isinstance(a, ndarray):
        raise TypeError(f"argument 1 must be numpy.ndarray, not {type(a).__name__}")
    mode = _clip_mode(mode)
    if a._scalar:
        return None  # NumPy puts into a temporary copy of an (immutable) scalar
    idx = _as_intp(ind, "safe")._t.reshape(-1)
    values = _converted_values(v, a.dtype)
    n = a._t.numel()
    if n == 0 and idx.numel():
        raise IndexError("cannot replace elements of an empty array")
    if values.numel() == 0 or idx.numel() == 0:
        return None
    _store_flat(a, _apply_mode(idx, n, mode), _cycled(values, idx.shape[0]), through_copy=True)
    return None


@normalizer
def nonzero(a: ArrayLike):
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar)"
                         ".nonzero() instead.")
    return tuple(ndarray._wrap(c) for c in torch.nonzero(_truth(a._t), as_tuple=True))


def where(condition, x=NO_VALUE, y=NO_VALUE, /):
    if x is NO_VALUE and y is NO_VALUE:
        return nonzero(condition)
    if x is NO_VALUE or y is NO_VALUE:
        raise ValueError("either both or neither of x and y should be given")
    dt = _promotion.result_type(x, y)
    if NUMPY_2_5:   # NumPy 2.4 wrapped an out-of-range Python int into dt
        for value in (x, y):
            _coerce.check_python_int_fits(value, dt)
    cond, xa, ya = (_coerce.asarray(o) for o in (condition, x, y))
    try:
        torch.broadcast_shapes(cond._t.shape, xa._t.shape, ya._t.shape)
    except RuntimeError:
        raise ValueError(f"operands could not be broadcast together with shapes {cond.shape} "
                         f"{xa.shape} {ya.shape} ") from None
    out = torch.where(_truth(cond._t), movable(_coerce.cast_tensor(xa._t, dt)),
                      movable(_coerce.cast_tensor(ya._t, dt)))
    return ndarray._wrap(out.view(dt.torch))


@normalizer
def argwhere(a: ArrayLike):
    if a.ndim == 0:
        return ndarray._wrap(torch.nonzero(_truth(a._t.reshape(1)))[:, :0])
    return ndarray._wrap(torch.nonzero(_truth(a._t)))


@normalizer
def flatnonzero(a: ArrayLike):
    return ndarray._wrap(torch.nonzero(_truth(a._t.reshape(-1)))[:, 0])


@normalizer
def extract(condition: ArrayLike, arr: ArrayLike):
    positions = torch.nonzero(_truth(condition._t.reshape(-1)))[:, 0]
    return ndarray._wrap(_along_axis(arr._t.reshape(-1), positions, 0))


@_flipped.writes(0)
@_coerce.writes_numpy(0)
def place(arr, mask, vals):
    _require_ndarray(arr, "argument 1")
    flat_mask = _truth(_coerce.asarray(mask)._t).reshape(-1)
    if flat_mask.shape[0] != arr.size:
        raise ValueError("place: mask and data must be the same size")
    values = _converted_values(vals, arr.dtype)
    positions = torch.nonzero(flat_mask)[:, 0]
    if values.numel() == 0:
        if positions.shape[0]:
            raise ValueError("Cannot insert from an empty array!")
        return None
    _store_flat(arr, positions, _cycled(values, positions.shape[0]), through_copy=True)
    return None


@_flipped.writes(0)
@_coerce.writes_numpy(0)
def putmask(a, /, mask, values):
    _require_ndarray(a, "argument a of putmask")
    full_mask = _truth(_coerce.asarray(mask)._t)
    if full_mask.numel() != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    if isinstance(values, numpy.ndarray) or (isinstance(values, ndarray) and not values._scalar):
        source = values.dtype
        if not _promotion.can_cast(source, a.dtype, "safe"):
            raise TypeError(f"Cannot cast array data from {_dtypes._as_dtype(source)!r} to "
                            f"{a.dtype!r} according to the rule 'safe'")
    values = _converted_values(values, a.dtype)
    if values.numel() == 0:
        return None
    target = movable(a._t)
    tiled = _cycled(values, a.size).reshape(target.shape)
    _self_overlap.store(target, torch.where(full_mask.reshape(target.shape), tiled, target))
    return None


@normalizer
def compress(condition: ArrayLike, a: ArrayLike, axis=None, out: OutArray = None):
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    positions = torch.nonzero(_truth(condition._t))[:, 0]
    src = a._t.reshape(-1) if axis is None or a.ndim == 0 else a._t
    result = _along_axis(src, positions, 0 if axis is None else normalize_axis(axis, src.ndim))
    return ndarray._wrap(result) if out is None else _take_out(result, out, a)


@normalizer
def choose(a, choices, out: OutArray = None, mode="raise"):
    mode = _clip_mode(mode)
    index = _coerce.asarray(a)
    if not _promotion.can_cast(index.dtype, _dtypes.int64, "safe"):
        raise TypeError(f"Cannot cast array data from {index.dtype!r} to dtype('int64') according "
                        f"to the rule 'safe'")
    if isinstance(choices, (ndarray, numpy.ndarray)):
        choices = list(_coerce.asarray(choices))
    if len(choices) == 0:
        raise ValueError("0-length sequence.")
    dt = _promotion.result_type(*choices)
    arrays = [_coerce.asarray(c) for c in choices]
    shape = _broadcast_shape([index] + arrays)
    stacked = torch.stack([movable(_coerce.cast_tensor(c._t, dt)).expand(shape) for c in arrays])
    k = _checked_mode(index._t.to(_INT64).expand(shape), len(arrays), mode,
                      ValueError("invalid entry in choice array"))
    result = torch.gather(stacked, 0, k.unsqueeze(0)).squeeze(0).view(dt.torch)
    if out is not None:
        return write_out(ndarray._wrap(result), out, casting="unsafe")
    return ndarray._wrap(result, scalar=result.ndim == 0)


def _broadcast_shape(arrays):
    try:
        return torch.broadcast_shapes(*(x._t.shape for x in arrays))
    except RuntimeError:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                         "is between " + " and ".join(str(x.shape) for x in arrays)) from None


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [_coerce.asarray(c) for c in choicelist]
    dt = _promotion.result_type(_promotion.result_type(*choices), default)
    conds = [_coerce.asarray(c) for c in condlist]
    for i, cond in enumerate(conds):
        if cond.dtype.kind != "b":
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    choices.append(_coerce.asarray(default))
    shape = _broadcast_shape(conds + choices)
    result = movable(_coerce.cast_tensor(choices[-1]._t, dt)).expand(shape)
    for cond, choice in zip(reversed(conds), reversed(choices[:-1])):
        result = torch.where(cond._t, movable(_coerce.cast_tensor(choice._t, dt)), result)
    return ndarray._wrap(result.contiguous().view(dt.torch))


def _along_axis_key(arr_shape, indices, axis):
    """NumPy's fancy-index tuple for take/put_along_axis: aranges on the other axes."""
    ndim = len(arr_shape)
    key = []
    for d, size in enumerate(arr_shape):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * ndim
            shape[d] = size
            key.append(ndarray._wrap(torch.arange(size, dtype=_INT64).reshape(shape)))
    return tuple(key)


def _along_axis_operands(arr, indices, axis):
    indices = _coerce.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return indices, 0
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return indices, normalize_axis(axis, arr.ndim)


@normalizer
def take_along_axis(arr: ArrayLike, indices, axis=-1):
    indices, ax = _along_axis_operands(arr, indices, axis)
    if axis is None:
        arr = ndarray._wrap(arr._t.reshape(-1))
    return getitem(arr, _along_axis_key(arr.shape, indices, ax))


@_flipped.writes(0)
@_coerce.writes_numpy(0)
def put_along_axis(arr, indices, values, axis):
    _require_ndarray(arr, "arr")
    indices, ax = _along_axis_operands(arr, indices, axis)
    if axis is None:
        if not arr._t.is_contiguous():
            raise ValueError("assignment destination is read-only")  # NumPy writes into a copy
        setitem(arr._view(arr._t.view(-1)), _along_axis_key((arr.size,), indices, 0), values)
    else:
        setitem(arr, _along_axis_key(arr.shape, indices, ax), values)


def ix_(*args):
    out = []
    nd = len(args)
    for k, arg in enumerate(args):
        is_array = isinstance(arg, (ndarray, numpy.ndarray))
        new = _coerce.asarray(arg)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.size == 0 and not is_array:
            new = ndarray._wrap(new._t.to(_INT64))
        if new.dtype.kind == "b":
            new = ndarray._wrap(torch.nonzero(new._t)[:, 0])
        out.append(new._view(new._t.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1))))
    return tuple(out)


def _refuse_empty_sequence(obj):
    """NumPy reads an empty list or tuple of indices as float64, and says so."""
    if isinstance(obj, (list, tuple)) and not _coerce._contains_traced(obj) and numpy.asarray(obj).size == 0:
        raise TypeError("indices must be integral: the provided empty sequence was inferred as float. "
                        "Wrap it with 'np.array(indices, dtype=np.intp)'")


def _index_ints(obj):
    arr = _coerce.asarray(obj)
    if not _promotion.can_cast(arr.dtype, _dtypes.int64, "same_kind"):
        raise TypeError("only int indices permitted")
    return arr._t.to(_INT64)


def _dims_tuple(dims):
    return tuple(operator.index(d) for d in (dims if isinstance(dims, (tuple, list)) else (dims,)))


def _check_order(order):
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims = _dims_tuple(dims)
    _check_order(order)
    modes = mode if isinstance(mode, (tuple, list)) else (mode,) * len(dims)
    modes = [_clip_mode(m) for m in modes]
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if len(modes) != len(dims):
        raise ValueError(f"parameter mode must be a sequence of length {len(dims)}")
    if math.prod(dims) > numpy.iinfo(numpy.intp).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum possible size.")
    for i in multi_index:
        _refuse_empty_sequence(i)
    coords = [_index_ints(i) for i in multi_index]
    shape = torch.broadcast_shapes(*(c.shape for c in coords)) if coords else ()
    if 0 in dims and math.prod(shape):   # no coordinates: nothing to unravel, NumPy answers empty
        raise ValueError("cannot unravel if shape has zero entries (is empty).")
    fixed = [_checked_mode(c, size, m, ValueError("invalid entry in coordinates array"))
             for c, size, m in zip(coords, dims, modes)]
    order_dims = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    flat = torch.zeros(shape, dtype=_INT64)
    for d in order_dims:
        flat = flat * dims[d] + fixed[d]
    return ndarray._wrap(flat, scalar=flat.ndim == 0)


def unravel_index(indices, shape, order="C"):
    shape = _dims_tuple(shape)
    _check_order(order)
    _refuse_empty_sequence(indices)
    idx = _index_ints(indices)
    size = math.prod(shape)
    raise_if((idx < 0) | (idx >= size),
                  ValueError(f"index is out of bounds for array with size {size}"))
    if not shape and idx.ndim:
        raise ValueError("multiple indices are not supported for 0d arrays")
    coords = []
    for d in (reversed(shape) if order == "C" else shape):
        coords.append(torch.remainder(idx, d))
        idx = torch.div(idx, d, rounding_mode="floor")
    if order == "C":
        coords.reverse()
    return tuple(ndarray._wrap(c, scalar=c.ndim == 0) for c in coords)


def _triangle(fn, n, k, m):
    n = builtins.max(operator.index(n), 0)
    m = n if m is None else builtins.max(operator.index(m), 0)
    rows, cols = fn(n, m, operator.index(k), dtype=_INT64)
    return ndarray._wrap(rows), ndarray._wrap(cols)


def tril_indices(n, k=0, m=None):
    return _triangle(torch.tril_indices, n, k, m)


def triu_indices(n, k=0, m=None):
    return _triangle(torch.triu_indices, n, k, m)


def _two_d(arr):
    arr = _coerce.asarray(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return arr


def tril_indices_from(arr, k=0):
    arr = _two_d(arr)
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    arr = _two_d(arr)
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def diag_indices(n, ndim=2):
    idx = ndarray._wrap(torch.arange(operator.index(n), dtype=_INT64))
    return (idx,) * ndim


def diag_indices_from(arr):
    arr = _coerce.asarray(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def fill_diagonal(a, val, wrap=False):
    """NumPy checks the shape before writing (its write warns on a broadcast_arrays result)."""
    if isinstance(a, (ndarray, numpy.ndarray)) and a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return _fill_diagonal(a, val, wrap)


@_flipped.writes(0)
@_coerce.writes_numpy(0)
def _fill_diagonal(a, val, wrap):
    _require_ndarray(a, "a")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = a.size if wrap else builtins.min(a.size, a.shape[1] * a.shape[1])
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + builtins.sum(math.prod(a.shape[:i + 1]) for i in range(a.ndim - 1))
        end = a.size
    values = _converted_values(val, a.dtype)
    positions = torch.arange(0, end, step, dtype=_INT64)
    if values.numel() == 0 or positions.numel() == 0:
        return None
    _store_flat(a, positions, _cycled(values, positions.shape[0]))
    return None


def mask_indices(n, mask_func, k=0):
    ones = ndarray._wrap(torch.ones((n, n), dtype=_INT64))
    selected = _coerce.asarray(mask_func(ones, k))
    return tuple(ndarray._wrap(c) for c in torch.nonzero(_truth(selected._t), as_tuple=True))
