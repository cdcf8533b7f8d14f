"""Differential tests of the top-level products (dot, matmul, vector gufuncs, tensordot,
einsum, kron, trace, cross) against NumPy.

Values are small integers so every sum of products is exact in every dtype: the
comparison is then exact whatever order torch sums in. Integer overflow is tested with
full-range values (it must wrap like NumPy's), NaN/±inf with real floats only (complex
products of infinities differ between BLAS implementations, NumPy's own included).
"""
import math
import warnings

import numpy
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch_numpy_shim as shim
from tests.oracle import INT_DTYPES, SUPPORTED_DTYPES, check

ALL = [d.name for d in SUPPORTED_DTYPES]


def exact_values(dtype, specials=False):
    """Small integers (products and sums exact even in float16), optionally with the
    real float edge values."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "u":
        return st.integers(0, 6)
    small = st.integers(-6, 6)
    if dtype.kind == "i":
        return small
    if dtype.kind == "c":
        return st.builds(complex, small, small)
    if specials:
        return st.one_of(small.map(float), st.sampled_from([math.nan, math.inf, -math.inf, -0.0]))
    return small.map(float)


def exact_arrays(dtype, shape, specials=False):
    return hnp.arrays(dtype, shape, elements=exact_values(dtype, specials))


REAL_FLOATS = ["float16", "float32", "float64"]


@st.composite
def gufunc_operands(draw, signature, max_dims=3, dtypes=ALL, specials=False):
    shapes = draw(hnp.mutually_broadcastable_shapes(signature=signature, max_dims=max_dims, max_side=4))
    return [draw(exact_arrays(draw(st.sampled_from(dtypes)), s, specials)) for s in shapes.input_shapes]


def wrapping_arrays(shape):
    """Full-range integers: products overflow and must wrap as NumPy's do."""
    return st.sampled_from(INT_DTYPES).flatmap(lambda d: hnp.arrays(d, shape))


# ---- matmul and the vector gufuncs --------------------------------------------------------------------
@given(gufunc_operands("(m?,n),(n,p?)->(m?,p?)"))
def test_matmul(ops):
    check(lambda xp, a, b: xp.matmul(a, b), *ops)
    check(lambda xp, a, b: a @ b, *ops)


@given(gufunc_operands("(m?,n),(n,p?)->(m?,p?)", dtypes=REAL_FLOATS, specials=True))
def test_matmul_nan_inf(ops):
    check(lambda xp, a, b: xp.matmul(a, b), *ops)
    check(lambda xp, a, b: xp.einsum("...ij,...jk", a, b) if a.ndim > 1 and b.ndim > 1 else xp.dot(a, b), *ops)


@given(wrapping_arrays((2, 3)), wrapping_arrays((3, 2)))
def test_matmul_integer_overflow_wraps(a, b):
    check(lambda xp, a, b: xp.matmul(a, b), a, b)
    check(lambda xp, a, b: xp.dot(a, b), a, b)


@pytest.mark.parametrize("shape_a,shape_b", [
    ((), (3,)), ((3,), ()), ((2, 3), (2, 3)), ((3,), (4,)), ((2, 2, 3), (3, 3, 2)), ((4, 2), (3,)),
    ((0,), (0,)), ((2, 0), (0, 3)), ((0, 2, 3), (3, 1)),
])
def test_matmul_shapes_and_errors(shape_a, shape_b):
    a, b = numpy.ones(shape_a), numpy.ones(shape_b)
    check(lambda xp, a, b: xp.matmul(a, b), a, b)


@pytest.mark.parametrize("dtype,out_dtype,casting", [
    (None, "float64", "same_kind"), (None, "float32", "same_kind"), (None, "int64", "same_kind"),
    ("float32", None, "same_kind"), ("int8", None, "same_kind"), ("int8", None, "unsafe"),
    ("complex64", "complex128", "same_kind"), (None, "int64", "unsafe"),
])
def test_matmul_dtype_and_out(dtype, out_dtype, casting):
    a = numpy.arange(6.0).reshape(2, 3)
    b = numpy.arange(6).reshape(3, 2).astype(numpy.int16)

    def fn(xp, a, b):
        out = None if out_dtype is None else xp.zeros((2, 2), out_dtype)
        result = xp.matmul(a, b, out=out, dtype=dtype, casting=casting)
        assert out is None or result is out
        return result
    check(fn, a, b)


def test_matmul_out_broadcasts_into_larger_output():
    check(lambda xp, a, b: xp.matmul(a, b, out=xp.zeros((3, 2, 2))), numpy.ones((2, 2)), numpy.ones((2, 2)))


