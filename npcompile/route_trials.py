"""Per compiled graph: its large products on NumPy's BLAS with its own kernels on one
thread, or as ``host_blas`` calibrated them -- whichever the graph's own calls measure
faster.

Why: where torch's kernels and NumPy's OpenBLAS both run several threads, neither
library's threads leave the cores alone after their work (OpenBLAS's workers spin after a
product they split, libgomp's after a parallel loop), so a graph that mixes them pays for
the other's threads in every kernel, by an amount no measurement of one product predicts.
``host_blas``'s calibration times a product with a small parallel kernel after it and, on
the 2-core EPYC, sends square float64 products to MKL on that account; yet in
mlp_forward (512x256 input, 512 and 10 units; quiet, NumPy 4.36 ms) MKL's products made the
compiled graph take 7.05 ms, NumPy's products with the graph's kernels on two threads
4.50 ms, and NumPy's products with the kernels on one thread 4.07 ms: OpenBLAS has the
cores to itself and the fused kernels are still faster than NumPy's ufuncs on one core.
Which way wins depends on the graph (a graph whose elementwise work dominates wants its
threads), so it is measured on the graph, as ``runtime/speed_trials`` measures compiled
code against the function as written.

A graph with products of the kinds OpenBLAS splits (``host_blas.split_products``), called
with more than one thread while NumPy's BLAS has more than one, runs its first calls under
that thread count in pairs of runs: ``RUN`` calls as calibrated (its thread count, the
products routed per ``host_blas.numpy_is_faster``) and ``RUN`` calls "serial" (every such
product on NumPy, the kernels on one thread), the order alternating, the first call of each
run not counted (it meets the other way's spinning threads). After ``PAIRS`` pairs the
serial way is kept if its median call took less than ``MARGIN`` times the calibrated
one's; otherwise the calibrated way. The verdict holds per (thread count, NumPy's BLAS
threads). Calls made during a trial are counted in ``trial_calls`` so that a speed trial of
the whole function leaves them out (their times mix the two ways).

A call given one thread because the cores are busy (``npcompile.threads``; the caller
allowed more) takes the same trial at a count of one: calibrated, such products stay on
torch's one thread (``host_blas.numpy_is_faster``: OpenBLAS's own threads would take cores
the policy kept free); serial, they run in blocks over the threads the caller allowed
(``npcompile.block_products``: each thread takes the next block of rows when done, so a
thread the OS parks holds nobody up). Neither BLAS's own threads fit busy cores: with one
spinning process per core of the 2-core EPYC, NumPy's 2-thread OpenBLAS took 8 to 47 ms for
mlp_forward's 512x256 layers (8 on one quiet thread), torch's one thread a steady 13-19 ms
(its share of one core). The verdict at one thread is kept apart from a quiet call's at
one (key ``(1, blas)`` is reached only when busy).
"""
import statistics
import threading
import time
import weakref
from time import monotonic  # recency of a trial's calls (tests replace ``time`` to time calls)

from . import thread_count


def _host_blas():
    """npcompile.passes.host_blas, imported when first needed: it imports Inductor, which
    ``import npcompile`` must not load (a graph with products has compiled by then)."""
    from .passes import host_blas
    return host_blas

#: Calls in a row each way takes in a pair; the first of each run is not counted.
RUN = 3
#: Pairs a trial takes before it decides.
PAIRS = 3
#: The serial way must take less than this fraction of the calibrated way's time (medians):
#: ties keep the calibrated way, which is what a graph without a trial does.
MARGIN = 0.97

_calls = threading.local()
#: The trials with a thread count still undecided (``in_progress``).
_OPEN = weakref.WeakSet()
#: A trial with no call for this long is not under way: its graph's calls stopped (another
#: function's, or another condition's) and may never come back to decide it.
RECENT_SECONDS = 1.0


def in_progress(clock=monotonic):
    """Whether some graph's route trial is under way: it has had a call in the last
    ``RECENT_SECONDS`` (benchmarks time steady calls after)."""
    since = clock() - RECENT_SECONDS
    return any(trial.last_call > since for trial in list(_OPEN))


def trial_calls():
    """How many graph calls of a route trial the calling thread has made (``speed_trials``
    reads it before and after a call to tell whether the call was part of one)."""
    return getattr(_calls, "count", 0)


class RouteTrial:
    """The route of one compiled graph: verdicts per (threads, NumPy's BLAS threads), and
    the runs of the trial under way for each count still undecided."""

    __slots__ = ("verdicts", "runs", "last_call", "__weakref__")

    def __init__(self):
        self.verdicts = {}   # (threads, blas threads) -> True: serial, False: as calibrated
        self.runs = {}       # (threads, blas threads) -> [[serial?, seconds...], ...]
        self.last_call = -float("inf")   # monotonic() of the last call in a trial

    def run(self, call, threads, current, block_threads=1):
        """``call()`` under ``threads`` (more than one, or one given for busy cores) for a
        graph with split products: as decided for this count, or as its trial needs.
        ``current``: the calling thread's count, restored afterwards; ``block_threads``:
        the threads a call given one thread may compute its products' blocks on."""
        blas = _host_blas().numpy_blas_threads()
        if blas is None or blas < 2:
            return _run_as(call, False, threads, current, block_threads)
        key = (threads, blas)
        serial = self.verdicts.get(key)
        if serial is not None:
            return _run_as(call, serial, threads, current, block_threads)
        runs = self.runs.setdefault(key, [])
        _OPEN.add(self)
        self.last_call = monotonic()
        if not runs or len(runs[-1]) > RUN:
            pair, second = divmod(len(runs), 2)
            runs.append([(pair % 2 == 1) != (second == 1)])   # calibrated first, then serial first, ...
        serial = runs[-1][0]
        _calls.count = trial_calls() + 1
        start = time.perf_counter()
        result = _run_as(call, serial, threads, current, block_threads)
        runs[-1].append(time.perf_counter() - start)
        if len(runs) == 2 * PAIRS and len(runs[-1]) > RUN:
            self.verdicts[key] = _serial_wins(runs)
            del self.runs[key]
            if not self.runs:
                _OPEN.discard(self)
        return result


def _serial_wins(runs):
    serial = [t for run in runs if run[0] for t in run[2:]]
    calibrated = [t for run in runs if not run[0] for t in run[2:]]
    return statistics.median(serial) < MARGIN * statistics.median(calibrated)


def _run_as(call, serial, threads, current, block_threads=1):
    """``call()`` with the kernels on ``threads`` and the products as calibrated, or
    (``serial``) with the kernels on one thread and the split products on NumPy's BLAS --
    at a count of one, in blocks over ``block_threads`` threads where there are several."""
    wanted = 1 if serial else threads
    host_blas = _host_blas()
    route = None
    if serial:
        route = host_blas.BlockRoute(block_threads) if threads == 1 and block_threads > 1 else True
    previous = host_blas.force_split_route(route)
    switch = wanted != current
    token = thread_count.use(wanted, current) if switch else None
    try:
        return call()
    finally:
        if switch:
            thread_count.restore(current, token)
        host_blas.force_split_route(previous)
