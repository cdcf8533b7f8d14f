"""Thread counts of jitted calls made from many threads at once (npcompile/thread_count.py):
every call runs under the count chosen for it, whatever the other threads chose at the same
time, and the count torch gives a new thread (the default the user set) and the main
thread's count are what they were after all calls end. Threads start while others hold a
temporary count: the case where a count set with ``torch.set_num_threads`` leaked.
Asserted on the counts seen inside the calls (torch's, OpenMP's and MKL's), never on time.
Dask's threaded scheduler: tests/test_dask.py."""
import threading

import pytest

from npcompile import thread_count
from tests.jit import thread_counts as tc


@pytest.fixture
def machine(monkeypatch):
    with tc.four_core_machine(monkeypatch):
        yield


def test_threads_with_their_own_limits_never_see_each_others_counts(machine):
    """Waves of new threads; each gives itself a limit of 1-4 threads, then calls with
    small work (one thread) and large work (its limit), while the others do the same."""
    seen, limits = [], {}
    jitted = tc.warmed(seen, tc.pause(0.002))

    def work(k):
        limits[threading.get_ident()] = k % 4 + 1
        tc.own_limit(k % 4 + 1)
        for a in (tc.SMALL, tc.LARGE, tc.SMALL, tc.LARGE):
            jitted(a)

    width = 8
    for _ in range(6):                           # checked per wave: a later thread may reuse an ident
        barrier = threading.Barrier(width)
        workers = [threading.Thread(target=lambda k=k: (barrier.wait(), work(k))) for k in range(width)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        tc.check(seen, lambda ident, numel: 1 if numel == tc.SMALL.size else limits[ident], width * 4)
        seen.clear()
        limits.clear()
    assert tc.unchanged_default()


def test_new_threads_start_from_the_users_count_while_others_hold_one(machine):
    """Threads inside a call on one thread (small work) while a new thread makes its first
    torch call and computes large work: it gets the user's 4, not the others' 1."""
    seen = []
    holding, done, armed = threading.Barrier(4), threading.Event(), threading.Event()

    def hold(numel):
        if armed.is_set() and numel == tc.SMALL.size:
            holding.wait()
            done.wait(60)

    jitted = tc.warmed(seen, hold)
    armed.set()
    rounds = 5
    for _ in range(rounds):
        done.clear()
        holders = [threading.Thread(target=jitted, args=(tc.SMALL,)) for _ in range(3)]
        for thread in holders:
            thread.start()
        holding.wait()
        newcomer = threading.Thread(target=jitted, args=(tc.LARGE,))
        newcomer.start()
        newcomer.join()
        done.set()
        for thread in holders:
            thread.join()
    tc.check(seen, lambda ident, numel: 1 if numel == tc.SMALL.size else 4, rounds * 4)
    assert tc.unchanged_default()


def test_use_and_restore_touch_the_calling_thread_only(machine):
    """With another Python thread alive, ``use`` gives this thread its count in torch,
    OpenMP and MKL; a thread started meanwhile starts from the user's count; ``restore``
    puts this thread's back."""
    other_may_end = threading.Event()
    other = threading.Thread(target=other_may_end.wait)
    other.start()
    try:
        token = thread_count.use(2)
        try:
            assert tc.runtime_counts() == [2] * len(tc.runtime_counts())
            assert tc.default_of_a_new_thread() == [4] * len(tc.runtime_counts())
        finally:
            thread_count.restore(4, token)
    finally:
        other_may_end.set()
        other.join()
    assert tc.unchanged_default()


def test_the_only_thread_sets_and_restores_the_process_count(machine, monkeypatch):
    """The process's only Python thread takes torch's own setter (no thread can copy the
    default meanwhile) and puts the default back. (Under xdist a worker has more threads:
    the count of threads is what ``use`` asks.)"""
    monkeypatch.setattr(thread_count.threading, "active_count", lambda: 1)
    token = thread_count.use(2)
    try:
        assert tc.runtime_counts() == [2] * len(tc.runtime_counts())
    finally:
        thread_count.restore(4, token)
    assert tc.runtime_counts() == [4] * len(tc.runtime_counts()) and tc.unchanged_default()
