"""The stencil pass: arrays read at overlapping offsets are stored once (as NumPy stores
every step), arrays read whole or through disjoint views still fuse; results stay NumPy's."""
import numpy as np
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from npcompile.passes.stencils import _STORE, StoreStencilInputs
from tests.jit.harness import check_jit


def _stores_after_pass(fn, *example):
    """Run the pass on ``fn``'s decomposed aten graph; the nodes it chose to store."""
    from torch._inductor.decomposition import select_decomp_table

    gm = make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*example)
    StoreStencilInputs()(gm.graph)
    gm.graph.lint()
    return [node.args[0].target for node in gm.graph.nodes if node.target is _STORE]


def test_overlapping_slices_are_stored():
    def two_steps(u):
        v = u * 2.0 + 1.0
        return v[2:] - 2.0 * v[1:-1] + v[:-2]
    assert _stores_after_pass(two_steps, torch.rand(16, dtype=torch.float64)) == [torch.ops.aten.add.Tensor]


def test_rolls_are_stored():
    def neighbours(b):
        c = b * 3
        return torch.roll(c, 1, 0) + torch.roll(c, -1, 0)
    assert len(_stores_after_pass(neighbours, torch.rand(8, 8))) == 1


def test_disjoint_rows_and_whole_reads_still_fuse():
    def rows(state):
        s = state * 0.5 + 1.0
        return s[0] * s[1] - s[2]
    def whole(u):
        v = torch.exp(u)
        return v + v * 2
    assert _stores_after_pass(rows, torch.rand(3, 10)) == []
    assert _stores_after_pass(whole, torch.rand(10)) == []
    assert _stores_after_pass(lambda u: (u[1:] + u[:-1]), torch.rand(10)) == []   # inputs are stored already


def wave_steps(u, u_prev):
    for _ in range(6):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2.0 * u[1:-1] - u_prev[1:-1] + 0.25 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev, u = u, u_next
    return u, u_prev


def life(board):
    for _ in range(4):
        neighbours = sum(np.roll(np.roll(board, dy, axis=0), dx, axis=1).astype(np.int8)
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
        board = (neighbours == 3) | (board & (neighbours == 2))
    return board


@pytest.mark.inductor
def test_stencil_loops_match_numpy_under_inductor():
    x = np.linspace(0, 6, 40)
    check_jit(wave_steps, np.sin(x), np.sin(x + 0.01), backend="inductor", rtol=1e-12)
    # without the pass Inductor's CPU code for this fused bool/int8 kernel is wrong
    # (see benchmarks/workloads.py game_of_life); with it each generation is stored
    check_jit(life, np.random.default_rng(0).random((12, 12)) < 0.3, backend="inductor")


def test_pass_cache_key_follows_the_pass_source(tmp_path, monkeypatch):
    """Inductor's on-disk cache is keyed by the passes' uuid: an edited pass module must
    change it, or a graph compiled by the old pass would be served."""
    import sys

    from npcompile.passes.pipeline import GraphPasses

    module = sys.modules[StoreStencilInputs.__module__]
    keys = []
    for version, text in enumerate(["# one\n", "# two\n"]):
        copy = tmp_path / f"stencils_{version}.py"
        copy.write_text(text)
        monkeypatch.setattr(module, "__file__", str(copy))
        keys.append(GraphPasses([StoreStencilInputs()]).uuid())
    assert keys[0] != keys[1]
