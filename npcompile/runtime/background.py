"""Compiles in the background while the call runs as written, at NumPy's speed.

A jitted function's calls are already correct NumPy programs; compiling only makes them
faster. With ``jit(f, compile="background")`` a call that finds no entry for its state
runs ``f`` as written (real NumPy, the same fallback a graph break uses) and hands that
state to one worker thread per process, which traces and compiles it; the entry joins
the function's cache when it is ready, so the switch happens between calls, never inside
one. The worker compiles one state at a time, and a function with a compile queued or
running queues no other (50 new shapes make one compile, then automatic dynamic shapes
generalize the next): a miss meanwhile simply runs uncompiled. A compile that fails in
the background leaves a fallback entry (one warning, the reason in ``explain``), as in
blocking mode.

The worker traces a snapshot of the state: containers (lists, dicts, sets, tuples) are
copied so the caller may change them meanwhile; arrays are shared, which is safe because
tracing reads only their type, dtype, shape, strides and flags. Segments that resume
after a graph break compile in the background too: the worker traces a copy of the
frame stack (``snapshot_frames``) while the caller runs the real frames to their end.
``fullgraph=True`` and ``explain`` always compile in the caller (they must raise or
report there).

Inductor's code generation, the bulk of a compile's Python, runs in a child process
(runtime/compile_process.py): the worker thread holds the GIL only to trace and
decompose the graph, so the user's NumPy calls are slowed as little as they can be.
"""
import queue
import threading

from . import compile_process

_CONTAINERS = (list, dict, set, tuple)


def snapshot(value, memo=None, depth=0):
    """``value`` with the containers in it copied (arrays and other objects shared). A
    container reached twice is copied once (``memo``: id -> copy), so the copy aliases
    as the original does: the trace may depend on two names holding one list."""
    if depth > 20 or type(value) not in _CONTAINERS:
        return value
    memo = {} if memo is None else memo
    copied = memo.get(id(value))
    if copied is not None:
        return copied[1]
    if type(value) is dict:
        copied = {}
        memo[id(value)] = (value, copied)   # the original is kept alive so its id stays its own
        copied.update((k, snapshot(v, memo, depth + 1)) for k, v in value.items())
    elif type(value) is list:
        copied = []
        memo[id(value)] = (value, copied)
        copied.extend(snapshot(v, memo, depth + 1) for v in value)
    else:   # tuples and sets hold no reference back to themselves
        copied = type(value)(snapshot(v, memo, depth + 1) for v in value)
        memo[id(value)] = (value, copied)
    return copied


def snapshot_state(L, memo=None):
    """A copy of a segment's state ``L`` (a tuple or list of argument values) for the
    worker: the same type, since some states carry attributes, as staged arguments do."""
    memo = {} if memo is None else memo
    values = [snapshot(v, memo) for v in L]
    if type(L) is tuple:
        return tuple(values)
    copied = L.__class__(values)
    if hasattr(L, "__dict__"):
        copied.__dict__.update(L.__dict__)
    return copied


def snapshot_frames(frames):
    """A copy of a resumed segment's frame stack for the worker: the caller goes on to
    run the real frames to their end (moving their instruction pointers, popping their
    stacks, rebinding their locals) while the worker traces from where they stood.
    Locals and stack slots are snapshots sharing one memo; cells are shared, as the
    frames' code shares them with closures."""
    memo = {}
    copies = []
    for frame in frames:
        copy = type(frame).__new__(type(frame))
        for name in type(frame).__slots__:
            setattr(copy, name, getattr(frame, name))
        copy.locals = {name: snapshot(value, memo) for name, value in frame.locals.items()}
        copy.stack = [snapshot(value, memo) for value in frame.stack]
        copy.cells = dict(frame.cells)
        if frame.yielded is not None:
            copy.yielded = list(frame.yielded)
        copies.append(copy)
    return copies


class Worker:
    """One daemon thread that runs queued compile jobs one at a time. ``pending`` holds
    the keys of jobs queued or running (a key is queued at most once)."""

    def __init__(self):
        self._jobs = queue.Queue()
        self._lock = threading.Lock()
        self._thread = None
        self.pending = set()
        self.done = 0

    def is_pending(self, key):
        """Whether a job of ``key`` is queued or running (a caller may then skip the
        snapshot a new job would need)."""
        return key in self.pending

    def submit(self, key, job, backend=None):
        """Queue ``job()`` under ``key`` unless a job of that key is pending; True if queued.
        ``backend``: the one the job compiles with (see ``compile_process.out_of_process``)."""
        with self._lock:
            if key in self.pending:
                return False
            self.pending.add(key)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="npcompile-background-compile",
                                                daemon=True)
                self._thread.start()
        self._jobs.put((key, job, backend))
        return True

    def _run(self):
        while True:
            key, job, backend = self._jobs.get()
            try:
                with compile_process.out_of_process(backend):
                    job()
            except BaseException as exc:   # noqa: BLE001 - a job's failure must not stop the worker
                from .failures import warn
                warn(f"a background compile failed unexpectedly ({type(exc).__name__}: {exc}); "
                     "the calls it was for keep running uncompiled")
            finally:
                with self._lock:
                    self.pending.discard(key)
                    self.done += 1
                self._jobs.task_done()

    def wait(self, timeout=None):
        """Block until every queued job has finished (tests, benchmarks, ``npcompile.wait``).
        True when none is left."""
        done = threading.Event()

        def watch():
            self._jobs.join()
            done.set()

        threading.Thread(target=watch, daemon=True).start()
        return done.wait(timeout)


WORKER = Worker()
