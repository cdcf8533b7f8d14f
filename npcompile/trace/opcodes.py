"""What each CPython instruction does to a frame (CPython 3.11).

This is the one version-aware module: a handler per opcode name, ``handler(tracer, frame,
inst)``, written once for both users: the tracer (symbolic values, ``HANDLERS``) and the
runner of real Python at graph breaks (``REAL_HANDLERS``), which differ only in the hooks
the handlers call on them (``tracer.call``, ``tracer.truth``, ...). Jump targets come from
``dis`` as absolute offsets (``inst.argval``), so relative/absolute encodings of later
versions need no change here; 3.12/3.13 opcodes are added as new entries below the 3.11
ones. Where exceptions go is CPython's exception table (``exception_table``); the runner
unwinds, the tracer never does: an exception in traced code inside ``try``/``with`` stops
the segment before that instruction, so it runs (and raises) for real.
"""
import builtins
import dis
import operator
import sys
import types

from ..errors import GraphBreak
from . import exception_table
from .frame import INLINED, NULL, Handling

#: opname -> handler, plain: what the runner of real Python executes
REAL_HANDLERS = {}

CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR = 0x20, 0x80, 0x200


def handles(*names):
    def register(fn):
        for name in names:
            REAL_HANDLERS[name] = fn
        return fn
    return register


def runs_for_real(tracer):
    """Whether ``tracer`` runs real Python (the break runner) rather than tracing."""
    return getattr(tracer, "runs_for_real", False)


BINARY_OPERATORS = {
    "+": operator.add, "&": operator.and_, "//": operator.floordiv, "<<": operator.lshift,
    "@": operator.matmul, "*": operator.mul, "%": operator.mod, "|": operator.or_,
    "**": operator.pow, ">>": operator.rshift, "-": operator.sub, "/": operator.truediv,
    "^": operator.xor, "+=": operator.iadd, "&=": operator.iand, "//=": operator.ifloordiv,
    "<<=": operator.ilshift, "@=": operator.imatmul, "*=": operator.imul, "%=": operator.imod,
    "|=": operator.ior, "**=": operator.ipow, ">>=": operator.irshift, "-=": operator.isub,
    "/=": operator.itruediv, "^=": operator.ixor,
}
COMPARE_OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
                     ">": operator.gt, ">=": operator.ge}


# ---- no-ops and stack shuffling ---------------------------------------------------------
@handles("NOP", "RESUME", "PRECALL", "EXTENDED_ARG")
def _nop(tracer, frame, inst):
    pass


@handles("POP_TOP")
def _pop_top(tracer, frame, inst):
    frame.pop()


@handles("PUSH_NULL")
def _push_null(tracer, frame, inst):
    frame.push(NULL)


@handles("COPY")
def _copy(tracer, frame, inst):
    frame.push(frame.stack[-inst.arg])


@handles("SWAP")
def _swap(tracer, frame, inst):
    s = frame.stack
    s[-1], s[-inst.arg] = s[-inst.arg], s[-1]


# ---- loads and stores -------------------------------------------------------------------
@handles("LOAD_CONST")
def _load_const(tracer, frame, inst):
    frame.push(inst.argval)


@handles("LOAD_FAST", "LOAD_FAST_CHECK")
def _load_fast(tracer, frame, inst):
    if inst.argval not in frame.locals:   # raised outside an except clause: no stray __context__
        raise UnboundLocalError(f"cannot access local variable '{inst.argval}' where it is not "
                                "associated with a value")
    frame.push(frame.locals[inst.argval])


@handles("STORE_FAST")
def _store_fast(tracer, frame, inst):
    frame.locals[inst.argval] = frame.pop()


@handles("DELETE_FAST")
def _delete_fast(tracer, frame, inst):
    if inst.argval not in frame.locals:
        raise UnboundLocalError(f"cannot access local variable '{inst.argval}' where it is not "
                                "associated with a value")
    del frame.locals[inst.argval]


@handles("LOAD_GLOBAL")
def _load_global(tracer, frame, inst):
    if inst.arg & 1:
        frame.push(NULL)
    frame.push(tracer.load_global(frame, inst.argval))


@handles("STORE_GLOBAL")
def _store_global(tracer, frame, inst):
    tracer.store_global(frame, inst.argval, frame.pop())


