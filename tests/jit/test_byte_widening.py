"""The byte-widening pass: bool, int8 and uint8 arithmetic computed as int32 must give
the byte results exactly (wrap-around included), and the jitted programs NumPy's."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.fx.experimental.proxy_tensor import make_fx

from npcompile.passes.byte_widening import WidenBytes, narrow_bytes, widen_bytes
from npcompile.passes.stencils import StoreStencilInputs
from tests.jit.harness import check_jit
from tests.jit.test_stencils import life

aten = torch.ops.aten
_BYTES = (torch.bool, torch.int8, torch.uint8)
_COMPARISONS = {getattr(aten, name).Tensor for name in ("eq", "ne", "lt", "le", "gt", "ge")} \
    | {getattr(aten, name).Scalar for name in ("eq", "ne", "lt", "le", "gt", "ge")}


def _widened(fn, *example):
    """``fn``'s decomposed graph after the stencil and widening passes, as Inductor runs them."""
    from torch._inductor.decomposition import select_decomp_table

    gm = make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*example)
    StoreStencilInputs()(gm.graph)
    WidenBytes()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm


def _byte_arithmetic(gm):
    """The ops left computing on byte tensors, other than the edges' conversions."""
    return [node for node in gm.graph.nodes if node.op == "call_function"
            and node.target not in (narrow_bytes, widen_bytes, torch.ops.prims.convert_element_type.default)
            and isinstance(node.meta.get("val"), torch.Tensor) and node.meta["val"].dtype in _BYTES
            and node.target not in _COMPARISONS]   # masks, kept in registers


def neighbour_sums(board):
    """Game of life on a torus, two generations: rolls, int8 sums, boolean rules."""
    for _ in range(2):
        n = sum(torch.roll(torch.roll(board, dy, 0), dx, 1).to(torch.int8)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
        board = (n == 3) | (board & (n == 2))
    return board


def int8_wraps(a, b):
    s = a + b + a          # wraps around 127/-128
    p = a * b              # product wraps too
    return s, p, s == -128, p > 10, ~s, s & b, (s ^ b) | a, torch.where(s > 0, s, b)


def uint8_wraps(a, b):
    d = a - b              # below zero wraps to 255...
    return d, d * 3, d >= 200, ~d, (d + 1).to(torch.int8), d.to(torch.bool), d.sum(dtype=torch.int64)


def bools(m, k):
    both = m.to(torch.int8) + k.to(torch.int8)
    return both, ~m, torch.logical_xor(m, k), torch.logical_not(both.to(torch.bool)), \
        m & (both == 1), torch.where(m, both, -both)


def shifted_bytes(x):
    """An int8 input read at several offsets (widened at the edge), then summed."""
    return x[1:] + x[:-1] + x[1:] * x[:-1], (x[1:] + x[:-1]).to(torch.float32)


_small_ints = st.integers(-128, 127)


@given(st.integers(1, 6), st.integers(1, 6), st.data())
@settings(max_examples=30)
def test_game_of_life_graph_keeps_values_and_loses_byte_arithmetic(rows, cols, data):
    board = torch.from_numpy(data.draw(hnp.arrays(np.bool_, (rows, cols))))
    gm = _widened(neighbour_sums, board)
    assert _byte_arithmetic(gm) == []
    assert torch.equal(gm(board), neighbour_sums(board))


@pytest.mark.parametrize("fn, dtype", [(int8_wraps, torch.int8), (uint8_wraps, torch.uint8),
                                       (bools, torch.bool), (shifted_bytes, torch.int8)])
@given(data=st.data())
@settings(max_examples=40)
def test_widened_byte_arithmetic_gives_byte_results(fn, dtype, data):
    info = np.iinfo(np.uint8 if dtype == torch.uint8 else np.int8) if dtype != torch.bool else None
    np_dtype = {torch.int8: np.int8, torch.uint8: np.uint8, torch.bool: np.bool_}[dtype]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=2, max_side=5))
    elements = None if info is None else st.integers(int(info.min), int(info.max))
    args = [torch.from_numpy(data.draw(hnp.arrays(np_dtype, shape, elements=elements)))
            for _ in range(1 if fn is shifted_bytes else 2)]
    gm = _widened(fn, *args)
    assert _byte_arithmetic(gm) == []
    expected, actual = fn(*args), gm(*args)
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype and a.shape == e.shape
        assert torch.equal(a, e), (e, a)


def test_floats_converted_to_bytes_are_not_widened():
    """A float-to-int8 conversion keeps torch's own semantics: the pass leaves it be."""
    def from_floats(x):
        b = x.to(torch.int8)
        return b + b
    gm = _widened(from_floats, torch.tensor([1.5, -3.0, 100.0]))
    assert not any(node.target is widen_bytes for node in gm.graph.nodes)
    x = torch.tensor([1.5, -3.0, 100.0])
    assert torch.equal(gm(x), from_floats(x))


def test_comparisons_with_scalars_outside_the_byte_range_keep_bytes():
    def compare(a):
        s = a + a
        return s == 300, s < 5
    a = torch.tensor([100, -100, 2], dtype=torch.int8)
    gm = _widened(compare, a)
    for e, g in zip(compare(a), gm(a)):
        assert torch.equal(g, e)


def saturating_counts(a, b):
    """uint8 and int8 wrap-around, bitwise and boolean rules, as NumPy computes them."""
    c = (a + b * 3 - 7).astype(np.uint8)
    d = c.astype(np.int8) + np.int8(100)
    keep = (c > 128) ^ (d < 0)
    return c, d, keep, np.where(keep, d, ~d), (c & 0x0F).astype(np.int8).sum()


@pytest.mark.inductor
def test_byte_programs_match_numpy_under_inductor():
    rng = np.random.default_rng(1)
    check_jit(life, rng.random((9, 13)) < 0.4, backend="inductor")
    a = rng.integers(0, 256, (6, 7)).astype(np.uint8)
    b = rng.integers(0, 256, (6, 7)).astype(np.uint8)
    check_jit(saturating_counts, a, b, backend="inductor")


@pytest.mark.inductor
def test_life_stays_right_as_the_board_changes_size():
    """Later sizes run a dynamic graph, where roll offsets and wraps are symbolic."""
    import npcompile
    jitted = npcompile.jit(life, backend="inductor")
    rng = np.random.default_rng(2)
    for shape in [(6, 8), (7, 11), (5, 3), (12, 2)]:
        board = rng.random(shape) < 0.4
        np.testing.assert_array_equal(jitted(board.copy()), life(board))


def update_in_place(board, counts):
    """Byte inputs written into and returned: the caller's arrays must change as NumPy's."""
    counts += board.astype(np.uint8) * 3
    board[1:] ^= board[:-1]
    return board, counts


@pytest.mark.inductor
def test_byte_inputs_updated_in_place_under_inductor():
    rng = np.random.default_rng(4)
    check_jit(update_in_place, rng.random((5, 6)) < 0.5, rng.integers(250, 256, (5, 6)).astype(np.uint8),
              backend="inductor")
