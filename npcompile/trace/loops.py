"""How the tracer treats Python loops.

A loop is unrolled into the graph only when that clearly pays: its trip count is known
when tracing reaches its first back edge, at most ``config.loop_unroll_trips`` (at most
``config.loop_unroll_array_trips`` where one body does not bound the whole and the body
records graph nodes), and the unrolled iterations fit in ``config.loop_unroll_nodes``
graph nodes (a loop of unknown trip count unrolls only while the graph stays that small),
and unrolled they cost Inductor less than the loop's body as a segment of its own
(``unrolling_pays``: a graph costs ``config.loop_graph_cost_nodes`` nodes' worth). Otherwise the segment ends
at the back edge and the loop's body becomes a segment of its own, traced once with
the loop variable as a symbolic int and driven by the runtime (see runtime/break_steps).
Compile time is then bounded by the size of the source, not by the trip count.

``range()`` of a symbolic int (``range(i + 1, n)`` in a body traced with ``i``
symbolic) is a ``SymRange``: iterating it in a ``for`` ends the segment before the
loop's first ``FOR_ITER`` (its trip count is not known), so the inner loop's body is a
segment of its own too instead of specializing ``i`` to its current value.
"""
import operator

import numpy
import torch

from .. import config


def is_symbolic(value):
    return isinstance(value, torch.SymInt)


class SymRange:
    """``range(start, stop, step)`` with some bound a SymInt. Anything but iterating it
    in a loop makes it a real range (specializing its bounds: guarded by the ShapeEnv)."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, *args):
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        self.start, self.stop, self.step = args
        if not is_symbolic(self.step) and self.step == 0:
            raise ValueError("range() arg 3 must not be zero")

    def real(self):
        return range(operator.index(self.start), operator.index(self.stop), operator.index(self.step))

    def __iter__(self):
        return SymRangeIterator(self)

    def __len__(self):
        return len(self.real())

    def __reversed__(self):
        return reversed(self.real())

    def __getitem__(self, key):
        return self.real()[key]

    def __contains__(self, value):
        return value in self.real()

    def __bool__(self):
        return bool(self.real())

    def count(self, value):
        return self.real().count(value)

    def index(self, value):
        return self.real().index(value)

    def __repr__(self):
        return f"range({self.start}, {self.stop}, {self.step})"


class SymRangeIterator:
    """``iter(SymRange)``, not yet advanced. ``FOR_ITER`` on it ends the segment (see
    ``Tracer.check_iterator``); any other consumer gets the real iterator's items."""

    __slots__ = ("range", "_real")

    def __init__(self, sym_range):
        self.range = sym_range
        self._real = None

    def __iter__(self):
        return self

    def __next__(self):
        if self._real is None:
            self._real = iter(self.range.real())
        return next(self._real)

    def __length_hint__(self):
        return operator.length_hint(self.range.real()) if self._real is None else operator.length_hint(self._real)

    @property
    def untouched(self):
        return self._real is None


def make_range(*args):
    """``range(*args)``: a SymRange when a bound is symbolic."""
    if any(is_symbolic(a) for a in args):
        return SymRange(*args)
    return range(*args)


class LoopState:
    """What the tracer knows of one loop (by frame and back-edge offset) in one trace."""

    __slots__ = ("trips", "nodes_at_first", "unroll")

    def __init__(self):
        self.trips = 0              # back edges taken so far in this trace
        self.nodes_at_first = 0     # graph nodes when the first back edge was reached
        self.unroll = None          # decided: True (unroll it all), False (end the segment)


def known_remaining(frame, inst):
    """Iterations left of a ``for`` loop at its back edge (the iterator is on the stack
    top then), or None when not known (a while loop, or an iterator without a length)."""
    if inst.opname not in ("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT") or not frame.stack:
        return None
    iterator = frame.stack[-1]
    if isinstance(iterator, SymRangeIterator):
        return None
    hint = getattr(type(iterator), "__length_hint__", None)
    if hint is None:
        return None
    try:
        remaining = hint(iterator)
    except Exception:
        return None
    return remaining if type(remaining) is int and remaining >= 0 else None


