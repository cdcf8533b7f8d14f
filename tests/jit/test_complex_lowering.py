"""SplitComplex: the pass on traced aten graphs (cheap), then inside Inductor through
``npcompile.jit(backend="inductor")`` against NumPy (a dozen compiles), each checking
which ops still read or write complex tensors after the pass."""
import re

import numpy as np
import pytest
import torch
import torch._inductor.config
from torch._inductor import inductor_prims
from torch._inductor.decomposition import select_decomp_table
from torch._inductor.utils import run_and_get_code
from torch.fx.experimental.proxy_tensor import make_fx

from benchmarks.workloads import by_name
from npcompile.passes.complex_lowering import SplitComplex
from tests.jit.harness import check_jit
from tests.oracle import assert_same

aten = torch.ops.aten
_rng = np.random.default_rng(11)
# views between complex values and their parts: the pass's split and rebuild, and the
# real-to-complex views Inductor's decompositions return (which Inductor supports)
BOUNDARY = {aten.view_as_real.default, aten.view_as_complex.default, aten.view.dtype}


def _complex_ops(graph):
    """The call targets of ``graph`` that read or write a complex tensor."""
    def is_complex(node):
        value = node.meta.get("val")
        return isinstance(value, torch.Tensor) and value.is_complex()
    return {n.target for n in graph.nodes
            if n.op == "call_function" and (is_complex(n) or any(map(is_complex, n.all_input_nodes)))}


def _array(shape, dtype=np.complex128):
    return (_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)).astype(dtype)


def _grid(parts):
    """Every (real, imag) pair of ``parts``, flattened, built without arithmetic (1j * inf
    would be nan + infj)."""
    z = np.empty((len(parts), len(parts)), np.result_type(parts.dtype, np.complex64))
    z.real, z.imag = parts[:, None], parts[None, :]
    return z.reshape(-1)


SPECIAL_PARTS = {   # zeros, a subnormal, values near overflow and around exp's thresholds
    np.complex128: np.array([0.0, -0.0, 1.0, -2.5, 5e-324, 1e300, 709.9, 1000.0, 1432.0,
                             np.inf, -np.inf, np.nan]),
    np.complex64: np.array([0.0, -0.0, 1.0, -2.5, 1.4e-45, 1e38, 88.9, 120.0, 177.8,
                            np.inf, -np.inf, np.nan], np.float32),
}


# ---- the pass on traced graphs --------------------------------------------------------------
def _split(fn, *args):
    """Trace ``fn`` to aten decomposed as for Inductor, with fake tensors, and run the
    pass: (graph module, ops left complex)."""
    gm = make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*args)
    SplitComplex()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm, _complex_ops(gm.graph)


def test_graph_without_complex_values_is_untouched():
    gm = make_fx(lambda x: (x * 2).sin().sum(0), tracing_mode="fake")(torch.ones(3, 4))
    before = gm.code
    SplitComplex()(gm.graph)
    gm.recompile()
    assert gm.code == before


def test_values_read_by_several_ops_have_their_parts_stored_once():
    """A loop-carried value (read by the next step's abs, product and where) is stored,
    so no step's parts are inlined into the next; a value read once still fuses."""
    def steps(z, c):
        for _ in range(4):
            z = torch.where(z.abs() <= 2.0, z * z + c, z)
        return z
    z, c = torch.zeros(3, 5, dtype=torch.complex128), torch.from_numpy(_array((3, 5)))
    gm, _ = _split(steps, z, c)
    stored = [n for n in gm.graph.nodes if n.target is inductor_prims.force_stride_order]
    assert len(stored) == 2 * 3    # both parts of the first three steps' z
    torch.testing.assert_close(gm(z, c), steps(z, c), rtol=0, atol=0)


