"""The ordinary instructions of CPython 3.11: stack, names, operators, containers,
jumps, loops and calls. Each handler is written once for both users, the tracer and the
runner of real Python, which differ only in the hooks the handlers call on them. Where a
later version kept an instruction but changed its convention (the order of a callable
and its NULL, the method bit of LOAD_ATTR, what FOR_ITER leaves when exhausted, flags
moved off MAKE_FUNCTION), the handler follows ``versions``; instructions new in a
version are in that version's module."""
import builtins
import operator
import types

from ...errors import GraphBreak
from ..frame import INLINED, NULL, cell_full
from .registry import handles, runs_for_real
from .stops import fatal
from .versions import LOAD_ATTR_METHOD_BIT, loop_exit_skip, push_callable

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


_CELL_NAMES = {}


def is_cell(frame, name):
    """Whether ``name``'s fast slot holds a cell: LOAD_FAST of it gives the cell itself (a
    closure being built, 3.13), and an inlined comprehension (3.12+) saves and restores
    the cell around its own (LOAD_FAST_AND_CLEAR, STORE_FAST)."""
    code = frame.code
    names = _CELL_NAMES.get(code)
    if names is None:   # co_cellvars and co_freevars are new tuples on every read
        names = _CELL_NAMES[code] = frozenset(code.co_cellvars + code.co_freevars)
    return name in names


def load_local(frame, name):
    if name in frame.cells and is_cell(frame, name):
        return frame.cells[name]
    if name not in frame.locals:   # raised outside an except clause: no stray __context__
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")
    return frame.locals[name]


def store_local(frame, name, value):
    """STORE_FAST; a NULL (from LOAD_FAST_AND_CLEAR) stored back makes the name unbound."""
    slots = frame.cells if is_cell(frame, name) else frame.locals
    if value is NULL:
        slots.pop(name, None)
    else:
        slots[name] = value


@handles("LOAD_FAST", "LOAD_FAST_CHECK")
def _load_fast(tracer, frame, inst):
    frame.push(load_local(frame, inst.argval))


@handles("STORE_FAST")
def _store_fast(tracer, frame, inst):
    store_local(frame, inst.argval, frame.pop())


@handles("DELETE_FAST")
def _delete_fast(tracer, frame, inst):
    if inst.argval not in frame.locals:
        raise UnboundLocalError(f"cannot access local variable '{inst.argval}' where it is not "
                                "associated with a value")
    del frame.locals[inst.argval]


@handles("LOAD_GLOBAL")
def _load_global(tracer, frame, inst):
    value = tracer.load_global(frame, inst.argval)
    if inst.arg & 1:
        push_callable(frame, value, NULL)
    else:
        frame.push(value)


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
    name = inst.argval
    if name == "__class__" and name in frame.code.co_freevars and cell_full(frame.cells[name]):
        # the cell the compiler makes for zero-argument super(), which 3.12+ loads before
        # LOAD_SUPER_ATTR: set once, when the class is made, so read like the code itself
        frame.push(frame.cells[name].cell_contents)
        return
    frame.push(tracer.load_cell(frame, name))


@handles("STORE_DEREF")
def _store_deref(tracer, frame, inst):
    tracer.store_cell(frame, inst.argval, frame.pop())


@handles("LOAD_ATTR")
def _load_attr(tracer, frame, inst):
    if LOAD_ATTR_METHOD_BIT and inst.arg & 1:
        _load_method(tracer, frame, inst)
    else:
        frame.push(tracer.load_attr(frame.pop(), inst.argval))


@handles("LOAD_METHOD")
def _load_method(tracer, frame, inst):
    """The attribute, bound, with a NULL: CPython's unbound form (the function, then
    ``self``) is never pushed, and CALL takes either."""
    push_callable(frame, tracer.load_attr(frame.pop(), inst.argval), NULL)


@handles("STORE_ATTR")
def _store_attr(tracer, frame, inst):
    obj = frame.pop()
    tracer.store_attr(obj, inst.argval, frame.pop())


