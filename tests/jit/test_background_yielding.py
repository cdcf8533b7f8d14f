"""The background worker pauses while the program's compile="background" calls run: it
runs a small share of the time then (``background.Yielding``), all of it between calls,
so that its Python (imports, tracing) does not hold the GIL the calls' NumPy operations
need back. Blocking calls and threads in an import do not count as running calls."""
import sys
import threading
import time

import pytest

import npcompile
from npcompile.runtime import background


def waits_inside(gate, entered):
    entered.set()
    gate.wait()
    return 1


@pytest.fixture
def call_in_a_thread():
    """Start ``jitted(gate, entered)`` in a thread and wait until it is inside; the call
    is let go at the end of the test."""
    gate = threading.Event()
    started = []

    def start(jitted):
        entered = threading.Event()
        thread = threading.Thread(target=jitted, args=(gate, entered), daemon=True)
        thread.start()
        started.append(thread)
        assert entered.wait(300)
        return thread

    yield start
    gate.set()
    for thread in started:
        thread.join(300)


@pytest.mark.parametrize("mode, counted", [("background", True), ("blocking", False)])
def test_a_thread_inside_a_background_call_is_a_running_call(call_in_a_thread, mode, counted):
    me = threading.get_ident()
    assert not background.calls_running(me)
    thread = call_in_a_thread(npcompile.jit(waits_inside, compile=mode))
    assert background.calls_running(me) is counted
    assert not background.calls_running(thread.ident)   # the thread itself excluded: no other call


@pytest.mark.parametrize("setting", ["fullgraph", "events"])
def test_calls_that_compile_in_the_caller_are_not_running_calls(call_in_a_thread, setting):
    """fullgraph and explain compile in the caller, waiting for the worker's compile lock if
    need be: a worker paused for them would make them wait longer."""
    jitted = npcompile.jit(waits_inside, compile="background")
    call_in_a_thread(jitted)
    assert background.calls_running(-1)
    setattr(jitted, setting, True if setting == "fullgraph" else [])
    assert not background.calls_running(-1)


IMPORT_GATE, IMPORT_STARTED = threading.Event(), threading.Event()
SLOW_MODULE = """
from tests.jit.test_background_yielding import IMPORT_GATE, IMPORT_STARTED
IMPORT_STARTED.set()
IMPORT_GATE.wait(300)
"""


def imports_slow_module(gate, entered):
    entered.set()
    import npcompile_yielding_slow_module  # noqa: F401
    return 1


def innermost_file(thread):
    frame = sys._current_frames().get(thread.ident)
    return None if frame is None else frame.f_code.co_filename


def test_a_call_waiting_for_a_module_the_worker_imports_is_not_a_running_call(call_in_a_thread, tmp_path,
                                                                             monkeypatch):
    """The worker, paused for it, would hold the module's import lock the longer."""
    (tmp_path / "npcompile_yielding_slow_module.py").write_text(SLOW_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "npcompile_yielding_slow_module", raising=False)
    IMPORT_GATE.clear()
    IMPORT_STARTED.clear()
    background.WORKER.submit(("yielding", "import"), lambda: __import__("npcompile_yielding_slow_module"),
                             defer=False)
    try:
        assert IMPORT_STARTED.wait(300)
        thread = call_in_a_thread(npcompile.jit(imports_slow_module, compile="background"))
        for _ in range(3000):   # until the call waits for the module's lock
            if innermost_file(thread) == "<frozen importlib._bootstrap>":
                break
            time.sleep(0.01)
        assert innermost_file(thread) == "<frozen importlib._bootstrap>"
        assert not background.calls_running(-1)
    finally:
        IMPORT_GATE.set()
        assert npcompile.wait_for_compiles(300)


class FakeTime:
    """A clock that only sleeping moves, and the sleeps made."""

    def __init__(self):
        self.now, self.sleeps = 0.0, []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fixed_share(monkeypatch):
    """The share without its ramp (see the ramp's own tests below)."""
    monkeypatch.setattr(background, "RAMP_SECONDS", None)