def test_uuid_is_constant_and_versioned():
    assert SplitComplex().uuid() == SplitComplex().uuid()
    assert re.fullmatch(r"\S+/\d+", SplitComplex().uuid())


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=["c128", "c64"])
def test_arithmetic_on_special_values_matches_numpy(dtype):
    """Smith's division (by zero too), NumPy's abs (finite for huge parts), glibc's cexp
    special cases: on every pair of special parts, compared with NumPy's results.
    (Not multiplication: NumPy's array loop fuses a multiply-add, which Inductor's C++
    backend cannot be asked for, so a product can differ in its last bit, and overflow
    to -inf + infj where NumPy's scalars and torch give nan + infj.)"""
    grid = _grid(SPECIAL_PARTS[dtype])
    a, b = grid[:, None], grid[None, :]

    def fn(a, b):
        return a / b, a.abs(), torch.exp(a), a / 0.0

    gm, left = _split(fn, torch.from_numpy(a), torch.from_numpy(b))
    assert left <= BOUNDARY
    with np.errstate(all="ignore"):
        expected = (a / b, np.abs(a), np.exp(a), a / np.array(0.0, dtype))
    for got, want in zip(gm(torch.from_numpy(a), torch.from_numpy(b)), expected):
        # part by part: assert_allclose finds inf + nanj unequal to itself
        assert_same(want.real, got.numpy().real)
        assert_same(np.imag(want), np.imag(got.numpy()))


def test_views_creations_conversions_and_comparisons_give_torchs_values():
    a, b = (torch.from_numpy(_array((3, 4))) for _ in range(2))
    f = torch.randn(3, 4, dtype=torch.float32)

    def fn(a, b, f):
        c = torch.complex(f, f * 2) + a.T.T
        moved = a.permute(1, 0)[1:, ::2].unsqueeze(0).squeeze(0).expand(2, 3, 2).reshape(6, 2)
        filled = (torch.full((3, 4), 1 - 2j, dtype=torch.complex128)
                  * torch.scalar_tensor(2j, dtype=torch.complex128))
        return (moved * 2, filled + c, a.conj() * b, a.real + b.imag, torch.view_as_real(a * b),
                (a * b).to(torch.complex64), (a + 1).real.to(torch.float32), a.clone() - b,
                torch.where(a.real > 0, a, b), a == b, a != a.conj(), a * f, a - 3, a + f, 2j + a,
                a.T * b.T, torch.cat([a, b]) * 2, a[torch.tensor([2, 0])] + b.sum(0, keepdim=True),
                a.flip(0).index_put((torch.tensor([1]),), b[0]) + a.sum())

    gm, left = _split(fn, a, b, f)
    assert left <= BOUNDARY | {aten.permute.default}   # a.T * b.T is rebuilt transposed, viewed back
    for got, want in zip(gm(a, b, f), fn(a, b, f)):
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)   # sums may add in another order


def test_unknown_ops_read_rebuilt_complex_values():
    a, b = (torch.from_numpy(_array((4, 3))) for _ in range(2))

    def fn(a, b):
        return torch.cumsum(a * b, 0) * 2 + a.sum(), torch.angle(a - b)

    gm, left = _split(fn, a, b)
    assert left - BOUNDARY == {aten.cumsum.default}   # angle decomposes into real ops
    for got, want in zip(gm(a, b), fn(a, b)):
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_outputs_that_are_views_stay_views():
    a = torch.from_numpy(_array((3, 4)))

    def fn(a):
        z = a * 2
        return a.T, a.real, z, z.imag

    gm, _ = _split(fn, a)
    transposed, real, z, imag = gm(a)
    assert transposed.data_ptr() == a.data_ptr() and real.untyped_storage().data_ptr() == a.data_ptr()
    assert imag.untyped_storage().data_ptr() == z.untyped_storage().data_ptr()
    torch.testing.assert_close(imag, (a * 2).imag, rtol=0, atol=0)


