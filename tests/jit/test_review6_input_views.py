"""Review 6 (issue 13): silent wrong answers found as a new user, views of inputs. Each test compares
npcompile.jit (eager and/or inductor backends) with real NumPy running the same function
on an identical copy of the inputs. Found at /work/main f8b3f61 (git archive snapshot);
rerun at HEAD 07ae0c3."""
import io

import numpy as np
import pytest

import npcompile
from tests.jit.review6_support import BACKENDS, check


# 2. a[0, ...] (integer index plus Ellipsis) is a 0-d ndarray *view* in NumPy; jitted
#    (eager and inductor) it comes back as np.float64, a scalar that shares no memory
#    with the input (observed <class 'numpy.float64'> 0.0; NumPy array(0.) sharing a).
def _int_ellipsis_view(a):
    return a[0, ...]


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_ellipsis_index_is_zero_d_view(backend):
    a = np.arange(3.)
    result = npcompile.jit(_int_ellipsis_view, backend=backend)(a)
    expected = _int_ellipsis_view(a)
    assert type(result) is type(expected)
    assert np.shares_memory(result, a) == np.shares_memory(expected, a)


# 6. Strides and contiguity flags of a reversed view of an input, read inside the jitted
#    function: NumPy gives a[::-1].strides == (-32, 8) and flags.c_contiguous False;
#    jitted (eager and inductor) it reports torch's (32, 8) and True, so code that
#    branches on layout takes another path. (README lists reversed views as copies only
#    for debug mode and for returned views with dynamic steps; this is a plain input.)
def _reversed_layout(a):
    r = a[::-1]
    return r.strides, r.flags.c_contiguous, r.flags.f_contiguous


@pytest.mark.parametrize("backend", BACKENDS)
def test_reversed_view_strides_inside_function(backend):
    check(_reversed_layout, np.zeros((2, 4)), backend=backend)


# 7. `b.base is a` for a reshape view of an input held across a graph break (here
#    np.shares_memory, which runs for real): NumPy True, jitted False (eager and
#    inductor), though both say the memory is shared; without the break it is True. The
#    common "did reshape copy?" test answers wrongly. (README's known difference covers
#    views of values the function computed, not of its inputs.)
def _reshape_base(a):
    b = a.reshape(3, 2)
    shared = np.shares_memory(a, b)
    return shared, b.base is a


@pytest.mark.parametrize("backend", BACKENDS)
def test_reshape_view_base_across_break(backend):
    check(_reshape_base, np.zeros((2, 3)), backend=backend)


# 7b. Same after a print: a slice of an input held across the break comes back with
#    base None-like identity and flags.owndata True (observed (False, True); NumPy
#    (True, False)), though writes through it still reach the input.
def _slice_owndata_across_print(a):
    b = a[1:]
    print(end="", file=io.StringIO())
    return b.base is a, b.flags.owndata


@pytest.mark.parametrize("backend", BACKENDS)
def test_slice_owndata_across_break(backend):
    check(_slice_owndata_across_print, np.zeros(3), backend=backend)
