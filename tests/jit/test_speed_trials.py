"""The speed trial (npcompile/runtime/speed_trials.py): a compiled entry whose calls NumPy
runs faster is retired to "as written", with every call's result, input state and
side effects those of the function as written.

The clock is the trial's own (``speed_trials.time``), replaced here by one that charges
each kind of call a fixed time, so the decisions do not depend on this machine's load."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import npcompile
from npcompile import config, threads
from npcompile.runtime import jit_function, speed_trials

from .harness import assert_same


class FakeClock:
    """``perf_counter`` for the trial: each call of the timed function advances it by the
    cost of whichever path ran (``compiled`` or ``written`` seconds; a list gives the costs
    of that path's calls in turn, the last one repeating; a function, the cost of a call
    starting at a given time). ``order`` records the paths."""

    def __init__(self, compiled, written, switch=0.0):
        self.now = 0.0
        self.cost = {"compiled": compiled, "written": written}
        self.switch = switch      # extra seconds of a call right after a call of the other path
        self.path = None
        self.order = []

    def perf_counter(self):
        if self.path:
            cost = self.cost[self.path]
            if isinstance(cost, list):
                cost = cost.pop(0) if len(cost) > 1 else cost[0]
            elif callable(cost):
                cost = cost(self.now)
            if self.order and self.order[-1] != self.path:
                cost += self.switch
            self.now += cost
            self.order.append(self.path)
        self.path = None
        return self.now


@pytest.fixture
def clock(monkeypatch):
    """Install a fake clock charging ``compiled`` and ``written`` seconds a call, and
    count the calls run as written (``CALLS_AS_WRITTEN``, emptied)."""
    def install(compiled, written, switch=0.0):
        fake = FakeClock(compiled, written, switch)
        monkeypatch.setattr(speed_trials, "time", fake)
        monkeypatch.setattr(speed_trials.Trials, "call", marks_written_calls(fake))
        CALLS_AS_WRITTEN.clear()
        return fake
    return install


CALLS_AS_WRITTEN = []
#: Calls of a new function until its trial can decide: the compiling call, the warm call,
#: then MIN_PAIRS pairs of runs.
DECIDED = 1 + speed_trials.WARM + 2 * speed_trials.RUN * speed_trials.MIN_PAIRS


def scale_in_place(a, k):
    """Mutates its input: a call that ran twice, or not at all, shows in ``a``."""
    a *= k
    return a.sum()


def marks_written_calls(clock_):
    """Wrap the trial's two paths so the fake clock knows which one ran."""
    original = speed_trials.Trials.call

    def call(self, entry, run_compiled, run_written):
        def compiled():
            clock_.path = "compiled"
            return run_compiled()

        def written():
            clock_.path = "written"
            CALLS_AS_WRITTEN.append(1)
            return run_written()
        return original(self, entry, compiled, written)
    return call


@pytest.mark.inductor
def test_numpy_faster_retires_the_entry_and_every_call_stays_exact(clock):
    clock(compiled=100e-6, written=50e-6)
    jitted = npcompile.jit(scale_in_place)
    a, expected = np.arange(4.0), np.arange(4.0)
    for _ in range(DECIDED + 2):
        assert_same(scale_in_place(expected, 1.5), jitted(a, 1.5))
        np.testing.assert_array_equal(a, expected)     # mutated once per call, as written
    assert len(jitted.speed_decisions) == 1 and "runs as written" in jitted.speed_decisions[0]
    assert jitted.trials is None                       # the hot path checks nothing more
    assert len(CALLS_AS_WRITTEN) == speed_trials.MIN_PAIRS * speed_trials.RUN
    # after the trial, calls run as written through the retired entry's guards: no compile
    before = jitted.compile_count
    assert_same(scale_in_place(expected, 1.5), jitted(a, 1.5))
    np.testing.assert_array_equal(a, expected)
    assert jitted.compile_count == before


