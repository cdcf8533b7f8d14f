"""Debug mode (``import torch_numpy_shim as np``) hands out what NumPy hands out: NumPy
scalars where NumPy returns scalars (exact types, not 0-D shim arrays), the very ``out=``
array passed in, ``r_``/``c_``, and ``round`` as NumPy's. Inside a trace the shim keeps
its 0-D arrays. Every comparison is against real NumPy."""
import copy
import math

import numpy
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.fx.experimental.proxy_tensor import make_fx

import torch_numpy_shim as shim
from tests.oracle import assert_same, check, dtypes, finite_arrays, shapes


def _both(fn, *args):
    """``fn(numpy, *args)`` and ``fn(shim, *args)`` on copies, NumPy arrays given to the
    shim as shim arrays; each side's result or exception."""
    outcomes = []
    for xp in (numpy, shim):
        inputs = copy.deepcopy(list(args))
        if xp is shim:
            inputs = [shim.asarray(a) if isinstance(a, numpy.ndarray) else a for a in inputs]
        try:
            outcomes.append((fn(xp, *inputs), None))
        except Exception as exc:  # noqa: BLE001 - compared with NumPy's
            outcomes.append((None, exc))
    return outcomes


def check_exact(fn, *args, rtol=None, atol=0.0):
    """As ``check``, but the shim's result is compared before any conversion: a NumPy
    scalar must come back as that very NumPy scalar type."""
    (expected, np_exc), (actual, sh_exc) = _both(fn, *args)
    if np_exc is not None:
        assert sh_exc is not None and isinstance(sh_exc, type(np_exc)), (np_exc, sh_exc)
        return
    if sh_exc is not None:
        raise AssertionError(f"the shim raised {sh_exc!r}; NumPy returned {expected!r}") from sh_exc
    _assert_kinds(expected, actual)
    assert_same(expected, shim.to_numpy(actual), rtol, atol)


def sum_error_bound(a):
    """How far a float sum of ``a`` in its dtype may be from NumPy's: any order of n - 1
    rounded additions is within (n - 1) u sum|a_i| of the exact sum (u = eps / 2; NumPy's
    pairwise order is one such), and the shim's float32 sum, accumulated in float64 and
    rounded once, within u |sum| + n 2**-53 sum|a_i|; n eps sum|a_i| bounds both together.
    A relative tolerance cannot: values that cancel leave NumPy's rounding error only."""
    if a.dtype.kind != "f":
        return 0.0
    return float(a.size * numpy.finfo(a.dtype).eps * numpy.abs(a.astype(numpy.float64)).sum())


def prod_error_bound(a):
    """How far a float product of ``a`` may be from NumPy's, whose multiplication order
    (SIMD lanes) differs from torch's: n eps |P| from normal roundings, plus, where a
    partial product is subnormal (gradual underflow: absolute, not relative, rounding),
    up to the smallest subnormal per step times the factors still to come."""
    if a.dtype.kind != "f":
        return 0.0
    info, wide = numpy.finfo(a.dtype), numpy.abs(a.astype(numpy.float64))
    return float(a.size * (info.eps * wide.prod() + info.smallest_subnormal * numpy.maximum(wide, 1).prod()))


_SUMS = ("sum", "add.reduce", "mean")


def _reduction_atol(name, a):
    """The error bound for the sums, products and std in REDUCTIONS (over n for mean), else 0."""
    if name == "prod":
        return prod_error_bound(a)
    if name == "std":
        # the mean's rounding error enters every deviation: a constant array's std is
        # NumPy's rounding error alone (ci-random: twelve 1.897e-96 give NumPy 4.2e-112,
        # the shim 0.0), which no relative tolerance can compare
        return 2 * sum_error_bound(a) / a.size
    return 0.0 if name not in _SUMS else sum_error_bound(a) / (a.size if name == "mean" else 1)


def test_std_of_a_constant_array_is_within_the_means_rounding():
    """ci-random counterexample (HYPOTHESIS_SEED=943988881)."""
    a = numpy.full((3, 4), 1.89721922e-96)
    check_exact(REDUCTIONS["std"], a, atol=_reduction_atol("std", a))
    assert float(shim.to_numpy(shim.asarray(a).std())) <= _reduction_atol("std", a)