@handles("MAKE_CELL")
def _make_cell(tracer, frame, inst):
    name = inst.argval
    cell = types.CellType(frame.locals[name]) if name in frame.locals else types.CellType()
    tracer.internal_cells.add(id(cell))
    tracer.keepalive.append(cell)
    frame.cells[name] = cell


@handles("COPY_FREE_VARS")
def _copy_free_vars(tracer, frame, inst):
    closure = frame.function.__closure__ or ()
    for name, cell in zip(frame.code.co_freevars, closure):
        frame.cells[name] = cell


@handles("LOAD_CLOSURE")
def _load_closure(tracer, frame, inst):
    frame.push(frame.cells[inst.argval])


@handles("LOAD_DEREF")
def _load_deref(tracer, frame, inst):
    frame.push(tracer.load_cell(frame, inst.argval))


@handles("STORE_DEREF")
def _store_deref(tracer, frame, inst):
    tracer.store_cell(frame, inst.argval, frame.pop())


@handles("LOAD_ATTR")
def _load_attr(tracer, frame, inst):
    frame.push(tracer.load_attr(frame.pop(), inst.argval))


@handles("LOAD_METHOD")
def _load_method(tracer, frame, inst):
    obj = frame.pop()
    frame.push(NULL)
    frame.push(tracer.load_attr(obj, inst.argval))


@handles("STORE_ATTR")
def _store_attr(tracer, frame, inst):
    obj = frame.pop()
    tracer.store_attr(obj, inst.argval, frame.pop())


@handles("DELETE_ATTR")
def _delete_attr(tracer, frame, inst):
    raise GraphBreak("deleting an attribute", "move the `del` out of the compiled function")


@handles("LOAD_ASSERTION_ERROR")
def _load_assertion_error(tracer, frame, inst):
    frame.push(AssertionError)


# ---- operators --------------------------------------------------------------------------
@handles("BINARY_OP")
def _binary_op(tracer, frame, inst):
    right = frame.pop()
    left = frame.pop()
    frame.push(tracer.apply(BINARY_OPERATORS[inst.argrepr], left, right))


@handles("COMPARE_OP")
def _compare_op(tracer, frame, inst):
    right = frame.pop()
    left = frame.pop()
    frame.push(tracer.apply(COMPARE_OPERATORS[inst.argval], left, right))


@handles("IS_OP")
def _is_op(tracer, frame, inst):
    right = frame.pop()
    left = frame.pop()
    frame.push((left is right) != bool(inst.arg))


@handles("CONTAINS_OP")
def _contains_op(tracer, frame, inst):
    container = frame.pop()
    item = frame.pop()
    frame.push(tracer.truth(tracer.apply(operator.contains, container, item)) != bool(inst.arg))


@handles("UNARY_NEGATIVE")
def _neg(tracer, frame, inst):
    frame.push(tracer.apply(operator.neg, frame.pop()))


@handles("UNARY_POSITIVE")
def _pos(tracer, frame, inst):
    frame.push(tracer.apply(operator.pos, frame.pop()))


@handles("UNARY_INVERT")
def _invert(tracer, frame, inst):
    frame.push(tracer.apply(operator.invert, frame.pop()))


@handles("UNARY_NOT")
def _not(tracer, frame, inst):
    frame.push(not tracer.truth(frame.pop()))


@handles("BINARY_SUBSCR")
def _binary_subscr(tracer, frame, inst):
    key = frame.pop()
    container = frame.pop()
    frame.push(tracer.apply(operator.getitem, container, key))


@handles("STORE_SUBSCR")
def _store_subscr(tracer, frame, inst):
    key = frame.pop()
    container = frame.pop()
    value = frame.pop()
    tracer.mutate(container, "__setitem__", (key, value))


@handles("DELETE_SUBSCR")
def _delete_subscr(tracer, frame, inst):
    key = frame.pop()
    tracer.mutate(frame.pop(), "__delitem__", (key,))


# ---- building containers ----------------------------------------------------------------
@handles("BUILD_TUPLE")
def _build_tuple(tracer, frame, inst):
    frame.push(tuple(frame.popn(inst.arg)))


@handles("BUILD_LIST")
def _build_list(tracer, frame, inst):
    frame.push(frame.popn(inst.arg))


@handles("BUILD_SET")
def _build_set(tracer, frame, inst):
    frame.push(set(frame.popn(inst.arg)))


