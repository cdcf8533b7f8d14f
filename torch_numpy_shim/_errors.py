"""Exceptions: NumPy's own classes where NumPy raises them, plus UnsupportedError for
what the shim refuses rather than answering wrongly (the tracer falls back on it)."""
import contextlib

import numpy
from numpy.exceptions import AxisError, ComplexWarning

from ._fp_errors import tracing

__all__ = ["UnsupportedError", "UnsupportedName", "AxisError", "ComplexWarning", "LinAlgError", "errstate",
           "seterr", "geterr", "seterrcall", "geterrcall"]

LinAlgError = numpy.linalg.LinAlgError
# NumPy's own (private) classes for ufunc casting failures, so callers catch what NumPy raises
UFuncInputCastingError = numpy._core._exceptions._UFuncInputCastingError
UFuncOutputCastingError = numpy._core._exceptions._UFuncOutputCastingError


class AxisOverflowError(AxisError, OverflowError):
    """An axis beyond a C int. NumPy fails converting it before any range check, with
    OverflowError (its Python functions, and anywhere beyond a C long) or ValueError (its
    C converters: "integer won't fit into a C int"); this is both, and an AxisError."""


class UnsupportedError(NotImplementedError):
    """The shim cannot reproduce NumPy faithfully here (a dtype, feature or argument);
    run the call in real NumPy instead."""


class UnsupportedName(UnsupportedError, AttributeError):
    """A NumPy name the shim refuses on purpose (``np.datetime64``): UnsupportedError for
    callers, and an AttributeError for ``hasattr`` and ``getattr(..., default)``."""


_UNSET = object()
_TRAPPING = frozenset({"raise", "call", "print", "log"})


class errstate(numpy.errstate):
    """``np.errstate(...)``: NumPy's own, so the modes it sets are those the shim's eager
    computations report by (``_fp_errors``), and NumPy's are read alike. While torch
    traces (npcompile), it changes nothing: compiled code cannot trap floating-point
    errors, so the modes that would need it ('raise', 'call', 'print', 'log') are
    refused there and the tracer leaves the code to NumPy."""

    __slots__ = ("_traced",)

    def __init__(self, *, call=_UNSET, all=None, divide=None, over=None, under=None, invalid=None):
        modes = {all, divide, over, under, invalid} - {None}
        unknown = modes - {"ignore", "warn"} - _TRAPPING
        if unknown:
            raise ValueError(f"invalid floating-point error mode {sorted(unknown)[0]!r}")
        self._traced = tracing()
        if self._traced and (call is not _UNSET or modes & _TRAPPING):
            raise UnsupportedError(f"errstate with modes {sorted(modes)} while tracing: compiled "
                                   "code cannot trap floating-point errors")
        kwargs = {} if call is _UNSET else {"call": call}
        super().__init__(all=all, divide=divide, over=over, under=under, invalid=invalid, **kwargs)

    def __enter__(self):
        return self if self._traced else super().__enter__()

    def __exit__(self, *exc_info):
        return False if self._traced else super().__exit__(*exc_info)

    def __call__(self, fn):
        return fn if self._traced else super().__call__(fn)


def seterr(all=None, divide=None, over=None, under=None, invalid=None):
    """NumPy's ``seterr`` (the state is NumPy's); refused while tracing, like errstate."""
    _refuse_while_tracing("seterr")
    return numpy.seterr(all=all, divide=divide, over=over, under=under, invalid=invalid)


def seterrcall(func):
    """NumPy's ``seterrcall``; refused while tracing."""
    _refuse_while_tracing("seterrcall")
    return numpy.seterrcall(func)


def geterr():
    return numpy.geterr()


def geterrcall():
    return numpy.geterrcall()


def _refuse_while_tracing(name):
    if tracing():
        raise UnsupportedError(f"np.{name} while tracing: compiled code cannot change the "
                               "floating-point error state")


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
