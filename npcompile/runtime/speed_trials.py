"""Keep the faster of the compiled code and the function as written, per cache entry.

Compiled code can lose to NumPy on the very call it was compiled for: a chain of small
products (NumPy's BLAS does the work either way, the runtime adds its conversions), a
call of tens of microseconds where the runtime's own cost is most of the time, a loop
driven segment by segment, or a machine whose cores other processes keep busy. Running
the function as written is always exact (NumPy is the oracle; it is what every fallback
does), so the only question is speed, and it is measured, not guessed.

After a compiled entry (a segment starting at the function's entry, on the CPU) has
served ``WARM`` calls, its next calls come in paired rounds, as the benchmarks time them:
a run of ``RUN`` calls compiled and a run of ``RUN`` calls as written, back to back, the
order alternating from pair to pair. Each is a real call of the user's, timed whole
(breaks and resumed segments included), so nothing runs twice and inputs are mutated
once per call, as written. The first call of each run is not counted: it runs right
after the other way's calls, whose thread pools may still spin (libgomp's after torch's
kernels, OpenBLAS's after NumPy's products for ~0.1 s) and whose data sit in the caches,
which steady calls of either way never meet. Alternating single calls measured that
switch instead of the calls: matrix_chain at default threads (NumPy 3.1 ms, compiled
3.7 ms on torch's MKL) stayed compiled, each NumPy call paying for the spinning OpenMP
threads the compiled call before it left. A pair's ratio (time as written / time
compiled, over the counted calls of its two runs) compares calls made under the same
load, so a busy moment shifts both sides alike; best-of-N on each side instead compares
each side's luckiest call, and under contention that verdict followed the noise (a 0.89x
loss stayed compiled). After ``MIN_PAIRS`` pairs the trial decides when every ratio lies
on one side of ``MARGIN``; otherwise it goes on to ``MAX_PAIRS`` and decides on the
median ratio: under ``MARGIN`` the entry is retired to "as written", otherwise the
compiled path keeps it for good. A trial stops at once for the compiled path when the
counted calls as written take more than ``CLEARLY_SLOWER`` times the compiled ones
(medians: under contention compiled calls can be bimodal, and one lucky compiled call
against a typical call as written would end the trial of an entry far slower than NumPy),
and calls whose compiled best exceeds ``MAX_COMPILED_SECONDS`` are not tried at
all: so a trial costs at most a run of slow calls. A call during which one of its graphs
had its products' route under trial (``npcompile.route_trials``) is not counted: its
time mixes two ways of running the compiled code. ``npcompile.config.speed_trials``
turns it off; a retired entry's reason is in ``JitFunction.speed_decisions``.

A verdict holds for the condition it was measured under (``condition``): the calling
thread's ``torch.get_num_threads()`` and how many of those threads' cores other processes
leave free. A product chain compiled 5x faster than NumPy on two threads took 1.2x
NumPy's time on one; the small mlp_forward, 45 us as written against 68 compiled on a
quiet machine, took 155-15,600 us as written beside two busy processes (NumPy's 2-thread
OpenBLAS waiting for a descheduled thread) and 123-130 us compiled (torch's one thread or
products in blocks, ``npcompile.block_products``). When a call comes under a condition
its function has not decided under, the decided entries are tried again (``reopen``),
the retired ones with their compiled path; under a condition decided before, each entry
takes the verdict it got there (``Verdicts``), without a trial.

Beside busy processes a trial takes all ``MAX_PAIRS`` pairs and decides on their total
(``_Trial.total_ratio``), not on the median pair or on three pairs alike: there NumPy's
2-thread OpenBLAS runs in stretches, either at its quiet speed or with every call waiting
a time slice (~16 ms) at a barrier for a descheduled thread. The small mlp_forward's runs
as written took 45-60 us a call or 15,600 us, about one run in three, its compiled calls
64-68 us throughout; three fast pairs, or six fast pairs of nine, retired it, and the
user's calls then pay for the slow stretches too.

A call as written is NumPy's code with NumPy's own settings: its BLAS keeps the threads
the caller gave it. (Holding it to the free cores, as 3135e57-c987da9 did, made the small
mlp_forward's 2**19 product take its one-thread time on busy cores: 118 us against
NumPy's 49 in one run of the suite, while in the run before NumPy's own 2-thread product
hit a descheduled thread and took 219 us. Unheld, the call meets NumPy's luck, whichever
it is.)
"""
import statistics
import time

import torch

