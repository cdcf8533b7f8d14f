"""Exceptions: NumPy's own classes where NumPy raises them, plus UnsupportedError for
what the shim refuses rather than answering wrongly (the tracer falls back on it)."""
import numpy
from numpy.exceptions import AxisError, ComplexWarning

__all__ = ["UnsupportedError", "AxisError", "ComplexWarning", "LinAlgError"]

LinAlgError = numpy.linalg.LinAlgError


class UnsupportedError(NotImplementedError):
    """The shim cannot reproduce NumPy faithfully here (a dtype, feature or argument);
    run the call in real NumPy instead."""
