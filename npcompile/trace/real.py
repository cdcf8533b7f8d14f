"""Running instructions for real at a graph break.

The opcode handlers talk to a tracer through a few hooks (load_global, call, truth, ...).
``RealRunner`` implements those hooks with plain Python semantics on real values, so the
instruction a trace could not capture runs exactly as CPython would run it: NumPy is
real NumPy, print prints, data-dependent branches look at the data. Arrays kept on the
device across the break (``DeviceArray``) come to the host as real code reaches them.

Exceptions go where CPython sends them: an instruction that raises is looked up in its
code's exception table; the frame's stack is cut to the handler's depth, lasti and the
exception are pushed and the frame jumps to the handler, or the frame is left and the
search goes on at the call instruction of the frame below. While an ``except``,
``finally`` or ``with`` exit block runs (a ``Handling`` marker on the stacks), each
instruction runs inside an ``except`` clause of the handled exception, so that
``sys.exc_info()``, a bare ``raise`` and implicit chaining (``__context__``) see what
they see in CPython.
"""
import dis
import types

import torch

from . import exception_table, namespaces
from .frame import cell_full, handled_exception
from .opcodes import CO_ASYNC_GENERATOR, CO_COROUTINE, CO_GENERATOR, REAL_HANDLERS, Reraise
from .opcodes.registry import NoHandler as _NoHandler
from .opcodes.versions import loads_method
from .resident import DeviceArray

_CALL_OPCODES = {"CALL", "CALL_KW", "CALL_FUNCTION_EX"}
_MAX_EXTRA_STEPS = 10_000
#: forward conditional jumps that consume a bool (and 3.13's TO_BOOL of one)
_BOOL_JUMPS = frozenset({"TO_BOOL", "UNARY_NOT", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE",
                         "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE"})
_CONTAINERS = (list, dict, set)
_LAZY_CODE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR


#: attributes that tell whether an array owns its memory (``fresh``)
_OWNERSHIP = ("base", "flags")


def fresh(array):
    """Whether ``array`` is a result the graph computed, as frames hold it at a break: a
    tensor (held, or a tensor loop's slot) or its NumPy array (``Tensor.numpy`` leaves the
    tensor as ``base``). NumPy's own would own its memory: ``base`` None, ``owndata`` True."""
    if isinstance(array, (torch.Tensor, DeviceArray)):
        return True
    base = getattr(array, "base", None)
    if type(base) is memoryview:   # resident.owned_by_numpy's
        base = getattr(base.obj, "base", None)
    return type(base) is torch.Tensor


class FreshFlags:
    """A fresh result's flags as NumPy's own array has them: ``owndata`` True, the rest its
    NumPy array's."""

    __slots__ = ("_flags",)

    def __init__(self, flags):
        self._flags = flags

    owndata = True

    def __getattr__(self, name):
        return getattr(self._flags, name)

    def __setattr__(self, name, value):   # flags.writeable = False reaches the array
        if name == "_flags":
            object.__setattr__(self, name, value)
        else:
            setattr(self._flags, name, value)

    def __setitem__(self, key, value):
        self._flags[key] = value

    def __getitem__(self, key):
        return True if key.upper() in ("O", "OWNDATA") else self._flags[key]

    def __repr__(self):
        return repr(self._flags).replace("OWNDATA : False", "OWNDATA : True")


def array_flags(array):
    """``array.flags`` as NumPy's for the array a frame holds at a break (``FreshFlags``
    for a fresh result)."""
    if not fresh(array):
        return array.flags
    if isinstance(array, DeviceArray):
        array = array.tensor
    if isinstance(array, torch.Tensor):
        array = array.detach().resolve_conj().resolve_neg().cpu().numpy()
    return FreshFlags(array.flags)


def _bound_to(value):
    """The object a C method is bound to (``lst.append`` -> ``lst``), else the value."""
    return value.__self__ if isinstance(value, types.BuiltinMethodType) else value


def _container_aliased_on_stack(frames):
    """Whether the top frame's stack holds a list, dict or set, or a method bound to one,
    that a local, a cell or another stack slot of the frames also holds."""
    held = {id(v) for v in map(_bound_to, frames[-1].stack) if isinstance(v, _CONTAINERS)}
    if not held:
        return False
    references = {}
    for frame in frames:
        values = [*frame.locals.values(), *map(_bound_to, frame.stack)]
        values += [c.cell_contents for c in frame.cells.values() if cell_full(c)]
        for value in values:
            if id(value) in held:
                references[id(value)] = references.get(id(value), 0) + 1
    return any(count > 1 for count in references.values())