def test_float32_product_through_subnormals():
    """ci-random counterexample: 1.4e-45 times 31 factors 1.5, rounded in the subnormal
    range at each step: NumPy 5.02e-40, the shim 4.70e-40 (exact 4.09e-40); both within
    the bound."""
    a = numpy.full((2, 4, 4), 1.5, numpy.float32)
    a[0, 0, 0] = numpy.finfo(numpy.float32).smallest_subnormal
    check_exact(REDUCTIONS["prod"], a, atol=prod_error_bound(a))
    assert abs(float(shim.to_numpy(shim.prod(shim.asarray(a)))) - 2 ** -149 * 1.5 ** 31) <= prod_error_bound(a)


def _assert_kinds(expected, actual):
    """Scalars are the same NumPy type; arrays are shim arrays; containers recurse."""
    if isinstance(expected, numpy.generic):
        assert type(actual) is type(expected), f"{type(actual)} != {type(expected)}"
    elif isinstance(expected, numpy.ndarray):
        assert isinstance(actual, shim.ndarray), type(actual)
    elif isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected) and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            _assert_kinds(e, a)
    else:
        assert type(actual) is type(expected), f"{type(actual)} != {type(expected)}"


# ---- scalars ------------------------------------------------------------------------------
REDUCTIONS = {
    "sum": lambda xp, a: xp.sum(a), "prod": lambda xp, a: a.prod(), "max": lambda xp, a: xp.max(a),
    "mean": lambda xp, a: xp.mean(a), "any": lambda xp, a: a.any(), "argmax": lambda xp, a: xp.argmax(a),
    "std": lambda xp, a: a.std(), "count_nonzero": lambda xp, a: xp.count_nonzero(a),
    "add.reduce": lambda xp, a: xp.add.reduce(a, axis=None), "dot": lambda xp, a: xp.dot(a.ravel(), a.ravel()),
    "element": lambda xp, a: a[(0,) * a.ndim], "flat": lambda xp, a: a.flat[0],
    "item of list": lambda xp, a: list(a.ravel())[0], "ufunc of element": lambda xp, a: xp.sin(a.ravel()[0]),
    "0-d arithmetic": lambda xp, a: xp.asarray(a.ravel()[0]) * 2, "divmod": lambda xp, a: xp.divmod(a.ravel()[0], 3),
    "scalar type": lambda xp, a: xp.dtype(a.dtype).type(a.ravel()[0]), "median": lambda xp, a: xp.median(a),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@settings(max_examples=15)
@given(data=st.data())
def test_scalar_results_are_numpy_scalars(name, data):
    dt = data.draw(dtypes("biuf").filter(lambda d: d != numpy.uint64), label="dtype")  # uint64 divmod: refused
    a = data.draw(finite_arrays(dt, shapes(min_dims=1, min_side=1), bound=50), label="a")
    check_exact(REDUCTIONS[name], a, atol=_reduction_atol(name, a))


@pytest.mark.parametrize("name", _SUMS)
def test_float32_sum_that_cancels(name):
    """Issue 13: 34 float32 values up to 50 whose exact sum is -8.3e-7; NumPy's pairwise
    float32 sum gives 3.8e-6 (its rounding error), the shim's float64 accumulation
    -8.3e-7: beyond any relative tolerance, within NumPy's own error bound (3.7e-3), and
    the shim within half of it from the exact (float64) sum."""
    rng = numpy.random.default_rng(0)
    a = (rng.integers(-50, 50, 33) + rng.random(33)).astype(numpy.float32)
    a = numpy.append(a, -a.sum(dtype=numpy.float64)).astype(numpy.float32).reshape(2, 17)
    bound = _reduction_atol(name, a)
    check_exact(REDUCTIONS[name], a, atol=bound)
    exact = REDUCTIONS[name](numpy, a.astype(numpy.float64))
    assert abs(float(shim.to_numpy(REDUCTIONS[name](shim, shim.asarray(a)))) - exact) <= bound / 2


def _type_facts(xp, r):
    same_type = type(r) == xp.float64  # noqa: E721 - ``type(r) == np.float64`` is one of the questions
    return (isinstance(r, float), isinstance(r, int), isinstance(r, xp.floating), isinstance(r, xp.integer),
            isinstance(r, xp.generic), isinstance(r, xp.ndarray), r.dtype == xp.float64, same_type,
            r.dtype.name, xp.isscalar(r), xp.ndim(r))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "bool", "complex128"])
