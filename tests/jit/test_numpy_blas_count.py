"""NumPy's OpenBLAS count (npcompile/numpy_blas.py): read and set through OpenBLAS's own
functions; a call npcompile runs as written (its speed trial found NumPy faster) leaves
it as the caller set it, busy cores or not, as NumPy's own call would. Asserted on the
thread counts, not on time."""
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


def test_the_count_is_read_and_set(two_blas_threads):
    assert numpy_blas.threads() == 2
    assert numpy_blas.set_threads(1) and numpy_blas.threads() == 1


@pytest.mark.parametrize("running", [5, 1], ids=["busy", "quiet"])
def test_an_entry_run_as_written_keeps_the_callers_count(two_blas_threads, monkeypatch, running):
    """The fast path a retired entry gets: NumPy's product on NumPy's own two threads,
    whatever the load; the answer is NumPy's."""
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
    assert seen == [2] and numpy_blas.threads() == 2