def keep_unrolling(state, frame, inst, nodes, first_body=None):
    """At a back edge of a loop the segment did not start in: whether to trace the next
    iteration into the same graph (True) or end the segment here (False). ``nodes``: the
    graph's size now; ``first_body``: the nodes the loop's first iteration added, where
    the trace saw the loop start (None: the graph's size bounds it). A loop whose body adds
    no nodes (plain Python: building a list, a comprehension over a few items) unrolls
    freely up to ``loop_unroll_trips``."""
    state.trips += 1
    if state.trips > config.loop_unroll_trips:
        return False
    if state.unroll is not None:
        return state.unroll and nodes <= 2 * config.loop_unroll_nodes
    remaining = known_remaining(frame, inst)
    if remaining is None:   # unknown trip count: unroll only while the graph stays small
        return nodes <= config.loop_unroll_nodes
    total = state.trips + remaining
    if total > config.loop_unroll_trips:
        state.unroll = False
        return False
    if state.trips == 1:
        state.nodes_at_first = nodes
        if nodes * total <= config.loop_unroll_nodes and unrolling_pays(nodes, remaining):
            state.unroll = True   # nodes bounds one body from above
            return True
        if config.loop_measure_within * nodes > config.loop_unroll_nodes:
            state.unroll = False   # measuring could double a large graph for nothing
            return False
        # With the first body's size known, the segment ends here where measuring would not
        # unroll the loop (judged as it would judge) and its one more iteration would leave
        # the body's chunks a tail, one more graph for the first call (nbody's 13 trips).
        # Else it measures: the body then starts two iterations in (a second-order
        # recursion's carried values no longer alias their first ones) and not at a loop
        # value of 0 or 1 (a symbol torch specializes: a graph for that value alone).
        if first_body is not None and remaining and next_loop_value(frame) not in (0, 1) and \
                tails(remaining, first_body) < tails(remaining - 1, first_body) and \
                not _decide(state, nodes + first_body, first_body, total, remaining - 1):
            return False
        state.unroll = None
        return True   # one more iteration measures the body exactly
    return _decide(state, nodes, nodes - state.nodes_at_first, total, remaining)


def _decide(state, nodes, body, total, remaining):
    """Unroll the ``remaining`` iterations of a loop of ``total`` whose last iteration took
    ``body`` nodes? Where one body does not bound the whole from the first back edge, only
    a short loop (``loop_unroll_array_trips``) unrolls: a later body may be larger."""
    bounded = body == 0 or total <= config.loop_unroll_array_trips or \
        state.nodes_at_first * total <= config.loop_unroll_nodes   # the first bound held
    state.unroll = bounded and nodes + body * remaining <= config.loop_unroll_nodes and \
        unrolling_pays(body, remaining)
    return state.unroll


