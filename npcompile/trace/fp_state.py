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

The state lives in a context variable NumPy replaces on every change; the check looks
at that object's identity and reads the modes (``np.geterr()``, ~1.5 us) only when it
changed, so a guard costs ~0.1 us.
"""
import numpy

_TRACEABLE_MODES = frozenset({"ignore", "warn"})

try:   # NumPy 2.x keeps the state in this context variable; without it, read the modes each time
    from numpy._core._ufunc_config import _extobj_contextvar
except ImportError:   # pragma: no cover - other NumPy versions
    _extobj_contextvar = None

_last = (object(), False)   # (the state object last looked at, its verdict); one tuple: thread-safe


def _modes_traceable():
    return all(mode in _TRACEABLE_MODES for mode in numpy.geterr().values())


def traceable():
    """Whether compiled code computes what NumPy would in the current error state."""
    global _last
    if _extobj_contextvar is None:
        return _modes_traceable()
    state = _extobj_contextvar.get()
    last = _last
    if state is last[0]:   # the tuple holds ``state`` alive, so its identity is not reused
        return last[1]
    verdict = _modes_traceable()
    _last = (state, verdict)
    return verdict


def describe():
    """The current modes, for messages."""
    return ", ".join(f"{kind}={mode!r}" for kind, mode in sorted(numpy.geterr().items()))
