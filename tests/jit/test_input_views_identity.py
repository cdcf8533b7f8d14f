"""Views of a function's inputs keep NumPy's identity (issue 13): the type (a 0-d view
``a[0, ...]`` is an ndarray, ``a[0, 1]`` a NumPy scalar), ``base``, ``flags.owndata``,
shared memory and strides, read by the function itself (in one segment, or after a graph
break that the view is held across) and of the view it returns. NumPy is the oracle:
each table row runs the same function through NumPy and through ``npcompile.jit``
(eager and Inductor), on inputs that own their memory and on inputs that are views."""
import io

import numpy as np
import pytest

import npcompile

BACKENDS = ["eager", pytest.param("inductor", marks=pytest.mark.inductor)]

#: view expressions of a 2-d input (each a view in NumPy, or a scalar where so marked)
VIEWS = {
    "slice": lambda a: a[1:],
    "step": lambda a: a[:, ::2],
    "row": lambda a: a[0],
    "int_ellipsis": lambda a: a[0, ...],
    "ellipsis_int_int": lambda a: a[..., 1, 0],
    "int_ellipsis_int": lambda a: a[1, ..., 1],
    "ellipsis_view_of_row": lambda a: a[0][1, ...],
    "scalar": lambda a: a[0, 1],
    "transpose": lambda a: a.T,
    "new_axis": lambda a: a[:, None],
    "reshape": lambda a: a.reshape(-1, 1, a.shape[-1]),
    "reversed": lambda a: a[::-1],
    "reversed_columns": lambda a: a[:, ::-1],
    "reversed_both": lambda a: a[::-1, ::-1],
    "flip": lambda a: np.flip(a, axis=1),
    "rot90": lambda a: np.rot90(a),
    "view_of_view": lambda a: a[1:].T[::2],
}

#: inputs: (2, 3) owning its memory, Fortran order, and a strided view of a bigger array
INPUTS = {
    "c": lambda: np.arange(6.0).reshape(2, 3).copy(),
    "f": lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    "view": lambda: np.arange(24.0).reshape(4, 6)[::2, 1:4],
}


def _break():
    print(end="", file=io.StringIO())   # print: a graph break the view is held across


def _identity(v, a):
    """What the function reads of view ``v`` of its input ``a``."""
    if not isinstance(v, np.ndarray):
        return type(v).__name__, v.item(), np.shares_memory(v, a)
    return (type(v).__name__, v.base is a, v.base is a.base, v.flags.owndata, np.shares_memory(v, a),
            v.shape, v.flags.writeable)


def _identity_with_layout(v, a):
    """``_identity`` and the strides and contiguity flags."""
    if not isinstance(v, np.ndarray):
        return _identity(v, a)
    return _identity(v, a) + (v.strides, v.flags.c_contiguous, v.flags.f_contiguous)


def _returned(view):
    def fn(a):
        return view(a)
    return fn


def _read_inside(view):
    def fn(a):
        return _identity_with_layout(view(a), a)
    return fn


def _read_after_break(view):
    def fn(a):
        v = view(a)
        _break()
        return _identity_with_layout(v, a)
    return fn


def _written_after_break(view):
    def fn(a):
        v = view(a)
        _break()
        if isinstance(v, np.ndarray):
            v[...] = -1.0
        return v.base is a
    return fn


def _describe_result(result, a):
    if isinstance(result, np.ndarray):
        return _identity_with_layout(result, a) + (result.dtype, result.tolist())
    return type(result).__name__, result


def _compare(make, backend, input_name, describe):
    fn = make()
    jitted = npcompile.jit(fn, backend=backend)
    for call in range(2):   # the first call traces; the second runs the compiled entries
        a, b = INPUTS[input_name](), INPUTS[input_name]()
        expected, actual = fn(a), jitted(b)
        assert describe(actual, b) == describe(expected, a), f"call {call}"
        assert b.tolist() == a.tolist(), f"call {call}: the input's values"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("view_name", list(VIEWS))
def test_returned_view_is_numpys(view_name, input_name, backend):
    _compare(lambda: _returned(VIEWS[view_name]), backend, input_name, _describe_result)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("view_name", list(VIEWS))
def test_view_read_inside_the_function(view_name, input_name, backend):
    _compare(lambda: _read_inside(VIEWS[view_name]), backend, input_name, lambda r, _: r)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("view_name", list(VIEWS))
def test_view_read_after_a_break(view_name, input_name, backend):
    _compare(lambda: _read_after_break(VIEWS[view_name]), backend, input_name, lambda r, _: r)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("view_name", list(VIEWS))
def test_view_written_after_a_break(view_name, input_name, backend):
    _compare(lambda: _written_after_break(VIEWS[view_name]), backend, input_name, lambda r, _: r)


#: fresh results read after a break: NumPy's own arrays (base None, owndata True)
FRESH = {
    "sum_of_input": lambda a: a + 1,
    "reduction": lambda a: a.sum(axis=0),
    "copy": lambda a: a.copy(),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fresh_name", list(FRESH))
def test_fresh_result_read_after_a_break(fresh_name, backend):
    make = FRESH[fresh_name]

    def fn(a):
        u = make(a)
        _break()
        return u.base is None, u.flags.owndata, u.flags["O"], np.shares_memory(u, a)
    _compare(lambda: fn, backend, "c", lambda r, _: r)


def test_fresh_result_read_in_a_loop_after_a_break():
    """A computed array a runtime-driven loop holds across its break (a held tensor)."""
    def fn(a):
        answers = []
        for i in range(3):
            u = a * i
            _break()
            answers.append((u.base is None, u.flags.owndata))
        return answers
    _compare(lambda: fn, "eager", "c", lambda r, _: r)
