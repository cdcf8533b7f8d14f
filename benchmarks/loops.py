"""The loop workloads (benchmarks/loop_workloads.py) through NumPy, npcompile and numba.

    python -m benchmarks.loops                                  # every workload, small size
    python -m benchmarks.loops --size large --only cholesky,lu --repeat 5
    python -m benchmarks.loops --no-numba --threads 1 --backend eager
    python -m benchmarks.loops --native --no-npcompile --only cholesky,lu   # native kernels vs NumPy and numba

For each workload, in one process, every call on fresh copies of the same inputs:

1. NumPy once: the expected result and the state it leaves the inputs in.
2. ``npcompile.jit(fn, backend=...)``: the first call (trace + compile + run) is timed and
   checked against NumPy (type, dtype, shape, values within a dtype tolerance, the final
   state of every input); five more calls are checked too and count the recompiles
   (the jitted function's ``recompile_reasons``).
3. ``npcompile.explain`` of that jitted function (one more run through its own cache, so
   no second compile): graphs and graph breaks of what ran. A function whose calls
   failed is explained afresh (eager backend).
4. ``numba.njit(fn)`` (optional, imported only here): the module-level helpers the
   workload calls are njit-ed as well, as a numba user decorates them. A workload numba
   refuses is reported as ``rejected (<numba's exception class>)``.
5. ``--native``: npcompile's native loop kernels (``npcompile.native.try_compile`` on the
   same unmodified source; a refusal is reported with its reason). The first-call time is
   the analysis and numba compile plus the first call; timed calls include the guard.
6. Steady state: alternating rounds (NumPy, npcompile, numba, native, NumPy, ...), one call
   each per round, the median kept; speedups over NumPy and their geometric means
   (over matching results only).

Budgets: a call is stopped after ``--hard-limit`` seconds where a signal can stop it
(POSIX, main thread), and a system whose first call took more than ``--budget`` seconds
is not called again for that workload (reported as such), so one pathological compile
does not stall the run. Writes ``loops.json`` and ``loops.txt`` (what was printed) to
``--out`` (default ``benchmarks/results/loops/``, git-ignored). Measurements only: no
assertions.
"""
import argparse
import contextlib
import datetime
import inspect
import json
import os
import platform
import signal
import statistics
import sys
import threading
import time
import types
import warnings
from pathlib import Path

import numpy as np

from benchmarks.loop_workloads import by_name
from benchmarks.registry import Transcript
from benchmarks.report import aligned, fmt, geometric_mean

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "loops"
REPEATED_CALLS = 5    # calls after the first that count recompiles


# ---- budgets -------------------------------------------------------------------------------
class OverBudget(BaseException):
    """Raised by the alarm inside a call that ran past the hard limit. A BaseException, so
    that a compiler's ``except Exception`` fallback cannot swallow it."""


