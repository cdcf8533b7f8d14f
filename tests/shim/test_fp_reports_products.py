"""Products, differences, polynomials and linalg report floating-point errors as NumPy 2.4
does, checked against NumPy (category, message, count, order, FloatingPointError, handler
calls, values) in six error states: dot, inner and tensordot as 'dot' (also with a 0-d
operand); matmul, matvec, vecdot and vecmat under their own names; outer and kron as
'multiply'; cross step by step (multiply, subtract); trace's add.reduce; einsum with
optimize per pairwise step (matmul or multiply, with NumPy's result types); vdot and
einsum silent; diff, ediff1d (subtract), gradient (its subtract, divide, multiply and
add steps, 'scalar ...' at a 1-D array's edges), polyval (multiply, then add or 'scalar
add'); convolve and correlate silent; linalg's norm (dot, or multiply/power and reduce),
det and slogdet. Nothing is reported while torch traces."""

import numpy
import pytest
import torch

import torch_numpy_shim as shim
from tests.oracle import assert_traces_quietly
from tests.shim.test_fp_warnings import check_reports

NAN, INF = numpy.nan, numpy.inf
MODES = [{}, {"all": "raise"}, {"all": "ignore"}, {"all": "call"}, {"all": "warn"},
         {"over": "raise", "invalid": "ignore"}]
_IDS = dict(ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()) or "default")


def _a(xp, values, dtype="float64"):
    return xp.asarray(numpy.array(values, dtype))


def _full(xp, shape, value, dtype="float64"):
    return xp.asarray(numpy.full(shape, value, dtype))


def _big(dtype):
    return float(numpy.sqrt(numpy.finfo(dtype).max)) * 2


def _products(dtype):
    """Contractions whose products overflow, with the names NumPy reports them under."""
    b = _big(dtype)
    return {
        f"dot 1-d {dtype}": lambda xp: xp.dot(_full(xp, 2, b, dtype), _full(xp, 2, b, dtype)),
        f"dot 2-d {dtype}": lambda xp: xp.dot(_full(xp, (3, 3), b, dtype), _full(xp, (3, 2), b, dtype)),
        f"dot n-d {dtype}": lambda xp: xp.dot(_full(xp, (2, 3, 2), b, dtype), _full(xp, (4, 2, 2), 1.0, dtype)),
        f"dot 0-d {dtype}": lambda xp: xp.dot(_full(xp, (), b, dtype), _full(xp, 2, b, dtype)),
        f"inner {dtype}": lambda xp: xp.inner(_full(xp, (2, 2), b, dtype), _full(xp, (2, 2), b, dtype)),
        f"inner 0-d {dtype}": lambda xp: xp.inner(_full(xp, 2, b, dtype), _full(xp, (), b, dtype)),
        f"matmul 1-d {dtype}": lambda xp: _full(xp, 3, b, dtype) @ _full(xp, 3, b, dtype),
        f"matmul 2-d {dtype}": lambda xp: xp.matmul(_full(xp, (2, 3), b, dtype), _full(xp, (3, 2), b, dtype)),
        f"matmul batch {dtype}": lambda xp: xp.matmul(_full(xp, (2, 1, 3), b, dtype), _full(xp, (3, 3), 1.0, dtype)),
        f"matmul vector-matrix {dtype}": lambda xp: xp.matmul(_full(xp, 3, b, dtype), _full(xp, (3, 2), b, dtype)),
        f"matmul strided {dtype}": lambda xp: xp.matmul(_full(xp, (2, 6), b, dtype)[:, ::2], _full(xp, (3, 2), b, dtype)),
        f"matvec {dtype}": lambda xp: xp.matvec(_full(xp, (2, 2), b, dtype), _full(xp, 2, b, dtype)),
        f"vecmat {dtype}": lambda xp: xp.vecmat(_full(xp, 2, b, dtype), _full(xp, (2, 2), b, dtype)),
        f"vecdot {dtype}": lambda xp: xp.vecdot(_full(xp, (2, 2), b, dtype), _full(xp, 2, b, dtype)),
        f"tensordot {dtype}": lambda xp: xp.tensordot(_full(xp, (2, 2), b, dtype), _full(xp, (2, 2), b, dtype)),
        f"tensordot axes=0 {dtype}": lambda xp: xp.tensordot(_full(xp, 2, b, dtype), _full(xp, 2, b, dtype), 0),
        f"outer {dtype}": lambda xp: xp.outer(_full(xp, 2, b, dtype), _full(xp, 3, b, dtype)),
        f"kron {dtype}": lambda xp: xp.kron(_full(xp, (2, 1), b, dtype), _full(xp, 3, b, dtype)),
        f"kron 0-d {dtype}": lambda xp: xp.kron(_full(xp, (), b, dtype), _full(xp, 3, b, dtype)),
        f"vdot is quiet {dtype}": lambda xp: xp.vdot(_full(xp, 2, b, dtype), _full(xp, 2, b, dtype)),
        f"einsum is quiet {dtype}": lambda xp: xp.einsum("ij,jk", _full(xp, (2, 2), b, dtype),
                                                         _full(xp, (2, 2), b, dtype)),
    }


