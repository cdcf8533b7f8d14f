"""NumPy is the oracle: run the same code through NumPy and through the shim (or a
jitted function) and compare type, dtype, shape, values and mutated inputs."""
import copy
import math

import numpy
import numpy.testing
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch_numpy_shim as shim

SUPPORTED_DTYPES = [numpy.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")]
INT_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind in "iu"]
FLOAT_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind == "f"]
COMPLEX_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind == "c"]
NUMERIC_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind != "b"]


def _tolerance(dtype):
    return {"float16": 2e-3, "float32": 2e-6, "complex64": 2e-6}.get(numpy.dtype(dtype).name, 1e-12)


def assert_same(expected, actual, rtol=None, atol=0.0, path="result"):
    """``actual`` (NumPy types, e.g. after ``shim.to_numpy``) equals ``expected``
    exactly in type, dtype and shape; values equal (floats within dtype tolerance,
    NaN equal to NaN, the sign of zero ignored)."""
    assert type(actual) is type(expected), f"{path}: type {type(actual)} != {type(expected)}"
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, rtol, atol, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys(), f"{path}: keys differ"
        for k in expected:
            assert_same(expected[k], actual[k], rtol, atol, f"{path}[{k!r}]")
    elif isinstance(expected, (numpy.ndarray, numpy.generic)):
        assert actual.dtype == expected.dtype, f"{path}: dtype {actual.dtype} != {expected.dtype}"
        assert actual.shape == expected.shape, f"{path}: shape {actual.shape} != {expected.shape}"
        if expected.dtype.kind in "fc":
            tol = _tolerance(expected.dtype) if rtol is None else rtol
            numpy.testing.assert_allclose(actual, expected, rtol=tol, atol=atol, equal_nan=True,
                                          err_msg=path)
        else:
            numpy.testing.assert_array_equal(actual, expected, err_msg=path)
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(actual), f"{path}: {actual} != nan"
    elif isinstance(expected, (float, complex)):
        assert actual == expected or abs(actual - expected) <= 1e-12 * max(1, abs(expected)), \
            f"{path}: {actual} != {expected}"
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def _outcome(fn, module, args):
    try:
        return fn(module, *args), None
    except Exception as exc:  # noqa: BLE001 - the class is compared with NumPy's
        return None, exc


def _shim_args(args):
    return [shim.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args]


def check(fn, *args, rtol=None, atol=0.0):
    """Run ``fn(xp, *args)`` with xp = numpy and xp = torch_numpy_shim on separate
    copies of ``args``; compare results, exception classes and the arguments after."""
    np_args = copy.deepcopy(list(args))
    expected, np_exc = _outcome(fn, numpy, np_args)
    sh_inputs = copy.deepcopy(list(args))
    sh_args = _shim_args(sh_inputs)
    actual, sh_exc = _outcome(fn, shim, sh_args)
    if np_exc is not None:
        assert sh_exc is not None, f"NumPy raised {np_exc!r}, the shim returned {actual!r}"
        assert isinstance(sh_exc, type(np_exc)), f"NumPy raised {np_exc!r}, the shim raised {sh_exc!r}"
        return
    if sh_exc is not None:
        raise AssertionError(f"the shim raised {sh_exc!r}; NumPy returned {expected!r}") from sh_exc
    assert_same(expected, shim.to_numpy(actual), rtol, atol)
    assert_same(np_args, shim.to_numpy(sh_args), rtol, atol, path="inputs after the call")


# ---- hypothesis strategies ------------------------------------------------------------
def dtypes(kinds=None):
    pool = SUPPORTED_DTYPES if kinds is None else [d for d in SUPPORTED_DTYPES if d.kind in kinds]
    return st.sampled_from(pool)


def shapes(min_dims=0, max_dims=3, min_side=0, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def elements(dtype):
    """Values including the edges: NaN, ±inf, -0.0, tiny and huge, integer extremes."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "f":
        return st.floats(width=dtype.itemsize * 8, allow_nan=True, allow_infinity=True)
    if dtype.kind == "c":
        return st.complex_numbers(width=dtype.itemsize * 8, allow_nan=True, allow_infinity=True)
    return hnp.from_dtype(dtype)


def arrays(dtype, shape=None, elements_=None):
    shape = shapes() if shape is None else shape
    return hnp.arrays(dtype, shape, elements=elements_ if elements_ is not None else elements(dtype))


def finite_elements(dtype, bound=1e3):
    """Finite values within ±bound (any value of an integer or bool dtype)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "f":
        return st.floats(-bound, bound, width=dtype.itemsize * 8)
    if dtype.kind == "c":
        part = st.floats(-bound, bound, width=dtype.itemsize * 4)
        return st.builds(complex, part, part)
    return hnp.from_dtype(dtype)


def finite_arrays(dtype, shape=None, bound=1e3):
    return arrays(dtype, shape, finite_elements(dtype, bound))


def assert_traces_like_eager(fn, example):
    """``fn`` (shim arrays in, shim array or sequence of them out) traced by make_fx with
    symbolic shapes gives what it gives eagerly: the shim stays traceable."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    def as_tensors(t):
        result = fn(shim.ndarray._wrap(t))
        return [r._t for r in result] if isinstance(result, (list, tuple)) else [result._t]

    graph = make_fx(as_tensors, tracing_mode="symbolic")(example.clone())
    for traced, eager in zip(graph(example.clone()), as_tensors(example.clone())):
        assert torch.equal(traced, eager)


def assert_traces_quietly(fn, args):
    """``fn`` (tensors in, list of tensors out, shim code inside) reports nothing while
    make_fx traces it, even under ``errstate(all="raise")`` and warnings as errors, and
    the graph computes what ``fn`` computes eagerly (reports ignored there)."""
    import warnings

    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    with warnings.catch_warnings(), numpy.errstate(all="raise"):
        warnings.simplefilter("error")
        graph = make_fx(fn)(*args)
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = fn(*args)
    for got, want in zip(graph(*args), expected):
        torch.testing.assert_close(got, want, equal_nan=True)
