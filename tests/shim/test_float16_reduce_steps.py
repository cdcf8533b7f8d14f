"""float16 reduce/accumulate of ufuncs whose float16 loop is NumPy's generic one (float32
arithmetic, the result rounded to float16 at every step): NumPy folds one element at a
time in its iterator's order (the memory's), so the shim must too. Pairwise, as the
shim reduced its reorderable logaddexp/logaddexp2/hypot, rounds differently:
``np.logaddexp.reduce(np.full((2, 4), 128, np.uint8), axis=None)`` is 130.0 in NumPy,
130.125 pairwise (found by test_ufunc_methods.py::test_reduce[logaddexp])."""
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npcompile
import torch_numpy_shim as snp

REORDERABLE = ["logaddexp", "logaddexp2", "hypot"]
ONE_AXIS = ["power", "fmod", "arctan2"]


def _same(expected, got):
    got = snp.to_numpy(got)
    assert type(got) is type(expected)
    expected, got = np.asarray(expected), np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype == np.float16:
        same = got.view(np.uint16) == expected.view(np.uint16)
        assert np.all(same | (np.isnan(got) & np.isnan(expected))), (got, expected)
    else:
        np.testing.assert_array_equal(got, expected)


def _compare(name, method, a, **kwargs):
    with np.errstate(all="ignore"):
        expected = getattr(getattr(np, name), method)(a, **kwargs)
        got = getattr(getattr(snp, name), method)(snp.asarray(a), **kwargs)
    _same(expected, got)


def test_logaddexp_reduce_of_uint8_128s():
    a = np.full((2, 4), 128, np.uint8)
    got = snp.logaddexp.reduce(snp.asarray(a), axis=None)
    assert got.dtype == np.float16 and float(got) == 130.0   # pairwise: 130.125
    _compare("logaddexp", "reduce", a, axis=None)


@pytest.mark.parametrize("name", REORDERABLE)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), (1, 0)])
def test_reduce_examples(name, axis):
    rng = np.random.default_rng(3)
    for a in [np.full((2, 4), 128, np.uint8), rng.integers(-128, 128, (5, 7)).astype(np.int8),
              (rng.standard_normal((6, 9)) * 8).astype(np.float16),
              np.full((4, 300), 200, np.uint8)]:
        for v in [a, a.T, a[:, ::-1], a[::2, 1:]]:
            _compare(name, "reduce", v, axis=axis)
            _compare(name, "reduce", v, axis=axis, keepdims=True)


@pytest.mark.parametrize("name", REORDERABLE)
def test_reduce_initial_and_where(name):
    a = (np.random.default_rng(4).standard_normal((5, 6)) * 6).astype(np.float16)
    mask = np.arange(6) % 4 != 1
    for axis in [None, 0, 1]:
        _compare(name, "reduce", a, axis=axis, initial=3.0)
        _compare(name, "reduce", a.T, axis=axis, initial=-2.5)
        _compare(name, "reduce", a, axis=axis, where=mask, initial=3.0)
        _compare(name, "reduce", a, axis=axis, where=mask)   # from the identity


@pytest.mark.parametrize("name", REORDERABLE + ONE_AXIS)
def test_accumulate_examples(name):
    a = np.full((3, 40), 100, np.uint8) if name != "power" else np.full((3, 10), 1.1, np.float16)
    for axis in [0, 1]:
        _compare(name, "accumulate", a, axis=axis)
        _compare(name, "accumulate", a.T, axis=axis)


def reduce_all(a):
    return np.logaddexp.reduce(a, axis=None)


def reduce_columns(a):
    return np.hypot.reduce(a, axis=0)


def test_jit_reduce_is_numpys():
    """Traced, the steps run in torch (no NumPy call): the same order."""
    a = np.full((2, 4), 128, np.uint8)
    _same(reduce_all(a), npcompile.jit(reduce_all, backend="eager")(a.copy()))
    b = (np.random.default_rng(5).standard_normal((30, 4)) * 50).astype(np.float16)
    _same(reduce_columns(b), npcompile.jit(reduce_columns, backend="eager")(b.copy()))


_DTYPES = st.sampled_from([np.dtype("float16"), np.dtype("uint8"), np.dtype("int8")])


@st.composite
def _cases(draw):
    dt = draw(_DTYPES)
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    if dt == np.float16:
        elements = st.floats(-300, 300, width=16)
    else:
        elements = st.integers(int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    a = draw(hnp.arrays(dt, shape, elements=elements))
    view = draw(st.sampled_from(["c", "t", "flip"]))
    a = a.T if view == "t" else a[..., ::-1] if view == "flip" else a
    return a


@given(name=st.sampled_from(REORDERABLE + ONE_AXIS), a=_cases(), data=st.data())
def test_float16_reduce_and_accumulate_as_numpy(name, a, data):
    """Bit for bit: NumPy's order reproduced, every step rounded to float16."""
    assume(getattr(np, name).resolve_dtypes((a.dtype, a.dtype, None))[2] == np.float16)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    _compare(name, "reduce", a, axis=axis)
    _compare(name, "accumulate", a, axis=axis)
    if name in REORDERABLE:
        many = data.draw(st.one_of(st.none(), st.lists(st.integers(0, a.ndim - 1), unique=True,
                                                        min_size=1).map(tuple)), label="axes")
        _compare(name, "reduce", a, axis=many)
        _compare(name, "reduce", a, axis=many, initial=data.draw(st.sampled_from([-1.5, 0.0, 7.25])))
