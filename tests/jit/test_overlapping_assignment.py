"""Writes whose source is another argument over the same buffer (``dst = b[1:]``,
``src = b[:-1]``): NumPy copies as if through a temporary, so no value already
overwritten is read again. Checked in debug mode (the function run with
``torch_numpy_shim`` as ``np``) and jitted with the eager backend, against NumPy."""
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import npcompile
import torch_numpy_shim
from tests.jit.test_review7_inputs import _assert_calls_match


def _assign_all(dst, src):
    dst[...] = src
    return dst


def _assign_slice(dst, src):
    dst[:] = src
    return dst


def _assign_head(dst, src):
    dst[:50] = src[:50]
    return dst


def _copyto(dst, src):
    np.copyto(dst, src)
    return dst


def _copyto_where(dst, src):
    np.copyto(dst, src, where=src > 3)
    return dst


def _add_in_place(dst, src):
    dst += src
    return dst


def _add_out(dst, src):
    np.add(src, 1, out=dst)
    return dst


def _fancy_store(dst, src):
    dst[np.arange(len(dst))] = src
    return dst


def _mask_store(dst, src):
    dst[dst > -1] = src
    return dst


def _put(dst, src):
    np.put(dst, np.arange(len(dst)), src)
    return dst


def _write_then_assign(dst, src):
    t = src * 1
    dst[...] = src
    return dst + t


FUNCTIONS = [_assign_all, _assign_slice, _assign_head, _copyto, _copyto_where, _add_in_place,
             _add_out, _fancy_store, _mask_store, _put, _write_then_assign]


def _debug_mode(fn):
    """``fn`` with ``np`` bound to the shim, as ``import torch_numpy_shim as np`` makes it."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": torch_numpy_shim}, fn.__name__)


def _pairs(n, shift):
    """Argument pairs over one buffer, either way round, and a reversed source (a NumPy
    destination with negative strides is refused in debug mode: torch cannot view it)."""
    b = np.arange(float(n + shift))
    c = np.arange(float(n + shift))
    return [(b[shift:], b[:-shift]), (b[:-shift], b[shift:]), (c[shift:], c[:-shift][::-1])]


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_debug_mode_matches_numpy(fn):
    _assert_calls_match(fn, _debug_mode(fn), _pairs(101, 1) + _pairs(60, 7))


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_eager_backend_matches_numpy(fn):
    _assert_calls_match(fn, npcompile.jit(fn, backend="eager"),
                        [(np.zeros(101), np.arange(101.0))] + _pairs(101, 1))


def test_disjoint_arguments_are_not_copied_needlessly_but_stay_right():
    """Independent arrays and two halves of one buffer that do not meet."""
    b = np.arange(20.0)
    _assert_calls_match(_assign_all, _debug_mode(_assign_all), [(b[:10], b[10:]), (np.zeros(5), np.ones(5))])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), shift=st.integers(1, 5), step=st.sampled_from([1, -1]))
def test_debug_mode_copyto_any_shift(n, shift, step):
    b = np.arange(float(n + shift))
    _assert_calls_match(_copyto, _debug_mode(_copyto),
                        [(b[shift:], b[:-shift][::step]), (b[:-shift], b[shift:][::step])])
