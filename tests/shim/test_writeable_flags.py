"""Setting NumPy's WRITEABLE flag (issue 13, item 2) and the WARN_ON_WRITE flag of
np.broadcast_arrays results (item 3), in debug mode and under jit, against NumPy 2.4.

Each scenario is written once against a module ``np`` and run with real NumPy and with
the shim (debug mode), and jitted on NumPy code: the values it returns, the exception
(class and message) it raises, and the warnings it emits must be NumPy's."""
import warnings

import numpy
import pytest

import npcompile
import torch_numpy_shim as tnp
from torch_numpy_shim import _writeable

from .outcomes import outcome


def _write0(a):
    a[(0,) * a.ndim] = 7.0
    return a.tolist()


def _set(a, value):
    a.flags.writeable = value
    return a.flags.writeable


SCENARIOS = {
    "flag_off_then_write": lambda np: (_set(np.arange(3.0), False), ),
    "flag_off_refuses_write": lambda np: _write0(_ro(np.arange(3.0))),
    "flag_off_then_on": lambda np: (lambda a: (_set(a, False), _set(a, True), _write0(a)))(np.arange(3.0)),
    "setflags": lambda np: (lambda a: (a.setflags(write=False), a.flags.writeable, a.setflags(write=True),
                                       a.flags.writeable, _write0(a)))(np.arange(3.0)),
    "setflags_positional": lambda np: (lambda a: (a.setflags(0), a.flags.writeable))(np.arange(3.0)),
    "flags_item": lambda np: (lambda a: (a.flags.__setitem__("W", False), a.flags["WRITEABLE"],
                                         a.flags.__setitem__("WRITEABLE", 1), a.flags.writeable))(np.arange(3.0)),
    "flags_item_unknown": lambda np: np.arange(3.0).flags.__setitem__("C", True),
    "setflags_uic": lambda np: np.arange(3.0).setflags(uic=True),
    "setflags_align": lambda np: (lambda a: (a.setflags(align=True), a.flags.aligned))(np.arange(3.0)),
    "view_of_read_only_refuses_true": lambda np: _set(_ro(np.arange(3.0))[1:], True),
    "view_of_read_only_setflags": lambda np: _ro(np.arange(3.0))[1:].setflags(write=True),
    "view_made_read_only_then_back": lambda np: (lambda v: (_set(v, False), _set(v, True), _write0(v)))(
        np.arange(3.0)[1:]),
    "view_then_base_read_only": lambda np: (lambda a: (lambda v: (_set(a, False), _write0(v)))(a[1:]))(
        np.arange(3.0)),
    "read_only_iadd": lambda np: (lambda a: a.__iadd__(1))(_ro(np.arange(3.0))),
    "read_only_out": lambda np: np.add(1, 1, out=_ro(np.zeros(())) if np is numpy else _ro(np.zeros(()))),
    "broadcast_to_made_writeable": lambda np: _set(np.broadcast_to(np.arange(3.0), (2, 3)), True),
    "diagonal_made_writeable": lambda np: (lambda d: (_set(d, True), d.tolist()))(np.diagonal(np.eye(2))),
    "imag_made_writeable": lambda np: _set(np.arange(3.0).imag, True),
    "scalar_flags": lambda np: _set(np.float64(2) if np is numpy else np.float64(2), False),
    "not_writeable_string": lambda np: (lambda a: (_set(a, ""), a.flags.writeable))(np.arange(2.0)),
}


def _ro(a):
    a.flags.writeable = False
    return a




@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_debug_mode(name):
    assert outcome(SCENARIOS[name], tnp) == outcome(SCENARIOS[name], numpy)


def test_scalar_flags_are_refused_as_numpy():
    """NumPy refuses flags on scalars; the shim's scalars (0-D arrays inside) do too."""
    with tnp._boundary.as_inside():
        x = tnp.float64(2.0)
    with pytest.raises(ValueError, match="Cannot set flags on array scalars"):
        x.flags.writeable = False


