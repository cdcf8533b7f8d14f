"""The instruction a loop's segment stops before, taken without the general runner.

A loop whose body is a segment of its own stops, every iteration, before one of two
instructions: a conditional jump on the condition the graph computed (``while
np.max(np.abs(r)) > tol:``) or a back edge to ``FOR_ITER`` on the loop's real iterator.
``RealRunner.run_break`` runs those as it runs any instruction (device arrays to the
host, the handled exception looked up, aliased containers followed), which costs
several microseconds per iteration. ``quick_step`` runs just these two cases with the
same opcode handlers, only where the general runner would do nothing more: the top
frame's stack holds no device-resident array and no list, dict or set (nor a method
bound to one) that a variable might also hold, the condition is an exact ``bool`` or
``numpy.bool_`` (whose truth cannot raise or run user code) and the iterator is a
built-in one over a range, list or tuple (whose ``next`` runs no user code either).
Anything else returns False with the frames untouched, and the runtime takes the
general path.
"""
import types

import numpy

from ..trace.opcodes import REAL_HANDLERS
from ..trace.real import _BOOL_JUMPS, RealRunner
from ..trace.resident import DeviceArray

_CONDITION_OPS = frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
                            "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE",
                            "POP_JUMP_BACKWARD_IF_FALSE", "TO_BOOL"})
_BACK_EDGES = frozenset({"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})
_TRUTH_IS_PURE = (bool, numpy.bool_)
_PURE_ITERATORS = frozenset(type(iter(x)) for x in (range(0), range(1 << 70), [], ()))
_CONTAINERS = (list, dict, set)

# The handlers ask their runner only for ``truth``, ``back_edge`` and ``check_iterator``,
# which a RealRunner answers without touching its own state: one serves every thread.
_RUNNER = RealRunner([], None)


def _plain_stack(values):
    """No device-resident array (the runner brings those to the host before each
    instruction) and no container the general runner would follow (see the docstring)."""
    for value in values:
        kind = type(value)
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


def quick_step(frames):
    """Run the break's instruction as ``RealRunner.run_break`` would, when it is a
    condition's jump or a back edge to ``FOR_ITER`` on a built-in iterator; True when it
    did, False (the frames untouched) otherwise."""
    frame = frames[-1]
    stack = frame.stack
    if not stack:
        return False
    instructions = frame.instructions
    inst = instructions[frame.ip]
    name = inst.opname
    if name in _BACK_EDGES:
        target = instructions[frame.index_of[inst.argval]]
        if target.opname != "FOR_ITER" or type(stack[-1]) not in _PURE_ITERATORS or not _plain_stack(stack):
            return False
        _step(frame, inst)
        _step(frame, target)
        return True
    if name not in _CONDITION_OPS or type(stack[-1]) not in _TRUTH_IS_PURE or not _plain_stack(stack):
        return False
    _step(frame, inst)
    # as run_break: a condition made for real (TO_BOOL's bool) takes its jump here too
    while stack and type(stack[-1]) is bool and instructions[frame.ip].opname in _BOOL_JUMPS:
        _step(frame, instructions[frame.ip])
    return True
