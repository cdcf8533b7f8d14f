"""Debug mode (the shim on its own) against NumPy over the view table of
tests/view_layouts.py: every view's shape, dtype, values, memory shared with the input
and where a write through it lands are NumPy's; where the shim can express the layout
(no reversed axis: torch has no negative strides, so the shim holds ``a[::-1]`` as a copy
kept in step with its input, torch_numpy_shim/_flipped.py) its strides (length-1 axes
included: ``a[:, None]`` has stride 0), contiguity and writeable flags are NumPy's too.
The shim's ``.base`` is the shim array the view was taken from, so it is not compared.
A NumPy input with negative strides enters the shim as a copy (``asarray``; writes through
its views do not reach the caller's array), so that layout is left out here; under jit
it runs in real NumPy (tests/jit/test_view_layouts.py covers it)."""
import numpy
import pytest

import torch_numpy_shim as shim
from tests.view_layouts import LAYOUTS, all_views, expressions_for, fresh, write_through

CASES = [(layout, k, expr) for layout in LAYOUTS if layout != "reversed2"
         for k, expr in enumerate(expressions_for(layout))]
_REVERSING = ("::-", "flip", "rot90")


def _observed(xp, layout, k, expr):
    x = fresh(layout)
    a = x if xp is numpy else shim.asarray(x)
    view = all_views(layout, xp)(a)[k]
    seen = dict(type=type(view).__name__, shape=view.shape, dtype=str(view.dtype),
                values=numpy.asarray(shim.to_numpy(view) if xp is shim else view).tolist(),
                shares_memory=bool(xp.shares_memory(view, a)))
    if not any(word in expr for word in _REVERSING):
        seen.update(strides=view.strides, c_contiguous=view.flags.c_contiguous,
                    f_contiguous=view.flags.f_contiguous, writeable=view.flags.writeable)
    seen["write"] = write_through(view)
    seen["input after the write"] = x.tolist()
    return seen


@pytest.mark.parametrize("layout, k, expr", CASES, ids=[f"{layout}-{expr}" for layout, _, expr in CASES])
def test_view_is_numpys(layout, k, expr):
    assert _observed(shim, layout, k, expr) == _observed(numpy, layout, k, expr)
