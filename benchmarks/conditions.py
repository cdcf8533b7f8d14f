"""The conditions users run in, for the benchmarks: torch's default thread count or one
thread, on a quiet machine or with every core kept busy by other processes.

A condition is entered around the timed rounds only (compiles run as they would), and a
contended one starts one pure-Python busy loop per usable core in separate processes,
each of which also stops by itself after ``MAX_BUSY_SECONDS`` in case this process dies.
The rounds start only once every busy process says it is spinning: a Python process
takes tens of milliseconds to start (more on busy cores), and rounds timed meanwhile ran
on a quiet machine. NumPy's round comes first, so it alone got that head start, and the
best round kept it (matrix_chain contended: NumPy 3.37 ms, the same NumPy code through
npcompile 6.56 ms)."""
import contextlib
import ctypes
import dataclasses
import os
import subprocess
import sys

#: A busy process never outlives this, even if the benchmark that started it is killed.
MAX_BUSY_SECONDS = 900

_BUSY_LOOP = ("import sys, time\n"
              "end = time.monotonic() + {limit}\n"
              "sys.stdout.write('spinning\\n')\n"
              "sys.stdout.flush()\n"
              "while time.monotonic() < end:\n"
              "    for _ in range(100000):\n"
              "        pass\n")


@dataclasses.dataclass(frozen=True)
class Condition:
    name: str                 # "default", "one_thread", "contended", "one_busy"
    threads: object           # "default" (torch's own choice) or an int
    busy_processes: int = 0   # other processes spinning while the rounds are timed

    def describe(self):
        busy = f", {self.busy_processes} busy processes" if self.busy_processes else ""
        return f"{self.name} (torch threads: {self.threads}{busy})"


def load_now():
    """The 1-minute load average, to report beside each condition's times."""
    return os.getloadavg()[0]


def usable_cores():
    """Cores this process may run on (affinity), which is what a busy machine takes away."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def standard_conditions(names):
    """The conditions named (comma-separated or a list) out of default, one_thread, contended
    (one busy process per usable core) and one_busy (one busy process)."""
    table = {"default": Condition("default", "default"),
             "one_thread": Condition("one_thread", 1),
             "contended": Condition("contended", "default", busy_processes=usable_cores()),
             # one core taken: the policy's choice between a thread short and NumPy's full count
             "one_busy": Condition("one_busy", "default", busy_processes=1)}
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    unknown = [n for n in names if n not in table]
    if unknown:
        raise ValueError(f"unknown conditions {unknown}; choose from {sorted(table)}")
    return [table[n] for n in names]


@contextlib.contextmanager
def busy_cores(count, limit=MAX_BUSY_SECONDS):
    """``count`` processes spinning in pure Python for the duration of the block, which
    starts once each of them has said it is in its loop."""
    processes = [subprocess.Popen([sys.executable, "-c", _BUSY_LOOP.format(limit=limit)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                 for _ in range(count)]
    try:
        for process in processes:
            process.stdout.readline()   # "spinning" (or "" if it died: the block still runs)
        yield processes
    finally:
        for process in processes:
            process.kill()
        for process in processes:
            process.wait()
            process.stdout.close()


@contextlib.contextmanager
def entered(condition, default_threads):
    """Set torch's and NumPy's BLAS thread counts for ``condition`` and start its busy
    processes; restore the thread counts afterwards."""
    import torch
    before = torch.get_num_threads()
    threads = default_threads if condition.threads == "default" else condition.threads
    torch.set_num_threads(threads)
    set_numpy_blas_threads(threads)
    try:
        with busy_cores(condition.busy_processes):
            yield
    finally:
        torch.set_num_threads(before)
        set_numpy_blas_threads(before)


_OPENBLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads")


def set_numpy_blas_threads(n):
    """Give NumPy's OpenBLAS ``n`` threads, as torch gets with ``set_num_threads``, so
    matrix products compare on equal cores (on a loaded machine, idle-spinning BLAS
    threads can make NumPy's matmul many times slower). True if an OpenBLAS was found."""
    with open("/proc/self/maps") as maps:
        libraries = {line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line}
    found = False
    for path in sorted(libraries):
        library = ctypes.CDLL(path)
        for name in _OPENBLAS_SETTERS:
            if hasattr(library, name):
                getattr(library, name)(ctypes.c_int(n))
                found = True
                break
    return found