def _specials(dtype):
    """inf * 0, inf - inf, NaN operands, infinite operands, underflow."""
    tiny = float(numpy.sqrt(numpy.finfo(dtype).tiny)) / 3   # tiny * tiny: inexact, below normal
    return {
        f"dot inf * 0 {dtype}": lambda xp: xp.dot(_a(xp, [INF, 1.0], dtype), _a(xp, [0.0, 1.0], dtype)),
        f"matmul inf - inf {dtype}": lambda xp: _a(xp, [[INF, INF]], dtype) @ _a(xp, [[1.0], [-1.0]], dtype),
        f"dot NaN is quiet {dtype}": lambda xp: xp.dot(_a(xp, [NAN, 1.0], dtype), _a(xp, [0.0, 1.0], dtype)),
        f"dot inf operand is quiet {dtype}": lambda xp: xp.dot(_a(xp, [INF, 1.0], dtype), _a(xp, [INF, 1.0], dtype)),
        f"dot underflow {dtype}": lambda xp: xp.dot(_full(xp, 2, tiny, dtype), _full(xp, 2, tiny, dtype)),
        f"matmul underflow {dtype}": lambda xp: _full(xp, (2, 2), tiny, dtype) @ _full(xp, (2, 2), tiny, dtype),
        f"matmul no small product {dtype}": lambda xp: _a(xp, [[tiny, 1.0], [0.5, 2.0]], dtype) @ _a(
            xp, [[0.0, 1.0], [tiny, tiny]], dtype),
        f"matmul one small product {dtype}": lambda xp: _a(xp, [[tiny, 1.0], [0.5, 2.0]], dtype) @ _a(
            xp, [[0.0, 1.0], [tiny, tiny]], dtype)[::-1],
        f"outer underflow {dtype}": lambda xp: xp.outer(_full(xp, 2, tiny, dtype), _full(xp, 2, tiny, dtype)),
        f"outer inf * 0 {dtype}": lambda xp: xp.outer(_a(xp, [INF, 1.0], dtype), _a(xp, [0.0, 1.0], dtype)),
        f"finite matmul is quiet {dtype}": lambda xp: _a(xp, [[1.0, 2.0]], dtype) @ _a(xp, [[3.0], [4.0]], dtype),
    }


