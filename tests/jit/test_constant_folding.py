"""FoldConstants: the pass on traced aten graphs (cheap), then inside Inductor through
``npcompile.jit(backend="inductor")`` against NumPy and the eager shim."""
import math
import re

import numpy as np
import pytest
import torch
import torch._inductor.config
from torch._dynamo.utils import counters
from torch._guards import TracingContext, tracing
from torch._inductor.custom_graph_pass import CustomGraphPass
from torch._inductor.decomposition import select_decomp_table
from torch.func import functionalize
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes.complex_lowering import SplitComplex
from npcompile.passes.constant_folding import MAX_BYTES, FoldConstants
from tests.jit.harness import check_jit, check_jit_calls

aten = torch.ops.aten


def _traced(fn, *args, mode="fake"):
    """``fn`` traced to aten, decomposed as for Inductor."""
    return make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode=mode)(*args)


def _folded(fn, *args, mode="fake"):
    """(graph module after the pass, the number of ops it removed, its constants)."""
    gm = _traced(fn, *args, mode=mode)
    before = sum(n.op == "call_function" for n in gm.graph.nodes)
    FoldConstants()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    after = sum(n.op == "call_function" for n in gm.graph.nodes)
    return gm, before - after, [n for n in gm.graph.nodes if n.op == "get_attr"]


def _targets(gm):
    return {n.target for n in gm.graph.nodes if n.op == "call_function"}


def twiddles(x):
    half = x.shape[-1]
    return x * torch.exp(-1j * math.pi * torch.arange(half, dtype=torch.float64) / half)


def _complex(*shape):
    return torch.randn(*shape, dtype=torch.complex128)


# ---- the pass on traced graphs --------------------------------------------------------------
def test_twiddle_factors_become_one_constant_equal_to_eager_values():
    x = _complex(3, 8)
    gm, removed, constants = _folded(twiddles, x)
    assert len(constants) == 1 and removed >= 4
    assert aten.exp.default not in _targets(gm)
    assert constants[0].meta["val"].shape == (8,)
    twiddle = getattr(gm, constants[0].target)
    assert torch.equal(twiddle, torch.exp(-1j * math.pi * torch.arange(8, dtype=torch.float64) / 8))   # bit for bit
    assert torch.equal(gm(x), twiddles(x))


def test_complex_lowering_splits_a_folded_constant_into_constant_parts():
    x = _complex(3, 8)
    gm = _traced(twiddles, x)
    FoldConstants()(gm.graph)
    SplitComplex()(gm.graph)
    gm.recompile()
    assert aten.view_as_real.default in _targets(gm)            # of the input x only
    parts = {n.target: getattr(gm, n.target) for n in gm.graph.nodes if n.op == "get_attr"}
    real, imag = (next(v for k, v in parts.items() if k.endswith(end)) for end in ("_real", "_imag"))
    twiddle = torch.exp(-1j * math.pi * torch.arange(8, dtype=torch.float64) / 8)
    assert real.dtype == torch.float64 and real.is_contiguous() and torch.equal(real, twiddle.real)
    assert torch.equal(imag, twiddle.imag)
    torch.testing.assert_close(gm(x), twiddles(x), rtol=1e-15, atol=1e-15)


def test_views_and_constructors_alone_stay_in_the_graph():
    """Inductor computes ``arange`` and ``full`` inside its kernels: reading them from
    memory would gain nothing."""
    gm, removed, constants = _folded(lambda x: x + torch.arange(6.0).reshape(2, 3) + torch.ones(3), torch.ones(2, 3))
    assert removed == 0 and constants == []


def test_masks_made_from_indices_stay_in_the_graph():
    """triu's mask (iota compared with iota) costs the kernel nothing; as a stored bool
    buffer it slowed nbody's compile."""
    gm, removed, constants = _folded(lambda x: torch.triu(x, 1) + torch.tril(x * 2), torch.ones(5, 5))
    assert removed == 0 and constants == []


def test_a_rolls_wrapped_indices_stay_in_the_graph():
    """torch.roll's indices, (arange + shift) % n, are affine loads Inductor computes in
    its kernel; folded into an index buffer they became indirect loads (game_of_life's
    rolls 5x slower)."""
    gm, removed, constants = _folded(lambda x: torch.roll(x, 1, 0) + torch.roll(x, -1, 1), torch.ones(8, 6))
    assert removed == 0 and constants == []


