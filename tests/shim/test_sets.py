"""unique and the set functions against NumPy: values, NaN handling, indices, shapes."""
import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from tests.oracle import arrays, assert_same, check, dtypes, shapes
from tests.shim.test_sorting import tie_arrays


def any_arrays(dtype, shape=None):
    return st.one_of(arrays(dtype, shape), tie_arrays(dtype, shape))


def _uint64_with_signed(*dts):
    names = {numpy.dtype(d).name for d in dts}
    return "uint64" in names and any(numpy.dtype(d).kind == "i" for d in dts)


# ---- unique -------------------------------------------------------------------------
def _same_value_slot(values, v):
    """The first slot of ``values`` holding ``v``, NaN parts equal to NaN parts."""
    parts = [(numpy.real(values), numpy.real(v)), (numpy.imag(values), numpy.imag(v))]
    hit = numpy.logical_and.reduce([(p == q) | (numpy.isnan(p) & numpy.isnan(q)) for p, q in parts])
    return int(numpy.flatnonzero(hit)[0])


def _canonical_inverse(result, a):
    """``result`` with each NaN's inverse index replaced by the first slot holding the
    same value. Without return_index NumPy sorts with its unstable quicksort, so which of
    several equal-looking NaN slots (unique with equal_nan=False keeps every NaN) a NaN
    maps to follows that sort's tie order, which varies with length and SIMD dispatch
    (float16: generic introsort; float32/64: x86-simd-sort); the shim sorts stably."""
    values, inverse = result[0], result[1].copy()
    flat = inverse.reshape(-1)
    for i in numpy.flatnonzero(numpy.isnan(a.reshape(-1))):
        flat[i] = _same_value_slot(values, a.reshape(-1)[i])
    fields = (values, inverse, *result[2:])
    return fields if type(result) is tuple else type(result)(*fields)


def check_unique(fn, a, unstable_inverse):
    """``check``, but with ``unstable_inverse`` (the inverse is ``result[1]``, from
    NumPy's quicksort) NaNs may map to any slot of their own value."""
    if not (unstable_inverse and a.dtype.kind in "fc" and numpy.isnan(a).sum() > 1):
        check(fn, a)
        return
    expected, actual = fn(numpy, a.copy()), shim.to_numpy(fn(shim, shim.asarray(a)))
    assert type(actual) is type(expected)
    assert_same(_canonical_inverse(expected, a), _canonical_inverse(actual, a))