from .. import config, route_trials, threads
from ..backends import BACKENDS
from ..errors import RerunUncompiled
from .entries import MISS

#: Calls an entry serves compiled, untimed, before its trial (caches, first-touch pages).
WARM = 1
#: Calls in a row each way takes in a pair; the first of each run is not counted.
RUN = 3
#: Under a busy condition (fewer free cores than threads) a run also lasts this long, its
#: counted calls together: a thread that has slept (NumPy's OpenBLAS worker while compiled
#: calls ran) gets the CPU back at once beside busy processes, for some milliseconds. Runs of
#: 3 calls of the small mlp_forward measured NumPy 54 us against 67 compiled; steady calls,
#: NumPy 155-15,600 us against 123-130 compiled (the benchmarks' rounds last 50 ms too).
BUSY_RUN_SECONDS = 0.05
#: Pairs (a run of compiled calls and a run of calls as written) a trial takes before it
#: decides...
MIN_PAIRS = 3
#: ... and at most, where the pairs' ratios fall on both sides of ``MARGIN``.
MAX_PAIRS = 9
#: A pair's ratio (time as written / time compiled) must be under this to count as NumPy
#: being faster: a margin for timer and scheduler noise, so that ties stay compiled.
MARGIN = 0.95
#: Counted calls as written slower than this many compiled calls (medians, each run as
#: written on its own) end the trial for the compiled path once ``CLEARLY_SLOWER_RUNS``
#: runs as written are complete and every one of them was (the trial's cost stays two
#: runs). Not after one: one run of a 2-thread OpenBLAS beside another library's spinning
#: threads (torch.compile's pool, just before) took milliseconds for a 48 us call, and
#: kept a 75 us compiled mlp_forward for good.
CLEARLY_SLOWER = 2.0
CLEARLY_SLOWER_RUNS = 2
#: No trial for entries whose compiled calls take longer (a trial call as written would
#: cost too much for what a loss this size can be).
MAX_COMPILED_SECONDS = 0.02


def condition(get_num_threads=torch.get_num_threads):
    """The condition a verdict holds under (read in ~0.1 us, every few calls): torch's thread
    count for the calling thread and how many of those threads' cores no other process
    keeps busy, as one number (count * 4096 + cores). One thread needs no reading. Every
    core busy (0) is not one core busy (1): beside one busy process NumPy's 2-thread BLAS
    kept near its quiet speed (default-size mlp_forward 8.4 ms, compiled 10.0 ms), beside
    two it waited for descheduled threads (34 ms, compiled 16 ms); one verdict for both
    kept the graph at 0.86x."""
    count = get_num_threads()
    if count < 2:
        return count * 4097
    idle = threads.contention.idle_cores()
    return count * 4096 + (idle if idle < count else count)


def threads_of(condition_):
    """The thread count of a ``condition()``."""
    return condition_ // 4096


def busy(condition_):
    """Whether other processes keep busy some of the cores of a ``condition()``'s threads."""
    return condition_ % 4096 < condition_ // 4096


