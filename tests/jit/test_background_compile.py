"""jit(compile="background"): a miss runs as written (NumPy's answer, at NumPy's speed)
while one worker thread compiles; the switch happens between calls; queued compiles
coalesce; failures leave the function running uncompiled with one warning."""
import threading
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.runtime import background
from tests.jit.harness import CountingBackend


def affine(a):
    return a * 2.0 + 1.0


def accumulate(a, items):
    a += len(items)
    return a.sum()


@pytest.fixture
def held_worker():
    """The worker kept busy until the test releases it, so what queues meanwhile is seen."""
    release = threading.Event()
    background.WORKER.submit(("held", id(release)), release.wait)
    yield release
    release.set()
    assert npcompile.wait_for_compiles(120)


def test_first_call_runs_as_written_then_the_compiled_entry_takes_over():
    counting = CountingBackend("eager")
    jitted = npcompile.jit(affine, backend=counting, compile="background")
    a = np.arange(5.0)
    np.testing.assert_array_equal(jitted(a), affine(a))
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1 and len(counting.graphs) == 1
    jitted.events = []
    np.testing.assert_array_equal(jitted(a), affine(a))
    assert [type(e).__name__ for e in jitted.events] == ["CompiledEntry"]


def test_writes_into_inputs_happen_once_on_either_side_of_the_switch():
    jitted = npcompile.jit(accumulate, backend="eager", compile="background")
    a, expected = np.zeros(3), np.zeros(3)
    for k in range(3):
        assert jitted(a, [1, 2]) == accumulate(expected, [1, 2])
        np.testing.assert_array_equal(a, expected)
        if k == 0:
            assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1


def test_many_new_shapes_queue_one_compile(held_worker):
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    for n in range(2, 12):
        a = np.arange(float(n))
        np.testing.assert_array_equal(jitted(a), affine(a))
    assert sum(1 for key in background.WORKER.pending if key[0] == id(jitted)) == 1
    held_worker.set()
    assert npcompile.wait_for_compiles(120)
    assert jitted.compile_count == 1


def test_the_worker_traces_a_snapshot_of_containers(held_worker):
    jitted = npcompile.jit(accumulate, backend="eager", compile="background")
    items = [1, 2]
    a = np.zeros(2)
    jitted(a, items)
    items.append(3)               # the caller changes the list while the compile waits
    held_worker.set()
    assert npcompile.wait_for_compiles(120)
    a[:] = 0
    assert jitted(a, items) == accumulate(np.zeros(2), [1, 2, 3])   # len 3 is not len 2's entry
    np.testing.assert_array_equal(a, [3.0, 3.0])


def failing_backend(gm, example_inputs):
    raise RuntimeError("backend exploded")


def test_a_failure_in_the_background_warns_once_and_results_stay_numpys():
    jitted = npcompile.jit(affine, backend=failing_backend, compile="background")
    a = np.arange(4.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(jitted(a), affine(a))
        assert npcompile.wait_for_compiles(120)
        for _ in range(3):
            np.testing.assert_array_equal(jitted(a), affine(a))
    messages = [str(w.message) for w in caught if "backend exploded" in str(w.message)]
    assert len(messages) == 1


def test_calls_from_many_threads_are_safe():
    jitted = npcompile.jit(affine, backend="eager", compile="background")
    errors = []

    def worker(n):
        try:
            for _ in range(20):
                a = np.arange(float(n))
                np.testing.assert_array_equal(jitted(a), affine(a))
        except Exception as exc:   # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in (3, 4, 5, 6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert npcompile.wait_for_compiles(120)


def test_fullgraph_compiles_in_the_caller():
    jitted = npcompile.jit(affine, backend="eager", compile="background", fullgraph=True)
    jitted(np.arange(3.0))
    assert jitted.compile_count == 1


def test_blocking_is_the_default_and_modes_are_checked():
    assert npcompile.config.compile == "blocking"
    jitted = npcompile.jit(affine, backend="eager")
    jitted(np.arange(3.0))
    assert jitted.compile_count == 1
    with pytest.raises(ValueError, match="blocking"):
        npcompile.jit(affine, compile="lazy")
