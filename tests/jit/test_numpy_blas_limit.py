"""A call npcompile runs as written (its speed trial found NumPy faster) holds NumPy's
OpenBLAS to the free cores for that call and puts the caller's count back
(npcompile/numpy_blas.py): on busy cores a 2-thread OpenBLAS waits at its barrier for a
descheduled thread. Asserted on the thread counts, not on time."""
import types

import numpy as np
import pytest

from npcompile import numpy_blas, threads
from npcompile.runtime import speed_trials


@pytest.fixture
def two_blas_threads():
    before = numpy_blas.threads()
    assert before is not None            # NumPy's wheels ship OpenBLAS
    assert numpy_blas.set_threads(2)
    yield
    numpy_blas.set_threads(before)


@pytest.mark.parametrize("free, inside", [(1, 1), (2, 2), (8, 2)])
def test_the_count_inside_is_capped_by_the_free_cores_and_restored(two_blas_threads, free, inside):
    seen = []
    assert numpy_blas.within_free_cores(lambda: free, lambda x: seen.append(numpy_blas.threads()) or x)((7,)) == 7
    assert seen == [inside] and numpy_blas.threads() == 2


def test_restored_when_the_call_raises(two_blas_threads):
    def fails():
        raise ValueError("shapes")
    with pytest.raises(ValueError, match="shapes"):
        numpy_blas.within_free_cores(lambda: 1, fails)(())
    assert numpy_blas.threads() == 2


def test_a_single_thread_blas_never_reads_the_load(two_blas_threads):
    numpy_blas.set_threads(1)
    assert numpy_blas.within_free_cores(lambda: pytest.fail("read"), lambda: numpy_blas.threads())(()) == 1


@pytest.mark.parametrize("running, blas_inside", [(5, 1), (1, 2)], ids=["busy", "quiet"])
def test_an_entry_run_as_written_uses_the_free_cores(two_blas_threads, monkeypatch, running, blas_inside):
    """The fast path a retired entry gets: on a 2-core machine with other tasks on both
    cores NumPy's product runs on one OpenBLAS thread, on a quiet one on its own two;
    the answer is NumPy's either way."""
    monkeypatch.setattr(threads, "contention",
                        threads.ContentionMonitor(ttl=0, read=lambda: running, read_ours=lambda: 1, cpus=2))
    seen = []

    def layer(x, w):
        seen.append(numpy_blas.threads())
        return np.tanh(x @ w)

    trials = speed_trials.Trials(layer, True, [])
    entry = types.SimpleNamespace(guard=lambda L: True, fast=None, label="graph #1")
    fast = trials._as_written(entry)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((64, 128)), rng.standard_normal((128, 128))
    np.testing.assert_array_equal(fast([x, w]), np.tanh(x @ w))
    assert seen == [blas_inside] and numpy_blas.threads() == 2
