"""What each CPython instruction does to a frame: the one version-aware place.

A handler per opcode name, ``handler(tracer, frame, inst)``, written once for both
users: the tracer (symbolic values, ``HANDLERS``) and the runner of real Python at graph
breaks (``REAL_HANDLERS``), which differ only in the hooks the handlers call on them
(``tracer.call``, ``tracer.truth``, ...). Jump targets come from ``dis`` as absolute
offsets (``inst.argval``), so relative/absolute encodings of later versions need no
change; names come from ``dis`` too, never numbers. The modules hold CPython 3.11's
instructions by kind (``core``, ``exceptions``, ``generators``, ``patterns``), and the
instructions each later version added in a module of its own (``py312``, ``py313``),
registered with ``@handles``; ``versions`` holds the supported versions and the
conventions that changed between them (see there for adding one). Where exceptions go
is CPython's exception table (``exception_table``); the runner unwinds, the tracer stops
before an exception would be caught (``stops``).
"""
import dis

from . import core, exceptions, generators, patterns, py312, py313  # noqa: F401 - each registers its handlers
from .exceptions import Reraise
from .registry import CO_ASYNC_GENERATOR, CO_COROUTINE, CO_GENERATOR, REAL_HANDLERS, runs_for_real
from .stops import not_runnable, traced

__all__ = ["HANDLERS", "REAL_HANDLERS", "Reraise", "CO_GENERATOR", "CO_COROUTINE", "CO_ASYNC_GENERATOR",
           "runs_for_real"]

#: opname -> handler for the tracer; every other instruction ends the trace and the
#: segment runs as written from its start (the runner could not resume at it)
HANDLERS = {name: traced(fn) for name, fn in REAL_HANDLERS.items()}
for _name in dis.opmap:
    if _name not in HANDLERS and _name not in ("RETURN_VALUE", "CACHE"):
        HANDLERS[_name] = traced(not_runnable)
