"""torch's while_loop against npcompile's runtime-driven loop, on the loop shapes of issue 14.

    python -m benchmarks.while_loop_probe                          # small and large, default threads
    python -m benchmarks.while_loop_probe --threads 1 --only jacobi_1d,implicit_heat --sizes small

Issue 14 leaves open whether a time loop with fixed-shape carried state should become one
loop inside the graph (torch's ``while_loop`` higher-order op, which Inductor lowers to a
host loop in its generated wrapper calling the body's kernels) or run as npcompile does:
a runtime-driven loop over one compiled body. For each shape of
benchmarks/while_loop_versions.py, at each size, in one process:

1. NumPy on the source as written: the expected result and the inputs' final state.
2. ``npcompile.jit(fn, backend=...)``, default config; and the same mathematics written
   with ``while_loop`` under ``torch.compile(backend=..., fullgraph=True)``. Each first
   call (trace, compile, run) is timed with a cold Inductor cache: caches off as in
   benchmarks/loops.py, a fresh ``TORCHINDUCTOR_CACHE_DIR`` per system and Inductor's
   in-memory code caches emptied, so neither reuses the other's kernels. Five more calls
   are checked and count recompiles.
3. A plain eager torch loop on the same tensors (a floor: torch's kernels, no compiler).
4. Alternating rounds (NumPy, npcompile, while_loop, eager, NumPy, ...), the median kept,
   the load average printed with it.

Every result is checked against NumPy's (type, dtype, values, the inputs' final state);
a mismatch is reported and not timed. Writes ``while_loop_probe.json`` and
``while_loop_probe.txt`` to ``--out``. Measurements only: no assertions.
"""
import argparse
import contextlib
import os
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path

from benchmarks import loops
from benchmarks import while_loop_versions as versions
from benchmarks.registry import Transcript
from benchmarks.report import aligned, fmt

DEFAULT_OUT = Path(tempfile.gettempdir()) / "npcompile-while-loop-probe"
SYSTEMS = ("npcompile", "while_loop", "eager")


# ---- cold compiles ---------------------------------------------------------------------------
@contextlib.contextmanager
def cold_inductor_cache(root, label):
    """A fresh Inductor cache directory for the block, with the in-memory code caches
    emptied; npcompile's machine calibrations (facts about this machine, not compiled
    code) are linked in so a first call does not re-time the machine."""
    from torch._inductor import codecache
    from torch._inductor.runtime import cache_dir_utils
    calibrations = Path(cache_dir_utils.cache_dir()) / "npcompile-calibrations"
    folder = Path(root) / label
    folder.mkdir(parents=True)
    if calibrations.is_dir():
        (folder / calibrations.name).symlink_to(calibrations, target_is_directory=True)
    codecache.PyCodeCache.cache_clear()
    codecache.CppCodeCache.cache_clear()
    previous = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(folder)
    try:
        yield folder
    finally:
        if previous is None:
            del os.environ["TORCHINDUCTOR_CACHE_DIR"]
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = previous


class CompileCount:
    """Graphs torch.compile made since it was created: more than one is a recompile."""

    def __init__(self):
        from torch._dynamo.utils import counters
        self.counters = counters
        self.start = self._graphs()

    def _graphs(self):
        return self.counters["stats"]["unique_graphs"]

    def recompiles(self):
        return ["recompiled"] * max(0, self._graphs() - self.start - 1)


# ---- the systems -----------------------------------------------------------------------------
def run_npcompile(shape, args, expected, expected_inputs, options):
    import npcompile
    jitted = npcompile.jit(shape.workload.fn, backend=options.backend)
    record, usable = loops.first_and_repeated_calls(jitted, args, expected, expected_inputs, shape.workload,
                                                    options, recompile_reasons=lambda: jitted.recompile_reasons)
    record["as_written"] = list(getattr(jitted, "speed_decisions", ()))
    return record, (jitted if usable else None)