@given(gufunc_operands("(n),(n)->()"))
def test_vecdot(ops):
    check(lambda xp, a, b: xp.vecdot(a, b), *ops)


@given(gufunc_operands("(m,n),(n)->(m)"))
def test_matvec(ops):
    check(lambda xp, a, b: xp.matvec(a, b), *ops)


@given(gufunc_operands("(n),(n,m)->(m)"))
def test_vecmat(ops):
    check(lambda xp, a, b: xp.vecmat(a, b), *ops)


@pytest.mark.parametrize("fn", [
    lambda xp, a, b: xp.vecdot(a, b, axis=0),
    lambda xp, a, b: xp.vecdot(a[0], b),
    lambda xp, a, b: xp.vecdot(a, 3),
    lambda xp, a, b: xp.vecdot(a, b, dtype=xp.complex64),
    lambda xp, a, b: xp.matvec(a, b[:, 0]),
    lambda xp, a, b: xp.matvec(a, b[0]),
    lambda xp, a, b: xp.vecmat(b[:, 0], a),
    lambda xp, a, b: xp.vecmat(a[0], a),
    lambda xp, a, b: xp.vecdot(a, b, axis=2),
])
def test_vector_gufunc_edges(fn):
    a = numpy.array([[1 + 2j, 3j, -1], [2, 0, 1j]])
    b = numpy.array([[1j, 2, 3], [1, 1 - 1j, 0]])
    check(fn, a, b)


# ---- dot, inner, vdot, outer, tensordot, kron -----------------------------------------------------------
@st.composite
def dot_operands(draw):
    """dot's own shape rule: a (..., k) with b (k,) or (..., k, m), batches not broadcast."""
    k = draw(st.integers(0, 3))
    a_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    b_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    a_shape = a_shape + (k,) if draw(st.booleans()) or not a_shape else a_shape
    b_shape = (b_shape[:-1] + (k,) + b_shape[-1:]) if len(b_shape) >= 1 and draw(st.booleans()) else b_shape
    return [draw(exact_arrays(draw(st.sampled_from(ALL)), s)) for s in (a_shape, b_shape)]


@given(dot_operands())
@example(ops=[numpy.array([], dtype=bool), numpy.zeros((0, 0), dtype=numpy.float16)])  # k == 0, no element
def test_dot_inner_tensordot_kron(ops):
    check(lambda xp, a, b: xp.dot(a, b), *ops)
    check(lambda xp, a, b: a.dot(b), *ops)
    check(lambda xp, a, b: xp.inner(a, b), *ops)
    check(lambda xp, a, b: xp.tensordot(a, b, axes=1), *ops)
    check(lambda xp, a, b: xp.tensordot(a, b, axes=0), *ops)
    check(lambda xp, a, b: xp.kron(a, b), *ops)


@given(st.sampled_from(ALL).flatmap(lambda d: exact_arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))),
       st.sampled_from(ALL).flatmap(lambda d: exact_arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))))
def test_vdot_outer(a, b):
    check(lambda xp, a, b: xp.vdot(a, b), a, b)
    check(lambda xp, a, b: xp.outer(a, b), a, b)
    check(lambda xp, a, b: xp.outer(a, b, out=xp.zeros((a.size, b.size), xp.complex128)), a, b)


@pytest.mark.parametrize("shape_a,shape_b,axes", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3), (3, 2), ([0, 1], [1, 0])),
    ((2, 3), (2, 3), ([0, 1], [0, 1])), ((2, 3), (2, 3), 3), ((2, 3), (2, 3), 1), ((2, 3), (3,), (1, 0)),
    ((2, 3), (3, 2), ([1], [0, 1])), ((2, 3), (3, 2), (-1, 0)), ((2, 0), (0, 3), 1), ((2, 3), (3, 3), ([1, 1], [0, 1])),
])
def test_tensordot_axes(shape_a, shape_b, axes):
    a = numpy.arange(math.prod(shape_a), dtype=float).reshape(shape_a)
    b = numpy.arange(math.prod(shape_b), dtype=numpy.int32).reshape(shape_b)
    check(lambda xp, a, b: xp.tensordot(a, b, axes), a, b)


@pytest.mark.parametrize("out_dtype,shape", [("float64", (2, 2)), ("float32", (2, 2)), ("float64", (2, 3)),
                                            ("float64", (2, 2, 1))])
