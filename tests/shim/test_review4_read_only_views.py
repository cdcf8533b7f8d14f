"""NumPy's read-only views (broadcast_to, diagonal, a real array's imag) refuse writes with
NumPy's ValueError before anything is written; broadcast_arrays' views stay writeable."""
import numpy
import pytest

import torch_numpy_shim as tnp

WRITES = {
    "setitem": lambda np, v: v.__setitem__(0, 7.0),
    "fill": lambda np, v: v.fill(7.0),
    "iadd": lambda np, v: v.__iadd__(1.0),
    "flat": lambda np, v: setattr(v, "flat", 7.0),
    "sort": lambda np, v: v.sort(),
    "partition": lambda np, v: v.partition(1),
    "put": lambda np, v: np.put(v, [0], 7.0),
    "putmask": lambda np, v: np.putmask(v, v > 0, 7.0),
    "copyto": lambda np, v: np.copyto(v, 7.0),
    "put_along_axis": lambda np, v: np.put_along_axis(v, np.array([0]), 7.0, 0),
}
VIEWS = {
    "diagonal": lambda np: (np.eye(3), lambda a: np.diagonal(a)),
    "broadcast_to": lambda np: (np.arange(3.0), lambda a: np.broadcast_to(a, (2, 3))[0]),
    "diagonal_transposed": lambda np: (np.eye(3), lambda a: a.diagonal().T[:2]),
}


def _error(np, view_name, write_name):
    a, make_view = VIEWS[view_name](np)
    view = make_view(a)
    with pytest.raises(ValueError) as info:
        WRITES[write_name](np, view)
    return str(info.value), numpy.asarray(a.tolist()), view.flags.writeable


@pytest.mark.parametrize("view_name", sorted(VIEWS))
@pytest.mark.parametrize("write_name", sorted(WRITES))
def test_write_into_read_only_view(view_name, write_name):
    message, after, writeable = _error(tnp, view_name, write_name)
    expected_message, expected_after, expected_writeable = _error(numpy, view_name, write_name)
    assert message == expected_message
    assert writeable is expected_writeable is False
    numpy.testing.assert_array_equal(after, expected_after)


def test_flags_of_views_and_copies():
    for np in (numpy, tnp):
        a = np.eye(3)
        assert [a.imag.flags.writeable, a.real.flags.writeable, np.diagonal(a).copy().flags.writeable,
                np.broadcast_to(a, (2, 3, 3)).flags.writeable] == [False, True, True, False]


def test_imag_of_real_is_read_only():
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        tnp.eye(2).imag[0, 0] = 1.0


def test_broadcast_arrays_writeable():
    """NumPy 2.4 still writes through broadcast_arrays' views (warning only)."""
    a, b = tnp.broadcast_arrays(tnp.arange(3.0), tnp.ones((2, 3)))
    a[0, 0] = 5.0
    assert a.base is not None and a.tolist()[1][0] == 5.0
    assert b.flags.writeable


def _read_only_input():
    a = numpy.arange(6.0)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("convert", [lambda np, a: np.asarray(a), lambda np, a: np.reshape(a, (2, 3))[0],
                                     lambda np, a: np.asarray(a).T])
def test_views_of_read_only_numpy_input(convert):
    """asarray of a read-only NumPy array is that array (read-only), and so are its views;
    the shim's copy of it refuses writes as NumPy's array does."""
    messages = []
    for np in (numpy, tnp):
        a = _read_only_input()
        view = convert(np, a)
        with pytest.raises(ValueError) as info:
            view[0] = 7.0
        messages.append((str(info.value), view.flags.writeable, a.tolist()))
    assert messages[0] == messages[1]
    assert [np.array(_read_only_input()).flags.writeable for np in (numpy, tnp)] == [True, True]