@handles("BUILD_MAP")
def _build_map(tracer, frame, inst):
    items = frame.popn(2 * inst.arg)
    frame.push(dict(zip(items[::2], items[1::2])))


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(tracer, frame, inst):
    keys = frame.pop()
    frame.push(dict(zip(keys, frame.popn(inst.arg))))


@handles("BUILD_STRING")
def _build_string(tracer, frame, inst):
    frame.push("".join(frame.popn(inst.arg)))


@handles("BUILD_SLICE")
def _build_slice(tracer, frame, inst):
    frame.push(slice(*frame.popn(inst.arg)))


# A container the instruction adds to may be one from before a graph break (a comprehension
# or a display that spans one): every addition goes through ``tracer.mutate``, which records
# it as a side effect when the container outlives the segment.
@handles("LIST_APPEND")
def _list_append(tracer, frame, inst):
    value = frame.pop()
    tracer.mutate(frame.stack[-inst.arg], "append", (value,))


@handles("SET_ADD")
def _set_add(tracer, frame, inst):
    value = frame.pop()
    tracer.mutate(frame.stack[-inst.arg], "add", (value,))


@handles("MAP_ADD")
def _map_add(tracer, frame, inst):
    value = frame.pop()
    key = frame.pop()
    tracer.mutate(frame.stack[-inst.arg], "__setitem__", (key, value))


@handles("LIST_EXTEND")
def _list_extend(tracer, frame, inst):
    values = frame.pop()
    target = frame.stack[-inst.arg]
    if not _iterable(values):
        raise TypeError(f"Value after * must be an iterable, not {type(values).__name__}")
    tracer.mutate(target, "extend", (list(tracer.iterate(values)),))


@handles("SET_UPDATE")
def _set_update(tracer, frame, inst):
    values = frame.pop()
    tracer.mutate(frame.stack[-inst.arg], "update", (list(tracer.iterate(values)),))


@handles("DICT_UPDATE", "DICT_MERGE")
def _dict_update(tracer, frame, inst):
    values = frame.pop()
    target = frame.stack[-inst.arg]
    if inst.opname == "DICT_MERGE":
        callee = _function_str(frame.stack[-inst.arg - 2])
        if not hasattr(values, "keys"):
            raise TypeError(f"{callee} argument after ** must be a mapping, not {type(values).__name__}")
        repeated = [k for k in values.keys() if k in target]
        if repeated:
            raise TypeError(f"{callee} got multiple values for keyword argument '{repeated[0]}'")
    elif not hasattr(values, "keys"):
        raise TypeError(f"'{type(values).__name__}' object is not a mapping")
    tracer.mutate(target, "update", (dict(values),))


def _function_str(fn):
    """How CPython names a callee in argument errors: ``module.qualname()``."""
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}()" if module not in (None, "builtins") else f"{name}()"


def _iterable(value):
    """Whether CPython would try to iterate ``value`` (it has ``__iter__`` or is a
    sequence), decided without calling anything, as the messages below need."""
    cls = type(value)
    return hasattr(cls, "__iter__") or (hasattr(cls, "__getitem__") and not issubclass(cls, dict))


@handles("LIST_TO_TUPLE")
def _list_to_tuple(tracer, frame, inst):
    frame.push(tuple(frame.pop()))


@handles("UNPACK_SEQUENCE")
def _unpack_sequence(tracer, frame, inst):
    """As CPython: at most ``arg + 1`` items are taken from the iterator, then the count
    is checked, with CPython's messages."""
    value = frame.pop()
    if not _iterable(value):
        raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object")
    iterator = iter(tracer.iterate(value))
    items = []
    for item in iterator:
        items.append(item)
        if len(items) > inst.arg:
            raise ValueError(f"too many values to unpack (expected {inst.arg})")
    if len(items) < inst.arg:
        raise ValueError(f"not enough values to unpack (expected {inst.arg}, got {len(items)})")
    frame.stack.extend(reversed(items))


@handles("UNPACK_EX")
def _unpack_ex(tracer, frame, inst):
    before, after = inst.arg & 0xFF, inst.arg >> 8
    items = list(tracer.iterate(frame.pop()))
    if len(items) < before + after:
        raise ValueError(f"not enough values to unpack (expected at least {before + after}, got {len(items)})")
    middle = items[before:len(items) - after]
    frame.stack.extend(reversed(items[:before] + [middle] + items[len(items) - after:]))