@contextlib.contextmanager
def hard_limit(seconds):
    """Stop the block with OverBudget after ``seconds`` (no limit off the main thread or
    without SIGALRM: the budget is then only checked between calls)."""
    if not seconds or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise OverBudget(f"stopped after {seconds:.0f} s (--hard-limit)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---- checking ------------------------------------------------------------------------------
def tolerance(dtype, workload=None):
    """(rtol, atol) for comparing values of ``dtype``: the workload's own if it sets them,
    else a few ulps of accumulated error for floats and exact for integers and bools."""
    if workload is not None and workload.rtol is not None:
        return workload.rtol, workload.atol
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return (1e-4, 1e-5) if dtype.itemsize <= (4 if dtype.kind == "f" else 8) else (1e-7, 1e-9)
    return 0.0, 0.0


def compare(expected, actual, workload=None, strict=True, path="result"):
    """None if ``actual`` is what NumPy returned, else a message naming where it differs.
    ``strict``: the Python type and the dtype of scalars must match too (numba returns
    Python scalars for NumPy ones, so it is compared with ``strict=False``)."""
    if isinstance(expected, (tuple, list)) or expected is None:
        if type(actual) is not type(expected) and (strict or not isinstance(actual, (tuple, list))):
            return f"{path}: type {type(actual).__name__}, NumPy {type(expected).__name__}"
        if expected is None:
            return None
        if len(actual) != len(expected):
            return f"{path}: length {len(actual)}, NumPy {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            problem = compare(e, a, workload, strict, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if strict and type(actual) is not type(expected):
        return f"{path}: type {type(actual).__name__}, NumPy {type(expected).__name__}"
    expected_array, actual_array = np.asarray(expected), np.asarray(actual)
    if (strict or isinstance(actual, np.ndarray)) and actual_array.dtype != expected_array.dtype:
        return f"{path}: dtype {actual_array.dtype}, NumPy {expected_array.dtype}"
    if actual_array.shape != expected_array.shape:
        return f"{path}: shape {actual_array.shape}, NumPy {expected_array.shape}"
    rtol, atol = tolerance(expected_array.dtype, workload)
    if expected_array.dtype.kind in "fc":
        scale = max(float(np.max(np.abs(expected_array), initial=0.0)), 1.0)
        close = np.allclose(actual_array, expected_array, rtol=rtol, atol=atol * scale, equal_nan=True)
    else:
        close = np.array_equal(actual_array, expected_array)
    if not close:
        error = np.max(np.abs(actual_array.astype(complex) - expected_array.astype(complex)), initial=0.0)
        return f"{path}: values differ (max abs error {error:.3g})"
    return None


def fresh(args):
    """A new copy of every array argument (scalars as they are)."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def check_call(fn, args, expected, expected_inputs, workload, strict=True):
    """Call ``fn`` on fresh copies of ``args``: (seconds, None) if its result and the
    inputs it leaves behind match NumPy's, else (seconds, message)."""
    call_args = fresh(args)
    start = time.perf_counter()
    actual = fn(*call_args)
    seconds = time.perf_counter() - start
    problem = compare(expected, actual, workload, strict)
    if problem is None:
        names = list(inspect.signature(workload.fn).parameters)
        for name, before, after in zip(names, expected_inputs, call_args):
            if isinstance(before, np.ndarray):
                problem = compare(before, after, workload, strict, f"input {name} after the call")
                if problem:
                    break
    return seconds, problem


def _failure(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160]}" if text else type(exc).__name__


# ---- the systems ---------------------------------------------------------------------------
def graph_structure(fn, args, limit):
    """Graphs and breaks of one run of ``fn`` (``npcompile.explain``): a jitted function
    that ran is explained through what it compiled, a plain one with the eager backend."""
    import npcompile
    try:
        with warnings.catch_warnings(), hard_limit(limit):
            warnings.simplefilter("ignore")
            explained = npcompile.explain(fn)(*fresh(args))
    except (Exception, OverBudget) as exc:  # noqa: BLE001 - reported, the run goes on
        return {"explain": f"failed: {_failure(exc)}"}
    reasons = list(dict.fromkeys(record.reason for record in explained.break_reasons))
    return {"graphs": explained.graph_count, "breaks": explained.graph_break_count, "break_reasons": reasons[:5]}


def first_and_repeated_calls(fn, args, expected, expected_inputs, workload, options, strict=True,
                             recompile_reasons=None):
    """The first call (timed, checked), then REPEATED_CALLS more, each checked; with
    ``recompile_reasons`` (a callable returning the list so far) their recompiles counted.
    Returns the record and whether the function may be timed further."""
    record = {"status": None, "first_call_s": None}
    caught = []
    try:
        with warnings.catch_warnings(record=True) as caught, hard_limit(options.hard_limit):
            warnings.simplefilter("always")
            record["first_call_s"], problem = check_call(fn, args, expected, expected_inputs, workload, strict)
    except OverBudget as exc:
        record["status"] = f"over budget: first call {exc}"
        return record, False
    except Exception as exc:  # noqa: BLE001
        record["status"] = f"failed: {_failure(exc)}"
        return record, False
    record["status"] = "match" if problem is None else f"MISMATCH {problem}"
    if recompile_reasons is not None:
        record["recompiles_first_call"] = len(recompile_reasons())
    if record["first_call_s"] > options.budget:
        record["skipped"] = f"first call took {record['first_call_s']:.0f} s > --budget {options.budget:.0f} s"
        return _with_warnings(record, caught), False
    before = len(recompile_reasons()) if recompile_reasons is not None else 0
    try:
        with warnings.catch_warnings(record=True) as more, hard_limit(options.hard_limit):
            warnings.simplefilter("always")
            for _ in range(REPEATED_CALLS):
                _, problem = check_call(fn, args, expected, expected_inputs, workload, strict)
                if problem is not None and record["status"] == "match":
                    record["status"] = f"MISMATCH on a repeated call: {problem}"
        caught = list(caught) + list(more)
    except (Exception, OverBudget) as exc:  # noqa: BLE001
        record["status"] = f"failed on a repeated call: {_failure(exc)}"
        return record, False
    if recompile_reasons is not None:
        reasons = recompile_reasons()
        record["recompiles_in_repeated_calls"] = len(reasons) - before
        record["recompile_reasons"] = list(dict.fromkeys(str(r) for r in reasons))[:5]
    return _with_warnings(record, caught), True


