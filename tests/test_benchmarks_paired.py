"""benchmarks/paired.py on synthetic timings: a fake clock that each function advances by
the seconds a script gives it (no wall clock read, nothing timed for real)."""
import dataclasses
import math

import pytest

from benchmarks import paired, suite


@dataclasses.dataclass(frozen=True)
class Timing:
    repeats: int = 5
    min_seconds: float = 1.0
    max_rounds: int = 15
    confidence: float = 0.95


class Script:
    """Scripted rounds: ``costs[name]`` lists the per-call seconds of each of the function's
    rounds (the last repeats). ``paired.timed_round`` reads the script instead of a clock
    (calibration says one call a round): nothing is timed for real."""

    def __init__(self, costs):
        self.costs, self.order = costs, []
        self.done = dict.fromkeys(costs, 0)

    def function(self, name):
        def fn():
            raise AssertionError("a scripted round calls nothing")
        fn.script_name = name
        return fn

    def timed_round(self, fn, args, clock, seconds, batch):
        name = fn.script_name
        self.order.append(name)
        cost = self.costs[name]
        self.done[name] += 1
        return cost[min(self.done[name] - 1, len(cost) - 1)]

    def run(self, timing=Timing(), monkeypatch=None):
        functions = {name: self.function(name) for name in self.costs}
        monkeypatch.setattr(paired, "timed_round", self.timed_round)
        monkeypatch.setattr(paired, "calls_per_round", lambda functions, *_: dict.fromkeys(functions, 1))
        return paired.paired_rounds(functions, (), timing, clock=None)


def test_one_lucky_numpy_round_does_not_decide_the_speedup(monkeypatch):
    # both sides run the same code (0.01 s a call); one round NumPy got the machine alone
    script = Script({"numpy": [0.004, 0.01, 0.01, 0.01], "npcompile": [0.01]})
    result = script.run(monkeypatch=monkeypatch)
    assert result["speedup"]["npcompile"] == pytest.approx(1.0)
    assert result["seconds"]["numpy"] == pytest.approx(0.01)
    assert result["rounds"] == 9     # five rounds' interval held the bar (0.4x-1.0x); nine decide it


def test_load_that_hits_both_sides_of_a_round_leaves_its_ratio(monkeypatch):
    # rounds 1 and 3 were slowed 3x for both; npcompile is 2x faster throughout
    script = Script({"numpy": [0.06, 0.02, 0.06, 0.02], "npcompile": [0.03, 0.01, 0.03, 0.01]})
    result = script.run(monkeypatch=monkeypatch)
    assert result["speedup"]["npcompile"] == pytest.approx(2.0)
    assert result["interval"]["npcompile"] == [pytest.approx(2.0)] * 2
    assert result["rounds"] == 5                             # decided: no extra rounds


def test_rounds_turn_the_order_through_rotations_and_reverses(monkeypatch):
    script = Script({"numpy": [0.5], "a": [0.5], "b": [0.5]})
    script.run(Timing(repeats=7, max_rounds=7), monkeypatch=monkeypatch)
    timed = script.order
    assert len(timed) == 7 * 3
    orders = ["".join(name[0] for name in timed[i:i + 3]) for i in range(0, 21, 3)]
    assert orders == ["nab", "abn", "bna", "ban", "anb", "nba", "nab"]
    # no function always follows the same one: each of the others precedes it somewhere
    for name in ("numpy", "a", "b"):
        before = {timed[i - 1] for i in range(1, len(timed)) if timed[i] == name} - {name}
        assert before == {"numpy", "a", "b"} - {name}


class _Calls:
    """Functions that advance a fake clock by the seconds each of their calls takes."""

    def __init__(self):
        self.now, self.reads, self.log = 0.0, 0, []

    def clock(self):
        self.reads += 1
        return self.now

    def function(self, name, seconds):
        """``seconds(i)``: the i-th call's seconds (0-based, over all the function's calls)."""
        calls = [0]

        def fn():
            self.log.append(name)
            self.now += seconds(calls[0])
            calls[0] += 1
        return fn


def test_a_timed_round_lasts_its_seconds_and_leaves_the_untimed_call_out():
    fake = _Calls()
    fn = fake.function("f", lambda i: 5.0 if i == 0 else 1 / 64)    # the untimed first call: slow
    per_call = paired.timed_round(fn, (), fake.clock, 0.99, batch=4)
    assert per_call == 1 / 64
    assert fake.now == 5.0 + 1.0                  # 16 batches of 4: the first to pass 0.99 s
    assert fake.reads == 1 + 16


