"""The first calls as a user meets them: each suite workload in a fresh process, calls 1
to N timed one by one, for NumPy, npcompile (blocking compiles, and background compiles
where this npcompile offers ``jit(compile="background")``) and torch.compile; with a
cold Inductor cache (a new, empty one per process) and a warm one (a second process on
the cache the first left behind).

It prints, per workload and system, the total time of the N calls, its ratio to NumPy's,
and the first call from which the system is faster than NumPy per call; and writes
first_calls.json (and first_calls.png with matplotlib) into a results folder. With
several rounds it also prints the median ratio, and the median ratio of the calls' time
less their run-queue wait (the time the calling thread was ready but had no CPU, read
from Linux's per-thread scheduler statistics): on a shared machine most of a call's
time can be other people's load, which the rounds meet unequally.

    python -m benchmarks.first_calls --only softmax jacobi_2d --calls 20
    python -m benchmarks.first_calls --only softmax --systems numpy npcompile-background \
        --caches cold --rounds 3
    python -m benchmarks.first_calls --only heat_3d --set background_after_calls=10
"""
import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "runs"


#: Background compiles whose worker does not pause while the calls run (``background.
#: Yielding`` off), for comparison (not run unless named).
UNPAUSED = "npcompile-background-unpaused"

#: Background compiles whose worker takes its full share of the time while calls run from
#: the job's start (``background.RAMP_SECONDS`` off), for comparison (not run unless named).
UNRAMPED = "npcompile-background-unramped"

#: Background compiles whose worker thread and compile process run at niceness 19 instead
#: of 10 (``background.WORKER_NICENESS``, ``compile_process.CHILD_NICENESS``): what the
#: calls' run-queue wait owes to them (not run unless named).
NICEST = "npcompile-background-nice19"

#: NumPy with the malloc thresholds ``npcompile.jit`` sets (npcompile/runtime/memory.py):
#: the baseline a background compile's uncompiled calls really run on, so that what the
#: compile costs them is not hidden by what the thresholds save (not run unless named).
NUMPY_KEPT_MEMORY = "numpy-kept-memory"

#: NumPy again, in another fresh process of the same round: the control. Its ratio to
#: NumPy is what the machine's load alone makes of a ratio (not run unless named).
NUMPY_AGAIN = "numpy-again"
_UNCOMPILED = ("numpy", NUMPY_KEPT_MEMORY, NUMPY_AGAIN)


def systems():
    """System name -> how a child process wraps the workload's function."""
    import npcompile
    found = ["numpy", "npcompile", "torch.compile"]
    if "compile" in inspect.signature(npcompile.jit).parameters:
        found.insert(2, "npcompile-background")
    if hasattr(npcompile.config, "compile_out_of_process"):
        found.insert(3, "npcompile-background-in-process")
    return found


def _wrap(system, fn):
    if system in ("numpy", NUMPY_AGAIN):
        return fn
    if system == NUMPY_KEPT_MEMORY:
        from npcompile.runtime import memory
        memory.keep_freed_memory()
        return fn
    if system == "torch.compile":
        import torch
        return torch.compile(fn)
    import npcompile
    if system.startswith("npcompile-background"):
        # "-in-process": Inductor's code generation in the worker thread, for comparison
        npcompile.config.compile_out_of_process = not system.endswith("-in-process")
        if system == UNPAUSED:
            from npcompile.runtime import background
            background.BUSY_SHARE = None
        if system == UNRAMPED:
            from npcompile.runtime import background
            background.RAMP_SECONDS = None
        if system == NICEST:
            from npcompile.runtime import background, compile_process
            background.WORKER_NICENESS = compile_process.CHILD_NICENESS = 19
        return npcompile.jit(fn, compile="background")
    return npcompile.jit(fn)