@given(dtypes(), st.data(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_unique(dtype, data, return_index, return_inverse, return_counts, equal_nan):
    a = data.draw(any_arrays(dtype))
    check_unique(lambda xp, a: xp.unique(a, return_index, return_inverse, return_counts,
                                         equal_nan=equal_nan), a,
                 unstable_inverse=return_inverse and not return_index and not equal_nan)


@given(dtypes(), st.data(), st.booleans(), st.booleans(), st.booleans())
def test_unique_axis(dtype, data, return_index, return_inverse, return_counts):
    a = data.draw(any_arrays(dtype, shapes(min_dims=0, max_dims=3, max_side=3)))
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    check(lambda xp, a: xp.unique(a, return_index=return_index, return_inverse=return_inverse,
                                  return_counts=return_counts, axis=axis), a)


@pytest.mark.parametrize("a,kwargs", [
    (numpy.array(3), {}), (numpy.array(3), {"return_inverse": True}), (3, {}), ([3, 1, 3], {}),
    (numpy.array([[numpy.nan], [numpy.nan]]), {"axis": 0}),
    (numpy.array([numpy.nan, 1, numpy.nan]), {"equal_nan": False, "return_counts": True}),
    (numpy.array([complex(numpy.nan, 1), complex(1, numpy.nan), 1, complex(numpy.nan, numpy.nan),
                  complex(0, numpy.nan)]), {"return_index": True}),
    (numpy.zeros((0, 3)), {"axis": 0, "return_inverse": True, "return_counts": True}),
    (numpy.zeros((0, 3)), {"axis": 1, "return_inverse": True, "return_counts": True, "return_index": True}),
    (numpy.zeros((0, 3)), {"return_inverse": True, "return_counts": True, "return_index": True}),
    (numpy.array([3, 1, 3]), {"axis": 1}), (numpy.array(3), {"axis": 0}),
    (numpy.array([3, 1, 3]), {"axis": -1, "return_inverse": True}),
    (numpy.array([[1, 0], [1, 0], [0, 1]], numpy.uint64) * (2**63 + 1), {"axis": 0, "return_counts": True}),
    (numpy.array([[2, numpy.nan], [2, -numpy.inf], [numpy.nan, numpy.inf], [-numpy.inf, 3], [numpy.nan, 1]],
                 numpy.float16), {"axis": 0, "return_index": True}),
    (numpy.array([[2, numpy.nan], [2, -numpy.inf], [numpy.nan, numpy.inf], [-numpy.inf, 3], [numpy.nan, 1]],
                 numpy.float32), {"axis": 0, "return_index": True}),
])
def test_unique_edges(a, kwargs):
    check(lambda xp: xp.unique(a, **kwargs))


@given(dtypes(), st.data())
def test_unique_unsorted_forms_give_the_same_set(dtype, data):
    """NumPy may return these in hash order: compare as sorted."""
    a = data.draw(any_arrays(dtype))
    for fn in (lambda xp: xp.unique_values(a if xp is numpy else shim.asarray(a)),
               lambda xp: xp.unique(a if xp is numpy else shim.asarray(a), sorted=False)):
        expected, got = fn(numpy), shim.to_numpy(fn(shim))
        assert type(got) is type(expected)
        assert_same(numpy.sort(expected), numpy.sort(got))


@given(dtypes(), st.data(), st.sampled_from(["unique_all", "unique_counts", "unique_inverse"]))
def test_array_api_unique(dtype, data, name):
    a = data.draw(any_arrays(dtype))
    check_unique(lambda xp, a: getattr(xp, name)(a), a, unstable_inverse=name == "unique_inverse")


@pytest.mark.parametrize("a", [
    numpy.full(20, numpy.nan, numpy.float16), numpy.full(20, numpy.nan, numpy.float32),
    numpy.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, complex(0, numpy.nan), complex(0, numpy.nan), 0],
                numpy.complex64)])
def test_unique_inverse_of_many_nans(a):
    """Issue 13's counterexamples: every NaN its own slot; NumPy's quicksort decides
    which (shuffled beyond 16 items), the shim keeps them in order."""
    check_unique(lambda xp, a: xp.unique_inverse(a), a, unstable_inverse=True)
    check_unique(lambda xp, a: xp.unique(a, return_inverse=True, equal_nan=False), a, unstable_inverse=True)
    check(lambda xp, a: xp.unique_all(a), a)
    assert shim.unique_inverse(shim.asarray(a)).inverse_indices.tolist() == numpy.unique_all(a).inverse_indices.tolist()


def test_array_api_unique_zero_dim_and_list():
    check(lambda xp: xp.unique_all(numpy.array(3)))
    check(lambda xp: xp.unique_inverse([[1, 2], [2, 2]]))
    result = shim.unique_all([1, 1, 2])
    assert type(result) is type(numpy.unique_all([1])) and result.counts.tolist() == [2, 1]


# ---- the *1d functions --------------------------------------------------------------
@given(dtypes(), dtypes(), st.data())
def test_union1d(dtype1, dtype2, data):
    check(lambda xp, a, b: xp.union1d(a, b), data.draw(any_arrays(dtype1)), data.draw(any_arrays(dtype2)))


@given(dtypes(), dtypes(), st.data(), st.booleans())
def test_intersect1d(dtype1, dtype2, data, return_indices):
    a, b = data.draw(any_arrays(dtype1)), data.draw(any_arrays(dtype2))
    check(lambda xp, a, b: xp.intersect1d(a, b, return_indices=return_indices), a, b)
    a, b = numpy.unique(a), numpy.unique(b)
    check(lambda xp, a, b: xp.intersect1d(a, b, assume_unique=True, return_indices=return_indices), a, b)


@given(dtypes(), dtypes(), st.data())
def test_setxor1d(dtype1, dtype2, data):
    a, b = data.draw(any_arrays(dtype1)), data.draw(any_arrays(dtype2))
    check(lambda xp, a, b: xp.setxor1d(a, b), a, b)
    check(lambda xp, a, b: xp.setxor1d(a, b, assume_unique=True), numpy.unique(a), numpy.unique(b))


