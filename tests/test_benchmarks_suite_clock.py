"""benchmarks/suite.py times rounds with the clock asked for (``--clock``)."""
import itertools

import pytest

from benchmarks import suite


@pytest.mark.parametrize("name", sorted(suite.CLOCKS))
def test_rounds_are_timed_with_the_chosen_clock(monkeypatch, name):
    ticks = itertools.count()
    monkeypatch.setitem(suite.CLOCKS, name, lambda: float(next(ticks)))   # one second a reading
    seconds = suite.alternating_seconds({"a": lambda: None, "b": lambda: None}, (),
                                        suite.Timing(repeats=2, min_seconds=3.0, clock=name))
    # one call between two readings throughout: 1 s a call, each round three readings apart
    assert seconds == {"a": 1.0, "b": 1.0}


def test_the_clock_option():
    assert suite.parse_args([]).clock == "wall"
    assert suite.parse_args(["--clock", "cpu"]).clock == "cpu"
    with pytest.raises(SystemExit):
        suite.parse_args(["--clock", "sundial"])
