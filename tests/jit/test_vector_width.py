"""vector_width: which captured graphs get 256-bit vectors (decided on traced aten graphs),
and under Inductor that the width holds for that graph's whole compile only (so it is
part of Inductor's FX-cache key), with NumPy's values. tests/jit/test_warm_cache.py checks
those graphs on a warm cache."""
import numpy as np
import pytest
import torch
import torch._inductor.config
from torch._inductor import cpu_vec_isa
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from npcompile.gpu import triton_interpret
from npcompile.passes import vector_width
from tests.jit.harness import check_jit


@pytest.fixture
def avx512(monkeypatch):
    """Decide as on an AVX-512 machine, whatever this one is."""
    monkeypatch.setattr(vector_width, "avx512_chosen", lambda: True)


def _decisions(fn, *args):
    gm = make_fx(fn)(*args)
    return [vector_width.short_innermost_reduction(node) for node in gm.graph.nodes
            if node.op == "call_function" and node.target in vector_width.REDUCTIONS]


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


def test_several_axes_or_an_unknown_innermost_size_are_not_a_short_reduction():
    x = torch.ones(10, 4, 8, dtype=torch.float64)
    assert _decisions(lambda x: torch.sum(x, (1, 2)), x) == [False]
    gm = make_fx(lambda x: torch.sum(x, -1), tracing_mode="symbolic")(x)
    assert not any(vector_width.short_innermost_reduction(node) for node in gm.graph.nodes)


def distances(points, centroids):
    return torch.sum((points[:, None, :] - centroids[None, :, :]) ** 2, dim=-1).argmin(dim=1)


def distances_and_exp(x, points, centroids):
    return torch.exp(x).sum(), distances(points, centroids)


def prices(spot, strike):
    return torch.exp(-spot) * torch.log(spot / strike) + torch.erf(spot)


def _bits(fn, *args):
    return vector_width.bits_for(make_fx(fn)(*args), args)


def test_short_reductions_get_256_bits_unless_transcendentals_outweigh_them(avx512):
    points, centroids = torch.ones(1000, 8, dtype=torch.float64), torch.ones(16, 8, dtype=torch.float64)
    assert _bits(distances, points, centroids) == 256                              # 128000 reduced
    assert _bits(distances_and_exp, torch.ones(256000, dtype=torch.float64), points, centroids) == 256
    assert _bits(distances_and_exp, torch.ones(256001, dtype=torch.float64), points, centroids) is None
    assert _bits(prices, torch.ones(100, dtype=torch.float64), torch.ones(100, dtype=torch.float64)) is None
    cubes = lambda p, c: torch.sum((p[:, None, :] - c[None, :, :]) ** 3, dim=-1) ** 2.0   # noqa: E731
    assert _bits(lambda x, p, c: (x ** 2.0, cubes(p, c)), torch.ones(10 ** 6, dtype=torch.float64),
                 points, centroids) == 256                          # integer powers are products
    halves = lambda x, p, c: (x ** 1.5, distances(p, c))   # noqa: E731
    assert _bits(halves, torch.ones(10 ** 6, dtype=torch.float64), points, centroids) is None


def nearest(points, centroids):
    d2 = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    return np.argmin(d2, axis=1), d2.min(axis=1)


def test_npcompiles_dynamic_graphs_are_judged_by_their_size_hints(avx512):
    """A second number of points makes that size symbolic; the 8 coordinates stay fixed,
    so the reduction is still short and the graph keeps its 256 bits."""
    import npcompile

    graphs = []
    jitted = npcompile.jit(nearest, backend=lambda gm, example_inputs: graphs.append((gm, example_inputs)) or gm)
    rng = np.random.default_rng(2)
    for n in (50, 70):
        check = jitted(rng.standard_normal((n, 8)), rng.standard_normal((16, 8)))
        assert check[0].shape == (n,)
    assert len(graphs) == 2 and any(isinstance(v.meta["val"].shape[0], torch.SymInt)
                                    for v in graphs[1][0].graph.find_nodes(op="placeholder"))
    assert [vector_width.bits_for(gm, inputs) for gm, inputs in graphs] == [256, 256]