def unrolling_pays(body, remaining):
    """Whether ``remaining`` more iterations of ``body`` graph nodes cost less to compile
    unrolled into this graph than as a body segment: its chunk graph, the graph the code
    after the loop becomes, and a graph for leftover iterations when no chunk size
    divides them. So 18 more sweeps of a 35-node stencil (630 nodes unrolled) become a
    chunk of 6 sweeps (410 nodes' worth), while 4 sweeps, or 37 of a 9-node body, unroll."""
    if body == 0:
        return True
    chunk = chunk_size(min(config.loop_chunk_trips, config.loop_chunk_nodes // body), remaining)
    segment = 2 * config.loop_graph_cost_nodes + body * chunk
    if chunk > 1 and remaining % chunk:
        segment += config.loop_graph_cost_nodes + body
    return body * remaining <= segment


def loop_values(frames):
    """Sources of the value a ``for`` loop just produced (the top frame resumes right
    after ``FOR_ITER``), when it is an int: traced as a symbol from the first trace."""
    k = len(frames) - 1
    frame = frames[k]
    if frame.ip == 0 or not frame.stack or frame.instructions[frame.ip - 1].opname != "FOR_ITER":
        return frozenset()
    if type(frame.stack[-1]) is not int:
        return frozenset()
    return frozenset([f"L[{k}].stack[{len(frame.stack) - 1!r}]"])


#: NumPy scalars a resumed segment may trace as 0-d graph inputs once they change: the
#: numbers a loop carries (a recursion's coefficient, a running count) and the integers it
#: reads out of index arrays (CSR row bounds) or out of a table it fills in.
CARRIED_SCALARS = (numpy.floating, numpy.complexfloating, numpy.integer)


def carried_scalar_changed(old, now):
    """A NumPy number a loop carries changed value between two states of the same resume
    point: from now on it is a graph input, not a constant."""
    return (isinstance(old, CARRIED_SCALARS) and type(now) is type(old)
            and not (now == old or (now != now and old != old)))


_RANGE_ITERATOR = type(iter(range(0)))


class RangeCursor:
    """Stands in, in a loop body's trace, for the real ``range`` iterator of the loop the
    segment started in (``source``: where the real one is), so that the body can be
    traced ``chunk`` times into one graph: each further ``next`` yields the loop value
    one step on (symbolic when the loop value is), guarded on the real iterator having
    that many items left. The segment's end advances the real iterator by as many
    (``advance``), so the runtime's per-call overhead is paid once per chunk."""

    __slots__ = ("source", "value", "step", "remaining", "advanced", "chunk")

    def __init__(self, real, source, value):
        self.source = source
        self.value = value                      # the value FOR_ITER produced last
        self.step = real.__reduce__()[1][0].step
        self.remaining = operator.length_hint(real)
        self.advanced = 0
        self.chunk = None

    def __iter__(self):
        return self

    def __next__(self):
        if self.advanced >= self.remaining:   # never reached: take_another stops before
            raise StopIteration
        self.advanced += 1
        self.value = self.value + self.step
        return self.value

    def take_another(self, nodes):
        """At the loop's back edge: trace one more iteration into this graph? The chunk
        is decided at the first back edge, from the graph's size then (one body), within
        ``config.loop_chunk_nodes``: a large body gains little from chunks (its per-call
        overhead is small beside its work) and costs its compile time once per copy."""
        if self.chunk is None:
            self.chunk = chunk_size(min(config.loop_chunk_trips, config.loop_chunk_nodes // max(nodes, 1)),
                                    self.remaining + 1)
        return self.advanced < self.chunk - 1

    def guards(self, items):
        """(expression, description) of what taking ``items`` more items relies on."""
        expr = self.source.expr
        return [(f"{expr}.__reduce__()[1][0].step == {self.step!r}", f"{self.source.label} steps by {self.step}"),
                (f"{expr}.__length_hint__() >= {items}", f"{self.source.label} has {items} more items")]


def next_loop_value(frame):
    """What the ``for`` loop whose back edge the top frame is at yields next, when its
    iterator (on the stack top) is a range iterator; else None."""
    iterator = frame.stack[-1] if frame.stack else None
    if type(iterator) is not _RANGE_ITERATOR:
        return None
    _, (left,), consumed = iterator.__reduce__()   # 3.11: (range, items consumed); 3.12+: (range left, None)
    consumed = consumed or 0
    return left[consumed] if consumed < len(left) else None


def tails(trips, body):
    """Of the chunk sizes a body of ``body`` graph nodes, driven by the runtime for
    ``trips`` iterations, may take (``RangeCursor.take_another``: its own graph holds its
    inputs besides, up to twice the nodes), how many leave a few iterations that no chunk
    covers (a graph of their own)."""
    body = max(body, 1)
    largest = {min(config.loop_chunk_trips, config.loop_chunk_nodes // b) for b in range(body, 2 * body + 1)}
    return sum(1 for chunk in (chunk_size(n, trips) for n in largest) if chunk > 1 and trips % chunk)


def chunk_size(largest, trips):
    """Iterations per body graph for a loop with ``trips`` left (this one included),
    at most ``largest``: the largest size from ``largest`` down to half of it that divides
    ``trips``, so that no iterations are left over for a body graph of their own (one
    more compile); else ``largest``; 1 when fewer than ``largest`` are left (the last
    few of a loop: one iteration a call, a graph that serves any number of them)."""
    if largest < 2 or trips < largest:
        return 1
    return next((c for c in range(largest, max(2, (largest + 1) // 2) - 1, -1) if trips % c == 0), largest)


def range_cursor(frame, real_frame, source_of_slot):
    """A RangeCursor for the iterator below the value FOR_ITER just pushed in a resumed
    top frame, or None (not right after FOR_ITER, not a range iterator, fullgraph)."""
    stack = real_frame.stack
    if real_frame.ip == 0 or len(stack) < 2 or type(stack[-2]) is not _RANGE_ITERATOR or \
            real_frame.instructions[real_frame.ip - 1].opname != "FOR_ITER" or type(stack[-1]) is not int or \
            frame.fullgraph or frame.error_on_graph_break or config.loop_chunk_trips <= 1:
        return None
    return RangeCursor(stack[-2], source_of_slot(len(stack) - 2), frame.stack[-1])


def advance(iterator, n):
    """The real range iterator, ``n`` items on (what a chunk consumed)."""
    if n:   # 3.11 reduces to (range, index consumed); 3.12+ to (range left, None)
        iterator.__setstate__((iterator.__reduce__()[2] or 0) + n)
    return iterator
