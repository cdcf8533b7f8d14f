"""Debug mode (issue 13, item 16): NumPy arrays handed to the shim to write into (``out=``,
``np.copyto``, ``np.put``, ``np.putmask``, ``np.place``, ``np.fill_diagonal``,
``np.put_along_axis``, ``ufunc.at``) are written in place, zero-copy, as NumPy writes them;
a read-only one raises NumPy's ValueError and is left alone; a layout torch cannot view
is refused with UnsupportedError, never written into a copy."""
import numpy
import pytest

import torch_numpy_shim as shim

WRITES = [
    ("add out=", lambda xp, t: xp.add(xp.arange(6.0).reshape(2, 3), 1, out=t)),
    ("sum out=", lambda xp, t: xp.sum(xp.ones((4, 2, 3)), axis=0, out=t)),
    ("divmod out=", lambda xp, t: xp.divmod(xp.arange(6.0).reshape(2, 3), 4, out=(t, None))),
    ("copyto", lambda xp, t: xp.copyto(t, 5)),
    ("put", lambda xp, t: xp.put(t, [0, 4], [7, 8])),
    ("putmask", lambda xp, t: xp.putmask(t, t == 0, 3)),
    ("place", lambda xp, t: xp.place(t, t == 0, [1, 2])),
    ("fill_diagonal", lambda xp, t: xp.fill_diagonal(t, 2)),
    ("put_along_axis", lambda xp, t: xp.put_along_axis(t, xp.zeros((2, 1), dtype=int), 9, axis=1)),
    ("add.at", lambda xp, t: xp.add.at(t, (0, [0, 0]), 1)),
]


def _target():
    t = numpy.zeros((2, 3))
    t[1, 2] = 1.0
    return t


@pytest.mark.parametrize("name, write", WRITES, ids=[w[0] for w in WRITES])
def test_numpy_arrays_are_written_in_place(name, write):
    expected, actual = _target(), _target()
    write(numpy, expected)
    write(shim, actual)
    assert actual.tolist() == expected.tolist()


@pytest.mark.parametrize("name, write", WRITES[:-1], ids=[w[0] for w in WRITES[:-1]])
def test_read_only_numpy_arrays_raise_and_stay(name, write):
    """(NumPy 2.4's ``add.at`` writes into a read-only array; the shim raises there.)"""
    target = _target()
    target.flags.writeable = False
    with pytest.raises(ValueError):
        write(numpy, target)
    with pytest.raises(ValueError):
        write(shim, target)
    assert target.tolist() == _target().tolist()


def test_reversed_numpy_target_is_refused_not_copied():
    target = numpy.zeros(4)[::-1]
    with pytest.raises(shim.UnsupportedError):
        shim.copyto(target, 1)
    assert target.tolist() == [0.0] * 4
