"""Set operations (unique and the *1d family, isin) by sorting in NumPy's order.

Outputs have data-dependent sizes, so these use boolean masks and ``nonzero``. Equality
is NumPy's: -0.0 == 0.0, NaN != NaN, except that ``unique(equal_nan=True)`` merges NaNs
(for complex, every value holding a NaN). Where NumPy's order is unspecified
(``unique_values``, ``unique(sorted=False)``) the result is sorted.
"""
import operator

import torch
from numpy.lib._arraysetops_impl import UniqueAllResult, UniqueCountsResult, UniqueInverseResult

from . import _promotion
from ._coerce import asarray, cast_tensor
from ._errors import AxisError, AxisOverflowError, UnsupportedError
from ._ndarray import ndarray
from ._normalize import ArrayLike, normalize_axis, normalize_axis_tuple, normalizer
from ._sorting import insertion_points, lex_argsort, order_keys, select, stable_argsort, take_along

__all__ = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
           "union1d", "intersect1d", "setdiff1d", "setxor1d", "isin"]


def _wrap(t):
    return ndarray._wrap(t)


def _starts_of_runs(sorted_t, equal_nan):
    """True where a sorted 1-D tensor starts a run of equal values."""
    differs = sorted_t[1:] != sorted_t[:-1]
    if equal_nan and (sorted_t.is_floating_point() or sorted_t.is_complex()):
        nan = torch.isnan(sorted_t)
        differs = differs & ~(nan[1:] & nan[:-1])
    first = torch.ones(1, dtype=torch.bool, device=differs.device)
    return torch.cat([first, differs])[:sorted_t.shape[0]]


def _rows_start_runs(sorted_rows):
    """True where a row of a (n, m) tensor with lexicographically sorted rows differs
    from the row before (NaN fields never equal, as NumPy's structured compare)."""
    differs = (sorted_rows[1:] != sorted_rows[:-1]).any(dim=1)
    first = torch.ones(1, dtype=torch.bool, device=differs.device)
    return torch.cat([first, differs])[:sorted_rows.shape[0]]


def _unique_from_sorted(perm, starts, return_index, return_inverse, return_counts, inverse_shape):
    """The optional outputs of unique, given the sorting permutation and run starts."""
    extras = []
    n = perm.shape[0]
    if return_index:
        extras.append(_wrap(perm[starts]))
    if return_inverse:
        run_of_sorted = torch.cumsum(starts.to(torch.int64), 0) - 1
        inverse = torch.empty(n, dtype=torch.int64, device=perm.device).scatter(0, perm, run_of_sorted)
        extras.append(_wrap(inverse.reshape(inverse_shape)))
    if return_counts:
        positions = torch.nonzero(starts).reshape(-1)
        ends = torch.cat([positions[1:], torch.full((1,), n, dtype=torch.int64, device=perm.device)])
        extras.append(_wrap(ends - positions))
    return extras


def _unique_flat(a, return_index, return_inverse, return_counts, equal_nan):
    t = a._t.reshape(-1)
    perm = stable_argsort(t, 0)
    sorted_t = take_along(t, perm, 0)
    starts = _starts_of_runs(sorted_t, equal_nan)
    extras = _unique_from_sorted(perm, starts, return_index, return_inverse, return_counts,
                                 a._t.shape)
    return [_wrap(sorted_t[starts])] + extras


def _field_order_keys(column):
    """Order keys of one field of NumPy's structured (row) sort: NumPy's order, except
    that float16 fields put NaN first (a quirk of NumPy's void compare for half)."""
    if column.dtype != torch.float16:
        return order_keys(column)
    nan = torch.isnan(column)
    return [(~nan).to(torch.int8), torch.where(nan, torch.zeros_like(column), column)]


def _unique_along_axis(a, axis, return_index, return_inverse, return_counts):
    """Unique slices along ``axis``: rows of the (n, rest) view sorted lexicographically."""
    moved = torch.movedim(a._t, axis, 0)
    rows = moved.flatten(1)
    keys = [key for column in rows.unbind(1) for key in _field_order_keys(column)]
    perm = lex_argsort(keys, 0) if keys else torch.arange(rows.shape[0], dtype=torch.int64, device=rows.device)
    sorted_moved = select(moved, 0, perm)
    starts = _rows_start_runs(sorted_moved.flatten(1))
    extras = _unique_from_sorted(perm, starts, return_index, return_inverse, return_counts,
                                 (rows.shape[0],))
    return [_wrap(torch.movedim(sorted_moved[starts], 0, axis))] + extras


