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

A function's first misses do not compile (``Deferral``): the compile is queued at a miss
once the function has missed ``config.background_after_calls`` times, or at a later miss
``config.background_after_seconds`` after its first. A short burst of calls pays nothing
for a compile it would not live to use, and a function called once is never compiled.

Inductor's code generation, the bulk of a compile's Python, runs in a child process
(runtime/compile_process.py): the worker thread holds the GIL only to trace and
decompose the graph, so the user's NumPy calls are slowed as little as they can be.
The worker yields to them: while the program's background-mode calls run it pauses, and
runs only a small share of the time (``Yielding``, ``calls_running``), since whatever
Python it runs then holds the GIL those calls' NumPy operations need back; it runs niced
(``lower_priority``) and, while it works, the interpreter switches threads every 0.5 ms
instead of 5 (``polite_switching``). At exit
it is stopped first (``Worker.close``): a daemon thread left inside torch aborts the
interpreter's finalization.
"""
import _thread
import atexit
import contextlib
import ctypes
import os
import queue
import sys
import threading
import time

from .. import config
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


#: The interpreter's switch interval while a background job runs (seconds; None: leave it).
SWITCH_INTERVAL = 0.0005


@contextlib.contextmanager
def polite_switching():
    """Lower the interpreter's switch interval (``sys.setswitchinterval``) to
    ``SWITCH_INTERVAL`` while a background job runs, and put the caller's back after it.

    Why: a large NumPy loop releases the GIL, and the worker takes it meanwhile (tracing,
    decomposing, loading: pure Python). When the loop ends, the user's thread asks for
    the GIL back but only forces a switch after waiting a whole switch interval, 5 ms by
    default: a call of 40 ufuncs could wait 200 ms, more than NumPy's own work. At 0.5 ms
    it waits a tenth of that; the worker still runs while NumPy computes. A value the
    program sets meanwhile is kept (only our own value is replaced)."""
    previous = sys.getswitchinterval()
    if SWITCH_INTERVAL is None or previous <= SWITCH_INTERVAL:
        yield
        return
    sys.setswitchinterval(SWITCH_INTERVAL)
    lowered = sys.getswitchinterval()
    try:
        yield
    finally:
        if sys.getswitchinterval() == lowered:
            sys.setswitchinterval(previous)


#: While a program's background-mode calls run, the worker's share of the wall time
#: (None: it never pauses for them), and how long it runs before it looks (seconds).
BUSY_SHARE = 0.05
BUSY_SLICE = 0.002
#: A job's share while calls run starts at ``BUSY_SHARE * RAMP_START`` and grows in
#: proportion to the seconds it has seen calls running, reaching ``BUSY_SHARE`` after
#: ``RAMP_SECONDS`` of them (None: ``BUSY_SHARE`` from the start). See ``Yielding.share``.
RAMP_SECONDS = 2.0
RAMP_START = 0.1
#: A pause ends when no call has run for this long (seconds): a shorter gap is the
#: moment between two calls of a loop.
GAP_SECONDS = 0.0005
#: The longest single sleep of a pause: the worker looks again after it.
PAUSE_STEP = 0.01
_JIT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jit_function.py")
_IMPORTING = "<frozen importlib._bootstrap>"


def calls_running(exclude):
    """Whether a thread other than ``exclude`` (a thread ident) is inside a call of a
    ``compile="background"`` function (not ``fullgraph``, not under ``explain``: those
    compile in the caller and may wait for the worker's lock). A thread in the middle of
    an import is not counted: it may be waiting for a module the worker is importing."""
    for ident, frame in sys._current_frames().items():
        if ident == exclude or frame.f_code.co_filename == _IMPORTING:
            continue
        while frame is not None:
            code = frame.f_code
            if code.co_name == "__call__" and code.co_filename == _JIT_FILE:
                owner = frame.f_locals.get("self")
                if getattr(owner, "compile", None) == "background" and not owner.fullgraph \
                        and owner.events is None:
                    return True
            frame = frame.f_back
    return False


class Yielding:
    """The worker's trace function (``sys.settrace`` on its thread, 'call' events only):
    every ``BUSY_SLICE`` of wall time it looks whether the program's calls are running
    (``busy()``) and if so pauses (sleeps, the GIL released) so that it runs only
    ``BUSY_SHARE`` of the time while they do; it runs at full speed between calls.

    Why: the worker's Python (importing Inductor and numba, about 3 s of CPU; tracing;
    decomposing) holds the GIL, and every NumPy operation of the caller's that released
    it must win it back: with the worker running, each waits up to a switch interval,
    longer when the scheduler has put the niced worker aside while it holds the GIL. On a
    loaded 2-core machine that made jacobi_2d's first 20 calls 3.6x NumPy's time (0.48 s
    blocked). Pausing for the calls trades how soon a program that never stops calling
    gets its compiled code for not slowing the calls it makes meanwhile.

    The share ramps up (``share``): a job is queued by a function's 10th call, and the
    calls right after it are the ones a user's first-calls total is made of (kmeans_step
    warm: calls 10-20 last 70 ms, and the worker's 5% of them, importing Inductor while
    OpenBLAS's second thread wants the other core, was 2-4 ms of its 0.14 s total)."""

    def __init__(self, busy, clock=time.perf_counter, sleep=time.sleep):
        self.busy, self.clock, self.sleep = busy, clock, sleep
        self.resumed = clock() - BUSY_SLICE   # the first call looks at once: a job starts mid-call
        self.paused = 0.0        # seconds paused so far (tests, diagnostics)
        self.calls_seen = 0.0    # seconds of this job during which calls were seen running

    def share(self):
        """The worker's share of the wall time while calls run, now: ``BUSY_SHARE`` times
        ``RAMP_START``, growing with ``calls_seen`` to all of it after ``RAMP_SECONDS``.

        Why: a program's first calls after the compile is queued pay for the worker's
        slices almost in full (each holds the GIL their NumPy operations want back, and
        takes a core from them or their BLAS threads), while the compiled code they wait
        for is seconds of the worker's CPU away (about 3 s to import Inductor and load a
        warm-cache graph): at 5% it arrives after about 60 s of nonstop calls, and the
        ramp costs a program that never stops calling about ``RAMP_SECONDS / 2`` of that
        (0.05 s of the worker's time at the full share) while it keeps the first calls'
        cost to a tenth. A program that pauses between calls loses nothing: the worker
        runs at full speed in the pauses."""
        if not RAMP_SECONDS:
            return BUSY_SHARE
        return BUSY_SHARE * min(1.0, max(RAMP_START, self.calls_seen / RAMP_SECONDS))

    def __call__(self, frame, event, arg):
        now = self.clock()
        if now - self.resumed >= BUSY_SLICE:
            self.pause_if_busy()
        return None   # no line events: this function runs only at calls

    def pause_if_busy(self):
        """Sleep ``BUSY_SLICE * (1 / share() - 1)``, in steps, while ``busy()``. A fixed
        pause, not one in proportion to the time since the last look: that time may have
        been spent off the GIL, waiting for the compile process. The slice before a look
        that finds calls running and each step slept while they go on count as
        ``calls_seen``. The calls' end cuts a pause short only if no call has started
        again ``GAP_SECONDS`` later: a program calling in a loop starts its next call
        within a millisecond, and a slice begun in that gap would run inside the next call."""
        if BUSY_SHARE and self.busy():
            self.calls_seen += BUSY_SLICE
            share = self.share()
            left = BUSY_SLICE * (1.0 / share - 1.0)
            while left > 0:
                step = min(left, PAUSE_STEP)
                self.sleep(step)
                self.paused += step
                left -= step
                if left > 0 and not self.busy():
                    self.sleep(GAP_SECONDS)
                    self.paused += GAP_SECONDS
                    left -= GAP_SECONDS
                    if not self.busy():
                        break
                self.calls_seen += step
        self.resumed = self.clock()


