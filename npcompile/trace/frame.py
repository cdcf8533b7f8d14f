"""One activation of a traced code object: its instructions, locals, cells and stack."""
import inspect

from .bytecode import instructions_of


class Null:
    """The NULL CPython pushes beside a callable called without ``self`` (PUSH_NULL,
    LOAD_GLOBAL with the low bit): below it in 3.11 and 3.12, above it from 3.13."""

    def __repr__(self):
        return "NULL"


NULL = Null()

#: Frame.returns_instead when the frame's own return value is what its caller gets.
NO_VALUE = Null()

_new = object.__new__

#: What Tracer.call returns when it pushed a frame: the value arrives when that frame returns.
INLINED = object()


class Handling:
    """What PUSH_EXC_INFO leaves on the stack where CPython keeps the previously handled
    exception: the exception now being handled. The innermost one on the frame stacks is
    what ``sys.exc_info()``, a bare ``raise`` and implicit chaining see; POP_EXCEPT pops
    it. Keeping it in the stack (not in the runner) lets it cross graph breaks with the
    rest of the frame."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f"Handling({self.exc!r})"


def handled_exception(frames):
    """The exception being handled by the innermost ``except``/``finally``/``with`` exit
    block of ``frames``, or None."""
    for frame in reversed(frames):
        for value in reversed(frame.stack):
            if type(value) is Handling:
                return value.exc
    return None


class Frame:
    __slots__ = ("code", "instructions", "index_of", "locals", "cells", "stack", "ip",
                 "globals", "function", "kw_names", "yielded", "lineno", "returns_instead",
                 "error_on_graph_break", "fullgraph")

    def __init__(self, code, globals_, function, local_values):
        self.code = code
        self.instructions, self.index_of = instructions_of(code)
        self.locals = local_values          # name -> value
        self.cells = {}                     # name -> types.CellType (cell and free variables)
        self.stack = []
        self.ip = 0
        self.globals = globals_
        self.function = function
        self.kw_names = ()
        self.yielded = [] if code.co_flags & inspect.CO_GENERATOR else None   # collect yields
        self.lineno = code.co_firstlineno
        self.returns_instead = NO_VALUE
        self.error_on_graph_break = False
        self.fullgraph = False

    @classmethod
    def rebuilt(cls, function, code, ip, lineno, locals_, stack, cells, kw_names, yielded, returns_instead,
                error_on_graph_break, fullgraph):
        """The frame a compiled segment hands back at a break, every field set once (a
        loop body's segment rebuilds one per iteration)."""
        frame = _new(cls)
        frame.code, (frame.instructions, frame.index_of) = code, instructions_of(code)
        frame.locals, frame.cells, frame.stack, frame.ip = locals_, cells, stack, ip
        frame.globals, frame.function, frame.kw_names = function.__globals__, function, kw_names
        frame.yielded, frame.lineno, frame.returns_instead = yielded, lineno, returns_instead
        frame.error_on_graph_break, frame.fullgraph = error_on_graph_break, fullgraph
        return frame

    def jump(self, offset):
        self.ip = self.index_of[offset]

    def push(self, value):
        self.stack.append(value)

    def pop(self):
        return self.stack.pop()

    def popn(self, n):
        if n == 0:
            return []
        values = self.stack[-n:]
        del self.stack[-n:]
        return values

    def return_value(self):
        """Pop the value RETURN_VALUE hands the caller: a generator frame gives an
        iterator over what it yielded, an inlined constructor the new object."""
        value = self.stack.pop()
        if self.yielded is not None:
            value = iter(self.yielded)
        if self.returns_instead is not NO_VALUE:
            value = self.returns_instead
        return value

    @property
    def top(self):
        return self.stack[-1]


def cell_full(cell):
    """Whether a closure cell holds a value (an empty one raises on reading)."""
    try:
        cell.cell_contents  # noqa: B018 - reading it is the test
        return True
    except ValueError:
        return False


class Resume:
    """A segment that stopped before a graph break: the frame stack to go on with.

    The tracer returns one holding its traced frames (``Tracer.run`` with ``stop_at``),
    which output planning encodes; the compiled segment returns one holding the real
    frames, for the runtime to run the breaking instruction with, and ``computed``: the
    sources (``L[k].locals[name]``) of the ints and NumPy float scalars among them that
    the graph computed. The next segment traces those as inputs from its first trace (a
    loop's counters and carried scalars change every iteration), instead of guarding
    their values and recompiling when they change."""

    __slots__ = ("frames", "computed")

    def __init__(self, frames, computed=frozenset()):
        self.frames = frames
        self.computed = computed