@pytest.mark.inductor
def test_a_call_the_retired_entry_rejects_compiles_its_own_entry(clock):
    fake = clock(compiled=100e-6, written=50e-6)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(DECIDED):
        jitted(np.arange(4.0), 2.0)
    assert jitted.speed_decisions
    fake.cost = {"compiled": 10e-6, "written": 50e-6}
    b = np.arange(6, dtype=np.int64).reshape(2, 3)      # another dtype and rank: a new entry
    for _ in range(10):
        expected = b.copy()
        assert_same(scale_in_place(expected, 3), jitted(b, 3))
        np.testing.assert_array_equal(b, expected)
    assert len(jitted.speed_decisions) == 1              # the new entry stayed compiled
    assert len(jitted.entries) == 2 and jitted.entries[1].fast is not None


@pytest.mark.inductor
def test_compiled_faster_keeps_the_entry_after_two_calls_as_written(clock):
    clock(compiled=10e-6, written=500e-6)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(14):
        jitted(np.arange(4.0), 2.0)
    assert jitted.speed_decisions == [] and jitted.trials is None
    # CLEARLY_SLOWER ended the trial once its second run as written was complete
    assert len(CALLS_AS_WRITTEN) == speed_trials.CLEARLY_SLOWER_RUNS * speed_trials.RUN


@pytest.mark.inductor
def test_a_tie_stays_compiled(clock):
    clock(compiled=100e-6, written=98e-6)       # within MARGIN: noise, not a loss
    jitted = npcompile.jit(scale_in_place)
    for _ in range(DECIDED):
        jitted(np.arange(4.0), 2.0)
    assert jitted.speed_decisions == [] and jitted.entries[0].fast is not None and jitted.trials is None


@pytest.mark.inductor
def test_long_compiled_calls_get_no_trial(clock):
    clock(compiled=2 * speed_trials.MAX_COMPILED_SECONDS, written=1e-6)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(6):
        jitted(np.arange(4.0), 2.0)
    assert CALLS_AS_WRITTEN == [] and jitted.speed_decisions == []


def keyword_only(a, *, k=2.0):
    return a * k


@pytest.mark.inductor
def test_a_retired_function_with_keyword_only_parameters(clock):
    clock(compiled=100e-6, written=50e-6)
    jitted = npcompile.jit(keyword_only)
    for k in (3.0,) * DECIDED:
        assert_same(keyword_only(np.arange(3.0), k=k), jitted(np.arange(3.0), k=k))
    assert jitted.speed_decisions
    assert_same(keyword_only(np.arange(3.0)), jitted(np.arange(3.0)))


@pytest.mark.parametrize("options", [dict(backend="eager"), dict(fullgraph=True),
                                     pytest.param(dict(setting_off=True), marks=pytest.mark.inductor)])
def test_no_trial_for_debug_backends_fullgraph_or_when_switched_off(clock, monkeypatch, options):
    clock(compiled=100e-6, written=1e-6)
    if options.pop("setting_off", False):
        monkeypatch.setattr(config, "speed_trials", False)
    jitted = npcompile.jit(scale_in_place, **options)
    for _ in range(8):
        jitted(np.arange(4.0), 2.0)
    assert CALLS_AS_WRITTEN == [] and jitted.trials is None


@pytest.mark.inductor
def test_errors_during_a_trial_are_numpys(clock):
    clock(compiled=100e-6, written=50e-6)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(10):
        jitted(np.arange(4.0), 2.0)
        with pytest.raises(TypeError):
            jitted(np.arange(4.0), "x")


@pytest.mark.inductor
def test_pairs_alternate_which_call_comes_first(clock):
    fake = clock(compiled=100e-6, written=50e-6)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(DECIDED + 2):
        jitted(np.arange(4.0), 2.0)
    warm_call = ["compiled"]          # untimed, but the fake clock charges it too
    run = speed_trials.RUN
    assert fake.order[:DECIDED - 1] == warm_call + (["compiled"] * run + ["written"] * run + ["written"] * run
                                                + ["compiled"] * run + ["compiled"] * run + ["written"] * run)
    assert jitted.speed_decisions