@pytest.mark.parametrize("make", ["owner", "view", "frombuffer"])
def test_read_only_numpy_array_in_the_shim(make):
    """A read-only NumPy array the shim copied: where NumPy refuses WRITEABLE=True the
    shim refuses the same way; where NumPy would allow it the shim refuses with
    UnsupportedError (its copy's writes would not reach the NumPy array)."""
    if make == "frombuffer":
        source = numpy.frombuffer(b"\x00" * 16, dtype=numpy.float64)
    else:
        source = numpy.arange(3.0)
        source.flags.writeable = False
        source = source[1:] if make == "view" else source
    shim_array = tnp.asarray(source)
    assert not shim_array.flags.writeable
    expected = ValueError
    try:
        source.copy().flags.writeable = True   # an owner: NumPy allows it
        probe = source.view() if make != "owner" else source
        probe.flags.writeable = True
        expected = tnp.UnsupportedError
    except ValueError:
        pass
    with pytest.raises(expected):
        shim_array.flags.writeable = True
    assert not shim_array.flags.writeable


# ---- jit ----------------------------------------------------------------------------------
def _jit_body_flags(a):
    a.flags.writeable = False
    try:
        a[0] = 5
    except ValueError as exc:
        message = str(exc)
    a.flags.writeable = True
    a[0] = 5
    return message, a * 2, a.flags.writeable


def _jit_setflags(a):
    a.setflags(write=False)
    return a + 1


def _jit_result_read_only(a):
    b = a * 2
    b.flags.writeable = False
    return b


def _jit_view_read_only(a):
    v = a[1:]
    v.flags.writeable = False
    return v, a.flags.writeable


def _jit_view_of_read_only(a):
    a.flags.writeable = False
    try:
        a[1:].flags.writeable = True
    except ValueError as exc:
        return str(exc)
    return "no error"


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("fn", [_jit_body_flags, _jit_setflags, _jit_result_read_only, _jit_view_read_only,
                                _jit_view_of_read_only], ids=lambda f: f.__name__)
def test_flags_under_jit(fn, backend):
    def run(f):
        a = numpy.arange(3.0)
        result = f(a)
        results = result if isinstance(result, tuple) else (result,)
        return (repr(result), [r.flags.writeable for r in results if isinstance(r, numpy.ndarray)],
                a.flags.writeable, a.tolist())
    assert run(npcompile.jit(fn, backend=backend)) == run(fn)


# ---- np.broadcast_arrays: WARN_ON_WRITE ------------------------------------------------------
BROADCAST_WRITES = {
    "setitem": lambda np, x: x.__setitem__((0, 0), 7.0),
    "view_setitem": lambda np, x: x[1].__setitem__(0, 7.0),
    "transpose_setitem": lambda np, x: x.T.__setitem__((0, 0), 7.0),
    "twice": lambda np, x: (x.__setitem__((0, 0), 7.0), x.__setitem__((1, 1), 8.0)),
    "view_then_array": lambda np, x: (x[1].__setitem__(0, 7.0), x.__setitem__((0, 1), 8.0)),
    "made_writeable_first": lambda np, x: (setattr(x.flags, "writeable", True), x.__setitem__((0, 0), 7.0)),
    "made_read_only": lambda np, x: (setattr(x.flags, "writeable", False), x.__setitem__((0, 0), 7.0)),
    "copy_is_quiet": lambda np, x: x.copy().__setitem__((0, 0), 7.0),
    "flags_item_warns": lambda np, x: x.flags["W"],
    "flags_compare_quietly": lambda np, x: x.flags == np.arange(3.0).flags,
}
#: writes over the whole broadcast result: NumPy reads the values first (an input overlapping
#: the output is copied), then stores item by item in the destination's C order, so the
#: last item written to a shared memory location stays (torch refuses these writes:
#: _self_overlap does them)
OVERLAPPING_WRITES = {
    "iadd": lambda np, x: x.__iadd__(1.0),
    "fill": lambda np, x: x.fill(1.0),
    "ufunc_out": lambda np, x: np.add(x, 1, out=x),
    "copyto": lambda np, x: np.copyto(x, 2.0),
}


def _broadcast_scenario(write):
    def scenario(np):
        a = np.arange(3.0)
        x, y = np.broadcast_arrays(a, np.ones((2, 1)))
        flags = (x.flags.writeable, y.flags.writeable)
        write(np, x)
        return flags, a.tolist(), x.tolist()
    return scenario


