"""The instruction a loop's segment stops before, taken without the general runner.

A loop whose body is a segment of its own stops, every iteration, before one of two
instructions: a conditional jump on the condition the graph computed (``while
np.max(np.abs(r)) > tol:``) or a back edge to ``FOR_ITER`` on the loop's real iterator.
``RealRunner.run_break`` runs those as it runs any instruction (device arrays to the
host, the handled exception looked up, aliased containers followed), which costs
several microseconds per iteration. ``quick_step`` runs just these two cases, only where
the general runner would do nothing more: the top frame's stack holds no device-resident
array and no list, dict or set (nor a method bound to one) that a variable might also
hold, the condition is an exact ``bool`` or ``numpy.bool_`` (whose truth cannot raise or
run user code) and the iterator is a built-in one over a range, list or tuple (whose
``next`` runs no user code either). Anything else returns False with the frames
untouched, and the runtime takes the general path.

Where a condition's jump lands on an unconditional jump that is not a back edge to
``FOR_ITER`` (3.12+ end a ``while`` loop in ``POP_JUMP_IF_FALSE`` then
``JUMP_BACKWARD``), that jump is taken too: it runs no code, and the next segment then
starts at the loop's body, the segment the loop's first test leads to, instead of being
an empty segment before the jump that the general runner would take every iteration.
Where it lands on a back edge to ``FOR_ITER`` (``if np.max(u) < eps: break`` at the end
of a ``for`` body), that back edge and ``FOR_ITER`` are taken too when the iterator is a
built-in one: the next segment is the body again, not an empty one at the back edge
(which cost a second segment run per iteration).
A comparison of two plain numbers (exact ``int``, ``float``, ``bool`` or NumPy number
types) followed by such a jump is taken the same way: 3.13 breaks before its
``COMPARE_OP bool(>)`` when the graph computed one side (``np.max(...) > tol``).

What a site does depends only on its instructions and the condition's truth, so it is
worked out once per (code, instruction) (``_site``) by running the opcode handlers on a
scratch frame for both truths; an iteration then costs a type check and a dict lookup.
"""
import types

import numpy

from ..trace.bytecode import instructions_of
from ..trace.frame import Frame
from ..trace.opcodes import REAL_HANDLERS
from ..trace.opcodes.core import COMPARE_OPERATORS
from ..trace.real import _BOOL_JUMPS, RealRunner
from ..trace.resident import DeviceArray

_CONDITION_OPS = frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
                            "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE",
                            "POP_JUMP_BACKWARD_IF_FALSE", "TO_BOOL"})