CASES = {**_products("float64"), **_products("float32"), **_specials("float64"), **_specials("float32")}
CASES.update({
    "dot float16": lambda xp: xp.dot(_full(xp, 3, 300, "float16"), _full(xp, 3, 300, "float16")),
    "matmul float16 inf * 0": lambda xp: _a(xp, [INF, 1.0], "float16") @ _a(xp, [0.0, 1.0], "float16"),
    "dot complex": lambda xp: xp.dot(_full(xp, 2, 1e200 + 0j, "complex128"), _full(xp, 2, 1e200, "complex128")),
    "dot int wraps quietly": lambda xp: xp.dot(_full(xp, 2, 2**62, "int64"), _full(xp, 2, 4, "int64")),
    "dot empty": lambda xp: xp.dot(_full(xp, 0, 1e200), _full(xp, 0, 1e200)),
    "einsum optimize matmul": lambda xp: xp.einsum("ij,jk", _full(xp, (2, 2), 1e200), _full(xp, (2, 2), 1e200),
                                                   optimize=True),
    "einsum optimize scalar": lambda xp: xp.einsum("i,i", _full(xp, 2, 1e200), _full(xp, 2, 1e200), optimize=True),
    "einsum optimize multiply": lambda xp: xp.einsum("i,j", _full(xp, 2, 1e200), _full(xp, 3, 1e200),
                                                     optimize="greedy"),
    "einsum optimize size-1 index": lambda xp: xp.einsum("i,i", _full(xp, 1, 1e200), _full(xp, 1, 1e200),
                                                         optimize=True),
    "einsum optimize three operands": lambda xp: xp.einsum("ij,jk,kl", _full(xp, (2, 3), 1e200), _full(xp, (3, 4), 1e200),
                                                           _full(xp, (4, 2), 1.0), optimize=True),
    "einsum optimize batch": lambda xp: xp.einsum("bij,bjk->bki", _full(xp, (2, 2, 3), 1e200),
                                                  _full(xp, (2, 3, 2), 1e200), optimize=True),
    "einsum optimize with a trace": lambda xp: xp.einsum("iij,jk", _full(xp, (2, 2, 3), 1e200),
                                                         _full(xp, (3, 2), 1e200), optimize=True),
    "trace overflow": lambda xp: xp.trace(_full(xp, (2, 2), 1e308)),
    "trace float16": lambda xp: xp.trace(_full(xp, (2, 2), 6e4, "float16")),
    "cross 3-d": lambda xp: xp.cross(_a(xp, [1e200, 0, 0]), _a(xp, [0, 1e200, 0])),
    "cross every step": lambda xp: xp.cross(_a(xp, [1e200, 1e200, INF]), _a(xp, [1e200, -1e200, 0])),
    "cross subtract overflows": lambda xp: xp.cross(_a(xp, [1e154, -1e154, 1e154]), _a(xp, [1e154, 1e154, -1e154])),
    "cross inf - inf": lambda xp: xp.cross(_a(xp, [INF, INF, 1]), _a(xp, [1, 1, 1])),
    "cross inf * 0": lambda xp: xp.cross(_a(xp, [INF, 0, 0]), _a(xp, [0, 1, 0])),
    "cross float32 stack": lambda xp: xp.cross(_full(xp, (2, 3), 1e30, "float32"), _a(xp, [1e30, -1e30, 2], "float32")),
    "diff overflow": lambda xp: xp.diff(_a(xp, [1e308, -1e308, 1e308])),
    "diff inf - inf": lambda xp: xp.diff(_a(xp, [INF, INF, 1.0])),
    "diff n=2": lambda xp: xp.diff(_a(xp, [1e308, -1e308, 1e308]), n=2),
    "diff prepend": lambda xp: xp.diff(_a(xp, [-1e308, 1e308]), prepend=1e308),
    "diff axis 0 float32": lambda xp: xp.diff(_a(xp, [[3e38, 1], [-3e38, 1]], "float32"), axis=0),
    "diff int is quiet": lambda xp: xp.diff(_a(xp, [2**63 - 1, -10], "int64")),
    "ediff1d": lambda xp: xp.ediff1d(_a(xp, [1e308, -1e308, 1e308])),
    "ediff1d inf - inf": lambda xp: xp.ediff1d(_a(xp, [INF, INF]), to_end=_a(xp, [1e308])),
    "gradient 1-d": lambda xp: xp.gradient(_a(xp, [1e308, -1e308, 1e308])),
    "gradient 1-d interior": lambda xp: xp.gradient(_a(xp, [1e308, 0, -1e308, 0])),
    "gradient inf": lambda xp: xp.gradient(_a(xp, [INF, INF, 1.0])),
    "gradient 2-d": lambda xp: xp.gradient(_a(xp, [[1e308, -1e308], [1.0, 2.0]])),
    "gradient spacing zero": lambda xp: xp.gradient(_a(xp, [1.0, 2, 3]), _a(xp, [0.0, 0, 1])),
    "gradient edge_order 2": lambda xp: xp.gradient(_a(xp, [1e308, -1e308, 1e308, 1.0]), edge_order=2),
    "gradient edge_order 2 2-d": lambda xp: xp.gradient(_a(xp, [[1e308, 1], [-1e308, 1], [1e308, 1]]),
                                                        edge_order=2, axis=0),
    "gradient uneven edge_order 2": lambda xp: xp.gradient(_a(xp, [1e308, -1e308, 1e308, 1.0]),
                                                           _a(xp, [0.0, 1.0, 3.0, 4.0]), edge_order=2),
    "gradient uneven coordinates repeat": lambda xp: xp.gradient(_a(xp, [1.0, 2, 3, 4]),
                                                                 _a(xp, [0.0, 0.0, 1.0, 1.0]), edge_order=2),
    "polyval": lambda xp: xp.polyval(_a(xp, [1e200, 1]), 1e200),
    "polyval add overflows": lambda xp: xp.polyval(_a(xp, [1.0, 1e308]), 1e308),
    "polyval 0-d array": lambda xp: xp.polyval(_a(xp, [1.0, 1e308]), _a(xp, 1e308)),
    "polyval array": lambda xp: xp.polyval(_a(xp, [1.0, 1e308]), _a(xp, [1e308, 1.0])),
    "polyval inf * 0": lambda xp: xp.polyval(_a(xp, [INF, 1]), 0.0),
    "polyval underflow": lambda xp: xp.polyval(_a(xp, [1e-200, 0]), _a(xp, [1e-200])),
    "polyval float32": lambda xp: xp.polyval(_a(xp, [3e38, 1], "float32"), _a(xp, [2, 3], "float32")),
    "convolve is quiet": lambda xp: xp.convolve(_full(xp, 3, 1e200), _full(xp, 3, 1e200)),
    "convolve inf * 0 is quiet": lambda xp: xp.convolve(_a(xp, [INF, 0]), _a(xp, [0.0, 1])),
    "convolve never multiplies the padding": lambda xp: xp.convolve(_a(xp, [INF, 0, 1, INF]), _a(xp, [0, INF, 1, INF])),
    "correlate never multiplies the padding": lambda xp: xp.correlate(_a(xp, [INF, 0, 1, INF]), _a(xp, [0, INF, 1.0]),
                                                                      "same"),
    "correlate is quiet": lambda xp: xp.correlate(_full(xp, 3, 1e200), _full(xp, 3, 1e200), "full"),
    "cumprod": lambda xp: xp.cumprod(_full(xp, 3, 1e200)),
    "linalg.norm": lambda xp: xp.linalg.norm(_a(xp, [1e200, 1e200])),
    "linalg.norm float32": lambda xp: xp.linalg.norm(_a(xp, [1e30, 1e30], "float32")),
    "linalg.matrix_power": lambda xp: xp.linalg.matrix_power(_a(xp, [[1e200, 0], [0, 1e200]]), 2),
    "linalg.outer": lambda xp: xp.linalg.outer(_a(xp, [1e200]), _a(xp, [1e200])),
    "linalg.cross": lambda xp: xp.linalg.cross(_a(xp, [1e200, 0, 0]), _a(xp, [0, 1e200, 0])),
    "linalg.vecdot": lambda xp: xp.linalg.vecdot(_a(xp, [1e200]), _a(xp, [1e200])),
    "linalg.matmul": lambda xp: xp.linalg.matmul(_a(xp, [[1e200]]), _a(xp, [[1e200]])),
    "linalg.tensordot": lambda xp: xp.linalg.tensordot(_a(xp, [[1e200]]), _a(xp, [[1e200]])),
    "linalg.trace": lambda xp: xp.linalg.trace(_full(xp, (2, 2), 1e308)),
})


