"""``ufunc.resolve_dtypes`` answers NumPy 2's loop dtypes (NEP 50: the Python types int,
float and complex stand for weak Python scalars), with NumPy's errors; under 'equiv' with
a Python type, where NumPy itself crashes, the input casting error a call raises."""
import numpy as np
import pytest

import npcompile
import torch_numpy_shim as tnp

F2, F4, F8, I1, I2, I8, U1, U8, C8, B = (np.dtype(c) for c in ("f2", "f4", "f8", "i1", "i2", "i8",
                                                              "u1", "u8", "c8", "?"))
CASES = [
    ("add", (F4, float, None), {}),
    ("add", (I2, int, None), {}),
    ("add", (U8, int, None), {}),
    ("add", (I1, float, None), {}),
    ("add", (F2, complex, None), {}),
    ("add", (B, int, None), {}),
    ("add", (int, float, None), {}),
    ("add", (I8, U8, None), {}),
    ("multiply", (F4, F8, None), {}),
    ("true_divide", (I2, I2, None), {}),
    ("floor_divide", (U1, int, None), {}),
    ("power", (F4, int, None), {}),
    ("sqrt", (int, None), {}),
    ("negative", (C8, None), {}),
    ("divmod", (np.dtype("i4"), float, None, None), {}),
    ("less", (U8, int, None), {}),
    ("add", (I1, int, None), {"signature": (None, None, F8)}),
    ("add", (None, F4, None), {"reduction": True}),
    ("maximum", (F4, float, F2), {"casting": "same_kind"}),
    ("add", (F8, F8, F4), {"casting": "safe"}),
    ("add", (C8, F4, F4), {"casting": "same_kind"}),
    ("add", (F4, None), {}),
    ("add", [F4, F4, None], {}),
    ("add", (np.float32, F4, None), {}),
    ("add", (F4, F4, None), {"casting": "equiv"}),
    ("add", (F4, F8, None), {"casting": "equiv"}),
    ("add", (F4, F4, F4), {"reduction": True}),
]


def _answer(ufunc, dtypes, kwargs):
    try:
        return tuple(np.dtype(str(d)) for d in ufunc.resolve_dtypes(dtypes, **kwargs))
    except Exception as e:   # noqa: BLE001 - the class and message are compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name, dtypes, kwargs", CASES, ids=str)
def test_as_numpy(name, dtypes, kwargs):
    expected = _answer(getattr(np, name), dtypes, kwargs)
    got = _answer(getattr(tnp, name), dtypes, kwargs)
    assert got == expected


def test_shim_dtypes_in_and_out():
    got = tnp.add.resolve_dtypes((tnp.dtype("float32"), float, None), signature=(None, None, tnp.float64))
    assert all(isinstance(d, tnp.dtype) for d in got)
    assert [str(d) for d in got] == ["float64"] * 3


def test_equiv_with_a_python_type_raises_as_a_call():
    """NumPy 2.4 crashes here (SIGSEGV); np.add(f4 array, 1.0, casting='equiv') raises."""
    with pytest.raises(np._core._exceptions._UFuncInputCastingError, match="input 1 from dtype.'float64'"):
        tnp.add.resolve_dtypes((tnp.dtype("float32"), float, None), casting="equiv")


def test_under_jit():
    def loop_dtypes(a):
        return np.add.resolve_dtypes((a.dtype, float, None))[2] == np.float32

    jitted = npcompile.jit(loop_dtypes, backend="eager")
    assert jitted(np.ones(3, np.float32)) == loop_dtypes(np.ones(3, np.float32))
    assert jitted(np.ones(3)) == loop_dtypes(np.ones(3))
