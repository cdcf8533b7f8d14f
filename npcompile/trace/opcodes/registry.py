"""The table of what each instruction does, as the runner of real Python uses it.

Handler modules register ``handler(tracer, frame, inst)`` per opcode name with
``@handles``; the package ``__init__`` derives the tracer's table from this one."""
import inspect

#: opname -> handler, plain: what the runner of real Python executes
REAL_HANDLERS = {}

CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR = inspect.CO_GENERATOR, inspect.CO_COROUTINE, inspect.CO_ASYNC_GENERATOR


class NoHandler(RuntimeError):
    """An instruction the runner of real Python cannot execute (never sent to the user's
    exception handlers)."""


def handles(*names):
    def register(fn):
        for name in names:
            REAL_HANDLERS[name] = fn
        return fn
    return register


def runs_for_real(tracer):
    """Whether ``tracer`` runs real Python (the break runner) rather than tracing."""
    return getattr(tracer, "runs_for_real", False)