def test_broadcast_results_flags_mechanism():
    """The flag itself, set as ``np.broadcast_arrays`` sets it (its call to
    ``_writeable.broadcast_results``): warns once per array, views inherit it, a copy
    does not, a read-only input's view stays read-only, an unchanged input is unflagged."""
    with tnp._boundary.as_inside():
        a, same, ro = tnp.arange(3.0), tnp.ones(3), tnp.broadcast_to(tnp.arange(3.0), (3,))
        arrays = [a, same, ro]
        x, s, r = _writeable.broadcast_results(arrays, (a._view(a._t.expand(2, 3)), same,
                                                        ro._view(ro._t.expand(2, 3))))
        assert x._warn_on_write and not s._warn_on_write and not r._warn_on_write and r._readonly
        view, copy = x[1], x.copy()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert x.flags == x.flags and x.flags["W"]   # reading it warns; comparing does not
            copy[0, 0] = 1.0
            view[0] = 7.0
            view[1] = 7.0
            x[0, 0] = 7.0
            x[0, 1] = 7.0
    assert [w.category for w in caught] == [FutureWarning, DeprecationWarning, DeprecationWarning]
    assert a.tolist() == [7.0, 7.0, 2.0]


@pytest.mark.parametrize("write", sorted(BROADCAST_WRITES))
def test_broadcast_arrays_warn_on_write(write):
    scenario = _broadcast_scenario(BROADCAST_WRITES[write])
    assert outcome(scenario, tnp) == outcome(scenario, numpy)


@pytest.mark.parametrize("write", sorted(OVERLAPPING_WRITES))
def test_broadcast_arrays_overlapping_writes(write):
    scenario = _broadcast_scenario(OVERLAPPING_WRITES[write])
    assert outcome(scenario, tnp) == outcome(scenario, numpy)


# ---- writes into self-overlapping memory, more layouts and write paths ----------------------
def _values(np, shape, dtype=float):
    return np.arange(10.0, 10.0 + numpy.prod(shape), dtype=dtype).reshape(shape)


def _mask(np, shape):
    return (np.arange(numpy.prod(shape)).reshape(shape) % 3) != 1


#: the destination: a view with stride-0 dimensions of ``a`` (made from a broadcast_arrays
#: result, so the first write warns as NumPy's does)
LAYOUTS = {
    "row": lambda np, a: np.broadcast_arrays(a, np.ones((2, 1)))[0],
    "col": lambda np, a: np.broadcast_arrays(a[:, None], np.ones(2))[0],
    "row_T": lambda np, a: np.broadcast_arrays(a, np.ones((2, 1)))[0].T,
    "3d": lambda np, a: np.broadcast_arrays(a[None, :, None], np.ones((2, 1, 2)))[0],
    "3d_permuted": lambda np, a: np.broadcast_arrays(a[None, :, None], np.ones((2, 1, 2)))[0].transpose(2, 0, 1),
    "sliced": lambda np, a: np.broadcast_arrays(a, np.ones((4, 1)))[0][1:, ::2],
    "made_writeable": lambda np, a: (lambda x: (setattr(x.flags, "writeable", True), x)[1])(
        np.broadcast_arrays(a, np.ones((3, 1)))[0]),
}
#: each writes into ``x`` (of ``a``'s float64 memory) by another path of the shim
WRITES = {
    "iadd_scalar": lambda np, x: x.__iadd__(1.0),
    "iadd_array": lambda np, x: x.__iadd__(_values(np, x.shape)),
    "imul_self": lambda np, x: x.__imul__(x),
    "isub_transposed_self": lambda np, x: x.__isub__(x[::-1]),
    "ufunc_out_other": lambda np, x: np.multiply(_values(np, x.shape), 2, out=x),
    "ufunc_out_where": lambda np, x: np.add(x, _values(np, x.shape), out=x, where=_mask(np, x.shape)),
    "ufunc_int_into_float": lambda np, x: np.negative(_values(np, x.shape, int), out=x),
    "divmod_outs": lambda np, x: np.divmod(_values(np, x.shape), 3.0, out=(x, np.zeros(x.shape))),
    "fill": lambda np, x: x.fill(4.0),
    "copyto_array": lambda np, x: np.copyto(x, _values(np, x.shape)),
    "copyto_where": lambda np, x: np.copyto(x, _values(np, x.shape), where=_mask(np, x.shape)),
    "copyto_int": lambda np, x: np.copyto(x, _values(np, x.shape, int)),
    "setitem_all": lambda np, x: x.__setitem__(Ellipsis, _values(np, x.shape)),
    "setitem_slice": lambda np, x: x.__setitem__((slice(None), slice(1, None)), 5.0),
    "setitem_mask_scalar": lambda np, x: x.__setitem__(_mask(np, x.shape), 6.0),
    "setitem_mask_values": lambda np, x: x.__setitem__(_mask(np, x.shape), _values(np, x.shape)[_mask(np, x.shape)]),
    "setitem_fancy": lambda np, x: x.__setitem__((np.array([1, 0, 1]), np.array([0, 0, 0])), np.array([1., 2., 3.])),
    "putmask": lambda np, x: np.putmask(x, _mask(np, x.shape), _values(np, x.shape)),
    "place": lambda np, x: np.place(x, _mask(np, x.shape), [7.0, 8.0]),
    "clip_out": lambda np, x: np.clip(_values(np, x.shape), 11, 14, out=x),
    "cumsum_out": lambda np, x: np.cumsum(x, axis=0, out=x),
    "cumsum_last_out": lambda np, x: np.cumsum(x, axis=-1, out=x),
    "put": lambda np, x: np.put(x, [0, 1, -1, 1], [7.0, 8.0, 9.0]),
    "flat_setitem": lambda np, x: x.flat.__setitem__([3, 0, 1, 3], [7.0, 8.0, 9.0, 6.0]),
    "flat_setitem_slice": lambda np, x: x.flat.__setitem__(slice(1, None, 2), 7.0),
    "fill_diagonal": lambda np, x: np.fill_diagonal(x, 7.0),
    "ufunc_out_where_other": lambda np, x: np.add(_values(np, x.shape), 1, out=x, where=_mask(np, x.shape)),
    "ufunc_at": lambda np, x: np.add.at(x, (0,) * (x.ndim - 1) + (slice(None),), 1.0),
    "round_out": lambda np, x: np.round(_values(np, x.shape) / 3, 1, out=x),
    "sort": lambda np, x: x.sort(axis=0),
    "nan_to_num": lambda np, x: (x.__setitem__((0,) * x.ndim, np.nan), np.nan_to_num(x, copy=False, nan=9.0)),
}