@given(dtypes(), dtypes(), st.data())
def test_setdiff1d(dtype1, dtype2, data):
    a, b = data.draw(any_arrays(dtype1)), data.draw(any_arrays(dtype2))
    if _uint64_with_signed(dtype1, dtype2):
        with pytest.raises(shim.UnsupportedError):
            shim.setdiff1d(shim.asarray(a), shim.asarray(b))
        return
    check(lambda xp, a, b: xp.setdiff1d(a, b), a, b)
    check(lambda xp, a, b: xp.setdiff1d(a, b, assume_unique=True), numpy.unique(a), numpy.unique(b))


@given(dtypes(), dtypes(), st.data(), st.booleans(), st.sampled_from([None, "sort"]))
def test_isin(dtype1, dtype2, data, invert, kind):
    a, b = data.draw(any_arrays(dtype1)), data.draw(any_arrays(dtype2))
    if _uint64_with_signed(dtype1, dtype2):
        with pytest.raises(shim.UnsupportedError):
            shim.isin(shim.asarray(a), shim.asarray(b))
        return
    check(lambda xp, a, b: xp.isin(a, b, invert=invert, kind=kind), a, b)


@given(dtypes(), dtypes(), st.data())
def test_isin_table_kind(dtype1, dtype2, data):
    """Small integer ranges only: for wide ranges NumPy's table method raises
    RuntimeError depending on the values, which the shim does not model."""
    a, b = data.draw(tie_arrays(dtype1)), data.draw(tie_arrays(dtype2))
    if _uint64_with_signed(dtype1, dtype2):
        return
    check(lambda xp, a, b: xp.isin(a, b, kind="table"), a, b)


@pytest.mark.parametrize("fn", [
    lambda xp: xp.union1d(xp.asarray([1], dtype=xp.int8), 300),
    lambda xp: xp.union1d(xp.asarray([1], dtype=xp.int8), 3),
    lambda xp: xp.union1d(xp.asarray([1], dtype=xp.int8), [300]),
    lambda xp: xp.union1d(1, 2.5),
    lambda xp: xp.union1d([3, 1, 2, 1], [[1, 3]]),
    lambda xp: xp.intersect1d([3, 1, 2, 1], [[1, 3]], return_indices=True),
    lambda xp: xp.intersect1d([numpy.nan, 1], [numpy.nan]),
    lambda xp: xp.setdiff1d([3, 1, 2, 1, numpy.nan], [[1, 3]]),
    lambda xp: xp.setdiff1d(3, 2),
    lambda xp: xp.setdiff1d([3, 1, 3], [1], assume_unique=True),
    lambda xp: xp.setxor1d([3, 1, 2, 1, numpy.nan], [[1, 3, numpy.nan]]),
    lambda xp: xp.setxor1d([], []),
    lambda xp: xp.isin([[3, 1], [2, numpy.nan]], [[1, 3, numpy.nan]]),
    lambda xp: xp.isin(3, [3]),
    lambda xp: xp.isin(xp.asarray([44], dtype=xp.uint8), [300]),
    lambda xp: xp.isin(xp.asarray([], dtype=xp.float32), []),
    lambda xp: xp.isin([1.0, 2.0], [1], kind="table"),
    lambda xp: xp.isin([1, 2], [1], kind="foo"),
    lambda xp: xp.isin([-0.0, 1], [0.0], invert=True),
    lambda xp: xp.isin(xp.asarray([0.1], dtype=xp.float32), [0.1]),
])
def test_set_function_edges(fn):
    check(fn)


def test_in1d_absent_as_in_numpy():
    assert not hasattr(numpy, "in1d") and not hasattr(shim, "in1d")


def test_traces_with_symbolic_sizes():
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    def program(x):
        values, inverse, counts = shim.unique(shim.asarray(x), return_inverse=True, return_counts=True)
        return values._t, inverse._t, counts._t, shim.isin(shim.asarray(x), shim.asarray(x[:2]))._t

    traced = make_fx(program, tracing_mode="symbolic")(torch.tensor([3.0, numpy.nan, 1.0, 3.0]))
    x = numpy.array([5.0, numpy.nan, 4, numpy.nan, 1, 4])
    got = [t.numpy() for t in traced(torch.from_numpy(x))]
    expected = numpy.unique(x, return_inverse=True, return_counts=True) + (numpy.isin(x, x[:2]),)
    for e, g in zip(expected, got):
        assert_same(e, g)
