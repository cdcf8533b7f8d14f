"""The scatter pass: assignments into slices become a clone written into through views
(no masked whole-array kernel), never touching the old array; results stay NumPy's."""
import numpy as np
import pytest
import torch
from torch._inductor.fx_passes.post_grad import remove_noop_ops
from torch.func import functionalize
from torch.fx.experimental.proxy_tensor import make_fx

from npcompile.passes.scatter_writes import WriteScattersInPlace
from tests.jit.harness import check_jit

aten = torch.ops.aten
_SCATTERS = {aten.slice_scatter.default, aten.select_scatter.default}


def _rewritten(fn, *example):
    """``fn`` functionalized and cleaned up as Inductor has it by then; its graph after the pass."""
    gm = make_fx(functionalize(fn, remove="mutations"), tracing_mode="fake")(*example)
    gm.graph.eliminate_dead_code()   # as Inductor does before its post-grad passes
    remove_noop_ops(gm.graph)
    WriteScattersInPlace()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm


def _targets(gm):
    return [node.target for node in gm.graph.nodes if node.op == "call_function"]


def interior_3d(u):
    v = u.clone()
    v[1:-1, 1:-1, 1:-1] = u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - u[1:-1, 1:-1, 1:-1]
    return v


def rows_and_stepped(u):
    v = u * 2
    v[0] = -1.0
    v[:, ::2] = v[:, 1::2] + 1
    return v, u


def transposed(u):
    v = (u * 2).T
    v[0, 1:] = 1.0
    return v


@pytest.mark.parametrize("fn, shape, writes", [(interior_3d, (5, 6, 7), 1), (rows_and_stepped, (4, 6), 2),
                                               (transposed, (3, 5), 1)])
def test_scatters_become_clones_written_through_views_with_the_same_values(fn, shape, writes):
    u = torch.randn(shape, dtype=torch.float64)
    gm = _rewritten(fn, u)
    targets = _targets(gm)
    assert not _SCATTERS & set(targets)
    assert targets.count(aten.copy_.default) == writes   # one per assignment, however nested
    kept = u.clone()
    expected, actual = fn(u), gm(u)
    torch.testing.assert_close(actual, expected, rtol=0, atol=0)
    for e, a in zip(expected if isinstance(expected, tuple) else (expected,),
                    actual if isinstance(actual, tuple) else (actual,)):
        assert e.stride() == a.stride()
    assert torch.equal(u, kept), "the pass wrote into an existing array"


def fill_empty(u):
    v = torch.empty_like(u)
    v[1:-1] = u[:-2] + u[2:]
    v[0] = v[1] * 2        # reads what the first write wrote: this write goes to a copy
    v[-1] = 0.0
    return v


def fill_empty_with_constants(u):
    v = torch.empty_like(u)
    v[1:-1, 1:] = u[:-2, 1:] + u[2:, 1:]
    v[:, 0] = 1.0
    v[0] = 0.0
    v[-1] = 0.0
    return v


def old_state_read_later(u):
    v = u * 2
    v[0] = 0.0
    w = v * 1             # reads v between the writes: the second write goes to a copy too
    v[1] = 5.0
    return v, w


@pytest.mark.parametrize("fn, clones", [(fill_empty_with_constants, 0), (fill_empty, 1),
                                        (old_state_read_later, 2)])
def test_fresh_or_only_written_buffers_are_written_in_place(fn, clones):
    u = torch.randn(6, 3, dtype=torch.float64)
    gm = _rewritten(fn, u)
    assert _targets(gm).count(aten.clone.default) == clones
    expected, actual = fn(u), gm(u)
    for e, a in zip(expected if isinstance(expected, tuple) else (expected,),
                    actual if isinstance(actual, tuple) else (actual,)):
        torch.testing.assert_close(a, e, rtol=0, atol=0)


def test_an_inner_scatter_read_elsewhere_is_kept():
    def slab_also_returned(u):
        v = u.clone()
        slab = v[1:3].clone()
        slab[:, 1:-1] = 0.0
        v[1:3] = slab
        return v, slab

    u = torch.randn(4, 5, dtype=torch.float64)
    gm = _rewritten(slab_also_returned, u)
    for expected, actual in zip(slab_also_returned(u), gm(u)):
        torch.testing.assert_close(actual, expected, rtol=0, atol=0)


def test_an_input_updated_in_place_is_left_to_inductor():
    """Its scatter is copied back into the input, which Inductor turns into a direct
    write; a clone first would only add a pass over memory."""
    def update(u):
        u[1:-1] = u[:-2] + u[2:]
        return u.sum()

    gm = _rewritten(update, torch.randn(6, dtype=torch.float64))
    assert aten.slice_scatter.default in _targets(gm)
    assert aten.clone.default not in _targets(gm)


HEAT_STEPS = 3


def heat(u):
    u = u.copy()
    for _ in range(HEAT_STEPS):
        lap = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
               + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6.0 * u[1:-1, 1:-1, 1:-1])
        u[1:-1, 1:-1, 1:-1] = u[1:-1, 1:-1, 1:-1] + 0.1 * lap
    return u


def boundary_in_place(u, flags):
    """Writes into the caller's arrays (so does NumPy), rows, stepped columns, bools."""
    u[1:-1] = 0.5 * (u[:-2] + u[2:])
    u[0] = u[-1] = 0.0
    flags[:, ::2] = u[:, ::2] > 0
    return u[1:], flags.sum()


def wave_like(u):
    v = np.empty_like(u)
    v[1:-1] = u[:-2] + u[2:]
    v[0] = v[1] * 2
    v[-1] = 0.0
    w = v.copy()
    w[1] = -1.0
    return v, w


def reread_old(u):
    w = u.copy()
    w[1:-1, 2:] = 7
    return u + w, w[1:-1]


@pytest.mark.inductor
def test_scatter_loops_match_numpy_under_inductor():
    rng = np.random.default_rng(1)
    check_jit(heat, rng.random((7, 8, 9)), backend="inductor", rtol=1e-12)
    check_jit(boundary_in_place, rng.standard_normal((6, 5)), np.zeros((6, 5), bool), backend="inductor",
              rtol=1e-12)
    check_jit(reread_old, np.arange(30, dtype=np.int32).reshape(5, 6), backend="inductor")
    check_jit(wave_like, rng.standard_normal((7, 4)), backend="inductor", rtol=1e-12)


@pytest.mark.inductor
def test_scatters_under_dynamic_sizes_under_inductor():
    import npcompile

    jitted = npcompile.jit(heat)
    for n in (6, 9, 12):
        u = np.random.default_rng(n).random((n, n + 1, n + 2))
        np.testing.assert_allclose(jitted(u), heat(u), rtol=1e-12)