@handles("FORMAT_VALUE")
def _format_value(tracer, frame, inst):
    spec = frame.pop() if inst.arg & 0x04 else ""
    value = frame.pop()
    convert = {0: None, 1: str, 2: repr, 3: ascii}[inst.arg & 0x03]
    frame.push(tracer.format(value, convert, spec))


# ---- control flow -----------------------------------------------------------------------
@handles("JUMP_FORWARD", "JUMP")
def _jump(tracer, frame, inst):
    frame.jump(inst.argval)


@handles("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT")
def _jump_backward(tracer, frame, inst):
    tracer.back_edge(frame, inst)
    frame.jump(inst.argval)


def _pop_jump(when):
    def handler(tracer, frame, inst):
        if tracer.truth(frame.pop()) == when:
            frame.jump(inst.argval)
    return handler


def _pop_jump_none(when_none):
    def handler(tracer, frame, inst):
        if (frame.pop() is None) == when_none:
            frame.jump(inst.argval)
    return handler


handles("POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_IF_TRUE")(_pop_jump(True))
handles("POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_IF_FALSE")(_pop_jump(False))
handles("POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_IF_NONE")(_pop_jump_none(True))
handles("POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE",
        "POP_JUMP_IF_NOT_NONE")(_pop_jump_none(False))


@handles("JUMP_IF_TRUE_OR_POP")
def _jump_if_true_or_pop(tracer, frame, inst):
    if tracer.truth(frame.top):
        frame.jump(inst.argval)
    else:
        frame.pop()


@handles("JUMP_IF_FALSE_OR_POP")
def _jump_if_false_or_pop(tracer, frame, inst):
    if not tracer.truth(frame.top):
        frame.jump(inst.argval)
    else:
        frame.pop()


@handles("GET_ITER")
def _get_iter(tracer, frame, inst):
    frame.push(iter(tracer.iterate(frame.pop())))


@handles("FOR_ITER")
def _for_iter(tracer, frame, inst):
    tracer.check_iterator(frame.top)
    try:
        frame.push(next(frame.top))
    except StopIteration:
        frame.pop()
        frame.jump(inst.argval)


@handles("RETURN_GENERATOR")
def _return_generator(tracer, frame, inst):
    """Tracing runs a generator's body to its end when it is called (``yielded`` collects
    the values): exact only when the caller hands it at once to a builtin that consumes
    it whole (``sum(x for x in a)``), or when nothing the body does or reads can tell
    when it runs (``range``-like arithmetic on ints). Anything else (a for loop over
    arrays, ``any``, ``next``, a generator kept for later) runs as Python runs it."""
    eager = frame.code.co_flags & CO_GENERATOR and (_consumed_whole(tracer) or _self_contained(frame))
    if not runs_for_real(tracer) and not eager:
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
    if len(caller.stack) < 2 or caller.stack[-2] is not NULL:
        return False
    consumer = caller.stack[-1]
    if any(consumer is builtin for builtin in _WHOLE_CONSUMERS):
        return True
    return isinstance(consumer, types.BuiltinMethodType) and type(consumer.__self__) is str and \
        consumer.__name__ == "join"


_PURE_GLOBALS = {"range", "len", "zip", "enumerate", "min", "max", "abs", "divmod", "int", "float", "round",
                 "reversed", "sum", "bool", "str", "tuple"}
_READS_OR_WRITES_STATE = {"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL",
                          "DELETE_GLOBAL", "STORE_SUBSCR", "DELETE_SUBSCR", "IMPORT_NAME", "MAKE_FUNCTION",
                          "LOAD_DEREF", "STORE_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME", "CALL_FUNCTION_EX"}
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range)


def _immutable(value):
    if isinstance(value, _IMMUTABLE) or type(value).__name__ in ("SymInt", "SymFloat", "SymBool"):
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


# ---- exceptions -------------------------------------------------------------------------
# The stack layouts are CPython 3.11's: a handler is entered with the stack cut to its
# depth, then lasti (when the table says so) and the exception pushed. PUSH_EXC_INFO puts
# a ``Handling`` marker where CPython keeps the previously handled exception.
class Reraise(BaseException):
    """Internal, from the runner's RERAISE and bare ``raise``: unwind with ``exc`` as it
    is, without the implicit chaining a new ``raise`` statement would add."""

    def __init__(self, exc, lasti=None):
        super().__init__(exc)
        self.exc = exc
        self.lasti = lasti   # the lasti RERAISE restores, for the handler it reaches


