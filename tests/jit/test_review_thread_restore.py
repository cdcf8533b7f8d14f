"""Review pins for npcompile/thread_count.py through ``ThreadsFor``: a compiled call that
raises still puts the calling thread's counts (torch's, OpenMP's, MKL's) back and leaves
the count a new thread starts with alone, on both routes ``use`` takes (the process's
only Python thread; another thread alive). Asserted on counts, never on time."""
import threading

import pytest
import torch

from npcompile import thread_count, threads
from tests.jit import thread_counts as tc


class Failure(RuntimeError):
    pass


@pytest.fixture
def machine(monkeypatch):
    with tc.four_core_machine(monkeypatch):
        yield


def failing(seen):
    def call(*tensors):
        seen.append(tc.runtime_counts())
        raise Failure("inside the compiled call")
    return threads.ThreadsFor(call)


@pytest.mark.parametrize("numel, inside", [(8, 1), (4 << 20, 4)], ids=["small", "large"])
def test_the_only_thread_gets_its_counts_back_after_a_raising_call(machine, monkeypatch, numel, inside):
    monkeypatch.setattr(thread_count.threading, "active_count", lambda: 1)
    seen = []
    with pytest.raises(Failure):
        failing(seen)(torch.ones(numel))
    assert seen == [[inside] * len(tc.runtime_counts())]
    assert tc.unchanged_default()


def test_a_raising_call_with_another_thread_alive_restores_only_its_own_counts(machine):
    seen = []
    other_may_end = threading.Event()
    other = threading.Thread(target=other_may_end.wait)
    other.start()
    try:
        for _ in range(3):
            with pytest.raises(Failure):
                failing(seen)(torch.ones(8))
            assert tc.runtime_counts() == [4] * len(tc.runtime_counts())
    finally:
        other_may_end.set()
        other.join()
    assert seen == [[1] * len(tc.runtime_counts())] * 3
    assert tc.unchanged_default()

