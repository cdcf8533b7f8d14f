"""Fixes from NumPy's own test files run against the shim (benchmarks.numpy_conformance):
bincount of an empty list (lib/test_function_base.py), histogram2d's length check
(lib/test_twodim_base.py), partition with no kth (core/test_item_selection.py). Each
case runs with NumPy and with the shim: value and dtype, or exception class and message."""
import warnings

import numpy
import pytest

import torch_numpy_shim as tnp


def _outcome(fn, np):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(np)
            result = [(repr(numpy.asarray(r).tolist()), str(numpy.asarray(r).dtype))
                      for r in (result if isinstance(result, tuple) else (result,))]
        except Exception as exc:  # noqa: BLE001 - compared with NumPy's
            result = (type(exc).__name__, str(exc))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


CASES = {
    "bincount_empty_list": lambda np: np.bincount([]),
    "bincount_empty_tuple_minlength": lambda np: np.bincount((), minlength=3),
    "bincount_empty_list_weights": lambda np: np.bincount([], weights=[]),
    "bincount_empty_float_array": lambda np: np.bincount(np.array([])),
    "bincount_nested_list": lambda np: np.bincount([[]]),
    "bincount_nested_ints": lambda np: np.bincount([[1, 2]]),
    "bincount_2d_array": lambda np: np.bincount(np.ones((2, 2), dtype=int)),
    "bincount_list": lambda np: np.bincount([0, 3, 3], minlength=5),
    "histogram2d_longer_y": lambda np: np.histogram2d(np.ones(10), np.ones(11)),
    "histogram2d_shorter_y": lambda np: np.histogram2d(np.ones(20), np.ones(19)),
    "histogram2d_same": lambda np: np.histogram2d(np.arange(4.0), np.arange(4.0), bins=2),
    "partition_empty_int16_kth": lambda np: np.partition(np.array([3, 1, 2]), np.array([], dtype=np.int16)),
    "argpartition_empty_int_kth": lambda np: np.argpartition(np.array([3, 1, 2]), np.array([], dtype=int)),
    "method_partition_empty_kth": lambda np: (lambda a: (a.partition(np.array([], dtype=np.int16)), a)[1])(
        np.array([0, 2, 4, 6, 8, 10])),
    "partition_empty_list_kth": lambda np: np.partition(np.array([3, 1, 2]), []),
    "partition_empty_float_kth": lambda np: np.partition(np.array([3, 1, 2]), np.array([])),
    "partition_empty_tuple_kth": lambda np: np.partition(np.array([3, 1, 2]), ()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy(name):
    assert _outcome(CASES[name], tnp) == _outcome(CASES[name], numpy)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("fn", ["partition", "argpartition"])
def test_partition_with_no_kth_keeps_the_order(fn, axis):
    def run(np):
        return getattr(np, fn)(np.array([[3, 1, 2], [9, 7, 8]]), np.array([], dtype=np.int16), axis=axis)
    assert _outcome(run, tnp) == _outcome(run, numpy)


def _all_nan_rows(np):
    m = np.full((3, 4), np.nan)
    m[0, 0] = 1.0
    return m


#: NumPy's nanmedian / nanquantile along an axis warn once for each all-NaN slice
#: (lib/test_nanfunctions.py, TestNanFunctions_Median.test_allnans)
ALL_NAN = {
    "nanmedian_axis0": lambda np: np.nanmedian(_all_nan_rows(np), axis=0),
    "nanmedian_axis1": lambda np: np.nanmedian(_all_nan_rows(np), axis=1),
    "nanmedian_whole": lambda np: np.nanmedian(np.full((3, 3), np.nan)),
    "nanmedian_some_nan": lambda np: np.nanmedian(_all_nan_rows(np)),
    "nanmedian_both_axes": lambda np: np.nanmedian(np.full((3, 3), np.nan), axis=(0, 1)),
    "nanmedian_keepdims": lambda np: np.nanmedian(_all_nan_rows(np), axis=0, keepdims=True),
    "nanmedian_3d": lambda np: np.nanmedian(np.full((2, 3, 4), np.nan), axis=1),
    "nanmedian_long_slices": lambda np: np.nanmedian(np.full((700, 3), np.nan), axis=0),
    "nanmedian_float32_scalar": lambda np: np.nanmedian(np.array(np.nan, dtype=np.float32)[()]),
    "nanmedian_empty": lambda np: np.nanmedian(np.zeros((0, 3)), axis=0),
    "nanpercentile_axis0": lambda np: np.nanpercentile(_all_nan_rows(np), 50, axis=0),
    "nanquantile_two_q": lambda np: np.nanquantile(_all_nan_rows(np), [0.1, 0.5], axis=1),
    "nanquantile_whole": lambda np: np.nanquantile(np.full(4, np.nan), 0.5),
}


@pytest.mark.parametrize("name", sorted(ALL_NAN))
def test_all_nan_slices_warn_once_each(name):
    assert _outcome(ALL_NAN[name], tnp) == _outcome(ALL_NAN[name], numpy)


#: an empty input: NumPy answers with nanmean, which warns only where the result has
#: slices (lib/test_nanfunctions.py, test_empty of Median and Percentile)
@pytest.mark.parametrize("axis", [0, 1, None, (0, 1)])
@pytest.mark.parametrize("fn", ["nanmedian", "nanpercentile", "nanquantile"])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0)])
def test_empty_input(fn, axis, shape):
    def run(np):
        args = {"nanmedian": (), "nanpercentile": (50,), "nanquantile": ([0.5, 0.9],)}[fn]
        return getattr(np, fn)(np.zeros(shape), *args, axis=axis)
    assert _outcome(run, tnp) == _outcome(run, numpy)