def test_dot_out_must_match_exactly(out_dtype, shape):
    def fn(xp, a, b):
        out = xp.zeros(shape, out_dtype)
        assert xp.dot(a, b, out=out) is out
        return out
    check(fn, numpy.arange(6.0).reshape(2, 3), numpy.ones((3, 2)))


def test_dot_with_python_scalars():
    check(lambda xp: xp.dot(2, xp.ones(3, xp.int8)))
    check(lambda xp: xp.dot(2, 3))
    check(lambda xp: xp.kron(xp.int8(2), xp.ones(2, xp.int8)))
    check(lambda xp: xp.inner(2.0, 3))


# ---- trace and cross ----------------------------------------------------------------------------------------
@given(st.sampled_from(ALL).flatmap(lambda d: exact_arrays(d, hnp.array_shapes(min_dims=2, max_dims=4, max_side=4))),
       st.integers(-3, 3), st.sampled_from([None, "float32", "int8", "complex128", "uint64"]))
def test_trace(a, offset, dtype):
    check(lambda xp, a: xp.trace(a, offset, dtype=dtype), a)
    check(lambda xp, a: xp.trace(a, offset, -1, 0), a)
    check(lambda xp, a: a.trace(offset), a)


@given(st.sampled_from(INT_DTYPES).flatmap(lambda d: hnp.arrays(d, (3, 3))))
def test_trace_integer_overflow_wraps(a):
    check(lambda xp, a: xp.trace(a, dtype=a.dtype), a)
    check(lambda xp, a: xp.trace(a), a)


@pytest.mark.parametrize("fn", [
    lambda xp, a: xp.trace(a[0]), lambda xp, a: xp.trace(a, axis1=1, axis2=1), lambda xp, a: xp.trace(a, axis1=5),
    lambda xp, a: xp.trace(a, out=xp.zeros((), xp.float32)), lambda xp, a: xp.trace(a, dtype=bool),
])
def test_trace_edges(fn):
    check(fn, numpy.arange(9.0).reshape(3, 3))


@given(st.sampled_from([d for d in ALL if d != "bool"]).flatmap(
           lambda d: exact_arrays(d, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3).map(lambda s: s[:-1] + (3,)))),
       st.sampled_from(ALL).flatmap(lambda d: exact_arrays(d, st.sampled_from([(3,), (2, 3), (1, 2)]))))