_BACK_EDGES = frozenset({"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})
_PLAIN_JUMPS = _BACK_EDGES | {"JUMP_FORWARD", "JUMP"}
_TRUTH_IS_PURE = frozenset({bool, numpy.bool_})
_PURE_ITERATORS = frozenset(type(iter(x)) for x in (range(0), range(1 << 70), [], ()))
_CONTAINERS = (list, dict, set)
#: exact types whose comparisons run no user code and give a bool or numpy.bool_
_PLAIN_NUMBERS = frozenset({bool, int, float, numpy.bool_, numpy.float16, numpy.float32, numpy.float64,
                            numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8, numpy.uint16,
                            numpy.uint32, numpy.uint64})
#: exact types that are neither a container nor bound to one (see ``_plain_stack``)
_PLAIN = _PLAIN_NUMBERS | _PURE_ITERATORS | {type(None), str, complex, numpy.complex128, numpy.complex64}
_MAX_JUMPS = 16
_UNCHANGED = object()   # a site's steps set no line number: the frame keeps its own
_EXHAUSTED = object()

# The handlers ask their runner only for ``truth``, ``back_edge`` and ``check_iterator``,
# which a RealRunner answers without touching its own state: one serves every thread.
_RUNNER = RealRunner([], None)
_SITES = {}   # (id(code), instruction index) -> (code, the site's step function)


class _EndlessJumps(Exception):
    pass


def _plain_stack(values):
    """No device-resident array (the runner brings those to the host before each
    instruction) and no container the general runner would follow (see the docstring)."""
    for value in values:
        kind = type(value)
        if kind in _PLAIN:   # the usual stack, checked in 30 ns instead of 200
            continue
        if kind is DeviceArray or isinstance(value, _CONTAINERS):
            return False
        if kind is types.BuiltinMethodType and isinstance(value.__self__, _CONTAINERS):
            return False
    return True


def _step(frame, inst):
    frame.ip += 1
    if inst.starts_line is not None:
        frame.lineno = inst.starts_line
    REAL_HANDLERS[inst.opname](_RUNNER, frame, inst)


def _is_back_edge_to_for_iter(instructions, index_of, inst):
    return inst.opname in _BACK_EDGES and instructions[index_of[inst.argval]].opname == "FOR_ITER"


def _refuse(frame, stack):
    return False


def _scratch(code, ip, stack):
    frame = Frame.__new__(Frame)
    frame.code, (frame.instructions, frame.index_of) = code, instructions_of(code)
    frame.ip, frame.lineno, frame.stack = ip, _UNCHANGED, list(stack)
    return frame


def _take_condition(frame):
    """The condition's jump, as ``RealRunner.run_break`` takes it, then the plain jumps
    it lands on (see the docstring)."""
    instructions, index_of = frame.instructions, frame.index_of
    stack = frame.stack
    _step(frame, instructions[frame.ip])
    while stack and type(stack[-1]) is bool and instructions[frame.ip].opname in _BOOL_JUMPS:
        _step(frame, instructions[frame.ip])
    for _ in range(_MAX_JUMPS):
        inst = instructions[frame.ip]
        if inst.opname not in _PLAIN_JUMPS or _is_back_edge_to_for_iter(instructions, index_of, inst):
            return
        _step(frame, inst)
    raise _EndlessJumps()   # ``while True: pass`` is a jump to itself: leave it to real code


def _condition_site(code, ip):
    """A step for a condition's jump: both outcomes worked out now on scratch frames.
    An outcome that lands on a back edge to ``FOR_ITER`` (``if ...: break`` at the end of
    a ``for`` body) takes it too where its iterator is a built-in one (see the docstring)."""
    outcomes = []
    for truth in (False, True):
        scratch = _scratch(code, ip, [truth])
        _take_condition(scratch)
        instructions, index_of = scratch.instructions, scratch.index_of
        then = _for_iter_site(code, scratch.ip) \
            if _is_back_edge_to_for_iter(instructions, index_of, instructions[scratch.ip]) else None
        outcomes.append((scratch.ip, scratch.lineno, scratch.stack, then))
    (false_ip, false_line, false_rest, false_then), (true_ip, true_line, true_rest, true_then) = outcomes

    def step(frame, stack):
        if type(stack[-1]) not in _TRUTH_IS_PURE or not _plain_stack(stack):
            return False
        if stack.pop():
            frame.ip, line, rest, then = true_ip, true_line, true_rest, true_then
        else:
            frame.ip, line, rest, then = false_ip, false_line, false_rest, false_then
        if line is not _UNCHANGED:
            frame.lineno = line
        if rest:
            stack += rest   # what the steps left (bools: immutable, safe to share)
        if then is not None and stack:
            then(frame, stack, True)   # refused (not a built-in iterator): the frame waits at the back edge
        return True
    return step


def _for_iter_site(code, ip):
    """A step for a back edge to ``FOR_ITER``: the jump, then the real iterator's next item."""
    instructions, index_of = instructions_of(code)
    jump = instructions[ip]
    target = index_of[jump.argval]
    for_iter = instructions[target]
    line = jump.starts_line
    if for_iter.starts_line is not None:
        line = for_iter.starts_line
    body = target + 1

    def step(frame, stack, plain=False):
        iterator = stack[-1]   # ``plain``: the stack is the one a condition's step just checked
        if type(iterator) not in _PURE_ITERATORS or not (plain or _plain_stack(stack)):
            return False
        value = next(iterator, _EXHAUSTED)   # a built-in iterator: its next runs no user code
        if value is _EXHAUSTED:   # the loop's exit, as FOR_ITER's handler takes it (asked again: still exhausted)
            frame.ip = target
            if jump.starts_line is not None:
                frame.lineno = jump.starts_line
            _step(frame, for_iter)
            return True
        frame.ip = body   # FOR_ITER pushed the next item: its handler, inlined (once per iteration)
        if line is not None:
            frame.lineno = line
        stack.append(value)
        return True
    return step


def _compare_site(code, ip):
    """A step for a comparison of two plain numbers (3.13 breaks before ``COMPARE_OP
    bool(>)`` when the graph computed one side): compared here, then the condition's jump
    that follows. A comparison that raises is left to the general runner, which raises it
    where the program can catch it."""
    inst = instructions_of(code)[0][ip]
    compare, to_bool, line = COMPARE_OPERATORS[inst.argval], inst.argrepr.startswith("bool("), inst.starts_line
    then = _site(code, ip + 1)

    def step(frame, stack):
        if len(stack) < 2 or type(stack[-1]) not in _PLAIN_NUMBERS or type(stack[-2]) not in _PLAIN_NUMBERS \
                or not _plain_stack(stack):
            return False
        try:
            result = compare(stack[-2], stack[-1])
        except Exception:
            return False
        if type(result) not in _TRUTH_IS_PURE:
            return False
        del stack[-2:]
        stack.append(bool(result) if to_bool else result)
        frame.ip = ip + 1
        if line is not None:
            frame.lineno = line
        then(frame, stack)
        return True
    return step


def _site(code, ip):
    """The step for the instruction at ``ip`` of ``code``, or one that refuses (also for
    a condition whose jumps run into endless jumps: the general runner takes those)."""
    instructions, index_of = instructions_of(code)
    inst = instructions[ip]
    try:
        if _is_back_edge_to_for_iter(instructions, index_of, inst):
            return _for_iter_site(code, ip)
        if inst.opname in _CONDITION_OPS:
            return _condition_site(code, ip)
        if inst.opname == "COMPARE_OP" and inst.argval in COMPARE_OPERATORS:
            return _compare_site(code, ip)
    except _EndlessJumps:
        pass
    return _refuse


def quick_step(frames):
    """Run the break's instruction as ``RealRunner.run_break`` would, when it is a
    condition's jump or a back edge to ``FOR_ITER`` on a built-in iterator (and the plain
    jumps a condition lands on); True when it did, False (the frames untouched) otherwise."""
    frame = frames[-1]
    stack = frame.stack
    if not stack:
        return False
    code = frame.code
    key = (id(code), frame.ip)   # hashing a code object hashes its bytecode: 0.2-0.5 us
    site = _SITES.get(key)
    if site is None or site[0] is not code:
        site = _SITES[key] = (code, _site(code, frame.ip))   # holding the code keeps its id unique
    return site[1](frame, stack)