def fatal(frame):
    """Breaks are errors in this frame (fullgraph or error_on_graph_break(True))."""
    return frame.fullgraph or frame.error_on_graph_break


def covered(tracer, frame, inst):
    """Whether an exception raised by ``inst`` in ``frame`` would reach a handler inside
    the traced frames (an ``except``, ``finally`` or ``with``), not the caller."""
    if exception_table.handler_for(frame.code, inst.offset) is not None:
        return True
    frames = tracer.frames
    depth = next((k for k in range(len(frames) - 1, -1, -1) if frames[k] is frame), len(frames))
    return any(exception_table.handler_for(f.code, f.instructions[f.ip - 1].offset) is not None
               for f in frames[:depth] if f.ip)


def unresumable(tracer, brk):
    """``brk`` made a stop that real Python cannot resume in the middle of (inside a
    generator run eagerly, before an instruction the runner lacks): the segment then
    runs as written from its start."""
    if brk.step is None:
        tracer.note_break(brk)
    brk.resumable = False
    return brk


def _raising_break(what):
    return GraphBreak(f"{what}: exceptions are raised and caught as Python does it, outside the graph",
                      "not an error: the code before it is compiled, the raise runs as written")


@handles("RAISE_VARARGS")
def _raise(tracer, frame, inst):
    values = frame.popn(inst.arg)
    if runs_for_real(tracer):
        if not values:
            exc = sys.exc_info()[1]   # the runner steps inside the handled exception's except clause
            if exc is None:
                raise RuntimeError("No active exception to reraise")
            raise Reraise(exc)
        if len(values) == 1:
            raise values[0]
        raise values[0] from values[1]
    if values and fatal(frame) and not covered(tracer, frame, inst) and not tracer.side_effects:
        # nothing to break to: the exception leaves the function as it would in Python
        if len(values) == 1:
            raise values[0]
        raise values[0] from values[1]
    raise _raising_break("raise")


@handles("RERAISE")
def _reraise(tracer, frame, inst):
    if not runs_for_real(tracer):
        raise _raising_break("re-raising an exception")
    exc = frame.pop()
    lasti = frame.stack[-inst.arg] if inst.arg else None
    raise Reraise(exc, lasti)


@handles("PUSH_EXC_INFO")
def _push_exc_info(tracer, frame, inst):
    exc = frame.pop()
    frame.push(Handling(exc))
    frame.push(exc)


@handles("POP_EXCEPT")
def _pop_except(tracer, frame, inst):
    frame.pop()


def _check_catchable(classes):
    for cls in classes if isinstance(classes, tuple) else (classes,):
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise TypeError("catching classes that do not inherit from BaseException is not allowed")


def _matches(exc, classes):
    """PyErr_GivenExceptionMatches: by the class's MRO (no __subclasscheck__)."""
    mro = type(exc).__mro__
    return any(cls in mro for cls in (classes if isinstance(classes, tuple) else (classes,)))


@handles("CHECK_EXC_MATCH")
def _check_exc_match(tracer, frame, inst):
    classes = frame.pop()
    _check_catchable(classes)
    frame.push(_matches(frame.top, classes))


@handles("CHECK_EG_MATCH")
def _check_eg_match(tracer, frame, inst):
    """``except*``: split the exception group being handled. Stack: exception, classes ->
    the rest and the match (the exception being handled from now on), or the exception
    and None."""
    if not runs_for_real(tracer):
        raise GraphBreak("except* clause", "exception groups are split as Python does it, outside the graph")
    classes = frame.pop()
    _check_catchable(classes)
    if any(issubclass(cls, BaseExceptionGroup) for cls in (classes if isinstance(classes, tuple) else (classes,))):
        raise TypeError("catching ExceptionGroup with except* is not allowed. Use except instead.")
    exc = frame.pop()
    match, rest = _split_group(exc, classes)
    if match is None:
        frame.push(exc)
        frame.push(None)
        return
    frame.push(rest)
    frame.push(match)
    marker = next((v for v in reversed(frame.stack) if type(v) is Handling), None)
    if marker is not None:
        marker.exc = match   # CPython sets the handled exception to the match, not on the stack


