"""Sorting and searching in NumPy's order, computed with torch's stable sort.

NumPy's order differs from a plain ``<``: NaN sorts last, and complex numbers sort by
real part, then imaginary part, with values holding a NaN after all others (see
``order_keys``). Every dtype is reduced to real "order keys" that torch sorts correctly
(unsigned 16/32/64-bit through an exact signed mapping), and a lexicographic stable
argsort over the keys gives NumPy's order. Sorting is stable, which is one of the
orders NumPy allows for its unstable kinds, except ``argsort`` of an unstable kind on the
CPU, which is NumPy's own (``_host_sort``: its SIMD sort orders ties otherwise, and
indices show it); ``partition`` sorts fully, which satisfies the partition property
NumPy promises.
"""
import operator

import numpy
import torch

from . import _dtypes
from ._coerce import asarray, cast_tensor
from ._detours import SIGNED_TWIN, movable, orderable, restored
from ._errors import AxisError
from ._host_sort import UNSTABLE_KINDS, numpy_argsort
from ._ndarray import ndarray
from ._normalize import ArrayLike, AxisLike, normalize_axis, normalizer

__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "searchsorted",
           "sort_complex"]


def order_keys(t):
    """Real tensors, most significant first, whose lexicographic order (torch's stable
    sort: NaN last, -0.0 == 0.0) is NumPy's order of ``t`` and whose ties are NumPy's."""
    if not t.is_complex():
        return [orderable(t)[0]]
    real, imag = torch.real(t), torch.imag(t)
    real_nan, imag_nan = torch.isnan(real), torch.isnan(imag)
    # NumPy's complex order: (1) no NaN, by (real, imag); (2) NaN imaginary part, by
    # real; (3) NaN real part, by imag; (4) both NaN.
    nan_class = real_nan.to(torch.int8) * 2 + imag_nan.to(torch.int8)
    primary = torch.where(real_nan, imag, real)
    secondary = torch.where(nan_class == 0, imag, torch.zeros_like(imag))
    return [nan_class, primary, secondary]


def take_along(t, index, dim):
    """``gather`` (index of t's ndim) for every dtype: torch lacks it for uint16/32/64.
    Not take_along_dim, whose decomposition bakes sizes into symbolic traces."""
    return restored(torch.gather(movable(t), dim, index), t.dtype)


def select(t, dim, index):
    """``index_select`` for every dtype (same gap as ``take_along``)."""
    return restored(torch.index_select(movable(t), dim, index), t.dtype)


def lex_argsort(keys, dim):
    """Stable argsort by several keys (most significant first) along ``dim``."""
    order = None
    for key in reversed(keys):
        if order is None:
            order = torch.argsort(key, dim=dim, stable=True)
        else:
            step = torch.argsort(torch.gather(key, dim, order), dim=dim, stable=True)
            order = torch.gather(order, dim, step)
    return order


def stable_argsort(t, dim):
    return lex_argsort(order_keys(t), dim)


def _check_sort_kind(kind, stable):
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    if kind[:1].lower() not in ("q", "h", "m", "s"):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got '{kind}')")


def _check_order(order):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _flat_or_axis(a, axis):
    """(tensor, dim) to sort along: axis=None flattens."""
    if axis is None:
        return a._t.reshape(-1), 0
    return a._t, normalize_axis(axis, a.ndim)


def _sorted_values(t, dim):
    if t.dtype in SIGNED_TWIN or t.is_complex():
        return take_along(t, stable_argsort(t, dim), dim)
    return torch.sort(t, dim=dim, stable=True).values


@normalizer
def sort(a: ArrayLike, axis: AxisLike = -1, kind=None, order=None, *, stable=None):
    _check_sort_kind(kind, stable)
    _check_order(order)
    t, dim = _flat_or_axis(a, axis)
    return ndarray._wrap(_sorted_values(t, dim))


def _as_at_least_1d(a):
    """argsort/argpartition treat a 0-d array as 1-d (NumPy does)."""
    return a if a.ndim else ndarray._wrap(a._t.reshape(1))


