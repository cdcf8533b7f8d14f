"""Differential tests of numpy.linalg against the shim.

Both compute in double precision and round to the input's precision, so uniquely defined
results (inverses, determinants, eigenvalues, singular values, Cholesky factors, norms)
are compared by value. Decompositions whose signs/phases/order are not unique (eig
vectors, SVD, QR, hermitian SVD) are compared by result type, dtypes and shapes with
NumPy, and by their defining identities.
"""
import math
import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch_numpy_shim as shim
from tests.oracle import SUPPORTED_DTYPES, check, finite_elements

ALL = [d.name for d in SUPPORTED_DTYPES]
INEXACT = ["float32", "float64", "complex64", "complex128"]
TOL = dict(rtol=1e-6, atol=1e-9)


def _values(dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    small = st.integers(0 if dtype.kind == "u" else -5, 5)
    if dtype.kind == "c":
        return st.builds(complex, small, small)
    return small


def batch_shapes():
    return hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)


@st.composite
def square_matrices(draw, dtypes=ALL, min_n=0, max_n=4, dominant=True):
    """Stacks of square matrices, diagonally dominant (well conditioned) by default."""
    dtype = numpy.dtype(draw(st.sampled_from(dtypes)))
    n = draw(st.integers(min_n, max_n))
    a = draw(hnp.arrays(dtype, draw(batch_shapes()) + (n, n), elements=_values(dtype)))
    if dominant and dtype.kind != "b":
        a = a + numpy.eye(n, dtype=dtype) * dtype.type(5 * n + 1)
    return a


@st.composite
def hermitian_matrices(draw, dtypes=INEXACT, positive=False, max_n=4):
    a = draw(square_matrices(dtypes, max_n=max_n, dominant=positive))
    return (a + numpy.conj(numpy.swapaxes(a, -1, -2))) / a.dtype.type(2)


@st.composite
def general_matrices(draw, dtypes=ALL, max_side=4):
    dtype = numpy.dtype(draw(st.sampled_from(dtypes)))
    m, n = draw(st.integers(0, max_side)), draw(st.integers(0, max_side))
    return draw(hnp.arrays(dtype, draw(batch_shapes()) + (m, n), elements=_values(dtype)))


def with_numpy_and_shim(fn, *args):
    """(NumPy's result, the shim's result as NumPy objects): for checks beyond equality."""
    expected = fn(numpy, *args)
    actual = shim.to_numpy(fn(shim, *[shim.asarray(a) for a in args]))
    return expected, actual


def assert_same_structure(expected, actual):
    """Same result type (named tuple class included), dtypes and shapes; values unchecked."""
    assert type(actual) is type(expected), (type(actual), type(expected))
    if isinstance(expected, tuple):
        for e, a in zip(expected, actual, strict=True):
            assert_same_structure(e, a)
    else:
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape)


def assert_close(actual, expected, scale=1.0):
    tol = 1e-4 if numpy.result_type(actual).itemsize <= 8 and numpy.result_type(actual).kind in "fc" \
        and numpy.result_type(actual) != numpy.complex128 else 1e-9
    numpy.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale)


# ---- inverses, solutions, determinants ------------------------------------------------------------------
@given(square_matrices())
def test_inv_det_slogdet(a):
    check(lambda xp, a: xp.linalg.inv(a), a, **TOL)
    check(lambda xp, a: xp.linalg.det(a), a, **TOL)
    check(lambda xp, a: xp.linalg.slogdet(a), a, **TOL)


@given(square_matrices(), st.data())
def test_solve(a, data):
    n = a.shape[-1]
    draw_array = lambda shape: data.draw(st.sampled_from(ALL).flatmap(lambda d: hnp.arrays(d, shape, elements=_values(d))))
    vector = draw_array((n,))
    matrix = draw_array(data.draw(batch_shapes()) + (n, data.draw(st.integers(0, 2))))
    check(lambda xp, a, b: xp.linalg.solve(a, b), a, vector, **TOL)
    check(lambda xp, a, b: xp.linalg.solve(a, b), a, matrix, **TOL)


@given(square_matrices(max_n=3), st.integers(-3, 6))
def test_matrix_power(a, n):
    check(lambda xp, a: xp.linalg.matrix_power(a, n), a, rtol=1e-6, atol=1e-6)


def test_matrix_power_one_returns_its_input():
    a = shim.asarray(numpy.eye(2))
    assert shim.linalg.matrix_power(a, 1) is a