def _split_group(exc, classes):
    if exc is None:
        return None, None
    if _matches(exc, classes):
        return (exc if isinstance(exc, BaseExceptionGroup) else BaseExceptionGroup("", [exc])), None
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(classes)
    return None, None


@handles("PREP_RERAISE_STAR")
def _prep_reraise_star(tracer, frame, inst):
    """After the ``except*`` clauses: what is raised on (None: nothing). Stack: the
    original exception, the list of what each clause raised or re-raised."""
    if not runs_for_real(tracer):
        raise GraphBreak("except* clause", "exception groups are split as Python does it, outside the graph")
    raised_by_clauses = frame.pop()
    original = frame.pop()
    frame.push(_reraise_star(original, raised_by_clauses))


def _reraise_star(original, excs):
    if not excs:
        return None
    if not isinstance(original, BaseExceptionGroup):
        return excs[0]   # a lone exception was wrapped: one clause at most ran
    raised, reraised = [], []
    for exc in excs:
        if exc is not None:
            (reraised if _same_metadata(exc, original) else raised).append(exc)
    leaves = set()
    for group in reraised:
        _leaf_ids(group, leaves)
    kept = original.split(lambda e: id(e) in leaves)[0] if reraised else None
    if not raised:
        return kept
    if kept is not None:
        raised.append(kept)
    return raised[0] if len(raised) == 1 else BaseExceptionGroup("", raised)


def _same_metadata(a, b):
    return all(getattr(a, name, None) is getattr(b, name, None)
               for name in ("__notes__", "__traceback__", "__cause__", "__context__"))


def _leaf_ids(exc, found):
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            _leaf_ids(inner, found)
    elif exc is not None:
        found.add(id(exc))


@handles("WITH_EXCEPT_START")
def _with_except_start(tracer, frame, inst):
    """Stack: exit function, lasti, previous exception (marker), exception; calls
    ``__exit__(type, value, traceback)`` and pushes what it returns."""
    exc = frame.top
    exit_function = frame.stack[-4]
    traceback = tracer.load_attr(exc, "__traceback__")
    _push_result(frame, tracer.call(exit_function, [type(exc), exc, traceback], {}))


def _special_method(tracer, manager, name):
    """CPython looks ``__enter__``/``__exit__`` up on the type; the tracer reads them
    through its own attribute hook (guarded), which agrees for every ordinary class."""
    if not runs_for_real(tracer):
        try:
            return tracer.load_attr(manager, name)
        except AttributeError:
            return None
    for klass in type(manager).__mro__:
        if name in vars(klass):
            attribute = vars(klass)[name]
            bind = getattr(type(attribute), "__get__", None)
            return attribute if bind is None else bind(attribute, manager, type(manager))
    return None


@handles("BEFORE_WITH")
def _before_with(tracer, frame, inst):
    manager = frame.pop()
    enter = _special_method(tracer, manager, "__enter__")
    if enter is None:
        raise TypeError(f"'{type(manager).__name__}' object does not support the context manager protocol")
    exit_function = _special_method(tracer, manager, "__exit__")
    if exit_function is None:
        raise TypeError(f"'{type(manager).__name__}' object does not support the context manager "
                        "protocol (missed __exit__ method)")
    frame.push(exit_function)
    frame.push(tracer.call_now(enter, [], {}))


# ---- calls and functions ----------------------------------------------------------------
@handles("KW_NAMES")
def _kw_names(tracer, frame, inst):
    frame.kw_names = frame.code.co_consts[inst.arg]  # dis leaves argval unresolved on 3.11


@handles("CALL")
def _call(tracer, frame, inst):
    args = frame.popn(inst.arg)
    second = frame.pop()
    first = frame.pop()
    fn, args = (second, args) if first is NULL else (first, [second] + args)
    kw_names, frame.kw_names = frame.kw_names, ()
    kwargs = {}
    if kw_names:
        kwargs = dict(zip(kw_names, args[-len(kw_names):]))
        args = args[:-len(kw_names)]
    if isinstance(fn, type) and issubclass(fn, BaseException) and not runs_for_real(tracer) and not fatal(frame):
        # an exception object is made for real: it is about to be raised (for real), and
        # frames rebuilt after a break can hold it as they hold any real object
        raise GraphBreak(f"creating a {fn.__name__}", "exceptions are made and raised as Python does it")
    _push_result(frame, tracer.call(fn, args, kwargs))


