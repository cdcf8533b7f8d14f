"""Review of npcompile/thread_count.py: a compiled call on the process's only Python thread
must leave the count torch gives new threads (the process default) as it was, also when
the caller limited its own thread (threadpoolctl's ``threadpool_limits(n, "openmp")``
sets only the calling thread's OpenMP count). Asserted on counts, never on time."""
import torch

from npcompile import thread_count, threads
from tests.jit import thread_counts as tc


def test_a_callers_own_limit_does_not_become_the_process_default(monkeypatch):
    with tc.four_core_machine(monkeypatch):
        monkeypatch.setattr(thread_count.threading, "active_count", lambda: 1)
        seen = []
        call = threads.ThreadsFor(lambda *ts: seen.append(tc.runtime_counts()))
        tc.own_limit(2)                       # the caller's limit for its own thread
        try:
            call(torch.ones(8))               # small work: one thread, then back to 2
            assert seen == [[1] * len(tc.runtime_counts())]
            assert tc.runtime_counts() == [2] * len(tc.runtime_counts())
        finally:
            tc.own_limit(4)                   # the caller lifts its limit
            if torch._C.has_mkl:
                import ctypes
                ctypes.CDLL(torch._C.__file__).MKL_Set_Num_Threads_Local(0)
        assert tc.default_of_a_new_thread() == [4] * len(tc.runtime_counts())
