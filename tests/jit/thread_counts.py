"""What the thread-count tests of concurrent calls share (tests/jit/test_threads_concurrent.py
and the Dask ones in tests/test_dask.py): a known machine, the counts a thread computes
with, a backend recording them inside each call, and the check that every call saw its own."""
import contextlib
import ctypes
import threading

import numpy as np
import torch

import npcompile
from npcompile import config, threads

SMALL, LARGE = np.ones(16), np.ones(1 << 20)      # 256 B and 16 MiB of work: 1 thread and the limit


@contextlib.contextmanager
def four_core_machine(monkeypatch):
    """A 4-core machine, idle, with a 4 MiB threshold; the user's count is 4."""
    monkeypatch.setattr(config, "threads", "auto")
    monkeypatch.setattr(config, "parallel_threshold_bytes", 4 << 20)
    monkeypatch.setattr(threads, "available_cores", lambda: 4)
    monkeypatch.setattr(threads, "contention", threads.ContentionMonitor(read=lambda: 1, cpus=4, read_ours=lambda: 1))
    before = torch.get_num_threads()
    torch.set_num_threads(4)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def runtime_counts():
    """The calling thread's counts: torch's, OpenMP's (what a ``#pragma omp parallel`` of an
    Inductor kernel opens its team with) and MKL's (what an extern BLAS call uses)."""
    library = ctypes.CDLL(torch._C.__file__)
    counts = [torch.get_num_threads(), library.omp_get_max_threads()]
    if torch._C.has_mkl:
        counts.append(library.MKL_Get_Max_Threads())
    return counts


def own_limit(count):
    """Limit the calling thread to ``count`` threads as a caller may: OpenMP's and MKL's
    counts for this thread, after its first torch call (which would reset them)."""
    library = ctypes.CDLL(torch._C.__file__)
    torch.get_num_threads()
    library.omp_set_num_threads(count)
    if torch._C.has_mkl:
        library.MKL_Set_Num_Threads_Local(count)


def default_of_a_new_thread():
    """The counts a thread starts with: the process default the user set."""
    counts = []
    thread = threading.Thread(target=lambda: counts.extend(runtime_counts()))
    thread.start()
    thread.join()
    return counts


def shifted(x):
    return x + 1.5


def warmed(seen, hold):
    """``shifted`` jitted with a backend that records ``(thread, numel, counts)`` inside each
    call, then calls ``hold(numel)``, which may keep the call (and its count) while other
    threads start; compiled for both sizes here, so the threads only call."""
    def backend(gm, example_inputs):
        def call(*args):
            seen.append((threading.get_ident(), args[0].numel(), runtime_counts()))
            hold(args[0].numel())
            return gm(*args)
        return call
    jitted = npcompile.jit(shifted, backend=backend)
    jitted(SMALL)
    jitted(LARGE)
    seen.clear()
    return jitted


def pause(seconds):
    return lambda numel: threading.Event().wait(seconds)


def check(seen, expected_count, calls):
    """Every one of ``calls`` calls saw its own count (``expected_count(thread, numel)``)
    in torch, OpenMP and MKL."""
    assert len(seen) == calls
    wrong = [(ident, numel, counts) for ident, numel, counts in seen
             if set(counts) != {expected_count(ident, numel)}]
    assert not wrong, wrong[:5]


def unchanged_default():
    """The main thread's counts and a new thread's are the user's 4."""
    return runtime_counts() == [4] * len(runtime_counts()) and default_of_a_new_thread() == runtime_counts()