def _push_result(frame, result):
    if result is not INLINED:
        frame.push(result)


@handles("CALL_FUNCTION_EX")
def _call_function_ex(tracer, frame, inst):
    kwargs = frame.pop() if inst.arg & 1 else {}
    args = list(tracer.iterate(frame.pop()))
    fn = frame.pop()
    if sys.version_info < (3, 13) and frame.stack and frame.top is NULL:
        frame.pop()
    _push_result(frame, tracer.call(fn, args, dict(kwargs)))


@handles("MAKE_FUNCTION")
def _make_function(tracer, frame, inst):
    code = frame.pop()
    closure = frame.pop() if inst.arg & 0x08 else None
    annotations = frame.pop() if inst.arg & 0x04 else None
    kwdefaults = frame.pop() if inst.arg & 0x02 else None
    defaults = frame.pop() if inst.arg & 0x01 else None
    fn = types.FunctionType(code, frame.globals, code.co_name, defaults, closure)
    fn.__kwdefaults__ = kwdefaults
    fn.__qualname__ = code.co_qualname
    if annotations:
        fn.__annotations__ = dict(zip(annotations[::2], annotations[1::2])) \
            if isinstance(annotations, tuple) else annotations
    tracer.keepalive.append(fn)
    tracer.created_functions.add(id(fn))
    frame.push(fn)


@handles("IMPORT_NAME")
def _import_name(tracer, frame, inst):
    fromlist = frame.pop()
    level = frame.pop()
    module = __import__(inst.argval, frame.globals, None, fromlist, level)
    frame.push(tracer.wrap_foreign(module))


@handles("IMPORT_FROM")
def _import_from(tracer, frame, inst):
    frame.push(tracer.load_attr(frame.top, inst.argval))


# ---- pattern matching (match statements) -------------------------------------------------
_TPFLAGS_SEQUENCE, _TPFLAGS_MAPPING, _TPFLAGS_MATCH_SELF = 1 << 5, 1 << 6, 1 << 22
_SYMBOLIC = {"SymInt": int, "SymFloat": float, "SymBool": bool}
_MISSING = object()


@handles("MATCH_MAPPING")
def _match_mapping(tracer, frame, inst):
    frame.push(bool(type(frame.top).__flags__ & _TPFLAGS_MAPPING))


@handles("MATCH_SEQUENCE")
def _match_sequence(tracer, frame, inst):
    frame.push(bool(type(frame.top).__flags__ & _TPFLAGS_SEQUENCE))


@handles("GET_LEN")
def _get_len(tracer, frame, inst):
    frame.push(tracer.call_now(len, [frame.top], {}))


@handles("MATCH_KEYS")
def _match_keys(tracer, frame, inst):
    """Stack: subject, keys -> subject, keys, the values (a tuple) or None."""
    keys, subject = frame.stack[-1], frame.stack[-2]
    get = tracer.load_attr(subject, "get") if keys else None
    values, seen = [], []
    for key in keys:
        if key in seen:
            raise ValueError(f"mapping pattern checks duplicate key ({key!r})")
        seen.append(key)
        value = tracer.call_now(get, [key, _MISSING], {})
        if value is _MISSING:
            frame.push(None)
            return
        values.append(value)
    frame.push(tuple(values))


@handles("COPY_DICT_WITHOUT_KEYS")
def _copy_dict_without_keys(tracer, frame, inst):
    keys = frame.pop()
    rest = dict(frame.top)
    for key in keys:
        del rest[key]
    frame.push(rest)


@handles("MATCH_CLASS")
def _match_class(tracer, frame, inst):
    """Stack: subject, class, keyword names -> the attributes (a tuple) or None, with
    CPython's checks of ``__match_args__``."""
    names = frame.pop()
    cls = frame.pop()
    subject = frame.pop()
    if not isinstance(cls, type):
        raise TypeError("called match pattern must be a type")
    symbolic = _SYMBOLIC.get(type(subject).__name__)   # an int traced as a symbol is an int
    if not (issubclass(symbolic, cls) if symbolic else tracer.truth(tracer.call_now(isinstance, [subject, cls], {}))):
        frame.push(None)
        return
    wanted = list(_positional_names(cls, inst.arg)) + list(names)
    attributes = []
    for k, name in enumerate(wanted):
        if name is None:            # a class that matches itself (int(x), str(s), ...)
            attributes.append(subject)
            continue
        if name in wanted[:k]:
            raise TypeError(f"{cls.__name__}() got multiple sub-patterns for attribute {name!r}")
        try:
            attributes.append(tracer.load_attr(subject, name))
        except AttributeError:
            frame.push(None)
            return
    frame.push(tuple(attributes))


