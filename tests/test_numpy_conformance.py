"""NumPy's own test files against the shim (benchmarks/numpy_conformance.py), kept small
enough for CI: the harness itself (real NumPy through it passes everything), a floor on
the shim's pass rate over a small file, and one regression per gap the runner found,
each checked against NumPy."""
import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import torch_numpy_shim as shim
from benchmarks import numpy_conformance as conformance
from tests.oracle import check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _run(tmp_path, fname, impl, **kw):
    jl = tmp_path / f"{impl}.jsonl"
    conformance.run_file(conformance.resolve(fname), impl, jl, timeout=20, **kw)
    return conformance.summarize(conformance.read_records(jl))


# ---- the runner ------------------------------------------------------------------------------
def test_harness_passes_real_numpy(tmp_path):
    """Real NumPy through the same rebinding passes its own tests: a failure of the
    shim under the runner is the shim's, not the harness's."""
    s = _run(tmp_path, "lib/test_ufunclike.py", "numpy")
    assert s["ran"] > 0 and s["passed"] == s["ran"], s


def test_shim_pass_rate_floor(tmp_path):
    s = _run(tmp_path, "lib/test_ufunclike.py", "shim")
    assert s["ran"] >= 5 and s["rate"] >= 0.8, s


def test_load_binds_failed_statements_to_placeholders(tmp_path):
    """A module-level line the implementation cannot evaluate loses only its own names,
    and a name the implementation lacks fails as 'missing' when a test uses it."""
    path = tmp_path / "a" / "tests" / "test_x.py"
    path.parent.mkdir(parents=True)
    path.write_text("import numpy as np\nfrom numpy import add, sctypes\nBAD = np.dtype('U3').itemsize\n"
                    "GOOD = np.arange(3)\n")
    module, errors = conformance.load_test_module(path, conformance._Impl("shim"))
    assert isinstance(module.GOOD, shim.ndarray) and module.add is shim.add
    assert [e["names"] for e in errors] == [["BAD"]]
    with pytest.raises(conformance.MissingName):
        module.sctypes()
    with pytest.raises(conformance.MissingName):
        module.np.sctypes


def test_comparing_asserts_take_array_likes_built_with_the_shim():
    """A test's class whose ``__array__`` returns ``np.arange(3)`` (the shim's, the module
    under test) compares as that array (NumPy's assert alone would refuse it:
    'object __array__ method not producing an array'); other objects are left to it."""
    class Built:
        def __array__(self, dtype=None, copy=None):
            return shim.arange(3)

    class NotAnArray:
        def __array__(self, dtype=None, copy=None):
            return 5

    convert = conformance._Impl("shim").convert
    numpy.testing.assert_array_equal(convert(Built()), numpy.arange(3))
    assert type(convert(Built())) is numpy.ndarray
    odd = NotAnArray()
    assert convert(odd) is odd


# ---- the gaps the runner found (issue 13, item 17) ----------------------------------------
def test_bool_scalars():
    for name in ("True_", "False_"):
        value = getattr(shim, name)
        assert shim.to_numpy(value) is getattr(numpy, name)
        assert isinstance(value, shim.bool_) and isinstance(value, shim.generic)
    check(lambda xp: (xp.True_ & xp.False_, xp.True_ + xp.True_, xp.logical_not(xp.False_)))