@pytest.mark.inductor
def test_a_lucky_compiled_call_does_not_keep_a_losing_entry(clock):
    """Best-of-three on each side kept this entry compiled (60 us against 90): the pairs'
    ratios (1.125, 0.9, 0.9, ...) disagree, so the trial goes on to MAX_PAIRS and
    retires it on their median."""
    us = 1e-6
    warm_call = switch_call = 100 * us
    fake = clock(compiled=[warm_call, switch_call, 60 * us, 100 * us], written=[90 * us])
    jitted = npcompile.jit(scale_in_place)
    a, expected = np.arange(4.0), np.arange(4.0)
    for _ in range(2 * speed_trials.RUN * speed_trials.MAX_PAIRS + 4):
        assert_same(scale_in_place(expected, 1.5), jitted(a, 1.5))
        np.testing.assert_array_equal(a, expected)
    assert fake.order.count("written") == speed_trials.MAX_PAIRS * speed_trials.RUN
    assert len(jitted.speed_decisions) == 1 and "median of 9 pairs" in jitted.speed_decisions[0]


@pytest.mark.inductor
def test_mixed_ratios_around_a_tie_stay_compiled(clock):
    us = 1e-6
    per_pair = [90, 104, 99, 102, 93, 101, 97, 100, 105]      # each run's counted calls, us
    written = [t * us for ratio in per_pair for t in [100] + [ratio] * (speed_trials.RUN - 1)]
    fake = clock(compiled=[100 * us], written=written)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(2 * speed_trials.RUN * speed_trials.MAX_PAIRS + 4):
        jitted(np.arange(4.0), 2.0)
    assert fake.order.count("written") == speed_trials.MAX_PAIRS * speed_trials.RUN
    assert jitted.speed_decisions == [] and jitted.trials is None and jitted.entries[0].fast is not None


@pytest.fixture
def threads_back():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def exact_calls(jitted, a, expected, n):
    """``n`` calls of the jitted ``scale_in_place``, each NumPy's answer and mutating ``a``
    once, as ``expected`` is by the function as written."""
    for _ in range(n):
        assert_same(scale_in_place(expected, 1.5), jitted(a, 1.5))
        np.testing.assert_array_equal(a, expected)


@pytest.fixture(autouse=True)
def quiet_machine(monkeypatch):
    """No other process keeps a core busy (the tests that need busy cores set their own
    monitor): a verdict's condition otherwise follows this machine's load (pytest's other
    worker), and a trial would open whenever it changed."""
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 1, cpus=8, read_ours=lambda: 1))


@pytest.mark.inductor
def test_another_thread_count_tries_again(clock, threads_back):
    """A verdict holds for the thread count it was measured under: compiled code faster on
    this count, NumPy faster on one thread (a product chain's BLAS threads, say). Back on
    a count decided before, its verdict returns without a trial."""
    torch.set_num_threads(2)
    fake = clock(compiled=10e-6, written=500e-6)
    jitted = npcompile.jit(scale_in_place)
    a, expected = np.arange(4.0), np.arange(4.0)

    def calls(n):
        exact_calls(jitted, a, expected, n)

    calls(11)     # the compiling call, the warm one, a compiled run, two runs as written
    assert jitted.speed_decisions == [] and jitted.trials is None
    torch.set_num_threads(1)
    fake.cost = {"compiled": 100e-6, "written": 50e-6}
    calls(DECIDED)
    assert len(jitted.speed_decisions) == 1 and jitted.trials is None
    before = jitted.compile_count
    torch.set_num_threads(2)
    fake.cost = {"compiled": 10e-6, "written": 500e-6}
    CALLS_AS_WRITTEN.clear()
    calls(10)
    assert jitted.speed_decisions == [] and CALLS_AS_WRITTEN == [] and jitted.trials is None   # compiled again
    assert jitted.compile_count == before                                # no compile to get there
    torch.set_num_threads(1)
    calls(3)
    assert len(jitted.speed_decisions) == 1 and CALLS_AS_WRITTEN == [] and jitted.trials is None