class _Trial:
    """The state of one entry's trial: untimed calls left and the runs measured, each
    ``[written, seconds of its calls...]`` in the order they ran; the last one may be
    ``open`` (still taking calls). A call only adds to the open run: the decision is taken
    when a run completes, as a busy condition's runs take hundreds of calls each (medians
    over every call so far, taken on every call, made a 70 us softmax call 2.2 ms)."""

    __slots__ = ("warm_left", "runs", "busy", "run_seconds", "open", "open_seconds", "best_compiled")

    def __init__(self, busy=False):
        self.warm_left = WARM
        self.runs = []
        self.busy = busy                  # under a busy condition: decided on total time (``_decide``)
        self.run_seconds = BUSY_RUN_SECONDS if busy else 0.0   # the least a run's counted calls last together
        self.open = False                 # whether the last run still takes calls
        self.open_seconds = 0.0           # its counted calls' seconds so far
        self.best_compiled = float("inf")  # the fastest compiled call so far

    def next_is_written(self):
        """Runs go compiled first, then as written first, and so on, pair by pair: the
        second run of a pair finds caches the first warmed, which favours neither side
        over a trial."""
        if self.open:
            return self.runs[-1][0]
        pair, second = divmod(len(self.runs), 2)
        return (pair % 2 == 1) != (second == 1)

    def record(self, written, seconds):
        """Add a call to the open run (a new one if none is); returns whether that run now
        has its calls: ``RUN`` of them, the counted ones lasting ``run_seconds``."""
        if not self.open:
            self.runs.append([written])
            self.open, self.open_seconds = True, 0.0
        run = self.runs[-1]
        if len(run) > 1:                  # the first call of a run is not counted
            self.open_seconds += seconds
        run.append(seconds)
        if not written and seconds < self.best_compiled:
            self.best_compiled = seconds
        if len(run) > RUN and self.open_seconds >= self.run_seconds:
            self.open = False
        return not self.open

    def complete_runs(self):
        """The runs that have all their calls (every run but an open last one)."""
        return self.runs[:-1] if self.open else self.runs

    def counted(self, written):
        """The counted calls' seconds (each run's first left out) of one way."""
        return [t for run in self.runs if run[0] is written for t in run[2:]]

    def pair_medians(self):
        """``(written, compiled)``: the median counted call of each run, for each complete
        pair: not their sums, as runs of a busy condition last the same time, not the same
        number of calls; not their means, as one call descheduled for 85 ms in a run of 12
        then decides the pair (two counted calls of a quiet run: the mean)."""
        medians = []
        runs = self.complete_runs()
        for first, second in zip(runs[::2], runs[1::2]):
            written, compiled = (first, second) if first[0] else (second, first)
            medians.append((statistics.median(written[2:]), statistics.median(compiled[2:])))
        return medians

    def ratios(self):
        """Time as written / time compiled, for each complete pair (``pair_medians``)."""
        return [written / max(compiled, 1e-12) for written, compiled in self.pair_medians()]

    def total_ratio(self):
        """Time as written / time compiled over every complete pair: the sums of the runs'
        medians, so that a run whose every call waited (NumPy's threads at a barrier for a
        descheduled one) weighs what it cost, while one odd call within a run does not."""
        medians = self.pair_medians()
        return sum(w for w, _ in medians) / max(sum(c for _, c in medians), 1e-12)


class Trials:
    """The entries of one jitted function that are under trial."""

    def __init__(self, fn, simple, decisions):
        self.fn = fn                # the function as written
        self.simple = simple        # its parameters are all positional-or-keyword: fn(*L) is the call
        self.pending = {}           # entry -> _Trial
        self.decisions = decisions  # why each retired entry runs as written (the jitted function's list)

    def add(self, entry, condition_):
        """Put ``entry`` on trial under ``condition_`` (the one its verdict is kept for)."""
        if config.speed_trials and entry.fast is not None:
            self.pending[entry] = _Trial(busy(condition_))

    def call(self, entry, run_compiled, run_written):
        """Serve one call that ``entry``'s guards accept, as the trial needs it."""
        trial = self.pending[entry]
        if trial.warm_left:
            trial.warm_left -= 1
            return run_compiled()
        written = trial.next_is_written()
        route_calls = route_trials.trial_calls()
        start = time.perf_counter()
        result = run_written() if written else run_compiled()
        if route_trials.trial_calls() != route_calls:
            return result   # a graph's route was under trial: the time mixes two ways (not counted)
        run_complete = trial.record(written, time.perf_counter() - start)
        if trial.best_compiled < float("inf") and (trial.best_compiled > MAX_COMPILED_SECONDS or entry.fast is None):
            self._close(entry, None)
        elif run_complete:
            self._decide(entry, trial)
        return result

    def _decide(self, entry, trial):
        """Once a run is complete: keep the compiled path, retire the entry, or go on."""
        written = trial.counted(True)
        written_runs = [run[2:] for run in trial.runs if run[0] and len(run) > 2]
        clearly = CLEARLY_SLOWER * statistics.median(trial.counted(False))   # runs start compiled
        if len(written_runs) >= CLEARLY_SLOWER_RUNS and all(statistics.median(run) > clearly for run in written_runs):
            return self._close(entry, None)
        ratios = trial.ratios()
        if len(trial.runs) % 2 or len(ratios) < MIN_PAIRS:
            return None
        per_call = (f"{statistics.median(written) * 1e6:.0f} us against "
                    f"{statistics.median(trial.counted(False)) * 1e6:.0f} us a call")
        if trial.busy:
            if len(ratios) < MAX_PAIRS:
                return None
            total = trial.total_ratio()
            if total >= MARGIN:
                return self._close(entry, None)
            entry.fast = self._as_written(entry)
            return self._close(entry, f"{entry.label} runs as written: NumPy took {total:.2f} times the compiled "
                                      f"code's time (in total over {len(ratios)} pairs of runs beside busy "
                                      f"processes; {per_call})")
        if max(ratios) < MARGIN or (len(ratios) >= MAX_PAIRS and statistics.median(ratios) < MARGIN):
            entry.fast = self._as_written(entry)
            return self._close(entry, f"{entry.label} runs as written: NumPy took {statistics.median(ratios):.2f} "
                                      f"times the compiled code's time (median of {len(ratios)} pairs of runs; "
                                      f"{per_call})")
        if min(ratios) >= MARGIN or len(ratios) >= MAX_PAIRS:
            return self._close(entry, None)
        return None

    def _as_written(self, entry):
        """The retired entry's fast path: its routing guards (a call they reject may belong
        to another entry), then the function as written. ``L`` holds the arguments in
        parameter order, defaults applied: for a function of plain parameters that is
        the call itself; any other reruns through ``RerunUncompiled``."""
        entry.compiled_fast = entry.fast   # kept for a trial under another condition
        if getattr(entry, "written_fast", None) is None:
            entry.written_fast = self._written_path(entry)
        return entry.written_fast

    def _written_path(self, entry):
        guard, fn = routing_guard(entry), self.fn
        if self.simple:
            def fast(L):
                return fn(*L) if guard(L) else MISS
        else:
            def fast(L):
                if not guard(L):
                    return MISS
                raise RerunUncompiled(None)
        return fast

    def _close(self, entry, retired):
        del self.pending[entry]
        if retired is not None:
            self.decisions.append(retired)