EDGE_FUNCTIONS = {
    "inv": lambda xp, a: xp.linalg.inv(a), "det": lambda xp, a: xp.linalg.det(a),
    "slogdet": lambda xp, a: xp.linalg.slogdet(a), "solve": lambda xp, a: xp.linalg.solve(a, xp.ones(a.shape[-1])),
    "cholesky": lambda xp, a: xp.linalg.cholesky(a), "eig": lambda xp, a: xp.linalg.eig(a),
    "eigvals": lambda xp, a: xp.linalg.eigvals(a), "eigh": lambda xp, a: xp.linalg.eigh(a),
    "svd": lambda xp, a: xp.linalg.svd(a), "qr": lambda xp, a: xp.linalg.qr(a), "pinv": lambda xp, a: xp.linalg.pinv(a),
    "inverse_power": lambda xp, a: xp.linalg.matrix_power(a, -1), "cond_1": lambda xp, a: xp.linalg.cond(a, 1),
    "cond": lambda xp, a: xp.linalg.cond(a), "lstsq": lambda xp, a: xp.linalg.lstsq(a, xp.ones(a.shape[0])),
}
EDGE_MATRICES = {
    "zeros": numpy.zeros((2, 2)), "singular": numpy.array([[1.0, 2.0], [2.0, 4.0]]), "wide": numpy.ones((2, 3)),
    "vector": numpy.ones(3), "scalar": numpy.ones(()), "float16": numpy.eye(2, dtype=numpy.float16),
    "indefinite": numpy.array([[4.0, 2.0], [2.0, -3.0]]), "empty": numpy.zeros((0, 0)),
    "empty_stack": numpy.zeros((2, 0, 0), numpy.float32), "nan": numpy.array([[1.0, math.nan], [0.0, 1.0]]),
    "inf": numpy.array([[math.inf, 0.0], [0.0, 1.0]]),
    "stack_one_singular": numpy.array([[[2, 1], [1, 2]], [[1, 2], [2, 4]]], numpy.int8),
}
# Values that are not unique (decompositions of singular or wide matrices), that round
# differently in every LAPACK (condition numbers of singular matrices), or that LAPACK
# implementations propagate differently (NaN/inf input: NumPy's own answer changes with
# the BLAS it is built with) are compared by type, dtype, shape and exception class only.
VALUES_NOT_UNIQUE = {"svd", "qr", "eig", "eigh"}
SINGULAR = {"zeros", "singular", "wide", "stack_one_singular"}
NON_FINITE = {"nan", "inf"}


def check_structure(fn, a):
    """Like oracle.check, comparing result structure (not values) when both succeed."""
    try:
        expected = fn(numpy, a.copy())
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        with pytest.raises(type(exc)):
            fn(shim, shim.asarray(a.copy()))
        return
    assert_same_structure(expected, shim.to_numpy(fn(shim, shim.asarray(a.copy()))))


@pytest.mark.parametrize("fn_name", EDGE_FUNCTIONS)
@pytest.mark.parametrize("matrix_name", EDGE_MATRICES)
def test_errors_and_edge_matrices(fn_name, matrix_name):
    fn, a = EDGE_FUNCTIONS[fn_name], EDGE_MATRICES[matrix_name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if (fn_name in VALUES_NOT_UNIQUE or matrix_name in NON_FINITE
                or (fn_name.startswith("cond") and matrix_name in SINGULAR)):
            check_structure(fn, a)
        else:
            check(fn, a, **TOL)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((2, 2), (3,)), ((2, 2), (3, 1)), ((3, 2, 2), (2,)), ((3, 2, 2), (3, 2)), ((3, 2, 2), (4, 2, 1)),
    ((2, 2), ()), ((1, 2, 2), (5, 2, 3)),
])
def test_solve_shapes(a_shape, b_shape):
    a = numpy.broadcast_to(numpy.eye(2) * 2 + 1, a_shape).copy()
    check(lambda xp, a, b: xp.linalg.solve(a, b), a, numpy.ones(b_shape), **TOL)