def test_the_worker_pauses_for_running_calls_and_runs_freely_between_them(monkeypatch, fixed_share):
    monkeypatch.setattr(background, "BUSY_SHARE", 0.1)
    monkeypatch.setattr(background, "BUSY_SLICE", 0.002)
    monkeypatch.setattr(background, "PAUSE_STEP", 0.01)
    fake, busy = FakeTime(), [False]
    tracer = background.Yielding(lambda: busy[0], fake.clock, fake.sleep)

    def run_for(seconds):
        fake.now += seconds
        assert tracer(None, "call", None) is None   # no line events asked for

    for _ in range(10):          # no call running: 10 slices, no pause
        run_for(0.002)
    assert fake.sleeps == []
    busy[0] = True
    run_for(0.001)               # within a slice: not looked yet
    assert fake.sleeps == []
    run_for(0.001)               # a slice ran: pause 9 slices (a tenth of the time), in steps
    assert fake.sleeps == [0.01, pytest.approx(0.008)] and tracer.paused == pytest.approx(0.018)
    run_for(0.001)
    assert len(fake.sleeps) == 2   # the slice after a pause starts when the pause ends


def test_a_job_looks_at_its_first_call(monkeypatch, fixed_share):
    """A job is queued by a call, which goes on running: the worker must not start with a
    slice of its own."""
    monkeypatch.setattr(background, "BUSY_SHARE", 0.5)
    monkeypatch.setattr(background, "BUSY_SLICE", 0.002)
    fake = FakeTime()
    tracer = background.Yielding(lambda: True, fake.clock, fake.sleep)
    tracer(None, "call", None)
    assert fake.sleeps == [pytest.approx(0.002)]


def test_a_pause_ends_when_the_calls_end(monkeypatch, fixed_share):
    monkeypatch.setattr(background, "BUSY_SHARE", 0.01)
    monkeypatch.setattr(background, "BUSY_SLICE", 0.002)
    monkeypatch.setattr(background, "PAUSE_STEP", 0.01)
    monkeypatch.setattr(background, "GAP_SECONDS", 0.0005)
    fake, answers = FakeTime(), iter([True, True, False, False])
    tracer = background.Yielding(lambda: next(answers), fake.clock, fake.sleep)
    fake.now += 0.002
    tracer(None, "call", None)
    assert fake.sleeps == [0.01, 0.01, 0.0005]   # of 0.198 s: looked after each step, stopped when
    #                                              the calls had not started again after a gap


def busy_slices(tracer, fake, count):
    """``count`` slices of the worker's with calls running all along; the pause after each."""
    pauses = []
    for _ in range(count):
        fake.now += background.BUSY_SLICE * 1.001   # past the slice, whatever the float sums
        before = tracer.paused
        tracer(None, "call", None)
        pauses.append(tracer.paused - before)
    return pauses


@pytest.fixture
def ramp(monkeypatch):
    monkeypatch.setattr(background, "BUSY_SHARE", 0.05)
    monkeypatch.setattr(background, "BUSY_SLICE", 0.002)
    monkeypatch.setattr(background, "PAUSE_STEP", 0.01)
    monkeypatch.setattr(background, "RAMP_SECONDS", 2.0)
    monkeypatch.setattr(background, "RAMP_START", 0.1)


def test_a_jobs_share_while_calls_run_starts_at_a_tenth_and_grows_to_all_of_it(ramp):
    """The first calls after a compile is queued pay a tenth of the worker's share; a
    program that keeps calling gives it all of it once the calls have run RAMP_SECONDS."""
    fake = FakeTime()
    tracer = background.Yielding(lambda: True, fake.clock, fake.sleep)
    pauses = busy_slices(tracer, fake, 60)
    assert pauses[0] == pytest.approx(0.002 * (1 / 0.005 - 1))   # a 0.5% share
    assert all(later <= earlier + 1e-12 for earlier, later in zip(pauses, pauses[1:]))
    assert tracer.calls_seen >= 2.0
    assert pauses[-1] == pytest.approx(0.002 * (1 / 0.05 - 1))   # 5% from then on
    ramp_slices = next(k for k, pause in enumerate(pauses) if pause == pytest.approx(pauses[-1]))
    ran = ramp_slices * 0.002
    assert ran / (ran + sum(pauses[:ramp_slices])) < 0.05 / 2   # the ramp's share is under half of 5%


def test_the_ramp_counts_only_time_with_calls_running(ramp):
    """Between calls the worker runs freely, and that time brings no larger share."""
    fake, busy = FakeTime(), [False]
    tracer = background.Yielding(lambda: busy[0], fake.clock, fake.sleep)
    for _ in range(2000):   # 4 s of free running
        fake.now += 0.002
        tracer(None, "call", None)
    assert tracer.paused == 0 and tracer.calls_seen == 0
    busy[0] = True
    assert busy_slices(tracer, fake, 1)[0] == pytest.approx(0.002 * (1 / 0.005 - 1))


