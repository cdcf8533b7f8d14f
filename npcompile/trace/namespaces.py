"""``globals()``, ``locals()``, ``vars()``, ``dir()``, ``eval()`` and ``exec()`` called by
the user's code.

CPython answers these from the frame that calls them. The tracer and the break runner
call builtins from their own Python frames, so run as they are they would read
npcompile's namespaces (``'SCALE' in globals()`` False, ``sorted(locals())`` the
tracer's names). Here they read the user's frame (a traced ``Frame`` or a real one):
``globals()`` is the function's module dict itself (writes through it land there),
``locals()``/``vars()`` a snapshot of the frame's bound locals, cell and free variables,
``dir()`` their sorted names.
"""
import builtins
import sys
import types

from .frame import cell_full
from .resident import DeviceArray


def builtins_of(frame):
    """The builtins dict ``frame``'s LOAD_GLOBAL falls back on: its function's
    ``__builtins__`` (CPython takes it from the globals' ``__builtins__`` when the
    function is made), not necessarily the ``builtins`` module's."""
    own = getattr(frame.function, "__builtins__", None)
    if type(own) is dict:
        return own
    own = frame.globals.get("__builtins__", builtins)
    return own.__dict__ if isinstance(own, types.ModuleType) else own if type(own) is dict else builtins.__dict__


_READERS = {id(fn): fn for fn in (globals, locals, vars, dir, eval, exec)}


def reads_frame(fn, args, kwargs):
    """Whether this call of ``fn`` reads the calling frame: ``globals()``, ``locals()``,
    ``vars()``, ``dir()`` with no argument, ``eval``/``exec`` given no globals (None
    counts as none). Other calls (``vars(obj)``, or wrong ones, which raise as CPython's
    do) run as they are."""
    if type(fn) is not types.BuiltinFunctionType or _READERS.get(id(fn)) is not fn:
        return False
    if fn is eval or fn is exec:
        allowed = {"closure"} if fn is exec else set()
        return 1 <= len(args) <= 3 and set(kwargs) <= allowed and (len(args) < 2 or args[1] is None)
    return not args and not kwargs


def module_namespace(value):
    """Whether ``value`` is a loaded module's ``__dict__`` (what ``globals()`` gives)."""
    if type(value) is not dict:
        return False
    name = value.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    return module is not None and getattr(module, "__dict__", None) is value


def frame_locals(runner, frame):
    """``locals()`` in ``frame``, as CPython's snapshot: the bound fast locals, then the
    bound cell and free variables (read through ``runner.load_cell``, so the tracer
    lifts a closure's value as it does for a plain read)."""
    code = frame.code
    cell_names = {*code.co_cellvars, *code.co_freevars}
    snapshot = {}
    for name in dict.fromkeys(code.co_varnames + code.co_cellvars + code.co_freevars):
        if name in cell_names:
            cell = frame.cells.get(name)
            if cell is not None and cell_full(cell):
                snapshot[name] = runner.load_cell(frame, name)
        elif name in frame.locals:
            snapshot[name] = frame.locals[name]
    return snapshot


def call_for_real(runner, fn, args, kwargs):
    """Run a frame-reading call (``reads_frame``) in the runner's top frame."""
    frame = runner.frames[-1]
    if fn is globals:
        return frame.globals
    snapshot = frame_locals(runner, frame)
    resident = [value for value in snapshot.values() if type(value) is DeviceArray]
    for value in resident:   # an array a frame kept as a tensor at the break: NumPy's, once
        runner._bring_to_host(value)
    if resident:
        snapshot = {name: value.to_host() if type(value) is DeviceArray else value
                    for name, value in frame_locals(runner, frame).items()}
    if fn is dir:
        return sorted(snapshot)
    if fn is locals or fn is vars:
        return snapshot
    local_values = args[2] if len(args) > 2 and args[2] is not None else snapshot
    return fn(args[0], frame.globals, local_values, **kwargs)