def test_scalar_answers_type_questions_as_numpy(dtype):
    """``isinstance``, ``dtype``, ``type(r) == np.float64`` asked with the module's own
    names give NumPy's answers (``isinstance(np.sum(a), float)`` for float64)."""
    a = numpy.arange(3).astype(dtype)
    expected = _type_facts(numpy, numpy.sum(a))
    assert _type_facts(shim, shim.sum(shim.asarray(a))) == expected
    assert _type_facts(shim, shim.asarray(a)[1]) == _type_facts(numpy, a[1])


@settings(max_examples=20)
@given(data=st.data())
def test_arithmetic_of_scalars_and_arrays(data):
    """A NumPy scalar result combined with shim arrays gives shim arrays (NumPy's dtype:
    a NumPy scalar promotes as its dtype, not as a weak Python scalar)."""
    dt1, dt2 = data.draw(dtypes("iuf"), label="dt1"), data.draw(dtypes("iuf"), label="dt2")
    a = data.draw(finite_arrays(dt1, shapes(min_dims=1, min_side=1), bound=20), label="a")
    b = data.draw(finite_arrays(dt2, shapes(min_dims=1, max_dims=1, min_side=1), bound=20), label="b")
    check_exact(lambda xp, a, b: a.max() * b, a, b)
    check_exact(lambda xp, a, b: b - xp.sum(a), a, b, rtol=1e-5, atol=sum_error_bound(a))  # float32 sum's last bits
    check_exact(lambda xp, a, b: xp.maximum(a[(0,) * a.ndim], b), a, b)
    check_exact(lambda xp, a, b: xp.min(a) + xp.max(b), a, b)
    check_exact(lambda xp, a, b: b[a.argmax() % b.size], a, b)


def test_shim_calling_itself_keeps_its_zero_d_arrays():
    """Inside the shim (nested public calls) scalars stay 0-D shim arrays: functions
    built from others (var from mean and sum) still give NumPy's answer."""
    a = numpy.array([[1.0, 2.0], [4.0, 8.0]], dtype=numpy.float32)
    for fn in (lambda xp, a: xp.var(a), lambda xp, a: xp.cov(a), lambda xp, a: xp.linalg.norm(a),
               lambda xp, a: xp.linalg.det(a), lambda xp, a: xp.linalg.slogdet(a), lambda xp, a: xp.ptp(a),
               lambda xp, a: xp.trace(a), lambda xp, a: xp.nanmean(a), lambda xp, a: xp.average(a, weights=a)):
        check_exact(fn, a)


def test_scalars_stay_arrays_while_traced():
    """Under make_fx (how npcompile traces the shim) a reduction stays a 0-D shim array
    flagged as a scalar: its value is a fake tensor, with no number to hand out."""
    seen = []

    def traced(t):
        r = shim.sum(shim.ndarray._wrap(t)) * 2
        seen.append((type(r), r._scalar))
        return r._t
    graph = make_fx(traced, tracing_mode="fake")(torch.arange(4.0))
    assert seen == [(shim.ndarray, True)]
    assert graph(torch.arange(4.0)).item() == 12.0


def test_jit_returns_numpy_scalars():
    npcompile = pytest.importorskip("npcompile")
    fn = npcompile.jit(lambda a: (a.sum(), a * a.max(), a[1]), backend="eager")
    a = numpy.arange(4.0)
    result = fn(a)
    assert [type(x) for x in result] == [numpy.float64, numpy.ndarray, numpy.float64]
    assert result[0] == 6.0 and result[2] == 1.0 and numpy.array_equal(result[1], a * 3)