def test_returned_values_are_computed_per_call():
    """A returned constant (or a view of one) would be the same array every call."""
    def fn(x):
        w = torch.exp(torch.arange(4.0) / 4)
        return w, w.reshape(2, 2), x * torch.sin(torch.arange(4.0))
    gm, _, constants = _folded(fn, torch.ones(4))
    assert aten.exp.default in _targets(gm) and aten.sin.default not in _targets(gm)
    assert len(constants) == 2    # exp's argument, and the sine
    first, second = gm(torch.ones(4))[0], gm(torch.ones(4))[0]
    assert first.data_ptr() != second.data_ptr()


def test_random_values_are_not_folded():
    def fn(x):
        return x + torch.exp(torch.rand(4, dtype=torch.float64)), x * torch.randn(4).sin()
    gm, removed, constants = _folded(fn, torch.ones(4))
    assert removed == 0 and constants == []


def test_dynamic_sizes_are_not_constant():
    def fn(x):
        n = x.shape[0]
        return x * torch.exp(-1j * math.pi * torch.arange(n) / n)
    gm, removed, constants = _folded(fn, _complex(8), mode="symbolic")
    assert removed == 0 and constants == []
    assert torch.equal(gm(_complex(6).zero_()), torch.zeros(6, dtype=torch.complex128))


def test_undefined_values_are_not_folded():
    gm, removed, constants = _folded(lambda x: x + torch.empty(4).mul(0).exp(), torch.ones(4))
    assert removed == 0 and constants == []


def test_values_over_the_size_cap_are_not_folded():
    """Each constant stays in memory with the compiled graph and in its cache entry."""
    limit = MAX_BYTES // 8
    _, _, constants = _folded(lambda x: x + torch.exp(torch.arange(limit, dtype=torch.float64)),
                              torch.ones(limit, dtype=torch.float64))
    assert len(constants) == 1
    _, removed, constants = _folded(lambda x: x + torch.exp(torch.arange(limit + 1, dtype=torch.float64)),
                                    torch.ones(limit + 1, dtype=torch.float64))
    assert removed == 0 and constants == []


def test_nothing_is_folded_while_inductors_own_folding_is_off():
    """npcompile.gpu's interpreter turns it off: no real CUDA tensor may be made there."""
    gm = _traced(twiddles, _complex(3, 8))
    before = gm.code
    with torch._inductor.config.patch(joint_graph_constant_folding=False):
        FoldConstants()(gm.graph)
    gm.recompile()
    assert gm.code == before


def test_uuid_is_versioned():
    assert FoldConstants().uuid() == FoldConstants().uuid()
    assert re.fullmatch(r"\S+/\d+:[0-9a-f]{64}", FoldConstants().uuid())


def scaled_twiddles(c, x):
    return x * torch.exp(c * torch.arange(8, dtype=torch.float64))


def _lifted(value):
    """A tracing context as AOT autograd leaves it: ``value`` is the graph's first input."""
    context = TracingContext(None)
    context.params_flat = context.params_flat_unwrap_subclasses = [value]
    return tracing(context)


def test_constants_lifted_to_inputs_are_folded_with_their_values():
    """AOT autograd passes the graph module's tensor constants (the shim's 0-d scalars)
    as the graph's first inputs; their values come from the tracing context."""
    c, x = torch.tensor(-0.25j, dtype=torch.complex128), _complex(8)
    gm = _traced(scaled_twiddles, c, x)
    with _lifted(c):
        FoldConstants()(gm.graph)
    gm.recompile()
    constants = [n for n in gm.graph.nodes if n.op == "get_attr"]
    assert len(constants) == 1 and aten.exp.default not in _targets(gm)
    assert torch.equal(getattr(gm, constants[0].target), torch.exp(c * torch.arange(8, dtype=torch.float64)))
    assert torch.equal(gm(c, x), scaled_twiddles(c, x))
    _, removed, constants = _folded(scaled_twiddles, c, x)   # no context: an input like any other
    assert removed == 0 and constants == []


def test_lifted_constants_written_by_the_graph_are_not_folded():
    def fn(c, x):
        y = x * torch.exp(c * torch.arange(8, dtype=torch.float64))
        c.add_(1)
        return y
    c, x = torch.tensor(-0.25j, dtype=torch.complex128), _complex(8)
    gm = make_fx(functionalize(fn, remove="mutations_and_views"), decomposition_table=select_decomp_table(),
                 tracing_mode="fake")(c, x)
    with _lifted(c):
        FoldConstants()(gm.graph)
    assert not any(n.op == "get_attr" for n in gm.graph.nodes)


