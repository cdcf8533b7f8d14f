"""Reductions and accumulations against NumPy: every function over every dtype, with
axes (None, int, negative, tuple), keepdims, dtype=, out=, where=, initial=, 0-D and
empty shapes, and NaN/inf/-0.0. Float values are drawn from a small set whose sums and
products are exact, so results must match NumPy's (pairwise) summation to rounding;
accuracy on arbitrary floats is tested separately with a magnitude-scaled tolerance."""
import math
import warnings

import numpy
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.fx.experimental.proxy_tensor import make_fx

import torch_numpy_shim as shim
from tests.oracle import SUPPORTED_DTYPES, _tolerance, check, finite_arrays, shapes

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning",
                                        "ignore::UserWarning")

EXACT_FLOATS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0]
SPECIAL_FLOATS = [math.nan, math.inf, -math.inf]
NONNEGATIVE_FLOATS = [0.0, 0.5, 1.0, 2.0, 3.0]


# ---- strategies ----------------------------------------------------------------------------
def exact_elements(dtype, specials=True, small_ints=False, nonnegative=False):
    """Values whose sums/products are exact in every float dtype; integers span the
    whole range (wrap-around must match) unless ``small_ints``."""
    dtype = numpy.dtype(dtype)
    floats = NONNEGATIVE_FLOATS if nonnegative else EXACT_FLOATS + (SPECIAL_FLOATS if specials else [])
    if dtype.kind == "f":
        return st.sampled_from(floats)
    if dtype.kind == "c":
        return st.builds(complex, st.sampled_from(floats), st.sampled_from(floats))
    if dtype.kind == "b":
        return st.booleans()
    info = numpy.iinfo(dtype)
    if nonnegative:
        return st.integers(0, 3)
    if small_ints:
        return st.integers(max(info.min, -100), min(info.max, 100))
    return hnp.from_dtype(dtype)


@st.composite
def arrays(draw, kinds="biufc", min_dims=0, **element_options):
    dtype = draw(st.sampled_from([d for d in SUPPORTED_DTYPES if d.kind in kinds]))
    shape = draw(shapes(min_dims=min_dims))
    return draw(hnp.arrays(dtype, shape, elements=exact_elements(dtype, **element_options)))


def axes(ndim):
    """None, one int (negative too; 0-D arrays get 0/-1) or a tuple of distinct axes."""
    one = st.integers(-max(ndim, 1), max(ndim, 1) - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).flatmap(
        lambda chosen: st.tuples(*[st.sampled_from([a, a - ndim]) for a in chosen])) if ndim else st.just(())
    return st.one_of(st.none(), one, several)


def single_axis(ndim):
    return st.one_of(st.none(), st.integers(-max(ndim, 1), max(ndim, 1) - 1))


def masks(shape):
    return hnp.broadcastable_shapes(shape, min_dims=0, min_side=0).flatmap(
        lambda s: hnp.arrays(numpy.bool_, s))


def same_kind_dtypes(dtype):
    """dtype= choices NumPy casts the input to without an unsafe cast."""
    return st.sampled_from([None] + [d for d in SUPPORTED_DTYPES if numpy.can_cast(dtype, d, "same_kind")])