def _busy(monkeypatch, others):
    """A machine of two cores where ``others`` tasks of other processes are runnable."""
    monkeypatch.setattr(threads, "contention",
                        threads.ContentionMonitor(ttl=0, read=lambda: 1 + others, cpus=2, read_ours=lambda: 1))


@pytest.mark.inductor
def test_busy_cores_try_again_and_each_condition_keeps_its_verdict(clock, threads_back, monkeypatch):
    """The small mlp_forward: NumPy faster on a quiet machine (45 us against 68 compiled),
    its 2-thread products slower beside busy processes (155-15,600 us against 123-130 us
    compiled). A verdict holds for the busy cores it was measured under; when the load
    comes back, so does its verdict, without a trial."""
    torch.set_num_threads(2)
    _busy(monkeypatch, 0)
    monkeypatch.setattr(jit_function, "LOAD_EVERY_CALLS", 1)      # the load read on every call
    fake = clock(compiled=68e-6, written=45e-6)
    jitted = npcompile.jit(scale_in_place)
    a, expected = np.arange(4.0), np.arange(4.0)

    def calls(n):
        exact_calls(jitted, a, expected, n)

    calls(DECIDED)
    assert len(jitted.speed_decisions) == 1 and jitted.trials is None and jitted.settled
    _busy(monkeypatch, 2)
    fake.cost = {"compiled": 125e-6, "written": 900e-6}
    CALLS_AS_WRITTEN.clear()
    calls(1)
    assert jitted.speed_decisions == [] and not jitted.settled      # on trial again, compiled back
    while not jitted.settled and len(fake.order) < 5000:
        calls(1)
    assert jitted.speed_decisions == [] and jitted.trials is None    # compiled under busy cores
    # beside busy processes each run's counted calls last BUSY_RUN_SECONDS, not RUN calls:
    # two runs as written (clearly slower) of 1 + 56 calls of 900 us
    per_run = 1 + math.ceil(speed_trials.BUSY_RUN_SECONDS / 900e-6)
    assert len(CALLS_AS_WRITTEN) == 2 * per_run
    CALLS_AS_WRITTEN.clear()
    for others, decisions in ((0, 1), (2, 0), (3, 0), (0, 1)):      # three busy tasks: every core busy, as two
        _busy(monkeypatch, others)
        calls(3)
        assert len(jitted.speed_decisions) == decisions and jitted.trials is None
    assert CALLS_AS_WRITTEN == []                                   # no trial: each verdict came back
    _busy(monkeypatch, 1)                                           # one core busy: a condition of its own
    calls(1)
    assert not jitted.settled and jitted.speed_decisions == []
    while not jitted.settled and len(fake.order) < 10000:
        calls(1)
    assert jitted.speed_decisions == [] and len(CALLS_AS_WRITTEN) == 2 * per_run
    CALLS_AS_WRITTEN.clear()
    torch.set_num_threads(1)                                        # one thread: the load is not read
    _busy(monkeypatch, 2)
    fake.cost = {"compiled": 100e-6, "written": 50e-6}
    calls(DECIDED)
    assert len(jitted.speed_decisions) == 1 and len(CALLS_AS_WRITTEN) == speed_trials.MIN_PAIRS * speed_trials.RUN


def stretches(fast, slow, period=0.45, slow_share=1 / 3):
    """A call's cost by the time it starts: ``slow`` in the last ``slow_share`` of every
    ``period`` seconds, else ``fast`` (NumPy's 2-thread OpenBLAS beside busy processes)."""
    return lambda now: slow if now % period >= period * (1 - slow_share) else fast


@pytest.fixture
def pairs_decided_on(monkeypatch):
    """The number of complete pairs of each trial when it closed, in order."""
    counts = []
    close = speed_trials.Trials._close

    def spy(self, entry, retired):
        counts.append(len(self.pending[entry].ratios()))
        return close(self, entry, retired)
    monkeypatch.setattr(speed_trials.Trials, "_close", spy)
    return counts