def test_tensorsolve_tensorinv():
    a = numpy.eye(6).reshape(6, 2, 3) * 2 + 0.5
    check(lambda xp, a, b: xp.linalg.tensorsolve(a, b), a, numpy.arange(6.0), **TOL)
    check(lambda xp, a, b: xp.linalg.tensorsolve(a, b, axes=(0,)), numpy.eye(6).reshape(2, 3, 6) + 1, numpy.ones((2, 3)), **TOL)
    check(lambda xp, a: xp.linalg.tensorinv(a, ind=1), a, **TOL)
    check(lambda xp, a: xp.linalg.tensorinv(a.reshape(2, 3, 6), ind=2), a, **TOL)
    check(lambda xp, a: xp.linalg.tensorinv(a, ind=0), a)
    check(lambda xp, a, b: xp.linalg.tensorsolve(a, b), numpy.ones((2, 3, 4)), numpy.ones(2))


# ---- eigenvalues ------------------------------------------------------------------------------------------
@given(hermitian_matrices(INEXACT + ["int16", "bool"]), st.sampled_from(["L", "U", "l"]))
def test_eigh_eigvalsh(a, uplo):
    if a.dtype.kind in "bi":
        a = a.astype(numpy.int64)
    check(lambda xp, a: xp.linalg.eigvalsh(a, uplo), a, **TOL)
    expected, actual = with_numpy_and_shim(lambda xp, a: xp.linalg.eigh(a, UPLO=uplo), a)
    assert_same_structure(expected, actual)
    assert_close(actual.eigenvalues, expected.eigenvalues, scale=30)
    w, v = actual
    assert_close(a @ v, v * w[..., None, :], scale=30)


@given(square_matrices(["float32", "float64", "complex64", "complex128", "int8", "uint8"], max_n=3, dominant=False))
def test_eig_eigvals(a):
    expected, actual = with_numpy_and_shim(lambda xp, a: xp.linalg.eig(a), a)
    assert_same_structure(expected, actual)
    w, v = actual
    assert_close(a @ v, v * w[..., None, :], scale=30)
    order = lambda w: numpy.sort_complex(numpy.round(w.astype(complex), 3))
    assert_close(order(w), order(expected.eigenvalues), scale=30)
    expected_w, actual_w = with_numpy_and_shim(lambda xp, a: xp.linalg.eigvals(a), a)
    assert_same_structure(expected_w, actual_w)
    assert_close(order(actual_w), order(expected_w), scale=30)


@pytest.mark.parametrize("a,dtype", [
    ([[0, 1], [-1, 0]], "float64"), ([[0, 1], [-1, 0]], "float32"), ([[2, 1], [1, 2]], "float32"),
    ([[2, 1], [1, 2]], "int64"), ([[[0, 1], [-1, 0]], [[1, 0], [0, 2]]], "float64"), ([[1j, 0], [0, 1]], "complex64"),
])
def test_eig_real_only_when_every_eigenvalue_is(a, dtype):
    a = numpy.asarray(a, dtype)
    assert_same_structure(*with_numpy_and_shim(lambda xp, a: xp.linalg.eig(a), a))
    assert_same_structure(*with_numpy_and_shim(lambda xp, a: xp.linalg.eigvals(a), a))


def test_data_dependent_functions_are_declared():
    assert {"eig", "eigvals", "lstsq"} <= shim.linalg.DATA_DEPENDENT


def test_eigh_rejects_bad_uplo():
    check(lambda xp, a: xp.linalg.eigh(a, UPLO="X"), numpy.eye(2))
    check(lambda xp, a: xp.linalg.eigvalsh(a, UPLO="X"), numpy.eye(2))


# ---- singular values ------------------------------------------------------------------------------------
@given(general_matrices(), st.booleans())
def test_svd(a, full_matrices):
    check(lambda xp, a: xp.linalg.svd(a, compute_uv=False), a, **TOL)
    check(lambda xp, a: xp.linalg.svdvals(a), a, **TOL)
    expected, actual = with_numpy_and_shim(lambda xp, a: xp.linalg.svd(a, full_matrices), a) \
        if a.dtype != numpy.float16 else (None, None)
    if expected is None:
        check(lambda xp, a: xp.linalg.svd(a), a)
        return
    assert_same_structure(expected, actual)
    u, s, vh = actual
    k = min(a.shape[-2:])
    assert_close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, scale=30)
    assert_close(numpy.conj(numpy.swapaxes(u, -1, -2)) @ u, numpy.broadcast_to(numpy.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2))


