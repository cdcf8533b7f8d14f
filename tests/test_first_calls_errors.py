"""benchmarks.first_calls: a child that fails says how it ended (an abort at exit is
status 134 even when the timings were printed)."""
from benchmarks import first_calls


def test_a_failed_child_reports_its_exit_status(tmp_path):
    run = first_calls.run_child("no_such_workload", "numpy", 1, "tiny", str(tmp_path))
    assert run["error"].startswith("exit status 1: ")