def apply_settings(settings):
    """``name=value`` strings (a Python literal, else a string) -> npcompile.config."""
    import ast

    import npcompile
    for setting in settings:
        name, _, text = setting.partition("=")
        if not hasattr(npcompile.config, name):
            raise SystemExit(f"--set: npcompile.config has no setting {name!r}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        setattr(npcompile.config, name, value)


def thread_times():
    """(CPU seconds, run-queue seconds) of the calling thread so far: the time it ran
    (``time.thread_time``) and the time it was ready to run but waited for a CPU
    (``/proc/thread-self/schedstat``'s second field; None where Linux does not say). A
    call's time less both is time it was blocked: waiting for the GIL, a lock, the disk."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            waited = int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None
    return time.thread_time(), waited


def _per_thread(pid, name, parse):
    """{tid: parse(text)} of /proc/<pid>/task/<tid>/<name> for ``pid``'s live threads
    (a thread or process that ends meanwhile is skipped)."""
    found = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/{name}") as f:
                found[int(tid)] = parse(f.read())
        except (OSError, IndexError, ValueError):
            pass
    return found


def _task_cpu(pid):
    """{(pid, tid): CPU seconds} of process ``pid``'s live threads (Linux schedstat)."""
    cpu = _per_thread(pid, "schedstat", lambda text: int(text.split()[0]) / 1e9)
    return {(pid, tid): seconds for tid, seconds in cpu.items()}


def _descendants(pid):
    """The live processes ``pid`` started, and theirs (Linux's task children lists)."""
    found = []
    for kids in _per_thread(pid, "children", lambda text: [int(k) for k in text.split()]).values():
        for kid in kids:
            found += [kid, *_descendants(kid)]
    return found


def others_cpu():
    """{(pid, tid): CPU seconds} of every live thread of this process but the calling
    one, and of every live process it started: a background compile's worker thread and
    compile processes. A call that waits for a CPU while they run waits partly for them;
    while they do not, its waiting is the machine's other load."""
    me = (os.getpid(), threading.get_native_id())
    found = {}
    for pid in (os.getpid(), *_descendants(os.getpid())):
        found.update(_task_cpu(pid))
    found.pop(me, None)
    return found


#: The background compile worker's thread name (npcompile/runtime/background.py).
WORKER_THREAD = "npcompile-background-compile"


def worker_cpu():
    """CPU seconds of this process's background compile worker thread so far (0.0 before
    it starts): the share of ``others_cpu`` that is npcompile's own Python, as opposed to
    BLAS's threads or the compile process."""
    for thread in threading.enumerate():
        if thread.name == WORKER_THREAD and thread.native_id is not None:
            cpu = _per_thread(os.getpid(), "schedstat", lambda text: int(text.split()[0]) / 1e9)
            return cpu.get(thread.native_id, 0.0)
    return 0.0


def others_spent(before, after):
    """CPU seconds ``others_cpu`` grew by between two readings (threads that started in
    between count from zero; those that ended are lost)."""
    return sum(max(0.0, seconds - before.get(task, 0.0)) for task, seconds in after.items())


def child(workload_name, system, calls, size, settings=()):
    """In the fresh process: time ``calls`` calls one by one (and the CPU time and the
    run-queue wait of each, where Linux reports them, the CPU time the process's other
    threads and its child processes spent meanwhile, and of that the compile worker
    thread's); print one JSON line."""
    start = time.perf_counter()
    apply_settings(settings)
    from benchmarks.workloads import by_name
    (workload,) = by_name([workload_name])
    args = workload.inputs(size)
    fn = _wrap(system, workload.fn)
    setup = time.perf_counter() - start
    times, spent, others, worker = [], [], [], []
    for _ in range(calls):
        others_before, worker_before = others_cpu(), worker_cpu()
        before = thread_times()
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
        after = thread_times()
        others.append(others_spent(others_before, others_cpu()))
        worker.append(max(0.0, worker_cpu() - worker_before))
        spent.append(None if before is None or after is None else (after[0] - before[0], after[1] - before[1]))
    run = {"setup": setup, "times": times}
    if None not in spent:
        run["cpu"], run["waits"] = [s[0] for s in spent], [s[1] for s in spent]
        run["others"], run["worker"] = others, worker
    print(json.dumps(run))


def run_child(workload_name, system, calls, size, cache_dir, settings=()):
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir, PYTHONWARNINGS="ignore")
    command = [sys.executable, "-m", "benchmarks.first_calls", "--child", workload_name, system,
               "--calls", str(calls), "--size", size, *(f"--set={s}" for s in settings)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:   # the status shows an abort at exit (134) too
        return {"error": f"exit status {done.returncode}: " + (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def faster_from(times, numpy_times):
    """The first call index (1-based) from which every call is faster than NumPy's median."""
    reference = sorted(numpy_times)[len(numpy_times) // 2]
    for k in range(len(times)):
        if all(t < reference for t in times[k:]):
            return k + 1
    return None


def measure(names, calls, size, caches, chosen_systems=None, rounds=1, settings=()):
    """Each workload's systems, round after round: the systems alternate within a round,
    so a change in the machine's load meets each of them alike."""
    import benchmarks.workloads as workloads
    results = {}
    for workload in workloads.by_name(names):
        runs = results.setdefault(workload.name, {})
        for round_index in range(rounds):
            for system in chosen_systems or systems():
                compiles = system not in _UNCOMPILED
                for cache in caches if compiles else ("cold",):
                    label = f"{system} ({cache})" if compiles else system
                    runs.setdefault(label, []).append(_fresh_cache_run(workload.name, system, calls, size, cache,
                                                                              settings, round_index))
        print(_line(workload.name, runs), flush=True)
    return results


def _fresh_cache_run(name, system, calls, size, cache, settings=(), round_index=0):
    """``system``'s run in a process with a cold Inductor cache, or (``warm``) in a second
    process on the cache a first one filled. A warm run carries its own NumPy reference
    (``run["reference"]``, which ``ratios`` prefers to the round's NumPy run): a NumPy
    process run next to it, after the same filling process, the two taking turns in the
    slot right after it (``round_index``). What ran just before a process moves its
    first call: a fresh NumPy process's first kmeans_step call took 28-35 ms in 8 of 9
    rounds right after npcompile's processes and 9 ms in 7 of 9 as the round's first
    (2026-11-28), the same code; a second process timed after the filling one and
    compared with the round's first NumPy process paid that as its own cost."""
    folder = tempfile.mkdtemp(prefix="npcompile-first-calls-")
    try:
        run = run_child(name, system, calls, size, folder, settings)
        if cache == "warm" and "error" not in run:
            numpy_first = round_index % 2 == 1
            reference = run_child(name, "numpy", calls, size, folder, settings) if numpy_first else None
            run = run_child(name, system, calls, size, folder, settings)
            if not numpy_first:
                reference = run_child(name, "numpy", calls, size, folder, settings)
            if "error" not in run and "error" not in reference:
                run["reference"] = reference
        return run
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def ratios(run, numpy_run):
    """``run``'s total over NumPy's in the same round, and the same for the calls' times
    less their run-queue waits (None where either run lacks them). A warm run's own NumPy
    reference (``_fresh_cache_run``) replaces ``numpy_run``."""
    numpy_run = run.get("reference", numpy_run)
    if "times" not in run or not numpy_run.get("times"):
        return None, None
    ratio = sum(run["times"]) / sum(numpy_run["times"])
    if "waits" not in run or "waits" not in numpy_run:
        return ratio, None
    ran = sum(run["times"]) - sum(run["waits"])
    numpy_ran = sum(numpy_run["times"]) - sum(numpy_run["waits"])
    return ratio, (ran / numpy_ran if numpy_ran > 0 else None)


def _median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _medians(rounds, numpy_runs):
    """``median 0.93x (0.97x less run-queue wait)`` over the rounds, or '' for one round."""
    pairs = [ratios(run, numpy_runs[k]) for k, run in enumerate(rounds) if k < len(numpy_runs)]
    if len(pairs) < 2:
        return ""
    total, ran = _median([p[0] for p in pairs]), _median([p[1] for p in pairs])
    if total is None:
        return ""
    return f"; median {total:.2f}x" + (f" ({ran:.2f}x less run-queue wait)" if ran is not None else "")


#: Blocked time worth printing (seconds over the N calls).
BLOCKED_SHOWN = 0.02


def blocked(run):
    """Seconds the calls spent neither running nor waiting for a CPU (the GIL, a lock,
    the disk), or None where the run lacks the split. A background compile's worker holds
    the GIL while it traces or imports; a NumPy process spends none of its time here."""
    if "cpu" not in run:
        return None
    return sum(max(0.0, t - w - c) for t, w, c in zip(run["times"], run["waits"], run["cpu"]))


def _blocked(run):
    seconds = blocked(run)
    text = f" (blocked {seconds:.3f} s)" if seconds is not None and seconds >= BLOCKED_SHOWN else ""
    others, worker = sum(run.get("others", ())), sum(run.get("worker", ()))
    return text + (f" (others' CPU {others:.3f} s)" if others >= BLOCKED_SHOWN else "") \
        + (f" (worker CPU {worker * 1e3:.1f} ms)" if worker > 0 else "")


def _less_waits(run, numpy_run):
    ran = ratios(run, numpy_run)[1]
    return f" ({ran:.2f}x less run-queue wait)" if ran is not None else ""


#: A cell over this ratio to NumPy's total misses issue 20's goal.
OVER = 1.10


def summary(results):
    """How many cells (workload, system and cache, round) are over ``OVER`` times NumPy's
    total of the same round, and how many of them are still over it less both runs'
    run-queue waits; per system label. The control ``numpy-again`` shows how many a
    second NumPy process makes on the same machine."""
    counts = {}
    for runs in results.values():
        numpy_runs = runs.get("numpy", [])
        for label, rounds in runs.items():
            if label == "numpy":
                continue
            count = counts.setdefault(label, [0, 0, 0])
            for k, run in enumerate(rounds):
                total, ran = ratios(run, numpy_runs[k]) if k < len(numpy_runs) else (None, None)
                if total is None:
                    continue
                count[0] += 1
                count[1] += total > OVER
                count[2] += ran is not None and ran > OVER
    return "\n".join(f"{label}: {over} of {cells} cells over {OVER:.2f}x NumPy, {ran_over} less run-queue wait"
                     for label, (cells, over, ran_over) in counts.items())


def _line(name, runs):
    """One workload's line: per system, the total of the N calls in each round, its
    ratio to NumPy's total in the same round, and from which call it beats NumPy; with
    several rounds, the median ratios (see ``_medians``)."""
    numpy_runs = runs.get("numpy", [])
    parts = []
    for label, rounds in runs.items():
        texts = []
        for k, run in enumerate(rounds):
            if "error" in run:
                texts.append(f"failed ({run['error'][:60]})")
                continue
            total = sum(run["times"])
            numpy_run = run.get("reference") or (numpy_runs[k] if k < len(numpy_runs) else {})
            numpy_total = sum(numpy_run.get("times", [])) or None
            mark = " (its own NumPy reference)" if "reference" in run else ""
            ratio = f" = {total / numpy_total:.2f}x NumPy{mark}" if numpy_total and label != "numpy" else ""
            since = faster_from(run["times"], numpy_run.get("times", run["times"])) if label != "numpy" else None
            less = _less_waits(run, numpy_run) if label != "numpy" and ratio else ""
            texts.append(f"{total:.3f} s{ratio}{less}" + (f", faster from call {since}" if since else "")
                         + _blocked(run))
        medians = _medians(rounds, numpy_runs) if label != "numpy" else ""
        parts.append(f"{label}: " + " | ".join(texts) + medians)
    return f"{name:24s} " + "; ".join(parts)


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(len(results), 1, figsize=(7, 2.6 * len(results)), squeeze=False)
    for ax, (name, runs) in zip(axes[:, 0], results.items()):
        for label, rounds in runs.items():
            run = next((r for r in rounds if "times" in r), None)   # the first round's
            if run is not None:
                ax.semilogy(range(1, len(run["times"]) + 1), run["times"], marker=".", label=label)
        ax.set_title(name)
        ax.set_xlabel("call")
        ax.set_ylabel("seconds")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="workload names (default: all of benchmarks.workloads)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--size", default="default", choices=("default", "tiny"))
    parser.add_argument("--caches", nargs="*", default=["cold", "warm"], choices=("cold", "warm"))
    parser.add_argument("--systems", nargs="*",
                        help=f"systems to run (default: all found; also {NUMPY_AGAIN}, {NUMPY_KEPT_MEMORY}, "
                             f"{UNPAUSED}, {UNRAMPED}, {NICEST})")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, the systems alternating in each")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="an npcompile.config setting for every process (repeatable)")
    parser.add_argument("--out", help="results folder (default: a new one under benchmarks/results/runs/)")
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SYSTEM"), help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        child(*options.child, options.calls, options.size, options.set)
        return 0
    print(f"first {options.calls} calls, each system in a fresh process; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    results = measure(options.only, options.calls, options.size, options.caches, options.systems,
                      options.rounds, options.set)
    folder = Path(options.out) if options.out else RESULTS / time.strftime("%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    print(summary(results))
    (folder / "first_calls.json").write_text(json.dumps(results, indent=1))
    plot(results, folder / "first_calls.png")
    print(f"written to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
