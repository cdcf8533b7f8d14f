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
