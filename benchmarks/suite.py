"""The benchmark suite: real NumPy workloads through NumPy, npcompile and torch.compile.

    python -m benchmarks.suite                       # the main job: every workload, default and small
                                                     # sizes, four conditions
    python -m benchmarks.suite --quick               # tiny sizes, two repeats: a smoke run (about a minute)
    python -m benchmarks.suite --only softmax,jacobi_2d --conditions default --size small
    python -m benchmarks.suite --save                # also update the README's figures

For each workload, in one process and on the same inputs: NumPy (the oracle), then
``npcompile.jit`` (TorchInductor) and ``torch.compile`` of the same function. Each
compiled result is checked against NumPy (type, dtype, shape, values within the
workload's tolerance); compile time is the first call's time minus a steady call's.
Under each condition npcompile's function is called until its own trials have decided
(``settle``: compiled or as written, where products run) before the timed rounds.
Steady per-call times are measured in paired rounds (``benchmarks/paired.py``: NumPy and
each system back to back in every round, the order alternating; a speedup is the median
of the per-round ratios, a time the median round; more rounds, up to ``max_rounds``,
while a speedup's 95% interval still holds the 10% bar), once per *condition*: ``default`` (torch's
default thread count, as users run it), ``one_thread``, ``contended`` (default
threads while one busy process per core runs; see conditions.py) and ``one_busy``
(default threads beside one busy process: the machine a thread short), each at every size
asked for (``default``: NumPy 1-50 ms a call; ``small``: about 50 us, where per-call
overhead and thread start-up decide). Graphs and breaks come from ``npcompile.explain``
(a fresh eager trace, so they cost no extra compile).

Prints, per size, a table (the first condition) and a table of every condition's
speedups, geometric-mean speedups per condition, the workloads slower than NumPy, the
load average after each condition's rounds; then a memory-bandwidth line. Writes ``report.json``,
``table.txt`` (what was printed) and ``speedups.png`` into a fresh folder under
``benchmarks/results/runs/`` (git-ignored); ``--save`` also writes them to
``benchmarks/results/latest.*`` and ``speedups.png``, the figures the README cites.
No assertions: measurements.
"""
import argparse
import copy
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.conditions import entered, load_now, standard_conditions
from benchmarks.paired import paired_rounds
from benchmarks.registry import Transcript
from benchmarks.report import aligned, fmt, geometric_mean
from benchmarks.workloads import SIZES, by_name

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SYSTEMS = ("npcompile", "torch.compile")
SLOWER_THAN_NUMPY = 1.10


#: What a round is timed with: wall-clock time (what a user waits), or the CPU time of
#: this process's threads (``--clock cpu``): on a machine other people load, a round's
#: wall time also counts the time it waited for a core, which hits one system's rounds
#: more than another's by chance. CPU time sums the threads a call runs on and is blind
#: to the busy processes of the contended condition: for comparing single-threaded
#: code on a loaded machine (a retired entry against NumPy), not for thread speedups.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


#: Many rounds: beside busy processes NumPy's own products switch between a fast and a
#: slow regime (a descheduled BLAS thread held at a barrier) for stretches of rounds, and
#: NumPy timed against itself over 5-15 rounds measured 0.19x-3.36x; over 9-45 rounds of
#: 50 ms, 0.98-1.08x (10 ms rounds spread more: 0.41-1.18x; ``benchmarks/identical_code.py``).
@dataclasses.dataclass(frozen=True)
class Timing:
    repeats: int = 9            # rounds (best of, or paired rounds before any extension)
    min_seconds: float = 0.05   # each measurement loops calls for at least this long
    clock: str = "wall"         # a key of CLOCKS
    max_rounds: int = 45        # paired rounds: at most this many while a verdict is open
    confidence: float = 0.95    # paired rounds: of the median ratio's interval


FULL_TIMING = Timing()
QUICK_TIMING = Timing(repeats=2, min_seconds=0.002, max_rounds=2)