def _with_warnings(record, caught):
    messages = list(dict.fromkeys(f"{w.category.__name__}: {str(w.message).splitlines()[0][:200]}"
                                  for w in caught))
    if messages:
        record["warnings"] = messages[:5]
    return record


def run_npcompile(workload, args, expected, expected_inputs, options):
    import npcompile
    jitted = npcompile.jit(workload.fn, backend=options.backend)
    record, usable = first_and_repeated_calls(jitted, args, expected, expected_inputs, workload, options,
                                              recompile_reasons=lambda: jitted.recompile_reasons)
    record["compiled_segments"] = jitted.compile_count
    return record, (jitted if usable else None)


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def with_jitted_helpers(fn, njit, done=None):
    """``fn`` itself if it calls no plain function of its own module, else a copy of it
    whose globals name njit-ed versions of those helpers (recursively)."""
    done = {} if done is None else done
    replaced = {}
    for name in sorted(_global_names(fn.__code__)):
        helper = fn.__globals__.get(name)
        if isinstance(helper, types.FunctionType) and helper.__module__ == fn.__module__ and helper is not fn:
            if helper not in done:
                done[helper] = None     # a cycle reaches it as the plain function
                done[helper] = njit(with_jitted_helpers(helper, njit, done))
            replaced[name] = done[helper] or helper
    if not replaced:
        return fn
    namespace = dict(fn.__globals__, **replaced)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    return clone


