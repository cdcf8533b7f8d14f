"""The calling thread's own compute thread count, set without touching the process default.

``torch.set_num_threads(n)`` (ATen's ParallelOpenMP.cpp) sets the calling thread's OpenMP
count (``omp_set_num_threads``: libgomp keeps a thread's count apart once the thread has
written it) and MKL's thread-local count, but it also stores ``n`` in a process-wide atomic
that every thread copies at its first torch call (``at::init_num_threads``), and resizes the
process's pthreadpool. A thread that sets a temporary count that way hands it to any
thread whose first torch call comes meanwhile, and a thread that restores a count it got
so makes that count the process default for every later thread.

``use(n)`` sets only the two per-thread counts (the OpenMP runtime's and MKL's, looked up
among the libraries torch's extension links), after the thread has made its first torch
call, so its count starts from the default the user set and the default is never written
from here. Inductor's kernels read the OpenMP count (``omp_get_max_threads`` and the team
size of ``#pragma omp parallel``); ATen's kernels and ``torch.get_num_threads`` read it too.
A torch built without OpenMP falls back to ``torch.set_num_threads`` (process-wide).

While the calling thread is the process's only Python thread, no other thread can copy
the default in the meantime, so ``use`` takes ``torch.set_num_threads`` then too (0.3 us
against 2.5 us for the per-thread setters through ctypes: a loop the runtime drives pays
a switch and a restore on every iteration) and ``restore`` puts the default back -- but
only while the thread's count is the default (``aten_thread_default``, read each time):
a caller that limited its own thread (threadpoolctl sets the calling thread's OpenMP
count only) would otherwise have its limit written into the default on restore, and
every thread started later would inherit it. A default read once and kept is no check:
it goes stale when the caller changes it with ``torch.set_num_threads`` (ad29803).
"""
import ctypes
import functools
import threading

import torch

from . import aten_thread_default


@functools.cache
def _setters():
    """``(omp_set_num_threads, MKL's thread-local setter or None)`` as torch's extension
    resolves them, or None without OpenMP. MKL's C entry is ``MKL_Set_Num_Threads_Local``:
    the lower-case name is its Fortran entry, which takes a pointer."""
    if not torch._C.has_openmp:
        return None
    try:
        library = ctypes.CDLL(torch._C.__file__)
        omp = library.omp_set_num_threads
    except (OSError, AttributeError):
        return None
    omp.argtypes, omp.restype = [ctypes.c_int], None
    mkl = getattr(library, "MKL_Set_Num_Threads_Local", None) if torch._C.has_mkl else None
    if mkl is not None:
        mkl.argtypes, mkl.restype = [ctypes.c_int], ctypes.c_int
    return omp, mkl


#: ``use``'s token when it set torch's process-wide count.
_PROCESS_WIDE = object()


def use(count, current=None):
    """Give the calling thread ``count`` threads; returns what ``restore`` takes back.
    ``current`` is the thread's torch count now, if the caller has just read it."""
    setters = _setters()
    if setters is None:
        torch.set_num_threads(count)
        return _PROCESS_WIDE
    if current is None:           # ATen's first-use init (it copies the default) runs now, not over ours
        current = torch.get_num_threads()
    if threading.active_count() == 1 and current == aten_thread_default.process_default():
        torch.set_num_threads(count)
        return _PROCESS_WIDE
    omp, mkl = setters
    omp(count)
    return mkl(count) if mkl is not None else None


def restore(count, token):
    """Put the calling thread's count back to ``count`` (its torch count before ``use``);
    ``token`` is what ``use`` returned (MKL's thread-local setting before)."""
    if token is _PROCESS_WIDE:
        torch.set_num_threads(count)
        return
    omp, mkl = _setters()
    omp(count)
    if mkl is not None:
        mkl(token)