# ---- measurement -------------------------------------------------------------------------
def verdict(expected, actual, rtol, atol, path="result"):
    """"ok", or "MISMATCH <where>: <what>" — NumPy's type, dtype, shape and values
    (within rtol/atol, NaN equal to NaN) must all match."""
    if type(actual) is not type(expected):
        return f"MISMATCH {path}: type {type(actual).__name__}, NumPy {type(expected).__name__}"
    if isinstance(expected, (tuple, list)):
        if len(actual) != len(expected):
            return f"MISMATCH {path}: length {len(actual)}, NumPy {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            result = verdict(e, a, rtol, atol, f"{path}[{i}]")
            if result != "ok":
                return result
        return "ok"
    if isinstance(expected, (np.ndarray, np.generic)):
        if actual.dtype != expected.dtype:
            return f"MISMATCH {path}: dtype {actual.dtype}, NumPy {expected.dtype}"
        if actual.shape != expected.shape:
            return f"MISMATCH {path}: shape {actual.shape}, NumPy {expected.shape}"
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        error = np.max(np.abs(np.asarray(actual, dtype=complex) - np.asarray(expected, dtype=complex)))
        return f"MISMATCH {path}: values differ (max abs error {error:.3g})"
    return "ok"


def _warm_up_kernel(a):
    return a * 2.0 + 1.0


def warm_up(compilers):
    """Compile a trivial function with each system once, so the one-time start-up of
    the process (importing TorchInductor, probing the C++ compiler) is charged to no
    workload. Returns the seconds each took."""
    seconds = {}
    for system, compile_fn in compilers.items():
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile_fn(_warm_up_kernel)(np.ones(4))
        except Exception:  # noqa: BLE001 - the workloads will report the failure
            pass
        seconds[system] = time.perf_counter() - start
    return seconds


def default_compilers():
    """How each system compiles a NumPy function (imported here: the table code and the
    smoke test need neither torch nor npcompile)."""
    import torch

    import npcompile
    return {"npcompile": lambda fn: npcompile.jit(fn), "torch.compile": lambda fn: torch.compile(fn)}


def _failure(exc):
    return f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"


def run_system(compile_fn, workload, args, expected):
    """Compile with ``compile_fn`` and check the first call against NumPy; returns the
    result record (status, first-call seconds) and the compiled function, or None if it
    failed. A crash anywhere is reported as "failed: ...", never raised."""
    result = {"status": None, "ms": None, "compile_s": None}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = compile_fn(workload.fn)
            start = time.perf_counter()
            actual = compiled(*copy.deepcopy(args))
            result["first_s"] = time.perf_counter() - start
            result["status"] = verdict(expected, actual, workload.rtol, workload.atol)
            compiled(*copy.deepcopy(args))   # a second call: no compile left in the timed rounds
    except Exception as exc:  # noqa: BLE001 - the suite reports every failure and goes on
        result["status"] = _failure(exc)
        return result, None
    return result, compiled


def alternating_seconds(functions, args, timing):
    """Per-call seconds of each function (name -> fn, all already warm): its median round
    of ``paired_rounds`` against the first function, so that every round lasts
    ``timing.min_seconds`` by the clock for every function (calls per round fixed from one
    timed call were off by up to 250x beside busy processes: ``benchmarks/paired.py``)."""
    return paired_rounds(functions, args, timing, CLOCKS[timing.clock], reference=next(iter(functions)),
                         bar=1 / SLOWER_THAN_NUMPY)["seconds"]


def graph_structure(workload, args, jitted):
    """Graphs and breaks: ``explain`` on a fresh eager trace, plus what the timed
    inductor function actually compiled."""
    import npcompile
    info = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            explained = npcompile.explain(workload.fn)(*copy.deepcopy(args))
        # explain() lists a graph or break once per time it ran; count distinct ones
        info["graphs"] = len({id(gm) for gm in explained.graphs})
        info["breaks"] = len({id(record) for record in explained.break_reasons})
        info["break_reasons"] = sorted({record.reason for record in explained.break_reasons})
        info["explain_counts"] = [explained.graph_count, explained.graph_break_count]
    except Exception as exc:  # noqa: BLE001
        info["explain"] = _failure(exc)
    if jitted is not None and hasattr(jitted, "compile_count"):
        info["compiled_segments"] = jitted.compile_count
    return info