@given(hermitian_matrices(INEXACT + ["int32"]))
def test_svd_hermitian(a):
    check(lambda xp, a: xp.linalg.svd(a, compute_uv=False, hermitian=True), a, **TOL)
    expected, actual = with_numpy_and_shim(lambda xp, a: xp.linalg.svd(a, hermitian=True), a)
    assert_same_structure(expected, actual)
    u, s, vh = actual
    assert_close((u * s[..., None, :]) @ vh, a, scale=30)
    assert_close(s, expected.S, scale=30)


@given(general_matrices(), st.one_of(st.none(), st.floats(1e-3, 0.5)), st.booleans())
def test_matrix_rank_pinv(a, rtol, use_rtol):
    kwargs = {"rtol": rtol} if use_rtol else {}
    check(lambda xp, a: xp.linalg.matrix_rank(a, **kwargs), a)
    if a.dtype.kind in "fc" and rtol is not None:
        check(lambda xp, a: xp.linalg.matrix_rank(a, tol=rtol * 10), a)
    check(lambda xp, a: xp.linalg.pinv(a), a, rtol=1e-5, atol=1e-6)
    if a.dtype.kind in "fc" and a.dtype != numpy.float16:
        check(lambda xp, a: xp.linalg.pinv(a, **({"rtol": rtol} if use_rtol else {})), a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda xp: xp.linalg.matrix_rank(xp.asarray([0.0, 0.0])), lambda xp: xp.linalg.matrix_rank(xp.asarray([0.0, 2.0])),
    lambda xp: xp.linalg.matrix_rank(xp.asarray(3)), lambda xp: xp.linalg.matrix_rank(xp.eye(2), tol=1, rtol=1),
    lambda xp: xp.linalg.matrix_rank(xp.eye(3), hermitian=True), lambda xp: xp.linalg.matrix_rank(xp.eye(3), tol=1),
    lambda xp: xp.linalg.pinv(xp.eye(2), rcond=0.1, rtol=0.1), lambda xp: xp.linalg.pinv(xp.eye(3), hermitian=True),
    lambda xp: xp.linalg.pinv(xp.zeros((2, 0, 3), xp.int8)), lambda xp: xp.linalg.pinv(xp.eye(2), rtol=None),
    lambda xp: xp.linalg.pinv(xp.asarray([[1.0, 1e-16], [0, 1e-17]]), rcond=xp.asarray(1e-20)),
])
def test_rank_pinv_edges(fn):
    check(fn, **TOL)


# ---- QR and Cholesky ---------------------------------------------------------------------------------------------
@given(general_matrices(INEXACT + ["int64", "bool"]), st.sampled_from(["reduced", "complete"]))
def test_qr(a, mode):
    expected, actual = with_numpy_and_shim(lambda xp, a: xp.linalg.qr(a, mode), a)
    assert_same_structure(expected, actual)
    q, r = actual
    assert_close(q @ r, a, scale=30)
    assert_close(numpy.conj(numpy.swapaxes(q, -1, -2)) @ q, numpy.broadcast_to(numpy.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2))
    assert numpy.all(numpy.triu(r) == r)
    r_only = shim.to_numpy(shim.linalg.qr(shim.asarray(a), "r"))
    assert_same_structure(numpy.linalg.qr(a, "r"), r_only)
    # R is unique only up to signs, and not at all past a rank-deficient matrix's rank:
    # compare what every R of ``a`` shares, upper triangularity and R^H R == A^H A
    assert numpy.all(numpy.triu(r_only) == r_only)
    gram = lambda m: numpy.conj(numpy.swapaxes(m, -1, -2)) @ m  # noqa: E731
    magnitude = max(1.0, float(numpy.max(numpy.abs(a), initial=0.0))) ** 2 * a.shape[-2]
    assert_close(gram(r_only), gram(numpy.asarray(a, dtype=r_only.dtype)), scale=30 * magnitude)