@handles("DELETE_ATTR")
def _delete_attr(tracer, frame, inst):
    obj = frame.pop()
    if runs_for_real(tracer):
        delattr(obj, inst.argval)
    else:
        tracer.delete_attr(obj, inst.argval)


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
    result = tracer.apply(COMPARE_OPERATORS[inst.argval], left, right)
    if inst.argrepr.startswith("bool("):   # 3.13: the result converted for the branch that follows
        result = tracer.truth(result)
    frame.push(result)


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
            if inst.argval < inst.offset:   # a while loop's back edge (3.11)
                tracer.back_edge(frame, inst)
            frame.jump(inst.argval)
    return handler


def _pop_jump_none(when_none):
    def handler(tracer, frame, inst):
        if (frame.pop() is None) == when_none:
            if inst.argval < inst.offset:
                tracer.back_edge(frame, inst)
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
        frame.ip += loop_exit_skip(frame.instructions, frame.ip)


# ---- calls and functions ----------------------------------------------------------------
@handles("KW_NAMES")
def _kw_names(tracer, frame, inst):
    frame.kw_names = frame.code.co_consts[inst.arg]  # dis leaves argval unresolved on 3.11


@handles("CALL")
def call(tracer, frame, inst):
    """Stack: callable and NULL, or a function and ``self``, in either order (3.13 puts the
    callable first, 3.11 and 3.12 the NULL or the function), then the arguments."""
    args = frame.popn(inst.arg)
    second = frame.pop()
    first = frame.pop()
    if first is NULL:
        fn = second
    elif second is NULL:
        fn = first
    else:
        fn, args = first, [second] + args
    kw_names, frame.kw_names = frame.kw_names, ()
    kwargs = {}
    if kw_names:
        kwargs = dict(zip(kw_names, args[-len(kw_names):]))
        args = args[:-len(kw_names)]
    if isinstance(fn, type) and issubclass(fn, BaseException) and not runs_for_real(tracer) and not fatal(frame):
        # an exception object is made for real: it is about to be raised (for real), and
        # frames rebuilt after a break can hold it as they hold any real object
        raise GraphBreak(f"creating a {fn.__name__}", "exceptions are made and raised as Python does it")
    push_result(frame, tracer.call(fn, args, kwargs))


def push_result(frame, result):
    if result is not INLINED:
        frame.push(result)


@handles("CALL_FUNCTION_EX")
def _call_function_ex(tracer, frame, inst):
    kwargs = frame.pop() if inst.arg & 1 else {}
    args = list(tracer.iterate(frame.pop()))
    fn = frame.pop()
    if fn is NULL:              # 3.13: the NULL is above the callable
        fn = frame.pop()
    elif frame.stack and frame.top is NULL:
        frame.pop()
    push_result(frame, tracer.call(fn, args, dict(kwargs)))


@handles("MAKE_FUNCTION")
def _make_function(tracer, frame, inst):
    """The flags (``dis`` names them in ``argrepr``) say which of closure, annotations,
    keyword defaults and defaults are below the code, in that order from the top; from
    3.13 there are none, and SET_FUNCTION_ATTRIBUTE sets each on the function."""
    code = frame.pop()
    flags = set(inst.argrepr.split(", ")) if inst.arg else set()
    parts = {name: frame.pop() for name in ("closure", "annotations", "kwdefaults", "defaults") if name in flags}
    frame.push(make_function(tracer, code, frame.globals, **parts))


def make_function(tracer, code, globals_, closure=None, annotations=None, kwdefaults=None, defaults=None,
                  qualname=None):
    if closure is None and code.co_freevars:   # 3.13: the closure is set next, by SET_FUNCTION_ATTRIBUTE
        closure = tuple(types.CellType() for _ in code.co_freevars)
    fn = types.FunctionType(code, globals_, code.co_name, defaults, closure)
    fn.__kwdefaults__ = kwdefaults
    fn.__qualname__ = qualname or code.co_qualname
    if annotations:
        fn.__annotations__ = dict(zip(annotations[::2], annotations[1::2])) \
            if isinstance(annotations, tuple) else annotations
    tracer.keepalive.append(fn)
    tracer.created_functions.add(id(fn))
    return fn


@handles("IMPORT_NAME")
def _import_name(tracer, frame, inst):
    fromlist = frame.pop()
    level = frame.pop()
    module = __import__(inst.argval, frame.globals, None, fromlist, level)
    frame.push(tracer.lift_imported(module))


@handles("IMPORT_FROM")
def _import_from(tracer, frame, inst):
    frame.push(tracer.load_attr(frame.top, inst.argval))


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