#: npcompile decides, on its first calls under a thread count or load, whether an entry
#: runs compiled or as written (speed trials) and where a graph's products run (route
#: trials); the rounds time the steady calls after that. Its calls before the rounds last at
#: least ``SETTLE_MIN_SECONDS`` (a busy machine is seen from the second load reading, 50 ms
#: after the first), then go on while a trial is open, until ``SETTLE_MAX_SECONDS``: beside
#: busy processes a speed trial's runs last 50 ms each (``speed_trials.BUSY_RUN_SECONDS``),
#: 0.3-1 s in all. ``benchmarks/first_calls.py`` times the first calls.
SETTLE_MIN_SECONDS = 0.2
SETTLE_MAX_SECONDS = 10.0


def settle(fn, args, clock=time.perf_counter):
    """Call ``fn`` until its trials have decided (its ``settled``; functions without one are
    called for ``SETTLE_MIN_SECONDS``); returns the calls made."""
    start, calls = clock(), 0
    while clock() - start < SETTLE_MAX_SECONDS:
        if clock() - start >= SETTLE_MIN_SECONDS and calls >= 2 and getattr(fn, "settled", True):
            break
        fn(*args)
        calls += 1
    return calls


def run_workload(workload, size, compilers, timing, log=print, conditions=None, default_threads=None):
    """One workload through NumPy and every system, same inputs, one process; steady
    times per condition (the first condition's are also the record's top-level ones)."""
    args = workload.inputs(size)
    expected = workload.fn(*copy.deepcopy(args))
    record = {"name": workload.name, "size": size}
    functions = {"numpy": workload.fn}
    for system, compile_fn in compilers.items():
        log(f"  [{workload.name}] {system}: compiling ...")
        start = time.perf_counter()
        record[system], compiled = run_system(compile_fn, workload, args, expected)
        log(f"  [{workload.name}] {system}: {record[system]['status']} ({time.perf_counter() - start:.1f} s)")
        if compiled is not None:
            functions[system] = compiled
        if system == "npcompile":
            record[system].update(graph_structure(workload, args, compiled))
    conditions = conditions or standard_conditions("default")
    for key in ("conditions", "load", "speedups", "intervals", "rounds", "settle_calls", "as_written"):
        record[key] = {}
    for condition in conditions:
        with entered(condition, default_threads or _torch_threads()):
            if "npcompile" in functions:
                record["settle_calls"][condition.name] = settle(functions["npcompile"], args)
            paired = paired_rounds(functions, args, timing, CLOCKS[timing.clock], bar=1 / SLOWER_THAN_NUMPY)
            record["load"][condition.name] = load_now()
        record["conditions"][condition.name] = {name: s * 1e3 for name, s in paired["seconds"].items()}
        record["speedups"][condition.name] = paired["speedup"]
        record["intervals"][condition.name] = paired["interval"]
        record["rounds"][condition.name] = paired["rounds"]
        if "npcompile" in functions:   # verdicts hold per condition (threads, busy cores)
            record["as_written"][condition.name] = list(getattr(functions["npcompile"], "speed_decisions", ()))
    if "npcompile" in functions:
        record["npcompile"]["as_written"] = record["as_written"][conditions[0].name]
    first = record["conditions"][conditions[0].name]
    record["numpy_ms"] = first["numpy"]
    for system in compilers:
        if system in first:
            steady = first[system] / 1e3
            record[system]["ms"] = first[system]
            record[system]["compile_s"] = max(record[system].pop("first_s") - steady, 0.0)
            record[system]["speedup"] = record["speedups"][conditions[0].name][system]
        record[system].pop("first_s", None)
    return record