def quiet(fn):
    """NumPy warns for empty means, all-NaN slices, ddof >= n; the values are compared."""
    def run(xp, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(xp, *args)
    return run


def assume_fits(out, call, a):
    """Casting a float outside an integer ``out``'s range is undefined behaviour in C,
    on which NumPy and torch need not agree: keep results in range."""
    if out.dtype.kind in "biu":
        try:
            result = numpy.abs(numpy_result(call, a))
        except Exception:  # noqa: BLE001 - then both must raise, which check() verifies
            return
        assume(numpy.all(result <= 100))


def numpy_result(call, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(numpy, a)


def out_array(call, a, dtype):
    """A zeroed ``out=`` of the shape NumPy's result has (0-D when NumPy raises)."""
    try:
        shape = numpy.shape(numpy_result(call, a))
    except Exception:  # noqa: BLE001 - the shim must raise the same, which check() verifies
        shape = ()
    return numpy.zeros(shape, dtype)


def assume_order_independent(name, a, dtype, call, *args):
    """Skip inputs whose float result depends on the order of the operations, which
    NumPy and torch do not share (see the _reductions docstring): complex products that
    meet inf/NaN or overflow, float16 products that overflow, and integers summed in a
    float dtype too narrow to hold every partial sum exactly."""
    loop = numpy.dtype(dtype) if dtype is not None else a.dtype
    product = "prod" in name
    magnitudes = numpy.abs(a.astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64))
    if product and loop.kind == "c":
        assume(numpy.isfinite(a).all())
        try:
            assume(numpy.isfinite(call(numpy, a, *args)).all())
        except Exception:  # noqa: BLE001 - then both must raise, which check() verifies
            pass
    if product and (loop == numpy.float16 or (loop.kind in "fc" and a.dtype.kind in "iu")):
        finite = magnitudes[(magnitudes != 0) & numpy.isfinite(magnitudes)]
        assume(numpy.prod(finite) <= numpy.finfo(loop).max)
    if not product and loop.kind in "fc" and a.dtype.kind in "iu":
        assume(magnitudes.sum() <= 2.0 ** (numpy.finfo(loop).nmant + 1))


# ---- sum, prod and their nan-variants -----------------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "prod", "nansum", "nanprod"])
@given(data=st.data(), a=arrays())
def test_sum_prod(name, data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    dtype = data.draw(same_kind_dtypes(a.dtype))
    initial = data.draw(st.sampled_from([None, 0, 1, 2]))
    where = data.draw(st.one_of(st.just(True), masks(a.shape)))
    call = quiet(lambda xp, a, where: getattr(xp, name)(a, axis=axis, dtype=dtype, keepdims=keepdims,
                                                         initial=initial, where=where))
    assume_order_independent(name, a, dtype, call, where)
    check(call, a, where)


@pytest.mark.parametrize("name", ["sum", "prod"])
@given(a=arrays("f", specials=False))
def test_sum_prod_cast_float_input_to_int_dtype(name, a):
    for dtype in ("int8", "uint8", "int64", "bool", "float16"):
        check(lambda xp, a: getattr(xp, name)(a, axis=-1 if a.ndim else None, dtype=dtype), a)


@pytest.mark.parametrize("name", ["sum", "prod", "nansum", "nanprod"])
@given(data=st.data(), a=arrays(nonnegative=True, min_dims=1))
def test_sum_prod_out(name, data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    out_dtype = data.draw(st.sampled_from(SUPPORTED_DTYPES))
    out = out_array(lambda xp, a: getattr(xp, name)(a, axis=axis, keepdims=keepdims), a, out_dtype)
    assume_fits(out, lambda xp, a: getattr(xp, name)(a, axis=axis, keepdims=keepdims), a)
    check(lambda xp, a, out: getattr(xp, name)(a, axis=axis, keepdims=keepdims, out=out), a, out)


# ---- mean, var, std and their nan-variants -------------------------------------------------
def _statistic(name, axis, keepdims, dtype, ddof, where):
    kwargs = dict(axis=axis, keepdims=keepdims, dtype=dtype)
    if "mean" not in name:
        kwargs["ddof"] = ddof
    if where is not None:
        kwargs["where"] = where
    return quiet(lambda xp, a: getattr(xp, name)(a, **kwargs))


def _statistic_tolerance(dtype):
    """Means divide, so rounding differs with summation order: compare to a tolerance
    scaled by the values' magnitude (at most 3, so variances at most 9)."""
    return 16 * _tolerance("float16" if dtype == numpy.float16 else
                           "float32" if dtype in (numpy.float32, numpy.complex64) else "float64")


@pytest.mark.parametrize("name", ["mean", "var", "std", "nanmean", "nanvar", "nanstd"])
@given(data=st.data(), a=arrays(small_ints=True))
def test_mean_var_std(name, data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    inexact = [d for d in SUPPORTED_DTYPES if d.kind in "fc" and numpy.can_cast(a.dtype, d, "same_kind")]
    dtype = data.draw(st.sampled_from([None] + inexact))
    ddof = data.draw(st.sampled_from([0, 1, 2, 0.5]))
    where = data.draw(st.one_of(st.none(), masks(a.shape)))
    check(_statistic(name, axis, keepdims, dtype, ddof, where), a, atol=_statistic_tolerance(a.dtype))


@pytest.mark.parametrize("name", ["mean", "var", "std", "nanmean", "nanvar", "nanstd"])
@given(data=st.data(), a=arrays(nonnegative=True, min_dims=1))
def test_mean_var_std_out(name, data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    out_dtype = data.draw(st.sampled_from(SUPPORTED_DTYPES))
    out = out_array(lambda xp, a: getattr(xp, name)(a, axis=axis, keepdims=keepdims), a, out_dtype)
    check(quiet(lambda xp, a, out: getattr(xp, name)(a, axis=axis, keepdims=keepdims, out=out)), a, out,
          atol=max(_statistic_tolerance(a.dtype), _statistic_tolerance(out_dtype)))


@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@given(data=st.data(), a=arrays("fc", specials=False, min_dims=1))
def test_var_std_with_mean_and_correction(name, data, a):
    axis = data.draw(axes(a.ndim).filter(lambda ax: ax is not None and ax != ()))
    correction = data.draw(st.sampled_from([0, 1, 1.5]))
    center = numpy.mean(a, axis=axis, keepdims=True)
    check(quiet(lambda xp, a, center: getattr(xp, name)(a, axis=axis, mean=center, correction=correction)),
          a, center, atol=_statistic_tolerance(a.dtype))


@pytest.mark.parametrize("name", ["mean", "var", "std"])
@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "uint8"])
@given(data=st.data())
def test_integer_dtype_statistics(name, dtype, data):
    """dtype=int makes NumPy sum with wrap-around and truncate the quotients, and std of
    an integral array result is a TypeError from sqrt's output cast."""
    a = data.draw(hnp.arrays("int16", shapes(min_dims=1), elements=st.integers(-300, 300)))
    axis = data.draw(single_axis(a.ndim))
    check(quiet(lambda xp, a: getattr(xp, name)(a, axis=axis, dtype=dtype)), a)


# ---- min, max, ptp -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["max", "min", "amax", "amin", "nanmax", "nanmin"])
@given(data=st.data(), a=arrays())
def test_min_max(name, data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    initial = data.draw(st.sampled_from([None, 0, 1, -1]) if a.dtype.kind != "u" else st.sampled_from([None, 0, 1]))
    where = data.draw(st.one_of(st.just(True), masks(a.shape)))
    check(quiet(lambda xp, a, where: getattr(xp, name)(a, axis=axis, keepdims=keepdims, initial=initial,
                                                        where=where)), a, where)


@pytest.mark.parametrize("name", ["max", "min", "nanmax", "nanmin", "ptp"])
@given(data=st.data(), a=arrays(nonnegative=True, min_dims=1))
def test_min_max_ptp_out(name, data, a):
    axis = data.draw(axes(a.ndim))
    out_dtype = data.draw(st.sampled_from(SUPPORTED_DTYPES))
    out = out_array(lambda xp, a: getattr(xp, name)(a, axis=axis), a, out_dtype)
    check(lambda xp, a, out: getattr(xp, name)(a, axis=axis, out=out), a, out)


@given(data=st.data(), a=arrays())
def test_ptp(data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    check(quiet(lambda xp, a: xp.ptp(a, axis=axis, keepdims=keepdims)), a)


# ---- argmin, argmax and their nan-variants ---------------------------------------------------
@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
@given(data=st.data(), a=arrays())
def test_arg_extremes(name, data, a):
    axis = data.draw(single_axis(a.ndim))
    keepdims = data.draw(st.booleans())
    check(lambda xp, a: getattr(xp, name)(a, axis=axis, keepdims=keepdims), a)


@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
@given(data=st.data(), a=arrays(min_dims=1))
def test_arg_extremes_out(name, data, a):
    axis = data.draw(single_axis(a.ndim))
    keepdims = data.draw(st.booleans())
    out_dtype = data.draw(st.sampled_from(["int64", "int32", "float64"]))
    out = out_array(lambda xp, a: getattr(xp, name)(a, axis=axis, keepdims=keepdims), a, out_dtype)
    check(lambda xp, a, out: getattr(xp, name)(a, axis=axis, keepdims=keepdims, out=out), a, out)


# ---- cumulative sums and products -------------------------------------------------------------
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@given(data=st.data(), a=arrays())
def test_cumsum_cumprod(name, data, a):
    axis = data.draw(single_axis(a.ndim))
    dtype = data.draw(same_kind_dtypes(a.dtype))
    call = quiet(lambda xp, a: getattr(xp, name)(a, axis=axis, dtype=dtype))
    assume_order_independent(name, a, dtype, call)
    check(call, a)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@given(data=st.data(), a=arrays())
def test_cumulative(name, data, a):
    axis = data.draw(st.one_of(single_axis(a.ndim), single_axis(a.ndim).map(lambda ax: (ax,))))
    dtype = data.draw(same_kind_dtypes(a.dtype))
    include_initial = data.draw(st.booleans())
    call = quiet(lambda xp, a: getattr(xp, name)(a, axis=axis, dtype=dtype, include_initial=include_initial))
    assume_order_independent(name, a, dtype, call)
    check(call, a)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum"])
@given(data=st.data(), a=arrays(nonnegative=True, min_dims=1))
def test_cumulative_out(name, data, a):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    out_dtype = data.draw(st.sampled_from(SUPPORTED_DTYPES))
    out = out_array(lambda xp, a: getattr(xp, name)(a, axis=axis), a, out_dtype)
    assume_fits(out, lambda xp, a: getattr(xp, name)(a, axis=axis), a)
    check(lambda xp, a, out: getattr(xp, name)(a, axis=axis, out=out), a, out)


# ---- any, all, count_nonzero ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["any", "all"])
@given(data=st.data(), a=arrays())
def test_any_all(name, data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    where = data.draw(st.one_of(st.just(True), masks(a.shape)))
    check(lambda xp, a, where: getattr(xp, name)(a, axis=axis, keepdims=keepdims, where=where), a, where)


@pytest.mark.parametrize("name", ["any", "all"])
@given(data=st.data(), a=arrays(min_dims=1))
def test_any_all_out(name, data, a):
    axis = data.draw(axes(a.ndim))
    out_dtype = data.draw(st.sampled_from(SUPPORTED_DTYPES))
    out = out_array(lambda xp, a: getattr(xp, name)(a, axis=axis), a, out_dtype)
    check(lambda xp, a, out: getattr(xp, name)(a, axis=axis, out=out), a, out)


@given(data=st.data(), a=arrays())
def test_count_nonzero(data, a):
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    check(lambda xp, a: xp.count_nonzero(a, axis=axis, keepdims=keepdims), a)


# ---- accuracy on arbitrary finite floats -------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "cumsum", "nansum", "nanmean", "nanstd"])
@given(data=st.data(), dtype=st.sampled_from([d for d in SUPPORTED_DTYPES if d.kind in "fc"]))
def test_accuracy_on_arbitrary_floats(name, data, dtype):
    """NumPy sums pairwise, torch in blocks: equal up to rounding, which scales with the
    magnitude of the values and the number of terms."""
    bound = 100.0 if dtype == numpy.float16 else 1e3
    a = data.draw(finite_arrays(dtype, shapes(min_dims=1), bound=bound))
    axis = data.draw(single_axis(a.ndim))
    scale = bound * bound if name in ("var", "std", "nanstd") else bound
    atol = 4 * a.size * scale * numpy.finfo(dtype).eps
    check(quiet(lambda xp, a: getattr(xp, name)(a, axis=axis)), a, atol=atol)


# ---- method forms -----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda a: a.sum(axis=0), lambda a: a.sum(0, None, None, True), lambda a: a.prod(axis=(0, 1)),
    lambda a: a.max(), lambda a: a.min(axis=1, keepdims=True), lambda a: a.argmax(keepdims=True),
    lambda a: a.argmin(axis=-1), lambda a: a.cumsum(), lambda a: a.cumprod(axis=1),
    lambda a: a.mean(axis=0), lambda a: a.std(ddof=1), lambda a: a.var(1, None, None, 1),
    lambda a: a.any(axis=0), lambda a: a.all(), lambda a: a.max(initial=10.0, where=numpy.True_),
])
@pytest.mark.parametrize("dtype", ["float64", "int8", "uint32", "complex64", "bool"])
def test_method_forms(call, dtype):
    a = (numpy.arange(12).reshape(3, 4) % 5).astype(dtype)
    check(lambda xp, a: call(a), a)


# ---- NumPy's edge cases, one by one ----------------------------------------------------------
NAN, INF = math.nan, math.inf
EDGE_CASES = {
    "max of empty": (lambda xp, a: xp.max(a), numpy.zeros(0)),
    "min of empty along reduced axis": (lambda xp, a: xp.min(a, axis=0), numpy.zeros((0, 3))),
    "max of empty along kept axis": (lambda xp, a: xp.max(a, axis=1), numpy.zeros((0, 3))),
    "max of empty with initial": (lambda xp, a: xp.max(a, axis=0, initial=1.5), numpy.zeros((0, 3))),
    "argmax of empty": (lambda xp, a: xp.argmax(a), numpy.zeros((2, 0))),
    "argmin of empty along kept axis": (lambda xp, a: xp.argmin(a, axis=0), numpy.zeros((2, 0))),
    "sum of empty": (lambda xp, a: xp.sum(a), numpy.zeros((0, 2), numpy.int8)),
    "prod of empty": (lambda xp, a: xp.prod(a, axis=0), numpy.zeros((0, 2), numpy.uint16)),
    "mean of empty": (lambda xp, a: xp.mean(a), numpy.zeros(0)),
    "mean of empty along axis": (lambda xp, a: xp.mean(a, axis=0), numpy.zeros((0, 2), numpy.int32)),
    "var of empty": (lambda xp, a: xp.var(a), numpy.zeros(0, numpy.float32)),
    "nanmin all nan": (lambda xp, a: xp.nanmin(a), numpy.array([NAN, NAN])),
    "nanmax all nan row": (lambda xp, a: xp.nanmax(a, axis=1), numpy.array([[NAN, NAN], [1.0, NAN]])),
    "nanargmin all nan": (lambda xp, a: xp.nanargmin(a), numpy.array([NAN, NAN])),
    "nanargmax all nan row": (lambda xp, a: xp.nanargmax(a, axis=1), numpy.array([[NAN, 1.0], [NAN, NAN]])),
    "nanargmin of empty": (lambda xp, a: xp.nanargmin(a), numpy.zeros(0)),
    "nanmean all nan": (lambda xp, a: xp.nanmean(a), numpy.array([NAN, NAN], numpy.float32)),
    "nanvar ddof too big": (lambda xp, a: xp.nanvar(a, ddof=2), numpy.array([1.0, NAN, 2.0])),
    "var ddof too big": (lambda xp, a: xp.var(a, ddof=3), numpy.array([1.0, 2.0])),
    "argmax first nan": (lambda xp, a: xp.argmax(a), numpy.array([1.0, NAN, INF, NAN])),
    "argmin first nan": (lambda xp, a: xp.argmin(a), numpy.array([-INF, 1.0, NAN, NAN])),
    "max propagates nan": (lambda xp, a: xp.max(a, axis=0), numpy.array([[1.0, NAN], [NAN, 2.0]])),
    "complex max lexicographic": (lambda xp, a: xp.max(a), numpy.array([1 + 5j, 2 + 0j, 2 - 1j, 1 + 9j])),
    "complex argmin lexicographic": (lambda xp, a: xp.argmin(a), numpy.array([1 + 5j, 2 + 0j, 1 - 1j, 1 - 1j])),
    "complex max nan imaginary": (lambda xp, a: xp.argmax(a), numpy.array([1 + 5j, complex(0, NAN), 9 + 0j])),
    "complex nanmin skips nan": (lambda xp, a: xp.nanmin(a), numpy.array([complex(NAN, 0), 1 + 0j, complex(-1, NAN)])),
    "complex nanargmin": (lambda xp, a: xp.nanargmin(a), numpy.array([2 + 1j, 1 + 3j, complex(1, NAN)])),
    "complex nanargmax ties with -inf": (lambda xp, a: xp.nanargmax(a), numpy.array([complex(NAN, 1), complex(-INF, -1)])),
    "complex std is real": (lambda xp, a: xp.std(a), numpy.array([1 + 1j, 2 + 0j], numpy.complex64)),
    "complex var with complex dtype": (lambda xp, a: xp.var(a, dtype=numpy.complex128), numpy.array([1 + 1j, 2j])),
    "uint64 sum wraps": (lambda xp, a: xp.sum(a), numpy.array([2**64 - 1, 2], numpy.uint64)),
    "uint64 max": (lambda xp, a: xp.max(a), numpy.array([2**63, 2**64 - 1, 5], numpy.uint64)),
    "uint64 argmin": (lambda xp, a: xp.argmin(a), numpy.array([2**63, 2**64 - 1, 5, 2**63 - 1], numpy.uint64)),
    "uint64 ptp": (lambda xp, a: xp.ptp(a), numpy.array([2**64 - 1, 0], numpy.uint64)),
    "uint64 mean": (lambda xp, a: xp.mean(a), numpy.array([2**64 - 1, 2**63], numpy.uint64)),
    "uint64 cumprod wraps": (lambda xp, a: xp.cumprod(a), numpy.array([2**40, 2**40, 3], numpy.uint64)),
    "uint32 prod": (lambda xp, a: xp.prod(a), numpy.array([2**31, 3, 5], numpy.uint32)),
    "int8 cumsum widens": (lambda xp, a: xp.cumsum(a), numpy.array([100, 100, 100], numpy.int8)),
    "int8 sum with int8 dtype wraps": (lambda xp, a: xp.sum(a, dtype=numpy.int8), numpy.array([100, 100], numpy.int8)),
    "bool sum with bool dtype": (lambda xp, a: xp.sum(a, dtype=bool), numpy.array([1, -1], numpy.int8)),
    "bool prod": (lambda xp, a: xp.prod(a), numpy.array([True, False])),
    "int64 sum wraps": (lambda xp, a: xp.sum(a), numpy.array([2**62, 2**62, 2**62], numpy.int64)),
    "int64 sum into float out": (lambda xp, a, out: xp.sum(a, out=out), numpy.array([2**62] * 3), numpy.zeros(())),
    "float16 mean": (lambda xp, a: xp.mean(a), numpy.array([60000, 60000, -60000], numpy.float16)),
    "float16 mean keepdims": (lambda xp, a: xp.mean(a, keepdims=True), numpy.array([1, 2], numpy.float16)),
    "float32 sum into float64 out": (lambda xp, a, out: xp.sum(a, out=out),
                                     numpy.array([0.1] * 10 + [1e7, 1, -1e7], numpy.float32), numpy.zeros(())),
    "float sum into int out": (lambda xp, a, out: xp.sum(a, axis=0, out=out), numpy.array([[0.5, 1.5], [0.5, 2.5]]),
                               numpy.zeros(2, int)),
    "float sum into bool out": (lambda xp, a, out: xp.sum(a, out=out), numpy.array([0.5, -0.5]), numpy.zeros((), bool)),
    "float cumsum into int out": (lambda xp, a, out: xp.cumsum(a, out=out), numpy.array([0.5, 1.5, 2.5]),
                                  numpy.zeros(3, int)),
    "mean into int out": (lambda xp, a, out: xp.mean(a, out=out), numpy.arange(6.0), numpy.zeros((), int)),
    "std into int out": (lambda xp, a, out: xp.std(a, out=out), numpy.arange(6.0), numpy.zeros((), int)),
    "ptp into int out": (lambda xp, a, out: xp.ptp(a, out=out), numpy.arange(6.0), numpy.zeros((), int)),
    "ptp uint8 into int8 out": (lambda xp, a, out: xp.ptp(a, out=out), numpy.array([1, 5], numpy.uint8),
                                numpy.zeros((), numpy.int8)),
    "cumulative_sum include_initial into out": (
        lambda xp, a, out: xp.cumulative_sum(a, axis=1, dtype=numpy.int8, out=out, include_initial=True),
        numpy.ones((2, 3)), numpy.zeros((2, 4))),
    "cumulative_sum include_initial tuple axis": (
        lambda xp, a: xp.cumulative_sum(a, axis=(0,), include_initial=True), numpy.ones(3)),
    "ptp of bool": (lambda xp, a: xp.ptp(a), numpy.array([True, False])),
    "ptp uint8 wraps": (lambda xp, a: xp.ptp(a), numpy.array([0, 255], numpy.uint8)),
    "sum initial cast": (lambda xp, a: xp.sum(a, initial=2.5), numpy.array([1, 2], numpy.int8)),
    "sum initial widened": (lambda xp, a: xp.sum(a, initial=1000), numpy.array([1, 2], numpy.int8)),
    "min initial out of range": (lambda xp, a: xp.min(a, initial=1000), numpy.array([1, 2], numpy.int8)),
    "prod initial too big": (lambda xp, a: xp.prod(a, initial=2**63), numpy.array([1, 2], numpy.int8)),
    "min initial nan": (lambda xp, a: xp.min(a, initial=NAN), numpy.array([1.0, 2.0])),
    "nanmin initial with where": (lambda xp, a: xp.nanmin(a, initial=10, where=numpy.array([False, True])),
                                  numpy.array([1.0, NAN])),
    "sum where False": (lambda xp, a: xp.sum(a, where=False), numpy.arange(6.0)),
    "mean where all masked": (lambda xp, a: xp.mean(a, where=numpy.zeros(3, bool)), numpy.arange(3.0)),
    "0-D sum axis 0": (lambda xp, a: xp.sum(a, axis=0), numpy.array(3.0)),
    "0-D max axis -1 keepdims": (lambda xp, a: xp.max(a, axis=-1, keepdims=True), numpy.array(3.0)),
    "0-D sum keepdims is scalar": (lambda xp, a: xp.sum(a, keepdims=True), numpy.array(3.0)),
    "0-D argmax keepdims": (lambda xp, a: xp.argmax(a, keepdims=True), numpy.array(3.0)),
    "0-D cumsum": (lambda xp, a: xp.cumsum(a, axis=-1), numpy.array(3, numpy.int8)),
    "0-D cumulative_sum": (lambda xp, a: xp.cumulative_sum(a, include_initial=True), numpy.array(3.0)),
    "0-D mean axis 0": (lambda xp, a: xp.mean(a, axis=0), numpy.array(3.0)),
    "0-D nanmean axis 0": (lambda xp, a: xp.nanmean(a, axis=0), numpy.array(3.0)),
    "axis () keeps everything": (lambda xp, a: xp.sum(a, axis=()), numpy.ones((2, 3), numpy.int8)),
    "count_nonzero axis ()": (lambda xp, a: xp.count_nonzero(a, axis=()), numpy.arange(6.0).reshape(2, 3)),
    "empty cumulative_prod include_initial": (lambda xp, a: xp.cumulative_prod(a, include_initial=True),
                                              numpy.array([], numpy.int8)),
    "any of nan": (lambda xp, a: xp.all(a), numpy.array([NAN])),
    "any into int out": (lambda xp, a, out: xp.any(a, out=out), numpy.array([0.5, 0]), numpy.zeros((), numpy.int8)),
    "argmax into int32 out": (lambda xp, a, out: xp.argmax(a, axis=0, out=out), numpy.array([[0.5, 0.0], [1.0, -1.0]]),
                              numpy.zeros(2, numpy.int32)),
    "mean of ints with int8 dtype": (lambda xp, a: xp.mean(a, dtype=numpy.int8), numpy.array([100, 100, 101], numpy.int8)),
    "std of ints with int8 dtype scalar": (lambda xp, a: xp.std(a, dtype=numpy.int8), numpy.array([1, 9], numpy.int8)),
    "var with broadcast mean": (lambda xp, a: xp.var(a, mean=numpy.mean(a, axis=0), axis=0), numpy.arange(6.0).reshape(2, 3)),
    "var mean python float": (lambda xp, a: xp.var(a, mean=1.5), numpy.array([1, 2], numpy.float32)),
    "nanvar float16 with float32 dtype": (lambda xp, a: xp.nanvar(a, dtype=numpy.float32),
                                          numpy.array([1, NAN, 4], numpy.float16)),
    "nancumsum": (lambda xp, a: xp.nancumsum(a), numpy.array([[NAN, 1.0], [2.0, NAN]])),
    "nanprod int8 dtype": (lambda xp, a: xp.nanprod(a, dtype=numpy.int8), numpy.array([NAN, 3.0])),
    "nansum complex": (lambda xp, a: xp.nansum(a), numpy.array([2 + 1j, 1 + 3j, complex(1, NAN)])),
    "list input": (lambda xp, a: xp.sum([[1, 2], [3, 4]], axis=1), numpy.zeros(0)),
}


@pytest.mark.parametrize("case", list(EDGE_CASES), ids=list(EDGE_CASES))
def test_edge_cases(case):
    fn, *args = EDGE_CASES[case]
    check(quiet(fn), *args)


# ---- bad input: NumPy's exception classes -----------------------------------------------------
BAD_INPUT = {
    "axis out of bounds": lambda xp, a: xp.sum(a, axis=2),
    "negative axis out of bounds": lambda xp, a: xp.max(a, axis=-3),
    "axis in tuple out of bounds": lambda xp, a: xp.mean(a, axis=(0, 5)),
    "repeated axis": lambda xp, a: xp.sum(a, axis=(0, 0)),
    "repeated axis negative": lambda xp, a: xp.any(a, axis=(1, -1)),
    "float axis": lambda xp, a: xp.sum(a, axis=1.0),
    "argmax tuple axis": lambda xp, a: xp.argmax(a, axis=(0,)),
    "cumsum tuple axis": lambda xp, a: xp.cumsum(a, axis=(0,)),
    "cumsum axis out of bounds": lambda xp, a: xp.cumsum(a, axis=2),
    "cumulative_sum needs axis": lambda xp, a: xp.cumulative_sum(a),
    "cumulative_sum several axes": lambda xp, a: xp.cumulative_sum(a, axis=(0, 1)),
    "max where without initial": lambda xp, a: xp.max(a, where=numpy.ones(3, bool)),
    "nanmin where without initial": lambda xp, a: xp.nanmin(a, where=numpy.ones(3, bool)),
    "where not bool": lambda xp, a: xp.sum(a, where=numpy.array([1, 0, 1])),
    "where wrong shape": lambda xp, a: xp.sum(a, where=numpy.array([True, False])),
    "keepdims None": lambda xp, a: xp.sum(a, keepdims=None),
    "ddof and correction": lambda xp, a: xp.var(a, ddof=1, correction=1),
    "nanmean int dtype": lambda xp, a: xp.nanmean(a, dtype=int),
    "nanvar int out": lambda xp, a: xp.nanvar(a, out=numpy.empty((), int)),
    "out wrong ndim": lambda xp, a: xp.sum(a, out=xp.zeros(2)),
    "out wrong shape": lambda xp, a: xp.sum(a, axis=0, out=xp.zeros(2)),
    "out keepdims wrong ndim": lambda xp, a: xp.sum(a, axis=0, keepdims=True, out=xp.zeros(3)),
    "mean out wrong shape": lambda xp, a: xp.mean(a, axis=0, out=xp.zeros(2)),
    "out not an array": lambda xp, a: xp.sum(a, out=[1.0]),
    "argmax out float": lambda xp, a: xp.argmax(a, axis=0, out=xp.zeros(3)),
    "argmax out wrong shape": lambda xp, a: xp.argmax(a, axis=0, out=xp.zeros((1, 3), int)),
    "cumsum out wrong size": lambda xp, a: xp.cumsum(a, out=xp.zeros(7)),
    "cumsum out wrong shape": lambda xp, a: xp.cumsum(a, axis=0, out=xp.zeros((3, 2))),
    "std int array out of sqrt": lambda xp, a: xp.std(a, axis=1, dtype=numpy.int8),
    "var mean not broadcastable": lambda xp, a: xp.var(a, mean=numpy.ones(2)),
    "nanargmax all-nan column": lambda xp, a: xp.nanargmax(a * numpy.nan if xp is numpy else
                                                           xp.asarray(numpy.full((2, 3), numpy.nan)), axis=0),
}


@pytest.mark.parametrize("case", list(BAD_INPUT), ids=list(BAD_INPUT))
def test_bad_input(case):
    a = numpy.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception):
            BAD_INPUT[case](numpy, a)
    check(quiet(BAD_INPUT[case]), a)


def test_results_do_not_alias_input():
    a = shim.asarray(numpy.arange(6.0).reshape(2, 3))
    for result in (shim.sum(a, axis=()), shim.max(a, axis=()), shim.cumsum(a, axis=1), shim.prod(a, axis=()),
                   shim.mean(a, axis=()), shim.nansum(a, axis=())):
        result._t.fill_(-7.0)
    assert (a._t >= 0).all()


TRACED = {
    "sum": lambda xp, a: xp.sum(a, axis=0), "prod": lambda xp, a: xp.prod(a, axis=(0, 1)),
    "mean": lambda xp, a: xp.mean(a), "std": lambda xp, a: xp.std(a, axis=1, ddof=1),
    "nanvar": lambda xp, a: xp.nanvar(a, axis=0), "max": lambda xp, a: xp.max(a, axis=(0, 1)),
    "nanmin": lambda xp, a: xp.nanmin(a, axis=1), "argmax": lambda xp, a: xp.argmax(a, axis=1),
    "ptp": lambda xp, a: xp.ptp(a, axis=0), "cumsum": lambda xp, a: xp.cumsum(a),
    "any": lambda xp, a: xp.any(a, axis=1), "count_nonzero": lambda xp, a: xp.count_nonzero(a),
    "min initial where": lambda xp, a: xp.min(a, initial=0, where=xp.asarray(numpy.array([True, False, True]))),
}


@pytest.mark.parametrize("name", list(TRACED))
@pytest.mark.parametrize("dtype", ["float32", "complex64", "int8", "uint32", "uint64"])
def test_traces_with_symbolic_shapes(name, dtype):
    """No data-dependent Python: each reduction traces under make_fx with symbolic
    shapes, and the graph recomputes the eager result."""
    def on_tensor(t):
        return TRACED[name](shim, shim.ndarray._wrap(t))._t
    x = shim.asarray((numpy.arange(6).reshape(2, 3) % 4).astype(dtype))._t
    graph = make_fx(on_tensor, tracing_mode="symbolic")(x)
    with shim._boundary.as_inside():   # eager, as the trace sees the shim: scalars as 0-D arrays
        assert torch.equal(graph(x), on_tensor(x))