@normalizer
def argsort(a: ArrayLike, axis: AxisLike = -1, kind=None, order=None, *, stable=None):
    _check_sort_kind(kind, stable)
    _check_order(order)
    t, dim = _flat_or_axis(_as_at_least_1d(a), axis)
    unstable = _unstable_kind(kind, stable)
    if unstable is not None and t.device.type == "cpu":
        return ndarray._wrap(numpy_argsort(t, dim, unstable))
    return ndarray._wrap(stable_argsort(t, dim))


def _unstable_kind(kind, stable):
    """NumPy's spelling of an unstable ``kind`` (None, quicksort, heapsort; the default
    for ``stable=False``), or None for the stable kinds."""
    if stable:
        return None
    if kind is None:
        return "quicksort"
    return UNSTABLE_KINDS.get(kind[:1].lower())


def _check_kth(kth, length, size):
    """NumPy's kth validation: integers (not bools) in [-length, length), the bounds
    only checked for a non-empty array. False for an empty integer array: no positions,
    NumPy's partition leaves the order as it is."""
    if isinstance(kth, (ndarray, numpy.ndarray)):
        if kth.size == 0 and kth.dtype.kind in "iu":
            return False
        kth = kth.tolist()
    items = kth if isinstance(kth, (list, tuple)) else [kth]
    if any(isinstance(k, (bool, numpy.bool_)) for k in items):
        raise ValueError("Booleans unacceptable as partition index")
    if any(isinstance(k, (list, tuple)) for k in items):
        raise ValueError("setting an array element with a sequence. The requested array "
                         "would exceed the maximum number of dimension of 1.")
    try:
        values = [operator.index(k) for k in items]
    except TypeError:
        values = []
    if not values:
        raise TypeError("Partition index must be integer")
    for k in values:
        if size and not -length <= k < length:
            raise ValueError(f"kth(={k if k >= 0 else k + length}) out of bounds ({length})")
    return True


def _check_select_kind(kind, order):
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got '{kind}')")
    _check_order(order)


@normalizer
def partition(a: ArrayLike, kth, axis: AxisLike = -1, kind="introselect", order=None):
    _check_select_kind(kind, order)
    t, dim = _flat_or_axis(a, axis)
    if not _check_kth(kth, t.shape[dim], t.numel()):
        return ndarray._wrap(t.clone()) if axis is None else a.copy()
    return ndarray._wrap(_sorted_values(t, dim))


@normalizer
def argpartition(a: ArrayLike, kth, axis: AxisLike = -1, kind="introselect", order=None):
    _check_select_kind(kind, order)
    t, dim = _flat_or_axis(_as_at_least_1d(a), axis)
    if not _check_kth(kth, t.shape[dim], t.numel()):
        shape = [1] * t.ndim
        shape[dim] = t.shape[dim]
        return ndarray._wrap(torch.arange(t.shape[dim]).reshape(shape).expand(t.shape).clone())
    return ndarray._wrap(stable_argsort(t, dim))


def lexsort(keys, axis=-1):
    """Indirect stable sort by several keys; the last key is the primary one."""
    if isinstance(keys, (ndarray, numpy.ndarray)):
        keys = asarray(keys)
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [ndarray._wrap(k) for k in keys._t.unbind(0)]
    elif isinstance(keys, (list, tuple)):
        keys = [asarray(k) for k in keys]
    else:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.shape != keys[0].shape for k in keys[1:]):
        raise ValueError("all keys need to be the same shape")
    ndim = keys[0].ndim
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    if ndim == 0:
        axis = operator.index(axis)
        if axis not in (0, -1):
            raise AxisError(axis, 0)
        return ndarray._wrap(torch.zeros((), dtype=torch.int64, device=keys[0]._t.device), scalar=True)
    dim = normalize_axis(axis, ndim)
    sort_keys = [part for key in reversed(keys) for part in order_keys(key._t)]
    return ndarray._wrap(lex_argsort(sort_keys, dim))


def _check_side(side):
    if not isinstance(side, str):
        raise TypeError(f"search side must be str, not {type(side).__name__}")
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got '{side}')")