def _torch_threads():
    import torch
    return torch.get_num_threads()


def speedup_of(record, system, condition):
    """``system``'s speedup over NumPy under ``condition``: the median of paired rounds'
    ratios, or the ratio of the times for a record without them; None when not timed
    or not correct."""
    times = record.get("conditions", {}).get(condition, {})
    if record.get(system, {}).get("status") != "ok" or not times.get(system):
        return None
    paired = record.get("speedups", {}).get(condition, {}).get(system)
    return paired if paired is not None else times["numpy"] / times[system]


def condition_speedups(records, system, condition):
    """Speedups over NumPy of ``system`` under ``condition`` (correct results only)."""
    speedups = {r["name"]: speedup_of(r, system, condition) for r in records}
    return {name: x for name, x in speedups.items() if x is not None}


def condition_lines(records, conditions):
    """One line per condition and system: geometric mean and the workloads >10% slower."""
    lines = []
    for condition in conditions:
        for system in SYSTEMS:
            speedups = condition_speedups(records, system, condition.name)
            if not speedups:
                continue
            slow = [f"{name} ({x:.2f}x)" for name, x in speedups.items() if x < 1 / SLOWER_THAN_NUMPY]
            lines.append(f"{condition.describe()}: {system} geometric mean {geometric_mean(speedups.values()):.2f}x "
                         f"over {len(speedups)}; slower than NumPy by >10%: {', '.join(slow) or 'none'}")
    return lines


def condition_table(records, conditions, system="npcompile"):
    """Per workload and condition: NumPy's and ``system``'s milliseconds and the speedup
    (correct results only), then the load average after each condition's rounds."""
    header = ["workload"] + [f"{c.name} {column}" for c in conditions for column in ("np ms", "npc ms", "x")]
    rows = []
    for r in records:
        row = [r["name"]]
        for c in conditions:
            times = r.get("conditions", {}).get(c.name, {})
            speedup = speedup_of(r, system, c.name)
            row += [fmt(times.get("numpy"), ".3f"), fmt(times[system] if speedup else None, ".3f"),
                    fmt(speedup, ".2f")]
        rows.append(row)
    lines = aligned([header] + rows)
    loads = {c.name: [r["load"][c.name] for r in records if c.name in r.get("load", {})] for c in conditions}
    lines.append("load average (1 min) after the rounds: " + ", ".join(
        f"{name} {min(v):.1f}-{max(v):.1f}" for name, v in loads.items() if v))
    written = {c.name: [r["name"] for r in records if r.get("as_written", {}).get(c.name)] for c in conditions}
    lines.append(f"{system} ran as written (speed trial under that condition): " + "; ".join(
        f"{name} {', '.join(names) or 'none'}" for name, names in written.items()))
    return "\n".join(lines)


# ---- memory bandwidth --------------------------------------------------------------------
def _axpy(a, b):
    return a * 2.0 + b


def _axpy_into(out, a, b):
    out[...] = a * 2.0 + b


