"""Views of an input returned by a jitted function are NumPy's views (issue 13): for 14
input layouts x 44 view expressions (reversed, with new or length-1 axes, reshaped,
transposed, views of views), in a returned tuple, under the eager and Inductor backends,
each view has NumPy's strides, flags, base and memory, and a write through it lands in
the input as NumPy's does (tests/view_layouts.py). Torch has no negative strides and
strides length-1 axes its own way, so the runtime replays such views on the caller's
array (npcompile/runtime/view_replay.py)."""
import functools

import numpy as np
import pytest

import npcompile
from tests.view_layouts import LAYOUTS, all_views, describe, expressions_for, fresh, write_through

CASES = [(layout, k, expr) for layout in LAYOUTS for k, expr in enumerate(expressions_for(layout))]


@functools.cache
def _jitted(layout, backend):
    return npcompile.jit(all_views(layout, np), backend=backend)


def _observed(fn, layout, k):
    a = fresh(layout)
    view = fn(a)[k]
    seen = describe(view, a)
    seen["write"] = write_through(view)
    seen["input after the write"] = a.tolist()
    return seen


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("layout, k, expr", CASES, ids=[f"{layout}-{expr}" for layout, _, expr in CASES])
def test_returned_view_is_numpys(layout, k, expr, backend):
    expected = _observed(all_views(layout, np), layout, k)
    assert _observed(_jitted(layout, backend), layout, k) == expected


def in_list(a):
    return [a[::-1], (a.T[::-1], a[:, None]), np.flipud(a)[1:]]


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_views_in_nested_containers(backend):
    expected_input, got_input = fresh("c2"), fresh("c2")
    expected, got = in_list(expected_input), npcompile.jit(in_list, backend=backend)(got_input)
    assert type(got) is list and type(got[1]) is tuple
    flat = [(expected[0], got[0]), (expected[1][0], got[1][0]), (expected[1][1], got[1][1]), (expected[2], got[2])]
    for e, g in flat:
        assert describe(g, got_input) == describe(e, expected_input)
    got[1][0][0, 0] = expected[1][0][0, 0] = -5.0
    got[2][...] = expected[2][...] = -7.0
    assert got_input.tolist() == expected_input.tolist()


def view_of_written_input(a):
    a[0] += 100.0
    return a.reshape(4, 1, 6)[::-1, :, ::2]


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_view_after_a_write_into_the_input(backend):
    expected_input, got_input = fresh("c2"), fresh("c2")
    expected = view_of_written_input(expected_input)
    got = npcompile.jit(view_of_written_input, backend=backend)(got_input)
    assert describe(got, got_input) == describe(expected, expected_input)


def diagonals(a):
    return np.einsum("ii->i", a[:3, :3]), np.diagonal(a), a[:, ::-1].diagonal(1)


@pytest.mark.parametrize("layout", ["c2", "f2", "strided2", "read_only2"])
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_diagonal_views_writeable_as_numpys(layout, backend):
    """The graph sees one ``diagonal`` op for all three; NumPy's einsum view is writeable
    where the input is, ``np.diagonal``'s read-only (the output plan marks those)."""
    expected_input, got_input = fresh(layout), fresh(layout)
    expected, got = diagonals(expected_input), npcompile.jit(diagonals, backend=backend)(got_input)
    for e, g in zip(expected, got):
        assert describe(g, got_input) == describe(e, expected_input)
        assert write_through(g) == write_through(e)
    assert got_input.tolist() == expected_input.tolist()