def run_while_loop(shape, args, expected, expected_inputs, options):
    import torch
    count = CompileCount()
    compiled = versions.on_numpy(torch.compile(shape.while_fn, backend=options.backend, fullgraph=True),
                                 shape.finish)
    record, usable = loops.first_and_repeated_calls(compiled, args, expected, expected_inputs, shape.workload,
                                                    options, recompile_reasons=count.recompiles)
    return record, (compiled if usable else None)


def run_eager(shape, args, expected, expected_inputs, options):
    eager = versions.on_numpy(shape.eager_fn, shape.finish)
    record, usable = loops.first_and_repeated_calls(eager, args, expected, expected_inputs, shape.workload, options)
    return record, (eager if usable else None)


RUNNERS = {"npcompile": run_npcompile, "while_loop": run_while_loop, "eager": run_eager}


def trips(args, expected):
    """Iterations of the loop: the steps argument of a time loop, the sweeps a
    data-dependent loop took (its result)."""
    return expected if isinstance(expected, int) else args[-1]


def run_cell(shape, size, options, cache_root, log=print):
    """One shape at one size through every system; its record."""
    args = shape.workload.inputs(size)
    expected_inputs = loops.fresh(args)
    expected = shape.workload.fn(*expected_inputs)
    record = {"name": shape.name, "size": size, "trips": trips(args, expected)}
    functions = {"numpy": shape.workload.fn}
    for system in SYSTEMS:
        start = time.perf_counter()
        with cold_inductor_cache(cache_root, f"{shape.name}-{size}-{system}"):
            record[system], ready = RUNNERS[system](shape, args, expected, expected_inputs, options)
        log(f"  {system}: {record[system]['status']} ({time.perf_counter() - start:.1f} s)")
        if ready is not None and record[system]["status"] == "match":
            functions[system] = ready
    record["load_before_timing"] = os.getloadavg()[0]
    medians, counts, stopped = loops.alternating_rounds(functions, args, options.repeat, options.budget,
                                                        options.hard_limit)
    record["numpy_ms"], record["rounds"] = medians["numpy"] * 1e3, counts
    for system in SYSTEMS:
        if system in stopped:
            record[system]["timing"] = stopped[system]
        if system in medians:
            record[system]["ms"] = medians[system] * 1e3
            record[system]["speedup"] = medians["numpy"] / medians[system]
    record["load_after_timing"] = os.getloadavg()[0]
    return record


# ---- reporting -------------------------------------------------------------------------------
COLUMNS = ("workload", "size", "trips", "numpy ms", "npc ms", "npc x", "wl ms", "wl x", "eager ms", "eager x",
           "npc 1st s", "wl 1st s", "recompiles", "checks", "load")


def _recompiles(record):
    if "recompiles_in_repeated_calls" not in record:
        return "-"
    return f"{record['recompiles_first_call']}/{record['recompiles_in_repeated_calls']}"


def _checks(record):
    """"match" when every system's results matched NumPy's, else who did not."""
    problems = [f"{system} {record[system]['status'].split()[0].rstrip(':')}" for system in SYSTEMS
                if record[system]["status"] != "match"]
    return ", ".join(problems) or "match"


def table_rows(records):
    rows = []
    for r in records:
        npc, wl, eager = (r[s] for s in SYSTEMS)
        rows.append((r["name"], r["size"], fmt(r["trips"], "d"), fmt(r["numpy_ms"], ".2f"),
                     fmt(npc.get("ms"), ".2f"), fmt(npc.get("speedup"), ".2f"),
                     fmt(wl.get("ms"), ".2f"), fmt(wl.get("speedup"), ".2f"),
                     fmt(eager.get("ms"), ".2f"), fmt(eager.get("speedup"), ".2f"),
                     fmt(npc.get("first_call_s"), ".1f"), fmt(wl.get("first_call_s"), ".1f"),
                     f"{_recompiles(npc)} {_recompiles(wl)}", _checks(r),
                     f"{r['load_before_timing']:.1f}-{r['load_after_timing']:.1f}"))
    return rows


def format_table(records):
    return "\n".join(aligned([COLUMNS] + table_rows(records), left=2))


LEGEND = ("(x: NumPy's time over the system's, medians of alternating rounds; npc: npcompile.jit; wl: "
          "while_loop under torch.compile; eager: a plain torch loop; 1st s: first call, cold Inductor cache; "
          "recompiles: npcompile's then while_loop's, during the first call / during the next 5; load: the "
          "1-minute load average before / after the timed rounds)")


