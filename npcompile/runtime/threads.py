"""How many threads a compiled call may use: chosen per call by the work and the machine.

Inductor's CPU kernels are OpenMP loops. With every core busy (a notebook next to a
browser, several workers of one job), a parallel loop waits at its barrier for a thread
the OS has descheduled: the same kernel then runs 10-17x slower than on one thread, and
slower than NumPy, whose ufuncs are single-threaded. Small kernels gain nothing from
threads either: the fork/join costs more than the work. So each call gets:

- one thread when the data it touches is below ``parallel_threshold_bytes()``, measured
  once per process (the smallest size where several OpenMP threads beat one by 10% on
  this machine);
- one thread when the machine is busy: the runnable tasks the kernel counts in
  /proc/loadavg, other than ours, already fill the cores we may use;
- otherwise the threads available: never more than the cores this process may run on
  (affinity, cgroup CPU quota) nor than torch's thread count, which already reflects
  OMP_NUM_THREADS, ``torch.set_num_threads`` and threadpoolctl limits set by the caller
  (so a Dask or multiprocessing worker limited to one thread stays at one).

Kernels read the count at run time because the Inductor backend compiles them with
``cpp.dynamic_threads`` (otherwise the count is baked into each ``omp parallel``).
``config.threads`` overrides: "auto" (the above), or a fixed number.
"""
import functools
import os
import time

import torch

from .. import config

#: A contention reading is reused for this long (reading /proc/loadavg costs ~10 us).
CONTENTION_TTL_SECONDS = 0.05


def available_cores():
    """Cores this process may use: its affinity mask, capped by a cgroup CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    return max(1, min(cores, quota)) if quota else cores


def cgroup_cpu_quota(root="/sys/fs/cgroup"):
    """Whole CPUs the cgroup quota allows (cgroup v2 cpu.max or v1 cfs files), or None."""
    try:
        with open(os.path.join(root, "cpu.max")) as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            return max(1, int(int(quota) / int(period)))
        return None
    except (OSError, ValueError):
        pass
    try:
        with open(os.path.join(root, "cpu", "cpu.cfs_quota_us")) as f:
            quota = int(f.read())
        with open(os.path.join(root, "cpu", "cpu.cfs_period_us")) as f:
            period = int(f.read())
        return max(1, quota // period) if quota > 0 else None
    except (OSError, ValueError):
        return None


def thread_limit():
    """The most threads a call may use now: the caller's limits and the cores we may use."""
    return max(1, min(torch.get_num_threads(), available_cores()))


def runnable_tasks(path="/proc/loadavg"):
    """Tasks the kernel counts as runnable right now (the 4th field's numerator), or None."""
    try:
        with open(path) as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


class ContentionMonitor:
    """Whether other tasks fill the cores we may use, read at most every ``ttl`` seconds.
    Our own running thread is one of the runnable tasks, so it is not counted."""

    def __init__(self, ttl=CONTENTION_TTL_SECONDS, read=runnable_tasks, clock=time.monotonic):
        self.ttl, self.read, self.clock = ttl, read, clock
        self._until, self._busy = -1.0, False

    def busy(self, cores):
        now = self.clock()
        if now >= self._until:
            running = self.read()
            self._busy = running is not None and running - 1 >= cores
            self._until = now + self.ttl
        return self._busy


contention = ContentionMonitor()


def threads_for(work_bytes):
    """Threads for a call that touches ``work_bytes`` of data (see the module docstring)."""
    if config.threads != "auto":
        return max(1, int(config.threads))
    limit = thread_limit()
    if limit == 1 or work_bytes < parallel_threshold_bytes():
        return 1
    return 1 if contention.busy(limit) else limit


@functools.cache
def parallel_threshold_bytes():
    """The smallest float64 working set (bytes read and written by an elementwise op)
    where the threads available beat one thread by 10% on this machine, measured once
    with ATen's own OpenMP loops; ``config.parallel_threshold_bytes`` overrides."""
    if config.parallel_threshold_bytes is not None:
        return int(config.parallel_threshold_bytes)
    threads = thread_limit()
    if threads == 1:
        return 1 << 62
    for numel in (1 << 14, 1 << 16, 1 << 18, 1 << 20):
        a = torch.ones(numel, dtype=torch.float64)
        out = torch.empty_like(a)
        one = _best_seconds(lambda: torch.mul(a, 2.0, out=out), 1)
        many = _best_seconds(lambda: torch.mul(a, 2.0, out=out), threads)
        if many < one / 1.1:
            return 2 * a.nbytes
    return 2 * (1 << 20) * 8


def _best_seconds(fn, threads, rounds=5, calls=20):
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        fn()
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            best = min(best, (time.perf_counter() - start) / calls)
        return best
    finally:
        torch.set_num_threads(before)


class ThreadsFor:
    """Runs a compiled call with the threads ``threads_for`` gives for its inputs' bytes,
    restoring torch's count afterwards (a no-op when the count is already right)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *tensors):
        work = sum(t.nbytes for t in tensors if isinstance(t, torch.Tensor))
        wanted, current = threads_for(work), torch.get_num_threads()
        if wanted == current:
            return self.fn(*tensors)
        torch.set_num_threads(wanted)
        try:
            return self.fn(*tensors)
        finally:
            torch.set_num_threads(current)