def test_cross(a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(lambda xp, a, b: xp.cross(a, b), a, b)


@pytest.mark.parametrize("fn", [
    lambda xp, a, b: xp.cross(a, b, axisa=0, axisb=0),
    lambda xp, a, b: xp.cross(a, b, axisa=0, axisb=0, axisc=0),
    lambda xp, a, b: xp.cross(a, b, axis=0),
    lambda xp, a, b: xp.cross(a, b, axisc=5),
    lambda xp, a, b: xp.cross(a, b, axisa=3),
    lambda xp, a, b: xp.cross(a[:, :2], b[:, :2]),
    lambda xp, a, b: xp.cross(a[:, :2], b),
    lambda xp, a, b: xp.cross(a[:2, :], b[:2, :]),
    lambda xp, a, b: xp.cross(a[0, 0], b),
    lambda xp, a, b: xp.cross(a[:, :1], b[:, :1]),
    lambda xp, a, b: xp.cross(a > 0, b > 0),
])
def test_cross_axes_and_errors(fn):
    a = numpy.arange(9.0).reshape(3, 3) - 4
    b = numpy.arange(9, dtype=numpy.uint8).reshape(3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(fn, a, b)


def test_cross_of_2_vectors_warns_like_numpy():
    """Deprecated in NumPy 2.0 (a warning), an error from NumPy 2.5: as the installed NumPy."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            expected = numpy.cross([1, 2], [3, 4])
        except ValueError:
            expected = None
    if expected is None:
        with pytest.raises(ValueError, match="3-dimensional vectors"):
            shim.cross(shim.asarray([1, 2]), shim.asarray([3, 4]))
        return
    assert [w.category for w in caught] == [DeprecationWarning]
    with pytest.warns(DeprecationWarning):
        result = shim.cross(shim.asarray([1, 2]), shim.asarray([3, 4]))
    assert type(shim.to_numpy(result)) is numpy.ndarray and shim.to_numpy(result) == expected == -2


# ---- einsum ---------------------------------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ij->ji", [(2, 3)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ij->", [(2, 3)]), ("i,i", [(3,), (3,)]), ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]), ("...i,...i", [(2, 3), (1, 3)]), ("i...->...", [(2, 3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("iij->j", [(2, 2, 3)]), ("ijk,ikj->i", [(2, 3, 3), (2, 3, 3)]),
    ("Ab,bA->A", [(2, 3), (3, 2)]), ("ba", [(2, 3)]), ("i,i,i", [(3,), (3,), (3,)]),
    ("ij,ij->ij", [(2, 3), (1, 3)]), ("i->", [(0,)]), ("ij,jk", [(2, 0), (0, 3)]), ("", [()]), (",", [(), ()]),
    ("i,i->", [(1,), (3,)]), ("...,...", [(2,), ()]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES)
@given(data=st.data())
def test_einsum(spec, shapes, data):
    ops = [data.draw(exact_arrays(data.draw(st.sampled_from(ALL)), s)) for s in shapes]
    check(lambda xp, *ops: xp.einsum(spec, *ops), *ops)


@given(gufunc_operands("(m,n),(n,p)->(m,p)", max_dims=2, dtypes=["float32", "int16", "complex128", "bool"]))
def test_einsum_sublist_form_and_optimize(ops):
    check(lambda xp, a, b: xp.einsum(a, [0, 1], b, [1, 2], [0, 2]), *ops)
    check(lambda xp, a, b: xp.einsum(a, [Ellipsis, 1], b, [1, 2]), *ops)
    check(lambda xp, a, b: xp.einsum("...ij,...jk", a, b, optimize=True), *ops)
    check(lambda xp, a, b: xp.einsum("...ij,...jk", a, b, optimize="optimal"), *ops)


@pytest.mark.parametrize("fn", [
    lambda xp, a, b: xp.einsum("ij,jk", a, b, dtype=xp.float32),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, dtype=xp.float32, casting="unsafe"),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, dtype=xp.complex128),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, out=xp.zeros((2, 2))),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, out=xp.zeros((2, 2), xp.float32)),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, out=xp.zeros((3, 2, 2))),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, out=xp.zeros((2, 3))),
    lambda xp, a, b: xp.einsum("ij,jk", a, b, out=xp.zeros((2, 2), xp.complex64), casting="same_kind"),
    lambda xp, a, b: xp.einsum("ij,jk->", a, b, out=xp.zeros(())),
])
def test_einsum_dtype_out_casting(fn):
    check(fn, numpy.arange(6.0).reshape(2, 3), numpy.arange(6, dtype=numpy.int32).reshape(3, 2))


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk", [(2, 3), (4, 2)]), ("ij", [(2,)]), ("i", [(2, 3)]), ("ij,jk", [(2, 3)]), ("ij", [(2, 3), (3,)]),
    ("ii", [(2, 3)]), ("ij->ii", [(2, 3)]), ("ij->k", [(2, 3)]), ("i.j", [(2, 3)]), ("i$", [(2, 3)]),
    ("...i,...i->i", [(2, 3), (2, 3)]), ("......i", [(3,)]), ("...i,...i", [(2, 3), (4, 3)]),
    ("i->i->i", [(2,)]), ("i,j->i.", [(2,), (2,)]),
])
def test_einsum_errors(spec, shapes):
    check(lambda xp, *ops: xp.einsum(spec, *ops), *[numpy.ones(s) for s in shapes])


def test_einsum_sublist_out_of_range():
    check(lambda xp, a: xp.einsum(a, [0, 60]), numpy.ones((2, 2)))


def test_einsum_views_like_numpy():
    a = shim.asarray(numpy.arange(9.0).reshape(3, 3))
    diag = shim.einsum("ii->i", a)
    transposed = shim.einsum("ij->ji", a)
    assert diag.base is a and transposed.base is a
    diag.fill(0)  # NumPy's diagonal einsum view writes through too
    assert shim.to_numpy(a).trace() == 0


@pytest.mark.parametrize("args", [
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ij,jk", [(20, 3), (3, 40)]), ("i,i", [(3,), (3,)]),
])
@pytest.mark.parametrize("optimize", ["greedy", "optimal", True])
def test_einsum_path_is_numpys(args, optimize):
    spec, shapes = args
    ops = [numpy.ones(s) for s in shapes]
    expected = numpy.einsum_path(spec, *ops, optimize=optimize)
    assert shim.einsum_path(spec, *[shim.asarray(o) for o in ops], optimize=optimize) == expected


def test_einsum_path_sublist_form():
    a, b = numpy.ones((2, 3)), numpy.ones((3, 4))
    expected = numpy.einsum_path(a, [0, 1], b, [1, 2], [0, 2])
    assert shim.einsum_path(shim.asarray(a), [0, 1], shim.asarray(b), [1, 2], [0, 2]) == expected