def settle_busy(jitted, limit=50000):
    """Calls until the trial has decided, each NumPy's answer and mutating its input once."""
    a, expected = np.arange(4.0), np.arange(4.0)
    calls = 0
    while (calls < 2 or not jitted.settled) and calls < limit:
        assert_same(scale_in_place(expected, -1.0), jitted(a, -1.0))
        np.testing.assert_array_equal(a, expected)
        calls += 1
    assert jitted.settled


@pytest.mark.inductor
def test_busy_stretches_of_waiting_numpy_keep_the_compiled_code(clock, threads_back, monkeypatch, pairs_decided_on):
    """The small mlp_forward beside two busy processes: runs as written of 45-60 us calls,
    and one in three of 15,600 us calls (every call waiting at a barrier for a descheduled
    BLAS thread); compiled 67 us throughout. Here eight pairs of nine favour NumPy (0.70),
    and so did the median pair: it retired the entry, and each slow stretch then cost the
    user's calls 230x."""
    torch.set_num_threads(2)
    _busy(monkeypatch, 2)
    clock(compiled=67e-6, written=stretches(47e-6, 15.6e-3))
    jitted = npcompile.jit(scale_in_place)
    settle_busy(jitted)
    assert jitted.speed_decisions == [] and jitted.entries[0].fast is not None
    assert pairs_decided_on == [speed_trials.MAX_PAIRS]    # a busy trial decides on all its pairs


@pytest.mark.inductor
def test_busy_numpy_faster_throughout_is_retired_on_the_total(clock, threads_back, monkeypatch, pairs_decided_on):
    torch.set_num_threads(2)
    _busy(monkeypatch, 2)
    clock(compiled=67e-6, written=stretches(47e-6, 60e-6))
    jitted = npcompile.jit(scale_in_place)
    settle_busy(jitted)
    (reason,) = jitted.speed_decisions
    assert "0.74 times the compiled code's time (in total over 9 pairs of runs beside busy processes" in reason
    assert pairs_decided_on == [speed_trials.MAX_PAIRS]    # not three pairs alike: a stretch lasts longer


@pytest.mark.inductor
def test_a_busy_trial_decides_once_a_run_not_once_a_call(clock, threads_back, monkeypatch, pairs_decided_on):
    """Busy runs last 50 ms: ~750 calls of 67 us each. Medians over every call so far, taken
    on every call, made each call of a 70 us softmax cost 2.2 ms (the suite: 0.04x)."""
    import statistics

    medians = []
    counting = type("Statistics", (), {"median": staticmethod(lambda v: medians.append(1) or statistics.median(v))})
    monkeypatch.setattr(speed_trials, "statistics", counting)
    torch.set_num_threads(2)
    _busy(monkeypatch, 2)
    clock(compiled=67e-6, written=60e-6)
    jitted = npcompile.jit(scale_in_place)
    settle_busy(jitted)
    runs = 2 * speed_trials.MAX_PAIRS
    assert pairs_decided_on == [speed_trials.MAX_PAIRS] and len(medians) <= 4 * runs * runs


def test_the_total_ratio_weighs_each_run_by_its_median_call():
    trial = speed_trials._Trial(busy=True)
    # pair 1: compiled 67 us calls, then NumPy's 47 us (one odd 5 ms call left to the median);
    # pair 2: NumPy first, every call 15.6 ms, then compiled
    trial.runs = [[False, 1.0] + [67e-6] * 5, [True, 1.0] + [47e-6] * 4 + [5e-3],
                  [True, 1.0] + [15.6e-3] * 4, [False, 1.0] + [67e-6] * 5]
    assert trial.ratios() == [pytest.approx(47 / 67), pytest.approx(15600 / 67)]
    assert trial.total_ratio() == pytest.approx((47 + 15600) / (2 * 67))