def memory_bandwidth(mebibytes=64, rounds=10, compile_fn=None):
    """GB/s of ``np.copyto`` (read + write) on large float64 arrays, and of the
    memory-bound kernel ``a * 2.0 + b`` (two reads, one write) through NumPy and
    ``compile_fn`` (npcompile.jit), into a fresh array and into an existing one. The
    kernels take turns, one call each per round, best round kept: load from other
    processes then hits them all alike."""
    n = mebibytes * 2 ** 20 // 8
    rng = np.random.default_rng(0)
    a, b, out = rng.random(n), rng.random(n), np.empty(n)
    kernels = {"copyto": (np.copyto, (out, a), 2),
               "numpy a*2+b": (_axpy, (a, b), 3),
               "numpy out[...]=a*2+b": (_axpy_into, (out, a, b), 3)}
    gbps = {}
    if compile_fn is not None:
        for label, fn, args in (("npcompile a*2+b", _axpy, (a, b)),
                                ("npcompile out[...]=a*2+b", _axpy_into, (out, a, b))):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    compiled = compile_fn(fn)
                    compiled(*args)
                kernels[label] = (compiled, args, 3)
            except Exception as exc:  # noqa: BLE001
                gbps[label] = _failure(exc)
    best = dict.fromkeys(kernels, float("inf"))
    for _ in range(rounds):
        for label, (fn, args, _) in kernels.items():
            start = time.perf_counter()
            fn(*args)
            best[label] = min(best[label], time.perf_counter() - start)
    for label, (_, _, arrays_touched) in kernels.items():
        gbps[label] = arrays_touched * a.nbytes / best[label] / 1e9
    return {"mebibytes": mebibytes, "gbps": dict(sorted(gbps.items(), key=lambda item: item[0] != "copyto"))}


def bandwidth_lines(bandwidth):
    copy_rate = bandwidth["gbps"]["copyto"]
    lines = [f"Memory bandwidth ({bandwidth['mebibytes']} MiB float64 arrays, bytes read + written): "
             f"np.copyto {copy_rate:.1f} GB/s"]
    for label, rate in bandwidth["gbps"].items():
        if label == "copyto":
            continue
        if isinstance(rate, str):
            lines.append(f"  {label:<26} {rate}")
        else:
            lines.append(f"  {label:<26} {rate:6.1f} GB/s = {rate / copy_rate:4.0%} of copy bandwidth")
    return lines


# ---- reporting ---------------------------------------------------------------------------
COLUMNS = ("workload", "correct", "numpy ms", "npc ms", "npc x", "npc/tc", "npc comp s",
           "tc comp s", "graphs", "breaks", "tc correct", "tc x")


def _short(status):
    if status is None:
        return "-"
    return status if status == "ok" else status.split(":")[0].split()[0]


def table_rows(records):
    rows = []
    for r in records:
        npc, tc = r.get("npcompile", {}), r.get("torch.compile", {})
        ratio = npc["ms"] / tc["ms"] if npc.get("ms") and tc.get("ms") else None
        rows.append((r["name"], _short(npc.get("status")), fmt(r["numpy_ms"], ".2f"),
                     fmt(npc.get("ms"), ".2f"), fmt(npc.get("speedup"), ".2f"), fmt(ratio, ".2f"),
                     fmt(npc.get("compile_s"), ".1f"), fmt(tc.get("compile_s"), ".1f"),
                     fmt(npc.get("graphs"), "d"), fmt(npc.get("breaks"), "d"),
                     _short(tc.get("status")), fmt(tc.get("speedup"), ".2f")))
    return rows


def format_table(records):
    return "\n".join(aligned([COLUMNS] + table_rows(records)))


def summary_lines(records):
    """Geometric-mean speedups over NumPy (correct runs only), slow workloads, problems."""
    lines = []
    for system in SYSTEMS:
        ran = [r for r in records if system in r]
        good = [r[system]["speedup"] for r in ran if r[system]["status"] == "ok"]
        mean = geometric_mean(good)
        lines.append(f"{system}: geometric-mean speedup over NumPy {fmt(mean, '.2f')}x "
                     f"over {len(good)} of {len(ran)} workloads (correct results only)")
        slow = [f"{r['name']} ({r[system]['speedup']:.2f}x)" for r in ran
                if r[system].get("speedup") and r[system]["speedup"] < 1 / SLOWER_THAN_NUMPY]
        lines.append(f"  slower than NumPy by >{SLOWER_THAN_NUMPY - 1:.0%}: {', '.join(slow) or 'none'}")
        wrong = [f"{r['name']}: {r[system]['status']}" for r in ran if r[system]["status"] != "ok"]
        lines.extend(f"  {problem}" for problem in wrong)
    broken = [f"{r['name']} ({r['npcompile']['breaks']}: {'; '.join(r['npcompile']['break_reasons'])})"
              for r in records if r.get("npcompile", {}).get("breaks")]
    lines.append(f"npcompile graph breaks: {', '.join(broken) or 'none'}")
    written = [r["name"] for r in records if r.get("npcompile", {}).get("as_written")]
    lines.append("npcompile ran as written (its speed trial measured NumPy faster than the compiled code): "
                 f"{', '.join(written) or 'none'}")
    return lines


