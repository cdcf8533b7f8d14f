"""A reduction's or scan's ``dtype=`` casts its input as NumPy's does, with NumPy's
reports (checked against NumPy: category, message, order, FloatingPointError, values):
NaN/inf to an integer loop is invalid, a float too large for a narrower loop
overflows, reported 'in reduce' (sum, prod, mean, var, std, add.reduce) or 'in cast'
(cumsum, cumprod, add.accumulate); a complex input to a real loop warns ComplexWarning
whatever the error state, also from compiled code."""
import warnings

import numpy
import pytest

import npcompile
import torch_numpy_shim as shim
from tests.shim.test_fp_warnings import check_reports

NAN, INF = numpy.nan, numpy.inf
INPUTS = {   # (values, dtype=)
    "nan->int64": ([NAN, 1.0], numpy.int64),
    "inf->int32": ([INF, 1.0], numpy.int32),
    "big->float32": ([1e300, 1e300], numpy.float32),
    "mixed->float32": ([1e300, -1e300], numpy.float32),
    "big->float16": ([1e300, -1e300], numpy.float16),
    "int->float16": ([2**62, 1], numpy.float16),
    "complex->float64": ([1 + 2j, 3 + 4j], numpy.float64),
    "complex->int64": ([1 + 2j, 3 + 4j], numpy.int64),
    "complex->bool": ([1 + 2j, 0j], numpy.bool_),
    "empty complex->float64": (numpy.zeros(0, complex), numpy.float64),
}
FUNCTIONS = {
    "sum": lambda xp, a, dt: xp.sum(a, dtype=dt),
    "prod": lambda xp, a, dt: xp.prod(a, dtype=dt),
    "mean": lambda xp, a, dt: xp.mean(a, dtype=dt),
    "var": lambda xp, a, dt: xp.var(a, dtype=dt),
    "std": lambda xp, a, dt: xp.std(a, dtype=dt),
    "nansum": lambda xp, a, dt: xp.nansum(a, dtype=dt),
    "cumsum": lambda xp, a, dt: xp.cumsum(a, dtype=dt),
    "cumprod": lambda xp, a, dt: xp.cumprod(a, dtype=dt),
    "add.reduce": lambda xp, a, dt: xp.add.reduce(a, dtype=dt),
    "multiply.reduce": lambda xp, a, dt: xp.multiply.reduce(a, dtype=dt, initial=2),
    "add.accumulate": lambda xp, a, dt: xp.add.accumulate(a, dtype=dt),
    "multiply.accumulate": lambda xp, a, dt: xp.multiply.accumulate(a, dtype=dt),
    "sum where": lambda xp, a, dt: xp.sum(a, dtype=dt, where=xp.asarray(numpy.arange(a.size) % 2 == 1)),
    "sum initial": lambda xp, a, dt: xp.sum(a, dtype=dt, initial=5),
}
MODES = [{}, {"all": "raise"}, {"invalid": "raise", "over": "ignore"}, {"all": "ignore"}]


@pytest.mark.parametrize("modes", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")
@pytest.mark.parametrize("key", INPUTS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_dtype_cast_reports_as_numpy(name, key, modes):
    values, dt = INPUTS[key]
    source = numpy.array(values)
    check_reports(lambda xp: FUNCTIONS[name](xp, xp.asarray(source), dt), modes)


def test_integer_std_scalar_reports_sqrt_and_cast():
    """std in an integer dtype: NumPy's scalar ``int64(sqrt(var))`` reports the sqrt's
    invalid value and then the cast's."""
    check_reports(lambda xp: xp.std(xp.asarray(numpy.array([NAN])), dtype=numpy.int64))


def _complex_sum(a):
    return shim.sum(a, dtype=shim.float64)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_complex_to_real_loop_warns_under_jit_every_call(backend):
    f = npcompile.jit(_complex_sum, backend=backend)
    a = numpy.array([1 + 2j, 3 + 4j])
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = f(a)
        assert float(r) == 4.0
        numpy_warnings = [(w.category, str(w.message)) for w in caught   # not the compiler's own
                          if issubclass(w.category, (RuntimeWarning, numpy.exceptions.ComplexWarning))]
        assert numpy_warnings == [
            (numpy.exceptions.ComplexWarning, "Casting complex values to real discards the imaginary part")]
