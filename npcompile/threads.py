"""How many threads a compiled call may use: chosen per call by the work and the machine.

Inductor's CPU kernels are OpenMP loops. With every core busy (a notebook next to a
browser, several workers of one job), a parallel loop waits at its barrier for a thread
the OS has descheduled: the same kernel then runs 10-17x slower than on one thread, and
slower than NumPy, whose ufuncs are single-threaded. Small kernels gain nothing from
threads either: the fork/join costs more than the work. So each call gets:

- one thread when the data its graph reads and writes (inputs and outputs) is below
  ``parallel_threshold_bytes()``, measured once per machine and thread count (the
  smallest size where several OpenMP threads beat one by 10% on this machine);
- no more threads than there are free cores: the runnable tasks the kernel counts in
  /proc/loadavg, other than ours, taken from the machine's CPUs (one thread when fewer
  than two are free);
- otherwise the threads available: never more than the cores this process may run on
  (affinity, cgroup CPU quota) nor than torch's thread count, which already reflects
  OMP_NUM_THREADS, ``torch.set_num_threads`` and threadpoolctl limits set by the caller
  (so a Dask or multiprocessing worker limited to one thread stays at one).

Which knob does what:

- A graph whose sizes are fixed and whose work is below the threshold always gets one
  thread, so the Inductor backend compiles it with ``cpp.threads = 1``: its kernels have
  no parallel region at all and its calls are not wrapped (``single_threaded``).
- Every other graph is compiled with ``cpp.dynamic_threads``, and ``ThreadsFor`` sets
  the calling thread's own OpenMP (and MKL) count around each call (``thread_count``:
  never torch's process default, which threads copy at their first torch call, so
  concurrent callers never see each other's counts). Without ``dynamic_threads``
  Inductor bakes ``num_threads(N)`` into each ``omp parallel`` whenever torch's count
  differs from ``os.cpu_count()`` (so the count set at call time is ignored), and a
  graph compiled under one thread stays serial.
- Inductor's parallel-loop size threshold (``cpp.min_chunk_size``, 512 elements per
  thread) keeps a tiny loop serial when threads are fixed at compile time; under
  ``dynamic_threads`` every kernel opens a parallel region and that threshold only
  decides how many loop levels are split: the per-call choice here replaces it.
- The OpenMP wait policy (``OMP_WAIT_POLICY``, ``GOMP_SPINCOUNT``) decides whether idle
  pool threads spin or sleep between parallel regions. libgomp reads it once, when it
  is loaded (``import torch``), so npcompile cannot change it; on a shared machine
  ``OMP_WAIT_POLICY=PASSIVE`` in the environment before Python starts stops idle
  threads from burning cores, at the price of a wake-up per parallel region.

``config.threads`` overrides: "auto" (the above), or a fixed number.

Inside a Dask task (a thread of the threaded scheduler's pool, or of a ``dask.distributed``
worker's executor) the task's budget caps both: Dask already runs one task per thread it
has, so a call made by a task uses one thread (Dask threads x torch threads never exceed
what Dask was given) unless Dask's config says otherwise (``npcompile.threads-per-task``,
e.g. ``DASK_NPCOMPILE__THREADS_PER_TASK=4`` in a worker's environment), or, on a
distributed worker, its ``OMP_NUM_THREADS`` (which a nanny sets to 1 by default).
"""
import functools
import os
import sys
import threading
import time
import weakref

import torch

from . import calibrations, config, thread_count
from .compiled import CompiledGraph

#: A contention reading is reused for this long (reading /proc/loadavg costs ~10 us).
CONTENTION_TTL_SECONDS = 0.05


@functools.cache
def available_cores():
    """Cores this process may use: its affinity mask, capped by a cgroup CPU quota.
    Read once per process (the cgroup files cost ~50 us a call) and again after a fork."""
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


def thread_limit(current=None):
    """The most threads a call may use now: the caller's limits (torch's ``current``
    count, the budget of the Dask task it runs in) and the cores we may use."""
    current = torch.get_num_threads() if current is None else current
    limit = max(1, min(current, available_cores()))
    budget = task_budget()
    return limit if budget is None else min(limit, budget)


