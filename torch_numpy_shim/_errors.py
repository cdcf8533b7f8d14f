"""Exceptions: NumPy's own classes where NumPy raises them, plus UnsupportedError for
what the shim refuses rather than answering wrongly (the tracer falls back on it)."""
import contextlib

import numpy
from numpy.exceptions import AxisError, ComplexWarning

__all__ = ["UnsupportedError", "UnsupportedName", "AxisError", "ComplexWarning", "LinAlgError", "errstate"]

LinAlgError = numpy.linalg.LinAlgError
# NumPy's own (private) classes for ufunc casting failures, so callers catch what NumPy raises
UFuncInputCastingError = numpy._core._exceptions._UFuncInputCastingError
UFuncOutputCastingError = numpy._core._exceptions._UFuncOutputCastingError


class UnsupportedError(NotImplementedError):
    """The shim cannot reproduce NumPy faithfully here (a dtype, feature or argument);
    run the call in real NumPy instead."""


class UnsupportedName(UnsupportedError, AttributeError):
    """A NumPy name the shim refuses on purpose (``np.datetime64``): UnsupportedError for
    callers, and an AttributeError for ``hasattr`` and ``getattr(..., default)``."""


class errstate:
    """``np.errstate(...)``: the shim computes with torch, which never warns or raises on
    floating-point errors, so 'ignore' (and NumPy's default 'warn', minus the warning)
    are honoured by doing nothing; 'raise', 'call' and 'print' cannot be and are refused."""

    def __init__(self, *, call=None, all=None, divide=None, over=None, under=None, invalid=None):
        modes = {all, divide, over, under, invalid} - {None}
        unknown = modes - {"ignore", "warn", "raise", "call", "print", "log"}
        if unknown:
            raise ValueError(f"invalid floating-point error mode {sorted(unknown)[0]!r}")
        if call is not None or modes & {"raise", "call", "print", "log"}:
            raise UnsupportedError(f"errstate with modes {sorted(modes)}: the shim cannot trap "
                                   "floating-point errors")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __call__(self, fn):
        return fn


_check_collector = None   # a list while npcompile traces a graph (see collecting_checks)


def raise_if(condition, exc):
    """Raise ``exc`` when any element of the bool tensor ``condition`` holds: a check
    NumPy makes on values. While a graph is being traced the values are unknown, so the
    condition is collected instead; the compiled call evaluates it and, if it holds,
    runs the code as written so that NumPy raises its own error in the user's context."""
    if _check_collector is not None:
        _check_collector.append(condition.any())
        return
    if bool(condition.any()):
        raise exc


@contextlib.contextmanager
def collecting_checks():
    """Within: ``raise_if`` records its conditions in the yielded list."""
    global _check_collector
    outer, _check_collector = _check_collector, []
    try:
        yield _check_collector
    finally:
        _check_collector = outer