def numba_reason(exc):
    """The informative part of numba's message: its first line after the pipeline
    preamble, with the signature it could not type ('>>> f(...)') when it gives one."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("Failed in ")] or lines or [type(exc).__name__]
    reason = lines[0] + (f" {lines[1]}" if len(lines) > 1 and lines[1].startswith(">>>") else "")
    return reason[:240]


def run_numba(workload, args, expected, expected_inputs, options):
    """numba.njit on the workload (its helpers njit-ed too), compiled explicitly for the
    argument types first, so that what numba refuses (typing, an unsupported feature, a
    missing scipy for its BLAS) is told apart from a failure at run time. The first-call
    time is compile plus first run. Returns (record, compiled or None)."""
    try:
        import numba
    except ImportError:
        return {"status": "not installed"}, None
    compiled = numba.njit(with_jitted_helpers(workload.fn, numba.njit))
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), hard_limit(options.hard_limit):
            warnings.simplefilter("ignore")
            compiled.compile(tuple(numba.typeof(a) for a in fresh(args)))
    except OverBudget as exc:
        return {"status": f"over budget: compile {exc}"}, None
    except Exception as exc:  # noqa: BLE001 - numba refused the program
        return {"status": f"rejected ({type(exc).__name__})", "detail": numba_reason(exc)}, None
    compile_s = time.perf_counter() - start
    record, usable = first_and_repeated_calls(compiled, args, expected, expected_inputs, workload, options,
                                              strict=False)
    record["compile_s"] = compile_s
    if record["first_call_s"] is not None:
        record["first_call_s"] += compile_s
    return record, (compiled if usable else None)


def run_native(workload, args, expected, expected_inputs, options):
    """npcompile.native on the workload: (record, guarded callable or None)."""
    from npcompile.native import try_compile
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), hard_limit(options.hard_limit):
            warnings.simplefilter("ignore")
            kernel = try_compile(workload.fn, fresh(args))
    except OverBudget as exc:
        return {"status": f"over budget: compile {exc}"}, None
    compile_s = time.perf_counter() - start
    if not kernel:
        return {"status": "refused", "detail": kernel.reason[:240], "compile_s": compile_s}, None

    def guarded(*call_args):
        return kernel(*call_args) if kernel.guard(call_args) else workload.fn(*call_args)

    record, usable = first_and_repeated_calls(guarded, args, expected, expected_inputs, workload, options)
    record.update(compile_s=compile_s, numba_compile_s=kernel.compile_seconds, fallbacks=kernel.bailouts)
    if record["first_call_s"] is not None:
        record["first_call_s"] += compile_s
    return record, (guarded if usable else None)


# ---- timing --------------------------------------------------------------------------------
def alternating_rounds(functions, args, rounds, budget, limit):
    """Per-call seconds of each function (name -> fn, all warm): ``rounds`` rounds, each
    calling every function once on fresh copies (copying is not timed), so that load from
    other processes hits them alike; the median per function. A function stops being
    timed once its rounds have taken ``budget`` seconds (it keeps at least one), or when a
    call fails or runs past ``limit``."""
    times = {name: [] for name in functions}
    stopped = {}
    for _ in range(rounds):
        for name, fn in functions.items():
            if name in stopped or (times[name] and sum(times[name]) > budget):
                continue
            call_args = fresh(args)
            try:
                with hard_limit(limit), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    fn(*call_args)
                    times[name].append(time.perf_counter() - start)
            except (Exception, OverBudget) as exc:  # noqa: BLE001
                stopped[name] = f"a timed call failed: {_failure(exc)}"
    medians = {name: statistics.median(ts) for name, ts in times.items() if ts}
    return medians, {name: len(ts) for name, ts in times.items()}, stopped


def run_workload(workload, size, options, log=print):
    """One workload through NumPy, npcompile and (unless --no-numba) numba; its record."""
    args = workload.inputs(size)
    expected_inputs = fresh(args)
    start = time.perf_counter()
    expected = workload.fn(*expected_inputs)    # expected_inputs: the state NumPy leaves
    record = {"name": workload.name, "category": workload.category, "size": size, "mutates": workload.mutates,
              "numpy_first_call_s": time.perf_counter() - start}
    functions = {"numpy": workload.fn}
    systems = (([] if options.no_npcompile else [("npcompile", run_npcompile)])
               + ([] if options.no_numba else [("numba", run_numba)])
               + ([("native", run_native)] if options.native else []))
    for system, run in systems:
        start = time.perf_counter()
        record[system], compiled = run(workload, args, expected, expected_inputs, options)
        log(f"  {system}: {record[system]['status']} ({time.perf_counter() - start:.1f} s)")
        if compiled is not None:
            functions[system] = compiled
        if system == "npcompile":
            record[system].update(graph_structure(compiled or workload.fn, args, options.hard_limit))
    medians, counts, stopped = alternating_rounds(functions, args, options.repeat, options.budget,
                                                  options.hard_limit)
    record["numpy_ms"] = medians["numpy"] * 1e3
    record["rounds"] = counts
    if "npcompile" in functions:
        record["npcompile"]["as_written"] = list(getattr(functions["npcompile"], "speed_decisions", ()))
    for system, _ in systems:
        if system in stopped:
            record[system]["timing"] = stopped[system]
        if system in medians:
            record[system]["ms"] = medians[system] * 1e3
            record[system]["speedup"] = medians["numpy"] / medians[system]
    return record


# ---- reporting -----------------------------------------------------------------------------
COLUMNS = ("workload", "category", "numpy ms", "npcompile", "graphs", "breaks", "npc 1st s", "recompiles",
           "npc ms", "npc x", "numba", "nb 1st s", "nb ms", "nb x", "native", "nat 1st s", "nat ms", "nat x",
           "nat/nb")


def short_status(record):
    status = record.get("status") or "-"
    if status.startswith("rejected") or status in ("match", "not installed", "refused"):
        short = status
    else:
        short = status.split(":")[0].split()[0]
    return short + ("*" if record.get("skipped") else "")


def table_rows(records):
    rows = []
    for r in records:
        npc, nb, nat = r.get("npcompile", {}), r.get("numba", {}), r.get("native", {})
        versus_numba = nb["ms"] / nat["ms"] if nat.get("ms") and nb.get("ms") else None
        recompiles = (f"{npc['recompiles_first_call']}/{npc.get('recompiles_in_repeated_calls', '-')}"
                      if "recompiles_first_call" in npc else "-")
        rows.append((r["name"], r["category"], fmt(r["numpy_ms"], ".2f"), short_status(npc) if npc else "off",
                     fmt(npc.get("graphs"), "d"), fmt(npc.get("breaks"), "d"), fmt(npc.get("first_call_s"), ".2f"),
                     recompiles, fmt(npc.get("ms"), ".2f"), fmt(npc.get("speedup"), ".2f"),
                     short_status(nb) if nb else "off", fmt(nb.get("first_call_s"), ".2f"),
                     fmt(nb.get("ms"), ".2f"), fmt(nb.get("speedup"), ".2f"),
                     short_status(nat) if nat else "off", fmt(nat.get("first_call_s"), ".2f"),
                     fmt(nat.get("ms"), ".3f"), fmt(nat.get("speedup"), ".2f"), fmt(versus_numba, ".2f")))
    return rows


def format_table(records):
    return "\n".join(aligned([COLUMNS] + table_rows(records), left=2))


def summary_lines(records):
    """Geometric means (matching, timed results only; overall and per category), then
    every problem: mismatches, failures, rejections, budgets, and npcompile's breaks."""
    lines = []
    for system in ("npcompile", "numba", "native"):
        ran = [r for r in records if r.get(system) and r[system].get("status") != "not installed"]
        if not ran:
            continue
        good = [r for r in ran if r[system]["status"] == "match" and r[system].get("speedup")]
        per_category = []
        for category in dict.fromkeys(r["category"] for r in good):
            mean = geometric_mean(r[system]["speedup"] for r in good if r["category"] == category)
            per_category.append(f"{category} {mean:.2f}x")
        lines.append(f"{system}: geometric-mean speedup over NumPy "
                     f"{fmt(geometric_mean(r[system]['speedup'] for r in good), '.2f')}x over {len(good)} of "
                     f"{len(ran)} workloads (matching results only){'; ' if per_category else ''}"
                     f"{', '.join(per_category)}")
        for r in ran:
            info = r[system]
            notes = [info["status"]] if info["status"] != "match" else []
            notes = [f"{notes[0]}: {info['detail']}" if info.get("detail") else notes[0]] if notes else []
            notes += [f"not timed further: {info['skipped']}"] if info.get("skipped") else []
            notes += [info["timing"]] if info.get("timing") else []
            lines.extend(f"  {r['name']}: {note}" for note in notes)
    written = [f"  {r['name']}: {'; '.join(r['npcompile']['as_written'])}"
               for r in records if r.get("npcompile", {}).get("as_written")]
    if written:
        lines.append("npcompile ran these as written after its speed trial measured NumPy faster:")
        lines.extend(written)
    broken = [f"  {r['name']}: {'; '.join(r['npcompile']['break_reasons'])}"
              for r in records if r.get("npcompile", {}).get("break_reasons")]
    if broken:
        lines.append("npcompile graph-break reasons (explain of the jitted function, first five per workload):")
        lines.extend(broken)
    return lines