def routing_guard(entry):
    """The checks of ``entry``'s guards that tell calls apart by what they compute
    (``trace/guards``' docstring): enough for a call that runs as written. A call of
    another layout that would have had its own compiled entry runs as written too."""
    guards = getattr(getattr(entry, "capture", None), "guards", None)
    context = getattr(entry, "_context", None)
    if guards is None or context is None:
        return entry.guard
    return guards.compile(context["globals_dict"], context["closure"], routing_only=True)


def _retired(entry):
    written = getattr(entry, "written_fast", None)
    return written is not None and entry.fast is written


def _is_reason_of(decision, entry):
    return decision.startswith(f"{entry.label} runs as written")


def _unretire(trials, entry):
    """Give a retired entry its compiled path back; its reason leaves the list."""
    if _retired(entry):
        entry.fast = entry.compiled_fast
        trials.decisions[:] = [d for d in trials.decisions if not _is_reason_of(d, entry)]


def reopen(trials, entries, condition_):
    """Put ``entries`` (those ``applies`` to) on trial again under ``condition_``, the
    calling thread's: a retired entry gets its compiled path back and its reason leaves
    the list."""
    for entry in entries:
        _unretire(trials, entry)
        if entry not in trials.pending:
            trials.add(entry, condition_)


class Verdicts:
    """Each decided entry's verdict per condition (``condition()``), kept when the calls
    move to another condition, so that calls coming back find it: a machine whose load
    comes and goes would otherwise pay a trial each time it changes. A verdict is whether
    the entry runs as written, and why: the paths themselves are the entry's latest."""

    def __init__(self):
        self.by_condition = {}

    def save(self, condition, trials, entries):
        """Record the verdicts of ``entries`` decided under ``condition`` (not under trial)."""
        saved = self.by_condition.setdefault(condition, {})
        for entry in entries:
            if entry not in trials.pending:
                retired = _retired(entry)
                reason = next((d for d in trials.decisions if _is_reason_of(d, entry)), None) if retired else None
                saved[entry] = (retired, reason)

    def restore(self, condition, trials, entries):
        """Give each of ``entries`` its verdict under ``condition`` (a trial of it stops);
        returns the entries with none there, which need a trial."""
        saved = self.by_condition.get(condition, {})
        undecided = []
        for entry in entries:
            if entry not in saved:
                undecided.append(entry)
                continue
            retired, reason = saved[entry]
            trials.pending.pop(entry, None)
            _unretire(trials, entry)
            if retired:
                entry.fast = trials._as_written(entry)
                if reason is not None:
                    trials.decisions.append(reason)
        return undecided


def applies(jitted, entry):
    """Whether ``entry`` of ``jitted`` gets a trial: CPU code from the default backend
    that runs compiled (``fullgraph=True`` asks for compiled code; the debug backends
    exist to run the captured graphs; a GPU call's point is the GPU)."""
    return (config.speed_trials and not jitted.fullgraph and jitted.backend is BACKENDS["inductor"]
            and jitted.device is None and getattr(entry, "fast", None) is not None)