# ---- out= ---------------------------------------------------------------------------------
OUT_CASES = {   # name: (out's shape, the call; it returns what should be out itself)
    "ufunc out=": ((2, 3), lambda xp, a, o: xp.add(a, 1, out=o)),
    "ufunc positional": ((2, 3), lambda xp, a, o: xp.multiply(a, 2, o)),
    "ufunc out tuple": ((2, 3), lambda xp, a, o: xp.negative(a, out=(o,))),
    "two outputs": ((2, 3), lambda xp, a, o: xp.divmod(a, 4, out=(o, None))[0]),
    "reduction": ((3,), lambda xp, a, o: xp.sum(a, axis=0, out=o)),
    "method": ((3,), lambda xp, a, o: a.max(axis=0, out=o)),
    "clip": ((2, 3), lambda xp, a, o: xp.clip(a, 1, 3, out=o)),
    "cumsum positional": ((2, 3), lambda xp, a, o: xp.cumsum(a, 1, None, o)),
    "around positional": ((2, 3), lambda xp, a, o: xp.around(a, 0, o)),
    "ufunc.reduce": ((3,), lambda xp, a, o: xp.add.reduce(a, 0, None, o)),
    "ufunc.accumulate": ((2, 3), lambda xp, a, o: xp.add.accumulate(a, 0, None, o)),
    "matmul": ((2, 3), lambda xp, a, o: xp.matmul(a, xp.ones((3, 3)), out=o)),
    "0-d out": ((), lambda xp, a, o: xp.sum(a, out=o)),
    "0-d ufunc out": ((), lambda xp, a, o: xp.add(a[0, 0], 1, out=o)),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
@pytest.mark.parametrize("kind", ["numpy", "shim"])
def test_out_returns_the_array_passed(name, kind):
    """NumPy returns ``out`` itself; so does the shim, for a NumPy ``out`` (written in
    place, zero-copy) and for a shim one, and ``out`` holds NumPy's values."""
    shape, call = OUT_CASES[name]
    a = numpy.arange(6.0).reshape(2, 3)
    expected_out = numpy.zeros(shape)
    assert call(numpy, a, expected_out) is expected_out
    out = numpy.zeros(shape)
    target = out if kind == "numpy" else shim.asarray(out)
    assert call(shim, shim.asarray(a), target) is target
    numpy.testing.assert_array_equal(out, expected_out)


def test_out_identity_for_whole_arrays():
    """The plain form: ``r is out`` for NumPy and shim outs of ufuncs and reductions."""
    a = shim.arange(6.0).reshape(2, 3)
    for out in (numpy.empty((2, 3)), shim.empty((2, 3))):
        assert shim.add(a, 1, out=out) is out
        assert shim.sqrt(a, out) is out
        assert shim.divmod(a, 2, out=(out, numpy.empty((2, 3))))[0] is out
    for out in (numpy.empty(3), shim.empty(3)):
        assert shim.sum(a, axis=0, out=out) is out
        assert a.mean(axis=0, out=out) is out
        assert shim.add.reduce(a, axis=0, out=out) is out


# ---- round() ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda xp: xp.array(2.5), lambda xp: xp.arange(3.0), lambda xp: xp.array(3),
                                  lambda xp: xp.float64(2.5), lambda xp: xp.sum(xp.arange(4.0)) / 3,
                                  lambda xp: xp.int16(7), lambda xp: xp.array(1 + 2j)])
@pytest.mark.parametrize("ndigits", [None, 0, 1, -1])
def test_round_builtin(make, ndigits):
    """``round(x)``: NumPy's scalars round as Python numbers; arrays, 0-D included,
    raise TypeError (NumPy 2)."""
    check_exact(lambda xp: round(make(xp)) if ndigits is None else round(make(xp), ndigits))