@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_reports_as_numpy(case, modes):
    check_reports(CASES[case], modes)


def test_nothing_is_reported_while_torch_traces():
    def traced(t):
        x = shim.asarray(t)
        big = x * 1e200
        results = [shim.dot(big, big), big @ big, shim.outer(big, big), shim.kron(big, big),
                   shim.tensordot(big, big, 1), shim.cross(big, big[::-1]), shim.diff(x * 1e308 * x),
                   shim.gradient(x * 1e308), shim.polyval(big, big), shim.trace(shim.outer(big, big))]
        return [shim.asarray(r)._t for r in results]

    args = (torch.tensor([1.0, -3.0, 2.0], dtype=torch.float64),)
    assert_traces_quietly(traced, args)


NORMS = {
    "norm": lambda xp: xp.linalg.norm(_a(xp, [1e200, 1e200])),
    "norm float32": lambda xp: xp.linalg.norm(_a(xp, [1e30, 1e30], "float32")),
    "norm fro": lambda xp: xp.linalg.norm(_a(xp, [[1e200, 0], [0, 1e200]])),
    "norm complex": lambda xp: xp.linalg.norm(_a(xp, [1e200j, 1e200], "complex128")),
    "norm underflow": lambda xp: xp.linalg.norm(_a(xp, [1e-200, 1.0])),
    "norm axis": lambda xp: xp.linalg.norm(_a(xp, [[1e200, 1e200], [1.0, 2.0]]), axis=1),
    "norm axis sum overflows": lambda xp: xp.linalg.norm(_a(xp, [[1e154, 1e154], [1.0, 2.0]]), axis=1),
    "norm axis complex": lambda xp: xp.linalg.norm(_a(xp, [[1e200j, 1]], "complex128"), axis=1),
    "norm fro axes": lambda xp: xp.linalg.norm(_full(xp, (2, 2, 2), 1e200), axis=(1, 2)),
    "vector_norm": lambda xp: xp.linalg.vector_norm(_a(xp, [1e200, 1e200])),
    "matrix_norm": lambda xp: xp.linalg.matrix_norm(_a(xp, [[1e200, 0], [0, 1e200]])),
    "norm ord 3": lambda xp: xp.linalg.norm(_a(xp, [1e200, 1.0]), 3),
    "norm ord -1 of zero": lambda xp: xp.linalg.norm(_a(xp, [0.0, 1.0]), -1),
    "norm ord -2 of zero": lambda xp: xp.linalg.norm(_a(xp, [0.0, 1.0]), -2),
    "norm ord 0.5": lambda xp: xp.linalg.norm(_a(xp, [1e308, 1e308]), 0.5),
    "norm ord 0.5 keepdims": lambda xp: xp.linalg.norm(_a(xp, [[1e308, 1e308]]), 0.5, axis=1, keepdims=True),
    "norm ord -1 axis": lambda xp: xp.linalg.norm(_a(xp, [[0.0, 1.0], [2.0, 2.0]]), -1, axis=1),
    "norm ord 1": lambda xp: xp.linalg.norm(_a(xp, [1e308, 1e308]), 1),
    "norm ord 1 matrix": lambda xp: xp.linalg.norm(_a(xp, [[1e308, 1], [1e308, 1]]), 1),
    "norm ord inf matrix": lambda xp: xp.linalg.norm(_a(xp, [[1e308, 1e308], [1, 1]]), INF),
    "norm ord inf vector is quiet": lambda xp: xp.linalg.norm(_a(xp, [1e308, 1e308]), INF),
    "norm is quiet": lambda xp: xp.linalg.norm(_a(xp, [3.0, 4.0])),
    "norm inf operand is quiet": lambda xp: xp.linalg.norm(_a(xp, [INF, 1.0])),
}


