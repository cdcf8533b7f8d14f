"""vector_width: which graphs get 256-bit vectors (decided on traced aten graphs), and
inside Inductor that the width holds for that graph's code only, with NumPy's values."""
import numpy as np
import pytest
import torch
import torch._inductor.config
from torch._inductor import cpu_vec_isa
from torch.fx.experimental.proxy_tensor import make_fx

from npcompile.passes import vector_width
from tests.jit.harness import check_jit


def _decisions(fn, *args):
    gm = make_fx(fn)(*args)
    return [vector_width.short_innermost_reduction(node) for node in gm.graph.nodes
            if node.op == "call_function" and node.target in vector_width._REDUCTIONS]


@pytest.mark.parametrize("shape, dtype, dim, short", [
    ((100, 16, 8), torch.float64, -1, True), ((100, 8), torch.float64, 1, True),
    ((100, 16), torch.float64, -1, False), ((100, 40), torch.float64, -1, False),
    ((100, 20), torch.float32, -1, True), ((100, 32), torch.float32, -1, False),
    ((100, 8), torch.float64, 0, False), ((100, 1), torch.float64, -1, False),
    ((8,), torch.float64, 0, False), ((100, 8), torch.int64, -1, False),
], ids=str)
@pytest.mark.parametrize("reduce", [torch.sum, torch.amax, torch.argmin], ids=lambda f: f.__name__)
def test_short_innermost_reductions_are_found(shape, dtype, dim, short, reduce):
    x = torch.ones(shape, dtype=dtype)
    assert _decisions(lambda x: reduce(x, dim), x) == [short]


def test_several_axes_or_symbolic_sizes_are_not_short_reductions():
    x = torch.ones(10, 4, 8, dtype=torch.float64)
    assert _decisions(lambda x: torch.sum(x, (1, 2)), x) == [False]
    gm = make_fx(lambda x: torch.sum(x, -1), tracing_mode="symbolic")(x)
    assert not any(vector_width.short_innermost_reduction(node) for node in gm.graph.nodes)


def nearest(points, centroids):
    d2 = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    return np.argmin(d2, axis=1), d2.min(axis=1)


def row_sums(x):
    return np.exp(x).sum(axis=-1)


@pytest.mark.inductor
def test_the_width_holds_for_that_graphs_code_only(monkeypatch):
    widths = []
    real = cpu_vec_isa.pick_vec_isa

    def spy():
        isa = real()
        widths.append(isa.bit_width())
        return isa
    monkeypatch.setattr(cpu_vec_isa, "pick_vec_isa", spy)
    rng = np.random.default_rng(0)
    expected = {256} if vector_width.avx512_chosen() else {real().bit_width()}
    with torch._inductor.config.patch(fx_graph_cache=False):
        widths.clear()
        check_jit(nearest, rng.standard_normal((50, 8)), rng.standard_normal((16, 8)), backend="inductor",
                  rtol=1e-12, atol=1e-12)
        assert widths[-1] in expected and expected <= set(widths)   # the code generated last: the kernels
        assert torch._inductor.config.cpp.simdlen is None
        widths.clear()
        check_jit(row_sums, rng.standard_normal((50, 64)), backend="inductor", rtol=1e-12, atol=1e-12)
        assert set(widths) == {real().bit_width()}


@pytest.mark.inductor
def test_a_width_the_user_set_is_kept():
    x = np.random.default_rng(1).standard_normal((20, 8))
    with torch._inductor.config.patch({"cpp.simdlen": 512, "fx_graph_cache": False}):
        check_jit(lambda x: x.sum(axis=-1), x, backend="inductor", rtol=1e-12, atol=1e-12)
        assert torch._inductor.config.cpp.simdlen == 512
