"""Which local variables a code object may still read from a given instruction on.

A segment that resumes inside a function needs only the locals that are *live* there:
one that is written before any read (a loop body's temporaries, the loop variable the
next ``FOR_ITER`` overwrites) is neither lifted (no guard on its value, no graph input)
nor handed back at the segment's end (no graph output). That keeps a loop body's guards
and outputs the same from one iteration to the next.

Standard backward data flow over the instructions of ``bytecode.instructions_of``, with
an edge from every instruction to the exception handler that covers it. Conservative:
any instruction naming a local that is not a plain store counts as a read, and a code
object that can read its locals by other means (``locals()``, ``vars()``, ``eval``,
``exec``, ``dir()``, zero-argument ``super()``) has every local live everywhere.
"""
import dis

from . import exception_table
from .bytecode import instructions_of

_CACHE = {}
_STORES = {"STORE_FAST", "STORE_FAST_STORE_FAST"}
_ENDS = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD", "JUMP_BACKWARD",
         "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"}
_JUMPS = {dis.opname[op] for op in getattr(dis, "hasjrel", []) + getattr(dis, "hasjabs", [])} | \
    {dis.opname[op] for op in getattr(dis, "hasjump", [])}
_INTROSPECTION = {"locals", "vars", "eval", "exec", "dir", "super"}


def _names(inst):
    value = inst.argval
    return value if isinstance(value, tuple) else (value,)


def _analyse(code):
    """live_in[i]: the bitset (over co_varnames) of locals live before instruction i."""
    instructions, index_of = instructions_of(code)
    names = {name: 1 << k for k, name in enumerate(code.co_varnames)}
    n = len(instructions)
    uses, defs, successors, handlers = [0] * n, [0] * n, [()] * n, [None] * n
    for i, inst in enumerate(instructions):
        if "FAST" in inst.opname:
            bits = 0
            for name in _names(inst):
                bits |= names.get(name, 0)
            if inst.opname in _STORES:
                defs[i] = bits
            else:
                uses[i] = bits
        following = [] if inst.opname in _ENDS or i + 1 >= n else [i + 1]
        if inst.opname in _JUMPS and isinstance(inst.argval, int) and inst.argval in index_of:
            following.append(index_of[inst.argval])
        handler = exception_table.handler_for(code, inst.offset)
        if handler is not None and handler.target in index_of:
            handlers[i] = index_of[handler.target]
        successors[i] = tuple(following)
    live_in = [0] * n
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out = 0
            for s in successors[i]:
                out |= live_in[s]
            new = uses[i] | (out & ~defs[i])
            if handlers[i] is not None:   # raising leaves before the instruction's store
                new |= live_in[handlers[i]]
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    return live_in, handlers


def dead_locals(code, ip):
    """The names of ``code``'s locals that are not read at or after instruction index
    ``ip`` (an index into ``instructions_of(code)``) before being written: safe to drop.
    A frame waiting on a call it made (``ip`` just after it) also keeps what the handler
    of that call's exceptions reads."""
    if _INTROSPECTION & set(code.co_names) or code.co_cellvars or code.co_freevars:
        return frozenset()
    cached = _CACHE.get(code)
    if cached is None:
        cached = _CACHE[code] = _analyse(code)
    live_in, handlers = cached
    if not 0 <= ip < len(live_in):
        return frozenset()
    bits = live_in[ip]
    if ip > 0 and handlers[ip - 1] is not None:   # a frame inside a call: what the call raises goes there
        bits |= live_in[handlers[ip - 1]]
    return frozenset(name for k, name in enumerate(code.co_varnames) if not bits >> k & 1)