def test_uuid_changes_with_the_lifted_values():
    """Two graphs alike but for a lifted constant's value fold to different constants:
    the FX graph cache must not serve one for the other."""
    with _lifted(torch.tensor(-0.25j, dtype=torch.complex128)):
        first = FoldConstants().uuid()
    with _lifted(torch.tensor(-0.5j, dtype=torch.complex128)):
        second = FoldConstants().uuid()
    assert len({first, second, FoldConstants().uuid()}) == 3


# ---- through npcompile.jit and Inductor ---------------------------------------------------
class RecordingTargets(CustomGraphPass):
    """Runs after npcompile's passes (as a user's pass): the call targets of each graph."""

    def __init__(self):
        self.graphs = []

    def __call__(self, graph):
        self.graphs.append(({n.target for n in graph.nodes if n.op == "call_function"},
                            sum(n.op == "get_attr" for n in graph.nodes)))

    def uuid(self):
        return None


def _recording(fn):
    recording = RecordingTargets()
    # no FX graph cache: a cached graph would skip the passes, and the recording with them
    with torch._inductor.config.patch(post_grad_custom_pre_pass=recording, fx_graph_cache=False):
        fn()
    return recording.graphs


def np_twiddles(x):
    half = x.shape[-1] // 2
    twiddle = np.exp(-1j * np.pi * np.arange(half) / half)
    return x[..., :half] * twiddle, twiddle + np.zeros(half)


def _x(n):
    rng = np.random.default_rng(5)
    return rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))


@pytest.mark.inductor
def test_compiled_twiddles_are_folded_and_equal_the_eager_shims():
    """Equal to NumPy's, and bit for bit the eager shim's (the same torch kernel
    computed them); no cosine left to compile; each call returns a new array."""
    jitted = []
    graphs = _recording(lambda: jitted.append(check_jit(np_twiddles, _x(16), backend="inductor", calls=2)))
    (targets, constants), = graphs
    assert aten.cos.default not in targets and aten.exp.default not in targets
    assert constants == 4   # the twiddles' parts, and the parts of the sum (copied into the result per call)
    eager = npcompile.jit(np_twiddles, backend="eager")(_x(16))[1]
    first = jitted[0](_x(16))[1]
    assert np.array_equal(first, eager)
    first[:] = 0
    assert np.array_equal(jitted[0](_x(16))[1], eager)


@pytest.mark.inductor
def test_a_size_change_compiles_dynamic_twiddles_unfolded():
    graphs = _recording(lambda: check_jit_calls(np_twiddles, [(_x(16),), (_x(32),)], backend="inductor"))
    assert len(graphs) == 2
    (first, first_constants), (second, second_constants) = graphs
    assert aten.cos.default not in first and first_constants == 4
    assert aten.cos.default in second and second_constants == 0


def rotate_quarter(x):
    out = np.empty_like(x)   # a write into an array: the graph goes through AOT autograd, which lifts scalars
    out[:] = x * np.exp(-0.25j * np.pi * np.arange(x.shape[-1]))
    return out


def rotate_half(x):
    out = np.empty_like(x)
    out[:] = x * np.exp(-0.5j * np.pi * np.arange(x.shape[-1]))
    return out


@pytest.mark.inductor
def test_graphs_alike_but_for_a_scalar_are_not_served_from_each_others_cache_entry(tmp_path, monkeypatch):
    """The two graphs differ only in a lifted 0-d input's value, which Inductor's FX
    graph cache does not key by; the folded twiddles do, through the pass's uuid (without
    it, rotate_half got rotate_quarter's compiled graph). The cache is in use: the same
    function compiled again is a hit."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    counters.clear()
    with torch._inductor.config.patch(fx_graph_cache=True, force_disable_caches=False):
        for fn in (rotate_quarter, rotate_quarter, rotate_half):
            check_jit(fn, _x(8), backend="inductor")
    assert counters["inductor"]["fxgraph_cache_hit"] == 1 and counters["inductor"]["fxgraph_cache_miss"] == 2


@pytest.mark.inductor
def test_folded_constants_come_back_from_a_background_compile():
    """Compiled in a child process (npcompile's background compiles): the constants
    travel back inside Inductor's compiled graph."""
    before = npcompile.config.background_after_calls
    npcompile.config.background_after_calls = 1
    try:
        jitted = npcompile.jit(rotate_quarter, backend="inductor", compile="background")
        np.testing.assert_array_equal(jitted(_x(8)), rotate_quarter(_x(8)))   # runs as written meanwhile
        assert npcompile.wait_for_compiles(300)
        jitted.events = []
        check = check_jit_calls(lambda x: jitted(x), [(_x(8),)])
    finally:
        npcompile.config.background_after_calls = before
    assert check is not None and [type(e).__name__ for e in jitted.events] == ["CompiledEntry"]