@pytest.mark.parametrize("mode", ["raw", "economic", "e", "full", "f", "bogus"])
def test_qr_other_modes(mode):
    a = numpy.array([[3.0, 1.0], [4.0, 2.0], [0.0, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(lambda xp, a: xp.linalg.qr(a, mode), a, **TOL)


@given(hermitian_matrices(INEXACT + ["int8"], positive=True), st.booleans())
def test_cholesky(a, upper):
    check(lambda xp, a: xp.linalg.cholesky(a, upper=upper), a, **TOL)


def test_cholesky_of_non_finite_input_refuses():
    with pytest.raises(shim.UnsupportedError):
        shim.linalg.cholesky(shim.asarray(numpy.full((2, 2), math.nan)))


# ---- least squares -------------------------------------------------------------------------------------------------
@given(general_matrices(INEXACT + ["int16"], max_side=4).filter(lambda a: a.ndim == 2), st.data())
def test_lstsq(a, data):
    m = a.shape[0]
    b = data.draw(st.one_of(hnp.arrays("float64", (m,), elements=_values("int8")),
                            hnp.arrays("float32", (m, data.draw(st.integers(0, 2))), elements=_values("int8"))))
    check(lambda xp, a, b: xp.linalg.lstsq(a, b), a, b, rtol=1e-5, atol=1e-6)
    check(lambda xp, a, b: xp.linalg.lstsq(a, b, rcond=0.3), a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("a_shape,b_shape", [((3, 2), (2,)), ((2, 2, 2), (2, 2)), ((3, 2), (3, 2, 1)), ((0, 2), (0,)),
                                             ((2, 0), (2, 3))])
def test_lstsq_shapes(a_shape, b_shape):
    check(lambda xp, a, b: xp.linalg.lstsq(a, b), numpy.ones(a_shape), numpy.ones(b_shape), **TOL)


# ---- norms and condition numbers ---------------------------------------------------------------------------------------
VECTOR_ORDS = [None, 2, 1, 0, math.inf, -math.inf, -1, -2, 3, 0.5, "fro", "nuc"]
MATRIX_ORDS = [None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2, 3]


def finite_values(dtype):
    return finite_elements(dtype, bound=100)


@given(st.sampled_from(ALL).flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                                                         elements=finite_values(d))),
       st.sampled_from(VECTOR_ORDS), st.booleans(), st.data())
def test_norm(x, ord, keepdims, data):
    axis = data.draw(st.sampled_from([None, -1, 0, (0, -1), (1, 0), (0, 1, 2), (0, 0), 5]))
    tol = dict(rtol=2e-3, atol=1e-3) if x.dtype == numpy.float16 else dict(rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(lambda xp, x: xp.linalg.norm(x, ord, axis, keepdims), x, **tol)
        check(lambda xp, x: xp.linalg.norm(x), x, **tol)
        if x.ndim == 2:
            matrix_ord = data.draw(st.sampled_from(MATRIX_ORDS))
            check(lambda xp, x: xp.linalg.norm(x, matrix_ord), x, **tol)


@pytest.mark.parametrize("x", [numpy.array(False), numpy.array(-2.5), numpy.array(3 + 4j)])
def test_norm_of_0d_with_keepdims_is_a_scalar(x):
    check(lambda xp, x: xp.linalg.norm(x, keepdims=True), x, **TOL)


@given(st.sampled_from(INEXACT + ["int32"]).flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=3),
                                                                         elements=finite_values(d))),
       st.sampled_from(MATRIX_ORDS), st.booleans())
def test_matrix_norm_stacked(x, ord, keepdims):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(lambda xp, x: xp.linalg.matrix_norm(x, ord=ord, keepdims=keepdims), x, rtol=1e-5, atol=1e-6)
        check(lambda xp, x: xp.linalg.norm(x, ord, axis=(-1, -2), keepdims=keepdims), x, rtol=1e-5, atol=1e-6)


@given(st.sampled_from(INEXACT + ["int8", "bool"]).flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3),
                                                                                elements=finite_values(d))),
       st.sampled_from([2, 1, math.inf, 0, -math.inf, 3]), st.booleans(), st.data())