def machine_info(options):
    import torch
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
            "numba": _numba_version(options), "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "load_average": os.getloadavg()[0]}


def _numba_version(options):
    if options.no_numba:
        return None
    try:
        import numba
    except ImportError:
        return None
    return numba.__version__


# ---- command line ------------------------------------------------------------------------
def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loops", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("tiny", "small", "large"), default="small")
    parser.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    parser.add_argument("--threads", choices=("default", "1"), default="default",
                        help="'1': one thread for torch, npcompile, NumPy's BLAS and numba")
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds (the median is kept)")
    parser.add_argument("--no-numba", action="store_true", help="leave numba out")
    parser.add_argument("--no-npcompile", action="store_true", help="leave npcompile out (NumPy and numba only)")
    parser.add_argument("--native", action="store_true",
                        help="also time npcompile.native's loop kernels (needs numba; refusals are reported)")
    parser.add_argument("--backend", default="inductor", help="npcompile's backend (eager, aot_eager, inductor)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds: a system whose first call took longer is not called again for that "
                             "workload; also the most its timed rounds may take in all")
    parser.add_argument("--hard-limit", type=float, default=300.0,
                        help="seconds after which a single call is stopped (where a signal can stop it)")
    parser.add_argument("--warm-cache", action="store_true",
                        help="let TorchInductor reuse its on-disk caches (first calls then measure cache hits)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder for loops.json and loops.txt")
    return parser.parse_args(argv)