def _overlap_scenario(layout, write):
    def scenario(np):
        a = np.array([1.0, -2.0, 3.0])
        x = LAYOUTS[layout](np, a)
        write_result = WRITES[write](np, x)
        return a.tolist(), x.tolist(), write_result is x if isinstance(write_result, type(x)) else None
    return scenario


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_writes_into_self_overlapping_memory(layout, write):
    """The input's memory afterwards, the view's values, the warnings and any error:
    NumPy's, over every layout x write path."""
    scenario = _overlap_scenario(layout, write)
    assert outcome(scenario, tnp) == outcome(scenario, numpy)


#: NumPy reduces each item into the shared memory (a sum into a row broadcast adds up the
#: rows): the shim refuses these (UnsupportedError; under jit NumPy runs them)
REFUSED_WRITES = {
    "sum_out": lambda np, x: np.sum(_values(np, (2,) + x.shape), axis=0, out=x),
    "max_out": lambda np, x: np.max(_values(np, (2,) + x.shape), axis=0, out=x),
    "mean_out": lambda np, x: np.mean(_values(np, (2,) + x.shape), axis=0, out=x),
    "ptp_out": lambda np, x: np.ptp(_values(np, (2,) + x.shape), axis=0, out=x),
}


@pytest.mark.parametrize("write", sorted(REFUSED_WRITES))
def test_reductions_into_self_overlapping_memory_are_refused(write):
    a = tnp.array([1.0, -2.0, 3.0])
    x = tnp.broadcast_arrays(a, tnp.ones((2, 1)))[0]
    x.flags.writeable = True
    with pytest.raises(tnp.UnsupportedError, match="share memory"):
        REFUSED_WRITES[write](tnp, x)
    assert a.tolist() == [1.0, -2.0, 3.0]
    expected = numpy.array([1.0, -2.0, 3.0])
    y = numpy.broadcast_arrays(expected, numpy.ones((2, 1)))[0]
    y.flags.writeable = True
    REFUSED_WRITES[write](numpy, y)   # NumPy writes: each item reduced into the shared memory
    assert expected.tolist() != [1.0, -2.0, 3.0]
