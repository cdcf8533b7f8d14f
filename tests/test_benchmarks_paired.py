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
    """A fake clock, and functions that advance it: ``costs[name]`` lists the seconds a
    call takes in each of the function's measurements (the two calibration measurements
    first, then one per round; the last repeats). A measurement starts at a clock reading."""

    def __init__(self, costs):
        self.now, self.costs, self.order = 0.0, costs, []
        self.measurement = dict.fromkeys(costs, -1)
        self.reads, self.starting = 0, False

    def clock(self):
        self.starting = self.reads % 2 == 0       # readings pair up: start, end
        self.reads += 1
        return self.now

    def function(self, name):
        def fn():
            if self.starting:
                self.measurement[name] += 1
                self.starting = False
            self.order.append(name)
            cost = self.costs[name]
            self.now += cost[min(self.measurement[name], len(cost) - 1)]
        return fn

    def run(self, timing=Timing()):
        functions = {name: self.function(name) for name in self.costs}
        return paired.paired_rounds(functions, (), timing, self.clock)


def test_one_lucky_numpy_round_does_not_decide_the_speedup():
    # both sides run the same code (0.01 s a call); one round NumPy got the machine alone
    script = Script({"numpy": [0.01, 0.01, 0.004, 0.01, 0.01, 0.01], "npcompile": [0.01]})
    result = script.run()
    assert result["speedup"]["npcompile"] == pytest.approx(1.0)
    assert result["seconds"]["numpy"] == pytest.approx(0.01)
    assert result["rounds"] == 9     # five rounds' interval held the bar (0.4x-1.0x); nine decide it


def test_load_that_hits_both_sides_of_a_round_leaves_its_ratio():
    # rounds 2 and 4 were slowed 3x for both; npcompile is 2x faster throughout
    script = Script({"numpy": [0.02, 0.02, 0.06, 0.02, 0.06, 0.02], "npcompile": [0.01, 0.01, 0.03, 0.01, 0.03, 0.01]})
    result = script.run()
    assert result["speedup"]["npcompile"] == pytest.approx(2.0)
    assert result["interval"]["npcompile"] == [pytest.approx(2.0)] * 2
    assert result["rounds"] == 5                             # decided: no extra rounds


def test_rounds_turn_the_order_through_rotations_and_reverses():
    script = Script({"numpy": [0.5], "a": [0.5], "b": [0.5]})
    script.run(Timing(repeats=7, max_rounds=7))
    rounds = script.order[6:]          # after two calibration calls each (one, then one a tenth of a round)
    # each function: one untimed call, then its two timed calls (two 0.5 s calls last min_seconds)
    assert len(rounds) == 7 * 3 * 3 and rounds[::3] == rounds[1::3] == rounds[2::3]
    orders = ["".join(name[0] for name in rounds[::3][i:i + 3]) for i in range(0, 21, 3)]
    assert orders == ["nab", "abn", "bna", "ban", "anb", "nba", "nab"]
    # no function always follows the same one: each of the others precedes it somewhere
    timed = rounds[::3]
    for name in ("numpy", "a", "b"):
        before = {timed[i - 1] for i in range(1, len(timed)) if timed[i] == name} - {name}
        assert before == {"numpy", "a", "b"} - {name}


def test_an_undecided_ratio_stops_at_max_rounds():
    # npcompile alternates between 0.8x and 1.0x: its interval always holds the bar
    script = Script({"numpy": [0.01], "npcompile": [0.01] + [0.0125, 0.01] * 20})
    result = script.run(Timing(max_rounds=9))
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


def test_settle_gives_up_after_its_limits():
    clock = _Clock()               # short calls: the least time first, then the most calls
    least = math.ceil(suite.SETTLE_MIN_SECONDS * 1024)
    assert suite.settle(_Settling(10 ** 6, clock, 1 / 1024), (), clock) == least + suite.SETTLE_MAX_CALLS
    clock = _Clock()
    assert suite.settle(_Settling(10 ** 6, clock, 1.0), (), clock) == suite.SETTLE_MAX_SECONDS
