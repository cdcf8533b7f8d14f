"""The rolls pass: rolls along the innermost axis become slices of one wrap-padded copy,
with the same values, whatever the shifts and the outer rolls taken first."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.fx.experimental.proxy_tensor import make_fx

import npcompile
from npcompile.passes.rolls import InnermostRollsAsSlices, _roll

aten = torch.ops.aten


def _rewritten(fn, *example):
    from torch._inductor.decomposition import select_decomp_table

    gm = make_fx(fn, decomposition_table=select_decomp_table(), tracing_mode="fake")(*example)
    InnermostRollsAsSlices()(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm


def _innermost_rolls(gm):
    return [n for n in gm.graph.nodes if (r := _roll(n)) is not None and r[1] == n.meta["val"].ndim - 1]


def _rolls_of(shifts):
    """A function summing rolls of its input by ``(outer, inner)`` shift pairs, the inner
    one along the last axis (outer ones along axis 0, taken first)."""
    def rolled(x):
        total = x * 0
        for outer, inner in shifts:
            y = torch.roll(x, outer, 0) if outer is not None else x
            total = total + torch.roll(y, inner, -1) * (len(total.shape) + inner)
        return total
    return rolled


@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=3),
       shifts=st.lists(st.tuples(st.one_of(st.none(), st.integers(-9, 9)), st.integers(-9, 9)),
                       min_size=1, max_size=5),
       dtype=st.sampled_from([torch.float64, torch.int32, torch.bool]))
@settings(max_examples=60)
def test_rolls_become_slices_with_the_same_values(shape, shifts, dtype):
    x = (torch.randn(shape) * 4).to(dtype)
    fn = _rolls_of(shifts)
    gm = _rewritten(fn, x)
    assert torch.equal(gm(x), fn(x))
    if len(shifts) >= 2 and len(shape) >= 2:   # (in 1-D, "outer" rolls are innermost ones too)
        assert _innermost_rolls(gm) == []


def test_a_single_innermost_roll_is_left_alone():
    gm = _rewritten(_rolls_of([(1, 2)]), torch.randn(4, 5))
    assert len(_innermost_rolls(gm)) == 1


def test_all_rolls_of_one_array_share_one_copy():
    shifts = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    gm = _rewritten(_rolls_of(shifts), torch.randn(6, 6))
    assert [n.target for n in gm.graph.nodes].count(aten.cat.default) == 1


def stencil(u):
    return (np.roll(u, 1, axis=-1) + np.roll(u, -1, axis=-1) - 2 * u
            + np.roll(np.roll(u, 2, axis=0), -3, axis=-1))


@pytest.mark.inductor
def test_rolled_stencils_match_numpy_under_inductor_as_sizes_change():
    """Later sizes run a dynamic graph: offsets of one element are read from symbolic
    shifts; a larger one is left as a roll."""
    jitted = npcompile.jit(stencil, backend="inductor")
    rng = np.random.default_rng(3)
    for shape in [(5, 8), (6, 11), (4, 3), (7, 2)]:
        u = rng.standard_normal(shape)
        np.testing.assert_array_equal(jitted(u.copy()), stencil(u))