def _positional_names(cls, count):
    if not count:
        return ()
    match_args = getattr(cls, "__match_args__", _MISSING)
    match_self = match_args is _MISSING and bool(cls.__flags__ & _TPFLAGS_MATCH_SELF)
    if match_args is _MISSING:
        match_args = ()
    elif type(match_args) is not tuple:
        raise TypeError(f"{cls.__name__}.__match_args__ must be a tuple (got {type(match_args).__name__})")
    allowed = 1 if match_self else len(match_args)
    if allowed < count:
        raise TypeError(f"{cls.__name__}() accepts {allowed} positional sub-pattern{'' if allowed == 1 else 's'} "
                        f"({count} given)")
    if match_self:
        return (None,)
    for name in match_args[:count]:
        if type(name) is not str:
            raise TypeError(f"__match_args__ elements must be strings (got {type(name).__name__})")
    return match_args[:count]


# ---- rarer names --------------------------------------------------------------------------
@handles("LOAD_BUILD_CLASS")
def _load_build_class(tracer, frame, inst):
    frame.push(tracer.wrap_foreign(builtins.__build_class__))


@handles("DELETE_DEREF")
def _delete_deref(tracer, frame, inst):
    name = inst.argval
    if not runs_for_real(tracer):
        raise GraphBreak(f"deleting the closure variable {name}", "it runs as written")
    tracer.load_cell(frame, name)   # CPython's error when it is already empty
    del frame.cells[name].cell_contents


@handles("DELETE_GLOBAL")
def _delete_global(tracer, frame, inst):
    if not runs_for_real(tracer):
        raise GraphBreak(f"deleting the global {inst.argval}", "it runs as written")
    if inst.argval not in frame.globals:
        raise NameError(f"name '{inst.argval}' is not defined")
    del frame.globals[inst.argval]


# ---- the tracer's table -----------------------------------------------------------------
def _traced(handler):
    """``handler`` as the tracer runs it. A stop inside a generator run eagerly cannot be
    resumed there (see RETURN_GENERATOR). An exception that a handler inside the traced
    frames would catch stops the segment before the instruction, so that it runs, raises
    and is caught for real; other exceptions leave the trace as before (the segment then
    runs as written). npcompile's, torch's and the shim's own signals pass through."""
    def run(tracer, frame, inst):
        try:
            handler(tracer, frame, inst)
        except GraphBreak as brk:
            if _in_generator(tracer):
                unresumable(tracer, brk)
            raise
        except Exception as exc:
            if type(exc).__module__.split(".")[0] in _INTERNAL_MODULES or not covered(tracer, frame, inst):
                raise
            brk = GraphBreak(f"{type(exc).__name__} raised inside try/with/finally",
                             "it is raised again as Python runs it, and caught there")
            brk.__cause__ = exc
            if _in_generator(tracer):
                unresumable(tracer, brk)
            raise brk from exc
    run.__name__ = handler.__name__
    return run


_INTERNAL_MODULES = ("npcompile", "torch", "torch_numpy_shim")
_LAZY_CODE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR


def _in_generator(tracer):
    return any(f.code.co_flags & _LAZY_CODE for f in tracer.frames)


def _not_runnable(tracer, frame, inst):
    raise unresumable(tracer, GraphBreak(f"unsupported Python bytecode {inst.opname}",
                                         "this construct runs uncompiled; move it out of the hot path"))


#: opname -> handler for the tracer; every other instruction ends the trace and the
#: segment runs as written from its start (the runner could not resume at it)
HANDLERS = {name: _traced(fn) for name, fn in REAL_HANDLERS.items()}
for _name in dis.opmap:
    if _name not in HANDLERS and _name not in ("RETURN_VALUE", "CACHE"):
        HANDLERS[_name] = _traced(_not_runnable)
