"""Complex division with a real operand against NumPy, bit for bit: a real divisor takes
the short form of Smith's algorithm (``_ufunc_kernels.divide_by_real``), which must give
NumPy's parts exactly, signed zeros, infinities and division by zero included; a real
dividend and complex divisors keep the full algorithm. NaN parts are compared as NaN (the
sign and payload of a NaN are not part of NumPy's results: they depend on the machine's
operand order)."""
import numpy
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.fx.experimental.proxy_tensor import make_fx

import torch_numpy_shim as shim

_INT_OF = {numpy.dtype(numpy.float64): numpy.int64, numpy.dtype(numpy.float32): numpy.int32}

#: zeros, normal and subnormal magnitudes, values whose reciprocal overflows or
#: underflows, infinities and NaN
SPECIAL_PARTS = {
    numpy.float64: [0.0, -0.0, 1.0, -2.5, 3.0, 5e-324, -1e-310, 2.2e-308, 1e300, -1.7e308,
                    numpy.inf, -numpy.inf, numpy.nan],
    numpy.float32: [0.0, -0.0, 1.0, -2.5, 3.0, 1.4e-45, -1e-40, 1.2e-38, 1e30, -3.4e38,
                    numpy.inf, -numpy.inf, numpy.nan],
}
COMPLEX_OF = {numpy.float64: numpy.complex128, numpy.float32: numpy.complex64}


def special_reals(dtype):
    return numpy.array(SPECIAL_PARTS[dtype], dtype)


def special_complexes(dtype):
    """Every (real, imag) pair of special parts, built without arithmetic (1j * inf is
    nan + infj)."""
    parts = special_reals(dtype)
    z = numpy.empty((len(parts), len(parts)), COMPLEX_OF[dtype])
    z.real, z.imag = parts[:, None], parts[None, :]
    return z.reshape(-1)


def _parts(x):
    x = numpy.asarray(x)
    return [x.real, x.imag] if x.dtype.kind == "c" else [x]


def assert_bits(expected, actual):
    """Same type, dtype and shape; each part NaN where NumPy's is, else equal bit for bit."""
    actual = shim.to_numpy(actual)
    assert type(actual) is type(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    for want, got in zip(_parts(expected), _parts(actual)):
        nan = numpy.isnan(want)
        numpy.testing.assert_array_equal(numpy.isnan(got), nan)
        bits = _INT_OF[want.dtype]
        differ = (numpy.ascontiguousarray(want).view(bits) != numpy.ascontiguousarray(got).view(bits)) & ~nan
        assert not differ.any(), (f"{differ.sum()} parts differ, e.g. {want[differ][:4]} "
                                  f"!= {got[differ][:4]}")


def divide_both(a, b, **kwargs):
    """NumPy's and the shim's ``a / b`` on separate copies (errors ignored: the warnings
    are the FP-report tests' business)."""
    with numpy.errstate(all="ignore"):
        expected = numpy.divide(a, b, **kwargs)
        actual = shim.divide(*(shim.asarray(x) if isinstance(x, numpy.ndarray) else x for x in (a, b)))
    return expected, actual


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32], ids=["c128", "c64"])
def test_complex_by_real_array_special_values(dtype):
    a, b = special_complexes(dtype)[:, None], special_reals(dtype)[None, :]
    assert_bits(*divide_both(a, b))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32], ids=["c128", "c64"])
def test_real_by_complex_array_special_values(dtype):
    """A real dividend is cast to complex (imaginary part +0) and takes the full route."""
    a, b = special_reals(dtype)[:, None], special_complexes(dtype)[None, :]
    assert_bits(*divide_both(a, b))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32], ids=["c128", "c64"])
def test_complex_by_complex_with_zero_imaginary_parts(dtype):
    """A complex divisor with imaginary part +0 or -0 is not a real: -0 flips the sign of
    ``rat``, so both keep the full route."""
    a = special_complexes(dtype)[:, None]
    for imag in (0.0, -0.0):
        b = numpy.empty(len(SPECIAL_PARTS[dtype]), COMPLEX_OF[dtype])
        b.real, b.imag = special_reals(dtype), imag
        assert_bits(*divide_both(a, b[None, :]))


