"""Review2: np.add.reduce / np.multiply.reduce with a float16 loop are not
NumPy's bit for bit, although np.sum / np.prod of the same data now are (_half_scan):
ufunc.reduce goes through _ufunc_kernels.fast_reduce (float32 accumulation, one rounding)
instead of _half_scan.reduce."""
import numpy as np
import pytest

import npcompile
import torch_numpy_shim as snp


def _bits(x):
    return np.asarray(x).view(np.uint16)


def _data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((300, 3)) * 3 + 1.1).astype(np.float16)


@pytest.mark.parametrize("name", ["add", "multiply"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_shim_ufunc_reduce_float16_is_numpys(name, axis):
    a = _data() if name == "add" else (_data() / 64 + 1).astype(np.float16)
    expected = getattr(np, name).reduce(a, axis=axis)
    got = snp.to_numpy(getattr(snp, name).reduce(snp.asarray(a), axis=axis))
    assert type(got) is type(expected) and got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(_bits(got), _bits(expected))


def test_shim_ufunc_reduce_agrees_with_np_sum():
    a = np.full((300, 3), 1.1, np.float16)
    assert np.add.reduce(a, axis=0)[0] == np.sum(a, axis=0)[0] == 327.0
    assert float(snp.add.reduce(snp.asarray(a), axis=0)[0]) == 327.0   # shim: 330.0


def test_shim_ufunc_reduce_float16_where_and_dtype():
    a = np.full((3, 1000), 1.1, np.float32)
    m = np.arange(1000) % 3 == 0
    expected = np.add.reduce(a, axis=1, dtype=np.float16, where=m)
    got = snp.to_numpy(snp.add.reduce(snp.asarray(a), axis=1, dtype=np.float16, where=snp.asarray(m)))
    assert np.array_equal(_bits(got), _bits(expected))


def add_reduce_columns(a):
    return np.add.reduce(a, axis=0)


def test_jit_ufunc_reduce_float16_is_numpys():
    a = _data()
    expected = add_reduce_columns(a)
    got = npcompile.jit(add_reduce_columns, backend="eager")(a.copy())
    assert np.array_equal(_bits(got), _bits(expected))
