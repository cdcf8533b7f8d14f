"""float64 -> float16 casts round once, as NumPy's do (torch rounds through float32)."""
import numpy
import pytest

import torch_numpy_shim as np

_EDGES = [1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -11 - 2 ** -40, 65520.0, 65520 - 2 ** -30, 65519.99, -(65520 - 2 ** -30),
          2 ** -25, 2 ** -25 + 2 ** -60, 2 ** -24 * 1.5, 2 ** -26, -1e-8, 0.0, -0.0, numpy.nan, numpy.inf, -numpy.inf,
          3e38, 1e300, -1e300, 5e-324, 26471.9999, 9.98675801e-05]


def _bits_equal(expected, actual):
    expected, actual = numpy.asarray(expected), numpy.asarray(actual)
    both_nan = numpy.isnan(expected) & numpy.isnan(actual)
    return bool(numpy.all((expected.view(numpy.uint16) == actual.view(numpy.uint16)) | both_nan))


def _double_values(seed):
    rng = numpy.random.default_rng(seed)
    wide = rng.standard_normal(20000) * numpy.exp(rng.uniform(-20, 12, 20000))
    halves = rng.integers(0, 2 ** 16, 20000).astype(numpy.uint16).view(numpy.float16).astype(numpy.float64)
    with numpy.errstate(all="ignore"):
        nudged = halves + rng.choice([0.0, 1.0, -1.0], 20000) * 2.0 ** rng.integers(-40, -9, 20000)
    return numpy.concatenate([wide, nudged, _EDGES])


@pytest.mark.parametrize("seed", [0, 1])
def test_astype_float16_rounds_once(seed):
    values = _double_values(seed)
    with numpy.errstate(all="ignore"):
        expected = values.astype(numpy.float16)
        actual = np.asarray(values).astype(np.float16)
    assert _bits_equal(expected, numpy.asarray(actual))


def test_edges_one_by_one_and_through_asarray_dtype():
    for value in _EDGES:
        with numpy.errstate(all="ignore"):
            expected = numpy.array([value]).astype(numpy.float16)
            actual = np.asarray(np.array([value]), dtype=np.float16)
        assert _bits_equal(expected, numpy.asarray(actual)), value


def test_complex128_to_float16_takes_the_real_part_rounded_once():
    z = numpy.array([complex(1 + 2 ** -11 + 2 ** -40, 3.0)])
    with numpy.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = z.astype(numpy.float16)
            actual = np.asarray(z).astype(np.float16)
    assert _bits_equal(expected, numpy.asarray(actual))


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_under_jit(backend):
    import npcompile

    values = _double_values(2)
    with numpy.errstate(all="ignore"):
        expected = values.astype(numpy.float16)
        actual = npcompile.jit(lambda x: x.astype(numpy.float16), backend=backend)(values)
    assert _bits_equal(expected, actual)
