"""Running instructions for real at a graph break.

The opcode handlers talk to a tracer through a few hooks (load_global, call, truth, ...).
``RealRunner`` implements those hooks with plain Python semantics on real values, so the
instruction a trace could not capture runs exactly as CPython would run it: NumPy is
real NumPy, print prints, data-dependent branches look at the data. Arrays kept on the
device across the break (``DeviceArray``) come to the host as real code reaches them.
"""
import builtins

from .opcodes import HANDLERS
from .resident import DeviceArray

_CALL_OPCODES = {"CALL", "CALL_FUNCTION_EX"}


class RealRunner:
    def __init__(self, frames, call_user_function):
        self.frames = frames
        self.call_user_function = call_user_function
        self.internal_cells = set()
        self.created_functions = set()
        self.keepalive = []
        self.host_copies = 0

    # ---- the hooks the handlers use ---------------------------------------------------------
    def load_global(self, frame, name):
        if name in frame.globals:
            return frame.globals[name]
        try:
            return getattr(builtins, name)
        except AttributeError:
            raise NameError(f"name '{name}' is not defined") from None

    def store_global(self, frame, name, value):
        frame.globals[name] = value

    def load_cell(self, frame, name):
        return frame.cells[name].cell_contents

    def store_cell(self, frame, name, value):
        frame.cells[name].cell_contents = value

    def load_attr(self, obj, name):
        return getattr(obj, name)

    def store_attr(self, obj, name, value):
        setattr(obj, name, value)

    def truth(self, value):
        return bool(value)

    def iterate(self, value):
        return value

    def format(self, value, convert, spec):
        return format(value if convert is None else convert(value), spec)

    def apply(self, op, *operands):
        return op(*operands)

    def mutate(self, container, method, args):
        return getattr(container, method)(*args)

    def call(self, fn, args, kwargs):
        return self.call_user_function(fn, args, kwargs)

    call_now = call

    def wrap_foreign(self, value):
        return value

    def back_edge(self, frame, inst):
        pass

    def check_iterator(self, iterator):
        pass

    # ---- driving ------------------------------------------------------------------------------
    def run_break(self):
        """Run the instruction the trace stopped before. If it was a LOAD_METHOD, run on
        through the call it starts, so the next trace begins with the call's result."""
        frame = self.frames[-1]
        depth = len(frame.stack)
        first = self._step(frame).opname
        if first == "LOAD_METHOD":
            while not (self._step(frame).opname in _CALL_OPCODES and len(frame.stack) == depth):
                pass
        elif first.startswith("JUMP_BACKWARD") and frame.instructions[frame.ip].opname == "FOR_ITER":
            self._step(frame)  # a loop boundary: advance the real iterator here, not in a trace

    def _step(self, frame):
        for value in frame.stack:   # what the instruction may use: instructions take operands from the stack
            if type(value) is DeviceArray:
                self._bring_to_host(value)
        inst = frame.instructions[frame.ip]
        frame.ip += 1
        if inst.starts_line is not None:
            frame.lineno = inst.starts_line
        HANDLERS[inst.opname](self, frame, inst)
        return inst

    def _bring_to_host(self, resident):
        """One host copy of a device-resident array, put in every slot that held it, so
        aliases stay aliases and nothing later sees the stale device copy."""
        host = resident.to_host()
        self.host_copies += 1
        for frame in self.frames:
            frame.stack[:] = [host if v is resident else v for v in frame.stack]
            for name, value in frame.locals.items():
                if value is resident:
                    frame.locals[name] = host

    def finish_frames(self):
        """Run every frame to its end for real (used when tracing cannot resume)."""
        frames = self.frames
        while True:
            frame = frames[-1]
            inst = frame.instructions[frame.ip]
            if inst.opname == "RETURN_VALUE":
                if type(frame.stack[-1]) is DeviceArray:
                    self._bring_to_host(frame.stack[-1])
                frame.ip += 1
                value = frame.return_value()
                frames.pop()
                if not frames:
                    return value
                frames[-1].push(value)
                continue
            self._step(frame)