# ---- the pass inside Inductor, through npcompile.jit ------------------------------------------
class RecordingSplit(SplitComplex):
    """SplitComplex that keeps the ops left complex in the graphs it rewrote."""

    def __init__(self):
        self.left = set()

    def __call__(self, graph):
        super().__call__(graph)
        self.left |= _complex_ops(graph)


def _jit_with_pass(fn, *args, **check_jit_kwargs):
    """check_jit on npcompile's inductor backend, which runs the pass set in Inductor's
    config after its own: (ops left complex, the jitted function)."""
    recording = RecordingSplit()
    # no FX graph cache: a cached graph would skip the passes, and the recording with them
    with torch._inductor.config.patch(post_grad_custom_pre_pass=recording, fx_graph_cache=False):
        jitted = check_jit(fn, *args, backend="inductor", **check_jit_kwargs)
    return recording.left, jitted


@pytest.mark.inductor
def test_mandelbrot_compiles_to_kernels_without_complex_fallbacks():
    """The generated code's only aten calls are the split of a complex input and the
    joining of a complex output (views).
    Inductor's "does not support code generation for complex operators" warning cannot
    tell: it is issued once per process (a functools.cache), for any node reading a
    complex tensor, that split included."""
    workload = by_name(["mandelbrot"])[0]   # its 20 iterations: a first graph, then a chunked body graph
    (left, _), codes = run_and_get_code(_jit_with_pass, workload.fn, *workload.inputs("tiny"), graphs=2, breaks=2)
    assert aten.view_as_real.default in left and left <= BOUNDARY   # the body returns z: complex again
    assert set(re.findall(r"torch\.ops\.aten\.(\w+)", "".join(codes))) <= {"view_as_real", "view_as_complex"}


def arithmetic(a, b, x):
    z = (a * b - a / b + 2.5) * (1 - 2j) + x * a
    return -z + np.square(b) - np.conj(a) * 1j, z / 3, np.exp(a) + np.abs(b)


@pytest.mark.inductor
@pytest.mark.parametrize("dtype, atol", [(np.complex128, 1e-12), (np.complex64, 1e-5)], ids=["c128", "c64"])
def test_arithmetic_with_scalars_and_real_arrays_matches_numpy(dtype, atol):
    """complex64 arrays also meet a float64 array (promoting to complex128). An absolute
    tolerance too: NumPy's products round once less (a fused multiply-add), which shows
    where a sum cancels."""
    left, _ = _jit_with_pass(arithmetic, _array((5, 6), dtype), _array((5, 6), dtype),
                             _rng.standard_normal((5, 6)), atol=atol)
    assert left <= BOUNDARY


def special_values(a, b):
    quotient, exp, by_zero = a / b, np.exp(a), b / 0.0
    # parts apart: assert_allclose finds inf + nanj unequal to itself
    return quotient.real, quotient.imag, exp.real, exp.imag, by_zero.real, by_zero.imag, np.abs(a)


@pytest.mark.inductor
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=["c128", "c64"])
def test_special_values_compiled_match_numpy(dtype):
    """inf, nan, signed zeros, huge and subnormal parts, as compiled by Inductor's C++."""
    grid = _grid(SPECIAL_PARTS[dtype])
    left, _ = _jit_with_pass(special_values, grid[:, None], grid[None, :])
    assert left <= BOUNDARY


def select_and_compare(a, b):
    near = np.abs(a - b) < 1.5
    picked = np.where(near, a, b * 1j)
    return picked, a == picked, a != b, picked.real + a.imag, np.where(near, a, 0.5).imag


@pytest.mark.inductor
def test_where_comparisons_and_parts_match_numpy():
    left, _ = _jit_with_pass(select_and_compare, _array((4, 5)), _array((4, 5)))
    assert left <= BOUNDARY


def zero_dim(z, w, a):
    return z * w + a * z, np.abs(w), w.conj() - 1j


@pytest.mark.inductor
def test_zero_dim_inputs_match_numpy():
    left, _ = _jit_with_pass(zero_dim, np.complex128(1 + 2j), np.array(3 - 1j), _array((2, 3)))
    assert left <= BOUNDARY