def _warm_up_kernel(a):
    return a * 2.0 + 1.0


def prepare(options):
    """Thread counts and caches as asked; one trivial compile per system, so the process's
    one-time start-up (imports, probing the C++ compiler) is charged to no workload.
    Returns the seconds that took."""
    import torch

    import npcompile
    if not options.warm_cache:
        import torch._inductor.config
        torch._inductor.config.force_disable_caches = True
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not options.no_npcompile:
            npcompile.jit(_warm_up_kernel, backend=options.backend)(np.ones(4))
        if not options.no_numba:
            try:
                import numba
            except ImportError:
                pass
            else:
                numba.njit(_warm_up_kernel)(np.ones(4))   # not numba.set_num_threads: it starts numba's
                #   OpenMP layer, which resets torch's OpenMP thread count (nothing here runs parallel=True)
    if options.threads == "1":    # last: compiles from here on see one thread
        from benchmarks.conditions import set_numpy_blas_threads
        torch.set_num_threads(1)
        npcompile.config.threads = 1
        set_numpy_blas_threads(1)
    return time.perf_counter() - start


def main(argv=None):
    options = parse_args(argv)
    names = [n.strip() for n in options.only.split(",") if n.strip()]
    workloads = by_name(names)
    folder = Path(options.out)
    folder.mkdir(parents=True, exist_ok=True)
    say = Transcript()
    warm_up_s = prepare(options)
    info = machine_info(options)
    say(f"loop workloads: size={options.size}, backend={options.backend}, threads={options.threads} "
        f"(torch {info['torch_threads']}), rounds={options.repeat}, numpy {info['numpy']}, torch {info['torch']}, "
        f"numba {info['numba'] or 'off'}, cpus={info['cpu_count']}, load average {info['load_average']:.1f}; "
        f"start-up {warm_up_s:.1f} s")
    if options.threads == "default" and info["load_average"] > info["torch_threads"]:
        say(f"note: the load average exceeds torch's {info['torch_threads']} threads: multi-threaded compiled kernels "
            f"then wait on descheduled threads; --threads 1 compares the systems on one core each")
    records = []
    run_start = time.perf_counter()
    for i, workload in enumerate(workloads, 1):
        print(f"[{i}/{len(workloads)}] {workload.name} ({time.perf_counter() - run_start:.0f} s elapsed)", flush=True)
        records.append(run_workload(workload, options.size, options, log=lambda m: print(m, flush=True)))
    say()
    say(format_table(records))
    say("(recompiles: during the first call / during the next 5 calls; *: first call over --budget, not timed; "
        "nat/nb: numba's time over native's)")
    say()
    for line in summary_lines(records):
        say(line)
    write_report(folder, "loops", {"machine": info, "options": vars(options), "workloads": records},
                 say, run_start)
    return 0


def write_report(folder, stem, report, say, run_start):
    """Close a run: its total time and the load, then ``stem``.json (``report``) and
    ``stem``.txt (everything ``say`` printed) in ``folder``."""
    say(f"total {time.perf_counter() - run_start:.0f} s, load average at the end {os.getloadavg()[0]:.1f}")
    (folder / f"{stem}.json").write_text(json.dumps(report, indent=1, default=str))
    (folder / f"{stem}.txt").write_text("\n".join(say.lines) + "\n")
    print(f"wrote {folder / (stem + '.json')} and {folder / (stem + '.txt')}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
