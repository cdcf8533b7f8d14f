"""Reductions of boolean-masked selections (``x[mask].mean()`` ...) are computed as
masked reductions of ``x``: no ``nonzero``, no gather, NumPy's values (empty masks,
all-true masks, NaNs, integers, float32), and the graph is left alone where the
selection is used for anything but such a reduction."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
import torch_numpy_shim as shim
from benchmarks.loop_workloads import azimint_bins
from npcompile.passes.masked_reductions import MaskedReductions
from tests.oracle import assert_same

aten = torch.ops.aten

#: selections reduced as users write them (each over x and a mask of x's shape)
REDUCTIONS = {
    "sum": lambda xp, x, m: x[m].sum(),
    "mean": lambda xp, x, m: x[m].mean(),
    "std": lambda xp, x, m: x[m].std(),
    "var": lambda xp, x, m: x[m].var(),
    "size": lambda xp, x, m: x[m].size,
    "np_sum": lambda xp, x, m: xp.sum(x[m]),
    "np_mean": lambda xp, x, m: xp.mean(x[m]),
    "prod": lambda xp, x, m: xp.prod(x[m]),
    "any": lambda xp, x, m: xp.any(x[m]),
    "all": lambda xp, x, m: (x[m] > 0).all(),
    "count_nonzero": lambda xp, x, m: xp.count_nonzero(m),
    "scaled_sum": lambda xp, x, m: (2 * x[m] + 1).sum() / x[m].size,
}


def _graph(name, x, m):
    """The aten graph of a reduction of the shim, as capture traces it (symbolic row
    count from ``nonzero``), decomposed as Inductor decomposes it, and the same graph
    after the pass."""
    from torch._inductor.decomposition import select_decomp_table

    fn = REDUCTIONS[name]

    def traced(x, m):
        result = fn(shim, shim.ndarray._wrap(x), shim.ndarray._wrap(m))
        return shim.asarray(result)._t

    gm = make_fx(traced, tracing_mode="symbolic", decomposition_table=select_decomp_table())(x, m)
    before = str(gm.code)
    MaskedReductions()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm, before


def _targets(gm):
    return {n.target for n in gm.graph.nodes if n.op == "call_function"}


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(REDUCTIONS)),
       dtype=st.sampled_from([torch.float64, torch.float32, torch.int32, torch.int64, torch.bool]),
       shape=st.lists(st.integers(2, 6), min_size=1, max_size=3),
       fill=st.sampled_from(["random", "none", "all"]), nan=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_rewritten_graph_gives_the_values_of_the_gather(name, dtype, shape, fill, nan, seed):
    gen = torch.Generator().manual_seed(seed)
    x = (torch.randn(shape, generator=gen, dtype=torch.float64) * 3).to(dtype)
    if nan and dtype.is_floating_point:
        x.view(-1)[0] = float("nan")
    m = {"random": torch.rand(shape, generator=gen) > 0.5, "none": torch.zeros(shape, dtype=torch.bool),
         "all": torch.ones(shape, dtype=torch.bool)}[fill]
    gm, _ = _graph(name, x, m)
    expected = np.asarray(shim.to_numpy(REDUCTIONS[name](shim, shim.asarray(x.numpy()), shim.asarray(m.numpy()))))
    got = gm(x, m).numpy()
    assert aten.nonzero.default not in _targets(gm) and aten.index.Tensor not in _targets(gm)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6 if dtype == torch.float32 else 1e-12, equal_nan=True)


def test_a_selection_used_otherwise_keeps_its_gather():
    """A selection also fed to something other than an elementwise op or a reduction
    with an identity (here a cumulative sum): the gather stays, and so does the
    reduction of the same selection."""
    def returned(xp, x, m):
        s = x[m]
        return s.sum() + xp.cumsum(s).sum()
    REDUCTIONS["returned"] = returned
    try:
        x, m = torch.arange(6.0), torch.tensor([True, False, True, True, False, True])
        gm, before = _graph("returned", x, m)
        assert str(gm.code) == before
        assert float(gm(x, m)) == 10.0 + 17.0
    finally:
        del REDUCTIONS["returned"]


def test_max_of_a_selection_is_not_rewritten():
    """``max`` has no identity: on an empty selection NumPy raises, so it is left to the
    code that checks for that."""
    gm = make_fx(lambda x, m: x[m].amax(), tracing_mode="symbolic")(torch.arange(4.0), torch.ones(4, dtype=torch.bool))
    MaskedReductions()(gm.graph)
    assert aten.index.Tensor in _targets(gm)


def selections(x, m, k):
    return (x[m].sum(), x[m].mean(), np.mean(x[m]), x[m].std(), x[m].var(), x[m].size,
            np.count_nonzero(m), (x[m] * k).sum())


@pytest.mark.inductor
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
@pytest.mark.parametrize("fill", ["random", "none", "all", "nan"])
def test_compiled_selections_match_numpy(dtype, fill):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((7, 9)) * 10).astype(dtype)
    m = {"random": rng.random((7, 9)) > 0.4, "none": np.zeros((7, 9), bool), "all": np.ones((7, 9), bool),
         "nan": rng.random((7, 9)) > 0.4}[fill]
    if fill == "nan" and x.dtype.kind == "f":
        x[np.nonzero(m)[0][0], np.nonzero(m)[1][0]] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = selections(x, m, 3)
    jitted = npcompile.jit(selections)
    assert_same(expected, jitted(x, m, 3))
    explained = npcompile.explain(selections)(x, m, 3)
    assert explained.graph_break_count == 0


@pytest.mark.inductor
def test_ring_loop_matches_numpy_and_compiles_no_gather(monkeypatch):
    """The ring loop's body reduces a masked selection per ring: compiled, it has no
    nonzero left for Inductor (the pass ran on each graph), and NumPy's means."""
    seen = []
    original = MaskedReductions.__call__

    def spy(self, graph):
        original(self, graph)
        seen.append({n.target for n in graph.nodes})
    monkeypatch.setattr(MaskedReductions, "__call__", spy)
    monkeypatch.setattr(npcompile.config, "native_loops", False)   # the traced path is under test
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:40, 0:40].astype(np.float64)
    radius = np.hypot(x - 18.3, y - 21.1).ravel()
    intensity = (1.0 + np.cos(radius / 3.0) ** 2 + 0.1 * rng.random(radius.shape)).ravel()
    jitted = npcompile.jit(azimint_bins)
    with torch._inductor.config.patch(fx_graph_cache=False):   # the passes must run, cache warm or not
        for _ in range(2):
            assert_same(azimint_bins(intensity, radius, 30), jitted(intensity, radius, 30))
    assert seen and all(aten.nonzero.default not in targets for targets in seen)