def strided(a, b):
    return a * b + 1j, np.abs(a), b * 2, (b - 1).T


@pytest.mark.inductor
def test_non_contiguous_inputs_and_transposed_results_match_numpy():
    """The transposed result is rebuilt in the transposed layout and viewed back."""
    left, _ = _jit_with_pass(strided, _array((3, 8))[:, ::2], _array((4, 3)).T)
    assert left <= BOUNDARY | {aten.permute.default}


def empty(a):
    return a * a + 1j, np.abs(a), a / (a + 1)


@pytest.mark.inductor
def test_empty_arrays_match_numpy():
    left, _ = _jit_with_pass(empty, np.zeros((0, 3), np.complex128))
    assert left <= BOUNDARY


def views_returned(a):
    z = a * 2
    return z, z.real, a.imag


@pytest.mark.inductor
def test_returned_views_alias_as_in_numpy():
    a = _array((3, 4))
    _, jitted = _jit_with_pass(views_returned, a)
    z, real, imag = jitted(a)
    assert np.shares_memory(z, real) and np.shares_memory(imag, a)


def stencil_and_gather(u, index):
    v = u.copy()
    v[1:-1] = 0.5 * (u[:-2] + u[2:]) * 1j
    both = np.concatenate([v, u[::-1]])
    return both[index] * 2, np.sum(both * both), v.mean(axis=0)


@pytest.mark.inductor
def test_slice_assignment_concatenate_indexing_and_sums_match_numpy():
    left, _ = _jit_with_pass(stencil_and_gather, _array((6, 4)), np.array([0, 7, 3, 3]))
    assert left <= BOUNDARY


def unknown_in_between(a, b):
    return np.cumsum(a * b, axis=0) * 2 + a


@pytest.mark.inductor
def test_an_unknown_op_between_rewritten_ones_matches_numpy():
    left, _ = _jit_with_pass(unknown_in_between, _array((4, 3)), _array((4, 3)))
    assert left - BOUNDARY == {aten.cumsum.default}


@pytest.mark.inductor
def test_torch_compile_graph_matches_numpy():
    """The pass on a graph torch.compile captured from torch code, not the shim's."""
    a, b = torch.from_numpy(_array((3, 4))), torch.from_numpy(_array((3, 4)))

    def fn(a, b):
        return (a / b, torch.exp(a).conj(), a.abs(), a * 2j + 1, torch.where(a.real > 0, a, b).imag,
                (a * b).to(torch.complex64), a == b)

    recording = RecordingSplit()
    with torch._inductor.config.patch(post_grad_custom_pre_pass=recording, fx_graph_cache=False):
        got = torch.compile(fn, backend="inductor")(a, b)
    assert recording.left <= BOUNDARY | {aten._conj.default}   # the returned conj view stays one
    an, bn = a.numpy(), b.numpy()
    expected = (an / bn, np.exp(an).conj(), np.abs(an), an * 2j + 1, np.where(an.real > 0, an, bn).imag,
                (an * bn).astype(np.complex64), an == bn)
    for g, want in zip(got, expected):
        assert_same(want, g.resolve_conj().numpy())


def test_expanded_values_read_by_several_ops_stay_inlined():
    """An expanded value has parts whose elements share memory, which the stride-order
    prim that stores parts cannot write (issue 13: ``a[::2] = 1`` on a complex array):
    its parts stay inlined."""
    a = torch.from_numpy(_array((3, 4)))

    def fn(a):
        row = (a.sum(0) * 2).expand(3, 4)
        return row + a, row * a

    gm, left = _split(fn, a)
    assert left <= BOUNDARY
    stored = [n for n in gm.graph.nodes if n.target is inductor_prims.force_stride_order]
    assert all(0 not in n.args[1] for n in stored)
    for got, want in zip(gm(a), fn(a)):
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