REDUCTIONS = ["any", "all", "sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "ptp",
              "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "median", "nanmedian"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_out(name, axis, keepdims):
    """``out=`` with every axis (None included): the result is ``out`` itself, as in NumPy."""
    def f(xp):
        a = xp.arange(24.0).reshape((2, 3, 4))
        result = getattr(xp, name)(a, axis=axis, keepdims=keepdims)
        out = xp.empty_like(xp.asarray(result))
        returned = getattr(xp, name)(a, axis=axis, keepdims=keepdims, out=out)
        return returned is out, out, result
    check(f)


@pytest.mark.parametrize("name", ["any", "all", "sum", "mean", "std", "var", "min", "max", "argmin", "argmax"])
def test_reduction_method_out_scalar(name):
    """``a.sum(out=out)`` with out built from the scalar result (torch._numpy's port's pattern)."""
    def f(xp):
        a = xp.arange(24).reshape((2, 3, 4))
        out = xp.empty_like(getattr(a, name)())
        return getattr(a, name)(None, out=out) is out, out
    check(f)


@pytest.mark.parametrize("fn", ["corrcoef", "cov"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics_dtype_is_a_dtype(fn, dtype):
    def f(xp):
        r = getattr(xp, fn)(xp.asarray([[1.0, 2.0, 4.0], [2.0, 1.0, 0.5]]), dtype=getattr(xp, dtype))
        return r, isinstance(r.dtype, xp.dtype), r.dtype == getattr(xp, dtype)
    check(f)


UNARY = [n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and getattr(numpy, n).nin == 1
         and isinstance(getattr(shim, n, None), shim.ufunc)]


@given(st.sampled_from(UNARY), st.sampled_from([2.5, 3, True, -1.5 + 2j, "f4", "i1", "u2", "b1", "c8", "f8-array"]))
def test_unary_ufunc_result_dtype_is_a_dtype(name, value):
    """The ``.dtype`` of a unary ufunc's result is a ``np.dtype`` (never a scalar type)
    and NumPy's, for Python scalars, NumPy scalars and arrays."""
    def f(xp):
        if value == "f8-array":
            x = xp.asarray([0.5, 2.0])
        elif isinstance(value, str):
            x = xp.dtype(value).type(1)
        else:
            x = value
        results = getattr(xp, name)(x)
        results = results if isinstance(results, tuple) else (results,)
        return [(r, isinstance(xp.asarray(r).dtype, xp.dtype)) for r in results]
    check(f)


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("axis", [(), (0,), (0, 1), [0], 1.0])
def test_arg_reductions_refuse_tuple_axes_as_numpy(name, axis):
    """NumPy raises TypeError for a tuple (or float) axis: the same class, never a crash inside."""
    check(lambda xp: getattr(xp, name)(xp.ones((2, 3)), axis=axis))
    check(lambda xp: getattr(xp.ones((2, 3)), name)(axis=axis))


@pytest.mark.parametrize("spelling", ["longdouble", "clongdouble", "g", "G", "float128"])
def test_long_double_is_refused(spelling):
    """torch has no long double: the shim refuses it (UnsupportedError), never computes in
    float64 and calls it long double."""
    dt = getattr(numpy, spelling, None) or numpy.dtype(spelling)
    with pytest.raises(shim.UnsupportedError):
        shim.asarray(numpy.ones(2, dtype=dt))
    with pytest.raises(shim.UnsupportedError):
        shim.zeros(2, dtype=dt)
    with pytest.raises(shim.UnsupportedError):
        shim.ones(2).astype(dt)


def test_flags_compare_as_numpy():
    """``a.flags == b.flags`` (NumPy's clip tests compare results this way)."""
    def f(xp):
        a = xp.zeros((2, 3))
        views = (a.copy(), xp.ones((2, 3)), a.T, a[:, 1:], a.reshape(6), a[0], xp.zeros((3, 2)).T.copy())
        return [a.flags == x.flags for x in views] + [a.flags != a.T.flags]
    check(f)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64", "complex64", "bool", "uint8"])
@pytest.mark.parametrize("count", [-1, 0, 3, 24, 30])
def test_fromiter(dtype, count):
    """Reads at most ``count`` items (no more from the iterator), too few is NumPy's ValueError."""
    def f(xp):
        it = iter([x * x % 7 for x in range(24)])
        return xp.fromiter(it, getattr(xp, dtype), count), next(it, "end")
    check(f)


def test_fromiter_item_errors_as_numpy():
    check(lambda xp: xp.fromiter([1, None, 3], dtype=int))
    check(lambda xp: xp.fromiter((x / 2 for x in range(5)), dtype=xp.float32))
    check(lambda xp: xp.fromiter([], dtype="d"))
    check(lambda xp: xp.fromiter([shim.float64(1.5)] if xp is shim else [numpy.float64(1.5)], dtype="f"))


def test_dtype_metadata_is_refused():
    """NumPy's dtype(..., metadata=) has nowhere to live in the shim's singleton dtypes: a refusal,
    not a TypeError about the signature (a metadata that is not a dict is NumPy's TypeError)."""
    with pytest.raises(shim.UnsupportedError):
        shim.dtype("f8", metadata={1: 1})
    check(lambda xp: xp.dtype("i4", metadata=None))
    check(lambda xp: xp.dtype("i4", False, False))


def _views(xp):
    a = xp.arange(24.0).reshape((4, 6))
    b = xp.arange(12, dtype=xp.int32)
    return {"a": a, "a.T": a.T, "a[::2]": a[::2], "a[1::2]": a[1::2], "a[:, ::2]": a[:, ::2],
            "a[:, 1::2]": a[:, 1::2], "a[0]": a[0], "a[1]": a[1], "a[1:3, 2:4]": a[1:3, 2:4],
            "a[2:, 3:]": a[2:, 3:], "a[::-1]": a[::-1], "a[:0]": a[:0], "copy": a.copy(), "b": b,
            "b[::3]": b[::3], "b[1::3]": b[1::3], "b.reshape": b.reshape((3, 4)), "a[0, 0]": a[0, 0],
            "list": [1.0, 2.0], "a[::-1][1:3]": a[::-1][1:3], "flip1": xp.flip(a, 1), "a[::-1].T": a[::-1].T,
            "rot90": xp.rot90(a), "a[:, ::-2]": a[:, ::-2], "b[::-1][::2]": b[::-1][::2]}


@pytest.mark.parametrize("fn", ["shares_memory", "may_share_memory"])
def test_shares_memory_as_numpy(fn):
    """Exact overlap (shares_memory) and bounds overlap (may_share_memory) for every pair of views."""
    def f(xp):
        views = _views(xp)
        return {(i, j): getattr(xp, fn)(x, y) for i, x in views.items() for j, y in views.items()}
    check(f)
    check(lambda xp: xp.may_share_memory(xp.arange(8)[::2], xp.arange(8)[1::2], max_work=-1))


def test_shares_memory_with_wrapped_numpy_array():
    a = numpy.arange(10.0)
    assert shim.shares_memory(shim.asarray(a), a) and shim.shares_memory(a[::2], shim.asarray(a)[2:3])
    assert not shim.shares_memory(shim.asarray(a)[1::2], a[::2])


def test_shares_memory_under_jit_is_answered_per_call():
    """Under npcompile the question is never answered while tracing (it would become a constant
    of the graph): each call gets NumPy's answer for its own inputs."""
    import npcompile
    f = npcompile.jit(lambda a, b: (numpy.shares_memory(a, b), numpy.may_share_memory(a, b)), backend="eager")
    a = numpy.arange(6.0)
    for b in (a[::2], a.copy(), a[::-1], numpy.arange(6.0), a[3:], a):
        assert f(a, b) == (numpy.shares_memory(a, b), numpy.may_share_memory(a, b))


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int8", "uint64", "complex64", "bool"])
def test_scalar_type_equals_its_dtype(name):
    """``np.float32 == np.dtype("f4")`` in both orders (NumPy's corrcoef tests compare
    ``test_type == res.dtype``); abstract types equal no dtype."""
    def f(xp):
        t, d = getattr(xp, name), xp.dtype(name)
        others = [xp.dtype("f8"), xp.dtype("i2")]
        return ([t == d, d == t, t != d, d != t, xp.floating == d, d == xp.number]
                + [t == o for o in others] + [t == numpy.dtype(name), numpy.dtype(name) == t])
    check(f)
    check(lambda xp: getattr(xp, name) == xp.corrcoef(xp.ones((2, 3)).astype(name), dtype=getattr(xp, name)).dtype
          if name in ("float16", "float32", "float64") else True)


@pytest.mark.parametrize("order", ["c", "f", "a", "k", "C", "F", "x", None])
def test_order_letter_in_either_case(order):
    """NumPy reads order='f' as 'F' (its integer-overflow tests pass lowercase letters)."""
    def f(xp):
        a = xp.arange(6).reshape((2, 3))
        return a.reshape((3, 2), order=order), xp.ravel(a.T, order=order), a.flatten(order), a.ravel(order)
    check(f)
    check(lambda xp: (xp.zeros((2, 3), order=order), xp.asarray([[1, 2]], order=order),
                      xp.ones_like(xp.ones((2, 2)), order=order), xp.array([1.0], order=order)))


EQUIV_OPERANDS = [3.0, 4, 2j, "f8", "f4", "i8", "i4", "u1", "b1", "c16"]


@pytest.mark.parametrize("x", EQUIV_OPERANDS)
@pytest.mark.parametrize("y", EQUIV_OPERANDS)
@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64", "complex128"])
@pytest.mark.parametrize("ufunc", ["add", "equal", "multiply", "less", "arctan2"])
def test_equiv_casting_as_numpy(x, y, dtype, ufunc):
    """casting='equiv' answers as NumPy's ufunc call does; NumPy's own resolve_dtypes, which
    the shim asks for the loop, crashes the process (SIGSEGV) when such a cast fails
    (NumPy's test_cast_safety_scalar took the conformance run down)."""
    def f(xp):
        ops = [xp.ones(2, dtype=v) if isinstance(v, str) else v for v in (x, y)]
        return getattr(xp, ufunc)(*ops, dtype=dtype, casting="equiv")
    if ufunc in ("equal", "less") and dtype is None and x == y == 4:   # NumPy's object loop for two Python ints
        with pytest.raises(shim.UnsupportedError):
            f(shim)
        return
    check(f)