# ---- r_ and c_ ----------------------------------------------------------------------------
R_CASES = [
    lambda xp, a, b: xp.r_[1:4, 0, a],
    lambda xp, a, b: xp.r_[a, b],
    lambda xp, a, b: xp.r_[-1:1:5j, a],
    lambda xp, a, b: xp.r_[0:10:3],
    lambda xp, a, b: xp.r_[2.5, a, 1],
    lambda xp, a, b: xp.r_[a, xp.float32(1.5)],
    lambda xp, a, b: xp.r_[b.astype("int8"), 300],
    lambda xp, a, b: xp.r_[b.astype("int8"), xp.int16(3)],
    lambda xp, a, b: xp.r_["0,2", a, b],
    lambda xp, a, b: xp.r_["1,2", a, b],
    lambda xp, a, b: xp.r_["0,2,0", a, b],
    lambda xp, a, b: xp.r_["1,2,0", a, b],
    lambda xp, a, b: xp.r_["-1,3,1", a, b],
    lambda xp, a, b: xp.r_["0,3,-2", a, 1:4],
    lambda xp, a, b: xp.r_["1", a.reshape(1, 3), b.reshape(1, 3)],
    lambda xp, a, b: xp.r_["-1", a.reshape(3, 1), b.reshape(3, 1)],
    lambda xp, a, b: xp.r_[a.reshape(1, 3), b.reshape(1, 3)],
    lambda xp, a, b: xp.r_["0,2", 1:4],
    lambda xp, a, b: xp.r_[[1, 2], (3.5,), a],
    lambda xp, a, b: xp.r_[True, a > 1],
    lambda xp, a, b: xp.c_[a, b],
    lambda xp, a, b: xp.c_[a, 1:4, b],
    lambda xp, a, b: xp.c_[a.reshape(3, 1), b],
    lambda xp, a, b: xp.c_[xp.array([[1, 2, 3]]), 0, 0, xp.array([[4, 5, 6]])],
    lambda xp, a, b: xp.c_[-1:1:3j, a],
    lambda xp, a, b: xp.c_["0,2", a, b],
    lambda xp, a, b: len(xp.r_) + len(xp.c_),
    # errors
    lambda xp, a, b: xp.r_[a, "0,2"],
    lambda xp, a, b: xp.r_["x,2", a],
    lambda xp, a, b: xp.r_["nonsense", a],
    lambda xp, a, b: xp.r_["0,2", a.reshape(1, 3), b.reshape(3, 1)],
    lambda xp, a, b: xp.r_[a.reshape(1, 3), b],
]


@pytest.mark.parametrize("case", range(len(R_CASES)))
def test_r_and_c(case):
    check(R_CASES[case], numpy.array([1.0, 2.0, 3.0]), numpy.array([4, 5, 6]))


@settings(max_examples=30)
@given(data=st.data())
def test_r_and_c_items(data):
    """Random mixes of arrays (any dtype, 0 to 2 dims), Python and NumPy scalars and
    slices, with and without a directive, as NumPy joins them."""
    item = st.one_of(
        dtypes("biuf").flatmap(lambda d: finite_arrays(d, shapes(max_dims=1, max_side=3), bound=9)),
        st.integers(-5, 5), st.floats(-3, 3), st.booleans(),
        st.builds(lambda s, e: slice(s, e), st.integers(-3, 3), st.integers(-3, 6)),
        st.builds(lambda s, e, n: slice(s, e, complex(0, n)), st.integers(-3, 3), st.integers(-3, 6),
                  st.integers(0, 4)),
        st.sampled_from([numpy.float32(1.5), numpy.int8(-2), numpy.uint16(7), numpy.bool_(True)]))
    items = data.draw(st.lists(item, min_size=1, max_size=4), label="items")
    directive = data.draw(st.sampled_from([None, "0,2", "1,2", "0,2,0", "-1,2,0", "0,3,-1", "1,3,1"]),
                          label="directive")
    which = data.draw(st.sampled_from(["r_", "c_"]), label="which")
    key = tuple(items) if directive is None else (directive, *items)
    arrays = [x for x in key if isinstance(x, numpy.ndarray)]

    def join(xp, *given):
        pool = iter(given)
        return getattr(xp, which)[tuple(next(pool) if isinstance(x, numpy.ndarray) else x for x in key)]
    check(join, *arrays)


@pytest.mark.parametrize("key", ["r", "c"])
def test_r_matrix_directives_are_refused(key):
    """'r'/'c' and a string key make a numpy.matrix, which the shim does not have."""
    with pytest.raises(shim.UnsupportedError):
        shim.r_[key, [1, 2], [3, 4]]
    with pytest.raises(shim.UnsupportedError):
        shim.r_["1 2; 3 4"]


