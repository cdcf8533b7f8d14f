"""Where an exception raised by an instruction goes: CPython's exception table.

Since 3.11 a code object has no SETUP_* instructions; ``co_exceptiontable`` maps ranges
of instructions to a handler: the offset to jump to, the stack depth to cut the frame's
stack back to, and whether the offset of the raising instruction (``lasti``) is pushed
below the exception. The encoding (the same in 3.11, 3.12 and 3.13) is a sequence of
entries of four variable-length numbers (start, length, target, depth << 1 | lasti), in
code units of two bytes; each number is big-endian in 6-bit chunks, bit 6 saying that
another chunk follows and bit 7 marking the first chunk of an entry.
"""
import bisect
import dis

_CODE_UNIT = 2     # bytes per instruction slot: table positions are in code units
_MORE = 0x40       # another 6-bit chunk of this number follows
_CHUNK = 0x3F

_TABLES = {}


class Handler:
    """One row of the table: instructions in [start, end) that raise go to ``target``."""

    __slots__ = ("start", "end", "target", "depth", "lasti")

    def __init__(self, start, end, target, depth, lasti):
        self.start, self.end, self.target, self.depth, self.lasti = start, end, target, depth, lasti

    def __repr__(self):
        return f"Handler({self.start} to {self.end} -> {self.target} [{self.depth}]{' lasti' if self.lasti else ''})"


def _numbers(raw):
    """The table's numbers in order (entry boundaries are implied: four per entry)."""
    value, more = 0, False
    for byte in raw:
        value = (value << 6 | byte & _CHUNK) if more else byte & _CHUNK
        more = bool(byte & _MORE)
        if not more:
            yield value


def parse(code):
    """The handlers of ``code``, sorted by start offset (ranges do not overlap)."""
    numbers = list(_numbers(getattr(code, "co_exceptiontable", b"")))
    handlers = []
    for k in range(0, len(numbers) - 3, 4):
        start, length, target, depth_lasti = numbers[k:k + 4]
        handlers.append(Handler(start * _CODE_UNIT, (start + length) * _CODE_UNIT, target * _CODE_UNIT,
                                depth_lasti >> 1, bool(depth_lasti & 1)))
    handlers.sort(key=lambda h: h.start)
    return handlers


def handlers_of(code):
    """(handlers, their start offsets), cached per code object."""
    cached = _TABLES.get(code)
    if cached is None:
        handlers = parse(code)
        cached = _TABLES[code] = (handlers, [h.start for h in handlers])
    return cached


def handler_for(code, offset):
    """The handler that catches what the instruction at ``offset`` raises, or None."""
    handlers, starts = handlers_of(code)
    k = bisect.bisect_right(starts, offset) - 1
    if k >= 0 and offset < handlers[k].end:
        return handlers[k]
    return None


def lasti_value(offset):
    """What CPython pushes as ``lasti``: the raising instruction's index in code units."""
    return offset // _CODE_UNIT


def offset_of_lasti(lasti):
    return lasti * _CODE_UNIT


def reference_entries(code):
    """The table as the standard library reads it (for tests of ``parse``), or None
    where this Python's ``dis`` offers no reader."""
    bytecode = dis.Bytecode(code)
    entries = getattr(bytecode, "exception_entries", None)
    if entries is None:
        return None
    return [(e.start, e.end, e.target, e.depth, e.lasti) for e in entries]
