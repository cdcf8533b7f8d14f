"""Generators met while tracing: the tracer runs a generator's body to its end when it
is called, which is exact only where nothing can tell the difference. ``yield from``
inside such a body runs the delegate to its end too (``SEND``, and ``END_SEND`` from
3.12), collecting what it yields as the body's own."""
import dis
import types

from ...errors import GraphBreak
from .. import symbols
from ..frame import NULL
from .registry import CO_GENERATOR, handles, runs_for_real
from .stops import unresumable
from .versions import callee_below


@handles("RETURN_GENERATOR")
def _return_generator(tracer, frame, inst):
    """Tracing runs a generator's body to its end when it is called (``yielded`` collects
    the values): exact only when the caller hands it at once to a builtin that consumes
    it whole (``sum(x for x in a)``), or when nothing the body does or reads can tell
    when it runs (``range``-like arithmetic on ints). Anything else (a for loop over
    arrays, ``any``, ``next``, a generator kept for later) runs as Python runs it."""
    if runs_for_real(tracer):   # the runner calls generator functions natively: never met there
        frame.push(None)
        return
    if not (frame.code.co_flags & CO_GENERATOR and
            (_consumed_whole(tracer) or _delegated_to(tracer) or _self_contained(frame))):
        raise unresumable(tracer, GraphBreak("a generator or coroutine consumed lazily",
                                             "it runs as Python runs it, one item at a time"))
    frame.push(None)


_WHOLE_CONSUMERS = (list, tuple, sorted, sum, min, max, set, frozenset, dict)


def _consumed_whole(tracer):
    """Whether the generator whose frame was just pushed is the only argument of the
    very next call, and that call is a builtin that takes every item before it returns."""
    if tracer.sync_depth or len(tracer.frames) < 2:
        return False
    caller = tracer.frames[-2]
    if caller.ip == 0 or caller.instructions[caller.ip - 1].opname != "CALL":
        return False
    following = [i for i in caller.instructions[caller.ip:caller.ip + 2] if i.opname != "PRECALL"]
    if not following or following[0].opname != "CALL" or following[0].arg != 1 or caller.kw_names:
        return False
    consumer = callee_below(caller.stack, NULL)
    if consumer is None:
        return False
    if any(consumer is builtin for builtin in _WHOLE_CONSUMERS):
        return True
    return isinstance(consumer, types.BuiltinMethodType) and type(consumer.__self__) is str and \
        consumer.__name__ == "join"


def _delegated_to(tracer):
    """Whether the generator whose frame was just pushed is at once the delegate of a
    ``yield from`` in a generator frame: tracing runs that frame eagerly, and the
    delegation takes every item of this one inside that run."""
    if tracer.sync_depth or len(tracer.frames) < 2:
        return False
    caller = tracer.frames[-2]
    following = caller.instructions[caller.ip:caller.ip + 1]
    return bool(caller.code.co_flags & CO_GENERATOR and caller.ip and
                caller.instructions[caller.ip - 1].opname == "CALL" and
                following and following[0].opname == "GET_YIELD_FROM_ITER")


_PURE_GLOBALS = {"range", "len", "zip", "enumerate", "min", "max", "abs", "divmod", "int", "float", "round",
                 "reversed", "sum", "bool", "str", "tuple"}
_READS_OR_WRITES_STATE = {"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL",
                          "DELETE_GLOBAL", "STORE_SUBSCR", "DELETE_SUBSCR", "IMPORT_NAME", "MAKE_FUNCTION",
                          "LOAD_DEREF", "STORE_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME", "CALL_FUNCTION_EX",
                          "STORE_SLICE", "LOAD_SUPER_ATTR", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS"}
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range)


def _immutable(value):
    if isinstance(value, _IMMUTABLE) or symbols.is_symbolic(value):
        return True
    if type(value) is tuple:
        return all(_immutable(v) for v in value)
    if type(value).__name__ in ("range_iterator", "tuple_iterator"):
        return all(_immutable(v) for v in value.__reduce__()[1])
    return False


def _self_contained(frame):
    """A generator whose arguments are immutable values and whose body only computes
    with them and with pure builtins: when it runs cannot change what it yields, and
    running it cannot change anything else."""
    code = frame.code
    if code.co_freevars or code.co_cellvars:
        return False
    for inst in frame.instructions:
        if inst.opname in _READS_OR_WRITES_STATE:
            return False
        if inst.opname == "LOAD_GLOBAL" and (inst.argval not in _PURE_GLOBALS or inst.argval in frame.globals):
            return False
    return all(_immutable(v) for v in frame.locals.values())


@handles("YIELD_VALUE")
def _yield_value(tracer, frame, inst):
    frame.yielded.append(frame.pop())
    frame.push(None)


@handles("GET_YIELD_FROM_ITER")
def _get_yield_from_iter(tracer, frame, inst):
    """A generator stays itself (its ``send`` is used); anything else becomes an iterator."""
    value = frame.pop()
    frame.push(value if isinstance(value, types.GeneratorType) else iter(tracer.iterate(value)))


@handles("SEND")
def _send(tracer, frame, inst):
    """One step of ``yield from``: the delegate's next item goes on to YIELD_VALUE. In a body
    run eagerly every sent value is None (nothing resumes it with another), so ``next``
    is the step. When the delegate is done, its return value replaces the sent value
    (3.12+: the delegate stays below it for END_SEND; 3.11: it is popped), as ``dis``'s
    stack effect of the jump says, and the jump goes past the loop."""
    sent = frame.pop()
    receiver = frame.top
    if sent is not None:
        raise unresumable(tracer, GraphBreak("a value sent into a generator", "it runs as Python runs it"))
    tracer.check_iterator(receiver)
    try:
        frame.push(next(receiver))
    except StopIteration as stop:
        if not isinstance(receiver, types.GeneratorType) and _result_used(frame, inst):
            # a delegate traced eagerly leaves an iterator over its items, not its return value
            raise unresumable(tracer, GraphBreak("the value of `yield from` a generator run while tracing",
                                                 "it runs as Python runs it")) from None
        if dis.stack_effect(inst.opcode, inst.arg, jump=True) < 0:
            frame.pop()
        frame.push(stop.value)
        frame.jump(inst.argval)


def _result_used(frame, inst):
    """Whether the value of a ``yield from`` is used: anything but a POP_TOP (after 3.12's
    END_SEND) at the SEND's target."""
    k = frame.index_of[inst.argval]
    if frame.instructions[k].opname == "END_SEND":
        k += 1
    return frame.instructions[k].opname != "POP_TOP"


@handles("END_SEND")
def _end_send(tracer, frame, inst):
    """3.12+: the finished delegate, below the value of ``yield from``, is dropped."""
    value = frame.pop()
    frame.pop()
    frame.push(value)