def _checked_sorter(sorter, size):
    """The sorter as an int64 tensor, validated as NumPy does (this reads its values)."""
    sorter = asarray(sorter)
    if sorter.ndim != 1:
        raise TypeError("could not parse sorter argument")
    if sorter.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if sorter.dtype == _dtypes.uint64.dtype:
        raise ValueError("could not parse sorter argument")
    if sorter.size != size:
        raise ValueError("sorter.size must equal a.size")
    index = sorter._t.to(torch.int64)
    if size and bool(((index < 0) | (index >= size)).any()):
        raise ValueError("Sorter index out of range.")
    return index


def _searchsorted_by_merge(a_keys, v_keys, right):
    """Insertion points by sorting a and v together: stable order puts v before equal
    elements of a (left) or after them (right); the a-count before each v is its index."""
    n, m = a_keys[0].shape[0], v_keys[0].shape[0]
    first, second = (a_keys, v_keys) if right else (v_keys, a_keys)
    merged = [torch.cat([x, y]) for x, y in zip(first, second)]
    order = lex_argsort(merged, 0)
    is_a = (order >= m) if not right else (order < n)
    a_before = torch.cumsum(is_a.to(torch.int64), 0) - is_a.to(torch.int64)
    by_position = torch.empty(n + m, dtype=torch.int64, device=order.device).scatter(0, order, a_before)
    return by_position[n:] if right else by_position[:m]


def _searchsorted_real(a, v, right):
    """torch.searchsorted with NumPy's NaN order: NaN in ``a`` sorts after +inf."""
    if not a.is_floating_point():
        return torch.searchsorted(a, v, right=right)
    a_nan, v_nan = torch.isnan(a), torch.isnan(v)
    n = a.shape[0]
    non_nan_count = n - a_nan.sum()
    inf = torch.full((), torch.inf, dtype=a.dtype, device=a.device)
    found = torch.searchsorted(torch.where(a_nan, inf, a), torch.where(v_nan, inf, v), right=right)
    if right:  # +inf is <= every non-NaN element only: NaNs of a are not counted
        found = torch.where(v == inf, non_nan_count, found)
        return torch.where(v_nan, torch.full_like(found, n), found)
    return torch.where(v_nan, non_nan_count.expand_as(found), found)


def insertion_points(a, v, right=False):
    """searchsorted on tensors of one dtype: ``a`` 1-D in NumPy's order, ``v`` 1-D."""
    if a.is_complex():
        return _searchsorted_by_merge(order_keys(a), order_keys(v), right)
    a_key, v_key = order_keys(a)[0], order_keys(v)[0]
    return _searchsorted_real(a_key.contiguous(), v_key.contiguous(), right)


@normalizer
def searchsorted(a: ArrayLike, v: ArrayLike, side="left", sorter=None):
    _check_side(side)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim else
                         "object of too small depth for desired array")
    common = _dtypes.promote_types(a.dtype, v.dtype)  # v is not weak here (NumPy)
    at = cast_tensor(a._t, common)
    if sorter is not None:
        at = take_along(at, _checked_sorter(sorter, a.size), 0)
    vt = cast_tensor(v._t, common).reshape(-1)
    found = insertion_points(at, vt, right=side == "right")
    return ndarray._wrap(found.reshape(v._t.shape), scalar=v.ndim == 0)


_COMPLEX64_SOURCES = ("int8", "int16", "uint8", "uint16")


@normalizer
def sort_complex(a: ArrayLike):
    """Sort along the last axis and return complex: small ints give complex64."""
    if a._t.is_complex():
        target = a.dtype
    elif a.dtype.name in _COMPLEX64_SOURCES:
        target = _dtypes.complex64.dtype
    else:
        target = _dtypes.complex128.dtype
    t = a._t
    if t.dtype in SIGNED_TWIN:
        t = t.to(torch.float64)  # torch cannot cast wide unsigned ints to complex
    return sort(ndarray._wrap(cast_tensor(t, target)))
