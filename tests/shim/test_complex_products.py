"""Complex multiply and square as NumPy's array loop computes them on an FMA CPU
(re = fma(a, c, -(b*d)), im = fma(a, d, b*c), the same at every position of contiguous
or forward-strided data): where a part overflows or underflows the result has NumPy's kind (-inf, not
the NaN of inf - inf; the sign of a zero), checked against NumPy. Ordinary values may
still differ from NumPy's fused rounding in the last bit (not compared here)."""
import numpy
import pytest

import npcompile
import torch_numpy_shim as shim

CASES = [   # (x, y), each a case where torch's plain product differs from NumPy's in kind
    (7.788609894847252e+231 - 3.468508715437041e+241j, 4.186692714580397e+207 + 3.653210604332941e+262j),
    (1.1628883913201367e+173 + 1.7672166058731186e+173j, 9.70237240688506e+220 - 2.904325774366143e+203j),
    (6.080111476379324e+301 + 7.929988089191624e+281j, -1.9331487245192417e+200 + 2.1128939964162693e+153j),
    (1e200 + 1e250j, 1e200 + 1e150j),
    (1e300 + 1e300j, 1e300 - 1e300j),
    (complex(1e300, numpy.inf), 1e300 + 1j),
    (complex(1e-300, 0.0), complex(-1e-300, -1e-300)),
    (complex(-1e-200, 1e-200), complex(1e-200, 1e-200)),
    (1 + 2j, 3 - 4j),
]


def _signature(z):
    """Each part's value and sign, NaN-aware, as strings (-0.0 != 0.0 here)."""
    return [repr(float(v)) for v in (z.real, z.imag)]


def _check(expected, actual):
    actual = shim.to_numpy(actual)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    for e, a in zip(expected.ravel(), actual.ravel()):
        assert _signature(a) == _signature(e)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_multiply_and_square_near_overflow_as_numpy(dtype):
    scale = 1.0 if dtype == "complex128" else 1e-270   # complex64: the same shapes of case
    x = numpy.array([c[0] for c in CASES]) * scale
    y = numpy.array([c[1] for c in CASES]) * scale
    x, y = x.astype(dtype), y.astype(dtype)
    with numpy.errstate(all="ignore"):
        for xs, ys in ((x, y), (x[1:], y[1:]), (x[::2], y[::2])):   # (NumPy's reversed views: no FMA)
            _check(numpy.multiply(xs, ys), shim.multiply(shim.asarray(xs), shim.asarray(ys)))
            _check(numpy.square(xs), shim.square(shim.asarray(xs)))
            _check(xs * xs, shim.asarray(xs) * shim.asarray(xs))


def test_complex64_underflow_keeps_the_products_sign():
    x = numpy.array([2.51e-43 + 0j, -1.1516982e-34 + 9.622168e-22j], numpy.complex64)
    y = numpy.array([-7.5155693e-10 - 5.9297662e-12j, 3.0819585e-33j], numpy.complex64)
    with numpy.errstate(all="ignore"):
        _check(numpy.multiply(x, y), shim.multiply(shim.asarray(x), shim.asarray(y)))


def _square(z):
    return shim.square(z)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_complex_square_near_overflow_under_jit_is_numpys_plain_loop(backend):
    """Compiled code multiplies as NumPy's scalars do (np.complex128 * np.complex128: no
    FMA), not as its array loop: one of NumPy's own answers, without a repair in every
    graph (it made the suite's mandelbrot 12x slower)."""
    f = npcompile.jit(_square, backend=backend)
    x = numpy.array([c[0] for c in CASES])
    with numpy.errstate(all="ignore"):
        _check(numpy.array([v * v for v in x]), f(x))