@contextlib.contextmanager
def yielding_to_calls(closing):
    """Run the block with ``Yielding`` as this thread's trace function (a tracer already
    set, a debugger's or coverage's, is left alone), pausing while calls run unless
    ``closing()``."""
    previous = sys.gettrace()
    if previous is not None or BUSY_SHARE is None:
        yield
        return
    me = threading.get_ident()
    sys.settrace(Yielding(lambda: not closing() and calls_running(me)))
    try:
        yield
    finally:
        sys.settrace(None)


class Exiting(BaseException):
    """Raised in the worker thread when the process exits (see ``Worker.close``): a
    BaseException, so that no compile step's ``except Exception`` takes it for a failure."""


_EXIT_HOOK = []


def _register_exit_once(worker):
    if not _EXIT_HOOK:
        _EXIT_HOOK.append(atexit.register(worker.close))


#: The worker thread's niceness (None: leave it).
WORKER_NICENESS = 10


def lower_priority():
    """The calling thread (the worker) at ``WORKER_NICENESS``: Linux schedules threads,
    each with its own niceness, and the processes and threads it starts inherit it.

    Why: on a busy machine the worker's Python (tracing, decomposing, loading) takes CPU
    time from the user's thread, which waits its turn meanwhile; with autogroup
    scheduling (a session's threads share one slice of the machine) every second of it
    comes out of the user's own share. Niced, it gets a tenth of the user's thread when
    both want the CPU, and all of an idle core. The cost: a worker that holds the GIL
    while the scheduler has put it aside delays the user's next GIL handoff more; the
    first 20 calls measure faster with it (benchmarks/first_calls.py)."""
    if WORKER_NICENESS is None:
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(WORKER_NICENESS, os.getpriority(os.PRIO_PROCESS, tid)))
    except (AttributeError, OSError):
        pass