def test_float_results_are_python_floats_for_math():
    """The point of NumPy scalars: plain Python code takes them as numbers."""
    r = shim.mean(shim.arange(5.0))
    assert isinstance(r, float) and math.isclose(math.sqrt(r), math.sqrt(2.0))
    assert f"{r:.2f}" == "2.00" and {r: 1}[2.0] == 1


@pytest.mark.parametrize("case", [
    lambda xp: xp.sum(xp.arange(3.0)).astype(xp.dtype("float32")),
    lambda xp: xp.sum(xp.arange(3.0)).astype(xp.int8),
    lambda xp: numpy.zeros(2, dtype=xp.dtype("int16")).dtype,
    lambda xp: xp.put(xp.float64(1), [0], [5]),
    lambda xp: xp.place(xp.float64(1), [True], [5]),
    lambda xp: xp.zeros(3)[xp.argmax(xp.arange(3))],
    lambda xp: xp.ones(5)[:xp.sum(xp.ones(2, dtype=int))],
    lambda xp: xp.array([xp.mean(xp.ones(2)), xp.float32(1)]),
    lambda xp: xp.full(2, xp.max(xp.arange(3, dtype=xp.int8)), dtype=xp.float32),
    lambda xp: xp.astype(xp.int64(10), xp.float64),
    lambda xp: xp.astype(xp.sum(xp.arange(3, dtype=xp.int8)), xp.float16),
    lambda xp: xp.astype(numpy.arange(3), xp.float32),
    lambda xp: xp.astype([1, 2], xp.float32),
    lambda xp: [xp.can_cast(t(0), "int64") for t in (xp.float64, xp.int8, xp.complex64, xp.uint64)],
    lambda xp: xp.can_cast(xp.mean(xp.ones(2)), xp.float32, casting="same_kind"),
    lambda xp: xp.can_cast(2.0, xp.float32),
])
def test_numpy_scalars_flow_back_in(case):
    """What debug mode hands out (NumPy scalars) is taken back by the shim and by NumPy
    (shim dtypes follow NumPy's dtype protocol) as NumPy takes its own."""
    check_exact(case)


def test_bool_scalars_are_numpy_singletons():
    """``np.True_`` is NumPy's own object, so ``np.any(a) is np.True_`` holds as in NumPy."""
    for xp in (numpy, shim):
        assert xp.any(xp.ones(2)) is xp.True_ and xp.all(xp.zeros(2)) is xp.False_
        assert xp.isposinf(xp.inf) is xp.True_ and type(xp.True_) is numpy.bool_


def test_containers_handed_back_keep_their_identity():
    """Only what needs converting is rebuilt: NumPy's np.diff(x, n=0) returns x itself."""
    x = [0, 1, 2]
    for xp in (numpy, shim):
        assert xp.diff(x, n=0) is x
    check_exact(lambda xp: xp.divmod(xp.arange(3)[1], 2))
    check_exact(lambda xp: xp.linalg.slogdet(xp.eye(2)))


@pytest.mark.parametrize("call", [
    lambda xp, f: xp.apply_along_axis(f, 0, xp.arange(6.0).reshape(2, 3)),
    lambda xp, f: xp.apply_along_axis(func1d=f, axis=1, arr=xp.arange(6.0).reshape(2, 3)),
    lambda xp, f: xp.piecewise(xp.arange(4.0), [xp.arange(4.0) > 1], [f, 0.5]),
    lambda xp, f: xp.fromfunction(lambda i: f(i) + i, (3,)),
])
def test_user_callbacks_see_numpy_scalars(call):
    """Functions that call user code back (apply_along_axis, piecewise, fromfunction)
    run it as user code: its own calls into the module get NumPy scalars."""
    def run(xp):
        seen = []

        def f(v):
            total = xp.sum(v)
            seen.append(type(total))
            return total * xp.ones_like(v) if xp.ndim(v) and v.shape != (3,) and v.shape != (2,) else total
        return call(xp, f), seen
    (np_result, np_seen), (sh_result, sh_seen) = run(numpy), run(shim)
    assert sh_seen == np_seen and np_seen
    assert_same(np_result, shim.to_numpy(sh_result))
