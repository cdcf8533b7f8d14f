"""Review: SplitComplex's select_scatter rule on a write at a
symbolic index (a loop variable traced as a SymInt: ``out[:, k] = z`` in a loop body).
``_covering_sources`` computes ``index % shape[dim]`` on the index, which is an fx Node
there: TypeError out of the pass (Inductor's compile fails) instead of the per-part rule."""
import warnings

import numpy as np
import torch
from torch._inductor.decomposition import select_decomp_table
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes.complex_lowering import SplitComplex

aten = torch.ops.aten


def write_at(buf, a):
    return torch.select_scatter(buf, a, 1, 1) * 2


def test_a_write_at_a_symbolic_index_keeps_its_scatter():
    buf = torch.randn(3, 2, dtype=torch.complex128)
    a = torch.randn(3, dtype=torch.complex128)
    gm = make_fx(write_at, decomposition_table=select_decomp_table(), tracing_mode="fake")(buf, a)
    scatter = next(n for n in gm.graph.nodes if n.target is aten.select_scatter.default)
    with gm.graph.inserting_before(scatter):
        index = gm.graph.placeholder("k")       # the loop index, a SymInt input of the graph
    index.meta["val"] = 1
    scatter.args = (*scatter.args[:3], index)
    SplitComplex()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    for k in (0, 1):
        torch.testing.assert_close(gm(buf, a, k), torch.select_scatter(buf, a, 1, k) * 2, rtol=0, atol=0)


def write_columns(z, w, n):
    out = np.zeros((z.shape[0], 4), dtype=z.dtype)
    for k in range(n):
        out[:, k] = z[:, k] * w[k]
        out = out * 1.0
    return out


def test_a_loop_writing_complex_columns_compiles():
    """End to end: before the fix npcompile warns "backend 'inductor' failed on graph #3
    of write_columns (InductorError: TypeError: unsupported operand type(s) for %: 'Node'
    and 'int'); running that graph eagerly" (an error under fullgraph)."""
    rng = np.random.default_rng(0)
    z = rng.standard_normal((8, 4)) + 1j * rng.standard_normal((8, 4))
    w = rng.standard_normal(4) + 1j
    jitted = npcompile.jit(write_columns)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="npcompile: backend")
        for n in (4, 4, 3, 4):
            np.testing.assert_allclose(jitted(z, w, n), write_columns(z, w, n), rtol=1e-12)