def _unique_axis(axis, ndim):
    """The axis (of an array not 1-D) as NumPy's unique checks it: ``moveaxis(ar, axis,
    0)`` first (its AxisError re-raised naming the whole axis, ValueError for several
    axes), then a list indexed with it (TypeError for a tuple)."""
    try:
        axes = normalize_axis_tuple(axis, ndim)
        normalize_axis(0, ndim)   # moveaxis's destination
    except AxisOverflowError:
        raise
    except AxisError:
        raise AxisError(axis, ndim) from None
    if len(axes) != 1:
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    return normalize_axis(operator.index(axis), ndim)


@normalizer
def unique(ar: ArrayLike, return_index=False, return_inverse=False, return_counts=False,
           axis=None, *, equal_nan=True, sorted=True):
    if axis is None or ar.ndim == 1:
        if axis is not None:
            normalize_axis(axis, ar.ndim)
        results = _unique_flat(ar, return_index, return_inverse, return_counts, equal_nan)
    else:
        results = _unique_along_axis(ar, _unique_axis(axis, ar.ndim), return_index,
                                     return_inverse, return_counts)
    return results[0] if len(results) == 1 else tuple(results)


def unique_values(x):
    return unique(x, equal_nan=False, sorted=False)


def unique_counts(x):
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x):
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


def _flat_concatenation(ar1, ar2):
    """np.concatenate((ar1, ar2), axis=None): Python scalars promote weakly."""
    target = _promotion.result_type(*(x if isinstance(x, _promotion.PY_SCALARS) else asarray(x)
                                   for x in (ar1, ar2)))
    parts = [cast_tensor(asarray(x)._t, target).reshape(-1) for x in (ar1, ar2)]
    return torch.cat(parts)


def union1d(ar1, ar2):
    return unique(_wrap(_flat_concatenation(ar1, ar2)))


@normalizer
def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique=False, return_indices=False):
    if assume_unique:
        first, second = ar1._t.reshape(-1), ar2._t.reshape(-1)
    elif return_indices:
        (first, index1), (second, index2) = (unique(x, return_index=True) for x in (ar1, ar2))
        first, second, index1, index2 = first._t, second._t, index1._t, index2._t
    else:
        first, second = unique(ar1)._t, unique(ar2)._t
    target = _promotion.result_type(_wrap(first), _wrap(second))
    both = torch.cat([cast_tensor(first, target), cast_tensor(second, target)])
    order = stable_argsort(both, 0)
    sorted_both = take_along(both, order, 0)
    repeated = sorted_both[1:] == sorted_both[:-1]
    common = _wrap(sorted_both[:-1][repeated])
    if not return_indices:
        return common
    in_first = order[:-1][repeated]
    in_second = order[1:][repeated] - first.shape[0]
    if not assume_unique:
        in_first, in_second = index1[in_first], index2[in_second]
    return common, _wrap(in_first), _wrap(in_second)


def setxor1d(ar1, ar2, assume_unique=False):
    if assume_unique:
        both = _flat_concatenation(ar1, ar2)
    else:
        both = _flat_concatenation(unique(ar1), unique(ar2))
    sorted_both = take_along(both, stable_argsort(both, 0), 0)
    edge = torch.ones(1, dtype=torch.bool, device=both.device)
    alone = torch.cat([edge, sorted_both[1:] != sorted_both[:-1], edge])
    return _wrap(sorted_both[(alone[1:] & alone[:-1])[:sorted_both.shape[0]]])


@normalizer
def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique=False):
    if assume_unique:
        first = _wrap(ar1._t.reshape(-1))
    else:
        first, ar2 = unique(ar1), unique(ar2)
    return _wrap(first._t[_membership(first, ar2, invert=True)])


def _membership(element, test_elements, invert):
    """Boolean tensor, element's shape: is each value equal to some test element."""
    target = _promotion.result_type(element, test_elements)
    if target.kind == "f" and element.dtype.kind in "biu" and test_elements.dtype.kind in "biu":
        # uint64 with signed ints: NumPy answers exactly or through float64 depending
        # on the data (its table, loop or sort method), so no single answer is NumPy's.
        raise UnsupportedError("isin/setdiff1d of uint64 with signed integers")
    values = cast_tensor(element._t.reshape(-1), target)
    tests = cast_tensor(test_elements._t.reshape(-1), target)
    sorted_tests = take_along(tests, stable_argsort(tests, 0), 0)
    n = sorted_tests.shape[0]
    position = insertion_points(sorted_tests, values)
    if n:
        candidate = take_along(sorted_tests, position.clamp(max=n - 1), 0)
        found = (position < n) & (candidate == values)
    else:
        found = torch.zeros_like(values, dtype=torch.bool)
    found = found ^ invert
    return found.reshape(element._t.shape)


@normalizer
def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique=False, invert=False, *,
         kind=None):
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if kind == "table" and not all(x.dtype.kind in "biu" for x in (element, test_elements)):
        raise ValueError("The 'table' method is only supported for boolean or integer arrays. "
                         "Please select 'sort' or None for kind.")
    return _wrap(_membership(element, test_elements, bool(invert)))
