"""Results NumPy returns as reversed views of an input (np.flip, a[::-1], np.rot90) come
back as those very views: same memory, negative strides, writeable as the input is."""
import numpy as np
import pytest
from hypothesis import given

import npcompile
from tests.jit.harness import check_jit, check_jit_calls
from tests.layouts import array_layouts


def flips(m):
    return np.flip(m, axis=0), m[::-1, ::2], np.rot90(m), np.fliplr(m), np.flipud(m)[1]


def flipped_sum_and_view(a):
    t = np.flip(a, axis=0)
    return np.sum(t), t


def flip_after_write(a):
    a += 1
    return a[::-1]


def flip_of_computed(a):
    return (a * 2)[::-1]


def reversed_columns(m):
    return m[:, ::-1][:, None, :]


@pytest.mark.parametrize("fn", [flips, flipped_sum_and_view, flip_after_write, flip_of_computed,
                                reversed_columns])
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_reversed_views_are_numpy_views(fn, backend):
    m = np.arange(20.0).reshape(4, 5)
    check_jit(fn, m, backend=backend, calls=2)


def test_write_through_returned_flip_lands_in_the_input():
    a = np.arange(4.0)
    view = npcompile.jit(lambda x: x[::-1], backend="eager")(a)
    view[0] = 99
    assert a[-1] == 99 and np.shares_memory(view, a) and view.strides == (-8,)


def test_flip_of_read_only_input_is_read_only():
    a = np.arange(4.0)
    a.flags.writeable = False
    view = npcompile.jit(lambda x: np.flip(x), backend="eager")(a)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 1


def test_sizes_changing_between_calls():
    check_jit_calls(lambda a: (a[::-1], np.flip(a)[1:]), [(np.arange(float(n)),) for n in (3, 4, 5, 7)])


@given(array_layouts(min_dims=1))
def test_flips_of_any_layout(layout):
    array, description = layout
    check_jit_calls(lambda a: (np.flip(a), a[::-1]), [(array,), (array,)], descriptions=[description] * 2)