def test_rounds_last_as_long_for_a_function_whose_calibration_was_slow(monkeypatch):
    # Beside busy processes a calibration call took 250x its steady time; with calls per
    # round fixed from it, its rounds lasted 1/250 of the other's (and met a machine not
    # yet taken back by the busy processes). Rounds now last the clock's min_seconds.
    fake = _Calls()
    slow_start = fake.function("numpy", lambda i: 2.5 if i < 2 else 0.01)
    steady = fake.function("twin", lambda i: 0.01)
    lengths = {"numpy": [], "twin": []}
    real_round = paired.timed_round

    def measured(fn, args, clock, seconds, batch):
        before = fake.now
        per_call = real_round(fn, args, clock, seconds, batch)
        lengths[fake.log[-1]].append(fake.now - before - 0.01)    # less the untimed call
        return per_call
    monkeypatch.setattr(paired, "timed_round", measured)
    result = paired.paired_rounds({"numpy": slow_start, "twin": steady}, (), Timing(max_rounds=5), fake.clock)
    assert result["speedup"]["twin"] == pytest.approx(1.0)
    for name, values in lengths.items():
        assert len(values) == 5 and all(1.0 <= v < 1.1 for v in values), (name, values)


def test_an_undecided_ratio_stops_at_max_rounds(monkeypatch):
    # npcompile alternates between 0.8x and 1.0x: its interval always holds the bar
    script = Script({"numpy": [0.01], "npcompile": [0.01, 0.0125] * 20})
    result = script.run(Timing(max_rounds=9), monkeypatch=monkeypatch)
    assert result["rounds"] == 9
    low, high = result["interval"]["npcompile"]
    assert low == pytest.approx(0.8) and high == pytest.approx(1.0)


@pytest.mark.parametrize("n, k", [(1, 1), (5, 1), (6, 1), (9, 2), (10, 2), (17, 5), (20, 6)])
def test_median_interval_takes_the_order_statistics_binomial_coverage_allows(n, k):
    values = list(range(1, n + 1))[::-1]
    assert paired.median_interval(values, 0.95) == (k, n + 1 - k)


def test_the_suite_reports_the_paired_median_not_the_ratio_of_times():
    from benchmarks import suite
    from benchmarks.conditions import standard_conditions
    record = {"name": "retired", "npcompile": {"status": "ok"}, "load": {"contended": 4.0},
              "conditions": {"contended": {"numpy": 1.0, "npcompile": 2.0}},
              "speedups": {"contended": {"npcompile": 0.98}}}
    assert suite.condition_speedups([record], "npcompile", "contended") == {"retired": 0.98}
    lines = suite.condition_table([record], standard_conditions("contended")).splitlines()
    assert lines[2].split() == ["retired", "1.000", "2.000", "0.98"]
    assert suite.condition_lines([record], standard_conditions("contended"))[0].endswith(": none")


def test_run_workload_records_the_paired_rounds_per_condition():
    import npcompile
    from benchmarks import suite
    from benchmarks.conditions import standard_conditions
    from benchmarks.workloads import by_name
    compilers = {"npcompile": lambda fn: npcompile.jit(fn, backend="eager")}
    record = suite.run_workload(by_name(["softmax"])[0], "tiny", compilers, suite.QUICK_TIMING,
                                log=lambda m: None, conditions=standard_conditions("default,one_thread"))
    assert record["rounds"] == {"default": 2, "one_thread": 2}
    for condition in ("default", "one_thread"):
        low, high = record["intervals"][condition]["npcompile"]
        assert low <= record["speedups"][condition]["npcompile"] <= high
    assert record["npcompile"]["speedup"] == record["speedups"]["default"]["npcompile"]
    assert set(record["as_written"]) == {"default", "one_thread"}        # verdicts hold per condition
    assert record["npcompile"]["as_written"] == record["as_written"]["default"]
    table = suite.condition_table([record], standard_conditions("default,one_thread"))
    assert table.splitlines()[-1] == ("npcompile ran as written (speed trial under that condition): "
                                      "default none; one_thread none")


class _Settling:
    """A function whose trials decide after ``left`` calls, on a clock each call moves."""

    def __init__(self, left, clock, seconds_per_call):
        self.left, self.clock, self.step, self.calls = left, clock, seconds_per_call, 0

    @property
    def settled(self):
        return self.left <= 0

    def __call__(self):
        self.calls += 1
        self.left -= 1
        self.clock.now += self.step


class _Clock:
    now = 0.0

    def __call__(self):
        return self.now


def test_settle_calls_until_the_trials_decide():
    clock = _Clock()
    fn = _Settling(50, clock, 0.01)
    assert suite.settle(fn, (), clock) == 50 and fn.settled


def test_settle_lasts_the_least_time_before_reading_settled():
    clock = _Clock()
    fn = _Settling(0, clock, 1 / 64)          # settled from the start: still 0.2 s of calls
    assert suite.settle(fn, (), clock) == math.ceil(suite.SETTLE_MIN_SECONDS * 64)
    clock = _Clock()
    plain = lambda: setattr(clock, "now", clock.now + 0.125)   # noqa: E731 - no ``settled``: NumPy, torch.compile
    assert suite.settle(plain, (), clock) == 2


def test_settle_gives_up_after_its_limit():
    clock = _Clock()
    assert suite.settle(_Settling(10 ** 6, clock, 1 / 1024), (), clock) == suite.SETTLE_MAX_SECONDS * 1024
    clock = _Clock()
    assert suite.settle(_Settling(10 ** 6, clock, 1.0), (), clock) == suite.SETTLE_MAX_SECONDS
