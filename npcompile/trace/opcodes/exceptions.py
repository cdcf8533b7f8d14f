"""Raising, catching and ``with`` (CPython 3.11's stack layouts). A handler is entered
with the frame's stack cut to the depth the exception table gives, then lasti (when the
table says so) and the exception pushed; PUSH_EXC_INFO puts a ``Handling`` marker where
CPython keeps the previously handled exception. The runner raises and unwinds; the
tracer stops before anything that raises (see ``stops``)."""
import sys

from ...errors import GraphBreak
from ..frame import Handling
from .core import push_result
from .registry import handles, runs_for_real
from .stops import covered, fatal, graph_writes


class Reraise(BaseException):
    """Internal, from the runner's RERAISE and bare ``raise``: unwind with ``exc`` as it
    is, without the implicit chaining a new ``raise`` statement would add."""

    def __init__(self, exc, lasti=None):
        super().__init__(exc)
        self.exc = exc
        self.lasti = lasti   # the lasti RERAISE restores, for the handler it reaches


def _raising_break(what):
    return GraphBreak(f"{what}: exceptions are raised and caught as Python does it, outside the graph",
                      "the code before it is compiled and the raise runs as written; under fullgraph, raise "
                      "before any work is captured and outside try/with, or drop fullgraph")


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
    if values and fatal(frame) and not covered(tracer, frame, inst) and not tracer.side_effects and \
            not graph_writes():
        # where breaks are errors: nothing happened yet, the exception leaves as in Python
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
    prep_reraise_star(tracer, frame)


def prep_reraise_star(tracer, frame):
    """PREP_RERAISE_STAR, from 3.12 an intrinsic function (CALL_INTRINSIC_2)."""
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
    push_result(frame, tracer.call(exit_function, [type(exc), exc, traceback], {}))


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
