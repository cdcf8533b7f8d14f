"""The CPython versions whose bytecode the handlers execute, and the conventions that
differ between them where one handler serves every version.

Adding a version (3.14): read ``dis``'s documentation for the instructions marked "new
in" or "changed in" that version, add a module like ``py313`` with ``@handles`` entries
for the new names (``dis.opmap`` says which exist), note any changed convention here,
and add the version to ``SUPPORTED``. The tests of ``tests/jit/test_python_versions.py``
disassemble the corpus and say which instructions still lack a handler.
"""
import dis
import sys

#: (major, minor) of every version the tracer and the runner of real Python are tested on
SUPPORTED = ((3, 11), (3, 12), (3, 13))


def unsupported_message(version=None):
    """Why npcompile refuses this interpreter, or None when it is supported."""
    version = tuple(version or sys.version_info)[:2]
    if version in SUPPORTED:
        return None
    low, high = (".".join(map(str, v)) for v in (SUPPORTED[0], SUPPORTED[-1]))
    return (f"npcompile.jit supports Python {low} to {high} (it executes each version's own bytecode); "
            f"this is Python {'.'.join(map(str, version))}. Use a supported Python, or call the function "
            "uncompiled.")


#: 3.13 pushes the NULL (or ``self``) of a call above the callable; 3.11 and 3.12 below it
NULL_ABOVE_CALLABLE = sys.version_info >= (3, 13)

#: 3.12 folded LOAD_METHOD into LOAD_ATTR: the low bit of its argument asks for the method
#: form, and LOAD_SUPER_ATTR's likewise
LOAD_ATTR_METHOD_BIT = sys.version_info >= (3, 12)


def push_callable(frame, fn, null):
    """Push ``fn`` and the NULL (``null``) that marks a call without ``self``, in the
    order this version's CALL expects them."""
    if NULL_ABOVE_CALLABLE:
        frame.push(fn)
        frame.push(null)
    else:
        frame.push(null)
        frame.push(fn)


def callee_below(stack, null):
    """The callable that a CALL with no argument on top of ``stack`` would call, when it
    is called without ``self`` (a NULL beside it), else None."""
    if len(stack) < 2:
        return None
    lower, upper = stack[-2], stack[-1]
    if NULL_ABOVE_CALLABLE:
        return lower if upper is null else None
    return upper if lower is null else None


def loads_method(inst):
    """Whether ``inst`` loads a method for a call (a NULL or ``self`` pushed with it)."""
    if inst.opname == "LOAD_METHOD":
        return True
    return LOAD_ATTR_METHOD_BIT and inst.opname in ("LOAD_ATTR", "LOAD_SUPER_ATTR") and bool(inst.arg & 1)


def loop_exit_skip(instructions, target):
    """How many instructions from ``target`` an exhausted FOR_ITER jumps over. From 3.12
    the compiler's model is that it jumps to the loop's END_FOR with the iterator and a
    value (``dis.stack_effect`` with ``jump=True`` is +1), and CPython pops the iterator
    and skips the instructions that would pop them (END_FOR, and in 3.13 a POP_TOP):
    those are counted here from their own stack effects, so 3.11 (which pops the iterator
    and jumps to the target itself) skips none."""
    extra = dis.stack_effect(dis.opmap["FOR_ITER"], 0, jump=True) + 1   # values above 3.11's stack
    skipped = 0
    while extra > 0:
        inst = instructions[target + skipped]
        extra += dis.stack_effect(inst.opcode, inst.arg)
        skipped += 1
    return skipped
