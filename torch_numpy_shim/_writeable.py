"""NumPy's WRITEABLE and WARN_ON_WRITE flags of a shim array, set by user code.

``a.flags.writeable = False`` (or ``a.setflags(write=False)``) makes writes raise;
setting it back to True is allowed where NumPy allows it: on an array that owns its
memory, or on a view whose owner is writeable; a view of a read-only owner refuses with
NumPy's ValueError. A shim array over a read-only NumPy array holds a copy of its memory,
so where NumPy would make that array writeable the shim refuses (the writes would miss
the NumPy array), and where NumPy refuses so does the shim.

``np.broadcast_arrays`` results (and views of them) carry NumPy's WARN_ON_WRITE: the
first write warns (DeprecationWarning) and clears the flag on the array and its owner;
setting WRITEABLE either way clears it too; reading WRITEABLE while it is set warns
(FutureWarning) each time. Traced code cannot warn at run time, so
while tracing these writes, and any flag change, are refused (npcompile runs that part
in real NumPy). Below the array: this module only reads and sets the array's slots.
"""
import warnings

import numpy

from ._errors import UnsupportedError
from ._fp_errors import _user_stacklevel, tracing

_OVERLAP = ("Numpy has detected that you (may be) writing to an array with\noverlapping memory from "
            "np.broadcast_arrays. If this is intentional\nset the WRITEABLE flag True or make a copy "
            "immediately before writing.")
_FUTURE = ("future versions will not create a writeable array from broadcast_array. Set the writable flag "
           "explicitly to avoid this warning.")
_CANNOT = "cannot set WRITEABLE flag to True of this array"


def _refuse_while_tracing(what):
    if tracing():
        raise UnsupportedError(f"{what} inside traced code (the flag lives on the caller's array)")


def get_writeable(a):
    """``a.flags.writeable``; NumPy warns (FutureWarning) on each read of it from an
    array that still warns on write."""
    if a._warn_on_write:
        if tracing():
            raise UnsupportedError("reading WRITEABLE of an np.broadcast_arrays result warns "
                                   "(FutureWarning) each time it runs")
        warnings.warn(_FUTURE, FutureWarning, stacklevel=_user_stacklevel())
    return not a._readonly


def set_writeable(a, value):
    """``a.flags.writeable = value``, NumPy's rules (see the module docstring)."""
    if a._scalar:
        raise ValueError("Cannot set flags on array scalars.")
    _refuse_while_tracing("setting an array's WRITEABLE flag")
    if value and a._readonly:
        owner = a._base
        if owner is not None and owner._readonly:
            raise ValueError(_CANNOT)
        if owner is None and a._lock is ValueError:
            raise ValueError(_CANNOT)
        if owner is None and a._lock is not None:
            raise UnsupportedError("making a read-only NumPy array writeable through the shim (the shim "
                                   "holds a copy of its memory; writes would not reach the NumPy array)")
    a._readonly = not value
    a._warn_on_write = False


def setflags(a, write=None, align=None, uic=None):
    """``ndarray.setflags``: shim memory is always aligned, never WRITEBACKIFCOPY."""
    if uic:
        raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
    if align is not None and not align:
        raise UnsupportedError("unaligned arrays (setflags(align=False))")
    if write is not None:
        set_writeable(a, write)


def warn_on_write(a):
    """The first write into a broadcast_arrays result: NumPy's warning, once."""
    if tracing():
        raise UnsupportedError("a write into an np.broadcast_arrays result warns (DeprecationWarning) "
                               "each time it runs")
    warnings.warn(_OVERLAP, DeprecationWarning, stacklevel=_user_stacklevel())
    a._warn_on_write = False
    if a._base is not None:
        a._base._warn_on_write = False


def broadcast_results(arrays, results):
    """Flag ``np.broadcast_arrays``'s ``results`` as NumPy does: each that is a new view
    of a writeable input warns on its first write (one of the same shape comes back as
    the input itself, unflagged; a view of a read-only input stays read-only)."""
    for array, result in zip(arrays, results):
        if result is not array and not result._readonly:
            result._warn_on_write = True
    return results


def numpy_lock(arr):
    """What refuses WRITEABLE=True on a shim array that copied read-only NumPy ``arr``:
    NumPy's ValueError where NumPy refuses too, else UnsupportedError (the copy's writes
    would not reach ``arr``)."""
    return UnsupportedError if _numpy_allows(arr) else ValueError


def _numpy_allows(arr):
    """NumPy's own test (``_IsWriteable``): an owner may always be made writeable, a view
    when the first array above it is writeable, or its memory a writeable buffer."""
    if arr.base is None or arr.flags.owndata:
        return True
    base = arr.base
    while isinstance(base, numpy.ndarray):
        above, base = base, base.base
        if above.flags.writeable:
            return True
        if base is None or above.flags.owndata:
            return False
    try:
        return not memoryview(base).readonly
    except TypeError:
        return False
