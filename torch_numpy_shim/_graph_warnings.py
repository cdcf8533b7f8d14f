"""NumPy's warnings that depend on sizes or values ('Mean of empty slice', 'Degrees of
freedom <= 0 for slice', 'All-NaN slice encountered'), from compiled code.

A graph traced for an empty slice (its size known while tracing) must warn each time it
runs, as NumPy does; rerunning the call as written is refused where the segment writes
into its inputs. So the warning is an op of the graph: ``torch_numpy_shim::warn_if
(condition, message)`` reads its condition when the graph runs and warns where it
holds. It is marked as having a side effect, so neither FX nor Inductor prunes it (it
has no output). Compiled code emits NumPy's floating-point reports no more than before
(README): the 0/0 that follows an empty mean is not reported.

A condition only the data decides (``x[mask]``'s row count, an all-NaN slice) would cost
that op on every run (~13 us); ``warn_when`` instead hands it to npcompile (``collecting``)
as a bool the graph outputs: the compiled call reads it with its value checks and, where
it holds, reruns as written (NumPy warns, floating-point reports included) or, in a
segment that writes into its inputs, warns the message itself (npcompile.trace.outputs).
"""
import contextlib
import functools
import sys
import warnings

import torch
from numpy.exceptions import ComplexWarning

from . import _fp_errors

_LIBRARIES = []   # the registrations last as long as the library objects


#: modules whose frames lie between the user's call and the graph's op
_MACHINERY = ("torch", "npcompile", "torch_numpy_shim")


#: the warning classes the graph's op may issue, by name (its schema carries a string)
_CATEGORIES = {"RuntimeWarning": RuntimeWarning, "ComplexWarning": ComplexWarning}


def _warn(condition, message, category="RuntimeWarning"):
    if bool(condition):
        warnings.warn(message, _CATEGORIES[category], stacklevel=_caller_stacklevel())


def _caller_stacklevel():
    """The stacklevel of the first frame outside torch, npcompile and the shim (and
    their generated code): the call of the compiled function, where NumPy's warning
    would point (near enough: NumPy points at the line inside it)."""
    frame, level = sys._getframe(2), 2   # _warn's caller is stacklevel 2
    while frame is not None and (frame.f_code.co_filename.startswith("<") or
                                 frame.f_globals.get("__name__", "").split(".")[0] in _MACHINERY):
        frame, level = frame.f_back, level + 1
    return level


@functools.cache
def _warn_op():
    """Defined at first use (only traced programs need it), through torch.library's
    plain registration (``custom_op`` imports torch._dynamo: seconds)."""
    lib = torch.library.Library("torch_numpy_shim", "FRAGMENT")
    lib.define("warn_if(Tensor condition, str message, str category='RuntimeWarning') -> ()")
    lib.impl("warn_if", _warn, "CompositeExplicitAutograd")
    fake = lambda condition, message, category="RuntimeWarning": None   # noqa: E731 - no output
    torch.library.register_fake("torch_numpy_shim::warn_if", lib=lib)(fake)
    _LIBRARIES.append(lib)
    op = torch.ops.torch_numpy_shim.warn_if.default
    torch.fx.node.has_side_effect(op)
    return op


def warn_if(condition, message, category=RuntimeWarning):
    """Warn ``message`` (a ``category``, one of _CATEGORIES) when the graph being traced
    runs and the 0-d bool tensor ``condition`` holds."""
    _warn_op()(condition, message, category.__name__)


_collector = None   # a list of (condition, message) while npcompile traces (see collecting)


@contextlib.contextmanager
def collecting():
    """Within: ``warn_when`` records its conditions in the yielded list."""
    global _collector
    outer, _collector = _collector, []
    try:
        yield _collector
    finally:
        _collector = outer


def warn_when(condition, message, each=False):
    """NumPy's RuntimeWarning ``message`` where the bool tensor ``condition`` holds
    anywhere (``each``: once for each item where it holds, as NumPy's slice-by-slice
    nanmedian/nanquantile warn): at once eagerly; while npcompile traces, when the
    compiled call runs (plain tracing, make_fx alone, drops it)."""
    if not _fp_errors.tracing():
        for _ in range(int(condition.sum()) if each else int(bool(condition.any()))):
            _fp_errors.warn(message)
    elif _collector is not None:
        _collector.append((condition.any(), message))


def warn_each_run(message, category=RuntimeWarning):
    """NumPy's warning ``message`` for a condition known now (an empty slice's size, a
    complex input cast to a real loop): at once eagerly; while npcompile traces, from the
    graph each time it runs."""
    if not _fp_errors.tracing():
        _fp_errors.warn(message, category)
    elif _collector is not None:
        warn_if(torch.ones((), dtype=torch.bool), message, category)


def warn_complex_to_real(source, target, times=1):
    """NumPy's ComplexWarning for a cast of torch dtype ``source`` (complex) into real
    (not bool) ``target`` (``out=``, ``copyto``, ``astype``...): ``times`` of it, as often
    as NumPy casts (through its buffers: a reduction's first items and its result, twice)."""
    if source.is_complex and not target.is_complex and target != torch.bool:
        for _ in range(times):
            warn_each_run("Casting complex values to real discards the imaginary part", ComplexWarning)


def warn_now(message):
    """``message`` as NumPy's RuntimeWarning, pointing at the caller of the compiled code."""
    warnings.warn(message, RuntimeWarning, stacklevel=_caller_stacklevel())