class Deferral:
    """Which keys have missed enough to be worth a compile: a key is due at its
    ``config.background_after_calls``-th miss, or at a miss ``background_after_seconds``
    (read at each miss) after its first; once due it stays due, so a hot function's
    later new shapes compile at once. ``clock``: seconds, injectable for tests.

    Why: a compile costs the caller's process seconds of CPU (tracing here, Inductor in
    the child, loading back) while the calls it is for run meanwhile; a function used
    for a moment (a burst of a few calls) would pay that and never use the result."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._seen = {}    # key -> (first miss's time, misses); (None, misses) once due

    def due(self, key):
        """Count a miss of ``key``; True if its compile should be queued now."""
        first, misses = self._seen.get(key, (None, 0))
        if misses and first is None:
            return True
        now = self.clock()
        first, misses = (now, 1) if not misses else (first, misses + 1)
        after_calls, after_seconds = config.background_after_calls, config.background_after_seconds
        is_due = misses >= after_calls or (after_seconds is not None and now - first >= after_seconds)
        self._seen[key] = (None, misses) if is_due else (first, misses)
        return is_due

    def misses(self, key):
        """How many misses of ``key`` were counted (tests, ``explain``)."""
        return self._seen.get(key, (None, 0))[1]


class Worker:
    """One daemon thread that runs queued compile jobs one at a time. ``pending`` holds
    the keys of jobs queued or running (a key is queued at most once)."""

    def __init__(self):
        self._jobs = queue.Queue()
        self._lock = threading.Lock()
        self._ident = None       # the worker thread's, once started
        self.pending = set()
        self.done = 0
        self._closing = False
        self._parked = threading.Event()
        self.deferral = Deferral()

    def is_pending(self, key):
        """Whether a job of ``key`` is queued or running (a caller may then skip the
        snapshot a new job would need)."""
        return key in self.pending

    def submit(self, key, job, backend=None, defer=True):
        """Queue ``job()`` under ``key`` unless a job of that key is pending or (``defer``)
        the key is not yet due (``Deferral``); True if queued. ``backend``: the one the
        job compiles with (see ``compile_process.out_of_process``)."""
        with self._lock:
            if key in self.pending or self._closing or (defer and not self.deferral.due(key)):
                return False
        limit = compile_process.caller_limit(backend)   # read on the caller's thread
        with self._lock:
            if key in self.pending or self._closing:
                return False
            self.pending.add(key)
            if self._ident is None:
                self._ident = _thread.start_new_thread(self._run, ())   # see ``_run``
                _register_exit_once(self)
        self._jobs.put((key, job, backend, limit))
        return True

    def _run(self):
        """The worker thread, started with ``_thread.start_new_thread`` (a daemon; Python
        names it here): ``threading.Thread.start`` waits until the new thread has run, and
        the call that queues the first compile would wait for the scheduler meanwhile
        (10-60 ms blocked at load 8-15 on 2 cores, in jacobi_2d's and mlp_forward's 10th call)."""
        threading.current_thread().name = "npcompile-background-compile"
        lower_priority()
        try:
            while True:
                item = self._jobs.get()
                if item is None or self._closing:   # None: ``close``'s wake-up
                    self._jobs.task_done()
                    break
                self._run_one(*item)
        except Exiting:
            pass
        except BaseException:
            with self._lock:
                self._ident = None   # the next job starts a new worker
            raise
        self._parked.set()
        threading.Event().wait()   # parked for good: the process is exiting (see ``close``)

    def _run_one(self, key, job, backend, caller_limit):
        try:
            with polite_switching(), yielding_to_calls(lambda: self._closing), \
                    compile_process.out_of_process(backend, caller_limit):
                job()
        except Exiting:
            raise
        except BaseException as exc:   # noqa: BLE001 - a job's failure must not stop the worker
            if self._closing:
                raise Exiting from None   # the process is exiting: its child was stopped
            from .failures import warn
            warn(f"a background compile failed unexpectedly ({type(exc).__name__}: {exc}); "
                 "the calls it was for keep running uncompiled")
        finally:
            with self._lock:
                self.pending.discard(key)
                self.done += 1
            self._jobs.task_done()

    def close(self, timeout=5.0):
        """At exit: no job starts any more, the running one is stopped (``Exiting`` raised
        in the worker at its next Python instruction), the compile process is stopped,
        and the worker parks in a plain wait; True once it has.

        Why: the interpreter finalizes with the daemon worker still alive. A worker inside
        a torch operation then (each releases the GIL while it computes) exits when it
        asks for the GIL back, unwinding through torch's C++ frames, and that calls
        std::terminate: the process aborts (status 134) and loses its unflushed output.
        A thread parked in a wait exits cleanly."""
        with self._lock:
            self._closing = True
            ident = self._ident
        if ident is None:
            compile_process.shutdown()
            return True
        self._jobs.put(None)   # wakes an idle worker
        if ident != threading.get_ident():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(Exiting))
        compile_process.shutdown()   # a worker waiting on the child wakes
        return self._parked.wait(timeout)

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