@pytest.mark.inductor
def test_the_load_is_read_every_few_calls_and_a_thread_count_at_once(clock, threads_back, monkeypatch):
    torch.set_num_threads(2)
    _busy(monkeypatch, 0)
    clock(compiled=68e-6, written=45e-6)
    jitted = npcompile.jit(scale_in_place)
    a = np.arange(4.0)
    for _ in range(DECIDED):
        jitted(a, 1.0)
    assert jitted.settled and len(jitted.speed_decisions) == 1
    _busy(monkeypatch, 2)
    calls = 0
    while jitted.settled:
        jitted(a, 1.0)
        calls += 1
    assert 1 <= calls <= jit_function.LOAD_EVERY_CALLS and jitted.speed_decisions == []
    while not jitted.settled and calls < 20000:    # runs of BUSY_RUN_SECONDS each
        jitted(a, 1.0)
        calls += 1
    # NumPy faster here too: runs of equal time compare their calls' means, not their sums
    assert jitted.settled and len(jitted.speed_decisions) == 1
    torch.set_num_threads(1)
    jitted(a, 1.0)
    assert not jitted.settled       # the first call under another count


def test_the_condition_reads_the_load_only_for_more_than_one_thread(threads_back, monkeypatch):
    torch.set_num_threads(1)
    monkeypatch.setattr(threads, "contention", None)          # not read
    one = speed_trials.condition()
    torch.set_num_threads(2)
    _busy(monkeypatch, 0)
    quiet = speed_trials.condition()
    _busy(monkeypatch, 1)
    half = speed_trials.condition()
    _busy(monkeypatch, 2)
    full = speed_trials.condition()
    _busy(monkeypatch, 5)
    assert speed_trials.condition() == full and len({one, quiet, half, full}) == 4
    assert [speed_trials.busy(c) for c in (one, quiet, half, full)] == [False, False, True, True]
    assert threads.contention.free_cores() == 1 and threads.contention.idle_cores() == 0


@pytest.mark.inductor
@pytest.mark.parametrize("switch_us", [0, 150, 400])
def test_the_cost_of_switching_ways_is_left_out(clock, switch_us):
    """The first call of each run pays for the other way's calls before it (their thread
    pools still spinning, their data in the caches), which steady calls never meet: NumPy
    at 80 us a call against 100 compiled is retired whatever a switch costs. Single calls
    alternating paid it on every call: at 150 us a switch, 230 against 250 kept it."""
    us = 1e-6
    fake = clock(compiled=100 * us, written=80 * us, switch=switch_us * us)
    jitted = npcompile.jit(scale_in_place)
    a, expected = np.arange(4.0), np.arange(4.0)
    for _ in range(DECIDED + 2):
        assert_same(scale_in_place(expected, 1.5), jitted(a, 1.5))
        np.testing.assert_array_equal(a, expected)
    assert len(jitted.speed_decisions) == 1 and "0.80 times" in jitted.speed_decisions[0]
    assert fake.order.count("written") == speed_trials.MIN_PAIRS * speed_trials.RUN


@pytest.mark.inductor
def test_a_slow_switch_call_as_written_does_not_end_the_trial(clock):
    """CLEARLY_SLOWER reads counted calls only: a switch that makes the first call as
    written cost 3x the compiled one does not keep a losing entry compiled."""
    us = 1e-6
    clock(compiled=100 * us, written=80 * us, switch=220 * us)
    jitted = npcompile.jit(scale_in_place)
    for _ in range(DECIDED):
        jitted(np.arange(4.0), 2.0)
    assert len(jitted.speed_decisions) == 1 and jitted.trials is None


@pytest.mark.inductor
def test_one_lucky_compiled_call_does_not_end_the_trial_for_the_compiled_path(clock):
    """CLEARLY_SLOWER compares medians: compiled calls of 1 ms with one lucky 10 us call
    among them (busy cores) against 50 us calls as written is a loss, not a clear win."""
    us = 1e-6
    warm_call = switch_call = 1000 * us
    clock(compiled=[warm_call, switch_call, 10 * us, 1000 * us], written=[50 * us])
    jitted = npcompile.jit(scale_in_place)
    for _ in range(DECIDED):
        jitted(np.arange(4.0), 2.0)
    assert len(jitted.speed_decisions) == 1 and jitted.trials is None


