"""A code object's instructions as the tracer and the runner of real Python step through
them, the same list for both (a trace stopped after n steps resumes at the n-th one).

``dis`` gives each version's own instructions; two things are made uniform here so that
the interpreters need not know the version:

- ``starts_line`` is the line of the instruction itself (from ``co_positions``), or None
  for instructions the compiler gave no line (3.12+ cleanup code): on 3.13 ``dis`` makes
  ``starts_line`` a flag, and a jump back to a loop's header is on the header's line in
  every version, though that line started long before.
- an instruction that does two things the interpreters treat apart is split in two, at
  the same offset: ``RETURN_CONST c`` (3.12+) is ``LOAD_CONST c`` then ``RETURN_VALUE``.
  A jump to that offset reaches the first of the pair.
"""
import dis

_CACHE = {}   # id(code) -> (code, result): hashing a code object hashes its bytecode and
#               constants (0.1-0.2 us, paid per loop iteration where a frame is rebuilt);
#               holding the code keeps its id unique


def _line(inst):
    positions = inst.positions
    return positions.lineno if positions is not None else None


def _split(inst):
    """The instructions ``inst`` is stepped as."""
    if inst.opname == "RETURN_CONST":
        return [inst._replace(opname="LOAD_CONST", opcode=dis.opmap["LOAD_CONST"]),
                inst._replace(opname="RETURN_VALUE", opcode=dis.opmap["RETURN_VALUE"], arg=None, argval=None,
                              argrepr="")]
    return [inst]


def instructions_of(code):
    """(instructions, offset -> index of the first instruction at that offset), cached per
    code object."""
    cached = _CACHE.get(id(code))
    if cached is not None and cached[0] is code:
        return cached[1]
    instructions = []
    for inst in dis.get_instructions(code):
        if inst.opname != "CACHE":
            instructions += _split(inst._replace(starts_line=_line(inst)))
    index_of = {}
    for n, inst in enumerate(instructions):
        index_of.setdefault(inst.offset, n)
    _CACHE[id(code)] = code, (instructions, index_of)
    return instructions, index_of