# ---- Dask tasks ----------------------------------------------------------------------
_thread_kind = threading.local()   # .kind: which Dask pool runs this thread (None: none)


def task_budget():
    """Threads a call may use in the Dask task running on this thread, or None on a
    thread no Dask scheduler runs tasks on (see the module docstring). Which pool a thread
    belongs to is found once per thread; the budget is read per call (Dask's config can
    change between tasks)."""
    kind = getattr(_thread_kind, "kind", False)
    if kind is False:
        kind = _thread_kind.kind = dask_thread_kind()
    return None if kind is None else _budget(kind)


def dask_thread_kind():
    """``"distributed"`` on a thread running a ``dask.distributed`` task, ``"threaded"``
    on one of the threaded scheduler's pool threads, else None. Looked up only among Dask
    modules already imported (a process without Dask pays nothing)."""
    worker = sys.modules.get("distributed.worker")
    if worker is not None and getattr(worker.thread_state, "execution_state", None) is not None:
        return "distributed"
    threaded = sys.modules.get("dask.threaded")
    if threaded is None:
        return None
    pools = [threaded.default_pool, *(p for per_thread in list(threaded.pools.values())
                                      for p in list(per_thread.values()))]
    pools.append(sys.modules["dask.config"].get("pool", None))
    thread = threading.current_thread()
    executor = executor_of(thread)
    if any(pool is executor or thread in getattr(pool, "_threads", ()) for pool in pools if pool is not None):
        return "threaded"
    return None


def executor_of(thread):
    """The ``concurrent.futures.ThreadPoolExecutor`` whose worker ``thread`` is, read from
    what the thread was started with (a weak reference to it), or None. An executor adds a
    thread to its ``_threads`` only after starting it, and the thread may run a task first
    (about half the tasks of a fresh 4-thread pool do, on Python 3.11 and 3.12)."""
    futures_thread = sys.modules.get("concurrent.futures.thread")
    if futures_thread is None or getattr(thread, "_target", None) is not futures_thread._worker:
        return None
    reference = thread._args[0] if thread._args else None
    return reference() if isinstance(reference, weakref.ref) else None


def _budget(kind):
    configured = sys.modules["dask.config"].get("npcompile.threads-per-task", None)
    if configured is not None:
        return max(1, int(configured))
    if kind == "distributed":
        try:
            return max(1, int(os.environ["OMP_NUM_THREADS"]))
        except (KeyError, ValueError):
            pass
    return 1


def runnable_tasks(path="/proc/loadavg"):
    """Tasks the kernel counts as runnable right now (the 4th field's numerator), or None."""
    try:
        with open(path) as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def our_running_threads(tasks="/proc/self/task"):
    """This process's threads in state R (running or waiting for a CPU), 0 where Linux
    does not say. Which of them are ours matters: OpenBLAS's workers spin (runnable) for
    ~0.1 s after a product they split and libgomp's after a parallel loop, and counted as
    other load they made a quiet machine look busy (mlp_forward's 2-thread calls fell to
    one thread, 4.4 -> 8.8 ms a call, after its own NumPy products)."""
    count = 0
    try:
        names = os.listdir(tasks)
    except OSError:
        return 0
    for name in names:
        try:
            with open(f"{tasks}/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        end = stat.rfind(b")")
        if stat[end + 2:end + 3] == b"R":
            count += 1
    return count


