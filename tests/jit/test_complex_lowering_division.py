"""Complex division by a real, bit for bit against NumPy: SplitComplex's short form of
Smith's algorithm for a divisor whose imaginary part is the constant +0 (a real tensor or
number cast to complex), and the shim's short form traced and compiled by
``npcompile.jit`` (eager and Inductor backends). NaN parts compare as NaN."""
import numpy as np
import pytest
import torch
from torch._inductor.decomposition import select_decomp_table
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes.complex_lowering import SplitComplex
from tests.shim.test_complex_division import assert_bits, special_complexes, special_reals

aten = torch.ops.aten
DTYPES = pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["c128", "c64"])


def _split(fn, *args):
    gm = make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*args)
    SplitComplex()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm


def _complex_with_imag(dtype, imag):
    b = np.empty(len(special_reals(dtype)), special_complexes(dtype).dtype)
    b.real, b.imag = special_reals(dtype), imag
    return b[None, :]


def torch_divisions(a, b, b_plus, b_minus):
    """Real divisors (a tensor, numbers, a real cast to complex), then the full route:
    a real dividend, a complex divisor with imaginary part -0 and one computed +0."""
    return (a / b, a / 3, a / 0.0, a / -0.0, a / float("inf"), a / b.to(a.dtype),
            b / a, a / b_minus, a / b_plus)


def numpy_divisions(a, b, b_plus, b_minus):
    zero = np.array(0.0, b.dtype)
    return (a / b, a / np.array(3, b.dtype), a / zero, a / -zero, a / np.array(np.inf, b.dtype),
            a / b.astype(a.dtype), b / a, a / b_minus, a / b_plus)


@DTYPES
def test_the_pass_divides_by_reals_as_numpy(dtype):
    a, b = special_complexes(dtype)[:, None], special_reals(dtype)[None, :]
    b_plus, b_minus = _complex_with_imag(dtype, 0.0), _complex_with_imag(dtype, -0.0)
    args = [torch.from_numpy(x) for x in (a, b, b_plus, b_minus)]
    gm = _split(torch_divisions, *args)
    with np.errstate(all="ignore"):
        expected = numpy_divisions(a, b, b_plus, b_minus)
    for want, got in zip(expected, gm(*args)):
        assert_bits(want, got.numpy())


def test_the_pass_takes_the_short_form_for_constant_zero_imaginary_parts():
    """Six real divisors take the short form (no ``|br| >= |bi|`` comparison); the real
    dividend and the two complex divisors (an input's +0 is not known) keep Smith's."""
    dtype = np.float64
    args = [torch.from_numpy(x) for x in (special_complexes(dtype)[:, None], special_reals(dtype)[None, :],
                                           _complex_with_imag(dtype, 0.0), _complex_with_imag(dtype, -0.0))]
    targets = [n.target for n in _split(torch_divisions, *args).graph.nodes]
    assert targets.count(aten.ge.Tensor) == 3
    assert targets.count(aten.copysign.Tensor) == 6


def divisions(a, b, b_plus, b_minus):
    return a / b, a / 3, a / 0.0, a / -0.0, b / a, a / b_minus, a / b_plus, a / np.float32(-2.0)


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@DTYPES
def test_jitted_divisions_by_reals_match_numpy_bit_for_bit(dtype, backend):
    a, b = special_complexes(dtype)[:, None], special_reals(dtype)[None, :]
    args = (a, b, _complex_with_imag(dtype, 0.0), _complex_with_imag(dtype, -0.0))
    with np.errstate(all="ignore"):
        expected = divisions(*args)
        actual = npcompile.jit(divisions, backend=backend)(*(x.copy() for x in args))
    assert len(actual) == len(expected)
    for want, got in zip(expected, actual):
        assert_bits(want, got)