@pytest.mark.parametrize("divisor", [3, -7, 0, True, False, 2.5, 0.0, -0.0, 1e-310, 1e308,
                                     float("inf"), -float("inf"), float("nan"),
                                     numpy.float32(-2.5), numpy.float64(0.0), numpy.int16(-3),
                                     numpy.uint64(2 ** 63)])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32], ids=["c128", "c64"])
def test_complex_by_real_scalars(dtype, divisor):
    """Python scalars (weak: a complex64 array stays complex64) and NumPy scalars."""
    assert_bits(*divide_both(special_complexes(dtype), divisor))


@pytest.mark.parametrize("dividend, divisor", [
    (numpy.complex64, numpy.float64), (numpy.complex128, numpy.float32),
    (numpy.complex64, numpy.int64), (numpy.complex128, numpy.uint8), (numpy.complex64, numpy.bool_)])
def test_mixed_dtypes_promote_as_numpy(dividend, divisor):
    a = special_complexes(numpy.float32 if dividend == numpy.complex64 else numpy.float64)[:, None]
    b = numpy.array([0, 1, 3, 200, -7], numpy.int64)
    b = b.astype(divisor) if numpy.dtype(divisor).kind != "f" else numpy.append(
        b.astype(divisor), special_reals(numpy.dtype(divisor).type))
    assert_bits(*divide_both(a, b[None, :]))


def test_complex_scalar_by_real_scalar_and_zero_dim_arrays():
    for a in (numpy.complex128(complex(-0.0, numpy.inf)), numpy.array(complex(1.0, -0.0), numpy.complex64)):
        for b in (numpy.array(-0.0), numpy.float32(4.0), 2):
            assert_bits(*divide_both(a, b))


def test_out_and_where_and_in_place_division():
    a = special_complexes(numpy.float64)
    b = numpy.resize(special_reals(numpy.float64), a.shape)
    mask = numpy.arange(a.size) % 3 != 0
    expected_out, actual_out = a.copy(), shim.asarray(a.copy())
    with numpy.errstate(all="ignore"):
        numpy.divide(a, b, out=expected_out, where=mask)
        shim.divide(shim.asarray(a), shim.asarray(b), out=actual_out, where=shim.asarray(mask))
        expected_in_place, actual_in_place = a.copy(), shim.asarray(a.copy())
        expected_in_place /= 7
        actual_in_place /= 7
    assert_bits(expected_out, actual_out)
    assert_bits(expected_in_place, actual_in_place)


def _finite_or_special(width):
    return st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from([numpy.float64, numpy.float32]))
def test_random_arrays_complex_by_real_and_real_by_complex(data, dtype):
    width = numpy.dtype(dtype).itemsize * 8
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=5))
    real, imag, divisor = (data.draw(hnp.arrays(dtype, shape, elements=_finite_or_special(width)))
                           for _ in range(3))
    z = numpy.empty(shape, COMPLEX_OF[dtype])
    z.real, z.imag = real, imag
    assert_bits(*divide_both(z, divisor))
    assert_bits(*divide_both(divisor, z))


aten = torch.ops.aten
#: views between complex values and their parts, casts and constants: not arithmetic
_BOOKKEEPING = {aten.view_as_real.default, aten.select.int, aten.stack.default,
                aten.view_as_complex.default, aten._to_copy.default, aten.zeros.default}


def _traced_ops(fn, *arrays):
    """The arithmetic aten ops (call targets) of ``fn`` traced on shim arrays."""
    def traced(*tensors):
        return fn(*(shim.ndarray._wrap(t) for t in tensors))._t
    gm = make_fx(traced)(*(torch.from_numpy(x) for x in arrays))
    return [n.target for n in gm.graph.nodes if n.op == "call_function" and n.target not in _BOOKKEEPING]


def test_a_real_divisor_takes_the_short_form():
    """The short form compares no magnitudes (Smith's ``|br| >= |bi|`` branch) and is
    well under half of the full algorithm's ops."""
    a, b = special_complexes(numpy.float64)[:13], special_reals(numpy.float64)
    short = _traced_ops(lambda x, y: x / y, a, b)
    full = _traced_ops(lambda x, y: x / y, a, b.astype(numpy.complex128))
    assert aten.ge.Tensor not in short and aten.ge.Tensor in full
    assert 2 * len(short) < len(full), (len(short), len(full))