def test_no_narrow_vectors_without_avx512_or_under_a_users_width_or_for_triton_or_cuda(avx512, monkeypatch):
    points, centroids = torch.ones(1000, 8, dtype=torch.float64), torch.ones(16, 8, dtype=torch.float64)
    gm = make_fx(distances)(points, centroids)
    assert vector_width.bits_for(gm, (points, centroids)) == 256
    with torch._inductor.config.patch({"cpp.simdlen": 512}):
        assert vector_width.bits_for(gm, (points, centroids)) is None
    with torch._inductor.config.patch(cpu_backend="triton"):
        assert vector_width.bits_for(gm, (points, centroids)) is None
    mode = FakeTensorMode()
    with triton_interpret.cuda_flavoured():     # as npcompile's triton_cuda backend hands it to Inductor
        on_cuda, cuda_inputs = triton_interpret.retarget_to_cuda(gm, [mode.from_tensor(points),
                                                                      mode.from_tensor(centroids)], mode)
    assert vector_width.bits_for(on_cuda, cuda_inputs) is None
    made_on_cuda = make_fx(lambda p: distances(p, torch.ones(16, 8, dtype=torch.float64, device="cpu")))(points)
    for node in made_on_cuda.graph.nodes:
        node.kwargs = {k: torch.device("cuda", 0) if k == "device" else v for k, v in node.kwargs.items()}
    assert vector_width.bits_for(made_on_cuda, (points,)) is None          # a factory names CUDA
    monkeypatch.setattr(vector_width, "avx512_chosen", lambda: False)
    assert vector_width.bits_for(gm, (points, centroids)) is None


def row_sums(x):
    return np.exp(x).sum(axis=-1)


@pytest.fixture
def widths(monkeypatch):
    """The vector widths Inductor picks (its code generation and its C++ compile flags)."""
    seen = []
    real = cpu_vec_isa.pick_vec_isa

    def spy():
        isa = real()
        seen.append(isa.bit_width())
        return isa
    monkeypatch.setattr(cpu_vec_isa, "pick_vec_isa", spy)
    return seen


@pytest.mark.inductor
def test_the_width_holds_for_that_graphs_whole_compile_only(widths):
    rng = np.random.default_rng(0)
    native = cpu_vec_isa.pick_vec_isa().bit_width()
    expected = 256 if vector_width.avx512_chosen() else native
    with torch._inductor.config.patch(fx_graph_cache=False):
        widths.clear()
        check_jit(nearest, rng.standard_normal((50, 8)), rng.standard_normal((16, 8)), backend="inductor",
                  rtol=1e-12, atol=1e-12)
        assert widths and set(widths) == {expected}      # from Inductor's first look to the kernels' flags
        assert torch._inductor.config.cpp.simdlen is None
        widths.clear()
        check_jit(row_sums, rng.standard_normal((50, 64)), backend="inductor", rtol=1e-12, atol=1e-12)
        assert widths and set(widths) == {native}


@pytest.mark.inductor
def test_a_width_the_user_set_is_kept(widths):
    x = np.random.default_rng(1).standard_normal((20, 8))
    native = cpu_vec_isa.pick_vec_isa().bit_width()
    with torch._inductor.config.patch({"cpp.simdlen": native, "fx_graph_cache": False}):
        widths.clear()
        check_jit(lambda x: x.sum(axis=-1), x, backend="inductor", rtol=1e-12, atol=1e-12)
        assert torch._inductor.config.cpp.simdlen == native and set(widths) == {native}


@pytest.mark.inductor
def test_the_width_is_set_when_inductor_makes_the_cache_key(monkeypatch, tmp_path):
    """Inductor keys its FX graph cache on its settings before its passes run: the width
    must be set by then, or a warm cache serves one width's code with the other's flags."""
    from torch._inductor import codecache

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    keyed = []
    real = codecache.compiled_fx_graph_hash

    def spy(*args, **kwargs):
        keyed.append(torch._inductor.config.cpp.simdlen)
        return real(*args, **kwargs)
    monkeypatch.setattr(codecache, "compiled_fx_graph_hash", spy)
    rng = np.random.default_rng(3)
    # the cache on even where an earlier test in this process switched caches off (the
    # benchmark suite's main does, for cold compiles)
    with torch._inductor.config.patch(fx_graph_cache=True, force_disable_caches=False):
        check_jit(nearest, rng.standard_normal((40, 8)), rng.standard_normal((16, 8)), backend="inductor",
                  rtol=1e-12, atol=1e-12)
        check_jit(row_sums, rng.standard_normal((40, 64)), backend="inductor", rtol=1e-12, atol=1e-12)
    assert keyed == [256 if vector_width.avx512_chosen() else None, None]
