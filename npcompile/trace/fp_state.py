"""NumPy's floating-point error state (``np.seterr`` / ``np.errstate``) as compiled code
sees it.

A graph computes with torch, which never traps a floating-point error, so it gives
NumPy's answer only while every error mode is 'ignore' or 'warn'. A segment whose graph
computes anything is compiled only in such a state, and its guard checks the state on
every call; in any other state ('raise', 'call', 'print', 'log') the segment runs in
real NumPy, which raises FloatingPointError (or calls the handler) exactly where it would.

'warn' is NumPy's default: NumPy then emits a RuntimeWarning for a division by zero,
an invalid operation or an overflow. Compiled code computes the same values but emits no
warning (as torch.compile's NumPy path); code that runs in real NumPy at a graph break
still warns. Use ``np.errstate(all='raise')`` to have such errors reported.

A 'warn' mode is traceable only while the warnings filters let NumPy's RuntimeWarning
be a warning: where a filter makes it an error (``python -W error``,
``warnings.simplefilter("error")``, set before the call or inside the function, a break
there), NumPy raises RuntimeWarning at the operation, so the segment runs in real NumPy
too; a filter that only shows, records or ignores the warning keeps the graph.

The state lives in a context variable NumPy replaces on every change; the check looks
at that object's identity, and at the filter list's identity, length and first entry
(``filterwarnings``/``simplefilter`` move or insert a filter at the front, or append
a new one, ``resetwarnings`` empties the list and ``catch_warnings`` puts in a copy),
and reads the modes (``np.geterr()``, ~1.5 us) and the filters only when one of them
changed, so a guard costs ~0.2 us.
"""
import warnings

import numpy

from . import warning_filters

_TRACEABLE_MODES = frozenset({"ignore", "warn"})

try:   # NumPy 2.x keeps the state in this context variable; without it, read the modes each time
    from numpy._core._ufunc_config import _extobj_contextvar
except ImportError:   # pragma: no cover - other NumPy versions
    _extobj_contextvar = None

_last = (object(), None, -1, None, False)   # (state, filters, length, first filter, verdict); one tuple

_FP_WARNING = (RuntimeWarning,)


def _modes_traceable():
    modes = numpy.geterr().values()
    if not all(mode in _TRACEABLE_MODES for mode in modes):
        return False
    return "warn" not in modes or not _warning_is_error()


def _warning_is_error():
    """Whether the warnings filters may turn NumPy's RuntimeWarning into an error."""
    return warning_filters.may_raise_in(warnings.filters, _FP_WARNING)


def traceable():
    """Whether compiled code computes what NumPy would in the current error state and
    warnings filters."""
    global _last
    if _extobj_contextvar is None:
        return _modes_traceable()
    state = _extobj_contextvar.get()
    filters = warnings.filters
    last = _last
    # the tuple holds ``state`` and ``filters`` alive, so their identities are not reused
    if state is last[0] and filters is last[1] and len(filters) == last[2] and (not filters or filters[0] is last[3]):
        return last[4]
    verdict = _modes_traceable()
    _last = (state, filters, len(filters), filters[0] if filters else None, verdict)
    return verdict


def describe():
    """The current modes (and a warnings filter that makes their warnings errors), for messages."""
    modes = numpy.geterr()
    text = ", ".join(f"{kind}={mode!r}" for kind, mode in sorted(modes.items()))
    if "warn" in modes.values() and _warning_is_error():
        text += "; a warnings filter makes RuntimeWarning an error"
    return text