def write_chart(records, path):
    """Log-scale bars of the speedup over NumPy per workload, one bar per system."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["name"] for r in records]
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(names) + 2), 5))
    width = 0.4
    for k, system in enumerate(SYSTEMS):
        speedups = [r.get(system, {}).get("speedup") if r.get(system, {}).get("status") == "ok" else None
                    for r in records]
        xs = [i + (k - 0.5) * width for i, s in enumerate(speedups) if s]
        ax.bar(xs, [s for s in speedups if s], width, label=system)
        for i, s in enumerate(speedups):
            if not s:
                ax.annotate("x", (i + (k - 0.5) * width, 1.0), ha="center", color="red")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over NumPy (log scale)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_title("Speedup over NumPy (x: failed or wrong answer)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def machine_info():
    import torch
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
            "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "openblas_env": {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")}}


# ---- command line ------------------------------------------------------------------------
def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.suite", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and two repeats, default condition only: a smoke run")
    parser.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    parser.add_argument("--size", default=None,
                        help=f"comma-separated, out of {', '.join(SIZES)} (default: default,small; "
                             "--quick: tiny)")
    parser.add_argument("--threads", default="default",
                        help="torch's thread count for the default condition: 'default' (torch's own "
                             "choice, as users run it) or a number")
    parser.add_argument("--conditions", default=None,
                        help="comma-separated, out of default, one_thread, contended, one_busy "
                             "(default: all four; --quick: default)")
    parser.add_argument("--contention", action="store_true",
                        help="shorthand for --conditions contended")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="time rounds by wall clock (default) or by this process's CPU time "
                             "(a loaded machine's waits left out; blind to threads and contention)")
    parser.add_argument("--warm-cache", action="store_true",
                        help="let TorchInductor reuse its on-disk caches (compile times then "
                             "measure cache hits)")
    parser.add_argument("--out", default=None,
                        help="results folder (default: a new one under benchmarks/results/runs/)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where npcompile computes (cuda: see benchmarks/device.py; exits with a "
                             "message where there is no GPU)")
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help="comma-separated compilers to compare with NumPy (default: both)")
    parser.add_argument("--save", action="store_true",
                        help="also write benchmarks/results/latest.{json,txt} and speedups.png, "
                             "the figures the README cites")
    return parser.parse_args(argv)


def _results_folder(options):
    if options.out:
        return Path(options.out)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return RESULTS_DIR / "runs" / stamp


def _conditions(options):
    if options.contention:
        return standard_conditions("contended")
    return standard_conditions(options.conditions or ("default" if options.quick else
                                                      "default,one_thread,contended,one_busy"))


def _systems(options):
    systems = [n.strip() for n in options.systems.split(",") if n.strip()]
    unknown = [n for n in systems if n not in SYSTEMS]
    if unknown or "npcompile" not in systems:
        raise SystemExit(f"--systems takes npcompile and optionally torch.compile, not {options.systems!r}")
    return systems


def _sizes(options):
    sizes = [n.strip() for n in (options.size or ("tiny" if options.quick else "default,small")).split(",")]
    unknown = [n for n in sizes if n not in SIZES]
    if unknown:
        raise SystemExit(f"unknown sizes {unknown}; choose from {', '.join(SIZES)}")
    return sizes


def main(argv=None):
    options = parse_args(argv)
    if options.device == "cuda":
        from benchmarks.device import require_cuda
        gpu = require_cuda()
    sizes = _sizes(options)
    timing = dataclasses.replace(QUICK_TIMING if options.quick else FULL_TIMING, clock=options.clock)
    names = [n.strip() for n in options.only.split(",") if n.strip()]
    conditions = _conditions(options)
    folder = _results_folder(options)
    folder.mkdir(parents=True, exist_ok=True)
    say = Transcript()

    import torch
    if options.threads != "default":
        torch.set_num_threads(int(options.threads))
    default_threads = torch.get_num_threads()
    if not options.warm_cache:    # compile times are those of a first run on a fresh machine
        import torch._inductor.config
        torch._inductor.config.force_disable_caches = True
    info = machine_info()
    info["conditions"] = [c.describe() for c in conditions]
    say(f"npcompile benchmark suite: sizes={','.join(sizes)}, repeats={timing.repeats}, clock={timing.clock}, "
        f"torch threads={default_threads}, "
        f"cpus={info['cpu_count']}, numpy {info['numpy']}, torch {info['torch']}, load average "
        f"{os.getloadavg()[0]:.1f}; conditions: {', '.join(info['conditions'])}")

    if options.device == "cuda":
        from benchmarks.device import cuda_compilers, device_bandwidth_lines
        say(f"device: {gpu} (npcompile and torch.compile on it, NumPy on the host; transfers included)")
    compilers = default_compilers() if options.device == "cpu" else cuda_compilers()
    compilers = {system: fn for system, fn in compilers.items() if system in _systems(options)}
    info["warm_up_s"] = warm_up(compilers)
    say("one-time start-up (first compile in the process, charged to no workload): "
        + ", ".join(f"{system} {seconds:.1f} s" for system, seconds in info["warm_up_s"].items()))
    records = []
    suite_start = time.perf_counter()
    runs = [(workload, size) for size in sizes for workload in by_name(names)]
    for i, (workload, size) in enumerate(runs, 1):
        print(f"[{i}/{len(runs)}] {workload.name}, {size} size ({time.perf_counter() - suite_start:.0f} s elapsed)",
              flush=True)
        records.append(run_workload(workload, size, compilers, timing, log=lambda m: print(m, flush=True),
                                    conditions=conditions, default_threads=default_threads))

    print("measuring memory bandwidth ...", flush=True)
    bandwidth = memory_bandwidth(mebibytes=8 if options.quick else 64,
                                 rounds=3 if options.quick else 10, compile_fn=compilers["npcompile"])

    for size in sizes:
        at_size = [r for r in records if r["size"] == size]
        say()
        say(f"== {size} size; condition of the table: {conditions[0].describe()}")
        say(format_table(at_size))
        say()
        for line in summary_lines(at_size) + condition_lines(at_size, conditions):
            say(line)
        say()
        say(f"npcompile under each condition ({size} size; ms = median round, x = median of the "
            "rounds' ratios NumPy / npcompile, same condition):")
        say(condition_table(at_size, conditions))
    say()
    gpu_lines = device_bandwidth_lines() if options.device == "cuda" else []
    for line in bandwidth_lines(bandwidth) + gpu_lines:
        say(line)
    say(f"total {time.perf_counter() - suite_start:.0f} s, load average at the end {os.getloadavg()[0]:.1f}")

    report = {"machine": info, "sizes": sizes, "timing": dataclasses.asdict(timing),
              "workloads": records, "bandwidth": bandwidth}
    targets = [(folder / "report.json", folder / "table.txt", folder / "speedups.png")]
    if options.save:
        targets.append((RESULTS_DIR / "latest.json", RESULTS_DIR / "latest.txt", RESULTS_DIR / "speedups.png"))
    for json_path, text_path, chart_path in targets:
        json_path.write_text(json.dumps(report, indent=1))
        text_path.write_text("\n".join(say.lines) + "\n")
        write_chart([r for r in records if r["size"] == sizes[0]], chart_path)
        print(f"wrote {json_path}, {text_path} and {chart_path}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