def test_vector_norm(x, ord, keepdims, data):
    axis = data.draw(st.sampled_from([None] + ([0, -1, (0,), tuple(range(x.ndim))] if x.ndim else [])
                                     + ([(0, x.ndim - 1)] if x.ndim > 1 else [])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(lambda xp, x: xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord), x, rtol=1e-5, atol=1e-6)


@given(square_matrices(["float32", "float64", "complex64", "complex128", "int8"], min_n=1, max_n=3, dominant=False),
       st.sampled_from([None, 1, -1, 2, -2, math.inf, -math.inf, "fro", "nuc"]))
def test_cond(a, p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            expected = numpy.linalg.cond(a, p)
        except numpy.linalg.LinAlgError:  # the inverse of a singular matrix is NaN: its SVD fails
            with pytest.raises(numpy.linalg.LinAlgError):
                shim.linalg.cond(shim.asarray(a), p)
            return
        actual = shim.to_numpy(shim.linalg.cond(shim.asarray(a), p))
    assert_same_structure(expected, actual)
    # singular matrices give huge or infinite condition numbers depending on rounding
    finite = numpy.isfinite(expected) & (numpy.abs(expected) < 1e6)
    assert_close(numpy.where(finite, actual, 0), numpy.where(finite, expected, 0), scale=1)
    assert numpy.array_equal(numpy.isnan(actual), numpy.isnan(expected))


# ---- chains of products and the array-API names --------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [
    [(3,), (3, 2)], [(2, 3), (3, 4), (4, 5)], [(3,), (3, 4), (4,)], [(10, 2), (2, 30), (30, 3), (3, 1)],
    [(2, 3), (3, 4), (4, 5), (5,)], [(3,), (3, 2), (2, 4), (4, 1), (1,)], [(2,)], [(2, 3), (2, 3), (3, 3)],
    [(2, 2, 2), (2, 2), (2, 2)],
])
def test_multi_dot(shapes):
    arrays = [numpy.arange(math.prod(s), dtype=float).reshape(s) - 2 for s in shapes]
    check(lambda xp, *arrays: xp.linalg.multi_dot(list(arrays)), *arrays, **TOL)


def test_multi_dot_out():
    def fn(xp, a, b, c):
        out = xp.zeros((2, 4))
        assert xp.linalg.multi_dot([a, b, c], out=out) is out
        return out
    check(fn, numpy.ones((2, 3)), numpy.ones((3, 3)), numpy.ones((3, 4)))


@pytest.mark.parametrize("fn", [
    lambda xp, a, b: xp.linalg.outer(a[0], b[0]), lambda xp, a, b: xp.linalg.outer(a, b),
    lambda xp, a, b: xp.linalg.cross(a, b), lambda xp, a, b: xp.linalg.cross(a[:, :2], b[:, :2]),
    lambda xp, a, b: xp.linalg.cross(a, b, axis=0), lambda xp, a, b: xp.linalg.diagonal(a),
    lambda xp, a, b: xp.linalg.diagonal(a, offset=1), lambda xp, a, b: xp.linalg.diagonal(a[0]),
    lambda xp, a, b: xp.linalg.trace(a), lambda xp, a, b: xp.linalg.trace(b, offset=-1, dtype=xp.float32),
    lambda xp, a, b: xp.linalg.matmul(a, b), lambda xp, a, b: xp.linalg.tensordot(a, b, axes=1),
    lambda xp, a, b: xp.linalg.vecdot(a, b), lambda xp, a, b: xp.linalg.vecdot(a, b, axis=0),
    lambda xp, a, b: xp.linalg.matrix_transpose(a), lambda xp, a, b: xp.linalg.matrix_transpose(a[0]),
    lambda xp, a, b: xp.linalg.svdvals(a), lambda xp, a, b: xp.linalg.matrix_norm(a, ord=1, keepdims=True),
    lambda xp, a, b: xp.linalg.vector_norm(a, axis=(1, 0), keepdims=True), lambda xp, a, b: xp.linalg.vector_norm(a[0, 0], keepdims=True),
])
def test_array_api_names(fn):
    a = numpy.arange(9.0).reshape(3, 3) - 4
    b = numpy.arange(9, dtype=numpy.int16).reshape(3, 3)
    check(fn, a, b, **TOL)


def test_diagonal_and_matrix_transpose_are_views():
    a = shim.asarray(numpy.arange(9.0).reshape(3, 3))
    assert shim.linalg.diagonal(a).base is a
    assert shim.linalg.matrix_transpose(a).base is a


def test_result_classes_are_numpys():
    a = shim.asarray(numpy.eye(2))
    assert type(shim.to_numpy(shim.linalg.slogdet(a))) is type(numpy.linalg.slogdet(numpy.eye(2)))
    assert type(shim.to_numpy(shim.linalg.svd(a))) is type(numpy.linalg.svd(numpy.eye(2)))
    assert type(shim.to_numpy(shim.linalg.eigh(a))) is type(numpy.linalg.eigh(numpy.eye(2)))
    assert type(shim.to_numpy(shim.linalg.qr(a))) is type(numpy.linalg.qr(numpy.eye(2)))
    assert shim.linalg.LinAlgError is numpy.linalg.LinAlgError