def add_rows(a, b):
    return a + b


@pytest.mark.inductor
def test_a_retired_entry_checks_only_what_routes_calls(clock):
    """A call run as written needs the checks that tell calls apart by what they compute
    (types, dtypes, sizes, values; ``trace/guards``), not those that made the graph right
    (strides, aliasing, the error state): those would cost every such call a microsecond.
    Calls of another layout or with one array passed twice then run as written, exact."""
    clock(compiled=100e-6, written=50e-6)
    jitted = npcompile.jit(add_rows)
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    for _ in range(DECIDED):
        jitted(a, b)
    assert jitted.speed_decisions
    entry = jitted.entries[0]
    full, routing = entry.guard.source, speed_trials.routing_guard(entry).source
    assert "strides" in full and " is not " in full
    assert "strides" not in routing and " is not " not in routing
    assert ".shape == (2, 3)" in routing and ".dtype ==" in routing and "type(L[0])" in routing
    before = jitted.compile_count
    fortran, reversed_rows = np.asfortranarray(a), a[::-1]
    for x, y in [(fortran, b), (a, a), (reversed_rows, fortran)]:
        assert_same(add_rows(x, y), jitted(x, y))
    assert jitted.compile_count == before                   # all three ran as written
    assert_same(add_rows(np.ones(4), np.ones(4)), jitted(np.ones(4), np.ones(4)))   # another size:
    assert jitted.compile_count == before + 1               # the routing guard sends it on
    assert_same(add_rows(a.astype(np.float32), b), jitted(a.astype(np.float32), b))
    assert jitted.compile_count == before + 2


def test_routing_checks_keep_their_order_and_the_identities():
    """An identity check stays in a retired entry's guard: the checks after it may read
    the attributes of the object it names (a changed global's properties must not run)."""
    from npcompile.trace.guards import Guards
    from npcompile.trace.sources import Source

    guards = Guards()
    guards.identity(Source("G['cfg']", "cfg"), object())
    guards.add("G['cfg'].scale == 2", "cfg.scale == 2", routing=True)
    guards.add("L[0].strides == (8,)", "L[0] strides")
    guards.fp_errors_traceable(True)
    assert len(guards.checks) == 4
    assert guards.expression(routing_only=True).split(" and\n            ") == ["G['cfg'] is k0", "G['cfg'].scale == 2"]
    assert guards.compile({"cfg": 1}, None, routing_only=True)([]) is False


@pytest.mark.inductor
def test_one_disturbed_run_as_written_does_not_end_the_trial(clock):
    """One run as written that met another library's spinning threads (milliseconds for a
    48 us call) must not keep a losing compiled entry for good: CLEARLY_SLOWER needs two
    complete runs as written, and the median ratio decides the rest."""
    clock(compiled=100e-6, written=[50e-6, 5e-3, 5e-3, 50e-6])
    jitted = npcompile.jit(scale_in_place)
    a, expected = np.arange(4.0), np.arange(4.0)
    for _ in range(DECIDED + 2 * speed_trials.RUN * (speed_trials.MAX_PAIRS - speed_trials.MIN_PAIRS)):
        assert_same(scale_in_place(expected, 1.5), jitted(a, 1.5))
    assert len(jitted.speed_decisions) == 1 and "runs as written" in jitted.speed_decisions[0]


class _Entry:
    fast, label = object(), "graph #1"