def test_a_pause_that_ends_with_the_calls_counts_only_the_steps_they_ran(ramp):
    fake, answers = FakeTime(), iter([True, True, True, False, False])
    tracer = background.Yielding(lambda: next(answers), fake.clock, fake.sleep)
    busy_slices(tracer, fake, 1)
    assert fake.sleeps == [0.01, 0.01, 0.01, 0.0005]
    assert tracer.calls_seen == pytest.approx(0.002 + 0.02)   # the slice, and the steps after which calls ran


def test_a_gap_between_two_calls_of_a_loop_does_not_end_a_pause(ramp):
    """A loop's next call starts right after the last: a slice begun in that gap would run
    inside the next call. The pause ends only when no call has started GAP_SECONDS later."""
    fake, answers = FakeTime(), [True, False, True, True, False, False]
    tracer = background.Yielding(lambda: answers.pop(0), fake.clock, fake.sleep)
    busy_slices(tracer, fake, 1)
    gap = background.GAP_SECONDS
    assert 0 < gap < background.BUSY_SLICE
    assert fake.sleeps == [0.01, gap, 0.01, 0.01, gap] and answers == []   # the second gap ended it


def test_without_a_ramp_the_share_is_whole_from_the_start(ramp, monkeypatch):
    monkeypatch.setattr(background, "RAMP_SECONDS", None)
    tracer = background.Yielding(lambda: True, FakeTime().clock, FakeTime().sleep)
    assert tracer.share() == 0.05


def calls_with_gaps(count):
    """Python calls (each a trace event) with at least 0.3 ms between them."""
    for _ in range(count):
        time.sleep(0.0003)
        len([])
        (lambda: None)()


def run_job(job):
    seen = []
    background.WORKER.submit(("yielding", id(seen)), lambda: seen.append(job()), defer=False)
    assert npcompile.wait_for_compiles(300)
    return seen[0]


def tracer_after(count):
    """A job's own trace function after ``count`` gapped calls (the worker's Yielding)."""
    def job():
        calls_with_gaps(count)
        return sys.gettrace()
    return run_job(job)


@pytest.fixture
def short_slices(monkeypatch):
    monkeypatch.setattr(background, "BUSY_SLICE", 0.0001)
    monkeypatch.setattr(background, "BUSY_SHARE", 0.5)


def test_a_job_pauses_while_a_background_call_runs_in_another_thread(call_in_a_thread, short_slices):
    call_in_a_thread(npcompile.jit(waits_inside, compile="background"))
    tracer = tracer_after(5)
    assert isinstance(tracer, background.Yielding) and tracer.paused > 0
    assert tracer.calls_seen > 0 and tracer.share() < background.BUSY_SHARE   # the call ran: ramping


def test_a_job_with_no_call_running_never_pauses(short_slices):
    tracer = tracer_after(5)
    assert isinstance(tracer, background.Yielding) and tracer.paused == 0
    assert run_job(sys.gettrace) is not tracer   # each job its own


def test_without_a_share_the_worker_never_traces(monkeypatch):
    monkeypatch.setattr(background, "BUSY_SHARE", None)
    assert run_job(sys.gettrace) is None


def test_starting_the_worker_does_not_wait_for_it_to_run(monkeypatch):
    """``threading.Thread.start`` waits until the new thread has run: the call that queues
    the first compile would wait for the scheduler (tens of ms on a loaded machine)."""
    def waiting_start(thread):
        raise AssertionError("threading.Thread.start waits for the new thread to run")

    monkeypatch.setattr(threading.Thread, "start", waiting_start)
    monkeypatch.setattr(background, "_register_exit_once", lambda worker: None)   # WORKER's hook stays
    monkeypatch.setattr(npcompile.config, "compile_out_of_process", False)
    worker, done, names = background.Worker(), threading.Event(), []
    try:
        assert worker.submit(("start", 1), lambda: names.append(threading.current_thread().name) or done.set(),
                             defer=False)
        assert done.wait(300)
        assert names == ["npcompile-background-compile"]
    finally:
        assert worker.close()