def notes(records):
    """What the table cannot show: failures in full, warnings, npcompile's speed decisions."""
    lines = []
    for r in records:
        for system in SYSTEMS:
            info = r[system]
            details = ([info["status"]] if info["status"] != "match" else []) + info.get("warnings", [])
            details += [info["timing"]] if info.get("timing") else []
            details += [f"ran as written: {'; '.join(info['as_written'])}"] if info.get("as_written") else []
            lines.extend(f"  {r['name']} {r['size']} {system}: {d}" for d in details)
    return lines


# ---- command line ----------------------------------------------------------------------------
def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.while_loop_probe",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="small,large", help="comma-separated: tiny, small, large")
    parser.add_argument("--only", default="", help="comma-separated loop shapes (default: all): "
                        + ", ".join(s.name for s in versions.SHAPES))
    parser.add_argument("--threads", choices=("default", "1"), default="default",
                        help="'1': one thread for torch, npcompile and NumPy's BLAS")
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds (the median is kept)")
    parser.add_argument("--backend", default="inductor",
                        help="npcompile's and torch.compile's backend (eager and aot_eager: quick checks)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds: the most a system's timed rounds may take in all; a first call "
                             "over it is not timed further")
    parser.add_argument("--hard-limit", type=float, default=300.0,
                        help="seconds after which a single call is stopped (where a signal can stop it)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="folder for the json and txt reports")
    options = parser.parse_args(argv)
    options.sizes = [s.strip() for s in options.sizes.split(",") if s.strip()]
    unknown = [s for s in options.sizes if s not in ("tiny", "small", "large")]
    if unknown or not options.sizes:
        parser.error(f"--sizes: choose from tiny, small, large (got {options.sizes})")
    options.only = [n.strip() for n in options.only.split(",") if n.strip()]
    return options


def _warm_up_loop(x):
    from torch._higher_order_ops.while_loop import while_loop
    return while_loop(lambda t, y: t < 2, lambda t, y: (t + 1, y * 2.0), (x.new_zeros((), dtype=int), x))[1]


def prepare(options):
    """Thread counts and caches as benchmarks.loops sets them, after one trivial compile by
    npcompile and one trivial while_loop, so the process's start-up is charged to no shape."""
    import torch
    loop_options = types.SimpleNamespace(warm_cache=False, no_npcompile=False, no_numba=True,
                                         backend=options.backend, threads=options.threads)
    seconds = loops.prepare(loop_options)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.compile(_warm_up_loop, backend=options.backend, fullgraph=True)(torch.ones(4))
    return seconds + time.perf_counter() - start


def header(options, start_up_s):
    import numpy
    import torch
    return (f"while_loop probe: sizes={','.join(options.sizes)}, backend={options.backend}, "
            f"threads={options.threads} (torch {torch.get_num_threads()}), rounds={options.repeat}, "
            f"numpy {numpy.__version__}, torch {torch.__version__}, cpus={os.cpu_count()}, "
            f"load average {os.getloadavg()[0]:.1f}; start-up {start_up_s:.1f} s")


def main(argv=None):
    options = parse_args(argv)
    chosen = versions.shapes(options.only)
    folder = Path(options.out)
    folder.mkdir(parents=True, exist_ok=True)
    say = Transcript()
    say(header(options, prepare(options)))
    records, run_start = [], time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="while-loop-probe-") as cache_root:
        for size in options.sizes:
            for shape in chosen:
                print(f"{shape.name} {size} ({time.perf_counter() - run_start:.0f} s elapsed)", flush=True)
                records.append(run_cell(shape, size, options, cache_root, log=lambda m: print(m, flush=True)))
    say()
    say(format_table(records))
    say(LEGEND)
    for line in notes(records):
        say(line)
    report = {"machine": loops.machine_info(types.SimpleNamespace(no_numba=True)), "options": vars(options),
              "records": records}
    loops.write_report(folder, "while_loop_probe", report, say, run_start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