@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("case", sorted(NORMS))
def test_norms_report_as_numpy(case, modes):
    check_reports(NORMS[case], modes)


DETERMINANTS = {
    "det overflow": lambda xp: xp.linalg.det(_a(xp, [[1e200, 0], [0, 1e200]])),
    "det float32 overflows in the cast": lambda xp: xp.linalg.det(_a(xp, [[1e20, 0], [0, 1e20]], "float32")),
    "det float32 is computed in double": lambda xp: xp.linalg.det(_a(xp, [[1e-30, 0], [0, 1e-30]], "float32")),
    "det underflow": lambda xp: xp.linalg.det(_a(xp, [[1e-200, 0], [0, 1e-200]])),
    "det NaN": lambda xp: xp.linalg.det(_a(xp, [[NAN, 0], [0, 1.0]])),
    "det NaN float32": lambda xp: xp.linalg.det(_a(xp, [[NAN, 0], [0, 1.0]], "float32")),
    "det inf is quiet": lambda xp: xp.linalg.det(_a(xp, [[INF, 0], [0, 1.0]])),
    "det stack": lambda xp: xp.linalg.det(_a(xp, [[[1e200, 0], [0, 1e200]], [[1, 0], [0, 1]]])),
    "det complex overflow": lambda xp: xp.linalg.det(_a(xp, [[1e200, 0], [0, 1e200j]], "complex128")),
    "det singular is +0.0": lambda xp: xp.linalg.det(_a(xp, [[1.0, 2], [2, 4]])),
    "det singular 3x3 is +0.0": lambda xp: xp.linalg.det(_a(xp, [[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])),
    "det singular complex": lambda xp: xp.linalg.det(_a(xp, [[1.0, 2], [2, 4]], "complex128")),
    "det zero pivot beside inf is +0.0": lambda xp: xp.linalg.det(_a(xp, [[INF, 0], [0, 0.0]])),
    "det underflow keeps its sign": lambda xp: xp.linalg.det(_a(xp, [[0, 1e-200], [1e-200, 0]])),
    "slogdet NaN": lambda xp: xp.linalg.slogdet(_a(xp, [[NAN, 0], [0, 1.0]])).logabsdet,
    "slogdet singular sign is +0.0": lambda xp: xp.linalg.slogdet(_a(xp, [[1.0, 2], [2, 4]])).sign,
    "slogdet overflow is quiet": lambda xp: xp.linalg.slogdet(_a(xp, [[1e200, 0], [0, 1e200]])),
}


@pytest.mark.parametrize("modes", MODES, **_IDS)
@pytest.mark.parametrize("case", sorted(DETERMINANTS))
def test_determinants_report_as_numpy(case, modes):
    check_reports(DETERMINANTS[case], modes)
