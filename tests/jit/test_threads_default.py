"""A compiled call on the process's only Python thread leaves the count torch gives new
threads (the process default) as it was, also when the caller limited its own thread
(threadpoolctl's ``threadpool_limits(n, "openmp")`` sets only the calling thread's
OpenMP count) and also after the caller changed the default with ``torch.set_num_threads``
(a default read once and kept went stale then: ad29803). Asserted on counts, never time."""
import ctypes

import pytest
import torch

from npcompile import aten_thread_default, thread_count, threads
from tests.jit import thread_counts as tc


@pytest.fixture
def only_thread(monkeypatch):
    with tc.four_core_machine(monkeypatch):
        monkeypatch.setattr(thread_count.threading, "active_count", lambda: 1)
        try:
            yield
        finally:
            tc.own_limit(4)                   # the caller lifts its limit
            if torch._C.has_mkl:
                ctypes.CDLL(torch._C.__file__).MKL_Set_Num_Threads_Local(0)


def small_call(seen):
    call = threads.ThreadsFor(lambda *ts: seen.append(tc.runtime_counts()))
    call(torch.ones(8))                       # small work: one thread, then back


def test_a_callers_own_limit_does_not_become_the_process_default(only_thread):
    seen = []
    tc.own_limit(2)                           # the caller's limit for its own thread
    small_call(seen)
    assert seen == [[1] * len(tc.runtime_counts())]
    assert tc.runtime_counts() == [2] * len(tc.runtime_counts())
    assert tc.default_of_a_new_thread() == [4] * len(tc.runtime_counts())


def test_a_default_the_caller_changed_is_read_again(only_thread):
    seen = []
    torch.set_num_threads(2)
    small_call(seen)                          # the default (2) was read here
    torch.set_num_threads(4)                  # the caller changes it ...
    tc.own_limit(2)                           # ... and limits its own thread to the old value
    small_call(seen)
    assert seen == [[1] * len(tc.runtime_counts())] * 2
    assert tc.runtime_counts() == [2] * len(tc.runtime_counts())
    assert tc.default_of_a_new_thread() == [4] * len(tc.runtime_counts())


def test_the_default_is_read_as_new_threads_get_it():
    before = torch.get_num_threads()
    try:
        for count in (1, 3, 2):
            torch.set_num_threads(count)
            assert aten_thread_default.process_default() == count == aten_thread_default.new_thread_count()
    finally:
        torch.set_num_threads(before)


def test_without_the_default_the_only_thread_takes_the_per_thread_route(only_thread, monkeypatch):
    monkeypatch.setattr(aten_thread_default, "process_default", lambda: None)
    seen = []
    small_call(seen)
    assert seen == [[1] * len(tc.runtime_counts())]
    assert tc.unchanged_default()


def test_symbols_are_read_from_the_elf_symbol_table(tmp_path):
    assert aten_thread_default.symbol_values(aten_thread_default._library_path(), (b"no_such_symbol_",)) == {}
    not_elf = tmp_path / "not_elf.so"
    not_elf.write_bytes(b"\0" * 64)
    assert aten_thread_default.symbol_values(not_elf, (aten_thread_default._ATOMIC,)) == {}
