"""Instructions new in CPython 3.12: slices, loop ends, comprehensions inlined into their
function (PEP 709), ``super()`` attributes and the intrinsic functions that replaced
a few 3.11 instructions. ``RETURN_CONST`` is stepped as LOAD_CONST and RETURN_VALUE (see
``bytecode``); LOAD_ATTR's method bit is in ``core``."""
import dis
import operator

from ...errors import GraphBreak
from ..frame import NULL
from .core import load_local, store_local
from .exceptions import prep_reraise_star
from .registry import NoHandler, handles, runs_for_real
from .stops import unresumable
from .versions import push_callable


@handles("BINARY_SLICE")
def _binary_slice(tracer, frame, inst):
    stop = frame.pop()
    start = frame.pop()
    container = frame.pop()
    frame.push(tracer.apply(operator.getitem, container, slice(start, stop)))


@handles("STORE_SLICE")
def _store_slice(tracer, frame, inst):
    stop = frame.pop()
    start = frame.pop()
    container = frame.pop()
    value = frame.pop()
    tracer.mutate(container, "__setitem__", (slice(start, stop), value))


@handles("END_FOR")
def _end_for(tracer, frame, inst):
    """Pops what ``dis`` says (two values in 3.12, one in 3.13). An exhausted FOR_ITER
    skips it (see ``versions.loop_exit_skip``), as CPython does."""
    frame.popn(-dis.stack_effect(inst.opcode))


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(tracer, frame, inst):
    """An inlined comprehension saves the variable it shadows (NULL when unbound), and
    STORE_FAST puts it back when the comprehension ends."""
    name = inst.argval
    try:
        value = load_local(frame, name)
    except UnboundLocalError:
        value = NULL
    frame.push(value)
    store_local(frame, name, NULL)
    frame.locals.pop(name, None)


@handles("LOAD_SUPER_ATTR")
def _load_super_attr(tracer, frame, inst):
    """``super().name``: stack the global ``super``, the class and ``self``. The second
    bit of the argument says that ``super`` had both arguments written; the builtin
    gets them either way, a shadowing ``super`` only when written. The low bit asks for
    the method form (pushed as LOAD_METHOD pushes it)."""
    self_ = frame.pop()
    cls = frame.pop()
    global_super = frame.pop()
    args = [cls, self_] if inst.arg & 2 or global_super is super else []
    proxy = tracer.call_now(global_super, args, {})
    value = tracer.load_attr(proxy, inst.argval)
    if inst.arg & 1:
        push_callable(frame, value, NULL)
    else:
        frame.push(value)


def _unary_positive(tracer, frame):
    frame.push(tracer.apply(operator.pos, frame.pop()))


def _list_to_tuple(tracer, frame):
    frame.push(tuple(frame.pop()))


#: the functions CALL_INTRINSIC_1/2 call, by the names ``dis`` gives them (``argrepr``)
INTRINSICS = {
    "INTRINSIC_UNARY_POSITIVE": _unary_positive,
    "INTRINSIC_LIST_TO_TUPLE": _list_to_tuple,
    "INTRINSIC_PREP_RERAISE_STAR": prep_reraise_star,
}


#: the intrinsics that define PEP 695 type parameters and aliases (``def f[T]``, ``class
#: C[T]``, ``type A = ...``): their objects (lazily evaluated bounds and values) have no
#: public constructor to build them with, so such a definition runs as Python runs it
TYPE_PARAMETER_INTRINSICS = {"INTRINSIC_TYPEVAR", "INTRINSIC_PARAMSPEC", "INTRINSIC_TYPEVARTUPLE",
                             "INTRINSIC_SUBSCRIPT_GENERIC", "INTRINSIC_TYPEALIAS",
                             "INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS",
                             "INTRINSIC_SET_FUNCTION_TYPE_PARAMS", "INTRINSIC_SET_TYPEPARAM_DEFAULT"}


@handles("CALL_INTRINSIC_1", "CALL_INTRINSIC_2")
def _call_intrinsic(tracer, frame, inst):
    intrinsic = INTRINSICS.get(inst.argrepr)
    if intrinsic is not None:
        intrinsic(tracer, frame)
    elif runs_for_real(tracer):
        raise NoHandler(f"npcompile cannot run {inst.argrepr} after a graph break")
    elif inst.argrepr in TYPE_PARAMETER_INTRINSICS:
        raise unresumable(tracer, GraphBreak(
            f"defining a generic function, class or type alias (PEP 695 type parameters: {inst.argrepr})",
            "this construct runs uncompiled; define it outside the compiled function"))
    else:
        raise unresumable(tracer, GraphBreak(f"unsupported Python bytecode {inst.opname} ({inst.argrepr})",
                                             "this construct runs uncompiled; move it out of the hot path"))