class ContentionMonitor:
    """Cores no other task wants, read at most every ``ttl`` seconds. The calling thread
    is one of the runnable tasks, and so may be the OpenMP workers of our last parallel
    call and OpenBLAS's after a product (they spin a while after it): this process's
    runnable threads (``read_ours``), and at least ``ours``, are not counted as others.
    Load counts when two readings in a row see it: the two counts are taken at different
    instants, and a task runnable for a moment (a kernel worker, our own spinning thread
    between its states) read as a busy core gave a quiet 2-core machine's calls one
    thread, and NumPy's products run as written one OpenBLAS thread, for ``ttl``."""

    def __init__(self, ttl=CONTENTION_TTL_SECONDS, read=runnable_tasks, clock=time.monotonic, cpus=None,
                 read_ours=our_running_threads):
        self.ttl, self.read, self.clock, self.read_ours = ttl, read, clock, read_ours
        self.cpus = cpus or os.cpu_count() or 1
        self.ours = 1                       # threads of our last call (set by ThreadsFor)
        self._until, self._idle = -1.0, self.cpus
        self._others = None                 # the previous reading's other tasks

    def idle_cores(self):
        """Cores no other task wants: 0 when other processes keep every core busy."""
        now = self.clock()
        if now >= self._until:
            before = self.read_ours()      # ours read on both sides of the run queue: a spinning
            running = self.read()          # worker that sleeps between the two reads is still ours
            others = 0 if running is None else max(0, running - max(self.ours, before, self.read_ours()))
            previous, self._others = self._others, others
            if previous is not None:
                others = min(others, previous)
            self._idle = max(0, self.cpus - others)
            self._until = now + self.ttl
        return self._idle

    def free_cores(self):
        """Cores a call may count on: the idle ones, and at least the one it runs on."""
        return max(1, self.idle_cores())

    def busy(self, cores):
        """Whether fewer than ``cores`` cores are free."""
        return self.free_cores() < cores


contention = ContentionMonitor()


def threads_for(work_bytes, current=None):
    """Threads for a call that reads and writes ``work_bytes`` of data, given torch's
    ``current`` count (see the module docstring)."""
    if config.threads != "auto":
        budget = task_budget()
        return max(1, int(config.threads) if budget is None else min(int(config.threads), budget))
    limit = thread_limit(current)
    if limit == 1 or work_bytes < parallel_threshold_bytes(limit):
        return 1
    free = min(limit, contention.free_cores())
    return free if free >= 2 else 1


def parallel_threshold_bytes(threads=None):
    """The smallest float64 working set (bytes read and written by an elementwise op)
    where ``threads`` (default: those available) beat one thread by 10% on this machine;
    ``config.parallel_threshold_bytes`` overrides. Unknown (infinite) under a limit of one."""
    if config.parallel_threshold_bytes is not None:
        return int(config.parallel_threshold_bytes)
    threads = thread_limit() if threads is None else threads
    return measured_threshold_bytes(threads) if threads > 1 else UNLIMITED


#: A threshold no work reaches.
UNLIMITED = 1 << 62


@functools.cache
def measured_threshold_bytes(threads):
    """``parallel_threshold_bytes`` for ``threads`` threads, measured once per machine with
    ATen's own OpenMP loops (about 0.3 s) and shared by its processes: it decides which
    graphs compile without parallel regions, so it keys Inductor's disk cache, which every
    process on the machine should find warm (see ``npcompile.calibrations``)."""
    return calibrations.shared("parallel_threshold", [threads], lambda: _time_threshold(threads))


def _time_threshold(threads):
    for numel in (1 << 14, 1 << 16, 1 << 18, 1 << 20):
        a = torch.ones(numel, dtype=torch.float64)
        out = torch.empty_like(a)
        one = _best_seconds(lambda: torch.mul(a, 2.0, out=out), 1)
        many = _best_seconds(lambda: torch.mul(a, 2.0, out=out), threads)
        if many < one / 1.1:
            return 2 * a.nbytes
    return 2 * (1 << 20) * 8


def single_threaded(gm):
    """Whether every call of the captured graph ``gm`` runs on one thread, so that it can
    be compiled without parallel regions (which cost a fork/join per kernel even when
    one thread runs them): its sizes are fixed and its work is below the threshold.
    Never under a fixed ``config.threads`` nor under a limit of one thread, where the
    threshold is unknown and the caller may raise the limit later."""
    if config.threads != "auto" or thread_limit() == 1:
        return False
    work, scale = work_estimate(gm)
    return scale is None and work < parallel_threshold_bytes()


def _best_seconds(fn, threads, rounds=5, calls=20):
    before = torch.get_num_threads()
    token = thread_count.use(threads)
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
        thread_count.restore(before, token)