def test_calls_as_written_in_a_trial_keep_numpys_blas_count(monkeypatch):
    """The trial times the way a retired entry runs: NumPy's code with NumPy's BLAS count,
    busy cores or not."""
    from npcompile import numpy_blas, threads

    before = numpy_blas.threads()
    numpy_blas.set_threads(2)
    monkeypatch.setattr(threads, "contention",
                        threads.ContentionMonitor(ttl=0, read=lambda: 5, read_ours=lambda: 1, cpus=2))
    seen = []
    trials = speed_trials.Trials(scale_in_place, True, [])
    entry = _Entry()
    trials.pending[entry] = speed_trials._Trial()
    trials.pending[entry].warm_left = 0
    trials.pending[entry].runs = [[False, 1e-4, 1e-4, 1e-4]]      # the compiled run is done
    try:
        trials.call(entry, lambda: pytest.fail("compiled"), lambda: seen.append(numpy_blas.threads()))
        assert seen == [2] and numpy_blas.threads() == 2
    finally:
        numpy_blas.set_threads(before)


def test_a_pair_compares_the_median_calls_of_its_runs():
    """Busy runs last 50 ms, so a fast way makes more calls in its run: their sums are
    equal (every ratio was 1.0), and one call descheduled for 85 ms decided a pair by its
    mean (matrix_chain beside a busy process: 0.43 where the medians said 1.2)."""
    def recorded(*runs):
        trial = speed_trials._Trial(busy=True)        # runs of BUSY_RUN_SECONDS (50 ms)
        for written, calls in runs:
            completes = [trial.record(written, seconds) for seconds in calls]
            assert completes[-1] and not any(completes[:-1])    # each run complete at its last call
        return trial

    compiled = [0.002] + [0.001] * 30 + [0.085]          # first call not counted
    written = [0.002] + [0.0012] * 42
    assert recorded((False, compiled), (True, written)).ratios() == [pytest.approx(1.2)]
    trial = recorded((False, [0.002] + [0.001] * 50), (True, [0.002] + [0.0005] * 100))
    assert trial.ratios() == [pytest.approx(0.5)]
    for _ in range(100):                                  # 49.5 ms counted after 99: not yet
        assert not trial.record(False, 0.0005) and trial.open
    assert trial.record(False, 0.0005) and trial.ratios() == [pytest.approx(0.5)]


@pytest.mark.inductor
@given(st.lists(st.tuples(st.sampled_from([1, 2]), st.integers(0, 2), st.booleans(), st.integers(1, 40)),
                min_size=1, max_size=6), st.sampled_from([1, 32]))
def test_calls_stay_exact_while_threads_and_load_change(steps, load_every):
    """Any order of thread counts, busy cores and which way is faster, with any number of
    calls under each: every call is the function as written's (its answer, one mutation of
    its input), and whatever the trials decided, a settled function's verdict list names
    at most its one entry."""
    before = torch.get_num_threads()
    real_time, real_call, real_monitor = speed_trials.time, speed_trials.Trials.call, threads.contention
    real_every, jit_function.LOAD_EVERY_CALLS = jit_function.LOAD_EVERY_CALLS, load_every
    fake = FakeClock(compiled=68e-6, written=45e-6)
    speed_trials.time = fake
    speed_trials.Trials.call = marks_written_calls(fake)
    try:
        jitted = npcompile.jit(scale_in_place)
        a, expected = np.arange(4.0), np.arange(4.0)
        for count, others, numpy_faster, n in steps:
            torch.set_num_threads(count)
            threads.contention = threads.ContentionMonitor(ttl=0, read=lambda o=others: 1 + o, cpus=2,
                                                           read_ours=lambda: 1)
            fake.cost = {"compiled": 68e-6, "written": 45e-6 if numpy_faster else 400e-6}
            exact_calls(jitted, a, expected, n)
        assert len(jitted.speed_decisions) <= 1
        if jitted.trials is None:
            assert len(jitted.speed_decisions) == int(jitted.entries[0].fast is getattr(jitted.entries[0],
                                                                                         "written_fast", None))
    finally:
        torch.set_num_threads(before)
        speed_trials.time, speed_trials.Trials.call, threads.contention = real_time, real_call, real_monitor
        jit_function.LOAD_EVERY_CALLS = real_every