def _runs_natively(fn, created):
    """Functions called at a break that run as plain Python, not compiled in turn:
    generators and coroutines (they run lazily, one step per ``next``) and functions the
    runner itself just made (a comprehension's, a lambda's: a new object each call)."""
    code = getattr(fn, "__code__", None)
    return code is not None and (code.co_flags & _LAZY_CODE or id(fn) in created)


def _run_there(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def call_in_frame(frame, fn, args, kwargs):
    """``fn(*args, **kwargs)`` from a Python frame that stands for ``frame``'s line: its
    globals (module name), file name and line number. A warning NumPy emits there (a
    ufunc's RuntimeWarning is attributed to the innermost Python frame) is then matched
    against the warnings filters (``filterwarnings('error', module=...)``, a line number)
    and registries as CPython running ``frame`` would, not as npcompile.trace.real's."""
    key = (frame.code, frame.lineno)
    code = _CODES.get(key)
    if code is None:   # made once per line: a loop driven at its break runs the same lines again
        if len(_CODES) > _MAX_CODES:
            _CODES.clear()
        code = _CODES[key] = _run_there.__code__.replace(
            co_filename=frame.code.co_filename, co_name=frame.code.co_name,
            co_firstlineno=max((frame.lineno or 1) - 1, 0))
    return types.FunctionType(code, frame.globals)(fn, *args, **kwargs)


#: (user code, line) -> the code ``call_in_frame`` runs there; at most ``_MAX_CODES`` kept.
_CODES = {}
_MAX_CODES = 4096


def _while_handling(exc, handler, *args):
    """Run ``handler(*args)`` with ``exc`` as the exception being handled. Raising it to
    enter the except clause touches its traceback and context: both are put back."""
    context, traceback = exc.__context__, exc.__traceback__
    try:
        raise exc
    except BaseException:
        exc.__context__, exc.__traceback__ = context, traceback
        return handler(*args)


def _raise_as_is(exc):
    """Raise ``exc`` as RERAISE does: no implicit chaining to what is being handled."""
    context, traceback = exc.__context__, exc.__traceback__
    try:
        raise exc
    except BaseException:
        exc.__context__, exc.__traceback__ = context, traceback
        raise


class RealRunner:
    runs_for_real = True

    def __init__(self, frames, call_user_function):
        self.frames = frames
        self.call_user_function = call_user_function
        self.internal_cells = set()
        self.created_functions = set()
        self.keepalive = []
        self.host_copies = 0

    # ---- the hooks the handlers use ---------------------------------------------------------
    def load_global(self, frame, name):
        if name in frame.globals:
            return frame.globals[name]
        own = namespaces.builtins_of(frame)   # the function's own builtins dict, as CPython reads it
        if name not in own:   # raised outside an except clause: no stray __context__
            raise NameError(f"name '{name}' is not defined")
        return own[name]

    def store_global(self, frame, name, value):
        frame.globals[name] = value

    def load_cell(self, frame, name):
        cell = frame.cells[name]
        try:
            return cell.cell_contents
        except ValueError:
            pass
        if name in frame.code.co_cellvars:
            raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")
        raise NameError(f"cannot access free variable '{name}' where it is not associated with a value in "
                        "enclosing scope")

    def store_cell(self, frame, name, value):
        frame.cells[name].cell_contents = value

    def load_attr(self, obj, name):
        if name in _OWNERSHIP and fresh(obj):
            return None if name == "base" else array_flags(obj)
        return getattr(obj, name)

    def store_attr(self, obj, name, value):
        setattr(obj, name, value)

    def truth(self, value):
        return bool(value)

    def iterate(self, value):
        return value

    def format(self, value, convert, spec):
        return format(value if convert is None else convert(value), spec)

    def apply(self, op, *operands):
        return call_in_frame(self.frames[-1], op, operands, {})

    def mutate(self, container, method, args):
        return getattr(container, method)(*args)

    def call(self, fn, args, kwargs):
        if namespaces.reads_frame(fn, args, kwargs):   # globals(), locals(): the user's frame, not ours
            return namespaces.call_for_real(self, fn, args, kwargs)
        if _runs_natively(fn, self.created_functions):
            return fn(*args, **kwargs)
        return self.call_user_function(fn, args, kwargs, self.frames[-1])

    call_now = call

    def wrap_foreign(self, value):
        return value

    def back_edge(self, frame, inst):
        pass

    def check_iterator(self, iterator):
        pass

    # ---- driving ------------------------------------------------------------------------------
    def run_break(self):
        """Run the instruction the trace stopped before: a method load with the call it
        starts (the next trace begins with the call's result); a loop's back edge with the
        real iterator's next step. Then run on while the stack holds a list, dict or set
        (or a method bound to one) that a variable also holds: the next trace would lift
        the two as two copies and miss through one a change made through the other
        (``acc.append(f(acc))`` breaking at ``f``). Stop at a handler an exception was
        raised into: the next trace begins there."""
        frame = self.frames[-1]
        depth = len(frame.stack)
        first = self._guarded_step(frame)
        if first is None:
            return
        if loads_method(first):   # a method the trace could not read: run its call too
            called = depth + dis.stack_effect(first.opcode, first.arg) - 1   # the depth once it returned
            while True:
                inst = self._guarded_step(frame)
                if inst is None:
                    return
                if inst.opname in _CALL_OPCODES and len(frame.stack) == called:
                    break
        elif first.opname.startswith("JUMP_BACKWARD") and frame.instructions[frame.ip].opname == "FOR_ITER":
            self._guarded_step(frame)  # a loop boundary: advance the real iterator here, not in a trace
            return
        while frame.stack and type(frame.stack[-1]) is bool and self.frames[-1] is frame and \
                frame.instructions[frame.ip].opname in _BOOL_JUMPS:
            # a condition computed for real (3.13's COMPARE_OP and TO_BOOL make the bool):
            # take its jump here, so the next trace does not begin by guarding its value
            if self._guarded_step(frame) is None:
                return
        for _ in range(_MAX_EXTRA_STEPS):
            if self.frames[-1] is not frame or frame.instructions[frame.ip].opname == "RETURN_VALUE" or \
                    not _container_aliased_on_stack(self.frames):
                return
            if self._guarded_step(frame) is None:
                return

    def finish_frames(self):
        """Run every frame to its end for real (used when tracing cannot resume)."""
        frames = self.frames
        while True:
            frame = frames[-1]
            inst = frame.instructions[frame.ip]
            if inst.opname == "RETURN_VALUE":
                if type(frame.stack[-1]) is DeviceArray:
                    self._bring_to_host(frame.stack[-1])
                frame.ip += 1
                value = frame.return_value()
                frames.pop()
                if not frames:
                    return value
                frames[-1].push(value)
                continue
            self._guarded_step(frame)

    def _guarded_step(self, frame):
        """One instruction; the instruction, or None when it raised into a handler (the
        frames are then at that handler). An exception no frame handles propagates."""
        try:
            return self._step(frame)
        except _NoHandler:
            raise
        except Reraise as signal:
            exc, lasti = signal.exc, signal.lasti
        except BaseException as exc:
            if self._unwind(exc, None):
                return None
            raise
        if self._unwind(exc, lasti):
            return None
        _raise_as_is(exc)   # outside the except clause: nothing to chain it to but the caller's

    def _step(self, frame):
        for value in frame.stack:   # what the instruction may use: instructions take operands from the stack
            if type(value) is DeviceArray:
                self._bring_to_host(value)
        inst = frame.instructions[frame.ip]
        frame.ip += 1
        if inst.starts_line is not None:
            frame.lineno = inst.starts_line
        self.current = inst
        handler = REAL_HANDLERS.get(inst.opname)
        if handler is None:
            raise _NoHandler(f"npcompile cannot run bytecode {inst.opname} after a graph break")
        handled = handled_exception(self.frames)
        if handled is None:
            handler(self, frame, inst)
        else:
            _while_handling(handled, handler, self, frame, inst)
        return inst

    def _unwind(self, exc, lasti):
        """Send ``exc`` to its handler as CPython's exception table says: True when a
        frame catches it (that frame now at the handler), False when it leaves them all."""
        frames = self.frames
        offset = self.current.offset
        while frames:
            frame = frames[-1]
            frame.kw_names = ()
            handler = exception_table.handler_for(frame.code, offset)
            if handler is not None:
                del frame.stack[handler.depth:]
                if handler.lasti:
                    frame.push(lasti if lasti is not None else exception_table.lasti_value(offset))
                frame.push(exc)
                frame.jump(handler.target)
                return True
            frames.pop()
            lasti = None
            if frames:
                below = frames[-1]
                offset = below.instructions[below.ip - 1].offset   # the call that made the frame left
        return False

    def _bring_to_host(self, resident):
        """One host copy of a device-resident array, put in every slot that held it, so
        aliases stay aliases and nothing later sees the stale device copy."""
        host = resident.to_host()
        self.host_copies += 1
        for frame in self.frames:
            frame.stack[:] = [host if v is resident else v for v in frame.stack]
            for name, value in frame.locals.items():
                if value is resident:
                    frame.locals[name] = host