def work_estimate(gm):
    """``(bytes, scale)`` for a captured graph, from the fake values make_fx records on
    its nodes: the bytes its tensor inputs and outputs occupy when every size is fixed
    (scale None); with symbolic sizes, ``scale`` times the bytes of the tensors a call
    passes, the ratio of inputs and outputs to inputs at the compile-time sizes. A graph
    without those values is judged by the bytes of the tensors each call passes."""
    from torch.fx import Node
    from torch.fx.experimental.symbolic_shapes import is_concrete_int, optimization_hint
    from torch.utils._pytree import tree_leaves

    inputs = outputs = 0
    dynamic = False
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            ends = [node]
        elif node.op == "output":
            ends = [out for out in tree_leaves(node.args[0]) if isinstance(out, Node)]
        else:
            continue
        for end in ends:
            if "val" not in end.meta:
                return 0, 1.0
            value = end.meta["val"]
            if isinstance(value, torch.Tensor):
                numel = value.numel()
                dynamic = dynamic or not is_concrete_int(numel)
                size = optimization_hint(numel, fallback=8192) * value.element_size()
                if node.op == "placeholder":
                    inputs += size
                else:
                    outputs += size
    if not dynamic or not inputs:
        return inputs + outputs, None
    return 0, (inputs + outputs) / inputs


def tensor_bytes(values):
    return sum(v.nbytes for v in values if isinstance(v, torch.Tensor))


class ThreadsFor:
    """Runs a compiled call with the threads ``threads_for`` gives for its work (see
    ``work_estimate``), restoring the calling thread's count afterwards (untouched when
    it is already right). ``boxed`` is the list-taking form when ``fn`` is a
    ``CompiledGraph`` (whose ``boxed`` it wraps), else None: any other callable is called
    with its arguments. ``route``: a graph with products OpenBLAS splits runs its
    multi-threaded calls, and those given one thread for busy cores, through it
    (``npcompile.route_trials``)."""

    __slots__ = ("fn", "work", "scale", "route", "inner_boxed", "boxed")

    def __init__(self, fn, work=0, scale=1.0, route=None):
        self.fn, self.work, self.scale = fn, work, scale
        self.route = route   # a route_trials.RouteTrial for a graph with split products, or None
        self.inner_boxed = fn.boxed if isinstance(fn, CompiledGraph) else None
        self.boxed = self._boxed if self.inner_boxed is not None else None

    def __call__(self, *args):
        return self._run(self.fn, args, True)

    def _boxed(self, args):
        return self._run(self.inner_boxed, args, False)

    def _run(self, fn, args, spread):
        current = torch.get_num_threads()
        if current == 1 and config.threads == "auto":
            # the caller's limit is one thread: what threads_for would say, without its
            # look-ups (a loop resuming tiny graphs pays them on every segment)
            contention.ours = 1
            return fn(*args) if spread else fn(args)
        work = self.work if self.scale is None else self.work + self.scale * tensor_bytes(args)
        wanted = contention.ours = threads_for(work, current)
        if self.route is not None:
            blocks = 1 if wanted > 1 else self._block_threads(current)
            if wanted > 1 or blocks > 1:
                return self.route.run((lambda: fn(*args)) if spread else (lambda: fn(args)), wanted, current, blocks)
        if wanted == current:
            return fn(*args) if spread else fn(args)
        token = thread_count.use(wanted, current)
        try:
            return fn(*args) if spread else fn(args)
        finally:
            thread_count.restore(current, token)

    @staticmethod
    def _block_threads(current):
        """For a call given one thread: the caller's limit where busy cores, not that limit,
        made it one (else 1). A graph with split products then takes a route trial at one
        thread: its products in blocks over that many threads (``npcompile.block_products``:
        a thread the OS parks takes fewer blocks) against torch's one thread
        (``npcompile.route_trials``)."""
        if current < 2 or not contention.busy(2):
            return 1
        return thread_limit(current)


if hasattr(os, "register_at_fork"):      # a forked worker may get other cores (or a quota)
    os.register_at_fork(after_in_child=available_cores.cache_clear)
