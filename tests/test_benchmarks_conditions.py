"""benchmarks/conditions.py: a contended condition's rounds start only once its busy
processes spin (a round timed while they start up runs on a quiet machine)."""
from benchmarks import conditions


def test_busy_cores_enters_the_block_once_every_process_is_in_its_loop(tmp_path, monkeypatch):
    """A stand-in busy loop that takes a while to get going and leaves a file once it is
    in its loop: each file exists when the block starts."""
    slow_start = ("import sys, time, os\n"
                  "time.sleep(0.3)\n"
                  f"open(os.path.join({str(tmp_path)!r}, str(os.getpid())), 'w').close()\n"
                  "sys.stdout.write('spinning\\n')\n"
                  "sys.stdout.flush()\n"
                  "time.sleep({limit})\n")
    monkeypatch.setattr(conditions, "_BUSY_LOOP", slow_start)
    with conditions.busy_cores(2, limit=30) as processes:
        started = {path.name for path in tmp_path.iterdir()}
        assert started == {str(p.pid) for p in processes}
        assert all(p.poll() is None for p in processes)
    assert all(p.poll() is not None for p in processes)


def test_the_real_busy_loop_says_it_spins_and_stops_with_the_block():
    with conditions.busy_cores(1, limit=30) as processes:
        assert processes[0].poll() is None
    assert processes[0].poll() is not None and processes[0].stdout.closed
